"""Swerve drive: a rigid chassis on steerable driven wheels with friction-limited tyres.

Frames: the field frame (x, y, ``heading`` counter-clockwise from +x, not wrapped)
and the robot frame (x forward, y left). The chassis velocity states ``vx``, ``vy``
are **field-frame** (so the translational equations have no Coriolis terms);
``omega`` is the yaw rate. Robot-frame velocities are the outputs ``robot_vx``,
``robot_vy``.

Each module ``i`` at robot-frame position ``p_i`` has:

* a steer angle ``steer_angle_i`` (rad, robot frame, not wrapped) and rate
  ``steer_rate_i``, driven by the steer motor through ``steer_gearing`` into the
  steer inertia ``J_s = steer_inertia + n rotor_inertia G_s^2`` about the vertical
  axis: ``J_s d(steer_rate)/dt = T_steer``. The steer coordinate is relative to the
  chassis and its inertia is counted with relative motion (the reaction of the
  steer torque on the chassis yaw, of order ``J_s/J``, is neglected, and so is any
  tyre moment about the steering axis: the contact patch is on the axis);
* a wheel rim speed ``wheel_speed_i`` (m/s, positive along the wheel's heading)
  and rim distance ``wheel_distance_i`` (m, what the drive encoder measures),
  driven by the drive motor through ``drive_gearing``:
  ``M_w d(wheel_speed)/dt = T_drive / r - F_i . e_i`` with
  ``M_w = (wheel_inertia + n rotor_inertia G_d^2) / r^2``.

Tyre (traction) law: the contact patch slips at ``s_i = v_point_i - wheel_speed_i
e_i`` (chassis velocity at the module minus the wheel surface velocity, a 2-D
vector: longitudinal and lateral slip together). The ground pushes the robot with

    F_i = -mu N s_i / sqrt(|s_i|^2 + eps^2),   N = m g / n_modules

a regularized Coulomb law on the friction circle: ``|F_i| < mu N`` always, smooth
(adaptive solvers integrate it), nearly ``mu N`` once ``|s_i| >> eps``, a stiff
linear creep ``mu N s/eps`` for ``|s_i| << eps``. ``eps = slip_epsilon`` (default
0.02 m/s). The normal load does not transfer under acceleration. The output
``slip_speed_i = |s_i|``.

Chassis: ``m dv/dt = sum F_i``, ``J domega/dt = sum (R p_i) x F_i`` (field frame).

Energy (``track_energy=True``): states ``energy_in`` (``∫ V_bus sum I_supply``),
``copper_loss``, ``conversion_loss`` (back-EMF power minus shaft power, non-zero
because WPILib's motor constants have ``Kt Kv != 1``; see :mod:`simcore.models.tank`),
``gear_loss``, ``friction_loss`` (``∫ -sum F_i . s_i dt >= 0``), and ``energy_in =
ΔKE + copper_loss + conversion_loss + gear_loss + friction_loss`` with ``KE = m
|v|^2/2 + J omega^2/2 + sum (M_w wheel_speed_i^2 + J_s steer_rate_i^2)/2`` (output
``kinetic_energy``).
"""
from __future__ import annotations

import math

import numpy as np

from simcore.errors import ConfigError, ConfigTypeError, check_bool, check_finite
from simcore.system import System
from simcore.units import to_si

from .drive import MOTOR_DRIVE_KEYS, MotorDrive, drive_input_ranges
from .motors import DCMotor
from .tank import STANDARD_GRAVITY, _nonnegative, _pose, _positive

__all__ = ["SwerveDrive", "ENERGY_STATES", "MOTOR_DRIVE_KEYS", "module_layout"]

#: Energy-accounting states, J.
ENERGY_STATES = ("energy_in", "copper_loss", "conversion_loss", "gear_loss", "friction_loss")

#: Keys accepted in ``drive_options`` / ``steer_options`` (MotorDrive's keywords).

#: Distance below which two modules coincide, m.
_COINCIDENT = 1e-9


def module_layout(parameter, positions, minimum=2):
    """Validate wheel/module contact positions: ``minimum`` or more distinct finite (x, y) pairs, m."""
    try:
        pts = [tuple(p) for p in positions]
    except TypeError:
        raise ConfigTypeError(parameter, positions, "a sequence of (x, y) positions in m") from None
    out = []
    for i, p in enumerate(pts):
        if len(p) != 2:
            raise ConfigError(parameter, positions, f"(x, y) pairs (entry {i} is {p!r})")
        out.append((to_si(f"{parameter}[{i}][0]", p[0], "m"), to_si(f"{parameter}[{i}][1]", p[1], "m")))
    if len(out) < minimum:
        raise ConfigError(parameter, positions, f"at least {minimum} modules")
    for i, a in enumerate(out):
        for j in range(i):
            if math.dist(a, out[j]) < _COINCIDENT:
                raise ConfigError(parameter, positions, f"distinct positions (entries {j} and {i} coincide)")
    return out


def motor_drive(parameter, motor, gearing, options):
    """A MotorDrive from a motor, a gearing and an options mapping (MotorDrive keywords)."""
    if not isinstance(motor, DCMotor):
        raise ConfigTypeError(parameter, motor, "a simcore.models.motors.DCMotor")
    options = dict(options or {})
    unknown = set(options) - set(MOTOR_DRIVE_KEYS)
    if unknown:
        raise ConfigError(f"{parameter}_options", sorted(unknown), f"keys among {', '.join(MOTOR_DRIVE_KEYS)}")
    return MotorDrive(motor, gearing, **options)


class SwerveDrive(System):
    """A swerve drive with drive and steer motors per module and friction-limited tyres.

    See the module docstring for the equations and frames.

    Parameters
    ----------
    drive_motor, steer_motor : DCMotor
        One motor of each kind per module.
    module_positions : sequence of (x, y)
        Module contact positions in the robot frame, m (at least two, distinct).
    drive_gearing : float
        Drive motor turns per wheel turn.
    steer_gearing : float
        Steer motor turns per module turn.
    wheel_radius : float or Quantity
        m.
    mass : float or Quantity
        Robot mass, kg.
    moi : float or Quantity
        Robot yaw moment of inertia, kg·m².
    friction_coefficient : float
        Tyre-ground ``mu`` (default 1.2, maple-sim's value for FRC carpet).
    name : str
        Default ``"swerve"``.
    wheel_inertia : float or Quantity
        Each wheel's spinning inertia with its gears, kg·m² (default 0.005).
    steer_inertia : float or Quantity
        Each module's inertia about its steering axis, kg·m² (default 0.005).
    drive_rotor_inertia, steer_rotor_inertia : float or Quantity
        One rotor's inertia, kg·m² (default 0), reflected through the gearing.
    slip_epsilon : float or Quantity
        ``eps`` of the tyre law, m/s (default 0.02).
    gravity : float
        m/s² (default standard gravity).
    drive_options, steer_options : mapping, optional
        :class:`~simcore.models.drive.MotorDrive` keywords for the drive and steer motors
        (``efficiency``, ``neutral_mode``, ``stator_current_limit``,
        ``supply_current_limit``, ``command``, ``nominal_bus_voltage``,
        ``n_motors``).
    track_energy : bool
        Add the energy-accounting states.
    start_pose : (x, y, heading)
        m, m, rad.
    start_steer_angles : sequence of float, optional
        Initial steer angles, rad (default 0).

    Notes
    -----
    States: ``x, y, heading, vx, vy, omega`` then ``steer_angle_i``,
    ``steer_rate_i``, ``wheel_speed_i``, ``wheel_distance_i`` for every module
    (grouped by kind), then the energy states. Inputs: ``drive_voltage_i`` and
    ``steer_voltage_i`` (``_duty_`` with ``command="duty"``), ``drive_brake``,
    ``steer_brake`` (1 brake, 0 coast) and ``bus_voltage`` (one bus for all
    motors; a :class:`~simcore.models.battery.Battery` solves it). Outputs: ``robot_vx``,
    ``robot_vy``, ``supply_current`` (total), ``kinetic_energy`` and per module
    ``slip_speed_i``, ``ground_force_i``, ``drive_stator_current_i``,
    ``drive_supply_current_i``, ``drive_applied_voltage_i``,
    ``steer_stator_current_i``, ``steer_supply_current_i``,
    ``steer_applied_voltage_i``.
    """

    def __init__(self, drive_motor, steer_motor, *, module_positions, drive_gearing, steer_gearing, wheel_radius,
                 mass, moi, friction_coefficient=1.2, name: str = "swerve", wheel_inertia=0.005,
                 steer_inertia=0.005, drive_rotor_inertia=0.0, steer_rotor_inertia=0.0, slip_epsilon=0.02,
                 gravity=STANDARD_GRAVITY, drive_options=None, steer_options=None, track_energy: bool = False,
                 start_pose=(0.0, 0.0, 0.0), start_steer_angles=None):
        self.module_positions = module_layout("module_positions", module_positions)
        n = self.n_modules = len(self.module_positions)
        self.drive = motor_drive("drive", drive_motor, drive_gearing, drive_options)
        self.steer = motor_drive("steer", steer_motor, steer_gearing, steer_options)
        if self.steer.nominal_bus_voltage != self.drive.nominal_bus_voltage:
            # One bus feeds every motor (the bus_voltage input); two nominal values would be ignored.
            raise ConfigError("steer_options['nominal_bus_voltage']", self.steer.nominal_bus_voltage,
                              f"the drive's nominal_bus_voltage {self.drive.nominal_bus_voltage} V (one bus "
                              "feeds every motor; set it in drive_options and steer_options alike)")
        self.wheel_radius = _positive("wheel_radius", wheel_radius, "m", "a positive radius")
        self.mass = _positive("mass", mass, "kg", "a positive mass")
        self.moi = _positive("moi", moi, "kg*m**2", "a positive moment of inertia")
        self.friction_coefficient = _positive("friction_coefficient", friction_coefficient, "")
        self.wheel_inertia = _nonnegative("wheel_inertia", wheel_inertia, "kg*m**2")
        self.steer_inertia = _nonnegative("steer_inertia", steer_inertia, "kg*m**2")
        self.drive_rotor_inertia = _nonnegative("drive_rotor_inertia", drive_rotor_inertia, "kg*m**2")
        self.steer_rotor_inertia = _nonnegative("steer_rotor_inertia", steer_rotor_inertia, "kg*m**2")
        self.slip_epsilon = _positive("slip_epsilon", slip_epsilon, "m/s")
        self.gravity = _positive("gravity", gravity, "m/s**2")
        r = self.wheel_radius
        Gd, Gs = self.drive.gearing, self.steer.gearing
        #: Equivalent mass of a wheel's rotating parts at its rim, kg.
        self.wheel_mass = (self.wheel_inertia + self.drive.n_motors * self.drive_rotor_inertia * Gd * Gd) / (r * r)
        if not self.wheel_mass > 0:
            raise ConfigError("wheel_inertia", wheel_inertia, "a positive inertia (or drive_rotor_inertia > 0)")
        #: Steering inertia of a module with its reflected rotors, kg·m².
        self.steer_moi = self.steer_inertia + self.steer.n_motors * self.steer_rotor_inertia * Gs * Gs
        if not self.steer_moi > 0:
            raise ConfigError("steer_inertia", steer_inertia, "a positive inertia (or steer_rotor_inertia > 0)")
        self.normal_load = self.mass * self.gravity / n
        self.track_energy = check_bool("track_energy", track_energy)
        self.start_pose = _pose("start_pose", start_pose)
        if start_steer_angles is None:
            self.start_steer_angles = (0.0,) * n
        else:
            angles = tuple(check_finite("start_steer_angles", a) for a in start_steer_angles)
            if len(angles) != n:
                raise ConfigError("start_steer_angles", start_steer_angles, f"{n} angles in rad")
            self.start_steer_angles = angles
        self._px = np.array([p[0] for p in self.module_positions])
        self._py = np.array([p[1] for p in self.module_positions])
        dc, sc = self.drive.command, self.steer.command
        idx = range(n)
        states = ["x", "y", "heading", "vx", "vy", "omega"]
        states += [f"steer_angle_{i}" for i in idx] + [f"steer_rate_{i}" for i in idx]
        states += [f"wheel_speed_{i}" for i in idx] + [f"wheel_distance_{i}" for i in idx]
        if self.track_energy:
            states += list(ENERGY_STATES)
        inputs = [f"drive_{dc}_{i}" for i in idx] + [f"steer_{sc}_{i}" for i in idx]
        inputs += ["drive_brake", "steer_brake", "bus_voltage"]
        per = ("slip_speed", "ground_force", "drive_stator_current", "drive_supply_current",
               "drive_applied_voltage", "steer_stator_current", "steer_supply_current", "steer_applied_voltage")
        outputs = ["robot_vx", "robot_vy", "supply_current", "kinetic_energy"]
        outputs += [f"{o}_{i}" for o in per for i in idx]
        units = {"x": "m", "y": "m", "heading": "rad", "vx": "m/s", "vy": "m/s", "omega": "rad/s",
                 "robot_vx": "m/s", "robot_vy": "m/s", "supply_current": "A", "kinetic_energy": "J",
                 "bus_voltage": "V", "drive_brake": "", "steer_brake": ""}
        unit_of = {"steer_angle": "rad", "steer_rate": "rad/s", "wheel_speed": "m/s", "wheel_distance": "m",
                   "slip_speed": "m/s", "ground_force": "N", "drive_stator_current": "A",
                   "drive_supply_current": "A", "drive_applied_voltage": "V", "steer_stator_current": "A",
                   "steer_supply_current": "A", "steer_applied_voltage": "V",
                   f"drive_{dc}": "V" if dc == "voltage" else "", f"steer_{sc}": "V" if sc == "voltage" else ""}
        for key, unit in unit_of.items():
            units.update({f"{key}_{i}": unit for i in idx})
        units.update({s: "J" for s in ENERGY_STATES})
        super().__init__(name, states, inputs, outputs, units)
        self.input_ranges = drive_input_ranges(self.input_names)

    # -- System interface -------------------------------------------------------------------------
    def initial_state(self):
        n = self.n_modules
        x = np.zeros(len(self.state_names))
        x[0], x[1], x[2] = self.start_pose
        x[6:6 + n] = self.start_steer_angles
        return x

    def initial_inputs(self):
        n = self.n_modules
        u = np.zeros(2 * n + 3)
        u[2 * n] = 1.0 if self.drive.neutral_mode == "brake" else 0.0
        u[2 * n + 1] = 1.0 if self.steer.neutral_mode == "brake" else 0.0
        u[2 * n + 2] = self.drive.nominal_bus_voltage
        return u

    def drive_free_speed(self, voltage: float) -> float:
        """Wheel rim speed with ``voltage`` on a drive motor and no load, m/s."""
        return voltage * self.drive.Kv * self.wheel_radius / self.drive.gearing

    def _core(self, x, u):
        n = self.n_modules
        th, vx, vy, om = x[2], x[3], x[4], x[5]
        phi = x[6:6 + n]
        phid = x[6 + n:6 + 2 * n]
        w = x[6 + 2 * n:6 + 3 * n]
        c, s = math.cos(th), math.sin(th)
        px = c * self._px - s * self._py
        py = s * self._px + c * self._py
        ang = th + phi
        ex, ey = np.cos(ang), np.sin(ang)
        sx = vx - om * py - w * ex
        sy = vy + om * px - w * ey
        k = (self.friction_coefficient * self.normal_load) / np.sqrt(sx * sx + sy * sy
                                                                      + self.slip_epsilon ** 2)
        Fx = -k * sx
        Fy = -k * sy
        # Motors (plain float arithmetic per motor).
        dr, st = self.drive, self.steer
        r = self.wheel_radius
        kd = dr.gearing / r
        ks = st.gearing
        bus = u[2 * n + 2]
        bd, bs = u[2 * n], u[2 * n + 1]
        drive_force = np.empty(n)
        steer_torque = np.empty(n)
        elec = []
        for i in range(n):
            wr = kd * w[i]
            va, cur, sup, _, _ = dr.electrical(wr, u[i], bd, bus)
            tm = dr.Kt * cur
            tout = dr.output_torque(tm, wr)
            drive_force[i] = tout / r
            wsr = ks * phid[i]
            vs, cs, ss, _, _ = st.electrical(wsr, u[n + i], bs, bus)
            tms = st.Kt * cs
            touts = st.output_torque(tms, wsr)
            steer_torque[i] = touts
            elec.append((va, cur, sup, tm * wr - tout * w[i] / r, vs, cs, ss, tms * wsr - touts * phid[i],
                         cur * wr * (1.0 / dr.Kv - dr.Kt) + cs * wsr * (1.0 / st.Kv - st.Kt)))
        return px, py, ex, ey, sx, sy, k, Fx, Fy, drive_force, steer_torque, elec

    def derivatives(self, t, x, u):
        n = self.n_modules
        px, py, ex, ey, sx, sy, k, Fx, Fy, D, Ts, elec = self._core(x, u)
        th, vx, vy, om = x[2], x[3], x[4], x[5]
        out = np.empty(len(self.state_names))
        out[0] = vx
        out[1] = vy
        out[2] = om
        out[3] = Fx.sum() / self.mass
        out[4] = Fy.sum() / self.mass
        out[5] = (px * Fy - py * Fx).sum() / self.moi
        out[6:6 + n] = x[6 + n:6 + 2 * n]
        out[6 + n:6 + 2 * n] = Ts / self.steer_moi
        out[6 + 2 * n:6 + 3 * n] = (D - (Fx * ex + Fy * ey)) / self.wheel_mass
        out[6 + 3 * n:6 + 4 * n] = x[6 + 2 * n:6 + 3 * n]
        if self.track_energy:
            bus = u[2 * n + 2]
            e0 = 6 + 4 * n
            Rd, Rs = self.drive.R, self.steer.R
            out[e0] = bus * sum(e[2] + e[6] for e in elec)
            out[e0 + 1] = sum(e[1] * e[1] * Rd + e[5] * e[5] * Rs for e in elec)
            out[e0 + 2] = sum(e[8] for e in elec)
            out[e0 + 3] = sum(e[3] + e[7] for e in elec)
            out[e0 + 4] = float((k * (sx * sx + sy * sy)).sum())
        return out

    def kinetic_energy(self, x) -> float:
        """Kinetic energy of chassis, wheels and steering, J, at state ``x``."""
        n = self.n_modules
        vx, vy, om = x[3], x[4], x[5]
        phid = np.asarray(x[6 + n:6 + 2 * n])
        w = np.asarray(x[6 + 2 * n:6 + 3 * n])
        return float(0.5 * (self.mass * (vx * vx + vy * vy) + self.moi * om * om
                            + self.wheel_mass * (w * w).sum() + self.steer_moi * (phid * phid).sum()))

    def outputs(self, t, x, u):
        n = self.n_modules
        px, py, ex, ey, sx, sy, k, Fx, Fy, D, Ts, elec = self._core(x, u)
        th, vx, vy = x[2], x[3], x[4]
        c, s = math.cos(th), math.sin(th)
        out = [c * vx + s * vy, -s * vx + c * vy, sum(e[2] + e[6] for e in elec), self.kinetic_energy(x)]
        out += list(np.hypot(sx, sy))
        out += list(np.hypot(Fx, Fy))
        for j in (1, 2, 0, 5, 6, 4):
            out += [e[j] for e in elec]
        return out

    def supply_current_at(self, x, u, bus_voltage: float) -> float:
        """Total supply current of every drive and steer motor, A, at ``bus_voltage`` V."""
        n = self.n_modules
        kd = self.drive.gearing / self.wheel_radius
        ks = self.steer.gearing
        bd, bs = u[2 * n], u[2 * n + 1]
        total = 0.0
        for i in range(n):
            total += self.drive.electrical(kd * x[6 + 2 * n + i], u[i], bd, bus_voltage)[2]
            total += self.steer.electrical(ks * x[6 + n + i], u[n + i], bs, bus_voltage)[2]
        return total

    # -- helpers for controllers and plots ---------------------------------------------------------
    def state_index(self, kind: str, i: int) -> int:
        """Index in the state vector of ``kind`` (``steer_angle``, ``steer_rate``, ``wheel_speed``,
        ``wheel_distance``) of module ``i``."""
        n = self.n_modules
        base = {"steer_angle": 6, "steer_rate": 6 + n, "wheel_speed": 6 + 2 * n, "wheel_distance": 6 + 3 * n}
        return base[kind] + i

    @property
    def drive_input_names(self):
        """Input names of the drive commands, module order."""
        return self.input_names[:self.n_modules]

    @property
    def steer_input_names(self):
        """Input names of the steer commands, module order."""
        return self.input_names[self.n_modules:2 * self.n_modules]

    def outline(self):
        """Robot outline in the robot frame for field plots: the modules' bounding box grown by a wheel, m."""
        pad = 2.0 * self.wheel_radius
        x0, x1 = self._px.min() - pad, self._px.max() + pad
        y0, y1 = self._py.min() - pad, self._py.max() + pad
        return [(x1, y1), (x0, y1), (x0, y0), (x1, y0)]
