"""simcore as the physics of a robotpy robot program: a base for ``physics.py``.

The contract
------------
robotpy's simulation (``python -m robotpy sim`` / ``robotpy test``, robotpy 2026 with
pyfrc 2026.0.3) loads ``physics.py`` beside ``robot.py`` and builds its
``PhysicsEngine(physics_controller, robot)``; after every loop of the robot program
it calls ``update_sim(now, tm_diff)``, ``tm_diff`` being the seconds since the last
call. Subclass :class:`Physics` as that ``PhysicsEngine``: it owns a
:class:`~simcore.Simulator` of your systems and declares, once, how the robot's
devices connect to them::

    class PhysicsEngine(Physics):
        def __init__(self, physics_controller, robot):
            arm = models.Arm(NEO, 100, ..., command="duty")
            super().__init__(physics_controller, [arm, models.Battery()])
            self.motor(robot.motor, "arm.duty")                  # PWM, TalonFX or SPARK -> duty input
            self.encoder(robot.encoder, "arm.angle")             # signal -> EncoderSim distance and rate
            self.battery()                                       # bus -> RoboRioSim.setVInVoltage

Each ``update_sim(now, tm_diff)`` does, in order:

1. read every bound motor controller's output as a duty in [-1, 1] (0 while the
   robot is disabled: a roboRIO disables its outputs) and write it into its
   mechanism's ``duty`` input; build mechanisms with ``command="duty"``, so the duty
   is applied against the bus voltage of the same evaluation, with no lag;
2. advance the simulation exactly ``tm_diff`` (resolved to whole nanoseconds);
3. write every bound sensor from the signals at the new time: encoders, absolute
   encoders, gyros, limit switches, the CAN controllers' rotor sensors and supply
   voltage, the roboRIO's input voltage, the robot pose on a ``Field2d``, and (with
   :meth:`Physics.networktables`) the simulated truth on NetworkTables for
   AdvantageScope (:mod:`simcore.live_view`).

So the command the robot wrote in its loop is held over the next ``tm_diff`` and
the sensors it reads in its next loop show the state at the end of it: the robot
loop is a zero-order hold, as on a robot. The simulation's time :attr:`Physics.t`
counts from 0 at construction and advances only in ``update_sim``. (pyfrc 2026
calls ``update_sim`` only once more than 10 ms have passed since the last call: a
robot looping faster than 100 Hz has only its last command of each interval held.)

**Devices.** Motor controllers: any ``wpilib`` PWM motor controller (read through
``wpilib.simulation.PWMSim``, inversion included); CTRE phoenix6 ``TalonFX`` (its
``sim_state``: the motor voltage it applies in, the supply voltage and rotor
position, velocity and acceleration out); REV ``SparkMax``/``SparkFlex`` (its
``SparkSim``: ``iterate`` with the rotor speed and bus voltage, the applied output
in, position and velocity out in the SPARK's conversion-factor units). Sensors:
``wpilib.Encoder`` (``EncoderSim``: distance and rate, counted in whole pulses of its
distance per pulse as a real one), ``wpilib.DutyCycleEncoder`` (``DutyCycleEncoderSim``,
wrapped into its full range), ``AnalogGyro``, ``ADXRS450_Gyro`` and the navX
``AHRS`` (heading), ``DigitalInput`` limit switches (``DIOSim``) closed while a
mechanism rests on its hard stop (its ``lower_stop``/``upper_stop`` mode).

**Verified here** (robotpy 2026.2.2 on this machine, each by a test): PWM motor
controllers, encoders, duty-cycle encoders, AnalogGyro, ADXRS450, DIO limit
switches, the roboRIO voltage, Field2d; REVLib 2026.0.4's SparkMaxSim (deterministic:
it computes in ``iterate``; its applied output follows its own model, which ramps a
step of the setpoint over about 0.2 s; its relative encoder reports in single
precision); the navX's simulated ``Yaw`` (read after the library's startup
calibration, which runs on its own thread for about a second of wall-clock time and
then zeroes the yaw once). CTRE phoenix6
26.3.0's TalonFX simulation runs and takes the sensor values, but computes its
output on its own thread against the wall clock, so under ``robotpy test``
(simulated time running faster than real time) its motor voltage arrives late and
varies from run to run: usable interactively in ``robotpy sim``, not for
deterministic tests.

**WPILib's conventions, where they differ.** Gyros read clockwise-positive
degrees (``getAngle``); simcore's heading is counter-clockwise radians: the gyro
bindings convert. WPILib's simulated mechanisms report current as
``|I| * sign(applied voltage)`` (zero at 0 V, where back-EMF still drives current in
brake mode); simcore's ``stator_current`` is the winding's real, signed current
(:func:`wpilib_current` converts). WPILib's ``BatterySim.calculate`` is fed those
stator currents; simcore's :class:`~simcore.models.Battery` draws each controller's
supply current, ``duty * stator current``, which is what a real battery sees
(:meth:`Physics.power_distribution` puts supply currents on a
``PowerDistribution``'s channels). WPILib's simulation HAL has no brownout state
(``RobotController.isBrownedOut()`` stays False whatever the voltage): the battery
binding sets the roboRIO's brownout threshold to the Battery's, and
:attr:`Physics.browned_out` says whether the bus is below it.

**History.** A robot program runs as long as someone leaves ``robotpy sim`` open, so
:class:`Physics` keeps a rolling window of the last :data:`DEFAULT_HISTORY` seconds
(60 s: every solver step, tick and event within it) rather than everything; memory
stays bounded however long it runs, and ``result().dropped`` counts what fell out of
the window. Pass ``record=`` (anything :class:`~simcore.Simulator` accepts: ``"all"``,
``"ticks"``, ``"none"`` or a window in seconds) to choose otherwise.
"""
from __future__ import annotations

import math
import re
import weakref

from . import checks
from .errors import ConfigError, ConfigTypeError, NonFiniteError
from .extras import require

__all__ = ["Physics", "wpilib_current", "DEFAULT_HISTORY", "DEVICE_MOTORS", "parse_address"]

_TWO_PI = 2.0 * math.pi

#: The rolling window of history a Physics keeps by default, s (a match is 150 s; a robot test
#: looks at its last seconds): bounded memory for a program left running.
DEFAULT_HISTORY = 60.0


def wpilib_current(stator_current: float, applied_voltage: float) -> float:
    """The current WPILib's simulated mechanisms report for simcore's signed ``stator_current`` (A).

    WPILib's ``DCMotorSim``/``FlywheelSim``/... ``getCurrentDrawAmps()`` is
    ``|I| * sign(V)``: the magnitude with the sign of the applied voltage, and 0 at
    0 V (its open issue #8706). simcore's current is the real one, ``(V - E)/R``.
    """
    if applied_voltage == 0.0:
        return 0.0
    return math.copysign(abs(stator_current), applied_voltage)


def _wpilib():
    return require("wpilib", "robotpy", "simcore.robotpy")


def _wpilib_simulation():
    # ``import wpilib`` does not import its ``simulation`` submodule: pyfrc imports it, a plain
    # script, a unit test of physics.py or a notebook does not, so it is imported here by name.
    return require("wpilib.simulation", "robotpy", "simcore.robotpy")


class _Binding:
    """One declared connection; ``read`` (motors) runs before the step, ``write`` (sensors) after."""

    def read(self, physics) -> dict:
        return {}

    def write(self, physics, dt: float) -> None:
        pass


class Physics:
    """Base class of a robotpy ``physics.py`` ``PhysicsEngine`` on simcore (see the module docstring).

    Parameters
    ----------
    physics_controller : object
        What robotpy passes first to ``PhysicsEngine`` (pyfrc's ``PhysicsInterface``);
        only its ``field`` (a ``Field2d``) is used, by :meth:`field`, when present.
        :mod:`simcore.halsim` passes its own, which carries the protocol's devices
        in place of wpilib's simulated ones (its ``simcore_devices``).
    systems : System or sequence of System
        The simulated mechanisms (motor-driven ones with ``command="duty"``), a
        Battery among them for a sagging bus.
    controllers : sequence of PeriodicController
        Controllers run by the simulation itself (a motor controller's 1 kHz loop).
    **simulator_options
        Passed to :class:`~simcore.Simulator` (``method``, ``rtol``, ``atol``,
        ``max_step``, ...); ``record`` defaults to a rolling window of
        :data:`DEFAULT_HISTORY` seconds (see the module docstring).
    """

    def __init__(self, physics_controller, systems, controllers=(), **simulator_options):
        from .engine import Simulator

        # The devices the bindings talk to: wpilib's simulated ones in the robot program's process, or
        # those of a HALSim WebSocket link (simcore.halsim), which offers the same calls.
        self._host = getattr(physics_controller, "simcore_devices", None)
        if self._host is None:
            self._wpilib, self._sims = _wpilib(), _wpilib_simulation()
        else:
            self._wpilib, self._sims = self._host.wpilib, self._host.simulation
        self.physics_controller = physics_controller
        simulator_options.setdefault("record", DEFAULT_HISTORY)
        self.sim = Simulator(systems, controllers, **simulator_options)
        self.sim.advance(0.0)  # modes settled and the initial row recorded, so bindings can read signals
        self._bindings: list[_Binding] = []
        self._driven: dict[str, object] = {}  # duty input -> the controller bound to it
        self._battery = None
        Physics._latest = weakref.ref(self)

    _latest = None

    @classmethod
    def current(cls) -> "Physics":
        """The most recently built Physics still alive: how a robot test reaches the simulation."""
        physics = cls._latest() if cls._latest is not None else None
        if physics is None:
            raise ConfigError("Physics.current()", None, "a Physics built by robotpy's physics.py (none is alive)")
        return physics

    # -- the physics.py contract -------------------------------------------------------------------
    def update_sim(self, now: float, tm_diff: float) -> None:
        """Motor outputs in, advance exactly ``tm_diff`` seconds, sensors out (see the module docstring)."""
        enabled = self._wpilib.DriverStation.isEnabled()  # a roboRIO disables its outputs
        writes = {}
        for b in self._bindings:
            values = b.read(self)
            # disabled: every duty neutral; a brake input keeps the controller's neutral mode
            writes.update(values if enabled else {k: 0.0 if k in self._driven else v for k, v in values.items()})
        if writes:
            self.sim.set_inputs(writes)
        self.sim.advance(tm_diff)
        for b in self._bindings:
            b.write(self, tm_diff)

    # -- state -------------------------------------------------------------------------------------
    @property
    def t(self) -> float:
        """Simulated time, s (0 at construction)."""
        return self.sim.t

    @property
    def signals(self):
        """Every ``"system.signal"`` at the current time (:attr:`Simulator.signals`)."""
        return self.sim.signals

    def result(self):
        """What the simulation recorded so far (:meth:`Simulator.result`)."""
        return self.sim.result()

    @property
    def browned_out(self) -> bool:
        """Whether the bound battery's bus is below its brownout voltage (False without :meth:`battery`)."""
        if self._battery is None:
            return False
        return self.signals[self._battery.signal] < self._battery.threshold

    def _signal(self, parameter: str, name: str) -> str:
        if not isinstance(name, str) or name not in self.sim.signals:
            raise ConfigError(parameter, name, "a signal of the simulated systems, one of "
                                               + ", ".join(self.sim.signals))
        return name

    def _system(self, name: str):
        for s in self.sim.systems:
            if s.name == name:
                return s
        raise ConfigError("system", name, "a simulated system, one of " + ", ".join(s.name for s in self.sim.systems))

    def _bind(self, binding: _Binding) -> _Binding:
        self._bindings.append(binding)
        binding.write(self, 0.0)  # the robot reads the initial state from the start
        return binding

    # -- motor controllers -------------------------------------------------------------------------
    def motor(self, controller, duty: str, *, inverted: bool = False, rotor: str | None = None,
              value: str | None = None):
        """Drive the duty input ``duty`` (``"arm.duty"``) from a motor controller.

        Parameters
        ----------
        controller : PWM motor controller, PWM channel (int), phoenix6 TalonFX, REV SparkMax/SparkFlex, or a
                     simulated device's address (str)
            Addresses name the device as WPILib's HALSim protocol does, so one
            physics description serves robotpy and :mod:`simcore.halsim`:
            ``"CANMotor[3]"`` (the ``CANMotor`` simulated device of CAN id 3,
            whatever its type), ``"CANMotor:<type>[3]"`` (that one), or a vendor
            device's name, ``"SPARK MAX [3]"`` / ``"SPARK Flex [3]"`` (REVLib's);
            see :data:`DEVICE_MOTORS` for the values read and written.
        duty : str
            A ``duty`` input of a mechanism built with ``command="duty"``.
        inverted : bool
            The motor is wired (or mounted) the other way: its duty is negated.
        rotor : str, optional
            For CAN controllers, the signal prefix of the rotor this controller's
            sensor sees: ``"<prefix>_position"``, ``"<prefix>_velocity"``,
            ``"<prefix>_acceleration"`` (rad, rad/s, rad/s²). Default from ``duty``:
            ``"arm.duty"`` -> ``"arm.rotor"``, ``"drive.left_duty"`` ->
            ``"drive.left_rotor"``; give it for other layouts.
        value : str, optional
            For a vendor device, the value read as the duty instead of its
            default (a SPARK's ``"Applied Output"``, which REVLib computes only
            where the robot program runs its ``SparkSim``: ``"Setpoint"`` reads
            the duty a SPARK in duty-cycle control was given).
        """
        self._signal("duty", duty)
        if not (duty.endswith("duty") or "_duty_" in duty):
            raise ConfigError("duty", duty, "a duty input (build the mechanism with command=\"duty\": a motor "
                                            "controller outputs a fraction of the bus voltage)")
        if value is not None and not isinstance(controller, str):
            raise ConfigError("value", value, "None: value= picks the duty value of a vendor device given by its "
                                              "name (\"SPARK MAX [3]\")")
        if duty in self._driven:
            raise ConfigError("duty", duty, f"an input no other motor controller drives (already bound to "
                                            f"{self._driven[duty]!r}; bind one controller per input, the leader: "
                                            f"the mechanism's n_motors counts the motors it drives)")
        sign = -1.0 if checks.flag("inverted", inverted) else 1.0
        self._driven[duty] = controller
        try:
            if isinstance(controller, str):
                return self._bind(_DeviceMotor(self, controller, duty, sign, self._rotor(duty, rotor), value))
            return self._motor(controller, duty, sign, rotor)
        except BaseException:
            del self._driven[duty]
            raise

    def _motor(self, controller, duty, sign, rotor):
        kind = type(controller).__module__.split(".")[0]
        if kind == "phoenix6":
            return self._bind(_TalonFX(self, controller, duty, sign, self._rotor(duty, rotor)))
        if kind == "rev":
            return self._bind(_Spark(self, controller, duty, sign, self._rotor(duty, rotor)))
        sims = self._sims
        try:
            pwm = sims.PWMSim(controller)
        except TypeError:
            raise ConfigTypeError("controller", controller, "a wpilib PWM motor controller or channel, a phoenix6 "
                                                            "TalonFX, or a REV SparkMax/SparkFlex") from None
        return self._bind(_PWM(pwm, duty, sign))

    def _rotor(self, duty: str, rotor):
        if rotor is None:
            system, _, name = duty.partition(".")
            rotor = f"{system}.{name[:-len('duty')]}rotor" if name.endswith("duty") else None
        if rotor is None or f"{rotor}_position" not in self.sim.signals:
            raise ConfigError("rotor", rotor, "the prefix of the rotor's _position/_velocity signals (rad, rad/s)")
        return rotor

    # -- sensors -----------------------------------------------------------------------------------
    def encoder(self, encoder, distance: str, *, rate: str | None = None, scale: float = 1.0, zero_at=None,
                distance_per_pulse=None):
        """Set a quadrature ``wpilib.Encoder`` (its ``EncoderSim``, or its channel A) from ``distance`` and ``rate``.

        The encoder reads ``scale * (signal - zero_at)`` in its own distance units (its
        distance per pulse, set in robot code: counts are whole pulses). An incremental
        encoder counts from where the robot started, so ``zero_at`` defaults to the
        signal's value now; pass ``zero_at=0.0`` for an encoder that reads the signal
        itself. ``rate`` defaults to the velocity beside ``distance`` (``arm.angle`` ->
        ``arm.velocity``, ``drive.left_position`` -> ``drive.left_velocity``).

        ``distance_per_pulse`` is the distance per pulse the robot code set on this
        encoder. In a robotpy program it is checked against the robot's; through
        :mod:`simcore.halsim`, which sends pulse counts and cannot read the robot's
        setting, it is required. Give it (and address the encoder by its channel A)
        and one physics description serves both.
        """
        sims = self._sims
        if isinstance(encoder, sims.EncoderSim):
            sim = encoder
        elif isinstance(encoder, int) and not isinstance(encoder, bool):
            try:
                sim = sims.EncoderSim.createForChannel(encoder)
            except IndexError:
                raise ConfigError("encoder", encoder, "the channel A of an encoder the robot program created") \
                    from None
        elif isinstance(encoder, self._wpilib.Encoder):
            sim = sims.EncoderSim(encoder)
        else:
            raise ConfigTypeError("encoder", encoder, "a wpilib.Encoder, wpilib.simulation.EncoderSim or the "
                                                      "encoder's channel A (int)")
        if distance_per_pulse is not None:
            dpp = checks.positive("distance_per_pulse", distance_per_pulse, what="distance per pulse")
            robots = sim.getDistancePerPulse()
            if robots == 0.0:  # not known on this side (a HALSim link): it is the physics description's
                sim.setDistancePerPulse(dpp)
            elif not math.isclose(robots, dpp, rel_tol=1e-12, abs_tol=0.0):
                raise ConfigError("distance_per_pulse", distance_per_pulse,
                                  f"the distance per pulse the robot code set on this encoder, {robots!r}")
        self._signal("distance", distance)
        rate = self._signal("rate", rate if rate is not None else _velocity_of(distance, self.sim.signals))
        scale = checks.finite("scale", scale)
        zero = self.signals[distance] if zero_at is None else checks.finite("zero_at", zero_at)
        return self._bind(_Encoder(sim, distance, rate, scale, zero))

    def can_encoder(self, encoder: str, angle: str, *, rate: str | None = None, ratio: float = 1.0, zero_at=None):
        """Set a CAN encoder's simulated device (``CANEncoder``: ``position`` in rotations, ``velocity`` in rotations/s).

        ``encoder`` is its address: ``"CANEncoder[3]"`` (the one of CAN id 3) or
        ``"CANEncoder:<type>[3]"``, or a sensor of another device by its full name
        (``"CANEncoder:Talon FX (v6)[3]/Rotor Sensor"``). It reads
        ``ratio * (angle - zero_at) / 2 pi`` rotations (``ratio``: encoder turns per
        turn of ``angle``; ``zero_at`` defaults to the angle now: it counts from where
        the robot started) and ``ratio * rate / 2 pi`` rotations per second, ``rate``
        defaulting to the velocity beside ``angle``.
        """
        self._signal("angle", angle)
        rate = self._signal("rate", rate if rate is not None else _velocity_of(angle, self.sim.signals))
        ratio = checks.finite("ratio", ratio)
        zero = self.signals[angle] if zero_at is None else checks.finite("zero_at", zero_at, "rad")
        device = self._device("encoder", encoder, ("CANEncoder",))
        return self._bind(_CANEncoder(device, angle, rate, ratio, zero))

    def _device(self, parameter: str, address, kinds):
        """The simulated device at ``address`` (see :func:`parse_address`), in the robot program or over HALSim."""
        kind, device = parse_address(parameter, address, kinds)
        if self._host is not None:
            return self._host.device(kind, device)
        return _SimDeviceSim.find(self._sims, parameter, kind, device)

    def duty_cycle_encoder(self, encoder, angle: str, *, full_range: float = 1.0, offset: float = 0.0):
        """Set an absolute ``wpilib.DutyCycleEncoder`` from the angle signal ``angle`` (rad).

        It reads ``((angle + offset) / 2 pi) * full_range`` wrapped into
        ``[0, full_range)``: give the ``fullRange`` the robot code constructed it with.
        """
        sims = self._sims
        sim = encoder if isinstance(encoder, sims.DutyCycleEncoderSim) else sims.DutyCycleEncoderSim(encoder)
        self._signal("angle", angle)
        full_range = checks.positive("full_range", full_range, what="full range (the encoder's fullRange)")
        return self._bind(_DutyCycle(sim, angle, full_range, checks.finite("offset", offset, "rad")))

    def gyro(self, gyro, heading: str, *, rate: str | None = None, axis: str = "x"):
        """Set a gyro from the heading signal ``heading`` (rad, counter-clockwise).

        ``gyro``: a ``wpilib.AnalogGyro``, ``wpilib.ADXRS450_Gyro`` (or their sims), a
        navX ``AHRS``, or the name of a gyro's simulated device without its ``Gyro:``
        prefix (``"ADXRS450[0]"``, the name the HALSim protocol addresses it by; its
        ``angle_<axis>`` and ``rate_<axis>`` values are set, ``axis`` ``"x"`` for a
        single-axis gyro); each reads clockwise-positive degrees as WPILib's gyros do.
        ``rate`` (rad/s, default the ``yaw_rate`` or ``omega`` beside ``heading``)
        feeds the rate where the sim takes one.
        """
        self._signal("heading", heading)
        if rate is None:
            system = heading.partition(".")[0]
            rate = next((f"{system}.{n}" for n in ("yaw_rate", "omega") if f"{system}.{n}" in self.sim.signals),
                        None)
        if rate is not None:
            self._signal("rate", rate)
        sims = self._sims
        if isinstance(gyro, str):
            axis = checks.choice("axis", axis, ("x", "y", "z"))
            named = getattr(sims, "named_gyro", None)
            return self._bind(_Gyro(named(gyro, axis) if named else _SimDeviceGyro(sims, gyro, axis), heading, rate))
        if type(gyro).__module__.split(".")[0] == "navx":
            return self._bind(_NavX(self, gyro, heading, rate))
        for cls, sim_cls in (("AnalogGyro", "AnalogGyroSim"), ("ADXRS450_Gyro", "ADXRS450_GyroSim")):
            if isinstance(gyro, getattr(sims, sim_cls)):
                return self._bind(_Gyro(gyro, heading, rate))
            if isinstance(gyro, getattr(self._wpilib, cls)):
                return self._bind(_Gyro(getattr(sims, sim_cls)(gyro), heading, rate))
        raise ConfigTypeError("gyro", gyro, "a wpilib AnalogGyro or ADXRS450_Gyro (or its sim), a navX AHRS, or a "
                                            "gyro's simulated device name (\"ADXRS450[0]\")")

    def limit_switch(self, switch, system: str, stop: str, *, pressed_value: bool = False):
        """A ``DigitalInput`` (channel, object or ``DIOSim``) closed while ``system`` rests on a hard stop.

        ``stop`` is ``"lower"`` or ``"upper"``; the switch is closed while the
        mechanism is in that stop's mode. ``pressed_value`` is what the input reads
        when closed (False: a normally-open switch to ground on the roboRIO's
        pulled-up input, the usual wiring).
        """
        if stop not in ("lower", "upper"):
            raise ConfigError("stop", stop, "'lower' or 'upper'")
        target = self._system(system)
        limit = getattr(target, "min_position" if stop == "lower" else "max_position", math.nan)
        if not (isinstance(limit, float) and math.isfinite(limit)):
            raise ConfigError("system", system, f"a mechanism with a {stop} hard stop (its {stop}_stop mode)")
        pressed_value = checks.flag("pressed_value", pressed_value)
        sims = self._sims
        sim = switch if isinstance(switch, sims.DIOSim) else sims.DIOSim(switch)
        return self._bind(_LimitSwitch(sim, target, f"{stop}_stop", pressed_value))

    # -- battery, field, power distribution -------------------------------------------------------
    def battery(self, voltage: str | None = None):
        """Set the roboRIO's input voltage (``RoboRioSim.setVInVoltage``) from the bus, each update.

        ``voltage`` defaults to the simulated Battery's ``voltage``. Robot code then
        reads the sag (``RobotController.getBatteryVoltage()``, ``setVoltage``'s
        compensation); the roboRIO's brownout threshold is set to the Battery's.
        """
        from simcore.models import Battery

        threshold = None
        if voltage is None:
            batteries = [s for s in self.sim.systems if isinstance(s, Battery)]
            if not batteries:
                raise ConfigError("voltage", None, "a bus voltage signal (no Battery is simulated)")
            voltage, threshold = f"{batteries[0].name}.voltage", batteries[0].brownout_voltage
        self._signal("voltage", voltage)
        system, _, signal = voltage.partition(".")
        if self._system(system).units.get(signal) != "V":
            raise ConfigError("voltage", voltage, "a bus voltage signal, in V")
        roborio = self._sims.RoboRioSim
        if threshold is not None:
            roborio.setBrownoutVoltage(threshold)
        self._battery = _Battery(roborio, voltage, roborio.getBrownoutVoltage())
        return self._bind(self._battery)

    def field(self, drivetrain: str, field2d=None):
        """Show the pose of ``drivetrain`` (its ``x``, ``y``, ``heading``) on a ``wpilib.Field2d``.

        Default: the physics controller's field (robotpy's ``Field`` on
        SmartDashboard), else a new Field2d put there as ``"Field"``.
        """
        for s in ("x", "y", "heading"):
            self._signal("drivetrain", f"{drivetrain}.{s}")
        if self._host is not None:  # no Field2d beside a robot program in another process: the live view has it
            return self._host.field(self, drivetrain)
        if field2d is None:
            field2d = getattr(self.physics_controller, "field", None)
        if field2d is None:
            field2d = self._wpilib.Field2d()
            self._wpilib.SmartDashboard.putData("Field", field2d)
        self.field2d = field2d
        return self._bind(_Field(field2d, drivetrain))

    def networktables(self, prefix: str | None = None, instance=None, components=None):
        """Publish the simulated truth to NetworkTables for AdvantageScope, each update.

        Every signal as a ``double`` with its unit in the topic's properties, each
        drivetrain's pose as ``struct:Pose2d`` and ``struct:Pose3d``, a swerve's
        module states as ``struct:SwerveModuleState[]``, the arms' and elevators'
        joint poses as robot-relative ``struct:Pose3d[]`` components (placed by
        ``components``), all under ``prefix`` (default ``"/simcore"``): see
        :mod:`simcore.live_view`. ``instance`` defaults to the robot program's own
        (``NetworkTableInstance.getDefault()``).
        """
        from .live_view import DEFAULT_PREFIX, LiveView

        if instance is None and self._host is not None:
            instance = self._host.networktables_instance()
        if instance is None:
            instance = require("ntcore", "robotpy", "Physics.networktables").NetworkTableInstance.getDefault()
        view = LiveView(self.sim.systems, instance, DEFAULT_PREFIX if prefix is None else prefix, components)
        self.live_view = view
        return self._bind(_LiveView(view))

    def power_distribution(self, pd, channels: dict):
        """Put supply currents on a ``wpilib.PowerDistribution``'s channels (``{channel: "arm.supply_current"}``).

        A PDH measures each channel's current magnitude on the battery side, which
        is simcore's ``supply_current`` (duty x stator current), not the stator
        current WPILib's examples feed it.
        """
        sims = self._sims
        sim = pd if isinstance(pd, sims.PowerDistributionSim) else sims.PowerDistributionSim(pd)
        n = pd.getNumChannels() if isinstance(pd, self._wpilib.PowerDistribution) else _PDH_CHANNELS
        for ch, name in dict(channels).items():
            if isinstance(ch, bool) or not isinstance(ch, int) or not 0 <= ch < n:
                raise ConfigError("channels", ch, f"a channel number in [0, {n - 1}] (a key of channels)")
            self._signal(f"channels[{ch!r}]", name)
        return self._bind(_PowerDistribution(sim, dict(channels)))


#: Channels of a REV Power Distribution Hub (a CTRE PDP has 16), for a PowerDistributionSim given directly.
_PDH_CHANNELS = 24

#: The motor controllers a string address names, by the HALSim message type of their simulated device:
#: the value read as the duty, the brake-mode and deadband values (robot outputs), and what is written back.
#: ``CANMotor``: WPILib's protocol (``percentOutput``, ``brakeMode``, ``neutralDeadband``; ``supplyCurrent``,
#: ``motorCurrent`` (A, one motor's), ``busVoltage`` (V)). ``SimDevice`` (a vendor device by its name): REVLib's
#: SPARK MAX / SPARK Flex, ``"SPARK MAX [n]"``, which reports ``Applied Output`` and takes ``Bus Voltage``,
#: ``Motor Current``, ``Position`` (rotor rotations) and ``Velocity`` (rotor rpm), the last two times the conversion
#: factors the robot set on its ``"SPARK MAX [n] RELATIVE ENCODER"`` (whose ``Position`` and ``Velocity`` are set too).
DEVICE_MOTORS = {
    "CANMotor": {"duty": "percentOutput", "brake": "brakeMode", "deadband": "neutralDeadband"},
    "SimDevice": {"duty": "Applied Output", "brake": None, "deadband": None},
}

_SPARK = re.compile(r"SPARK (MAX|Flex) \[\d+\]")
_BY_ID = re.compile(r"(CANMotor|CANEncoder)\[(\d+)\]")
_ADDRESSES = ('"CANMotor[<CAN id>]", "CANMotor:<type>[<CAN id>]", "CANEncoder[<CAN id>]", '
              '"CANEncoder:<device name>", or a vendor device\'s name ("SPARK MAX [<CAN id>]", "SPARK Flex [<CAN id>]")')


def parse_address(parameter: str, address, kinds=("CANMotor", "SimDevice")):
    """``(message type, device)`` of a simulated device's address; ``device`` a name, or ``("[n]",)`` for "any type, id n".

    The HALSim protocol's ``type`` is the part of a simulated device's name before
    ``":"`` (``"CANMotor:Talon FX[3]"`` -> ``CANMotor``, ``Talon FX[3]``), or
    ``SimDevice`` for a name without one (a vendor's, ``"SPARK MAX [3]"``).
    """
    if not isinstance(address, str):
        raise ConfigTypeError(parameter, address, f"a simulated device's address: {_ADDRESSES}")
    by_id = _BY_ID.fullmatch(address)
    if by_id:
        kind, device = by_id.group(1), (f"[{int(by_id.group(2))}]",)
    elif ":" in address:
        kind, _, device = address.partition(":")
    else:
        kind, device = "SimDevice", address
    if kind not in kinds or not device or (kind == "SimDevice" and not _SPARK.fullmatch(address)):
        wanted = " or ".join(k for k in kinds)
        raise ConfigError(parameter, address, f"a {wanted} device's address: {_ADDRESSES}")
    return kind, device


def matches(device, name: str) -> bool:
    """Whether the protocol's device ``name`` is the one ``device`` (a name, or ``("[n]",)``: any ending so) means."""
    return name.endswith(device[0]) if isinstance(device, tuple) else name == device


def _one_motor(physics, duty: str):
    """How many motors the mechanism behind ``duty`` drives (its signals are the group's totals)."""
    system = physics._system(duty.partition(".")[0])
    drive = getattr(system, "drive", None)
    return getattr(drive, "n_motors", 1)


def _velocity_of(position: str, signals) -> str:
    system, _, name = position.partition(".")
    for old, new in (("position", "velocity"), ("angle", "velocity"), ("distance", "speed")):
        if old in name:
            candidate = f"{system}.{name.replace(old, new)}"
            if candidate in signals:
                return candidate
    raise ConfigError("rate", None, f"the rate signal of {position!r} (none found beside it: give rate=)")


def _finite(name: str, value: float, t: float) -> float:
    if not math.isfinite(value):
        raise NonFiniteError("motor controller output", name, value, t)
    return value


class _PWM(_Binding):
    def __init__(self, sim, duty, sign):
        self.sim, self.duty, self.sign = sim, duty, sign

    def read(self, physics):
        return {self.duty: _finite(self.duty, self.sign * self.sim.getSpeed(), physics.t)}


class _TalonFX(_Binding):
    """phoenix6 TalonFX: duty = the motor voltage it applies over the supply voltage it was given."""

    def __init__(self, physics, talon, duty, sign, rotor):
        self.state, self.duty, self.sign, self.rotor = talon.sim_state, duty, sign, rotor
        self.bus = duty.partition(".")[0] + ".bus_voltage"
        self.supply = physics.signals[self.bus]

    def read(self, physics):
        duty = self.state.motor_voltage / self.supply if self.supply > 0 else 0.0
        return {self.duty: _finite(self.duty, max(-1.0, min(1.0, self.sign * duty)), physics.t)}

    def write(self, physics, dt):
        s = physics.signals
        self.supply = s[self.bus]
        self.state.set_supply_voltage(self.supply)
        k = self.sign / _TWO_PI  # rotations
        self.state.set_raw_rotor_position(k * s[f"{self.rotor}_position"])
        self.state.set_rotor_velocity(k * s[f"{self.rotor}_velocity"])
        if f"{self.rotor}_acceleration" in s:
            self.state.set_rotor_acceleration(k * s[f"{self.rotor}_acceleration"])


class _Spark(_Binding):
    """REV SPARK: its SparkSim iterates with the rotor speed and bus; duty = its applied output."""

    def __init__(self, physics, spark, duty, sign, rotor):
        rev = require("rev", "vendors", "simcore.robotpy (REV SPARK)")
        wpimath_plant = require("wpimath.system.plant", "robotpy", "simcore.robotpy (REV SPARK)")
        sim_cls = rev.SparkFlexSim if isinstance(spark, rev.SparkFlex) else rev.SparkMaxSim
        # the DCMotor only shapes REV's own current estimate; the physics is simcore's
        self.sim = sim_cls(spark, wpimath_plant.DCMotor.NEO(1))
        self.encoder = self.sim.getRelativeEncoderSim()
        enc = spark.configAccessor.encoder
        self.pos_factor, self.vel_factor = enc.getPositionConversionFactor(), enc.getVelocityConversionFactor()
        self.duty, self.sign, self.rotor = duty, sign, rotor
        self.bus = duty.partition(".")[0] + ".bus_voltage"

    def _rotations(self, physics, name):
        return self.sign * physics.signals[f"{self.rotor}_{name}"] / _TWO_PI

    def read(self, physics):
        # The SPARK computes its output for the coming interval from the present speed and bus.
        rpm = self._rotations(physics, "velocity") * 60.0
        self.sim.iterate(rpm * self.vel_factor, physics.signals[self.bus], self._dt)
        return {self.duty: _finite(self.duty, self.sign * self.sim.getAppliedOutput(), physics.t)}

    _dt = 0.02

    def write(self, physics, dt):
        if dt > 0:
            self._dt = dt
        position = self._rotations(physics, "position") * self.pos_factor
        velocity = self._rotations(physics, "velocity") * 60.0 * self.vel_factor
        self.sim.setPosition(position)
        self.sim.setVelocity(velocity)
        self.encoder.setPosition(position)  # what the SPARK's relative encoder reports (single precision)
        self.encoder.setVelocity(velocity)
        self.sim.setBusVoltage(physics.signals[self.bus])


class _SimDeviceSim:
    """A simulated device in the robot program's process (``SimDeviceSim``), read and written by value name."""

    def __init__(self, sims, name):
        self._sims, self.name, self.address = sims, name, name
        self._device = sims.SimDeviceSim(name)

    @classmethod
    def find(cls, sims, parameter, kind, device):
        prefix = f"{kind}:" if kind != "SimDevice" else ""
        names = list(sims.SimDeviceSim.enumerateDevices(prefix))
        found = [n for n in names if matches(device, n[len(prefix):])]
        if len(found) != 1:
            what = "none" if not found else "several: " + ", ".join(found)
            raise ConfigError(parameter, prefix + (device[0] if isinstance(device, tuple) else device),
                              f"the address of one simulated device the robot program created ({what}; "
                              f"it has {', '.join(names) or 'none'})")
        return cls(sims, found[0])

    def related(self, suffix):
        """The device named this one's name plus ``suffix`` (a SPARK's ``" RELATIVE ENCODER"``), or None."""
        name = self.name + suffix
        return _SimDeviceSim(self._sims, name) if name in self._sims.SimDeviceSim.enumerateDevices(name) else None

    def expect(self, parameter, name):
        """Refuse a device without the value ``name`` (another vendor's keys under the same type)."""
        values = [v for v, _ in self._device.enumerateValues()]
        if name not in values:
            raise ConfigError(parameter, self.name, f"a simulated device with a {name!r} value (it has "
                                                    f"{', '.join(values) or 'none'})")

    def get(self, name, default):
        for getter in (self._device.getDouble, self._device.getBoolean):
            value = getter(name)
            if value:
                return value.get()
        return default

    def set(self, name, value):
        handle = self._device.getDouble(name)
        if handle:
            handle.set(value)


class _DeviceMotor(_Binding):
    """A motor controller by its simulated device: ``CANMotor`` (WPILib's keys) or a REV SPARK (REVLib's)."""

    def __init__(self, physics, address, duty, sign, rotor, value):
        self.device = physics._device("controller", address, tuple(DEVICE_MOTORS))
        self.kind = parse_address("controller", address, tuple(DEVICE_MOTORS))[0]
        keys = DEVICE_MOTORS[self.kind]
        self.duty_value = keys["duty"] if value is None else value
        if not isinstance(self.duty_value, str) or not self.duty_value:
            raise ConfigTypeError("value", value, "the name of the device's value to read as the duty")
        self.brake_value, self.deadband_value = keys["brake"], keys["deadband"]
        self.device.expect("controller", self.duty_value)
        self.duty, self.sign, self.rotor = duty, sign, rotor
        system, _, name = duty.partition(".")
        side = name[:-len("duty")]  # "" or "left_" ...
        self.brake = f"{system}.{side}brake" if f"{system}.{side}brake" in physics.signals else None
        self.stator, self.supply = f"{system}.{side}stator_current", f"{system}.{side}supply_current"
        self.bus = f"{system}.bus_voltage"
        self.n = _one_motor(physics, duty)
        self.encoder = self.device.related(" RELATIVE ENCODER") if self.kind == "SimDevice" else None

    def read(self, physics):
        duty = self.device.get(self.duty_value, 0.0)
        if isinstance(duty, bool) or not isinstance(duty, (int, float)):
            raise ConfigTypeError(self.duty_value, duty, "a number (the controller's output, -1 to 1)")
        if self.deadband_value is not None and abs(duty) < self.device.get(self.deadband_value, 0.0):
            duty = 0.0  # within the controller's neutral deadband: its neutral mode applies
        out = {self.duty: _finite(self.duty, self.sign * float(duty), physics.t)}
        if self.brake is not None and self.brake_value is not None:
            brake = self.device.get(self.brake_value, None)
            if brake is not None:
                out[self.brake] = 1.0 if brake else 0.0
        return out

    def write(self, physics, dt):
        s = physics.signals
        stator, supply = self.sign * s[self.stator] / self.n, self.sign * s[self.supply] / self.n
        if self.kind == "CANMotor":
            self.device.set("supplyCurrent", supply)
            self.device.set("motorCurrent", stator)
            self.device.set("busVoltage", s[self.bus])
            return
        rotations = self.sign * s[f"{self.rotor}_position"] / _TWO_PI
        rpm = self.sign * s[f"{self.rotor}_velocity"] / _TWO_PI * 60.0
        self.device.set("Bus Voltage", s[self.bus])
        self.device.set("Motor Current", stator)
        factors = self.encoder if self.encoder is not None else self.device
        position = rotations * factors.get("Position Conversion Factor", 1.0)
        velocity = rpm * factors.get("Velocity Conversion Factor", 1.0)
        for device in (self.device, self.encoder):
            if device is not None:
                device.set("Position", position)
                device.set("Velocity", velocity)


class _CANEncoder(_Binding):
    def __init__(self, device, angle, rate, ratio, zero):
        self.device, self.angle, self.rate, self.ratio, self.zero = device, angle, rate, ratio, zero

    def write(self, physics, dt):
        s = physics.signals
        self.device.set("position", self.ratio * (s[self.angle] - self.zero) / _TWO_PI)
        self.device.set("velocity", self.ratio * s[self.rate] / _TWO_PI)


class _Encoder(_Binding):
    def __init__(self, sim, distance, rate, scale, zero):
        self.sim, self.distance, self.rate, self.scale, self.zero = sim, distance, rate, scale, zero

    def write(self, physics, dt):
        s = physics.signals
        self.sim.setDistance(self.scale * (s[self.distance] - self.zero))
        self.sim.setRate(self.scale * s[self.rate])


class _DutyCycle(_Binding):
    def __init__(self, sim, angle, full_range, offset):
        self.sim, self.angle, self.full_range, self.offset = sim, angle, full_range, offset

    def write(self, physics, dt):
        turns = (physics.signals[self.angle] + self.offset) / _TWO_PI
        self.sim.set((turns * self.full_range) % self.full_range)


class _Gyro(_Binding):
    """AnalogGyroSim / ADXRS450_GyroSim: clockwise-positive degrees."""

    def __init__(self, sim, heading, rate):
        self.sim, self.heading, self.rate = sim, heading, rate

    def write(self, physics, dt):
        s = physics.signals
        self.sim.setAngle(-math.degrees(s[self.heading]))
        if self.rate is not None:
            self.sim.setRate(-math.degrees(s[self.rate]))


class _SimDeviceGyro:
    """A gyro's simulated device (``Gyro:<name>``) with the calls of WPILib's gyro sims, in degrees."""

    def __init__(self, sims, name, axis):
        device = sims.SimDeviceSim(f"Gyro:{name}")
        self.angle, self.rate = device.getDouble(f"angle_{axis}"), device.getDouble(f"rate_{axis}")
        if not self.angle:
            raise ConfigError("gyro", name, f"the name of a gyro the robot program created, whose simulated device "
                                            f"Gyro:{name} has an angle_{axis} value")

    def setAngle(self, degrees):
        self.angle.set(degrees)

    def setRate(self, degrees_per_second):
        self.rate.set(degrees_per_second)


class _NavX(_Binding):
    """navX AHRS through its SimDevice: ``Yaw`` in clockwise degrees within [-180, 180)."""

    def __init__(self, physics, ahrs, heading, rate):
        sims = physics._sims
        name = next((d for d in sims.SimDeviceSim.enumerateDevices() if d.startswith("navX-Sensor")), None)
        if name is None:
            raise ConfigError("gyro", ahrs, "a navX AHRS whose simulated device exists (navX-Sensor[...])")
        dev = sims.SimDeviceSim(name)
        self.yaw, self.rate_value = dev.getDouble("Yaw"), dev.getDouble("Rate")
        dev.getBoolean("Connected").set(True)
        self.heading, self.rate = heading, rate

    def write(self, physics, dt):
        s = physics.signals
        cw = -math.degrees(s[self.heading])
        self.yaw.set((cw + 180.0) % 360.0 - 180.0)
        if self.rate is not None:
            self.rate_value.set(-math.degrees(s[self.rate]))


class _LimitSwitch(_Binding):
    def __init__(self, sim, system, mode, pressed_value):
        self.sim, self.system, self.mode, self.pressed = sim, system, mode, pressed_value

    def write(self, physics, dt):
        closed = self.system.mode == self.mode
        self.sim.setValue(self.pressed if closed else not self.pressed)


class _Battery(_Binding):
    def __init__(self, roborio, signal, threshold):
        self.roborio, self.signal, self.threshold = roborio, signal, threshold

    def write(self, physics, dt):
        self.roborio.setVInVoltage(physics.signals[self.signal])


class _Field(_Binding):
    def __init__(self, field2d, drivetrain):
        geometry = require("wpimath.geometry", "robotpy", "simcore.robotpy.Physics.field")
        self.Pose2d, self.Rotation2d = geometry.Pose2d, geometry.Rotation2d
        self.field2d, self.names = field2d, tuple(f"{drivetrain}.{s}" for s in ("x", "y", "heading"))

    def write(self, physics, dt):
        s = physics.signals
        x, y, h = (s[n] for n in self.names)
        self.field2d.setRobotPose(self.Pose2d(x, y, self.Rotation2d(h)))


class _PowerDistribution(_Binding):
    def __init__(self, sim, channels):
        self.sim, self.channels = sim, channels

    def write(self, physics, dt):
        s = physics.signals
        for ch, name in self.channels.items():
            self.sim.setCurrent(ch, abs(s[name]))


class _LiveView(_Binding):
    def __init__(self, view):
        self.view = view

    def write(self, physics, dt):
        self.view.publish(physics.t, physics.signals)
