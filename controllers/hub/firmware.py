"""The hub's firmware: channel registers and the PIDF / RUN_TO_POSITION loop.

The REV Control Hub / Expansion Hub firmware is closed source. Everything in this
module that is not a register the SDK reads or writes is an APPROXIMATION, and
every number is a field of :class:`FirmwareConstants`, the one place to change it
(per hub: ``Hub(firmware=FirmwareConstants(...))``). The "real-hub check"
(:mod:`simcore.controllers.hub_check`) lists what to measure to confirm or replace each.

The loop (one pass per channel every ``loop_period``)
------------------------------------------------------
Units (APPROXIMATION, "Gain units" row): loop output ``loop_output_full_scale``
(32767) = full duty; velocity in encoder ticks/s; position in ticks. Per pass,
for an enabled channel::

    RUN_WITHOUT_ENCODER:  out = constant_power                  # (int)(p*32767), sent by the SDK
    RUN_USING_ENCODER:    v_sp = velocity_target                # ticks/s, sent by the SDK
    RUN_TO_POSITION:      e_p  = target - count                 # ticks
                          I_p  = clamp(I_p + Ip*e_p, +-position_i_clamp)
                          v_sp = Pp*e_p + I_p + Dp*(e_p - e_p_prev) (+ Fp*0)
                          v_sp = clamp(v_sp, +-abs(velocity_target))   # the speed cap
    (both encoder modes)  e_v  = v_sp - v_meas                  # ticks/s
                          I_v  = clamp(I_v + Iv*e_v, +-i_clamp)
                          out  = clamp(Pv*e_v + I_v + Dv*(e_v - e_v_prev) + Fv*v_sp, +-FS)
    duty written to the mechanism = raw_sign * out / FS     (encoder modes, FS = loop_output_full_scale)
                                    raw_sign * out / 32767  (RUN_WITHOUT_ENCODER: the SDK's exact scale)

"The position loop feeds the velocity loop" (the Structure row) is exact; the
arithmetic above is not published. The I terms add once per pass (not per
second); D acts on the change of error over one pass. Both integrators (and the
D memories) are cleared on every change of the channel's mode, when the channel
is disabled, and on an encoder reset. LegacyPID and PIDF run the same arithmetic
here.

``v_meas`` (APPROXIMATION, "Velocity measurement" row) is the velocity the hub
measures, raw counts/s; the loop, ``getVelocity`` (which rounds it to a whole
tick/s and wraps it to ``velocity_report_bits``) and the at-target speed
condition all read this one value. With ``velocity_window`` W = 0 (default) it
is the modelled shaft speed exactly, at the moment it is read. With W > 0 (a
whole number N of loop periods) every pass, enabled or not, samples the integer
count, and ``v_meas = (count(t) - count(t - W)) / W`` over the last N + 1
samples; while fewer are held (the first N passes after power-up or after an
encoder reset, which clears them because the count jumps to 0) it is the
difference over the passes held, and 0 with a single sample (or none). Between
passes it keeps the value of the last pass, so robot code reading
``getVelocity`` at its own rate sees the hub's last measurement. No noise is
modelled.

At target (APPROXIMATION, "At-target test" row): ``abs(target - count) <=
tolerance`` (``< tolerance`` with ``at_target_inclusive=False``) and, unless
``at_target_max_speed`` is ``math.inf`` (default: position only, so a motor
passing through the target at speed reads not busy for that moment),
``abs(v_meas) <= at_target_max_speed``. Evaluated when the SDK asks
(``isBusy``), on the count at that moment.

A disabled channel writes duty 0 with the bridge open (brake 0). An enable the
hub refuses (RUN_TO_POSITION with no target: TargetPositionNotSetException)
leaves the channel disabled, whatever the approximations below say, so that the
specification's exact "Missing target" row (the channel is off) holds for every
FirmwareConstants. An enabled one
writes brake = 1 for ZeroPowerBehavior.BRAKE, 0 for FLOAT (the mechanism shorts
the windings only at zero duty).

Registers (exact as the SDK sees them)
--------------------------------------
mode (RUN_WITHOUT_ENCODER / RUN_USING_ENCODER / RUN_TO_POSITION: the hub has no
STOP_AND_RESET_ENCODER mode, the SDK sends a reset command instead), enable,
constant power, velocity target, target position + tolerance, zero-power
behaviour, PIDF gains per mode (16.16 fixed point), encoder count (32-bit),
velocity (reported as a 16-bit int). A channel powers up in RUN_WITHOUT_ENCODER,
FLOAT, enabled, power 0 (what the SDK's ``LynxDcMotorController.initializeHardware``
leaves), with no target, and its encoder count is 0 at power-up (the first
signals the hub sees).
"""
from __future__ import annotations

import math
import numbers
from collections import deque
from dataclasses import dataclass, replace
from typing import Mapping, Optional

from simcore.errors import ConfigError, ConfigTypeError

from .sdk import (MotorControlAlgorithm, RunMode, TargetPositionNotSetException, ZeroPowerBehavior,
                  internal_coefficient_from_external)

__all__ = ["FirmwareConstants", "DEFAULT_FIRMWARE", "FULL_SCALE", "round_half_away"]

#: Output full scale of the hub's motor commands (constant power and loop output).
FULL_SCALE = 32767


def round_half_away(x: float) -> int:
    """Round to the nearest integer, halves away from zero (odd-symmetric)."""
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


@dataclass(frozen=True)
class FirmwareConstants:
    """Every number of the firmware model, each an APPROXIMATION unless marked otherwise.

    Parameters
    ----------
    default_velocity_pidf : tuple (p, i, d, f)
        APPROXIMATION: gains of RUN_USING_ENCODER at power-up, (10, 3, 0, 0). What
        teams read back from ``getPIDFCoefficients(RUN_USING_ENCODER)``; goBILDA
        types in the SDK declare none, so these come from the firmware.
    default_velocity_algorithm : MotorControlAlgorithm
        APPROXIMATION: algorithm reported with the default velocity gains (PIDF).
    default_position_pidf : tuple (p, i, d, f)
        APPROXIMATION: gains of RUN_TO_POSITION at power-up, (10, 0, 0, 0). The
        SDK's Core Hex type declares position P = 10; unconfirmed for other motors.
    default_position_algorithm : MotorControlAlgorithm
        APPROXIMATION: PIDF.
    loop_output_full_scale : float
        APPROXIMATION ("Gain units" row): the loop output that means full duty in
        RUN_USING_ENCODER / RUN_TO_POSITION, 32767 (the scale of the SDK's own
        constant-power command, which stays exact at 32767 in RUN_WITHOUT_ENCODER).
        The FTC tuning rule F = 32767 / maxTicksPerSecond works only with 32767.
    loop_period : float
        APPROXIMATION: one loop pass every 10 ms (100 Hz), s; positive and finite.
        Not published; chosen so that the default gains settle a velocity step in
        a few hundred ms with light overshoot.
    i_clamp : float
        APPROXIMATION: bound of the velocity loop's integral term, loop output units
        (32767: full scale at the default ``loop_output_full_scale``); a finite
        number >= 0, not a bool.
    position_i_clamp : float
        APPROXIMATION: bound of the position loop's integral term (only non-zero
        gains under LegacyPID reach it), ticks/s; a finite number >= 0, not a bool.
    at_target_inclusive : bool
        APPROXIMATION: the at-target test is ``abs(target - count) <= tolerance``
        (True) or ``< tolerance`` (False).
    at_target_max_speed : float
        APPROXIMATION ("At-target test" row): at target also requires the measured
        velocity (``v_meas`` in the module docstring, before getVelocity's
        rounding) to satisfy ``abs(v_meas) <= at_target_max_speed``, counts/s.
        ``math.inf`` (default): no speed condition, position only, so a motor
        passing through the target at speed reads not busy for that moment.
        Positive (> 0), inf allowed, not NaN, not a bool. Whether the hub's test
        has a speed condition is not published; the real-hub check's busy
        flickers in the position step (item 4) tell.
    forget_target_on_reset : bool
        APPROXIMATION: False, a target once sent is kept across mode changes and
        encoder resets. True makes an encoder reset forget it (then entering
        RUN_TO_POSITION again throws TargetPositionNotSetException).
    velocity_window : float
        APPROXIMATION ("Velocity measurement" row): the window over which the hub
        measures velocity, s. 0 (default): the loop, getVelocity and the at-target
        speed condition see the modelled shaft speed exactly. W > 0: they see
        ``(count(t) - count(t - W)) / W`` in counts/s, the integer count sampled
        once per loop pass, so W must be a whole multiple of ``loop_period``
        (within 1e-9 of one); until the window is full (after power-up or an
        encoder reset, which clears the samples) the difference over the passes
        held, 0 with one sample or none; between passes the last pass's value.
        A finite number >= 0, not a bool. The real hub's window, lag and noise
        are not published; the real-hub check's velocity step (item 2) shows the
        lag as overshoot.
    velocity_report_bits : int
        APPROXIMATION (from FtcRobotController issue #965): the velocity the hub
        reports wraps as a signed integer of this many bits (16: above 32767
        ticks/s it overflows). 0 disables the wrap. An int (not a bool, not 16.0):
        0, 16 or 32.
    current_signal : str
        APPROXIMATION: which mechanism current ``getCurrent`` reports (absolute
        value): ``"supply_current"`` (default: the H-bridge's supply-side current,
        duty x stator current, what a sense resistor in the bridge's supply leg
        averages to) or ``"stator_current"``.
    """

    default_velocity_pidf: tuple = (10.0, 3.0, 0.0, 0.0)
    default_velocity_algorithm: MotorControlAlgorithm = MotorControlAlgorithm.PIDF
    default_position_pidf: tuple = (10.0, 0.0, 0.0, 0.0)
    default_position_algorithm: MotorControlAlgorithm = MotorControlAlgorithm.PIDF
    loop_output_full_scale: float = float(FULL_SCALE)
    loop_period: float = 0.010
    i_clamp: float = float(FULL_SCALE)
    position_i_clamp: float = float(FULL_SCALE)
    at_target_inclusive: bool = True
    at_target_max_speed: float = math.inf
    forget_target_on_reset: bool = False
    velocity_window: float = 0.0
    velocity_report_bits: int = 16
    current_signal: str = "supply_current"

    def __post_init__(self):
        for name in ("default_velocity_pidf", "default_position_pidf"):
            v = getattr(self, name)
            if not (isinstance(v, tuple) and len(v) == 4 and all(isinstance(c, (int, float)) and
                                                                  not isinstance(c, bool) and math.isfinite(c)
                                                                  for c in v)):
                raise ConfigError(name, v, "a tuple of four finite numbers (p, i, d, f)")
        for name in ("default_velocity_algorithm", "default_position_algorithm"):
            if not isinstance(getattr(self, name), MotorControlAlgorithm):
                raise ConfigTypeError(name, getattr(self, name), "a MotorControlAlgorithm")
        for name, positive, expected in (("loop_output_full_scale", True, "a positive finite number"),
                                         ("loop_period", True, "a positive finite time in s"),
                                         ("i_clamp", False, "a non-negative finite number"),
                                         ("position_i_clamp", False, "a non-negative finite number"),
                                         ("velocity_window", False, "a non-negative finite time in s")):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise ConfigTypeError(name, v, expected)
            if not (math.isfinite(v) and (v > 0 if positive else v >= 0)):
                raise ConfigError(name, v, expected)
        passes = self.velocity_window / self.loop_period
        if not math.isfinite(passes) or abs(passes - round(passes)) > 1e-9:
            raise ConfigError("velocity_window", self.velocity_window,
                              f"a whole multiple (0, 1, 2, ...) of loop_period={self.loop_period!r} s")
        v = self.at_target_max_speed
        expected = "a positive number of counts/s (math.inf: no speed condition)"
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise ConfigTypeError("at_target_max_speed", v, expected)
        if not v > 0:  # also NaN
            raise ConfigError("at_target_max_speed", v, expected)
        for name in ("at_target_inclusive", "forget_target_on_reset"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigTypeError(name, getattr(self, name), "True or False")
        bits = self.velocity_report_bits
        if isinstance(bits, bool) or not isinstance(bits, numbers.Integral):
            raise ConfigTypeError("velocity_report_bits", bits, "an int: 0, 16 or 32")
        if bits not in (0, 16, 32):
            raise ConfigError("velocity_report_bits", bits, "0, 16 or 32")
        object.__setattr__(self, "velocity_report_bits", int(bits))  # a numpy integer as a Python int
        if self.current_signal not in ("supply_current", "stator_current"):
            raise ConfigError("current_signal", self.current_signal, "'supply_current' or 'stator_current'")

    def replace(self, **changes) -> "FirmwareConstants":
        """A copy with some fields changed."""
        return replace(self, **changes)

    @property
    def velocity_window_passes(self) -> int:
        """``velocity_window`` in loop passes (0: the exact modelled speed)."""
        return round(self.velocity_window / self.loop_period)


#: The firmware model's defaults.
DEFAULT_FIRMWARE = FirmwareConstants()


@dataclass
class _Gains:
    """One mode's gains as the hub stores them (16.16 fixed point)."""

    p: int
    i: int
    d: int
    f: int
    algorithm: MotorControlAlgorithm

    @classmethod
    def from_external(cls, p, i, d, f, algorithm):
        q = internal_coefficient_from_external
        return cls(q(p), q(i), q(d), q(f), algorithm)

    def floats(self):
        return self.p / 65536.0, self.i / 65536.0, self.d / 65536.0, self.f / 65536.0


class Channel:
    """One motor channel of the hub: its registers, encoder and loop state.

    Methods named ``cmd_*`` are the commands the SDK sends; ``read_*`` are the
    queries; :meth:`step` is one pass of the firmware loop. Internal: robot code
    uses :class:`~simcore.controllers.hub.motor.DcMotorEx`.
    """

    def __init__(self, port: int, signals: Mapping[str, str], counts_per_motor_rev: float, raw_sign: int,
                 default_gains: dict, firmware: FirmwareConstants, hub):
        self.port = port
        self.counts_per_rad = counts_per_motor_rev / (2 * math.pi)
        self.raw_sign = raw_sign
        self.encoder_sign = raw_sign  # the encoder's own, when another one is plugged in (plug_encoder)
        self.fw = firmware
        self.hub = hub
        self.keys = dict(signals)  # REQUIRED_SIGNALS -> "<system>.<signal>" (the mechanism's or its wheel's)
        self.duty_key = self.keys.get("duty")  # None: an encoder port with no motor on it
        self.brake_key = self.keys.get("brake")
        # registers
        self.mode = RunMode.RUN_WITHOUT_ENCODER
        self.enabled = True
        self.zero_power = ZeroPowerBehavior.FLOAT
        self.constant_power = 0
        self.velocity_target = 0
        self.target = 0
        self.target_set = False
        self.tolerance = 5
        self.gains = {m: _Gains(g.p, g.i, g.d, g.f, g.algorithm) for m, g in default_gains.items()}
        # encoder
        self.offset: Optional[int] = None  # absolute raw count at power-up / last reset
        # velocity measurement (firmware.velocity_window > 0): counts sampled at the last N + 1 passes
        self.window_passes = firmware.velocity_window_passes
        self.count_history: deque = deque(maxlen=self.window_passes + 1)
        self.measured = 0.0  # windowed velocity measured at the last pass, raw counts/s
        # loop state
        self.output = 0.0  # last output: constant power (RUN_WITHOUT_ENCODER) or loop output, raw frame
        self.applied = 0.0  # last duty written, raw frame, [-1, 1]
        self._clear_loop()

    # -- encoder --------------------------------------------------------------------------------
    def _abs_count(self, signals) -> int:
        return round_half_away(self.encoder_sign * float(signals[self.keys["rotor_position"]]) * self.counts_per_rad)

    def plug_encoder(self, position_key: str, velocity_key: str, counts_per_rev: float, sign: int) -> None:
        """Read another encoder on this port (a dead wheel's: its angle ``position_key``, rad, its rate
        ``velocity_key``, rad/s), counting ``counts_per_rev`` per turn in direction ``sign``; counts from 0."""
        self.keys["rotor_position"], self.keys["rotor_velocity"] = position_key, velocity_key
        self.counts_per_rad = counts_per_rev / (2 * math.pi)
        self.encoder_sign = sign
        self.offset = None
        self.count_history.clear()
        self.measured = 0.0

    def _sync_offset(self, signals) -> None:
        if signals is not None and self.offset is None:
            self.offset = self._abs_count(signals)

    def read_count(self) -> int:
        """The hub's encoder count register (raw direction), counts."""
        signals = self.hub.signals
        if signals is None:
            return 0
        self._sync_offset(signals)
        return self._abs_count(signals) - self.offset

    def raw_velocity(self) -> float:
        """Modelled shaft speed in raw counts/s, now."""
        signals = self.hub.signals
        if signals is None:
            return 0.0
        return self.encoder_sign * float(signals[self.keys["rotor_velocity"]]) * self.counts_per_rad

    def measured_velocity(self) -> float:
        """The velocity the hub measures, raw counts/s: what the loop, getVelocity and the at-target
        speed condition see (``firmware.velocity_window``: the exact modelled speed now, or the count
        difference over the window at the last pass)."""
        if not self.window_passes:
            return self.raw_velocity()
        return self.measured

    def _measure(self, count: int) -> None:
        """One pass of the windowed measurement: record ``count``, update :attr:`measured`."""
        history = self.count_history
        history.append(count)
        held = len(history) - 1  # passes spanned by the samples held, at most N
        if held:  # held == N: (count(t) - count(t - W)) / W, exactly W; fewer: over the passes held
            self.measured = (history[-1] - history[0]) / (held / self.window_passes * self.fw.velocity_window)
        else:
            self.measured = 0.0

    def read_velocity(self) -> int:
        """The velocity the hub reports: the measured velocity to the nearest whole tick/s (halves away
        from zero), wrapped to its width."""
        v = round_half_away(self.measured_velocity())
        bits = self.fw.velocity_report_bits
        if bits:
            half = 1 << (bits - 1)
            v = (v + half) % (1 << bits) - half
        return v

    def read_current(self) -> float:
        """Motor current the hub senses, A (absolute value of ``firmware.current_signal``)."""
        signals = self.hub.signals
        key = self.keys.get(self.fw.current_signal)
        if signals is None or key is None:  # no motor on the port: no current
            return 0.0
        return abs(float(signals[key]))

    def at_target(self) -> bool:
        """The hub's at-target answer for the target and tolerance it was sent (and, with a finite
        ``firmware.at_target_max_speed``, the measured speed)."""
        err = abs(self.target - self.read_count())
        at = err <= self.tolerance if self.fw.at_target_inclusive else err < self.tolerance
        if at and self.fw.at_target_max_speed != math.inf:
            at = abs(self.measured_velocity()) <= self.fw.at_target_max_speed
        return at

    # -- commands ---------------------------------------------------------------------------------
    def _clear_loop(self):
        self.i_vel = 0.0
        self.i_pos = 0.0
        self.prev_ev = None
        self.prev_ep = None

    def cmd_mode(self, mode: RunMode, zero_power: ZeroPowerBehavior) -> None:
        """LynxSetMotorChannelModeCommand: channel mode and zero-power behaviour."""
        if zero_power is not ZeroPowerBehavior.UNKNOWN:
            self.zero_power = zero_power
        if mode is not self.mode:
            self.mode = mode
            self._clear_loop()

    def cmd_constant_power(self, power: int) -> None:
        """LynxSetMotorConstantPowerCommand, -32767..32767."""
        self.constant_power = int(power)

    def cmd_velocity_target(self, ticks_per_second: int) -> None:
        """LynxSetMotorTargetVelocityCommand, -32767..32767 ticks/s."""
        self.velocity_target = int(ticks_per_second)

    def cmd_target_position(self, target: int, tolerance: int) -> None:
        """LynxSetMotorTargetPositionCommand (tolerance already validated by the SDK)."""
        self.target = int(target)
        self.tolerance = int(tolerance)
        self.target_set = True

    def cmd_enable(self, enable: bool) -> None:
        """LynxSetMotorChannelEnableCommand; NACKed (TargetPositionNotSetException) in
        RUN_TO_POSITION before any target."""
        if enable:
            if self.mode is RunMode.RUN_TO_POSITION and not self.target_set:
                # Refused: the channel is off afterwards (the spec's "Missing target" row), also where
                # it was enabled before (re-entering RUN_TO_POSITION with forget_target_on_reset=True).
                if self.enabled:
                    self._clear_loop()
                self.enabled = False
                raise TargetPositionNotSetException()
            self.enabled = True
        else:
            if self.enabled:
                self._clear_loop()
            self.enabled = False

    def cmd_reset_encoder(self) -> None:
        """LynxResetMotorEncoderCommand: the count becomes 0 now."""
        signals = self.hub.signals
        if signals is None:
            self.offset = None
        else:
            self.offset = self._abs_count(signals)
        self._clear_loop()
        self.count_history.clear()  # the count jumps to 0: no difference across the reset
        self.measured = 0.0
        if self.fw.forget_target_on_reset:
            self.target_set = False

    def cmd_pidf(self, mode: RunMode, gains: _Gains) -> None:
        """LynxSetMotorPIDFControlLoopCoefficientsCommand."""
        self.gains[mode] = gains

    # -- the loop ---------------------------------------------------------------------------------
    def step(self, signals: Mapping[str, float]) -> dict:
        """One firmware pass; returns this channel's ``{duty, brake}`` inputs."""
        self._sync_offset(signals)
        if self.window_passes:  # every pass, enabled or not: the encoder counts regardless
            self._measure(self._abs_count(signals) - self.offset)
        if self.duty_key is None:  # an encoder alone: nothing to drive
            return {}
        if not self.enabled:
            self.output = 0.0
            self.applied = 0.0
            return {self.duty_key: 0.0, self.brake_key: 0.0}
        brake = 1.0 if self.zero_power is ZeroPowerBehavior.BRAKE else 0.0
        if self.mode is RunMode.RUN_WITHOUT_ENCODER:
            out = float(self.constant_power)
            duty = out / FULL_SCALE
        else:
            if self.mode is RunMode.RUN_TO_POSITION:
                pp, pi, pd, pf = self.gains[RunMode.RUN_TO_POSITION].floats()
                cap = abs(self.velocity_target)
                ep = self.target - (self._abs_count(signals) - self.offset)
                lim = self.fw.position_i_clamp
                self.i_pos = min(max(self.i_pos + pi * ep, -lim), lim)
                dp = pd * (ep - self.prev_ep) if self.prev_ep is not None else 0.0
                self.prev_ep = ep
                v_sp = min(max(pp * ep + self.i_pos + dp, -cap), cap)
            else:
                v_sp = float(self.velocity_target)
            vp, vi, vd, vf = self.gains[RunMode.RUN_USING_ENCODER].floats()
            ev = v_sp - self.measured_velocity()
            lim = self.fw.i_clamp
            self.i_vel = min(max(self.i_vel + vi * ev, -lim), lim)
            dv = vd * (ev - self.prev_ev) if self.prev_ev is not None else 0.0
            self.prev_ev = ev
            out = vp * ev + self.i_vel + dv + vf * v_sp
            fs = self.fw.loop_output_full_scale
            out = min(max(out, -fs), fs)
            duty = out / fs
        self.output = out
        self.applied = duty
        return {self.duty_key: self.raw_sign * duty, self.brake_key: brake}
