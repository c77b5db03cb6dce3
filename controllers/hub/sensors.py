"""Sensors that read the simulated world, with the FTC SDK's semantics.

Each sensor is configured on a hub port (``hub.digital``, ``hub.analog``,
``hub.i2c``) or is the hub's own (``hub.voltage_sensor()``), and reads the
simulation's signals through its hub. What each read costs from a Java-style op
mode follows :mod:`simcore.controllers.hub.timing`: a digital or analog read is
one round trip (or, with bulk caching MANUAL or AUTO, an answer from the hub's
bulk read, which carries every digital and analog input as the SDK's does); the
battery voltage is one round trip (never cached); an I2C read costs
``i2c_read_round_trips``.

Digital inputs (exact, ``LynxDigitalChannelController``, ``RevTouchSensor``)
    A switch wired as the REV Touch Sensor and the REV Magnetic Limit Switch are:
    *active low*, the line is pulled up and the closed switch connects it to
    ground. ``DigitalChannel.getState()`` reads the line: True while the switch
    is open, False while it is closed. ``TouchSensor.isPressed()`` is
    ``not getState()`` and ``getValue()`` 1.0 / 0.0. The REV Touch Sensor's
    button is wired to the second pin of its connector, so it must be configured
    on digital port 1, 3, 5 or 7 (the SDK sample ``SensorTouch`` says so; on an
    even port it would never read pressed): ``hub.digital`` refuses it on an
    even port. What closes the switch is its ``source``: a :class:`LimitSwitch`
    (closed while a mechanism is at or past a position: a hard stop's switch
    closes exactly when the mechanism rests on the stop) or any function
    ``f(signals) -> bool``.

Analog inputs (exact, ``AnalogInput``, ``LynxAnalogInputController``)
    ``getVoltage()`` is the hub's reading in whole millivolts, times 0.001;
    ``getMaxVoltage()`` is 3.3 V. The voltage comes from a :class:`Potentiometer`
    on a mechanism or any function ``f(signals) -> volts``.

The hub's voltage sensor (exact, ``LynxVoltageSensor``)
    ``getVoltage()`` is the hub's input voltage in whole millivolts times 0.001:
    the battery's terminal voltage, sag included, read from a battery system's
    ``voltage`` output, or else from the bus voltage its motors see.

Distance (``DistanceSensor``, ``Rev2mDistanceSensor``)
    See :class:`Rev2mDistanceSensor`.
"""
from __future__ import annotations

import enum
import math
import numbers
from typing import Callable, Mapping, Optional

from simcore import checks
from simcore.errors import ConfigError, ConfigTypeError

from .timing import robot_clock, spend_i2c_read, spend_round_trips

__all__ = ["DistanceUnit", "DistanceSensor", "Rev2mDistanceSensor", "TouchSensor", "DigitalChannel",
           "AnalogInput", "VoltageSensor", "LimitSwitch", "Potentiometer", "SimulatedDevice",
           "NUMBER_OF_DIGITAL_IOS", "NUMBER_OF_ANALOG_INPUTS", "NUMBER_OF_I2C_BUSES", "FTC_FIELD_CENTRED",
           "VL53L0X_OUT_OF_RANGE_MM"]

#: Digital pins per hub (0..7), analog inputs (0..3) and I2C buses (0..3), as LynxConstants and the REV hubs.
NUMBER_OF_DIGITAL_IOS = 8
NUMBER_OF_ANALOG_INPUTS = 4
NUMBER_OF_I2C_BUSES = 4
#: The FTC field's perimeter (12 ft x 12 ft, 3.6576 m) centred on the origin, as the FTC field coordinates
#: are: ``(x_min, y_min, x_max, y_max)``, m.
FTC_FIELD_CENTRED = (-1.8288, -1.8288, 1.8288, 1.8288)
#: What the VL53L0X reports with no target in range, mm (Pololu's VL53L0X library, of which the SDK's driver
#: is a port, returns the chip's 8190; pololu/vl53l0x-arduino issue 28).
VL53L0X_OUT_OF_RANGE_MM = 8190


def _port(parameter: str, port, count: int, what: str) -> int:
    if isinstance(port, bool) or not isinstance(port, numbers.Integral) or not 0 <= port < count:
        raise ConfigError(parameter, port, f"a {what} 0..{count - 1}")
    return int(port)


class DistanceUnit(enum.Enum):
    """``DistanceUnit``: METER, CM, MM, INCH, with the SDK's conversions (25.4 mm per inch)."""

    METER = 0
    CM = 1
    MM = 2
    INCH = 3

    def fromMeters(self, meters: float) -> float:
        if meters == DistanceUnit.infinity:
            return DistanceUnit.infinity
        return {DistanceUnit.METER: meters, DistanceUnit.CM: meters * 100, DistanceUnit.MM: meters * 1000,
                DistanceUnit.INCH: meters / DistanceUnit.mPerInch}[self]

    def fromInches(self, inches: float) -> float:
        if inches == DistanceUnit.infinity:
            return DistanceUnit.infinity
        m = DistanceUnit.mPerInch
        return {DistanceUnit.METER: inches * m, DistanceUnit.CM: inches * m * 100, DistanceUnit.MM: inches * m * 1000,
                DistanceUnit.INCH: inches}[self]

    def fromCm(self, cm: float) -> float:
        if cm == DistanceUnit.infinity:
            return DistanceUnit.infinity
        if self is DistanceUnit.INCH:
            return self.fromMeters(DistanceUnit.METER.fromCm(cm))
        return {DistanceUnit.METER: cm / 100, DistanceUnit.CM: cm, DistanceUnit.MM: cm * 10}[self]

    def fromMm(self, mm: float) -> float:
        if mm == DistanceUnit.infinity:
            return DistanceUnit.infinity
        if self is DistanceUnit.INCH:
            return self.fromMeters(DistanceUnit.METER.fromMm(mm))
        return {DistanceUnit.METER: mm / 1000, DistanceUnit.CM: mm / 10, DistanceUnit.MM: mm}[self]

    def fromUnit(self, him: "DistanceUnit", his: float) -> float:
        return {DistanceUnit.METER: self.fromMeters, DistanceUnit.CM: self.fromCm, DistanceUnit.MM: self.fromMm,
                DistanceUnit.INCH: self.fromInches}[him](his)

    def toMeters(self, in_our_units: float) -> float:
        return DistanceUnit.METER.fromUnit(self, in_our_units)

    def toInches(self, in_our_units: float) -> float:
        return DistanceUnit.INCH.fromUnit(self, in_our_units)

    def toCm(self, in_our_units: float) -> float:
        return DistanceUnit.CM.fromUnit(self, in_our_units)

    def toMm(self, in_our_units: float) -> float:
        return DistanceUnit.MM.fromUnit(self, in_our_units)

    def toString(self, in_our_units: float) -> str:
        """The SDK's text: ``%.3fm``, ``%.1fcm``, ``%.0fmm``, ``%.2fin``."""
        fmt = {DistanceUnit.METER: "%.3fm", DistanceUnit.CM: "%.1fcm", DistanceUnit.MM: "%.0fmm",
               DistanceUnit.INCH: "%.2fin"}[self]
        return fmt % in_our_units

    def __str__(self):
        return {DistanceUnit.METER: "m", DistanceUnit.CM: "cm", DistanceUnit.MM: "mm", DistanceUnit.INCH: "in"}[self]


#: ``DistanceUnit.infinity`` (Java's Double.MAX_VALUE) and the SDK's inch.
DistanceUnit.infinity = 1.7976931348623157e308
DistanceUnit.mmPerInch = 25.4
DistanceUnit.mPerInch = 25.4 * 0.001


class SimulatedDevice:
    """A base for devices that read the simulation (and the protocol a user-written device follows).

    A configured device (``run_opmode(configuration={name: device})``) is handed the
    simulation's live signals at every op mode tick through :meth:`observe`, and asked to
    hold them weakly (:meth:`hold_signals_weakly`) so a finished run is not kept alive;
    ``getDeviceName()`` names it. Read a signal with :meth:`read_signal`, which charges the
    read to the op mode (``round_trips`` hub round trips) as a hub read would. A
    subclass adds the SDK methods its robot code calls; ``hardwareMap.get(MyDevice,
    name)`` returns it. See :class:`simcore.protocols.HardwareDevice`.
    """

    #: The device's name in error messages and ``getDeviceName()``.
    device_name = "simulated device"

    def __init__(self):
        self.signals: Optional[Mapping[str, float]] = None
        self._weak_signals = False

    def getDeviceName(self) -> str:
        return self.device_name

    def observe(self, signals: Mapping[str, float]) -> None:
        """Take the simulation's live signals (called at every op mode tick)."""
        from .motor import held_signals

        self.signals = held_signals(signals, self._weak_signals, self.signals)

    def hold_signals_weakly(self) -> None:
        """Keep the signals through a weak view from now on."""
        from .motor import held_signals

        self._weak_signals = True
        self.signals = held_signals(self.signals, True)

    def read_signal(self, key: str, round_trips: int = 1) -> float:
        """The signal ``key`` (``"<system>.<signal>"``) now, charged as ``round_trips`` hub reads."""
        signals = self._live_signals()
        try:
            value = float(signals[key])
        except KeyError:
            raise ConfigError(f"{type(self).__name__} signal", key, "a signal of the simulation "
                                                                   "('<system>.<signal>')") from None
        spend_round_trips(round_trips)
        return value

    def _live_signals(self) -> Mapping[str, float]:
        if self.signals is None:
            raise RuntimeError(f"{type(self).__name__} {self.getDeviceName()!r} has no signals yet: configure it "
                               "(run_opmode's configuration, or a hub port) so that it sees the simulation")
        return self.signals

    def resetDeviceConfigurationForOpMode(self) -> None:
        """Nothing to reset."""

    def close(self) -> None:
        """Nothing to close."""


class _HubDevice(SimulatedDevice):
    """A device on a hub port: it reads through its hub's signals (the hub is observed by the run)."""

    def __init__(self):
        super().__init__()
        self._hub = None
        self._port = None

    def _attach(self, hub, port: int) -> None:
        if self._hub is not None:
            raise ConfigError("device", self, f"a device not already configured (it is on {self._hub.name!r} "
                                              f"port {self._port})")
        self._hub, self._port = hub, port

    def _live_signals(self) -> Mapping[str, float]:
        if self._hub is None:
            raise RuntimeError(f"{type(self).__name__} is not configured on a hub (hub.digital, hub.analog, hub.i2c)")
        signals = self._hub.signals if self._hub.signals is not None else self.signals
        if signals is None:
            raise RuntimeError(f"{type(self).__name__} on {self._hub.name!r} has no signals yet: give its hub to "
                               "the op mode (run_opmode's hubs) so that it sees the simulation")
        return signals

    def getConnectionInfo(self) -> str:
        return f"{self._hub.name if self._hub else '?'}; port {self._port}"

    def getPortNumber(self) -> int:
        return self._port

    def getVersion(self) -> int:
        return 1


# -- digital ----------------------------------------------------------------------------------------------------
class LimitSwitch:
    """A switch closed while ``mechanism``'s position is at or beyond ``position``.

    Parameters
    ----------
    mechanism : simcore.System
        A mechanism whose first state is its position (``angle`` rad, ``position`` m).
    position : float or Quantity
        Where the switch closes, in the mechanism's unit (its stop: ``mechanism.max_position``).
    closes_above : bool
        True: closed at ``position`` and above; False: at ``position`` and below.
    signal : str, optional
        The signal to compare, default the mechanism's first state.
    """

    def __init__(self, mechanism, position, *, closes_above: bool = True, signal: Optional[str] = None):
        name = getattr(mechanism, "name", None)
        states = tuple(getattr(mechanism, "state_names", ()) or ())
        if not isinstance(name, str) or not (states or signal):
            raise ConfigError("mechanism", mechanism, "a simcore System with a position state")
        self.key = f"{name}.{signal or states[0]}"
        self.position = checks.finite("position", position)
        self.closes_above = checks.flag("closes_above", closes_above)

    def __call__(self, signals: Mapping[str, float]) -> bool:
        q = float(signals[self.key])
        return q >= self.position if self.closes_above else q <= self.position

    def __repr__(self):
        return f"LimitSwitch({self.key!r} {'>=' if self.closes_above else '<='} {self.position!r})"


class BumperSwitch:
    """A switch on a drivetrain's bumper, closed while the bumper presses on a field wall.

    The drivetrain's output ``wall_force`` (N, the walls' total push on the bumper; the chassis model's wall
    contacts, located as events) is positive exactly while a bumper corner rests on a wall; the switch reads it,
    for a :class:`TouchSensor` or :class:`DigitalChannel` on ``hub.digital(port, BumperSwitch(drive))``.

    Parameters
    ----------
    drivetrain : simcore.System
        A drivetrain with field walls (its ``field``; an FTC drivetrain has the FTC field's by default).
    """

    def __init__(self, drivetrain):
        name = getattr(drivetrain, "name", None)
        if not isinstance(name, str) or "wall_force" not in tuple(getattr(drivetrain, "output_names", ()) or ()):
            raise ConfigError("drivetrain", drivetrain, "a drivetrain with field walls (its output wall_force)")
        self.key = f"{name}.wall_force"

    def __call__(self, signals: Mapping[str, float]) -> bool:
        return float(signals[self.key]) > 0.0

    def __repr__(self):
        return f"BumperSwitch({self.key!r} > 0)"


class DigitalChannel(_HubDevice):
    """``DigitalChannel`` on a hub's digital pin (see the module docstring): active-low input by default."""

    class Mode(enum.Enum):
        """``DigitalChannel.Mode``."""

        INPUT = "INPUT"
        OUTPUT = "OUTPUT"

    device_name = "Digital Device"

    def __init__(self, source: Callable[[Mapping[str, float]], bool]):
        super().__init__()
        if not callable(source):
            raise ConfigTypeError("source", source, "a LimitSwitch or a function f(signals) -> closed (bool)")
        self.source = source
        self._mode = DigitalChannel.Mode.INPUT
        self._output_state = False

    def line_level(self) -> bool:
        """The pin's level now: high (True) while the switch is open (pull-up), low while closed."""
        return not bool(self.source(self._live_signals()))

    def _read_level(self) -> bool:
        data = self._hub._cached(("digital", self._port))
        if data is not None:
            return data.getDigitalChannelState(self._port)
        level = self.line_level()
        spend_round_trips(1)
        return level

    def getMode(self) -> "DigitalChannel.Mode":
        return self._mode

    def setMode(self, mode: "DigitalChannel.Mode") -> None:
        if not isinstance(mode, DigitalChannel.Mode):
            raise TypeError(f"mode={mode!r}: expected a DigitalChannel.Mode")
        self._mode = mode

    def getState(self) -> bool:
        """The line: True high, False low (the switch closed); in OUTPUT mode the state last set."""
        if self._mode is DigitalChannel.Mode.OUTPUT:
            return self._output_state
        return self._read_level()

    def setState(self, state: bool) -> None:
        """Drive the pin (OUTPUT mode only; ignored in INPUT mode, as the SDK does)."""
        if self._mode is DigitalChannel.Mode.OUTPUT:
            self._output_state = bool(state)

    def resetDeviceConfigurationForOpMode(self) -> None:
        self._mode = DigitalChannel.Mode.INPUT

    def __repr__(self):
        return f"DigitalChannel({self.getConnectionInfo()}, {self.source!r})"


class TouchSensor(DigitalChannel):
    """``TouchSensor`` (``RevTouchSensor``): ``isPressed() = not getState()`` on an odd digital port."""

    device_name = "REV Touch Sensor"

    def isPressed(self) -> bool:
        """Whether the switch is closed (the line is low)."""
        return not self._read_level()

    def getValue(self) -> float:
        """1.0 pressed, 0.0 not."""
        return 1.0 if self.isPressed() else 0.0

    def __repr__(self):
        return f"TouchSensor({self.getConnectionInfo()}, {self.source!r})"


def configure_digital(hub, port, source, device):
    port = _port("port", port, NUMBER_OF_DIGITAL_IOS, "digital port")
    if port in hub._digital:
        raise ConfigError("port", port, f"a digital port not already configured on hub {hub.name!r}")
    if device not in (TouchSensor, DigitalChannel):
        raise ConfigTypeError("device", device, "TouchSensor or DigitalChannel")
    if device is TouchSensor and port % 2 == 0:
        raise ConfigError("port", port, "an odd digital port (1, 3, 5, 7) for a REV Touch Sensor: its button is on "
                                        "the connector's second pin, which the odd port reads")
    d = device(source)
    d._attach(hub, port)
    hub._digital[port] = d
    return d


# -- analog ----------------------------------------------------------------------------------------------------
class Potentiometer:
    """A potentiometer on a mechanism's shaft: ``max_voltage`` over ``travel`` from ``zero_angle``.

    APPROXIMATION: linear in the angle and clamped at its ends; the REV Potentiometer turns 270
    degrees (REV-31-1155), the hub's analog input reads 0-3.3 V. ``volts = max_voltage *
    clamp((angle - zero_angle) / travel, 0, 1)``.

    Parameters
    ----------
    mechanism : simcore.System
        A mechanism whose first state is its angle (rad).
    travel : float or Quantity
        Rotation over the full voltage, rad (default 270 degrees).
    zero_angle : float or Quantity
        The mechanism's angle at 0 V, rad.
    max_voltage : float
        Volts at the end of travel (default 3.3).
    """

    def __init__(self, mechanism, *, travel=math.radians(270.0), zero_angle=0.0, max_voltage=3.3):
        name = getattr(mechanism, "name", None)
        states = tuple(getattr(mechanism, "state_names", ()) or ())
        if not isinstance(name, str) or not states:
            raise ConfigError("mechanism", mechanism, "a simcore System with an angle state")
        self.key = f"{name}.{states[0]}"
        self.travel = checks.positive("travel", travel, "rad")
        self.zero_angle = checks.finite("zero_angle", zero_angle, "rad")
        self.max_voltage = checks.positive("max_voltage", max_voltage, "V")

    def __call__(self, signals: Mapping[str, float]) -> float:
        fraction = (float(signals[self.key]) - self.zero_angle) / self.travel
        return self.max_voltage * min(max(fraction, 0.0), 1.0)


class AnalogInput(_HubDevice):
    """``AnalogInput`` on a hub's analog port (see the module docstring)."""

    device_name = "Analog Input"
    #: ``LynxAnalogInputController.getMaxAnalogInputVoltage()``, V.
    MAX_VOLTAGE = 3.3

    def __init__(self, source: Callable[[Mapping[str, float]], float]):
        super().__init__()
        if not callable(source):
            raise ConfigTypeError("source", source, "a Potentiometer or a function f(signals) -> volts")
        self.source = source

    def millivolts(self) -> int:
        """The hub's reading now, whole mV, within 0..3300 (the input's range)."""
        volts = float(self.source(self._live_signals()))
        if not math.isfinite(volts):
            raise ConfigError(f"analog port {self._port} source", volts, "a finite voltage")
        return int(round(min(max(volts, 0.0), self.MAX_VOLTAGE) * 1000.0))

    def getVoltage(self) -> float:
        """The input's voltage, V (whole millivolts)."""
        data = self._hub._cached(("analog", self._port))
        if data is not None:
            return data.getAnalogInputVoltage(self._port)
        mv = self.millivolts()
        spend_round_trips(1)
        return mv * 0.001

    def getMaxVoltage(self) -> float:
        """3.3 V."""
        return self.MAX_VOLTAGE

    def __repr__(self):
        return f"AnalogInput({self.getConnectionInfo()})"


def configure_analog(hub, port, source):
    port = _port("port", port, NUMBER_OF_ANALOG_INPUTS, "analog port")
    if port in hub._analog:
        raise ConfigError("port", port, f"an analog port not already configured on hub {hub.name!r}")
    d = AnalogInput(source)
    d._attach(hub, port)
    hub._analog[port] = d
    return d


# -- the hub's voltage sensor -------------------------------------------------------------------------------------
class VoltageSensor(_HubDevice):
    """``VoltageSensor`` (``LynxVoltageSensor``): the hub's input voltage (see the module docstring)."""

    device_name = "REV Hub Voltage Sensor"

    def __init__(self, hub, source=None):
        super().__init__()
        self._attach(hub, None)
        if source is None or isinstance(source, str):
            self._key = source
        else:
            name = getattr(source, "name", None)
            if not isinstance(name, str) or "voltage" not in tuple(getattr(source, "output_names", ()) or ()):
                raise ConfigError("source", source, "None (the motors' bus), a battery system with a 'voltage' "
                                                    "output, or a signal name")
            self._key = f"{name}.voltage"

    def _voltage_key(self) -> str:
        if self._key is not None:
            return self._key
        for port in sorted(self._hub._motors):
            return self._hub._motors[port]._channel.keys["supply_voltage"]
        raise ConfigError("voltage sensor", self._hub.name, "a hub with a motor configured (its bus voltage is "
                                                            "read) or hub.voltage_sensor(battery)")

    def getVoltage(self) -> float:
        """The hub's input voltage, V (whole millivolts); a read (one round trip, never bulk-cached)."""
        mv = int(round(float(self._live_signals()[self._voltage_key()]) * 1000.0))
        spend_round_trips(1)
        return mv * 0.001

    def getConnectionInfo(self) -> str:
        return self._hub.name

    def __repr__(self):
        return f"VoltageSensor({self._hub.name!r})"


# -- distance ---------------------------------------------------------------------------------------------------
class DistanceSensor(_HubDevice):
    """``DistanceSensor``: ``getDistance(DistanceUnit)``; ``distanceOutOfRange`` is ``DistanceUnit.infinity``."""

    distanceOutOfRange = DistanceUnit.infinity

    def getDistance(self, unit: DistanceUnit) -> float:
        raise NotImplementedError


class Rev2mDistanceSensor(DistanceSensor):
    """The REV 2m Distance Sensor (VL53L0X time of flight) on a drivetrain, ranging to the field walls.

    The range is the distance from the sensor's mounting point, along its facing, to the
    first wall of the field perimeter it meets (the walls are the field's rectangle:
    :data:`FTC_FIELD_CENTRED` by default, or the drivetrain's own ``field`` when it has
    walls); game elements and other robots are not seen.

    Exact (the SDK's ``VL53L0X`` driver): ``getDistance`` reads whole millimetres and
    divides them by 10 (CM), 1000 (METER) or 25.4 (INCH); with no target in range the
    chip's value, :data:`VL53L0X_OUT_OF_RANGE_MM` (8190 mm), comes through (not
    ``distanceOutOfRange``); ``getModelID()`` is the chip's 0xEE; a read polls the chip
    until a new measurement is ready, then reads it.

    APPROXIMATIONS: ``max_range`` = 2.0 m, REV's figure for a white target indoors
    (docs.revrobotics.com, "2m Distance Sensor": 200 cm with the long-range profile,
    120 cm with the default one; the walls are white polycarbonate in a frame); the
    chip measures back to back every ``measurement_period`` = 0.033 s (ST's default
    timing budget, which the SDK's driver keeps), the first at the simulation's
    start; the value is the geometry when the read that finds it ready is issued
    (the chip integrates over its budget); a perfect range (no noise, no offset, no
    25 degree cone: a ray).

    Parameters
    ----------
    drivetrain : simcore.System
        A system with pose signals ``x``, ``y`` (m) and ``heading`` (rad).
    x, y : float or Quantity
        Mounting point in the robot frame (x forward, y left from the centre), m.
    heading : float or Quantity
        Direction the sensor faces in the robot frame, rad (0 forward, pi/2 left).
    field : field, optional
        ``(x_min, y_min, x_max, y_max)`` or ``(length, width)``, m.
    max_range : float
        Metres.
    measurement_period : float
        Seconds.
    """

    device_name = "REV 2M ToF Distance Sensor"
    #: ``IDENTIFICATION_MODEL_ID`` register value (0xEE; Java's byte reads -18 and prints as ``ee``).
    MODEL_ID = 0xEE

    def __init__(self, drivetrain, *, x=0.0, y=0.0, heading=0.0, field=None, max_range=2.0,
                 measurement_period=0.033):
        super().__init__()
        from simcore.field import field_bounds

        name = getattr(drivetrain, "name", None)
        signals = set(getattr(drivetrain, "state_names", ()) or ()) | set(getattr(drivetrain, "output_names", ()) or ())
        if not isinstance(name, str) or not {"x", "y", "heading"} <= signals:
            raise ConfigError("drivetrain", drivetrain, "a simcore drivetrain with pose signals x, y, heading")
        self.drivetrain_name = name
        self.mount = (checks.finite("x", x, "m"), checks.finite("y", y, "m"), checks.angle("heading", heading))
        if field is None:
            field = getattr(drivetrain, "field", None) or FTC_FIELD_CENTRED
        self.field = field_bounds("field", field)
        self.max_range = checks.positive("max_range", max_range, "m")
        self.measurement_period = checks.positive("measurement_period", measurement_period, "s")
        self._period_ns = max(1, round(self.measurement_period * 1e9))
        self._consumed = 0  # the last measurement read (0: the one at the start, eaten by the driver's init)

    def _attach(self, hub, port):
        super()._attach(hub, port)
        self._consumed = 0

    # -- geometry -------------------------------------------------------------------------------------------
    def range_to_wall(self, x: float, y: float, heading: float) -> float:
        """Distance from the sensor, with the robot at pose (x, y, heading), to the first wall ahead of it, m
        (inf when the sensor is outside the field or faces away from every wall)."""
        mx, my, mh = self.mount
        c, s = math.cos(heading), math.sin(heading)
        px, py = x + c * mx - s * my, y + s * mx + c * my
        dx, dy = math.cos(heading + mh), math.sin(heading + mh)
        x0, y0, x1, y1 = self.field
        if not (x0 <= px <= x1 and y0 <= py <= y1):
            return math.inf
        t = math.inf
        if dx > 0:
            t = min(t, (x1 - px) / dx)
        elif dx < 0:
            t = min(t, (x0 - px) / dx)
        if dy > 0:
            t = min(t, (y1 - py) / dy)
        elif dy < 0:
            t = min(t, (y0 - py) / dy)
        return t

    def millimetres(self) -> int:
        """What the chip measures now, whole mm (8190 beyond ``max_range``)."""
        signals = self._live_signals()
        d = self.drivetrain_name
        r = self.range_to_wall(float(signals[f"{d}.x"]), float(signals[f"{d}.y"]), float(signals[f"{d}.heading"]))
        return int(round(r * 1000.0)) if r <= self.max_range else VL53L0X_OUT_OF_RANGE_MM

    def _read_range_mm(self) -> int:
        """``readRangeContinuousMillimeters``: poll until a measurement is ready (one I2C read a poll), read it."""
        clock = robot_clock()
        if clock is not None:
            while clock.now_ns // self._period_ns <= self._consumed:
                before = clock.now_ns
                spend_i2c_read()  # the interrupt-status poll
                if clock.now_ns == before:  # a clock on which reads take no time (generator-style op modes)
                    break
            self._consumed = clock.now_ns // self._period_ns
        mm = self.millimetres()
        spend_i2c_read()  # the range registers
        return mm

    # -- the SDK -----------------------------------------------------------------------------------------------
    def getDistance(self, unit: DistanceUnit) -> float:
        """The range in ``unit`` (mm read whole, divided as the SDK's driver does)."""
        if not isinstance(unit, DistanceUnit):
            raise TypeError(f"unit={unit!r}: expected a DistanceUnit")
        r = float(self._read_range_mm())
        if unit is DistanceUnit.CM:
            return r / 10
        if unit is DistanceUnit.METER:
            return r / 1000
        if unit is DistanceUnit.INCH:
            return r / 25.4
        return r

    def getModelID(self) -> int:
        """The chip's model ID register, 0xEE (an I2C read)."""
        spend_i2c_read()
        return self.MODEL_ID

    def didTimeoutOccur(self) -> bool:
        """False: the simulated chip always answers."""
        return False

    def getConnectionInfo(self) -> str:
        return f"{self._hub.name if self._hub else '?'}; I2C bus {self._port}"

    def __repr__(self):
        return f"Rev2mDistanceSensor(on {self.drivetrain_name!r} at {self.mount}, {self.getConnectionInfo()})"


def configure_i2c(hub, bus, device):
    bus = _port("bus", bus, NUMBER_OF_I2C_BUSES, "I2C bus")
    if not isinstance(device, _HubDevice):
        raise ConfigTypeError("device", device, "an I2C device for the hub (a Rev2mDistanceSensor(...))")
    device._attach(hub, bus)
    hub._i2c.setdefault(bus, []).append(device)
    return device


def refuse_after_the_run(cls) -> None:
    """Make ``cls``'s SDK methods raise OpModeEndedError once its hub's Java-style op mode run has ended (as a
    motor's do: a read would be stale, a write would go nowhere)."""
    import functools

    from .motor import OpModeEndedError

    def refuse(method):
        @functools.wraps(method)
        def checked(self, *args, **kwargs):
            hub = self._hub
            if hub is not None and hub.ended_run is not None:
                raise OpModeEndedError(
                    f"{type(self).__name__}.{method.__name__} on {hub.name!r} port {self._port}: {hub.ended_run}, "
                    "so the hub no longer answers (a read would be stale, a write would go nowhere). Read the "
                    "run's results from its Result, or run the op mode again.")
            return method(self, *args, **kwargs)
        return checked

    for name in [n for n in vars(cls) if n[:1].islower() and callable(vars(cls)[n]) and n not in _IDENTITY]:
        setattr(cls, name, refuse(vars(cls)[name]))


#: What a device is (configuration, not the hub's state): still answered after the run.
_IDENTITY = {"getController", "getPortNumber", "getDeviceName", "getConnectionInfo", "getVersion", "close",
             "observe", "hold_signals_weakly", "line_level", "millivolts", "millimetres", "range_to_wall",
             "read_signal", "resetDeviceConfigurationForOpMode"}
for _cls in (DigitalChannel, TouchSensor, AnalogInput, VoltageSensor, Rev2mDistanceSensor,):
    refuse_after_the_run(_cls)
del _cls
