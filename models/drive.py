"""The motor drive: a DC motor (group) behind a motor controller's H-bridge and a gearbox.

Shared by every motor-driven mechanism. Given the rotor speed, the command, the
neutral mode and the bus voltage, it returns what the windings see:

* **Command.** ``command="voltage"`` (default): the input ``voltage`` is the
  requested terminal voltage, V. ``command="duty"``: the input ``duty`` is the
  fraction of the bus voltage, in [-1, 1], as a motor controller or an FTC hub
  thinks of it. Either way the applied voltage can never exceed the bus voltage;
  when the request is cut the output ``saturated`` is 1.
* **Neutral** (a command of exactly zero). Brake: the bridge shorts the windings,
  ``V = 0``, so back-EMF drives ``I = -E/R`` and the motor brakes. Coast: the
  bridge is open and no current flows, unless the back-EMF exceeds the bus, when
  the body diodes clamp the terminals to the bus and current flows back into it.
  The held input ``brake`` (1.0 brake, 0.0 coast) selects it; its initial value
  comes from ``neutral_mode``.
* **Current limits** as a motor controller enforces them, by reducing the applied
  voltage: stator ``|I| <= stator_current_limit`` and supply
  ``|duty * I| <= supply_current_limit``, in both directions (regeneration
  included): the requested voltage is projected onto the voltages the bus and both
  limits allow. A limited sample shows ``current_limited = 1``. Limits act while
  driving, not in neutral; each of ``n_motors`` motors has its own controller.
* **Supply current** ``= duty * I_stator = V_applied * I_stator / V_bus`` (an ideal
  bridge conserves power), the current the battery sees.
* **Gearbox** of ratio ``gearing`` (motor turns per output turn) and efficiency
  ``efficiency``: the output torque is ``G * eta * T_motor`` when the motor drives
  the load and ``G * T_motor / eta`` when the load back-drives the motor, so the
  gearbox always dissipates ``T_motor * w_rotor * (1 - eta**±1) >= 0``. Which
  applies depends on the direction of motion: mechanisms with direction modes pass
  it (:meth:`MotorDrive.output_torque_directed`, which keeps the gear's
  self-locking band at rest); wheel drives blend it smoothly through zero speed
  (:meth:`MotorDrive.output_torque`).

The law itself is written once, in kernel form (:mod:`simcore.kernel.motor_drive`); this class
holds a drive's constants and calls it.
"""
from __future__ import annotations

import difflib
import inspect
import math
import warnings
from collections.abc import Mapping
from typing import NamedTuple

from simcore import checks
from simcore.errors import ConfigError, ConfigTypeError

from .motors import DCMotor, as_dcmotor

__all__ = ["MotorDrive", "Electrical", "NEUTRAL_MODES", "COMMANDS", "EFFICIENCY_SPEED_EPSILON",
           "MOTOR_DRIVE_KEYS", "split_drive_options", "merge_legacy_drive_options"]

#: MotorDrive's keyword options, as mechanisms accept them alongside their own.
MOTOR_DRIVE_KEYS = ("n_motors", "efficiency", "neutral_mode", "stator_current_limit", "supply_current_limit",
                    "command", "nominal_bus_voltage")

#: Rotor speed, rad/s, below which :meth:`MotorDrive.output_torque` blends the gearbox efficiency
#: between its motoring and back-driven values (about 10 rpm: far below any working speed).
EFFICIENCY_SPEED_EPSILON = 1.0

NEUTRAL_MODES = ("brake", "coast")
COMMANDS = ("voltage", "duty")


def _optional_limit(parameter, value):
    if value is None:
        return math.inf
    v = checks.number(parameter, value, "A", expected="None or a current in A")
    if not v > 0:
        raise ConfigError(parameter, value, "None or a positive current in A")
    return v


def _kernel():
    """The compiled motor-drive law (imported at first use: ``import simcore`` loads no numba)."""
    global _motor_drive_kernel
    if _motor_drive_kernel is None:
        from simcore.kernel import motor_drive
        _motor_drive_kernel = motor_drive
    return _motor_drive_kernel


_motor_drive_kernel = None


#: Physical ranges of the inputs MotorDrive-based systems share: a brake flag is a
#: fraction of brake in [0, 1]; a bus voltage is never negative (a battery that
#: collapses reads 0 V). Other inputs (voltage, duty requests) take any finite value
#: and saturate at the bus, flagged by the ``saturated`` output.
_INPUT_RANGES = {"brake": (0.0, 1.0), "drive_brake": (0.0, 1.0), "steer_brake": (0.0, 1.0),
                 "bus_voltage": (0.0, math.inf)}


def drive_input_ranges(input_names) -> dict:
    """``System.input_ranges`` for the shared drive inputs among ``input_names``."""
    return {n: _INPUT_RANGES[n] for n in input_names if n in _INPUT_RANGES}


def _owner_name(owner) -> str:
    return owner if isinstance(owner, str) else getattr(owner, "__qualname__", type(owner).__name__)


def _unknown_keyword(owner, key: str, accepted) -> ConfigTypeError:
    """The error for a keyword ``owner`` does not take, suggesting the nearest it does."""
    own = ()
    if not isinstance(owner, str):
        try:  # the owner's own named parameters, for the suggestion
            own = tuple(n for n, p in inspect.signature(owner).parameters.items()
                        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
        except (TypeError, ValueError):
            pass
    near = difflib.get_close_matches(key, own + tuple(accepted), n=1)
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    return ConfigTypeError(f"{_owner_name(owner)}() keyword", key,
                           f"one of its parameters or {', '.join(accepted)}{hint}")


def split_drive_options(owner, options: Mapping, *, accepted=(), prefix: str = "", strict: bool = True,
                        gearing_keyword: str | None = None, n_motors_keyword: str | None = None
                        ) -> tuple[dict, dict]:
    """Split a constructor's keyword options into :class:`MotorDrive` keywords and the rest.

    The one way a motor-driven constructor takes its drive options: as plain keyword
    arguments (``n_motors=2, stator_current_limit=40, viscous_friction=1e-4``),
    collected in ``**options`` and split here.

    Parameters
    ----------
    owner : str or class
        The class the user called (its name is in the error for an unknown keyword;
        given as a class, its own parameters are also suggested for a misspelling).
    options : mapping
        The keyword arguments.
    accepted : sequence of str
        The other keywords ``owner`` takes through ``options`` (friction, ...):
        returned in ``rest``.
    prefix : str
        Prefix of this motor group's keywords (``"steer_"``: ``steer_efficiency``
        is MotorDrive's ``efficiency``).
    strict : bool
        Refuse keywords that are neither MotorDrive's (with ``prefix``) nor
        ``accepted`` (ConfigTypeError naming ``owner``). ``False`` returns them in
        ``rest``, to split another motor group's keywords from it next.
    gearing_keyword, n_motors_keyword : str, optional
        The names the user gives the gear ratio and the motor count, for errors
        (default ``prefix + "gearing"``, ``prefix + "n_motors"``); a TankDrive's
        motor count is ``n_motors_per_side``, taken from ``options`` under that name.

    Returns
    -------
    drive : dict
        Keywords for ``MotorDrive(motor, gearing, **drive)``, including
        ``parameter_names`` so that MotorDrive's errors name what the user wrote.
    rest : dict
        Everything else, in the order given.
    """
    n_key = n_motors_keyword or prefix + "n_motors"
    names = {"gearing": gearing_keyword or prefix + "gearing", "n_motors": n_key}
    by_user_name = {prefix + k: k for k in MOTOR_DRIVE_KEYS if k != "n_motors"}
    by_user_name[n_key] = "n_motors"
    names.update({k: u for u, k in by_user_name.items()})
    drive, rest = {}, {}
    for key, value in options.items():
        if key in by_user_name:
            drive[by_user_name[key]] = value
        elif key in accepted or not strict:
            rest[key] = value
        else:
            raise _unknown_keyword(owner, key, tuple(by_user_name) + tuple(accepted))
    drive["parameter_names"] = names
    return drive, rest


def merge_legacy_drive_options(owner, parameter: str, legacy, options: dict, *, prefix: str = "") -> dict:
    """``options`` with the entries of a deprecated ``drive_options=``-style dict added (prefixed).

    Warns ``DeprecationWarning`` (pass the keywords directly instead). Keys must be
    MotorDrive's keywords; a keyword given both ways is refused.
    """
    if legacy is None:
        return options
    if not isinstance(legacy, Mapping):
        raise ConfigTypeError(parameter, legacy, "a mapping of MotorDrive keywords (or None)")
    warnings.warn(f"{_owner_name(owner)}({parameter}=...) is deprecated: pass its keywords directly "
                  f"({', '.join(prefix + k for k in legacy) or 'none given'})", DeprecationWarning, stacklevel=3)
    merged = dict(options)
    for key, value in legacy.items():
        if key not in MOTOR_DRIVE_KEYS:
            raise ConfigError(f"{parameter} key", key, f"one of {', '.join(MOTOR_DRIVE_KEYS)}")
        if prefix + key in merged:
            raise ConfigError(f"{parameter}[{key!r}]", value, f"no value also given as {prefix + key}=")
        merged[prefix + key] = value
    return merged


class Electrical(NamedTuple):
    """What :meth:`MotorDrive.electrical` returns for one instant (group totals)."""

    #: Voltage on the windings, V.
    applied_voltage: float
    #: Winding current, A.
    stator_current: float
    #: Current drawn from the bus, A.
    supply_current: float
    #: 1.0 when the request exceeded the bus voltage, else 0.0.
    saturated: float
    #: 1.0 when a current limit reduced the voltage, else 0.0.
    current_limited: float


# Builds an Electrical from a tuple without the generated keyword-parsing __new__ (hot path).
_electrical = tuple.__new__


class MotorDrive:
    """A motor (or ``n_motors`` of them) with its controller and gearbox.

    Parameters
    ----------
    motor : DCMotor
        One motor; ``n_motors`` identical ones share the gearbox.
    gearing : float
        Gear ratio, motor turns per output-shaft turn (> 0; 10 means a 10:1 reduction).
    n_motors : int
        Motors on the gearbox (default 1).
    efficiency : float
        Gearbox efficiency in (0, 1] (default 1).
    neutral_mode : {"brake", "coast"}
        Behaviour at zero command (default "brake").
    stator_current_limit, supply_current_limit : float or Quantity, optional
        The limit configured on each motor's controller, A (None: no limit). With
        ``n_motors`` motors, each on its own controller, the group's total current
        is limited to ``n_motors`` times it. Currents reported by mechanisms are the
        group's totals.
    command : {"voltage", "duty"}
        What the mechanism's command input means (default "voltage").
    nominal_bus_voltage : float
        Bus voltage without a battery model, V (default: the motor's nominal voltage).
    parameter_names : mapping of str to str, optional
        The names the user gave these parameters (``{"gearing": "drive_gearing"}``),
        used in error messages; :func:`split_drive_options` fills it in.
    """

    def __init__(self, motor: DCMotor, gearing, *, n_motors: int = 1, efficiency=1.0,
                 neutral_mode: str = "brake", stator_current_limit=None, supply_current_limit=None,
                 command: str = "voltage", nominal_bus_voltage=None, parameter_names: Mapping | None = None):
        # The names the user wrote (drive_gearing, steer_efficiency, n_motors_per_side) for errors.
        pn = dict(parameter_names or {})
        name = lambda k: pn.get(k, k)  # noqa: E731
        motor = as_dcmotor("motor", motor)  # simcore's, or WPILib's (wpimath's DCMotor) converted
        self.gearing = checks.positive(name("gearing"), gearing, what="gear ratio (motor turns per output turn)")
        n_motors = checks.integer(name("n_motors"), n_motors, minimum=1)
        self.efficiency = checks.fraction(name("efficiency"), efficiency, low_open=True)
        self.neutral_mode = checks.choice(name("neutral_mode"), neutral_mode, NEUTRAL_MODES)
        self.command = checks.choice(name("command"), command, COMMANDS)
        self.motor = motor
        self.n_motors = n_motors
        self.group = motor.gearbox(n_motors)
        # Limits of the group: each of the n motors has its own controller with the configured limit.
        self.stator_current_limit = n_motors * _optional_limit(name("stator_current_limit"), stator_current_limit)
        self.supply_current_limit = n_motors * _optional_limit(name("supply_current_limit"), supply_current_limit)
        self.nominal_bus_voltage = (motor.nominal_voltage if nominal_bus_voltage is None
                                    else checks.positive(name("nominal_bus_voltage"), nominal_bus_voltage, "V",
                                                         what="voltage"))
        # Constants of the motor group, cached as floats for the right-hand side.
        self._duty_command = self.command == "duty"
        self.R = self.group.R
        self.Kt = self.group.Kt
        self.Kv = self.group.Kv

    def electrical(self, rotor_speed: float, command: float, brake: float, bus_voltage: float) -> Electrical:
        """Terminal voltage and currents at one instant (the law is :func:`simcore.kernel.motor_drive.electrical`).

        Parameters
        ----------
        rotor_speed : float
            Motor shaft speed, rad/s.
        command : float
            Requested voltage (V) or duty (-), per :attr:`command`.
        brake : float
            >= 0.5 for brake, else coast (used at zero command only).
        bus_voltage : float
            Supply voltage at the controller, V.

        Returns
        -------
        Electrical
            ``applied_voltage`` V, ``stator_current`` A, ``supply_current`` A,
            ``saturated`` 0/1, ``current_limited`` 0/1.
        """
        # floats: one compiled signature whatever number types the caller holds
        return _electrical(Electrical, _kernel().electrical(
            float(rotor_speed), float(command), float(brake), float(bus_voltage), self.R, self.Kv,
            self.stator_current_limit, self.supply_current_limit, self._duty_command))

    def output_torque_directed(self, motor_torque: float, direction: float) -> float:
        """Torque at the gearbox output, N·m, for motion in ``direction`` (+1, -1; 0 at rest).

        The gearbox loses ``1 - eta`` of the power flowing through it: ``G eta T`` when
        the motor drives the motion (``T * direction > 0``), ``G T / eta`` when the load
        back-drives the motor. At rest (``direction = 0``) the motoring value is
        returned (the torque reported while stuck). Used by mechanisms whose
        direction of motion is a mode, so the torque is continuous within a mode.
        (:func:`simcore.kernel.motor_drive.output_torque_directed`.)
        """
        return _kernel().output_torque_directed(float(motor_torque), float(direction), self.gearing, self.efficiency)

    def output_torque(self, motor_torque: float, rotor_speed: float) -> float:
        """Torque at the gearbox output, N·m, at rotor speed ``rotor_speed`` (rad/s).

        The efficiency factor ``eta ** (sign(T) * s(w))`` with the smooth sign
        ``s(w) = w / sqrt(w² + w_eps²)``, ``w_eps`` = :data:`EFFICIENCY_SPEED_EPSILON`:
        ``G eta T`` when motoring and ``G T / eta`` when back-driven away from zero
        speed, blended continuously through it, so a wheel passing through zero
        speed under load does not meet a jump the solver cannot step over. The
        gearbox loss ``T w (1 - eta ** (sign(T) s(w)))`` is never negative. Below
        ``w_eps`` the gear's self-locking band is not represented (mechanisms with
        direction modes use :meth:`output_torque_directed` and keep it).
        (:func:`simcore.kernel.motor_drive.output_torque`.)
        """
        return _kernel().output_torque(float(motor_torque), float(rotor_speed), self.gearing, self.efficiency)

    def __repr__(self):
        return (f"MotorDrive({self.n_motors}x {self.motor.name!r}, gearing={self.gearing}, "
                f"command={self.command!r}, neutral_mode={self.neutral_mode!r})")
