"""Mecanum drive: four wheels with 45-degree rollers on a rigid chassis, the standard FTC drivetrain.

Frames as :mod:`simcore.models.swerve`: chassis velocity states ``vx``, ``vy`` in the
field frame, ``omega`` the yaw rate; robot-frame velocities are the outputs
``robot_vx``, ``robot_vy``. Wheels are named ``front_left``, ``front_right``,
``rear_left``, ``rear_right``; each turns about an axle along the robot's y axis,
so its rim moves along the robot's forward direction ``e``.

Rollers: each wheel's contact is a free-spinning roller whose axle makes 45
degrees with the wheel's; it rolls freely across its axle and resists sliding
along it. Seen from above the rollers form an "X" (the usual FTC/WPILib layout):
roller axle directions (robot frame) ``front_left`` and ``rear_right`` along
``(1, -1)/sqrt(2)``, ``front_right`` and ``rear_left`` along ``(1, 1)/sqrt(2)``. With no
slip, a wheel's rim speed is ``(v_point . a) / (e . a)``, which is WPILib's
``MecanumDriveKinematics`` (``fl = vx - vy - omega (x + y)``, ...).

Traction: the slip along the roller axle ``s = (v_point - w e) . a`` (chassis
velocity at the contact minus the rim velocity, along ``a``) produces the ground
force on the robot ``F = -mu N a s / sqrt(s^2 + eps^2)`` (regularized Coulomb,
``N = m g / 4``, ``eps = slip_epsilon``); motion along the roller's rolling
direction is free (roller friction and roller inertia are neglected). The wheel
obeys ``M_w dw/dt = T_out / r - F . e`` with ``M_w = (wheel_inertia + n
rotor_inertia G^2) / r^2``. Chassis: ``m dv/dt = sum F``, ``J domega/dt = sum p x F``.

Energy states (``track_energy=True``) as :mod:`simcore.models.swerve`: ``energy_in``,
``copper_loss``, ``conversion_loss``, ``gear_loss``, ``friction_loss``; ``energy_in
= ΔKE + losses``.
"""
from __future__ import annotations

import math

import numpy as np

from simcore.errors import ConfigError, ConfigTypeError, check_bool
from simcore.system import System

from .drive import MotorDrive, drive_input_ranges
from .motors import DCMotor
from .swerve import ENERGY_STATES, module_layout
from .tank import STANDARD_GRAVITY, _nonnegative, _pose, _positive

__all__ = ["MecanumDrive", "WHEELS"]

#: Wheel names, in the order of every per-wheel signal.
WHEELS = ("front_left", "front_right", "rear_left", "rear_right")

_S = 1.0 / math.sqrt(2.0)
#: Roller axle directions in the robot frame ("X" seen from above).
ROLLER_AXES = ((_S, -_S), (_S, _S), (_S, _S), (_S, -_S))


class MecanumDrive(System):
    """A four-wheel mecanum drive with one motor (group) per wheel and friction-limited rollers.

    Parameters
    ----------
    motor : DCMotor
        One wheel's motor, e.g. ``simcore.models.motors.GOBILDA_BARE``.
    gearing : float
        Motor turns per wheel turn (19.2 for a goBILDA 312 rpm gearmotor).
    track_width : float or Quantity
        Distance between left and right wheel contacts, m.
    wheelbase : float or Quantity
        Distance between front and rear wheel contacts, m.
    wheel_radius : float or Quantity
        m (0.048 for goBILDA 96 mm mecanum wheels).
    mass : float or Quantity
        Robot mass, kg.
    moi : float or Quantity
        Robot yaw moment of inertia, kg·m².
    friction_coefficient : float
        Roller-floor ``mu`` (default 1.0).
    name : str
        Default ``"mecanum"``.
    wheel_inertia : float or Quantity
        Each wheel's inertia about its axle with its gears, kg·m² (default 5e-4,
        a 96 mm, 0.4 kg wheel).
    rotor_inertia : float or Quantity
        One rotor's inertia, kg·m² (default 0), reflected through the gearing.
    slip_epsilon : float or Quantity
        m/s (default 0.02).
    gravity : float
        m/s².
    efficiency, neutral_mode, stator_current_limit, supply_current_limit, command, nominal_bus_voltage, n_motors
        As :class:`~simcore.models.drive.MotorDrive`, per wheel. FTC code sets a power:
        use ``command="duty"``.
    track_energy : bool
    start_pose : (x, y, heading)
    wheel_positions : sequence of 4 (x, y), optional
        Contact positions ``front_left, front_right, rear_left, rear_right`` in the
        robot frame, m, instead of ``track_width``/``wheelbase`` (give those as None).

    Notes
    -----
    States ``x, y, heading, vx, vy, omega``, ``<wheel>_velocity`` (rim speed, m/s),
    ``<wheel>_position`` (rim distance, m), energy states. Inputs
    ``<wheel>_voltage`` (``_duty``), ``brake``, ``bus_voltage``. Outputs
    ``robot_vx, robot_vy, supply_current, kinetic_energy`` and per wheel
    ``<wheel>_slip_speed``, ``<wheel>_stator_current``, ``<wheel>_supply_current``,
    ``<wheel>_applied_voltage``.
    """

    def __init__(self, motor, gearing, *, track_width, wheelbase, wheel_radius, mass, moi,
                 friction_coefficient=1.0, name: str = "mecanum", wheel_inertia=5e-4, rotor_inertia=0.0,
                 slip_epsilon=0.02, gravity=STANDARD_GRAVITY, n_motors=1, efficiency=1.0, neutral_mode="brake",
                 stator_current_limit=None, supply_current_limit=None, command="voltage",
                 nominal_bus_voltage=None, track_energy: bool = False, start_pose=(0.0, 0.0, 0.0),
                 wheel_positions=None):
        if not isinstance(motor, DCMotor):
            raise ConfigTypeError("motor", motor, "a simcore.models.motors.DCMotor")
        self.drive = MotorDrive(motor, gearing, n_motors=n_motors, efficiency=efficiency,
                                neutral_mode=neutral_mode, stator_current_limit=stator_current_limit,
                                supply_current_limit=supply_current_limit, command=command,
                                nominal_bus_voltage=nominal_bus_voltage)
        if wheel_positions is None:
            self.track_width = _positive("track_width", track_width, "m", "a positive distance")
            self.wheelbase = _positive("wheelbase", wheelbase, "m", "a positive distance")
            hw, hl = self.track_width / 2.0, self.wheelbase / 2.0
            wheel_positions = ((hl, hw), (hl, -hw), (-hl, hw), (-hl, -hw))
        else:
            self.track_width = self.wheelbase = None
        self.wheel_positions = module_layout("wheel_positions", wheel_positions, minimum=4)
        if len(self.wheel_positions) != 4:
            raise ConfigError("wheel_positions", wheel_positions, "four (x, y) positions in m")
        self.gearing = self.drive.gearing
        self.wheel_radius = _positive("wheel_radius", wheel_radius, "m", "a positive radius")
        self.mass = _positive("mass", mass, "kg", "a positive mass")
        self.moi = _positive("moi", moi, "kg*m**2", "a positive moment of inertia")
        self.friction_coefficient = _positive("friction_coefficient", friction_coefficient, "")
        self.wheel_inertia = _nonnegative("wheel_inertia", wheel_inertia, "kg*m**2")
        self.rotor_inertia = _nonnegative("rotor_inertia", rotor_inertia, "kg*m**2")
        self.slip_epsilon = _positive("slip_epsilon", slip_epsilon, "m/s")
        self.gravity = _positive("gravity", gravity, "m/s**2")
        r, G = self.wheel_radius, self.gearing
        self.wheel_mass = (self.wheel_inertia + self.drive.n_motors * self.rotor_inertia * G * G) / (r * r)
        if not self.wheel_mass > 0:
            raise ConfigError("wheel_inertia", wheel_inertia, "a positive inertia (or rotor_inertia > 0)")
        self.normal_load = self.mass * self.gravity / 4.0
        self.track_energy = check_bool("track_energy", track_energy)
        self.start_pose = _pose("start_pose", start_pose)
        self.n_modules = 4
        self._px = np.array([p[0] for p in self.wheel_positions])
        self._py = np.array([p[1] for p in self.wheel_positions])
        self._ax = np.array([a[0] for a in ROLLER_AXES])
        self._ay = np.array([a[1] for a in ROLLER_AXES])
        cmd = self.drive.command
        states = ["x", "y", "heading", "vx", "vy", "omega"] + [f"{w}_velocity" for w in WHEELS] + \
                 [f"{w}_position" for w in WHEELS]
        if self.track_energy:
            states += list(ENERGY_STATES)
        inputs = [f"{w}_{cmd}" for w in WHEELS] + ["brake", "bus_voltage"]
        per = ("slip_speed", "stator_current", "supply_current", "applied_voltage")
        outputs = ["robot_vx", "robot_vy", "supply_current", "kinetic_energy"] + \
                  [f"{w}_{o}" for o in per for w in WHEELS]
        units = {"x": "m", "y": "m", "heading": "rad", "vx": "m/s", "vy": "m/s", "omega": "rad/s",
                 "robot_vx": "m/s", "robot_vy": "m/s", "supply_current": "A", "kinetic_energy": "J",
                 "bus_voltage": "V", "brake": ""}
        for w in WHEELS:
            units.update({f"{w}_velocity": "m/s", f"{w}_position": "m", f"{w}_slip_speed": "m/s",
                          f"{w}_stator_current": "A", f"{w}_supply_current": "A", f"{w}_applied_voltage": "V",
                          f"{w}_{cmd}": "V" if cmd == "voltage" else ""})
        units.update({s: "J" for s in ENERGY_STATES})
        super().__init__(name, states, inputs, outputs, units)
        self.input_ranges = drive_input_ranges(self.input_names)

    def initial_state(self):
        x = np.zeros(len(self.state_names))
        x[0], x[1], x[2] = self.start_pose
        return x

    def initial_inputs(self):
        return np.array([0.0, 0.0, 0.0, 0.0, 1.0 if self.drive.neutral_mode == "brake" else 0.0,
                         self.drive.nominal_bus_voltage])

    def free_speed(self, voltage: float) -> float:
        """Rim speed of a wheel with ``voltage`` on its motor and no load, m/s."""
        return voltage * self.drive.Kv * self.wheel_radius / self.gearing

    def _core(self, x, u):
        th, vx, vy, om = x[2], x[3], x[4], x[5]
        w = x[6:10]
        c, s = math.cos(th), math.sin(th)
        px = c * self._px - s * self._py
        py = s * self._px + c * self._py
        ax = c * self._ax - s * self._ay
        ay = s * self._ax + c * self._ay
        # slip along the roller axle: (v_point - w e) . a, with e = (c, s)
        sa = (vx - om * py) * ax + (vy + om * px) * ay - w * (c * ax + s * ay)
        k = self.friction_coefficient * self.normal_load / np.sqrt(sa * sa + self.slip_epsilon ** 2)
        f = -k * sa
        d = self.drive
        r = self.wheel_radius
        kw = self.gearing / r
        D = np.empty(4)
        elec = []
        for i in range(4):
            wr = kw * w[i]
            va, cur, sup, _, _ = d.electrical(wr, u[i], u[4], u[5])
            tm = d.Kt * cur
            tout = d.output_torque(tm, wr)
            D[i] = tout / r
            elec.append((va, cur, sup, tm * wr - tout * w[i] / r, cur * wr * (1.0 / d.Kv - d.Kt)))
        return px, py, ax, ay, sa, k, f, D, elec

    def derivatives(self, t, x, u):
        px, py, ax, ay, sa, k, f, D, elec = self._core(x, u)
        Fx, Fy = f * ax, f * ay
        out = np.empty(len(self.state_names))
        out[0], out[1], out[2] = x[3], x[4], x[5]
        out[3] = Fx.sum() / self.mass
        out[4] = Fy.sum() / self.mass
        out[5] = (px * Fy - py * Fx).sum() / self.moi
        # F . e = f (a . e); a . e is the roller axle's robot-frame x component.
        out[6:10] = (D - f * self._ax) / self.wheel_mass
        out[10:14] = x[6:10]
        if self.track_energy:
            out[14] = u[5] * sum(e[2] for e in elec)
            out[15] = sum(e[1] * e[1] for e in elec) * self.drive.R
            out[16] = sum(e[4] for e in elec)
            out[17] = sum(e[3] for e in elec)
            out[18] = float((k * sa * sa).sum())
        return out

    def kinetic_energy(self, x) -> float:
        """Kinetic energy of chassis and wheels at state ``x``, J."""
        w = np.asarray(x[6:10])
        return float(0.5 * (self.mass * (x[3] ** 2 + x[4] ** 2) + self.moi * x[5] ** 2
                            + self.wheel_mass * (w * w).sum()))

    def outputs(self, t, x, u):
        px, py, ax, ay, sa, k, f, D, elec = self._core(x, u)
        th = x[2]
        c, s = math.cos(th), math.sin(th)
        out = [c * x[3] + s * x[4], -s * x[3] + c * x[4], sum(e[2] for e in elec), self.kinetic_energy(x)]
        out += list(np.abs(sa))
        for j in (1, 2, 0):
            out += [e[j] for e in elec]
        return out

    def supply_current_at(self, x, u, bus_voltage: float) -> float:
        """Total supply current of the four wheels' motors, A, at ``bus_voltage`` V."""
        kw = self.gearing / self.wheel_radius
        return sum(self.drive.electrical(kw * x[6 + i], u[i], u[4], bus_voltage)[2] for i in range(4))

    def outline(self):
        """Robot outline in the robot frame for field plots, m."""
        pad = 1.5 * self.wheel_radius
        x0, x1 = self._px.min() - pad, self._px.max() + pad
        y0, y1 = self._py.min() - pad, self._py.max() + pad
        return [(x1, y1), (x0, y1), (x0, y0), (x1, y0)]
