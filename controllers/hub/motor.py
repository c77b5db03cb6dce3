"""The hub and its motors: ``DcMotorEx`` with the FTC SDK's exact semantics.

Exact (the SDK side, read off ``DcMotorImpl``, ``DcMotorImplEx``,
``LynxDcMotorController`` and the Lynx command classes; the hub specification's
"Exact" table, :mod:`simcore.reference` "The FTC hub", each row pinned by
``tests/controllers/test_hub_exact.py``):

* what each call sends to the hub and in which order (the mode is recorded
  before the power is re-sent; every power and velocity command is followed by a
  channel enable, which the hub refuses in RUN_TO_POSITION before any target:
  ``TargetPositionNotSetException``);
* the power scaling (``(int)(p*32767)`` open loop; ``(int)(dir*p*maxTicksPerSecond)``
  as the velocity target in RUN_USING_ENCODER; ``abs(p)`` as a speed cap in
  RUN_TO_POSITION, with ``maxTicksPerSecond = getAchieveableMaxTicksPerSecondRounded()``
  of the configured motor type);
* direction handling (``DcMotorImpl.getOperationalDirection()``: the user's
  Direction, inverted for a CCW motor type, negates targets, powers and velocity
  commands when they are sent and positions and velocities when they are read;
  RUN_TO_POSITION powers and the power re-sent by a mode change carry none);
* ``setVelocity`` rounding (Java ``Math.round``) and clipping to +-32767, its mode
  switch, the AngleUnit overloads through the configured ``ticksPerRev``;
* target tolerance (stored on the handle, sent with the next target, checked to
  [0, 65535]); PIDF validation, messages (the SDK's spelling "coefficents") and
  16.16 quantisation; ``resetDeviceConfigurationForOpMode``.

Not modelled, by design (the specification's "Not modelled" row): the SDK's 500 ms
caches of power and enable (every command and every enable is sent, so where a
robot repeating the same power within 500 ms would send nothing, the fake
throws TargetPositionNotSetException at once), bulk caching. The SDK's cache of
the run mode is modelled as never expiring: ``setMode`` with the mode already
recorded sends nothing.

Timing (APPROXIMATION of command latency): a DcMotorEx call changes the hub's
registers at once, but the motor only sees it at the firmware's next pass (the
hub's :class:`~simcore.PeriodicController`, every ``loop_period``). Put an op
mode *before* ``hub.controllers()`` in the controller list for it to be seen in
the same tick. Reads (``getCurrentPosition``, ``getVelocity``, ``isBusy``,
``getCurrent``) use the signals mapping the hub was last handed (the engine
passes a live view, so between ``Simulator.advance()`` calls they are current);
an encoder reset takes effect at once on those signals.
"""
from __future__ import annotations

import math
import numbers
from typing import Mapping, Optional

from simcore import protocols
from simcore.controller import PeriodicController
from simcore.errors import ConfigError, ConfigTypeError

from simcore.models.ftc_motor_types import MotorType, Rotation, java_round

from .firmware import DEFAULT_FIRMWARE, FULL_SCALE, Channel, FirmwareConstants, _Gains
from .sdk import (AngleUnit, CurrentUnit, Direction, IllegalArgumentException, MotorControlAlgorithm,
                  PIDCoefficients, PIDFCoefficients, RunMode, UnsupportedOperationException, ZeroPowerBehavior,
                  external_coefficient_from_internal)

__all__ = ["Hub", "DcMotorEx", "NUMBER_OF_MOTORS", "DEFAULT_TARGET_POSITION_TOLERANCE", "REQUIRED_SIGNALS"]

#: Motor ports per hub (0..3), as LynxConstants.
NUMBER_OF_MOTORS = 4
#: The SDK's default target-position tolerance, ticks (LynxConstants).
DEFAULT_TARGET_POSITION_TOLERANCE = 5
#: Signals a mechanism must offer to be driven by a hub channel: (inputs, outputs or states).
REQUIRED_SIGNALS = (("duty", "brake"),
                    ("rotor_position", "rotor_velocity", "stator_current", "supply_current", "supply_voltage"))
_TOL_FIRST, _TOL_LAST = 0, 65535
_INT_FIRST, _INT_LAST = -2 ** 31, 2 ** 31 - 1  # a Java int
_VEL_FIRST, _VEL_LAST = -FULL_SCALE, FULL_SCALE


def _clip(x, lo, hi):
    return lo if x < lo else hi if x > hi else x


def _java_int(x: float) -> int:
    """Java's ``(int)`` cast of a double: toward zero, NaN -> 0, saturating at the int range."""
    if math.isnan(x):
        return 0
    if x >= 2147483647:
        return 2147483647
    if x <= -2147483648:
        return -2147483648
    return int(x)


def _java_signum(x: float) -> float:
    """Java's ``Math.signum``: NaN stays NaN (and ``(int)`` of the product is then 0)."""
    return 1.0 if x > 0 else -1.0 if x < 0 else x


def _int_arg(name: str, value, first: int = _INT_FIRST, last: int = _INT_LAST, why: str = "") -> int:
    """A Java ``int`` parameter: an integer (no bool, no float: Java needs an explicit cast) in [first, last].

    Raises ConfigTypeError for a value that is not an integer (float, NaN, bool,
    str, ...), ConfigError for one outside [first, last] (by default the Java int
    range); ``why`` is appended to the expected range in that message.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ConfigTypeError(name, value, "an int (cast it, as the Java code does)")
    v = int(value)
    if not first <= v <= last:
        raise ConfigError(name, value, f"a Java int in [{first}, {last}]{why}")
    return v


def _num_arg(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}={value!r}: expected a number")
    return float(value)


class Hub:
    """A REV Control Hub / Expansion Hub: four motor channels and the firmware that runs them.

    Parameters
    ----------
    name : str
        Names the firmware controller (``"<name>.firmware"``).
    loop_period : float, optional
        Period of the firmware loop, s. Defaults to ``firmware.loop_period``
        (0.010 s, an APPROXIMATION); given here it overrides that field.
    firmware : FirmwareConstants, optional
        The firmware model's constants (APPROXIMATIONS), per hub.

    Examples
    --------
    ::

        mech = models.HubMotor(models.hub_motor.GOBILDA_5203_312, name="arm")
        hub = Hub()
        arm = hub.motor(0, mech)                 # the robot code's DcMotorEx
        simcore.simulate([mech], 3.0, controllers=[opmode, *hub.controllers()])
    """

    def __init__(self, *, name: str = "hub", loop_period=None, firmware: Optional[FirmwareConstants] = None):
        if not isinstance(name, str) or not name:
            raise ConfigError("name", name, "a non-empty string")
        if firmware is None:
            firmware = DEFAULT_FIRMWARE
        if not isinstance(firmware, FirmwareConstants):
            raise ConfigTypeError("firmware", firmware, "a FirmwareConstants")
        if loop_period is not None:
            firmware = firmware.replace(loop_period=loop_period)
        self.name = name
        self.firmware = firmware
        self.signals: Optional[Mapping[str, float]] = None
        self._motors: dict[int, DcMotorEx] = {}
        self._controller = PeriodicController(firmware.loop_period, self.firmware_step, name=f"{name}.firmware")

    @property
    def loop_period(self) -> float:
        """Firmware loop period, s."""
        return self.firmware.loop_period

    # -- configuration ----------------------------------------------------------------------------
    def motor(self, port: int, mechanism, motor_type: Optional[MotorType] = None) -> "DcMotorEx":
        """Configure ``port`` to drive ``mechanism``; returns the robot code's ``DcMotorEx``.

        Parameters
        ----------
        port : int
            0..3.
        mechanism : simcore.System
            A mechanism with inputs ``duty``, ``brake`` and signals
            ``rotor_position`` (rad), ``rotor_velocity`` (rad/s),
            ``stator_current``, ``supply_current`` (A), ``supply_voltage`` (V).
        motor_type : MotorType, optional
            The type *configured* on the robot (what the SDK is told). Defaults to
            ``mechanism.motor_type``. The encoder resolution is the physical
            one, ``mechanism.motor_type.encoder_counts_per_motor_rev`` when the
            mechanism has a motor type, else this one's.

        Raises
        ------
        ConfigError
            Bad or used port, a mechanism already driven by this hub, missing
            signals, or no motor type.
        """
        if isinstance(port, bool) or not isinstance(port, numbers.Integral) or not 0 <= port < NUMBER_OF_MOTORS:
            raise ConfigError("port", port, f"a motor port 0..{NUMBER_OF_MOTORS - 1}")
        port = int(port)
        if port in self._motors:
            raise ConfigError("port", port, f"a port not already configured on hub {self.name!r}")
        protocols.check_hub_mechanism(mechanism)  # names a missing input, signal or misspelt motor_type
        mech_name = getattr(mechanism, "name", None)
        if not isinstance(mech_name, str) or not mech_name:
            raise ConfigError("mechanism", mechanism, "a simcore System with a name")
        if any(m.mechanism_name == mech_name for m in self._motors.values()):
            raise ConfigError("mechanism", mech_name, "a mechanism not already driven by this hub")
        inputs = set(getattr(mechanism, "input_names", ()) or ())
        others = set(getattr(mechanism, "output_names", ()) or ()) | set(getattr(mechanism, "state_names", ()) or ())
        missing = [s for s in REQUIRED_SIGNALS[0] if s not in inputs] + \
                  [s for s in REQUIRED_SIGNALS[1] if s not in others]
        if missing:
            raise ConfigError("mechanism", mech_name, f"a mechanism with signals {missing} (a hub-driven motor)")
        physical = getattr(mechanism, "motor_type", None)
        if motor_type is None:
            motor_type = physical
        if motor_type is None:
            raise ConfigError("motor_type", None, "a MotorType (the mechanism has no motor_type attribute)")
        if not isinstance(motor_type, MotorType):
            raise ConfigTypeError("motor_type", motor_type, "a simcore.models.ftc_motor_types.MotorType")
        if not isinstance(physical, MotorType):
            physical = motor_type
        m = DcMotorEx(self, port, mech_name, motor_type, physical)
        self._motors[port] = m
        return m

    def getMotor(self, port: int) -> "DcMotorEx":
        """The DcMotorEx configured on ``port``."""
        return self._motors[port]

    def registers(self, port: int) -> dict:
        """What the hub's channel ``port`` holds (as last sent by the SDK): a snapshot dict.

        Keys: ``mode`` (the channel's own mode: the hub has no
        STOP_AND_RESET_ENCODER mode), ``enabled``, ``zero_power``,
        ``constant_power`` (-32767..32767), ``velocity_target`` (ticks/s, raw
        direction), ``target_position`` (raw), ``target_set``, ``tolerance``,
        ``output`` (last output, raw direction: the constant power in
        RUN_WITHOUT_ENCODER, else the loop output, +-``firmware.loop_output_full_scale``).
        """
        ch = self._motors[port]._channel
        return {"mode": ch.mode, "enabled": ch.enabled, "zero_power": ch.zero_power,
                "constant_power": ch.constant_power, "velocity_target": ch.velocity_target,
                "target_position": ch.target, "target_set": ch.target_set, "tolerance": ch.tolerance,
                "output": ch.output}

    def controllers(self) -> list:
        """The hub's firmware as simcore controllers (one PeriodicController)."""
        return [self._controller]

    # -- the firmware -----------------------------------------------------------------------------
    def observe(self, signals: Mapping[str, float]) -> None:
        """Hand the hub the signals mapping its reads use (the engine's live view)."""
        self.signals = signals

    def firmware_step(self, t: float, signals: Mapping[str, float]) -> dict:
        """One firmware pass over every channel; the PeriodicController's ``fn``."""
        self.signals = signals
        out = {}
        for port in sorted(self._motors):
            out.update(self._motors[port]._channel.step(signals))
        return out

    def __repr__(self):
        return f"Hub({self.name!r}, ports={sorted(self._motors)}, loop_period={self.loop_period!r} s)"


class DcMotorEx:
    """The robot code's handle on one hub motor port, with the SDK's method names.

    Created by :meth:`Hub.motor`. Every method is the SDK's ``DcMotorEx`` method
    of the same name; see the module docstring for what is exact and what is an
    approximation.
    """

    def __init__(self, hub: Hub, port: int, mechanism_name: str, motor_type: MotorType, physical: MotorType):
        self._hub = hub
        self._port = port
        self.mechanism_name = mechanism_name
        # DcMotorImpl: the handle's own direction and (construction-time) motor type
        self._direction = Direction.FORWARD
        self._handle_type = motor_type
        self._tolerance = DEFAULT_TARGET_POSITION_TOLERANCE
        # LynxDcMotorController per-port state
        self._type = motor_type
        self._internal_type = motor_type
        self._last_mode = RunMode.RUN_WITHOUT_ENCODER
        self._last_power = 0.0
        fw = hub.firmware
        self._firmware_defaults = {
            RunMode.RUN_USING_ENCODER: _Gains.from_external(*fw.default_velocity_pidf, fw.default_velocity_algorithm),
            RunMode.RUN_TO_POSITION: _Gains.from_external(*fw.default_position_pidf, fw.default_position_algorithm),
        }
        self._channel = Channel(port, mechanism_name, physical.encoder_counts_per_motor_rev, physical.raw_sign,
                                self._firmware_defaults, fw, hub)
        self._apply_type_params()

    # -- helpers ----------------------------------------------------------------------------------
    def _apply_type_params(self):
        for mode, params in ((RunMode.RUN_USING_ENCODER, self._type.hub_velocity_params),
                             (RunMode.RUN_TO_POSITION, self._type.hub_position_params)):
            if params is not None:
                alg = MotorControlAlgorithm[params.algorithm]
                ok = self._internal_set_pidf(mode, PIDFCoefficients(params.p, params.i, params.d, params.f, alg))
                assert ok

    def _operational_direction(self) -> Direction:
        return self._direction.inverted() if self._handle_type.orientation is Rotation.CCW else self._direction

    def _adjust(self, x):
        return -x if self._operational_direction() is Direction.REVERSE else x

    def _max_tps(self) -> int:
        return self._type.getAchieveableMaxTicksPerSecondRounded()

    def _internal_set_power(self, power: float) -> None:
        """LynxDcMotorController.internalSetMotorPower, sending every time (no cache)."""
        power = _clip(power, -1.0, 1.0)
        self._last_power = power
        mode = self._last_mode
        ch = self._channel
        if mode in (RunMode.RUN_TO_POSITION, RunMode.RUN_USING_ENCODER):
            ch.cmd_velocity_target(_java_int(_java_signum(power) * (abs(power) * self._max_tps())))
        elif mode is RunMode.RUN_WITHOUT_ENCODER:
            ch.cmd_constant_power(_java_int(power * FULL_SCALE))
        else:  # STOP_AND_RESET_ENCODER: nothing is sent
            return
        ch.cmd_enable(True)

    def _internal_set_pidf(self, mode: RunMode, c: PIDFCoefficients) -> bool:
        if mode is RunMode.RUN_TO_POSITION and c.algorithm is not MotorControlAlgorithm.LegacyPID:
            if c.i != 0 or c.d != 0 or c.f != 0:
                return False
        self._channel.cmd_pidf(mode, _Gains.from_external(c.p, c.i, c.d, c.f, c.algorithm))
        return True

    # -- HardwareDevice / DcMotor -----------------------------------------------------------------
    def getPortNumber(self) -> int:
        """The hub port, 0..3."""
        return self._port

    def getController(self) -> Hub:
        """The hub."""
        return self._hub

    def getMotorType(self) -> MotorType:
        """The configured motor type."""
        return self._type

    def setMotorType(self, motor_type: MotorType) -> None:
        """Change the configured type (speed scaling, AngleUnit conversions); direction handling keeps the
        type the handle was built with, as ``DcMotorImpl``."""
        if not isinstance(motor_type, MotorType):
            raise TypeError(f"motor_type={motor_type!r}: expected a MotorType")
        self._type = motor_type
        self._apply_type_params()

    def getDeviceName(self) -> str:
        """Device name."""
        return "Motor"

    def getConnectionInfo(self) -> str:
        """Where the motor is."""
        return f"{self._hub.name}; port {self._port}"

    def resetDeviceConfigurationForOpMode(self) -> None:
        """Direction back to FORWARD and the default gains back on the hub."""
        self.setDirection(Direction.FORWARD)
        for mode, g in self._firmware_defaults.items():
            self._channel.cmd_pidf(mode, _Gains(g.p, g.i, g.d, g.f, g.algorithm))
        self._type = self._internal_type
        self._apply_type_params()

    def setDirection(self, direction: Direction) -> None:
        """Store the direction on the handle; nothing is sent."""
        if not isinstance(direction, Direction):
            raise TypeError(f"direction={direction!r}: expected a Direction")
        self._direction = direction

    def getDirection(self) -> Direction:
        """The handle's direction."""
        return self._direction

    def setMode(self, mode: RunMode) -> None:
        """Change the run mode: sent, recorded, then the last power re-sent (no direction applied).

        STOP_AND_RESET_ENCODER sends power 0 in the current mode and an encoder
        reset; the last power is kept and re-sent when the mode changes back.
        """
        if not isinstance(mode, RunMode):
            raise TypeError(f"mode={mode!r}: expected a RunMode")
        mode = mode.migrate()
        if mode is self._last_mode:
            return
        prev_power = self._last_power
        ch = self._channel
        if mode is RunMode.STOP_AND_RESET_ENCODER:
            self._internal_set_power(0.0)
            ch.cmd_reset_encoder()
        else:
            ch.cmd_mode(mode, ch.zero_power)
        self._last_mode = mode
        self._internal_set_power(prev_power)

    def getMode(self) -> RunMode:
        """The mode last recorded."""
        return self._last_mode

    def setPower(self, power: float) -> None:
        """Send a power: abs(p) in RUN_TO_POSITION (a speed cap), direction-adjusted otherwise."""
        power = _num_arg("power", power)
        if self.getMode() is RunMode.RUN_TO_POSITION:
            power = abs(power)
        else:
            power = self._adjust(power)
        self._internal_set_power(power)

    def getPower(self) -> float:
        """The power last sent (clipped to [-1, 1]), abs in RUN_TO_POSITION, direction-adjusted otherwise."""
        power = self._last_power
        if self.getMode() is RunMode.RUN_TO_POSITION:
            return abs(power)
        return self._adjust(power)

    def isBusy(self) -> bool:
        """False except in RUN_TO_POSITION, where it is the hub's ``!atTarget``."""
        if self._last_mode is not RunMode.RUN_TO_POSITION:
            return False
        return not self._channel.at_target()

    def setZeroPowerBehavior(self, zero_power_behavior: ZeroPowerBehavior) -> None:
        """BRAKE or FLOAT, sent with the channel's current mode."""
        if not isinstance(zero_power_behavior, ZeroPowerBehavior):
            raise TypeError(f"zeroPowerBehavior={zero_power_behavior!r}: expected a ZeroPowerBehavior")
        if zero_power_behavior is ZeroPowerBehavior.UNKNOWN:
            raise IllegalArgumentException("zeroPowerBehavior may not be UNKNOWN")
        self._channel.cmd_mode(self._channel.mode, zero_power_behavior)

    def getZeroPowerBehavior(self) -> ZeroPowerBehavior:
        """The channel's zero-power behaviour."""
        return self._channel.zero_power

    def setPowerFloat(self) -> None:
        """Deprecated SDK call: FLOAT, then power 0."""
        self.setZeroPowerBehavior(ZeroPowerBehavior.FLOAT)
        self.setPower(0.0)

    def getPowerFloat(self) -> bool:
        """FLOAT and zero power."""
        return self.getZeroPowerBehavior() is ZeroPowerBehavior.FLOAT and self.getPower() == 0.0

    def setTargetPosition(self, position: int) -> None:
        """Send a target (direction-adjusted) with the handle's tolerance; accepted in any mode.

        Parameters
        ----------
        position : int
            Target, ticks. The SDK's parameter is a Java ``int``: a Python int
            (or numpy integer) in [-2**31, 2**31 - 1]. A float, even 178.0, is
            refused as Java refuses a double without an explicit ``(int)`` cast.

        Raises
        ------
        ConfigTypeError
            ``position`` is not an integer (float, NaN, bool, str, ...).
        ConfigError
            ``position`` is outside the Java int range; under REVERSE also
            -2**31, whose negation Java wraps back to -2**31
            (``-Integer.MIN_VALUE == Integer.MIN_VALUE``): the SDK would send
            -2**31 un-negated, a target at the far end of the wrong direction; the
            fake refuses it instead (a choice, for clarity).
        IllegalArgumentException
            The handle's tolerance is outside [0, 65535] (exact: nothing is sent).
        """
        if self._operational_direction() is Direction.REVERSE:
            position = _int_arg("position", position, _INT_FIRST + 1, _INT_LAST,
                                " (under REVERSE its negation must be a Java int too)")
        else:
            position = _int_arg("position", position)
        position = self._adjust(position)
        tol = self._tolerance
        if tol < _TOL_FIRST or tol > _TOL_LAST:
            raise IllegalArgumentException(f"illegal tolerance: {tol}")
        self._channel.cmd_target_position(position, tol)

    def getTargetPosition(self) -> int:
        """The hub's target register, direction-adjusted (0 before any target)."""
        return self._adjust(self._channel.target)

    def getCurrentPosition(self) -> int:
        """Encoder count since the last reset (or power-up), direction-adjusted, ticks."""
        return self._adjust(self._channel.read_count())

    # -- DcMotorEx ----------------------------------------------------------------------------------
    def setMotorEnable(self) -> None:
        """Enable the channel (refused in RUN_TO_POSITION before any target)."""
        self._channel.cmd_enable(True)

    def setMotorDisable(self) -> None:
        """Disable the channel (bridge off); the next power or velocity command re-enables it."""
        self._channel.cmd_enable(False)

    def isMotorEnabled(self) -> bool:
        """Whether the hub's channel is enabled."""
        return self._channel.enabled

    def setVelocity(self, angular_rate: float, unit: Optional[AngleUnit] = None) -> None:
        """Velocity target, ticks/s, or in ``unit`` per second through the configured ticksPerRev.

        Switches to RUN_USING_ENCODER unless already in it or RUN_TO_POSITION,
        then sends ``round(direction * v)`` clipped to +-32767 ticks/s.
        """
        rate = self._adjust(_num_arg("angularRate", angular_rate))
        if unit is not None:
            if not isinstance(unit, AngleUnit):
                raise TypeError(f"unit={unit!r}: expected an AngleUnit")
            rate = self._type.getTicksPerRev() * (unit.rate_to_degrees(rate) / 360.0)
        if self._last_mode not in (RunMode.RUN_USING_ENCODER, RunMode.RUN_TO_POSITION):
            self.setMode(RunMode.RUN_USING_ENCODER)
        ticks = 0 if math.isnan(rate) else _clip(java_round(rate) if math.isfinite(rate) else
                                                  (_VEL_LAST if rate > 0 else _VEL_FIRST), _VEL_FIRST, _VEL_LAST)
        self._channel.cmd_velocity_target(ticks)
        self._channel.cmd_enable(True)

    def getVelocity(self, unit: Optional[AngleUnit] = None) -> float:
        """Whole ticks/s as the hub reports them, or that whole number in ``unit`` per second."""
        ticks = self._channel.read_velocity()
        if unit is None:
            return float(self._adjust(ticks))
        if not isinstance(unit, AngleUnit):
            raise TypeError(f"unit={unit!r}: expected an AngleUnit")
        revs = ticks / self._type.getTicksPerRev()
        return self._adjust(unit.rate_from_degrees(revs * 360.0))

    def setPIDFCoefficients(self, mode: RunMode, pidf_coefficients: PIDFCoefficients) -> None:
        """Send gains for a PID mode (quantised to 1/65536 by the hub).

        Raises
        ------
        IllegalArgumentException
            ``mode`` is not a PID mode.
        UnsupportedOperationException
            RUN_TO_POSITION with non-zero I, D or F under the PIDF algorithm
            (nothing changes on the hub).
        """
        if not isinstance(mode, RunMode):
            raise TypeError(f"mode={mode!r}: expected a RunMode")
        if not isinstance(pidf_coefficients, PIDFCoefficients):
            raise TypeError(f"pidfCoefficients={pidf_coefficients!r}: expected a PIDFCoefficients")
        if not mode.isPIDMode():
            raise IllegalArgumentException(f"motor {self._port}: mode {mode.name} is invalid as PID Mode")
        mode = mode.migrate()
        if not self._internal_set_pidf(mode, pidf_coefficients):
            raise UnsupportedOperationException(
                f"setting of pidf coefficents not supported: motor={self._port} mode={mode.name} "
                f"pidf={pidf_coefficients.toString()}")

    def setPIDCoefficients(self, mode: RunMode, pid_coefficients: PIDCoefficients) -> None:
        """``setPIDFCoefficients(mode, PIDFCoefficients(pid))`` (LegacyPID, f = 0)."""
        if not isinstance(pid_coefficients, PIDCoefficients):
            raise TypeError(f"pidCoefficients={pid_coefficients!r}: expected a PIDCoefficients")
        self.setPIDFCoefficients(mode, PIDFCoefficients(pid_coefficients))

    def setVelocityPIDFCoefficients(self, p: float, i: float, d: float, f: float) -> None:
        """RUN_USING_ENCODER gains, PIDF algorithm."""
        self.setPIDFCoefficients(RunMode.RUN_USING_ENCODER, PIDFCoefficients(p, i, d, f, MotorControlAlgorithm.PIDF))

    def setPositionPIDFCoefficients(self, p: float) -> None:
        """RUN_TO_POSITION P gain, PIDF algorithm."""
        self.setPIDFCoefficients(RunMode.RUN_TO_POSITION, PIDFCoefficients(p, 0, 0, 0, MotorControlAlgorithm.PIDF))

    def _read_gains(self, mode: RunMode):
        if not isinstance(mode, RunMode):
            raise TypeError(f"mode={mode!r}: expected a RunMode")
        if mode not in (RunMode.RUN_USING_ENCODER, RunMode.RUN_TO_POSITION):
            raise IllegalArgumentException(f"illegal mode: {mode.name}")
        return self._channel.gains[mode]

    def getPIDFCoefficients(self, mode: RunMode) -> PIDFCoefficients:
        """The hub's gains for RUN_USING_ENCODER or RUN_TO_POSITION (a new object)."""
        g = self._read_gains(mode)
        e = external_coefficient_from_internal
        return PIDFCoefficients(e(g.p), e(g.i), e(g.d), e(g.f), g.algorithm)

    def getPIDCoefficients(self, mode: RunMode) -> PIDCoefficients:
        """The hub's P, I, D for RUN_USING_ENCODER or RUN_TO_POSITION."""
        g = self._read_gains(mode)
        e = external_coefficient_from_internal
        return PIDCoefficients(e(g.p), e(g.i), e(g.d))

    def setTargetPositionTolerance(self, tolerance: int) -> None:
        """Store the tolerance on the handle; it reaches the hub with the next setTargetPosition.

        Parameters
        ----------
        tolerance : int
            Ticks. Any Java ``int`` is stored (exact: the range [0, 65535] is
            checked by the next setTargetPosition); a non-integer raises
            ConfigTypeError and a value outside the Java int range ConfigError.
        """
        self._tolerance = _int_arg("tolerance", tolerance)

    def getTargetPositionTolerance(self) -> int:
        """The handle's tolerance (default 5)."""
        return self._tolerance

    def getCurrent(self, unit: CurrentUnit) -> float:
        """Motor current sensed by the hub (see ``FirmwareConstants.current_signal``), in ``unit``."""
        if not isinstance(unit, CurrentUnit):
            raise TypeError(f"unit={unit!r}: expected a CurrentUnit")
        milliamps = self._channel.read_current() * 1000.0
        return unit.convert(milliamps, CurrentUnit.MILLIAMPS)

    # -- simulator extras (names from the hub specification's FakeMotor) ------------------------
    def getAppliedPhysicalPower(self) -> float:
        """Duty the firmware is putting on the windings, in the raw (physical encoder) direction, [-1, 1]."""
        return self._channel.applied if self._channel.enabled else 0.0

    def getPhysicalPositionTicks(self) -> int:
        """The hub's count register in the raw (physical encoder) direction: no Direction applied, ticks."""
        return self._channel.read_count()

    def __repr__(self):
        return (f"DcMotorEx({self._hub.name!r} port {self._port} -> {self.mechanism_name!r}, "
                f"{self._type.name!r}, {self._last_mode.name})")
