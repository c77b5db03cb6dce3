"""The hub's servo ports: ``Servo``, ``ServoImplEx`` and ``CRServo`` with the FTC SDK's semantics.

A hub has six servo ports (0..5, ``LynxConstants.NUMBER_OF_SERVO_CHANNELS``).
``hub.servo(port, mechanism)`` binds one to a
:class:`~simcore.models.servo.ServoMechanism` and returns the robot code's handle:
a :class:`ServoImplEx` (a ``Servo``) for a position servo, a :class:`CRServoImplEx`
(a ``CRServo``, which is a ``DcMotorSimple``) for one set to continuous rotation.

Exact (the SDK side, read off ``ServoImpl``, ``ServoImplEx``, ``CRServoImpl``,
``PwmControl`` and ``LynxServoController``):

* ``setPosition(p)``: ``p`` clipped to [0, 1]; REVERSE maps it to ``1 - p``; then
  scaled from [0, 1] to the ``scaleRange`` limits; the hub is sent the pulse
  ``(int)`` of that position scaled onto the port's PWM range (default
  :data:`DEFAULT_PWM_RANGE`, 600-2400 µs in a 20000 µs frame), clipped to
  [1, 65535] µs, and then the port's PWM is enabled.
* ``getPosition()`` returns the position *last commanded* (through the same
  scalings backwards, clipped to [0, 1]), not where the shaft is. When the SDK has
  none (before the first ``setPosition``, or after the PWM was disabled, which
  forgets it) it reads the pulse width back from the hub: a read (one round trip).
* ``CRServo.setPower(p)``: REVERSE negates ``p``, clipped to [-1, 1], mapped to a
  position ``(p + 1) / 2`` and sent as above; ``getPower`` maps the last position back.
* ``setPwmRange`` changes the mapping of the *next* position sent (the hub is sent
  only the frame); ``setPwmDisable`` stops the pulses (the servo goes limp);
  ``setPwmEnable`` starts them again with the last pulse.
* A port is disabled at the start of an op mode (``LynxServoController``'s
  initialisation) until its first ``setPosition``; when an op mode ends, the
  SDK's fail-safe disables every servo port (:meth:`Hub.failSafe`).
* An illegal port, range or position raises IllegalArgumentException with the SDK's message.

Not modelled, by design: the SDK's ``LastKnown`` cache of the commanded position
(every ``setPosition`` is sent, as the motors' module does with powers).

Timing: a write reaches the hub's registers at once and the servo at the
firmware's next pass (the same APPROXIMATION of command latency as the motors;
the hub sends a pulse every ``usFrame``). Only the pulse-width read back costs
a round trip (:mod:`simcore.controllers.hub.timing`).
"""
from __future__ import annotations

import enum
import numbers
from typing import Optional

from simcore.errors import ConfigError, ConfigTypeError

from .sdk import DcMotorSimple, Direction, IllegalArgumentException
from .sensors import refuse_after_the_run
from .timing import spend_round_trips

__all__ = ["Servo", "ServoImplEx", "CRServo", "CRServoImplEx", "PwmControl", "DEFAULT_PWM_RANGE",
           "NUMBER_OF_SERVOS", "ServoChannel"]

#: Servo ports per hub (0..5), as LynxConstants.
NUMBER_OF_SERVOS = 6
_PULSE_FIRST, _PULSE_LAST = 1, 65535  # LynxSetServoPulseWidthCommand's accepted range, µs


def _number(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ConfigTypeError(name, value, "a number")
    return float(value)


def _clip(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else hi if x > hi else x


def _scale(x: float, x0: float, x1: float, y0: float, y1: float) -> float:
    """The SDK's ``Range.scale``: ``x`` mapped linearly from [x0, x1] onto [y0, y1]."""
    return y0 + (x - x0) * (y1 - y0) / (x1 - x0)


class PwmControl:
    """``PwmControl``: namespace of :class:`PwmControl.PwmRange`."""

    class PwmRange:
        """``PwmControl.PwmRange(usPulseLower, usPulseUpper[, usFrame])``: pulse widths and frame, µs."""

        usFrameDefault = 20000.0
        usPulseUpperDefault = 2400.0
        usPulseLowerDefault = 600.0

        def __init__(self, usPulseLower, usPulseUpper, usFrame=20000.0):
            self.usPulseLower = _number("usPulseLower", usPulseLower)
            self.usPulseUpper = _number("usPulseUpper", usPulseUpper)
            self.usFrame = _number("usFrame", usFrame)

        def __eq__(self, other):
            return (isinstance(other, PwmControl.PwmRange) and self.usPulseLower == other.usPulseLower
                    and self.usPulseUpper == other.usPulseUpper and self.usFrame == other.usFrame)

        def __hash__(self):
            return hash((self.usPulseLower, self.usPulseUpper, self.usFrame))

        def __repr__(self):
            return f"PwmRange({self.usPulseLower!r}, {self.usPulseUpper!r}, {self.usFrame!r})"


#: ``PwmControl.PwmRange.defaultRange``: 600-2400 µs, 20000 µs frame.
DEFAULT_PWM_RANGE = PwmControl.PwmRange(600.0, 2400.0)
PwmControl.PwmRange.defaultRange = DEFAULT_PWM_RANGE


class ServoChannel:
    """One servo port's registers on the hub (the ``LynxServoController`` side). Internal."""

    def __init__(self, hub, port: int, mechanism_name: str):
        self.hub, self.port = hub, port
        self.pulse_key = f"{mechanism_name}.pulse_width"
        self.enabled_key = f"{mechanism_name}.pwm_enabled"
        self.pwm_range = DEFAULT_PWM_RANGE
        self.pulse = 0  # the hub's pulse-width register, µs
        self.enabled = False  # initializeHardware: pwmDisable
        self.last_position: Optional[float] = None  # the SDK's last known commanded position

    def set_position(self, position: float) -> None:
        """``LynxServoController.setServoPosition``: validate, send the pulse, enable."""
        if not 0.0 <= position <= 1.0:
            raise IllegalArgumentException(f"illegal servo position {position:f}; must be in interval "
                                           f"[{0.0:f},{1.0:f}]")
        self.last_position = position
        pwm = _scale(position, 0.0, 1.0, self.pwm_range.usPulseLower, self.pwm_range.usPulseUpper)
        self.pulse = int(_clip(pwm, _PULSE_FIRST, _PULSE_LAST))
        self.set_enabled(True)

    def get_position(self) -> float:
        """``getServoPosition``: the last known commanded position, or the pulse read back (a round trip)."""
        if self.last_position is not None:
            return self.last_position
        spend_round_trips(1)
        r = self.pwm_range
        result = _clip(_scale(self.pulse, r.usPulseLower, r.usPulseUpper, 0.0, 1.0), 0.0, 1.0)
        self.last_position = result
        return result

    def set_enabled(self, enabled: bool) -> None:
        """``internalSetPwmEnable``: disabling forgets the commanded position."""
        if not enabled:
            self.last_position = None
        self.enabled = enabled

    def set_range(self, pwm_range: "PwmControl.PwmRange") -> None:
        if not isinstance(pwm_range, PwmControl.PwmRange):
            raise ConfigTypeError("range", pwm_range, "a PwmControl.PwmRange")
        self.pwm_range = pwm_range

    def outputs(self) -> dict:
        """What the port drives now: the servo mechanism's inputs."""
        return {self.pulse_key: float(self.pulse), self.enabled_key: 1.0 if self.enabled else 0.0}


class _ServoPort:
    """What ``Servo`` and ``CRServo`` share: the port, the controller, PwmControl (``ServoImplEx``)."""

    def __init__(self, hub, port: int, channel: ServoChannel, mechanism_name: str):
        self._hub, self._port, self._channel = hub, port, channel
        self.mechanism_name = mechanism_name

    def getController(self):
        """The hub."""
        return self._hub

    def getPortNumber(self) -> int:
        """The servo port, 0..5."""
        return self._port

    def getConnectionInfo(self) -> str:
        """Where the servo is."""
        return f"{self._hub.name}; port {self._port}"

    def getVersion(self) -> int:
        return 1

    def close(self) -> None:
        """Nothing to close."""

    # -- PwmControl (ServoImplEx, CRServoImplEx) ----------------------------------------------------
    def setPwmRange(self, range: "PwmControl.PwmRange") -> None:  # noqa: A002 -- the SDK's parameter name
        """The pulse range positions map onto from the next ``setPosition`` on."""
        self._channel.set_range(range)

    def getPwmRange(self) -> "PwmControl.PwmRange":
        """The port's pulse range."""
        return self._channel.pwm_range

    def setPwmEnable(self) -> None:
        """Start sending pulses (the last pulse width)."""
        self._channel.set_enabled(True)

    def setPwmDisable(self) -> None:
        """Stop the pulses: the servo goes limp; the commanded position is forgotten."""
        self._channel.set_enabled(False)

    def isPwmEnabled(self) -> bool:
        """Whether the port sends pulses (the SDK's cached state: no read)."""
        return self._channel.enabled

    # The SDK's hub-side hooks, for a Java-style op mode's start and end.
    def observe(self, signals) -> None:
        """Nothing: the servo's hub holds the signals."""

    def hold_signals_weakly(self) -> None:
        """Nothing: the servo holds no signals."""


class Servo(_ServoPort):
    """The SDK's ``Servo`` (``ServoImpl``): a position servo on a hub port (see the module docstring)."""

    MIN_POSITION = 0.0
    MAX_POSITION = 1.0

    class Direction(enum.Enum):
        """``Servo.Direction``."""

        FORWARD = "FORWARD"
        REVERSE = "REVERSE"

        def __str__(self):
            return self.name

    def __init__(self, hub, port: int, channel: ServoChannel, mechanism_name: str):
        super().__init__(hub, port, channel, mechanism_name)
        self._direction = Servo.Direction.FORWARD
        self._limit_min, self._limit_max = self.MIN_POSITION, self.MAX_POSITION

    def getDeviceName(self) -> str:
        return "Servo"

    def setDirection(self, direction: "Servo.Direction") -> None:
        """FORWARD, or REVERSE (positions mirrored: ``1 - p``)."""
        if not isinstance(direction, Servo.Direction):
            raise TypeError(f"direction={direction!r}: expected a Servo.Direction")
        self._direction = direction

    def getDirection(self) -> "Servo.Direction":
        return self._direction

    def _reverse(self, position: float) -> float:
        return self.MAX_POSITION - position + self.MIN_POSITION

    def setPosition(self, position: float) -> None:
        """Command a position in [0, 1] (clipped); the servo gets there later, at its own speed."""
        position = _clip(_number("position", position), self.MIN_POSITION, self.MAX_POSITION)
        if position != position:
            raise IllegalArgumentException("illegal servo position NaN")
        if self._direction is Servo.Direction.REVERSE:
            position = self._reverse(position)
        scaled = _scale(position, self.MIN_POSITION, self.MAX_POSITION, self._limit_min, self._limit_max)
        self._channel.set_position(scaled)

    def getPosition(self) -> float:
        """The position last commanded (not the shaft's), in [0, 1]."""
        position = self._channel.get_position()
        scaled = _scale(position, self._limit_min, self._limit_max, self.MIN_POSITION, self.MAX_POSITION)
        if self._direction is Servo.Direction.REVERSE:
            scaled = self._reverse(scaled)
        return _clip(scaled, self.MIN_POSITION, self.MAX_POSITION)

    def scaleRange(self, min: float, max: float) -> None:  # noqa: A002 -- the SDK's parameter names
        """Map [0, 1] onto [min, max] of the servo's range from now on (each clipped to [0, 1])."""
        lo = _clip(_number("min", min), self.MIN_POSITION, self.MAX_POSITION)
        hi = _clip(_number("max", max), self.MIN_POSITION, self.MAX_POSITION)
        if lo >= hi:
            raise IllegalArgumentException("min must be less than max")
        self._limit_min, self._limit_max = lo, hi

    def resetDeviceConfigurationForOpMode(self) -> None:
        """Limits back to [0, 1], direction FORWARD."""
        self._limit_min, self._limit_max = self.MIN_POSITION, self.MAX_POSITION
        self._direction = Servo.Direction.FORWARD

    def __repr__(self):
        return f"{type(self).__name__}({self._hub.name!r} port {self._port} -> {self.mechanism_name!r})"


class ServoImplEx(Servo):
    """``ServoImplEx``: a :class:`Servo` with ``PwmControl`` (what ``hub.servo`` returns for a position servo)."""


class CRServo(_ServoPort, DcMotorSimple):
    """The SDK's ``CRServo`` (``CRServoImpl``): a continuous-rotation servo, power in [-1, 1]."""

    def __init__(self, hub, port: int, channel: ServoChannel, mechanism_name: str):
        super().__init__(hub, port, channel, mechanism_name)
        self._direction = Direction.FORWARD

    def getDeviceName(self) -> str:
        return "Continuous Rotation Servo"

    def setDirection(self, direction: Direction) -> None:
        """FORWARD or REVERSE (``DcMotorSimple.Direction``: REVERSE negates the power)."""
        if not isinstance(direction, Direction):
            raise TypeError(f"direction={direction!r}: expected a DcMotorSimple.Direction")
        self._direction = direction

    def getDirection(self) -> Direction:
        return self._direction

    def setPower(self, power: float) -> None:
        """Power in [-1, 1] (clipped), sent as the position ``(p + 1) / 2``."""
        power = _number("power", power)
        if power != power:
            raise IllegalArgumentException("illegal servo power NaN")
        if self._direction is Direction.REVERSE:
            power = -power
        power = _clip(power, -1.0, 1.0)
        self._channel.set_position(_scale(power, -1.0, 1.0, 0.0, 1.0))

    def getPower(self) -> float:
        """The power last commanded."""
        power = _scale(self._channel.get_position(), 0.0, 1.0, -1.0, 1.0)
        return -power if self._direction is Direction.REVERSE else power

    def resetDeviceConfigurationForOpMode(self) -> None:
        """Direction back to FORWARD."""
        self._direction = Direction.FORWARD

    def __repr__(self):
        return f"{type(self).__name__}({self._hub.name!r} port {self._port} -> {self.mechanism_name!r})"


class CRServoImplEx(CRServo):
    """``CRServoImplEx``: a :class:`CRServo` with ``PwmControl`` (what ``hub.servo`` returns for a CR servo)."""


def configure_servo(hub, port, mechanism, servo_type=None):
    """``Hub.servo``'s work: check, bind port ``port`` of ``hub`` to ``mechanism``, return the handle."""
    if isinstance(port, bool) or not isinstance(port, numbers.Integral) or not 0 <= port < NUMBER_OF_SERVOS:
        raise ConfigError("port", port, f"a servo port 0..{NUMBER_OF_SERVOS - 1}")
    port = int(port)
    if port in hub._servos:
        raise ConfigError("port", port, f"a servo port not already configured on hub {hub.name!r}")
    name = getattr(mechanism, "name", None)
    inputs = set(getattr(mechanism, "input_names", ()) or ())
    if not isinstance(name, str) or not {"pulse_width", "pwm_enabled"} <= inputs:
        raise ConfigError("mechanism", mechanism, "a servo mechanism with inputs pulse_width and pwm_enabled "
                                                  "(simcore.models.ServoMechanism)")
    if any(h.mechanism_name == name for h in hub._servos.values()):
        raise ConfigError("mechanism", name, "a servo not already driven by this hub")
    continuous = bool(getattr(mechanism, "continuous", False))
    if servo_type is None:
        servo_type = CRServo if continuous else Servo
    if servo_type not in (Servo, ServoImplEx, CRServo, CRServoImplEx):
        raise ConfigTypeError("servo_type", servo_type, "Servo (a position servo) or CRServo (continuous "
                                                        "rotation), the type configured on the robot")
    channel = ServoChannel(hub, port, name)
    handle = (CRServoImplEx if issubclass(servo_type, CRServo) else ServoImplEx)(hub, port, channel, name)
    hub._servos[port] = handle
    return handle


for _cls in (Servo, CRServo, _ServoPort):
    refuse_after_the_run(_cls)
del _cls
