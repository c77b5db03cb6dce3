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
  ``|duty * I| <= supply_current_limit``, in both directions. A limited sample
  shows ``current_limited = 1``. Limits act while driving, not in neutral.
* **Supply current** ``= duty * I_stator = V_applied * I_stator / V_bus`` (an ideal
  bridge conserves power), the current the battery sees.
* **Gearbox** of ratio ``gearing`` (motor turns per output turn) and efficiency
  ``efficiency``: the output torque is ``G * eta * T_motor`` when the motor drives
  the load and ``G * T_motor / eta`` when the load back-drives the motor, so the
  gearbox always dissipates ``T_motor * w_rotor * (1 - eta**±1) >= 0``.

Everything here is plain float arithmetic: it runs inside right-hand sides.
"""
from __future__ import annotations

import math

from simcore.errors import ConfigError, ConfigTypeError
from simcore.units import to_si

from .motors import DCMotor

__all__ = ["MotorDrive", "NEUTRAL_MODES", "COMMANDS"]

NEUTRAL_MODES = ("brake", "coast")
COMMANDS = ("voltage", "duty")


def _optional_positive(parameter, value, unit):
    if value is None:
        return math.inf
    v = to_si(parameter, value, unit)
    if not v > 0:
        raise ConfigError(parameter, value, f"None or a positive current in {unit}")
    return v


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
        Per motor-controller limits, A (None: no limit). With ``n_motors`` they
        apply to the group's total current.
    command : {"voltage", "duty"}
        What the mechanism's command input means (default "voltage").
    nominal_bus_voltage : float
        Bus voltage without a battery model, V (default: the motor's nominal voltage).
    """

    def __init__(self, motor: DCMotor, gearing, *, n_motors: int = 1, efficiency=1.0,
                 neutral_mode: str = "brake", stator_current_limit=None, supply_current_limit=None,
                 command: str = "voltage", nominal_bus_voltage=None):
        if not isinstance(motor, DCMotor):
            raise ConfigTypeError("motor", motor, "a models.motors.DCMotor")
        self.gearing = to_si("gearing", gearing, "")
        if not self.gearing > 0:
            raise ConfigError("gearing", gearing, "a positive gear ratio (motor turns per output turn)")
        if isinstance(n_motors, bool) or not isinstance(n_motors, int) or n_motors < 1:
            raise ConfigError("n_motors", n_motors, "a whole number >= 1")
        self.efficiency = to_si("efficiency", efficiency, "")
        if not 0 < self.efficiency <= 1:
            raise ConfigError("efficiency", efficiency, "a number in (0, 1]")
        if neutral_mode not in NEUTRAL_MODES:
            raise ConfigError("neutral_mode", neutral_mode, "'brake' or 'coast'")
        if command not in COMMANDS:
            raise ConfigError("command", command, "'voltage' or 'duty'")
        self.motor = motor
        self.n_motors = n_motors
        self.group = motor.gearbox(n_motors)
        self.neutral_mode = neutral_mode
        self.command = command
        self.stator_current_limit = _optional_positive("stator_current_limit", stator_current_limit, "A")
        self.supply_current_limit = _optional_positive("supply_current_limit", supply_current_limit, "A")
        self.nominal_bus_voltage = (motor.nominal_voltage if nominal_bus_voltage is None
                                    else to_si("nominal_bus_voltage", nominal_bus_voltage, "V"))
        if not self.nominal_bus_voltage > 0:
            raise ConfigError("nominal_bus_voltage", nominal_bus_voltage, "a positive voltage")
        # Constants of the motor group, cached as floats for the right-hand side.
        self.R = self.group.R
        self.Kt = self.group.Kt
        self.Kv = self.group.Kv

    @property
    def command_input(self) -> str:
        """Name of the command input: ``"voltage"`` or ``"duty"``."""
        return self.command

    def electrical(self, rotor_speed: float, command: float, brake: float, bus_voltage: float):
        """Terminal voltage and currents at one instant.

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
        tuple
            ``(applied_voltage V, stator_current A, supply_current A, saturated 0/1,
            current_limited 0/1)``.
        """
        R = self.R
        emf = rotor_speed / self.Kv
        vb = bus_voltage if bus_voltage > 0.0 else 0.0
        if command == 0.0:
            if brake >= 0.5:
                return 0.0, -emf / R, 0.0, 0.0, 0.0
            # Coast: open bridge; the body diodes conduct only when |E| exceeds the bus.
            if emf > vb:
                i = (vb - emf) / R
                return vb, i, (i if vb > 0.0 else 0.0), 0.0, 0.0
            if emf < -vb:
                i = (-vb - emf) / R
                return -vb, i, (-i if vb > 0.0 else 0.0), 0.0, 0.0
            return emf, 0.0, 0.0, 0.0, 0.0
        v = command * vb if self.command == "duty" else command
        saturated = 0.0
        if v > vb:
            v, saturated = vb, 1.0
        elif v < -vb:
            v, saturated = -vb, 1.0
        limited = 0.0
        ls = self.stator_current_limit
        if ls != math.inf:
            hi = emf + ls * R
            lo = emf - ls * R
            if v > hi:
                v, limited = (hi if hi >= -vb else -vb), 1.0
            elif v < lo:
                v, limited = (lo if lo <= vb else vb), 1.0
        lp = self.supply_current_limit
        if lp != math.inf and vb > 0.0:
            c = lp * R * vb  # |v (v - E)| <= c  <=>  |supply current| <= limit
            p = v * (v - emf)
            if p > c:
                root = math.sqrt(emf * emf + 4.0 * c)
                v = (emf + root) / 2.0 if v > emf / 2.0 else (emf - root) / 2.0
                limited = 1.0
            elif p < -c:
                root = math.sqrt(emf * emf - 4.0 * c)  # p < -c implies E^2 > 4c
                s1, s2 = (emf - root) / 2.0, (emf + root) / 2.0
                v = s1 if abs(v - s1) <= abs(v - s2) else s2
                limited = 1.0
        i = (v - emf) / R
        return v, i, (v * i / vb if vb > 0.0 else 0.0), saturated, limited

    def output_torque(self, motor_torque: float, rotor_speed: float) -> float:
        """Torque at the gearbox output, N·m, with the efficiency applied in the power-flow direction."""
        eta = self.efficiency
        if eta == 1.0:
            return self.gearing * motor_torque
        if motor_torque * rotor_speed >= 0.0:  # the motor drives the load
            return self.gearing * eta * motor_torque
        return self.gearing * motor_torque / eta

    def __repr__(self):
        return (f"MotorDrive({self.n_motors}x {self.motor.name!r}, gearing={self.gearing}, "
                f"command={self.command!r}, neutral_mode={self.neutral_mode!r})")
