"""Swerve drive: a rigid chassis on steerable driven wheels with friction-limited tyres.

Frames: the field frame (x, y, ``heading`` counter-clockwise from +x, not wrapped)
and the robot frame (x forward, y left). The chassis velocity states ``vx``, ``vy``
are **field-frame** (so the translational equations have no Coriolis terms);
``omega`` is the yaw rate. Robot-frame velocities are the outputs ``robot_vx``,
``robot_vy``.

Each module ``i`` at robot-frame position ``p_i`` has:

* a steer angle ``steer_angle_i`` (rad, robot frame, not wrapped) and rate
  ``steer_rate_i``, driven by the steer motor through ``steer_gearing``. The module
  turns with the chassis: ``J_s (domega/dt + d(steer_rate)/dt) = Q_i + T_scrub,i``
  with ``J_s = steer_inertia + n rotor_inertia G_s^2`` (plus the drive rotors'
  ``n J_r c^2`` with a couple ratio), ``Q_i`` the steer motor's output torque (and
  the drive motor's share through the coupling), and the **steering reaction** ``-Q_i``
  on the chassis yaw (the steer motors sit on the chassis).
* a wheel rim speed ``wheel_speed_i`` (m/s, positive along the wheel's heading
  ``e_i``) and rim distance ``wheel_distance_i`` (m), driven by the drive motor
  through ``drive_gearing``: ``M_w d(wheel_speed)/dt = D_i - F_i . e_i`` with
  ``M_w = (wheel_inertia + n rotor_inertia G_d^2) / r^2`` and
  ``D_i = (T_out - G_d T_f) / r``.
* **Drive/steer coupling** (``couple_ratio = c``, drive-motor turns per module turn,
  as CTRE's "couple ratio"; about 3.5 on a coaxial module): the drive rotor turns at
  ``G_d wheel_speed / r + c steer_rate``, so steering with the drive motor held
  rolls the wheel (``c r / G_d`` metres per radian of steer), and the drive motor
  torque pushes on the steering (``c T_m``). The drive encoder, on the motor, reads
  ``drive_rotor_position_i = G_d wheel_distance_i / r + c steer_angle_i``.
* **Tyre scrub torque** resisting the steer: the contact patch twisting on the
  ground at the module's absolute yaw rate ``Omega = omega + steer_rate`` meets
  ``T_scrub = -mu N rho (rho Omega) / sqrt((rho Omega)^2 + v^2 + eps^2)`` (``rho =
  scrub_radius``, the patch's effective friction radius; ``v`` the wheel's rolling
  speed): the full Coulomb torque ``mu N rho`` when steering a standing wheel,
  fading as ``rho^2 Omega / v`` once it rolls.

Tyres (:mod:`simcore.models.chassis`): along the wheel's heading, exact Coulomb
friction with modes (the wheel rolls while the force that takes is within ``mu N``,
slips at ``mu N`` past it: events ``breakaway``/``grip``); sideways, the
regularized Coulomb law ``-mu N s_n / sqrt(s_n^2 + eps^2)`` of the sideways slip
``s_n`` (``eps = slip_epsilon``, default 0.02 m/s). The output ``slip_speed_i`` is
the length of the slip vector (along and across). ``N`` is ``m g / n_modules``, or
with ``cog_height`` the transferred load (``normal_force_<i>``, event ``tip``).
With ``bumper`` and ``field`` the walls are contacts; ``external_force_x``,
``external_force_y`` and ``external_torque`` act on the centre of mass, at its height
(the load transfer follows the ground's forces only, see :mod:`simcore.models.chassis`).

Chassis: ``m dv/dt = sum F_i``, ``J domega/dt = sum (R p_i) x F_i - sum Q_i``
(``moi`` is the robot's yaw inertia without the modules' spin about their own axes).

Energy (``track_energy=True``): states ``energy_in`` (``∫ V_bus sum I_supply``),
``copper_loss``, ``conversion_loss`` (back-EMF power minus shaft power, non-zero
because WPILib's motor constants have ``Kt Kv != 1``; see :mod:`simcore.models.tank`),
``gear_loss``, ``friction_loss`` (the rotors' own friction, tyre slip and scrub,
steer scrub), ``impact_loss``, ``external_work``, and ``energy_in + external_work =
ΔKE + losses`` with ``KE = m |v|^2/2 + J omega^2/2 + sum (M_w wheel_speed_i^2 + J_s
(omega + steer_rate_i)^2)/2`` (output ``kinetic_energy``).

**In the compiled kernel.** A drive of four modules without a ``cog_height``, not a subclass, has a kernel form
(:mod:`simcore.kernel.swerve` on the chassis core :mod:`simcore.kernel.chassis`: the eight channels, the coupling
and the steer scrub, the tyres' traction modes and the wall contacts as an integer, the breakaway and grip events,
the energy ledger, the external inputs, its supply current on the battery's bus, and its walls where the bumper's
diagonal is shorter than the field's length and width: the ``wall`` impacts, the corners on the walls,
``leave_wall``): a simulation of built-in parts runs it compiled, and ``simulate_batch`` varies its ``mass``,
``moi`` and ``friction_coefficient``. Its evaluation, derivatives and outputs are then the kernel's on every path
(this class calls them); the others (other module counts, load transfer and the tip event, walls a bumper reaches
two opposite of) run on the Python path.
"""
from __future__ import annotations

import math

import numpy as np

from simcore import checks
from simcore.checks import STANDARD_GRAVITY
from simcore.errors import ConfigError, ConfigTypeError, IntegrationError
from simcore.events import StateEvent
from simcore.kernel import chassis_layout as _cl, loaded
from simcore.kernel import swerve_layout as _sl
from simcore.system import System

from .battery import SupplyCurve
from .chassis import (BACKWARD, BREAKAWAY_MARGIN, DRIVE_ENERGY_STATES, EXTERNAL_INPUTS, FORWARD, ROLL, Chassis,
                      ChassisDrive, ContactSolution, square_safe)
from .drive import MOTOR_DRIVE_KEYS, MotorDrive, drive_input_ranges, merge_legacy_drive_options, split_drive_options
from .motor_channels import ChannelState, MotorChannels, motor_friction
from .motors import DCMotor

__all__ = ["SwerveDrive", "ENERGY_STATES", "MOTOR_DRIVE_KEYS", "EXTERNAL_INPUTS", "module_layout",
           "DEFAULT_SCRUB_RADIUS"]

#: Energy-accounting states, J.
ENERGY_STATES = DRIVE_ENERGY_STATES

#: APPROXIMATION. Effective friction radius of a swerve wheel's contact patch for the steer scrub
#: torque, m: a third of the half-width of a 1.5 in tread (a uniformly pressed patch of radius a
#: has the Coulomb twisting torque (2/3) a mu N; a tread's patch is long and narrow).
DEFAULT_SCRUB_RADIUS = 0.0064

#: Distance below which two modules coincide, m.
_COINCIDENT = 1e-9

#: The kernel's mode codes of a four-wheel chassis drive (``27 w_0 + 9 w_1 + 3 w_2 + w_3``, each wheel's index in
#: (ROLL, FORWARD, BACKWARD); :func:`simcore.kernel.mecanum.wheel_mode`) by the drive's mode, and the modes by code.
KERNEL_MODE_CODES = {((a, b, c, d), ()): 27 * i + 9 * j + 3 * k + m
                     for i, a in enumerate((ROLL, FORWARD, BACKWARD)) for j, b in enumerate((ROLL, FORWARD, BACKWARD))
                     for k, c in enumerate((ROLL, FORWARD, BACKWARD)) for m, d in enumerate((ROLL, FORWARD, BACKWARD))}
KERNEL_MODES = tuple(sorted(KERNEL_MODE_CODES, key=KERNEL_MODE_CODES.get))
_WALL_MODES = None


def kernel_wall_modes():
    """The kernel's modes of a four-wheel chassis drive with walls, indexed by code (the wheels' code plus 81 times
    the index of the wall contacts in simcore.kernel.chassis_layout.CONTACT_SETS), and their codes by mode (built
    at first use)."""
    global _WALL_MODES
    if _WALL_MODES is None:
        from simcore.kernel.chassis_layout import N_CONTACT_SETS, contacts_of_set

        modes = tuple((wheels, contacts_of_set(j)) for j in range(N_CONTACT_SETS) for wheels, _ in KERNEL_MODES)
        _WALL_MODES = modes, {m: c for c, m in enumerate(modes)}
    return _WALL_MODES


def _swerve_kernel():
    """The compiled swerve drive (imported at first use: building a model loads no numba)."""
    return loaded("swerve")


def kernel_events(drive, guard_base: int, walls: bool = False) -> dict:
    """A four-wheel chassis drive's events by their kernel id (wheel ``i``'s breakaway ``i``, its grips slipping
    forward and backward ``4 + 2 i`` and ``5 + 2 i``; with ``walls``, wall ``w``'s event ``12 + w`` and the
    leave_wall of contact ``(wall, corner)`` ``16 + 4 wall + corner``), each marked with its guard's code (the id
    plus ``guard_base``)."""
    events = {}
    for i in range(4):
        events[i] = drive._breakaway[i]
        events[4 + 2 * i] = drive._grip[(i, FORWARD)]
        events[5 + 2 * i] = drive._grip[(i, BACKWARD)]
    if walls:
        # (each wall's event; a contact's leave_wall, its push in the present mode's order of contacts)
        for w, ev in enumerate(drive._wall_events):
            events[12 + w] = ev
        for b in range(16):
            events[16 + b] = StateEvent(_contact_push(drive, (b // 4, b % 4)), direction=-1, mode=drive._settle_event,
                                        name="leave_wall")
    for i, e in events.items():
        e.kernel_guard = guard_base + i
    return events


def kernel_mode_code(drive, mode) -> int:
    """The kernel's code of a four-wheel chassis drive's ``mode`` (None, before a mode is set: the wheels rolling),
    from its ``_MODE_CODES``; an IntegrationError for wall contacts no kernel mode holds."""
    code = drive._MODE_CODES.get(mode)
    if code is None:
        if mode is not None:
            raise IntegrationError(f"{drive.name}: wall contacts {mode[1]} that no kernel mode holds", float("nan"))
        return 0
    return code


def kernel_wall_forces(s) -> list:
    """The wall contacts' pushes in a kernel sample ``s`` (a list), N, in the mode's order."""
    return [s[_cl.S_CONTACTS + _cl.N_CS * q + _cl.CS_FORCE] for q in range(int(s[_cl.S_N_CONTACTS]))]


def _contact_push(drive, pair):
    """The guard of wall contact ``pair``'s leave_wall (ChassisDrive._leave_guard of its place in the mode)."""
    return lambda t, x, u: drive._sample(t, x, u).sol.wall_force[drive.mode[1].index(pair)]


def module_layout(parameter, positions, minimum=2):
    """Validate wheel/module contact positions: ``minimum`` or more distinct finite (x, y) pairs, m."""
    if isinstance(positions, (str, bytes)) or not hasattr(positions, "__iter__"):
        raise ConfigTypeError(parameter, positions, "a sequence of (x, y) positions in m")
    out = [checks.point(f"{parameter}[{i}]", p, "m") for i, p in enumerate(positions)]
    if len(out) < minimum:
        raise ConfigError(parameter, positions, f"at least {minimum} modules")
    for i, a in enumerate(out):
        for j in range(i):
            if math.dist(a, out[j]) < _COINCIDENT:
                raise ConfigError(parameter, positions, f"distinct positions (entries {j} and {i} coincide)")
    return out


class SwerveSample:
    """A swerve drive at one instant."""

    __slots__ = ("sol", "slip", "slip_free", "pose", "velocity", "wheel_speed", "rotor_speed", "channels",
                 "lateral_slip", "steer_accel", "scrub_torque", "friction_power", "external_power", "bus")


class SwerveDrive(ChassisDrive, System):
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
        Tyre-ground ``mu`` (default 1.2, maple-sim's value for FRC carpet), along and
        across the wheel.
    name : str
        Default ``"swerve"``.
    wheel_inertia : float or Quantity
        Each wheel's spinning inertia with its gears, kg·m² (default 0.005).
    steer_inertia : float or Quantity
        Each module's inertia about its steering axis, kg·m² (default 0.005).
    drive_rotor_inertia, steer_rotor_inertia : float or Quantity
        One rotor's inertia, kg·m² (default 0), reflected through the gearing.
    slip_epsilon : float or Quantity
        ``eps`` of the sideways tyre law and the scrub torque, m/s (default 0.02).
    gravity : float
        m/s² (default standard gravity).
    drive_options, steer_options : mapping, optional
        Deprecated (a DeprecationWarning): the same keywords as ``**options``, as a
        mapping per motor group.
    track_energy : bool
        Add the energy-accounting states.
    start_pose : (x, y, heading)
        m, m, rad.
    start_steer_angles : sequence of float, optional
        Initial steer angles, rad (default 0).
    couple_ratio : float
        Drive-motor turns per module turn with the wheel held (default 0: no
        coupling; see the module docstring).
    scrub_radius : float or Quantity
        Effective friction radius of the contact patch for the steer scrub torque, m
        (default :data:`DEFAULT_SCRUB_RADIUS`; 0: none).
    cog_height : float or Quantity
        Centre-of-mass height, m (default 0: no load transfer).
    bumper : (length, width), optional
        Bumper outline, m.
    field : field, optional
        With ``bumper``, the field's walls are contacts (``simcore.field.FRC_FIELD``, ...).
    **options
        The drive motors' keywords: :class:`~simcore.models.drive.MotorDrive`'s
        (``n_motors``, ``efficiency``, ``neutral_mode``, ``stator_current_limit``,
        ``supply_current_limit``, ``command``, ``nominal_bus_voltage``) and
        ``viscous_friction`` (the motors' own friction at the wheel rim, per module,
        N·s/m; default: the friction the datasheet free current implies, 0 the ideal
        motor); the steer motors' the same with the prefix ``steer_``
        (``steer_stator_current_limit=40``; ``steer_viscous_friction`` at the steering
        axis, N·m·s/rad).

    Notes
    -----
    States: ``x, y, heading, vx, vy, omega`` then ``steer_angle_i``,
    ``steer_rate_i``, ``wheel_speed_i``, ``wheel_distance_i`` for every module
    (grouped by kind), then the energy states. Inputs: ``drive_voltage_i`` and
    ``steer_voltage_i`` (``_duty_`` with ``command="duty"``), ``drive_brake``,
    ``steer_brake`` (1 brake, 0 coast), ``external_force_x``, ``external_force_y``,
    ``external_torque`` and ``bus_voltage`` (one bus for all motors; a
    :class:`~simcore.models.battery.Battery` solves it). Outputs: ``robot_vx``,
    ``robot_vy``, ``supply_current`` (total), ``kinetic_energy`` and per module
    ``slip_speed_i``, ``ground_force_i``, ``drive_stator_current_i``,
    ``drive_supply_current_i``, ``drive_applied_voltage_i``,
    ``steer_stator_current_i``, ``steer_supply_current_i``,
    ``steer_applied_voltage_i``, ``drive_rotor_position_i``, ``scrub_torque_i``,
    ``normal_force_i``; ``supply_voltage``; ``wall_force`` with walls.
    """

    def __init__(self, drive_motor, steer_motor, *, module_positions, drive_gearing, steer_gearing, wheel_radius,
                 mass, moi, friction_coefficient=1.2, name: str = "swerve", wheel_inertia=0.005,
                 steer_inertia=0.005, drive_rotor_inertia=0.0, steer_rotor_inertia=0.0, slip_epsilon=0.02,
                 gravity=STANDARD_GRAVITY, drive_options=None, steer_options=None, track_energy: bool = False,
                 start_pose=(0.0, 0.0, 0.0), start_steer_angles=None, couple_ratio=0.0,
                 scrub_radius=DEFAULT_SCRUB_RADIUS, cog_height=0.0, bumper=None, field=None, **options):
        self.module_positions = module_layout("module_positions", module_positions)
        n = self.n_modules = len(self.module_positions)
        # The drive motors' keywords plain, the steer motors' prefixed steer_ (the old dicts merged in, deprecated).
        options = merge_legacy_drive_options(type(self), "drive_options", drive_options, options)
        options = merge_legacy_drive_options(type(self), "steer_options", steer_options, options, prefix="steer_")
        steer_kw, options = split_drive_options(type(self), options, prefix="steer_", strict=False,
                                                gearing_keyword="steer_gearing")
        drive_kw, friction = split_drive_options(type(self), options, gearing_keyword="drive_gearing",
                                                 accepted=("viscous_friction", "steer_viscous_friction"))
        for parameter, motor in (("drive_motor", drive_motor), ("steer_motor", steer_motor)):
            if not isinstance(motor, DCMotor):
                raise ConfigTypeError(parameter, motor, "a simcore.models.motors.DCMotor")
        self.drive = MotorDrive(drive_motor, drive_gearing, **drive_kw)
        self.steer = MotorDrive(steer_motor, steer_gearing, **steer_kw)
        if self.steer.nominal_bus_voltage != self.drive.nominal_bus_voltage:
            # One bus feeds every motor (the bus_voltage input); two nominal values would be ignored.
            raise ConfigError("steer_nominal_bus_voltage", self.steer.nominal_bus_voltage,
                              f"the drive's nominal_bus_voltage {self.drive.nominal_bus_voltage} V (one bus "
                              "feeds every motor; give both the same)")
        self.wheel_radius = square_safe("wheel_radius", wheel_radius, "m", what="radius")
        self.mass = checks.positive("mass", mass, "kg", what="mass")
        self.moi = checks.positive("moi", moi, "kg*m**2", what="moment of inertia")
        self.friction_coefficient = checks.positive("friction_coefficient", friction_coefficient,
                                                    what="friction coefficient")
        self.wheel_inertia = checks.nonnegative("wheel_inertia", wheel_inertia, "kg*m**2", what="inertia")
        self.steer_inertia = checks.nonnegative("steer_inertia", steer_inertia, "kg*m**2", what="inertia")
        self.drive_rotor_inertia = checks.nonnegative("drive_rotor_inertia", drive_rotor_inertia, "kg*m**2",
                                                      what="inertia")
        self.steer_rotor_inertia = checks.nonnegative("steer_rotor_inertia", steer_rotor_inertia, "kg*m**2",
                                                      what="inertia")
        self.slip_epsilon = square_safe("slip_epsilon", slip_epsilon, "m/s", what="speed")
        self.gravity = checks.positive("gravity", gravity, "m/s**2", what="acceleration")
        self.couple_ratio = square_safe("couple_ratio", couple_ratio, what="ratio", signed=True)
        self.scrub_radius = checks.nonnegative("scrub_radius", scrub_radius, "m", what="radius")
        r = self.wheel_radius
        Gd, Gs = self.drive.gearing, self.steer.gearing
        #: Equivalent mass of a wheel's rotating parts at its rim, kg.
        self.wheel_mass = (self.wheel_inertia + self.drive.n_motors * self.drive_rotor_inertia * Gd * Gd) / (r * r)
        if not self.wheel_mass > 0:
            raise ConfigError("wheel_inertia", wheel_inertia, "a positive inertia (or drive_rotor_inertia > 0)")
        #: Steering inertia of a module with its reflected rotors, kg·m².
        self.steer_moi = (self.steer_inertia + self.steer.n_motors * self.steer_rotor_inertia * Gs * Gs
                          + self.drive.n_motors * self.drive_rotor_inertia * self.couple_ratio ** 2)
        if not self.steer_moi > 0:
            raise ConfigError("steer_inertia", steer_inertia, "a positive inertia (or steer_rotor_inertia > 0)")
        self.normal_load = self.mass * self.gravity / n
        self.track_energy = checks.flag("track_energy", track_energy)
        self.start_pose = checks.pose("start_pose", start_pose)
        self.start_steer_angles = ((0.0,) * n if start_steer_angles is None
                                   else checks.angles("start_steer_angles", start_steer_angles, n))
        self.chassis = Chassis(mass=self.mass, moi=self.moi, contacts=self.module_positions,
                               wheel_of_contact=range(n), gravity=self.gravity, cog_height=cog_height, bumper=bumper,
                               field=field, layout=(("module_positions", module_positions, self.module_positions),))
        self.cog_height = self.chassis.cog_height
        self.chassis.check_inside("start_pose", self.start_pose)
        self.bumper, self.field = self.chassis.bumper, self.chassis.field
        self.traction_limits = [self.friction_coefficient] * n
        self.chassis.set_wheels(couple=(1.0,) * n, couple_free=(0.0,) * n, mass_eq=(self.wheel_mass,) * n,
                                mu=self.traction_limits, free_of_wheel=(-1,) * n)
        self._lateral_fixed = False
        self._px = np.array([p[0] for p in self.module_positions])
        self._py = np.array([p[1] for p in self.module_positions])
        self._pxl, self._pyl = self._px.tolist(), self._py.tolist()
        self._kd = Gd / r
        # The motors' own friction: from the datasheet free current unless given (0: the ideal motor).
        self.viscous_friction, bd = motor_friction("viscous_friction", friction.get("viscous_friction"), self.drive,
                                                   self._kd, "N*s/m")
        self.steer_viscous_friction, bs = motor_friction("steer_viscous_friction",
                                                         friction.get("steer_viscous_friction"), self.steer, Gs,
                                                         "N*m*s/rad")
        self.channels = MotorChannels([self.drive] * n + [self.steer] * n, [bd] * n + [bs] * n)
        self._names(name)
        self._setup_modes()
        # Four modules without load transfer, and without walls or with walls their bumper cannot touch two opposite
        # of at once, are evaluated by the kernel's form (simcore.kernel.swerve) on every path, their derivatives
        # and outputs too.
        self._kernel_eval = n == _sl.N_SWERVE_MODULES and not self.chassis.tips and (
            not self.chassis.walls or _cl.walls_fit(self.chassis.bumper, self.chassis.field))
        if self.chassis.walls and self._kernel_eval:
            self.KERNEL_MODES, self._MODE_CODES = kernel_wall_modes()
        self._kernel_p = None
        self._refresh_kernel()
        if self._kernel_eval:
            self.kernel_events = kernel_events(self, _sl.SWERVE_GUARD_BASE, walls=bool(self.chassis.walls))

    def _names(self, name):
        n = self.n_modules
        dc, sc = self.drive.command, self.steer.command
        idx = range(n)
        states = ["x", "y", "heading", "vx", "vy", "omega"]
        states += [f"steer_angle_{i}" for i in idx] + [f"steer_rate_{i}" for i in idx]
        states += [f"wheel_speed_{i}" for i in idx] + [f"wheel_distance_{i}" for i in idx]
        self._ie = None
        if self.track_energy:
            self._ie = len(states)
            states += list(ENERGY_STATES)
            self.energy_index = self._ie + ENERGY_STATES.index("impact_loss")
        inputs = [f"drive_{dc}_{i}" for i in idx] + [f"steer_{sc}_{i}" for i in idx]
        inputs += ["drive_brake", "steer_brake"] + list(EXTERNAL_INPUTS) + ["bus_voltage"]
        per = ("slip_speed", "ground_force", "drive_stator_current", "drive_supply_current",
               "drive_applied_voltage", "steer_stator_current", "steer_supply_current", "steer_applied_voltage",
               "drive_rotor_position", "scrub_torque", "normal_force")
        outputs = ["robot_vx", "robot_vy", "supply_current", "kinetic_energy"]
        outputs += [f"{o}_{i}" for o in per for i in idx] + ["supply_voltage"]
        if self.chassis.walls:
            outputs.append("wall_force")
        units = {"x": "m", "y": "m", "heading": "rad", "vx": "m/s", "vy": "m/s", "omega": "rad/s",
                 "robot_vx": "m/s", "robot_vy": "m/s", "supply_current": "A", "kinetic_energy": "J",
                 "bus_voltage": "V", "drive_brake": "", "steer_brake": "", "supply_voltage": "V", "wall_force": "N",
                 "external_force_x": "N", "external_force_y": "N", "external_torque": "N*m"}
        unit_of = {"steer_angle": "rad", "steer_rate": "rad/s", "wheel_speed": "m/s", "wheel_distance": "m",
                   "slip_speed": "m/s", "ground_force": "N", "drive_stator_current": "A",
                   "drive_supply_current": "A", "drive_applied_voltage": "V", "steer_stator_current": "A",
                   "steer_supply_current": "A", "steer_applied_voltage": "V", "drive_rotor_position": "rad",
                   "scrub_torque": "N*m", "normal_force": "N",
                   f"drive_{dc}": "V" if dc == "voltage" else "", f"steer_{sc}": "V" if sc == "voltage" else ""}
        for key, unit in unit_of.items():
            units.update({f"{key}_{i}": unit for i in idx})
        units.update({s: "J" for s in ENERGY_STATES})
        System.__init__(self, name, states, inputs, outputs, units)
        self.input_ranges = drive_input_ranges(self.input_names)
        self._ibrake = 2 * n
        self._iext = 2 * n + 2
        self._ibus = 2 * n + 5
        #: Names of the inputs that command the motors (for the battery's brownout "disable").
        self.motor_command_inputs = tuple(self.input_names[:2 * n])

    # -- System interface -------------------------------------------------------------------------
    def initial_state(self):
        n = self.n_modules
        x = np.zeros(len(self.state_names))
        x[0], x[1], x[2] = self.start_pose
        x[6:6 + n] = self.start_steer_angles
        return x

    def initial_inputs(self):
        n = self.n_modules
        u = np.zeros(len(self.input_names))
        u[2 * n] = 1.0 if self.drive.neutral_mode == "brake" else 0.0
        u[2 * n + 1] = 1.0 if self.steer.neutral_mode == "brake" else 0.0
        u[self._ibus] = self.drive.nominal_bus_voltage
        return u

    def drive_free_speed(self, voltage: float) -> float:
        """Steady wheel rim speed with ``voltage`` on a drive motor and no load but the motors' own friction, m/s."""
        return self.channels.free_rotor_speed(voltage) / self._kd

    def _kinematics(self, xl):
        """(state list, cos, sin, robot-frame vx, vy, omega, per module cos and sin of the steer angle and the
        contact velocity along and across the wheel)."""
        n = self.n_modules
        c, s = math.cos(xl[2]), math.sin(xl[2])
        vx, vy, om = c * xl[3] + s * xl[4], -s * xl[3] + c * xl[4], xl[5]
        cos, sin = math.cos, math.sin
        ce, se, along, across = [], [], [], []
        for phi, px, py in zip(xl[6:6 + n], self._pxl, self._pyl):
            ci, si = cos(phi), sin(phi)
            qx, qy = vx - om * py, vy + om * px
            ce.append(ci)
            se.append(si)
            along.append(qx * ci + qy * si)
            across.append(qy * ci - qx * si)
        return xl, c, s, vx, vy, om, ce, se, along, across

    def _rotors(self, xl, wheels, along):
        """Rim speeds (a rolling wheel's its ground speed) and the 2n rotor speeds (drive, then steer)."""
        n = self.n_modules
        kd, ks, cr = self._kd, self.steer.gearing, self.couple_ratio
        w = [a if m == ROLL else ws for a, m, ws in zip(along, wheels, xl[6 + 2 * n:6 + 3 * n])]
        rates = xl[6 + n:6 + 2 * n]
        return w, [kd * wi + cr * rt for wi, rt in zip(w, rates)] + [ks * rt for rt in rates]

    def _evaluate(self, x, u, mode):
        if self._kernel_on:
            return self._evaluate_in_kernel(x, u, mode)
        ul = u.tolist()
        n = self.n_modules
        wheels, contacts = mode
        xl, c, s, vx, vy, om, ce, se, along, across = self._kinematics_of(x)
        w, rotor = self._rotors(xl, wheels, along)
        rates = xl[6 + n:6 + 2 * n]
        bus = ul[self._ibus]
        chs = self.channels.evaluate(rotor, ul, [ul[2 * n]] * n + [ul[2 * n + 1]] * n, bus)
        r, cr = self.wheel_radius, self.couple_ratio
        tout, tm, tf = chs.output_torque, chs.motor_torque, chs.friction_torque
        mu, eps2 = self.friction_coefficient, self.slip_epsilon ** 2
        D, Q, coef, free_dirs, arm, free_arm, hterm, slip_free, slip = [], [], [], [], [], [], [], [], []
        for i in range(n):
            ci, si, px, py, sn = ce[i], se[i], self._pxl[i], self._pyl[i], across[i]
            D.append(tout[i] / r)  # tout: net of the rotor's friction
            # Torque on the module's steering: the steer motor's, and the drive motor's through the coupling.
            Q.append(tout[n + i] + cr * (tm[i] - tf[i]))
            coef.append(mu * sn / math.sqrt(sn * sn + eps2))
            free_dirs.append((-si, ci))
            arm.append(px * si - py * ci)
            free_arm.append(px * ci + py * si)
            hterm.append(om * (vy * ci - vx * si) + rates[i] * sn)
            sf = xl[6 + 2 * n + i] - along[i]
            slip_free.append(sf)
            slip.append(0.0 if wheels[i] == ROLL else sf)
        ie = self._iext
        fx, fy, tz = ul[ie], ul[ie + 1], ul[ie + 2]
        sol = self.chassis.solve(vx, vy, om, ce, se, arm, hterm, D, wheels, free_dirs, free_arm, coef,
                                 c * fx + s * fy, -s * fx + c * fy, tz - sum(Q),
                                 self.chassis.wall_rows(contacts, om, c, s) if contacts else ())
        # Steer scrub: the patch twisting at the module's absolute yaw rate, fading with the rolling speed.
        rho, J_s, alpha = self.scrub_radius, self.steer_moi, sol.alpha
        normal = sol.normal
        scrub, steer_accel = [], []
        for i in range(n):
            spin = om + rates[i]
            if rho:
                tw = rho * spin
                ts = -mu * normal[i] * rho * tw / math.sqrt(tw * tw + along[i] * along[i] + eps2)
            else:
                ts = 0.0
            scrub.append(ts)
            steer_accel.append((Q[i] + ts) / J_s - alpha)
        smp = SwerveSample()
        smp.sol = sol
        smp.slip_free = slip_free
        smp.slip = slip
        smp.lateral_slip = across
        smp.scrub_torque = scrub
        smp.steer_accel = steer_accel
        smp.pose = (xl[0], xl[1], c, s)
        smp.velocity = (vx, vy, om)
        smp.wheel_speed = w
        smp.rotor_speed = rotor
        smp.channels = chs
        smp.bus = bus
        if self.track_energy:  # the power terms only the energy ledger integrates
            f, g = sol.traction, sol.free_force
            fric = 0.0
            for i in range(n):
                fric += tf[i] * rotor[i] + tf[n + i] * rotor[n + i]
            for i in range(n):
                fric += f[i] * slip[i] - g[i] * across[i] - scrub[i] * (om + rates[i])
            smp.friction_power = fric
            smp.external_power = fx * xl[3] + fy * xl[4] + tz * om
        return smp

    def derivatives(self, t, x, u):
        if self._kernel_on:
            out = np.empty(len(self.state_names))
            _swerve_kernel().derivatives(self._kernel_p, 0, self._mode_code(), np.asarray(x, dtype=float), 0,
                                         np.asarray(u, dtype=float), 0, out)
            return out
        n = self.n_modules
        smp = self._sample(t, x, u)
        sol = smp.sol
        _, _, c, s = smp.pose
        out = np.empty(len(self.state_names))
        out[0], out[1], out[2] = x[3], x[4], x[5]
        out[3] = c * sol.ax - s * sol.ay
        out[4] = s * sol.ax + c * sol.ay
        out[5] = sol.alpha
        out[6:6 + n] = x[6 + n:6 + 2 * n]
        out[6 + n:6 + 2 * n] = smp.steer_accel
        out[6 + 2 * n:6 + 3 * n] = sol.wheel_accel
        out[6 + 3 * n:6 + 4 * n] = smp.wheel_speed
        if self.track_energy:
            chs, rotor, e = smp.channels, smp.rotor_speed, self._ie
            i = chs.stator_current
            dr, st = self.drive, self.steer
            Gd, r = dr.gearing, self.wheel_radius
            out[e] = smp.bus * sum(chs.supply_current)
            out[e + 1] = sum(v * v for v in i[:n]) * dr.R + sum(v * v for v in i[n:]) * st.R
            out[e + 2] = (sum(i[k] * rotor[k] for k in range(n)) * (1.0 / dr.Kv - dr.Kt)
                          + sum(i[k] * rotor[k] for k in range(n, 2 * n)) * (1.0 / st.Kv - st.Kt))
            tm, tout, tf = chs.motor_torque, chs.output_torque, chs.friction_torque
            w = smp.wheel_speed
            rates = x[6 + n:6 + 2 * n]
            gear = sum((tm[k] - tf[k]) * Gd * w[k] / r - tout[k] * w[k] / r for k in range(n))
            gear += sum((tm[n + k] - tf[n + k]) * rotor[n + k] - tout[n + k] * rates[k] for k in range(n))
            out[e + 3] = gear
            out[e + 4] = smp.friction_power
            out[e + 5] = 0.0
            out[e + 6] = smp.external_power
        return out

    def kinetic_energy(self, x) -> float:
        """Kinetic energy of chassis, wheels and steering, J, at state ``x``."""
        n = self.n_modules
        vx, vy, om = x[3], x[4], x[5]
        absolute = om + np.asarray(x[6 + n:6 + 2 * n])
        w = np.asarray(x[6 + 2 * n:6 + 3 * n])
        return float(0.5 * (self.mass * (vx * vx + vy * vy) + self.moi * om * om
                            + self.wheel_mass * (w * w).sum() + self.steer_moi * (absolute * absolute).sum()))

    def outputs(self, t, x, u):
        if self._kernel_on:
            out = np.empty(_sl.n_swerve_outputs(bool(self.chassis.walls)))
            _swerve_kernel().outputs(self._kernel_p, 0, self._mode_code(), np.asarray(x, dtype=float), 0,
                                     np.asarray(u, dtype=float), 0, out, 0)
            return out.tolist()
        n = self.n_modules
        smp = self._sample(t, x, u)
        sol, chs = smp.sol, smp.channels
        vx, vy, _ = smp.velocity
        out = [vx, vy, sum(chs.supply_current), self.kinetic_energy(x)]
        out += [math.hypot(smp.slip[i], smp.lateral_slip[i]) for i in range(n)]
        out += [math.hypot(sol.traction[i], sol.free_force[i]) for i in range(n)]
        out += chs.stator_current[:n] + chs.supply_current[:n] + chs.applied_voltage[:n]
        out += chs.stator_current[n:] + chs.supply_current[n:] + chs.applied_voltage[n:]
        kd = self.drive.gearing / self.wheel_radius
        out += [kd * x[6 + 3 * n + i] + self.couple_ratio * x[6 + i] for i in range(n)]
        out += smp.scrub_torque + sol.normal + [smp.bus]
        if self.chassis.walls:
            out.append(sum(sol.wall_force))
        return out

    def supply_current_at(self, x, u, bus_voltage: float) -> float:
        """The eight motors' supply current, A, at bus voltage ``bus_voltage`` V (for the Battery)."""
        if self._kernel_on:
            return _swerve_kernel().supply_current_at(self._kernel_p, 0, self._mode_code(), np.asarray(x, dtype=float),
                                                      0, np.asarray(u, dtype=float), 0, float(bus_voltage))
        return super().supply_current_at(x, u, bus_voltage)

    def supply_current_curve(self, x, u):
        """The motors' supply current as a function of the bus voltage (a SupplyCurve), or None with current
        limits."""
        if self.channels.any_limits:
            return None
        if self._kernel_on:  # the kernel's assembly of the eight motors' pieces
            abc, breaks = np.zeros(3), np.empty((8, 4))
            nb = _swerve_kernel().add_supply_curve(self._kernel_p, 0, self._mode_code(), np.asarray(x, dtype=float),
                                                   0, np.asarray(u, dtype=float), 0, abc, breaks, 0)
            a, b, c = abc.tolist()
            return SupplyCurve(a, b, c, [tuple(row) for row in breaks[:nb].tolist()])
        return super().supply_current_curve(x, u)

    def initial_mode(self, t, x, u):
        self._refresh_kernel()
        return super().initial_mode(t, x, u)

    def _speeds_and_commands(self, x, u):
        n = self.n_modules
        ul = u.tolist()
        wheels = self.mode[0] if self.mode else (ROLL,) * n
        kin = self._kinematics_of(x)
        _, rotor = self._rotors(kin[0], wheels, kin[8])
        return rotor, ul[0:2 * n], [ul[2 * n]] * n + [ul[2 * n + 1]] * n

    # -- the chassis mixin's hooks ------------------------------------------------------------------
    def _snap(self, x, wheels):
        x = np.array(x, dtype=float)
        if wheels:
            n = self.n_modules
            along = self._kinematics(x.tolist())[8]
            for i in wheels:
                x[6 + 2 * n + i] = along[i]
        return x

    def _with_velocity(self, x, vx, vy, om):
        x = np.array(x, dtype=float)
        c, s = math.cos(x[2]), math.sin(x[2])
        x[3], x[4], x[5] = c * vx - s * vy, s * vx + c * vy, om
        return x

    # -- the kernel form (simcore.kernel.swerve) -----------------------------------------------------
    KERNEL_MODES = KERNEL_MODES
    _MODE_CODES = KERNEL_MODE_CODES

    #: The parameters a batch varies (``simcore.simulate_batch``'s ``params["<name>.<parameter>"]``) and their units.
    BATCH_PARAMETERS = ("mass", "moi", "friction_coefficient")
    _BATCH_UNITS = {"mass": "kg", "moi": "kg*m**2", "friction_coefficient": ""}

    def kernel_parameters(self, overrides: dict | None = None, n: int = 1) -> np.ndarray:
        """The parameter vector of this drive in the compiled kernel, for ``n`` variants at once.

        The constructor calls it with no overrides, :meth:`kernel_form` returns its row, and a batch calls it with
        its variants' values (:attr:`BATCH_PARAMETERS`: ``mass``, ``moi``, ``friction_coefficient``). What the
        constructor derives from them is derived again from each variant's value with its rules (the loads at
        rest are ``m g`` times each contact's share; the breakaway limit ``mu (1 + BREAKAWAY_MARGIN)``), so row
        ``j`` is the vector of the drive built with variant ``j``'s values, to the bit.

        Parameters
        ----------
        overrides : mapping of str to array-like or Quantity, optional
            Batch parameter -> ``n`` values in SI units or as a pint Quantity (one value serves every variant).
        n : int
            Number of variants.

        Returns
        -------
        numpy.ndarray
            Shape ``(n, N_SWERVE_PARAMETERS)``, laid out by :mod:`simcore.kernel.swerve_layout`.

        Raises
        ------
        ConfigError
            A parameter this drive does not batch, a value the constructor would refuse (naming
            ``params['<name>.<parameter>'][j]``), or a drive the kernel has no form of (not four modules, load
            transfer, or walls its bumper can touch two opposite of at once).
        """
        n = checks.integer("n", n, minimum=1)
        if not self._kernel_eval:
            raise ConfigError(f"params[{self.name!r}]", sorted(overrides or {}),
                              "a SwerveDrive of four modules without cog_height, and with walls a bumper whose "
                              "diagonal is shorter than the field's length and width (the compiled kernel's swerve)")
        from .tank import batch_values, channel_parameters

        ch = self.chassis
        # (the values as they are now: the Python path reads them at each evaluation)
        values = {"mass": np.full(n, float(ch.mass)), "moi": np.full(n, float(ch.moi)),
                  "friction_coefficient": np.full(n, float(self.friction_coefficient))}
        varied = overrides or {}
        for key, value in varied.items():
            values[key] = batch_values(self, key, value, n, self.BATCH_PARAMETERS, self._BATCH_UNITS.get(key, ""))
        m, mu = values["mass"], values["friction_coefficient"]

        p = np.empty((n, _sl.n_swerve_parameters(bool(ch.walls))))
        p[:, _sl.SW_WALLS] = 0.0
        if ch.walls:  # (the walls block after the wheels')
            p[:, _sl.SW_WALLS] = _sl.N_SWERVE_PARAMETERS
            p[:, _sl.N_SWERVE_PARAMETERS:] = _cl.wall_block(ch)
        dr, st, ch_ = self.drive, self.steer, self.channels
        channel_parameters(p, dr, dr.gearing, ch_.viscous[0], ch_._limited[0])
        steer = p[:, _sl.SW_STEER:]
        channel_parameters(steer, st, st.gearing, ch_.viscous[self.n_modules], ch_._limited[self.n_modules])
        p[:, _sl.SW_K], p[:, _sl.SW_WHEEL_RADIUS] = self._kd, self.wheel_radius
        p[:, _sl.SW_MASS], p[:, _sl.SW_MOI], p[:, _sl.SW_WHEEL_MASS] = m, values["moi"], ch.mass_eq[0]
        p[:, _sl.SW_STEER_MOI], p[:, _sl.SW_COUPLE_RATIO] = self.steer_moi, self.couple_ratio
        p[:, _sl.SW_SCRUB_RADIUS], p[:, _sl.SW_MU] = self.scrub_radius, mu
        p[:, _sl.SW_SLIP_EPS2] = self.slip_epsilon ** 2
        p[:, _sl.SW_TRACK_ENERGY] = 1.0 if self.track_energy else 0.0
        p[:, _sl.SW_ANY_LIMITED] = 1.0 if ch_.any_limits else 0.0
        p[:, _sl.SW_DRIVE_BRAKE], p[:, _sl.SW_STEER_BRAKE] = self._ibrake, self._ibrake + 1
        p[:, _sl.SW_EXTERNAL], p[:, _sl.SW_BUS] = self._iext, self._ibus
        # The chassis: m g times each contact's share; its grip (the Python path's per wheel, as the drive's).
        load0 = [m * self.gravity * f for f in ch.load_share] if "mass" in varied else ch.load0
        grip = [mu] * 4 if "friction_coefficient" in varied else ch.mu
        limit = ([mu * (1.0 + BREAKAWAY_MARGIN)] * 4 if "friction_coefficient" in varied else
                 [lim * (1.0 + BREAKAWAY_MARGIN) for lim in self.traction_limits])
        for i in range(self.n_modules):
            o = _sl.SW_WHEELS + _cl.N_WHEEL * i
            p[:, o:o + _cl.N_WHEEL] = 0.0  # (the directions steer: the evaluation writes them into its sample)
            p[:, o + _cl.W_MASS_EQ], p[:, o + _cl.W_MU] = ch.mass_eq[i], grip[i]
            p[:, o + _cl.W_MU_BREAKAWAY] = limit[i]
            p[:, o + _cl.W_LOAD0] = load0[i]
            p[:, o + _cl.W_LOAD_X], p[:, o + _cl.W_LOAD_Y] = ch.wheel_load_x[i], ch.wheel_load_y[i]
            p[:, o + _cl.W_PX], p[:, o + _cl.W_PY] = self._pxl[i], self._pyl[i]
        return p

    def _refresh_kernel(self) -> None:
        """The kernel's parameters from the drive as it is now (a simulation starts), and whether the kernel
        evaluates the drive: not with motor channels of another kind."""
        self._kernel_on = self._kernel_eval and type(self.channels) is MotorChannels
        if self._kernel_eval:
            self._kernel_p = self.kernel_parameters()[0]

    def kernel_form(self):
        """``(kind, parameters, mode names)`` of this drive in the compiled kernel (:mod:`simcore.kernel.swerve`),
        or None where the kernel has no form of it yet (then the simulation takes the Python path): other than
        four modules, a ``cog_height`` (load transfer and the tip event), walls its bumper can touch two opposite of at
        once (a field shorter or narrower than the bumper's diagonal), motor channels of another kind, or a subclass."""
        self._refresh_kernel()
        if not self._kernel_on or type(self) is not SwerveDrive:
            return None
        from simcore.kernel.drivetrains import KIND_SWERVE

        return KIND_SWERVE, self._kernel_p, self.KERNEL_MODES

    def _mode_code(self, mode=None) -> int:
        """The kernel's code of ``mode`` (default the present one; the wheels rolling before a mode is set)."""
        return kernel_mode_code(self, self.mode if mode is None else mode)

    def _evaluate_in_kernel(self, x, u, mode):
        """:meth:`_evaluate` by the kernel's form (:func:`simcore.kernel.swerve.evaluate`)."""
        s = np.empty(_sl.N_SWERVE_SAMPLE)
        _swerve_kernel().evaluate(self._kernel_p, 0, self._mode_code(mode), np.asarray(x, dtype=float), 0,
                                  np.asarray(u, dtype=float), 0, s)
        s = s.tolist()
        n = self.n_modules
        rows = [s[_cl.S_WHEELS + _cl.N_WS * i:_cl.S_WHEELS + _cl.N_WS * (i + 1)] for i in range(n)]
        mods = [s[_sl.SM_BASE + _sl.N_SM * i:_sl.SM_BASE + _sl.N_SM * (i + 1)] for i in range(n)]
        sol = ContactSolution()
        sol.ax, sol.ay, sol.alpha = s[_cl.S_AX], s[_cl.S_AY], s[_cl.S_ALPHA]
        sol.wall_force = kernel_wall_forces(s)
        sol.normal = [w[_cl.WS_NORMAL] for w in rows]
        sol.free_force = [w[_cl.WS_G] for w in rows]
        sol.traction = [w[_cl.WS_F] for w in rows]
        sol.wheel_accel = [w[_cl.WS_WA] for w in rows]
        chs = ChannelState()
        c0, m0 = _cl.WS_CHANNEL, _sl.SM_CHANNEL
        (chs.applied_voltage, chs.stator_current, chs.supply_current, chs.saturated, chs.current_limited,
         chs.motor_torque, chs.output_torque, chs.friction_torque) = zip(
            *([w[c0:c0 + 8] for w in rows] + [m[m0:m0 + 8] for m in mods]))
        smp = SwerveSample()
        smp.sol = sol
        smp.slip_free = [w[_cl.WS_SLIP_FREE] for w in rows]
        smp.slip = [w[_cl.WS_SLIP] for w in rows]
        smp.lateral_slip = [w[_cl.WS_ACROSS] for w in rows]
        smp.scrub_torque = [m[_sl.SM_SCRUB] for m in mods]
        smp.steer_accel = [m[_sl.SM_STEER_ACCEL] for m in mods]
        xl = x.tolist()
        smp.pose = (xl[0], xl[1], s[_cl.S_COS], s[_cl.S_SIN])
        smp.velocity = (s[_cl.S_VX], s[_cl.S_VY], s[_cl.S_OM])
        smp.wheel_speed = [w[_cl.WS_W] for w in rows]
        smp.rotor_speed = [w[_cl.WS_ROTOR] for w in rows] + [m[_sl.SM_ROTOR] for m in mods]
        smp.channels = chs
        smp.bus = s[_cl.S_BUS]
        smp.friction_power = s[_cl.S_FRICTION_POWER]
        smp.external_power = s[_cl.S_EXTERNAL_POWER]
        return smp

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
        """Robot outline in the robot frame for field plots: the bumper, or the modules' box grown by a wheel, m."""
        if self.bumper is not None:
            hl, hw = self.bumper[0] / 2.0, self.bumper[1] / 2.0
            return [(hl, hw), (-hl, hw), (-hl, -hw), (hl, -hw)]
        pad = 2.0 * self.wheel_radius
        x0, x1 = self._px.min() - pad, self._px.max() + pad
        y0, y1 = self._py.min() - pad, self._py.max() + pad
        return [(x1, y1), (x0, y1), (x0, y0), (x1, y0)]
