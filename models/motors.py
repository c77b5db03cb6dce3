"""DC motors from datasheet values, and a catalogue of FRC and FTC motors.

The steady-state brushed/brushless-DC model WPILib's ``DCMotor`` uses, with the
constants derived from the four datasheet numbers the same way:

* winding resistance ``R = V_nominal / I_stall`` (ohm),
* torque constant ``Kt = T_stall / I_stall`` (N·m/A),
* velocity constant ``Kv = w_free / (V_nominal - R * I_free)`` (rad/s per V).

Stator current at rotor speed ``w`` (rad/s) and applied voltage ``V`` is
``I = (V - w / Kv) / R``: it is non-zero at 0 V while the shaft turns (back-EMF
drives it through the shorted windings in brake mode). Torque is ``Kt * I``.

``gearbox(n)`` gives the combined motor of ``n`` identical motors on one shaft:
stall torque, stall current and free current times ``n`` (so R/n, Kt and Kv
unchanged), as WPILib does.

The catalogue values are those of :mod:`simcore.reference`, "Motors" (WPILib's
``DCMotor`` factory methods for FRC motors; gm0's motor table for the bare FTC
motors), at 12 V.

WPILib's own ``DCMotor`` (robotpy's ``wpimath.system.plant.DCMotor``, e.g.
``DCMotor.vex775Pro(4)``: four motors on one gearbox) converts with
:meth:`DCMotor.from_wpimath`, which keeps its five datasheet numbers exactly, so
the derived ``R``, ``Kt`` and ``Kv`` are WPILib's to the bit; :func:`as_dcmotor`
accepts either kind where a WPILib-style constructor (``from_wpilib``) takes a
``gearbox``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from simcore import checks
from simcore.errors import ConfigError, ConfigTypeError

__all__ = ["DCMotor", "as_dcmotor", "rpm_to_rad_per_s",
           "CIM", "MINI_CIM", "BAG", "VEX_775PRO", "ANDYMARK_9015", "BANEBOTS_RS550", "BANEBOTS_RS775",
           "RS775_125", "NEO", "NEO_550", "NEO_VORTEX", "FALCON_500", "FALCON_500_FOC", "KRAKEN_X60",
           "KRAKEN_X60_FOC", "KRAKEN_X44", "KRAKEN_X44_FOC", "MINION", "GOBILDA_BARE", "REV_HD_HEX_BARE",
           "NEVEREST_BARE", "REV_CORE_HEX", "CATALOGUE"]


def rpm_to_rad_per_s(rpm: float) -> float:
    """Convert revolutions per minute to rad/s."""
    return rpm * 2.0 * math.pi / 60.0


@dataclass(frozen=True)
class DCMotor:
    """A DC motor (or several on one gearbox) described by its datasheet.

    Parameters
    ----------
    nominal_voltage : float or Quantity
        Voltage the datasheet values are given at, V.
    stall_torque : float or Quantity
        Torque at zero speed and nominal voltage, N·m.
    stall_current : float or Quantity
        Current at zero speed and nominal voltage, A.
    free_current : float or Quantity
        Current at free speed (no load), A.
    free_speed : float or Quantity
        Speed with no load at nominal voltage, rad/s (a Quantity in rpm is
        converted).
    name : str
        Label for plots and reprs.
    """

    nominal_voltage: float
    stall_torque: float
    stall_current: float
    free_current: float
    free_speed: float
    name: str = ""

    def __post_init__(self):
        units = {"nominal_voltage": ("V", "voltage"), "stall_torque": ("N*m", "torque"),
                 "stall_current": ("A", "current"), "free_current": ("A", "current"),
                 "free_speed": ("rad/s", "speed")}
        for field, (unit, what) in units.items():
            check = checks.nonnegative if field == "free_current" else checks.positive
            object.__setattr__(self, field, check(field, getattr(self, field), unit, what=what))
        if not self.free_current < self.stall_current:
            raise ConfigError("free_current", self.free_current,
                              f"a number in [0, stall_current={self.stall_current})")
        if not isinstance(self.name, str):
            raise ConfigTypeError("name", self.name, "a string")
        # At the ends of the float range the derived constants can overflow or underflow (R = 0 would
        # later divide by zero): refuse the datasheet values that produce them.
        for constant, value in (("R", self.R), ("Kt", self.Kt), ("Kv", self.Kv)):
            if not (value > 0.0 and math.isfinite(value)):
                raise ConfigError("stall_current" if constant != "Kv" else "free_speed",
                                  self.stall_current if constant != "Kv" else self.free_speed,
                                  f"datasheet values whose {constant} is a positive finite number (it is {value!r})")

    # -- derived constants (WPILib's DCMotor) -------------------------------------------------
    @property
    def R(self) -> float:
        """Winding resistance, ohm."""
        return self.nominal_voltage / self.stall_current

    @property
    def Kt(self) -> float:
        """Torque constant, N·m/A."""
        return self.stall_torque / self.stall_current

    @property
    def Kv(self) -> float:
        """Velocity constant, rad/s per V of back-EMF."""
        return self.free_speed / (self.nominal_voltage - self.R * self.free_current)

    # -- steady-state relations ---------------------------------------------------------------
    def current(self, speed, voltage):
        """Stator current, A, at rotor ``speed`` (rad/s) and applied ``voltage`` (V)."""
        return (voltage - speed / self.Kv) / self.R

    def torque(self, current):
        """Torque, N·m, produced by stator ``current`` (A)."""
        return self.Kt * current

    def voltage(self, torque, speed):
        """Voltage, V, that produces ``torque`` (N·m) at rotor ``speed`` (rad/s)."""
        return torque / self.Kt * self.R + speed / self.Kv

    def speed(self, torque, voltage):
        """Rotor speed, rad/s, at which ``voltage`` (V) yields ``torque`` (N·m)."""
        return voltage * self.Kv - torque * self.R * self.Kv / self.Kt

    def gearbox(self, n: int) -> "DCMotor":
        """``n`` identical motors driving one shaft, as one motor."""
        n = checks.integer("n", n, minimum=1, what="a whole number of motors")
        return DCMotor(self.nominal_voltage, self.stall_torque * n, self.stall_current * n,
                       self.free_current * n, self.free_speed, f"{n}x {self.name}" if n > 1 else self.name)

    def energy_consistent(self) -> "DCMotor":
        """The same motor with ``Kt = 1 / Kv`` (SI): its shaft power equals its back-EMF power.

        Datasheet constants make ``Kt Kv`` differ from 1 (from 0.67 to 1.25 over the
        catalogue), so the energy a model motor converts is not the shaft work it does
        and a ledger needs a ``conversion_loss`` term. This variant keeps the nominal
        voltage, stall current, free current and free speed (so ``R`` and ``Kv``) and
        sets the stall torque to ``I_stall / Kv``; with the free current taken as its
        friction it turns at the free speed drawing the free current, and its
        ``conversion_loss`` is zero. The stall torque moves by ``1/(Kt Kv) - 1``
        (-20 % for a NEO, +50 % for an AndyMark 9015).
        """
        return DCMotor(self.nominal_voltage, self.stall_current / self.Kv, self.stall_current, self.free_current,
                       self.free_speed, f"{self.name} (Kt = 1/Kv)" if self.name else "")

    @classmethod
    def from_wpimath(cls, motor, name: str = "") -> "DCMotor":
        """The motor of WPILib's ``DCMotor`` ``motor`` (robotpy's ``wpimath.system.plant.DCMotor``).

        WPILib's object already combines its motors (``DCMotor.NEO(2)`` has twice a
        NEO's stall torque, stall and free current), as :meth:`gearbox` does; its
        nominal voltage (V), stall torque (N·m), stall current (A), free current (A)
        and free speed (rad/s) are taken as they are.
        """
        if not _is_wpimath_motor(motor):
            raise ConfigTypeError("motor", motor, "a wpimath.system.plant.DCMotor (WPILib's DCMotor)")
        return cls(motor.nominalVoltage, motor.stallTorque, motor.stallCurrent, motor.freeCurrent, motor.freeSpeed,
                   name or "WPILib DCMotor")

    def __repr__(self):
        return (f"DCMotor({self.name!r}: {self.stall_torque} N·m, {self.stall_current} A stall, "
                f"{self.free_current} A free, {self.free_speed / (2 * math.pi) * 60:.6g} rpm at "
                f"{self.nominal_voltage} V)")


def _is_wpimath_motor(motor) -> bool:
    # Recognized by its type (no import of wpimath here: it is an optional extra).
    t = type(motor)
    return t.__name__ == "DCMotor" and t.__module__.split(".")[0] == "wpimath"


def as_dcmotor(parameter: str, motor) -> DCMotor:
    """``motor`` as a :class:`DCMotor`: simcore's as is, WPILib's (wpimath) through :meth:`DCMotor.from_wpimath`.

    Anything else is refused naming ``parameter``.
    """
    if isinstance(motor, DCMotor):
        return motor
    if _is_wpimath_motor(motor):
        return DCMotor.from_wpimath(motor)
    raise ConfigTypeError(parameter, motor, "a simcore.models.motors.DCMotor or WPILib's "
                                            "wpimath.system.plant.DCMotor")


def _motor(name, stall_torque, stall_current, free_current, free_rpm):
    return DCMotor(12.0, stall_torque, stall_current, free_current, rpm_to_rad_per_s(free_rpm), name)


# FRC motors: WPILib DCMotor factory values (simcore.reference, "Motors").
CIM = _motor("CIM", 2.42, 133, 2.7, 5310)
MINI_CIM = _motor("MiniCIM", 1.41, 89, 3.0, 5840)
BAG = _motor("Bag", 0.43, 53, 1.8, 13180)
VEX_775PRO = _motor("775Pro", 0.71, 134, 0.7, 18730)
ANDYMARK_9015 = _motor("AndyMark 9015", 0.36, 71, 3.7, 14270)
BANEBOTS_RS550 = _motor("BaneBots RS550", 0.38, 84, 0.4, 19000)
BANEBOTS_RS775 = _motor("BaneBots RS775", 0.72, 97, 2.7, 13050)
RS775_125 = _motor("RS775-125", 0.28, 18, 1.6, 5800)
NEO = _motor("NEO", 2.6, 105, 1.8, 5676)
NEO_550 = _motor("NEO 550", 0.97, 100, 1.4, 11000)
NEO_VORTEX = _motor("NEO Vortex", 3.60, 211, 3.615, 6784)
FALCON_500 = _motor("Falcon 500", 4.69, 257, 1.5, 6380)
FALCON_500_FOC = _motor("Falcon 500 FOC", 5.84, 304, 1.5, 6080)
KRAKEN_X60 = _motor("Kraken X60", 7.09, 366, 2.0, 6000)
KRAKEN_X60_FOC = _motor("Kraken X60 FOC", 9.37, 483, 2.0, 5800)
KRAKEN_X44 = _motor("Kraken X44", 4.11, 279, 2.0, 7758)
KRAKEN_X44_FOC = _motor("Kraken X44 FOC", 5.01, 329, 2.0, 7368)
MINION = _motor("Minion", 3.17, 211, 2.0, 7704)

# FTC bare motors: gm0 motor table (simcore.reference, "Motors").
GOBILDA_BARE = _motor("goBILDA Yellow Jacket bare", 0.19, 11, 0.3, 5900)
NEVEREST_BARE = _motor("NeveRest bare", 0.17, 9.8, 0.4, 5500)
REV_HD_HEX_BARE = _motor("REV HD Hex bare", 0.18, 11, 0.3, 6000)
#: REV Core Hex, datasheet values at its 72:1 output shaft (it is sold only geared).
REV_CORE_HEX = _motor("REV Core Hex (72:1 output)", 3.2, 4.4, 0.2, 125)

#: Every catalogued motor by its module-constant name.
CATALOGUE = {n: globals()[n] for n in __all__ if isinstance(globals().get(n), DCMotor)}
