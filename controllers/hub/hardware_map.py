"""The op mode's ``hardwareMap``: the robot configuration, device name -> device.

``hardwareMap.get(DcMotorEx, "left_front")`` (``DcMotor`` and
``DcMotorSimple`` find the same motors, and ``DcMotorSimple`` the CR servos),
``hardwareMap.get(IMU, "imu")``, ``hardwareMap.get(Servo, "claw")``,
``hardwareMap.get(DistanceSensor, "sensor_range")``, ...,
``hardwareMap.getAll(LynxModule)`` (the hubs, also by their names; each hub's
``VoltageSensor`` is found under the hub's name too, as the SDK names them),
``hardwareMap.get("name")``, ``tryGet``, and the old per-type mappings
``hardwareMap.dcMotor.get(name)``, ``hardwareMap.servo``, ``.crservo``,
``.touchSensor``, ``.digitalChannel``, ``.analogInput``, ``.voltageSensor``
(``get(name)``, ``iterator().next()``).

Devices teams write: a configuration may hold any object following
:class:`simcore.protocols.HardwareDevice` (``getDeviceName()``,
``observe(signals)``, ``hold_signals_weakly()``; subclass
:class:`~simcore.controllers.hub.SimulatedDevice` for all three), and
``hardwareMap.get(TheirType, name)`` returns it.
A name that is not configured raises the SDK's IllegalArgumentException with
its message (``Unable to find a hardware device with name "x" and type DcMotorEx``).
"""
from __future__ import annotations

from typing import Iterable, Mapping

from simcore import protocols
from simcore.errors import ConfigError, ConfigTypeError

from .imu import IMU
from .motor import DcMotorEx, Hub
from .sdk import IllegalArgumentException
from .sensors import AnalogInput, DigitalChannel, DistanceSensor, TouchSensor, VoltageSensor
from .servo import CRServo, Servo

__all__ = ["HardwareMap", "DEVICE_TYPES"]

#: The built-in devices a robot configuration holds (and any HardwareDevice a team writes).
DEVICE_TYPES = (DcMotorEx, IMU, Hub, Servo, CRServo, DigitalChannel, AnalogInput, DistanceSensor, VoltageSensor)


class _JavaIterator:
    """``iterator()``'s answer: ``hasNext()`` and ``next()``, as the Java reads."""

    def __init__(self, items):
        self._items, self._i = list(items), 0

    def hasNext(self) -> bool:
        return self._i < len(self._items)

    def next(self):
        if not self.hasNext():
            raise IndexError("NoSuchElementException: no more devices of this type")
        self._i += 1
        return self._items[self._i - 1]

    __next__ = next

    def __iter__(self):
        return self


class _DeviceMapping:
    """``hardwareMap.dcMotor`` and friends: ``get(name)`` of one device type."""

    def __init__(self, hardware_map: "HardwareMap", cls):
        self._map, self._cls = hardware_map, cls

    def get(self, name: str):
        return self._map.get(self._cls, name)

    def iterator(self) -> _JavaIterator:
        """Every device of this type, in configuration order."""
        return _JavaIterator(self._map.getAll(self._cls))

    def __iter__(self):
        return iter(self._map.getAll(self._cls))


class HardwareMap:
    """The configured devices by name (see the module docstring).

    Parameters
    ----------
    configuration : mapping of str to device
        Device name -> a ``DcMotorEx`` (``hub.motor(...)``), a servo (``hub.servo(...)``), a sensor
        (``hub.digital``, ``hub.analog``, ``hub.i2c``), an ``IMU``, a hub, or a
        :class:`~simcore.protocols.HardwareDevice` a team writes.
    hubs : iterable of Hub
        The hubs; each is also found under its own name.
    """

    def __init__(self, configuration: Mapping, hubs: Iterable[Hub] = ()):
        if not isinstance(configuration, Mapping):
            raise ConfigTypeError("configuration", configuration, "a mapping {device name: device}")
        self._devices: dict = {}
        for name, device in configuration.items():
            if not isinstance(name, str) or not name.strip() or name != name.strip():
                raise ConfigError("configuration name", name, "a non-empty device name without surrounding spaces")
            if not isinstance(device, DEVICE_TYPES):
                if isinstance(device, type):
                    raise ConfigTypeError(f"configuration[{name!r}]", device, "a device object (an instance), "
                                                                              "not a class")
                protocols.check(device, protocols.HardwareDevice, parameter=f"configuration[{name!r}]",
                                role="a device of the robot configuration (a DcMotorEx, Servo, sensor, IMU, hub, "
                                     "or a HardwareDevice a team writes)")
            self._devices[name] = device
        # Found by name after the configured devices: the hubs, and each hub's voltage sensor (the SDK names
        # both after the hub; they are told apart by type).
        self._by_hub_name: list = []
        for hub in hubs:
            self._devices.setdefault(hub.name, hub)
            self._by_hub_name.append((hub.name, hub))
            self._by_hub_name.append((hub.name, hub.voltage_sensor()))

    def tryGet(self, cls, name: str):
        """The device called ``name`` if it is a ``cls``, else None."""
        name = name.strip() if isinstance(name, str) else name
        device = self._devices.get(name)
        if device is not None and isinstance(device, cls):
            return device
        return next((d for n, d in self._by_hub_name if n == name and isinstance(d, cls)), None)

    def get(self, cls_or_name, name: str | None = None):
        """``get(cls, name)``: the device called ``name``, which must be a ``cls``; ``get(name)``: any device."""
        if name is None:
            device = self._devices.get(cls_or_name)
            if device is None:
                raise IllegalArgumentException(f'Unable to find a hardware device with name "{cls_or_name}"')
            return device
        device = self.tryGet(cls_or_name, name)
        if device is None:
            raise IllegalArgumentException(f'Unable to find a hardware device with name "{name}" and type '
                                           f'{getattr(cls_or_name, "__name__", cls_or_name)}')
        return device

    def getAll(self, cls) -> list:
        """Every configured device that is a ``cls``, each once, in configuration order."""
        out = []
        for device in list(self._devices.values()) + [d for _, d in self._by_hub_name]:
            if isinstance(device, cls) and not any(device is d for d in out):
                out.append(device)
        return out

    def getNamesOf(self, device) -> set:
        """The names ``device`` is configured under."""
        return {n for n, d in self._devices.items() if d is device}

    def contains(self, name: str) -> bool:
        """Whether a device is configured under ``name``."""
        return name in self._devices

    @property
    def dcMotor(self) -> _DeviceMapping:
        """``hardwareMap.dcMotor.get(name)``."""
        return _DeviceMapping(self, DcMotorEx)

    @property
    def servo(self) -> _DeviceMapping:
        """``hardwareMap.servo``."""
        return _DeviceMapping(self, Servo)

    @property
    def crservo(self) -> _DeviceMapping:
        """``hardwareMap.crservo``."""
        return _DeviceMapping(self, CRServo)

    @property
    def touchSensor(self) -> _DeviceMapping:
        """``hardwareMap.touchSensor``."""
        return _DeviceMapping(self, TouchSensor)

    @property
    def digitalChannel(self) -> _DeviceMapping:
        """``hardwareMap.digitalChannel``."""
        return _DeviceMapping(self, DigitalChannel)

    @property
    def analogInput(self) -> _DeviceMapping:
        """``hardwareMap.analogInput``."""
        return _DeviceMapping(self, AnalogInput)

    @property
    def voltageSensor(self) -> _DeviceMapping:
        """``hardwareMap.voltageSensor`` (Road Runner's ``hardwareMap.voltageSensor.iterator().next()``)."""
        return _DeviceMapping(self, VoltageSensor)

    def size(self) -> int:
        """Number of configured names."""
        return len(self._devices)

    def __iter__(self):
        return iter(self.getAll(object))

    def __repr__(self):
        return f"HardwareMap({sorted(self._devices)})"
