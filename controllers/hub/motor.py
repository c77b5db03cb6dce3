"""The hub and its motors: ``DcMotorEx`` with the FTC SDK's exact semantics.

Exact (the SDK side, read off ``DcMotorImpl``, ``DcMotorImplEx``,
``LynxDcMotorController`` and the Lynx command classes; the hub specification's
"Exact" table, :mod:`simcore.reference` "The FTC hub", each row pinned by a test
of the project's suite):

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
throws TargetPositionNotSetException at once). The SDK's cache of the run mode
is modelled as never expiring: ``setMode`` with the mode already recorded sends
nothing.

Bulk caching (exact, ``LynxModule``): :meth:`Hub.setBulkCachingMode` with OFF,
MANUAL or AUTO decides which reads are answered from the last bulk read
(:mod:`simcore.controllers.hub.bulk`). ``isBusy`` still reads False outside
RUN_TO_POSITION in every mode.

NaN commands: ``setPower(nan)``, ``setVelocity(nan)`` and NaN PIDF gains raise
:class:`~simcore.errors.NonFiniteError`. The SDK accepts them and sends 0
(Java's ``(int)`` of NaN), silently stopping the motor; the simulator is there
to find that bug before the robot does.

Timing (APPROXIMATION of command latency): a DcMotorEx call changes the hub's
registers at once, but the motor only sees it at the firmware's next pass (the
hub's :class:`~simcore.PeriodicController`, every ``loop_period``). Put an op
mode *before* ``hub.controllers()`` in the controller list for it to be seen in
the same tick. Reads (``getCurrentPosition``, ``getVelocity``, ``isBusy``,
``getCurrent``, ``getTargetPosition``, ``getPIDFCoefficients``) use the signals
mapping the hub was last handed (the engine passes a live view, so between
``Simulator.advance()`` calls they are current); an encoder reset takes effect
at once on those signals. Called from a Java-style op mode each read that sends
a command costs one hub round trip of simulated time
(:mod:`simcore.controllers.hub.timing`); elsewhere reads cost nothing.

Channels on drivetrains: ``hub.motor(port, drive, wheel="front_left")`` binds
a channel to one wheel of a drivetrain whose wheels carry their own signals
(``<wheel>_duty``, ``<wheel>_brake``, ``<wheel>_rotor_position``, ...; the bus
``supply_voltage`` is shared): :data:`PER_WHEEL_SIGNALS`.

Dead wheels: ``hub.encoder(port, drive, pod)`` plugs the encoder of one of the
drivetrain's :class:`~simcore.models.OdometryPod` into encoder port ``port`` (the
motor ports' encoders): the ``DcMotorEx`` on that port (its motor's, or an encoder
alone) then counts the pod's wheel, through the SDK's direction handling as any
encoder read.

Mounting (physics of the robot, not of the SDK): a channel's motor is mounted
*mirrored* or not. A drivetrain's signals are in the wheel's frame (positive:
the wheel rolls the robot forward). On a real chassis the motors on the two
sides face each other, so the same shaft rotation rolls the left wheels
backward and the right ones forward. Mirrored, the motor's own frame (the
rotation that FORWARD and positive power produce for every motor type, see
:mod:`simcore.models.ftc_motor_types`) is the wheel's frame negated: positive
power on a FORWARD handle rolls that wheel backward, and the encoder, which
turns with the motor, counts down as the wheel rolls forward. The hub's raw
frame is then ``wheel frame * raw_sign * (-1 if mirrored else 1)``: the SDK's
orientation of CCW types (``raw_sign``) and the mounting compose, and every
count, velocity, duty and ``getPhysicalPositionTicks()`` follows. Default
(:func:`default_mirrored`): a drivetrain's left wheels are mirrored, as on the
standard FTC chassis kits (goBILDA Strafer, REV's drivetrain kits), so the SDK
samples' ``leftDrive.setDirection(DcMotor.Direction.REVERSE)`` lines are what
makes the robot drive forward, as on the robot; a mechanism's motor is not.
``hub.motor(..., mirrored=True/False)`` overrides it per channel.
"""
from __future__ import annotations

import functools
import math
import numbers
import weakref
from typing import Mapping, Optional

import numpy as np

from simcore import protocols
from simcore.controller import PeriodicController
from simcore.errors import ConfigError, ConfigTypeError, NonFiniteError, SimError

from simcore.models.ftc_motor_types import MotorType, Rotation, java_round

from .bulk import BulkCache, BulkCachingMode, BulkData
from .firmware import DEFAULT_FIRMWARE, FULL_SCALE, Channel, FirmwareConstants, _Gains
from .sdk import (AngleUnit, CurrentUnit, DcMotor, Direction, IllegalArgumentException, MotorControlAlgorithm,
                  PIDCoefficients, PIDFCoefficients, RunMode, UnsupportedOperationException, ZeroPowerBehavior,
                  external_coefficient_from_internal)
from .timing import robot_clock, spend_round_trips
from .untraced import sdk_method

__all__ = ["Hub", "LynxModule", "DcMotorEx", "OpModeEndedError", "NUMBER_OF_MOTORS",
           "DEFAULT_TARGET_POSITION_TOLERANCE", "default_mirrored", "check_hub_names",
           "REQUIRED_SIGNALS", "PER_WHEEL_SIGNALS", "channel_signal_names"]

#: Motor ports per hub (0..3), as LynxConstants.
NUMBER_OF_MOTORS = 4
#: The SDK's default target-position tolerance, ticks (LynxConstants).
DEFAULT_TARGET_POSITION_TOLERANCE = 5
#: Signals a mechanism must offer to be driven by a hub channel: (inputs, outputs or states), as
#: :mod:`simcore.protocols` defines them for every hub-drivable mechanism.
REQUIRED_SIGNALS = (protocols.HUB_INPUTS, protocols.HUB_SIGNALS)
#: The signals each wheel of a drivetrain carries for itself, as ``<wheel>_<signal>``; the others
#: (``supply_voltage``, the bus) are the drivetrain's own.
PER_WHEEL_SIGNALS = protocols.HUB_INPUTS + tuple(s for s in protocols.HUB_SIGNALS if s != "supply_voltage")
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


def _refuse_nan(call: str, device: str, value: float, what_the_sdk_does: str) -> None:
    """NonFiniteError for a NaN the SDK would accept: named, timed (when robot code runs), explained."""
    if math.isnan(value):
        clock = robot_clock()
        exc = NonFiniteError(call, device, value, clock.now if clock is not None else math.nan)
        exc.add_note(f"The FTC SDK accepts it and {what_the_sdk_does}: on the robot the motor silently stops. "
                     "The simulator refuses it to find that bug before the robot does.")
        raise exc


def channel_signal_names(mechanism_name: str, wheel: Optional[str] = None) -> dict:
    """Where a hub channel finds each of :data:`REQUIRED_SIGNALS`: ``{signal: "<system>.<name>"}``.

    Without ``wheel`` the mechanism's own signals (``arm.duty``); with one, the
    wheel's (``mecanum.front_left_duty``) for :data:`PER_WHEEL_SIGNALS` and the
    drivetrain's for the rest (``mecanum.supply_voltage``).
    """
    names = {}
    for s in REQUIRED_SIGNALS[0] + REQUIRED_SIGNALS[1]:
        own = wheel is not None and s in PER_WHEEL_SIGNALS
        names[s] = f"{mechanism_name}.{wheel}_{s}" if own else f"{mechanism_name}.{s}"
    return names


def default_mirrored(mechanism, wheel: Optional[str]) -> bool:
    """Whether the motor on ``wheel`` of ``mechanism`` is mounted mirrored unless the channel says otherwise.

    A drivetrain may list its mirrored wheels in ``mirrored_wheels`` (a
    :class:`~simcore.models.MecanumDrive` lists ``front_left`` and ``rear_left``,
    a :class:`~simcore.models.TankDrive` ``left``); without that list, a wheel
    whose name has ``left`` as one of its ``_``-separated words is on the left
    side and mirrored. A mechanism's own motor (``wheel`` None) is not.
    """
    if wheel is None:
        return False
    listed = getattr(mechanism, "mirrored_wheels", None)
    if listed is None:
        return "left" in wheel.split("_")
    if isinstance(listed, str) or not all(isinstance(w, str) for w in listed):
        raise ConfigTypeError("mirrored_wheels", listed, "a tuple of wheel names (str)")
    return wheel in listed


def _wheels_of(inputs) -> list:
    """The wheels a system offers to hub channels: names ``w`` with inputs ``w_duty`` and ``w_brake``."""
    return sorted(n[:-len("_duty")] for n in inputs if n.endswith("_duty") and n[:-len("_duty")] + "_brake" in inputs)


def _bind_channel(mechanism, mech_name: str, wheel: Optional[str]) -> dict:
    """The signal names a channel on ``mechanism`` (and ``wheel``) uses, checked: the one place of that check."""
    inputs = set(getattr(mechanism, "input_names", ()) or ())
    others = set(getattr(mechanism, "output_names", ()) or ()) | set(getattr(mechanism, "state_names", ()) or ())
    wheels = _wheels_of(inputs)
    if wheel is None and wheels and not set(REQUIRED_SIGNALS[0]) <= inputs:
        raise ConfigError("wheel", None, f"one of {wheels}: {mech_name!r} is a drivetrain, a channel drives one "
                                         "of its wheels")
    if wheel is not None and wheel not in wheels:
        raise ConfigError("wheel", wheel, f"one of {wheels} (the wheels of {mech_name!r}: inputs "
                                          "<wheel>_duty and <wheel>_brake)" if wheels else
                          f"None: {mech_name!r} has no wheels (no <wheel>_duty, <wheel>_brake inputs)")
    names = channel_signal_names(mech_name, wheel)
    prefix = len(mech_name) + 1
    missing = [names[s][prefix:] for s in REQUIRED_SIGNALS[0] if names[s][prefix:] not in inputs] + \
              [names[s][prefix:] for s in REQUIRED_SIGNALS[1] if names[s][prefix:] not in others]
    if missing:
        raise ConfigError("mechanism", mech_name, f"a mechanism with signals {missing} (a hub-driven motor)")
    return names


def check_hub_names(hubs) -> None:
    """ConfigError naming the fix when two of ``hubs`` share a name (every ``Hub()`` is ``"hub"`` by default).

    A robot's configuration names each hub (its Control Hub and its Expansion
    Hub), and so must a simulated one: the names key ``hardwareMap`` and the
    firmware controllers.
    """
    names = [h.name for h in hubs]
    shared = sorted({n for n in names if names.count(n) > 1})
    if shared:
        raise ConfigError("hubs", names, f"hubs with distinct names: {shared} name more than one hub; name each as "
                                         "the robot configuration does, e.g. Hub(name=\"Control Hub\") and "
                                         "Hub(name=\"Expansion Hub 2\")")


class WeakSignals(Mapping):
    """A simulation's live signals, held weakly: a device that keeps it does not keep the simulation alive."""

    def __init__(self, signals: Mapping[str, float]):
        self._ref = weakref.ref(signals)

    def views(self, signals) -> bool:
        """Whether this views ``signals``."""
        return self._ref() is signals

    def _live(self) -> Mapping[str, float]:
        signals = self._ref()
        if signals is None:
            raise RuntimeError("the simulation these hub signals came from is gone: keep the simcore.Simulator "
                               "to read the hardware after a run of a Java-style op mode (or read its Result)")
        return signals

    def __getitem__(self, name: str) -> float:
        return self._live()[name]

    def __iter__(self):
        return iter(self._live())

    def __len__(self) -> int:
        return len(self._live())


def held_signals(signals, weakly: bool, current=None):
    """What a device keeps of ``signals``: the mapping itself or, ``weakly``, a :class:`WeakSignals` view of it
    (``current`` when it views it already; a plain dict, which cannot be held weakly, itself)."""
    if weakly and type(current) is WeakSignals and current._ref() is signals:
        return current  # what the op mode's runner finds at every tick: checked first
    if not weakly or signals is None or isinstance(signals, WeakSignals):
        return signals
    if isinstance(current, WeakSignals) and current.views(signals):
        return current
    try:
        return WeakSignals(signals)
    except TypeError:
        return signals


class Hub:
    """A REV Control Hub / Expansion Hub: four motor channels and the firmware that runs them, six servo ports
    (:meth:`servo`), eight digital and four analog inputs, four I2C buses and its voltage sensor.

    Parameters
    ----------
    name : str
        The hub's name in the robot configuration; names the firmware controller
        (``"<name>.firmware"``). Default ``"hub"``: a robot with two hubs (a Control
        Hub and an Expansion Hub) names each, e.g. ``"Control Hub"`` and
        ``"Expansion Hub 2"``; two hubs of one name are refused where they meet.
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
        self._weak_signals = False
        self.ended_run: Optional[str] = None  # what ended the last Java-style op mode run on this hub
        self._motors: dict[int, DcMotorEx] = {}
        # The other ports (simcore.controllers.hub.servo, .sensors): port -> device.
        self._servos: dict = {}
        self._digital: dict = {}
        self._analog: dict = {}
        self._i2c: dict = {}
        self._voltage_sensor = None
        self._bulk = BulkCache(self._bulk_snapshot)
        self._controller = PeriodicController(firmware.loop_period, self.firmware_step, name=f"{name}.firmware")

    @property
    def loop_period(self) -> float:
        """Firmware loop period, s."""
        return self.firmware.loop_period

    # -- configuration ----------------------------------------------------------------------------
    def motor(self, port: int, mechanism, motor_type: Optional[MotorType] = None, *,
              wheel: Optional[str] = None, mirrored: Optional[bool] = None) -> "DcMotorEx":
        """Configure ``port`` to drive ``mechanism`` (or one wheel of it); returns the robot code's ``DcMotorEx``.

        Parameters
        ----------
        port : int
            0..3.
        mechanism : simcore.System
            A mechanism with inputs ``duty``, ``brake`` and signals
            ``rotor_position`` (rad), ``rotor_velocity`` (rad/s),
            ``stator_current``, ``supply_current`` (A), ``supply_voltage`` (V);
            or, with ``wheel``, a drivetrain whose wheels carry those signals
            as ``<wheel>_duty``, ... (:data:`PER_WHEEL_SIGNALS`; ``supply_voltage``
            is the drivetrain's).
        motor_type : MotorType, optional
            The type *configured* on the robot (what the SDK is told). Defaults to
            ``mechanism.motor_type``. The encoder resolution is the physical
            one, ``mechanism.motor_type.encoder_counts_per_motor_rev`` when the
            mechanism has a motor type, else this one's.
        wheel : str, optional
            The wheel this channel drives: ``"front_left"``, ``"front_right"``,
            ``"rear_left"``, ``"rear_right"`` on a mecanum drive, ``"left"`` or
            ``"right"`` on a tank drive (any wheel the drivetrain has).
        mirrored : bool, optional
            Whether the motor is mounted mirrored (see "Mounting" in the module
            docstring). Default :func:`default_mirrored`: True on a drivetrain's
            left wheels, False elsewhere.

        Notes
        -----
        Direction convention, as on a robot: a drivetrain's left motors are
        mounted mirrored, so with every handle FORWARD positive power drives the
        right wheels forward and the left ones backward (the robot spins), and the
        left encoders count down as their wheels roll forward. Robot code undoes
        that with ``setDirection(REVERSE)`` on the left motors, as every SDK drive
        sample does (:mod:`simcore.controllers.hub.samples`).

        Raises
        ------
        ConfigError
            Bad or used port, a mechanism (or wheel) already driven by this hub,
            a drivetrain without ``wheel`` or with one it does not have, missing
            signals, or no motor type.
        ConfigTypeError
            ``mirrored`` is neither None nor a bool.
        """
        if isinstance(port, bool) or not isinstance(port, numbers.Integral) or not 0 <= port < NUMBER_OF_MOTORS:
            raise ConfigError("port", port, f"a motor port 0..{NUMBER_OF_MOTORS - 1}")
        port = int(port)
        if port in self._motors:
            raise ConfigError("port", port, f"a port not already configured on hub {self.name!r}")
        mech_name = getattr(mechanism, "name", None)
        if not isinstance(mech_name, str) or not mech_name:
            raise ConfigError("mechanism", mechanism, "a simcore System with a name")
        if wheel is not None and (not isinstance(wheel, str) or not wheel):
            raise ConfigTypeError("wheel", wheel, "a wheel name (str) or None")
        if any(m.mechanism_name == mech_name and m.wheel == wheel for m in self._motors.values()):
            raise ConfigError("mechanism", mech_name if wheel is None else f"{mech_name} wheel {wheel}",
                              "a mechanism (or wheel) not already driven by this hub")
        signals = _bind_channel(mechanism, mech_name, wheel)
        protocols.check_hub_mechanism(mechanism, wheel=wheel)  # the HubMechanism protocol: a misspelt motor_type
        physical = getattr(mechanism, "motor_type", None)
        if motor_type is None:
            motor_type = physical
        if motor_type is None:
            raise ConfigError("motor_type", None, "a MotorType (the mechanism has no motor_type attribute)")
        if not isinstance(motor_type, MotorType):
            raise ConfigTypeError("motor_type", motor_type, "a simcore.models.ftc_motor_types.MotorType")
        if not isinstance(physical, MotorType):
            physical = motor_type
        if mirrored is None:
            mirrored = default_mirrored(mechanism, wheel)
        elif not isinstance(mirrored, (bool, np.bool_)):
            raise ConfigTypeError("mirrored", mirrored, "True, False or None (the mounting's default)")
        m = DcMotorEx(self, port, mech_name, motor_type, physical, wheel=wheel, signals=signals,
                      mirrored=bool(mirrored))
        self._motors[port] = m
        return m

    def encoder(self, port: int, mechanism, pod: str, *, motor_type: Optional[MotorType] = None,
                reversed: bool = False) -> "DcMotorEx":
        """Plug dead wheel ``pod`` of ``mechanism`` into the encoder port ``port``; returns the ``DcMotorEx``
        whose ``getCurrentPosition()`` and ``getVelocity()`` read it.

        A hub's encoder ports are its motor ports' (0..3). If ``port`` already drives a motor
        (:meth:`motor`), that motor's handle reads the pod from now on, as on a robot whose pods are plugged
        into the drive motors' encoder ports (its direction, ``setDirection``, applies to the reading, as
        the SDK does); otherwise the port has an encoder alone, configured as ``motor_type`` (what the robot
        configuration names it; default the mechanism's ``motor_type``). The count is
        ``distance / (2 pi r) * counts_per_revolution`` of the pod, negated with ``reversed`` (an encoder
        mounted the other way), and starts at 0 here.

        Parameters
        ----------
        port : int
            0..3.
        mechanism : simcore.System
            A drivetrain with ``odometry_pods`` (:class:`~simcore.models.OdometryPod`).
        pod : str
            The pod's name.
        motor_type : MotorType, optional
            Only for a port with no motor on it.
        reversed : bool

        Raises
        ------
        ConfigError
            Bad port, a pod the mechanism does not have, ``motor_type`` for a port that drives a motor, or
            no motor type for a port alone.
        """
        if isinstance(port, bool) or not isinstance(port, numbers.Integral) or not 0 <= port < NUMBER_OF_MOTORS:
            raise ConfigError("port", port, f"an encoder port 0..{NUMBER_OF_MOTORS - 1}")
        port = int(port)
        mech_name = getattr(mechanism, "name", None)
        pods = {p.name: p for p in getattr(mechanism, "odometry_pods", ())}
        if pod not in pods:
            raise ConfigError("pod", pod, f"one of {sorted(pods)} (the odometry_pods of {mech_name!r})"
                              if pods else f"a pod of a drivetrain built with odometry_pods ({mech_name!r} has none)")
        if not isinstance(reversed, (bool, np.bool_)):
            raise ConfigTypeError("reversed", reversed, "True or False")
        if port in self._motors:
            if motor_type is not None:
                raise ConfigError("motor_type", motor_type, f"None: port {port} drives a motor, whose type it has")
            m = self._motors[port]
        else:
            if motor_type is None:
                motor_type = getattr(mechanism, "motor_type", None)
            if not isinstance(motor_type, MotorType):
                raise ConfigError("motor_type", motor_type, "the MotorType the robot configuration gives the port")
            m = DcMotorEx(self, port, mech_name, motor_type, motor_type, signals={})
            self._motors[port] = m
        p = pods[pod]
        m._channel.plug_encoder(f"{mech_name}.{pod}_rotor_position", f"{mech_name}.{pod}_rotor_velocity",
                                p.counts_per_revolution, -1 if reversed else 1)
        m.pod = pod
        return m

    def getMotor(self, port: int) -> "DcMotorEx":
        """The DcMotorEx configured on ``port``."""
        return self._motors[port]

    # -- the other ports: servos and sensors (simcore.controllers.hub.servo, .sensors) ----------------
    def servo(self, port: int, mechanism, servo_type=None):
        """Configure servo ``port`` (0..5) to drive ``mechanism`` (a :class:`~simcore.models.ServoMechanism`);
        returns the robot code's ``ServoImplEx`` or, for ``servo_type=CRServo`` (the default for a servo set to
        continuous rotation), ``CRServoImplEx``. See :mod:`simcore.controllers.hub.servo`."""
        from .servo import configure_servo

        return configure_servo(self, port, mechanism, servo_type)

    def digital(self, port: int, source, device=None):
        """Configure digital ``port`` (0..7) with a switch closed by ``source`` (a ``LimitSwitch`` or
        ``f(signals) -> bool``) as ``device``: ``TouchSensor`` (default; odd ports) or ``DigitalChannel``.
        See :mod:`simcore.controllers.hub.sensors`."""
        from .sensors import TouchSensor, configure_digital

        return configure_digital(self, port, source, TouchSensor if device is None else device)

    def analog(self, port: int, source):
        """Configure analog ``port`` (0..3) reading ``source`` (a ``Potentiometer`` or ``f(signals) -> volts``);
        returns its ``AnalogInput``."""
        from .sensors import configure_analog

        return configure_analog(self, port, source)

    def i2c(self, bus: int, device):
        """Put the I2C ``device`` (a ``Rev2mDistanceSensor(...)``) on ``bus`` (0..3); returns it."""
        from .sensors import configure_i2c

        return configure_i2c(self, bus, device)

    def voltage_sensor(self, source=None):
        """The hub's ``VoltageSensor`` (one per hub): reads ``source`` (a battery system's ``voltage``), or by
        default the bus voltage its motors see. Given a source, it replaces the one the hub had."""
        from .sensors import VoltageSensor

        if self._voltage_sensor is None or source is not None:
            self._voltage_sensor = VoltageSensor(self, source)
        return self._voltage_sensor

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
        """The hub's firmware as simcore controllers (one PeriodicController), for a new run: after a
        Java-style op mode's run ended, the hub's motors answer again (:meth:`begin_run`)."""
        self.begin_run()
        return [self._controller]

    # -- LynxModule: bulk reads and fail-safe -------------------------------------------------------
    #: ``LynxModule.BulkCachingMode``, so that ported Java reads ``LynxModule.BulkCachingMode.AUTO``.
    BulkCachingMode = BulkCachingMode

    def setBulkCachingMode(self, mode: BulkCachingMode) -> None:
        """OFF, MANUAL or AUTO (see :mod:`simcore.controllers.hub.bulk`); OFF clears the cache."""
        self._bulk.set_mode(mode)

    def getBulkCachingMode(self) -> BulkCachingMode:
        """The bulk-caching mode (OFF at power-up)."""
        return self._bulk.mode

    def clearBulkCache(self) -> None:
        """Forget the cached bulk read: the next cached read sends a new one."""
        self._bulk.clear()

    def getBulkData(self) -> BulkData:
        """Send a bulk read now (one round trip, whatever the mode); it becomes the cache."""
        return self._bulk.read()

    def failSafe(self) -> None:
        """The SDK's fail-safe (sent to every hub when an op mode stops): every motor channel disabled.

        APPROXIMATION: a disabled channel opens its bridge (the motors coast), as
        :meth:`DcMotorEx.setMotorDisable`; the next power or velocity command
        enables it again.
        """
        for port in sorted(self._motors):
            self._motors[port]._channel.cmd_enable(False)
        for port in sorted(self._servos):  # the servo controller's floatHardware: every PWM output off
            self._servos[port]._channel.set_enabled(False)

    def end_run(self, what: str) -> None:
        """A Java-style op mode's run on this hub is over (``what`` says which and when): from now on its motors'
        methods raise :class:`OpModeEndedError` (their values would be stale), until :meth:`begin_run`."""
        self.ended_run = what

    def begin_run(self) -> None:
        """A Java-style op mode's run on this hub starts: its motors answer again."""
        self.ended_run = None

    def _bulk_snapshot(self) -> BulkData:
        """What a bulk read returns now: every configured port's count, velocity and busy flag (raw)."""
        counts, velocities, busy = {}, {}, {}
        for port, m in self._motors.items():
            ch = m._channel
            counts[port] = ch.read_count()
            velocities[port] = ch.read_velocity()
            busy[port] = ch.mode is RunMode.RUN_TO_POSITION and not ch.at_target()
        live = self.signals is not None
        digital = {port: d.line_level() for port, d in self._digital.items()} if live else {}
        analog = {port: a.millivolts() * 0.001 for port, a in self._analog.items()} if live else {}
        return BulkData(counts, velocities, busy, digital=digital, analog=analog)

    def _cached(self, key) -> Optional[BulkData]:
        """The bulk data answering read ``key`` in a caching mode, or None with caching OFF."""
        if self._bulk.mode is BulkCachingMode.OFF:
            return None
        return self._bulk.cached(key)

    @staticmethod
    def _answered(value, round_trips: int = 1):
        """``value``, read by its own command now: the reading op mode waits for the answer."""
        spend_round_trips(round_trips)
        return value

    # -- the firmware -----------------------------------------------------------------------------
    def observe(self, signals: Mapping[str, float]) -> None:
        """Hand the hub the signals mapping its reads use (the engine's live view)."""
        self.signals = held_signals(signals, self._weak_signals, self.signals)

    def hold_signals_weakly(self) -> None:
        """Keep the simulation's signals through a weak view from now on (:func:`run_opmode` asks this, so that
        its waiting thread does not keep a finished simulation alive through the hub)."""
        self._weak_signals = True
        self.signals = held_signals(self.signals, True)

    def firmware_step(self, t: float, signals: Mapping[str, float]) -> dict:
        """One firmware pass over every channel; the PeriodicController's ``fn``."""
        self.observe(signals)
        out = {}
        for port in sorted(self._motors):
            out.update(self._motors[port]._channel.step(signals))
        for port in sorted(self._servos):
            out.update(self._servos[port]._channel.outputs())
        return out

    def __repr__(self):
        return f"Hub({self.name!r}, ports={sorted(self._motors)}, loop_period={self.loop_period!r} s)"


#: The SDK's name for a hub (``hardwareMap.getAll(LynxModule)``).
LynxModule = Hub


class OpModeEndedError(SimError, RuntimeError):
    """A hub motor was used after the Java-style op mode run it belongs to had ended."""


class DcMotorEx(DcMotor):
    """The robot code's handle on one hub motor port, with the SDK's method names.

    Created by :meth:`Hub.motor`. Every method is the SDK's ``DcMotorEx`` method
    of the same name; see the module docstring for what is exact and what is an
    approximation. It is a ``DcMotor`` (and ``DcMotorSimple``), so
    ``hardwareMap.get(DcMotor, name)`` finds it and ``DcMotorEx.RunMode`` reads.
    """

    def __init__(self, hub: Hub, port: int, mechanism_name: str, motor_type: MotorType, physical: MotorType, *,
                 wheel: Optional[str] = None, signals: Optional[dict] = None, mirrored: bool = False):
        self._hub = hub
        self._port = port
        self.mechanism_name = mechanism_name
        self.wheel = wheel
        #: The dead wheel whose encoder this port reads (:meth:`Hub.encoder`), or None.
        self.pod = None
        #: Whether the motor is mounted mirrored (its rotation negated against the mechanism's or wheel's frame).
        self.mirrored = mirrored
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
        if signals is None:
            signals = channel_signal_names(mechanism_name, wheel)
        # The hub's raw frame: the SDK's orientation of the type composed with the mounting.
        raw_sign = -physical.raw_sign if mirrored else physical.raw_sign
        self._channel = Channel(port, signals, physical.encoder_counts_per_motor_rev, raw_sign,
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

    def _device(self) -> str:
        """This motor as error messages name it."""
        where = self.mechanism_name if self.wheel is None else f"{self.mechanism_name} {self.wheel}"
        return f"{self._hub.name} port {self._port} ({where})"

    def setPower(self, power: float) -> None:
        """Send a power: abs(p) in RUN_TO_POSITION (a speed cap), direction-adjusted otherwise.

        A power outside [-1, 1] is clipped to it, without a warning, because the
        SDK does exactly that: ``DcMotorSimple.setPower`` documents the interval
        [-1.0, 1.0] and ``LynxDcMotorController.setMotorPower`` clips to it
        (``Range.clip(power, apiPowerFirst, apiPowerLast)``) before sending. So a
        mecanum mix left un-normalised saturates here as on the robot: normalise
        the four powers by their largest magnitude when it exceeds 1.

        Raises
        ------
        NonFiniteError
            ``power`` is NaN (the SDK would send 0 and silently stop the motor).
        OpModeEndedError
            Called after the Java-style op mode run of this hub ended (so do all
            the motor's methods but the configuration getters).
        """
        power = _num_arg("power", power)
        _refuse_nan("setPower", self._device(), power, "sends power 0 ((int) of NaN is 0)")
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
        """False except in RUN_TO_POSITION, where it is the hub's ``!atTarget``.

        A read (one round trip from a Java-style op mode), from the bulk cache
        in MANUAL and AUTO; with caching OFF outside RUN_TO_POSITION the SDK
        sends nothing.
        """
        data = self._hub._cached(("busy", self._port))
        if self._last_mode is not RunMode.RUN_TO_POSITION:
            return False
        if data is not None:
            return data.isMotorBusy(self._port)
        return self._hub._answered(not self._channel.at_target())

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
        """The hub's target register, direction-adjusted (0 before any target); a read."""
        return self._adjust(self._hub._answered(self._channel.target))

    def getCurrentPosition(self) -> int:
        """Encoder count since the last reset (or power-up), direction-adjusted, ticks; a read (bulk-cached
        in MANUAL and AUTO)."""
        data = self._hub._cached(("position", self._port))
        if data is not None:
            return self._adjust(data.getMotorCurrentPosition(self._port))
        return self._adjust(self._hub._answered(self._channel.read_count()))

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

        Raises
        ------
        NonFiniteError
            ``angular_rate`` is NaN (the SDK would send 0 and silently stop the motor).
        """
        rate = self._adjust(_num_arg("angularRate", angular_rate))
        _refuse_nan("setVelocity", self._device(), rate, "sends velocity 0 (Math.round of NaN is 0)")
        if unit is not None:
            if not isinstance(unit, AngleUnit):
                raise TypeError(f"unit={unit!r}: expected an AngleUnit")
            rate = self._type.getTicksPerRev() * (unit.rate_to_degrees(rate) / 360.0)
        if self._last_mode not in (RunMode.RUN_USING_ENCODER, RunMode.RUN_TO_POSITION):
            self.setMode(RunMode.RUN_USING_ENCODER)
        ticks = _clip(java_round(rate) if math.isfinite(rate) else (_VEL_LAST if rate > 0 else _VEL_FIRST),
                      _VEL_FIRST, _VEL_LAST)
        self._channel.cmd_velocity_target(ticks)
        self._channel.cmd_enable(True)

    def getVelocity(self, unit: Optional[AngleUnit] = None) -> float:
        """Whole ticks/s as the hub reports them, or that whole number in ``unit`` per second; a read (a bulk
        read of its own with caching OFF, the cache otherwise)."""
        if unit is not None and not isinstance(unit, AngleUnit):
            raise TypeError(f"unit={unit!r}: expected an AngleUnit")
        data = self._hub._cached(("velocity", self._port))
        ticks = (data.getMotorVelocity(self._port) if data is not None
                 else self._hub._answered(self._channel.read_velocity()))
        if unit is None:
            return float(self._adjust(ticks))
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
        NonFiniteError
            A gain is NaN (the SDK would send a gain of 0; nothing is sent).
        """
        if not isinstance(mode, RunMode):
            raise TypeError(f"mode={mode!r}: expected a RunMode")
        if not isinstance(pidf_coefficients, PIDFCoefficients):
            raise TypeError(f"pidfCoefficients={pidf_coefficients!r}: expected a PIDFCoefficients")
        for gain in ("p", "i", "d", "f"):
            _refuse_nan(f"setPIDFCoefficients {gain}", self._device(), getattr(pidf_coefficients, gain),
                        "sends a gain of 0 ((int) of NaN is 0), so the loop loses that term")
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
        return self._hub._answered(self._channel.gains[mode])

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
        milliamps = self._hub._answered(self._channel.read_current()) * 1000.0
        return unit.convert(milliamps, CurrentUnit.MILLIAMPS)

    # -- simulator extras (names from the hub specification's FakeMotor) ------------------------
    def getAppliedPhysicalPower(self) -> float:
        """Duty the firmware is putting on the windings, in the raw (physical encoder) direction, [-1, 1]."""
        return self._channel.applied if self._channel.enabled else 0.0

    def getPhysicalPositionTicks(self) -> int:
        """The hub's count register in the raw (physical encoder) direction: no Direction applied, ticks."""
        return self._channel.read_count()

    def __repr__(self):
        target = self.mechanism_name if self.wheel is None else f"{self.mechanism_name}.{self.wheel}"
        mount = ", mirrored" if self.mirrored else ""
        return (f"DcMotorEx({self._hub.name!r} port {self._port} -> {target!r}{mount}, "
                f"{self._type.name!r}, {self._last_mode.name})")


def _refuse_after_the_run(method):
    """``method`` raising :class:`OpModeEndedError` once the hub's Java-style op mode run has ended."""
    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        ended = self._hub.ended_run
        if ended is not None:
            raise OpModeEndedError(
                f"{type(self).__name__}.{method.__name__} on {self._device()}: {ended}, so the hub no longer "
                "answers (a read would be stale, a write would go nowhere). Read the run's results from its "
                "Result (res.signals, res.sample, res.records), or run the op mode again.")
        return method(self, *args, **kwargs)
    return checked


#: What a motor is (configuration, not the hub's state): still answered after the run.
_IDENTITY = {"getController", "getPortNumber", "getDeviceName", "getConnectionInfo", "getMotorType"}
for _name in [n for n in dir(DcMotorEx)
              if n[:1].islower() and callable(getattr(DcMotorEx, n)) and n not in _IDENTITY]:
    setattr(DcMotorEx, _name, sdk_method(_refuse_after_the_run(getattr(DcMotorEx, _name))))
del _name
