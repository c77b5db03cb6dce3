"""The op mode's ``hardwareMap``: the robot configuration, device name -> device.

``hardwareMap.get(DcMotorEx, "left_front")`` (``DcMotor`` and
``DcMotorSimple`` find the same motors), ``hardwareMap.get(IMU, "imu")``,
``hardwareMap.getAll(LynxModule)`` (the hubs, also by their names),
``hardwareMap.get("name")``, ``tryGet``, and the old ``hardwareMap.dcMotor.get(name)``.
A name that is not configured raises the SDK's IllegalArgumentException with
its message (``Unable to find a hardware device with name "x" and type DcMotorEx``).
"""
from __future__ import annotations

from typing import Iterable, Mapping

from simcore.errors import ConfigError, ConfigTypeError

from .imu import IMU
from .motor import DcMotorEx, Hub
from .sdk import IllegalArgumentException

__all__ = ["HardwareMap", "DEVICE_TYPES"]

#: What a robot configuration may hold.
DEVICE_TYPES = (DcMotorEx, IMU, Hub)


class _DeviceMapping:
    """``hardwareMap.dcMotor`` and friends: ``get(name)`` of one device type."""

    def __init__(self, hardware_map: "HardwareMap", cls):
        self._map, self._cls = hardware_map, cls

    def get(self, name: str):
        return self._map.get(self._cls, name)


class HardwareMap:
    """The configured devices by name (see the module docstring).

    Parameters
    ----------
    configuration : mapping of str to device
        Device name -> a ``DcMotorEx`` (from ``hub.motor(...)``), an ``IMU`` or a hub.
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
                raise ConfigTypeError(f"configuration[{name!r}]", device,
                                      "a DcMotorEx (hub.motor(...)), an IMU or a Hub")
            self._devices[name] = device
        for hub in hubs:
            self._devices.setdefault(hub.name, hub)

    def tryGet(self, cls, name: str):
        """The device called ``name`` if it is a ``cls``, else None."""
        device = self._devices.get(name.strip() if isinstance(name, str) else name)
        return device if device is not None and isinstance(device, cls) else None

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
        for device in self._devices.values():
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

    def size(self) -> int:
        """Number of configured names."""
        return len(self._devices)

    def __iter__(self):
        return iter(self.getAll(object))

    def __repr__(self):
        return f"HardwareMap({sorted(self._devices)})"
