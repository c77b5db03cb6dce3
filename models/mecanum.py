"""Mecanum drive: four wheels with 45-degree rollers on a rigid chassis, the standard FTC drivetrain.

Frames as :mod:`simcore.models.swerve`: chassis velocity states ``vx``, ``vy`` in the
field frame, ``omega`` the yaw rate; robot-frame velocities are the outputs
``robot_vx``, ``robot_vy``. Wheels are named ``front_left``, ``front_right``,
``rear_left``, ``rear_right``; each turns about an axle along the robot's y axis,
so its rim moves along the robot's forward direction ``e``.

Rollers: each wheel's contact is a roller whose axle makes 45 degrees with the
wheel's; it resists sliding along its axle and rolls across it. Seen from above
the rollers form an "X" (the usual FTC/WPILib layout): roller axle directions
(robot frame) ``front_left`` and ``rear_right`` along ``(1, -1)/sqrt(2)``,
``front_right`` and ``rear_left`` along ``(1, 1)/sqrt(2)``. With no slip, a wheel's
rim speed is ``(v_point . a) / (e . a)``, which is WPILib's
``MecanumDriveKinematics`` (``fl = vx - vy - omega (x + y)``, ...).

The mechanics are :mod:`simcore.models.chassis`'s, with each wheel's traction
direction its roller axle ``a`` and its free direction the roller's rolling
direction ``n = z x a``:

* **Along the roller axle**: exact Coulomb friction with modes. The roller grips
  (no slip along ``a``) while the force that takes is within ``mu N`` (``N`` the
  wheel's normal load), and slides at ``mu N`` past it (events ``breakaway`` and
  ``grip``). The wheel obeys ``M_w dw/dt = D - F . e`` with ``M_w = (wheel_inertia +
  n rotor_inertia G^2) / r^2`` and ``D = (T_out - G T_f) / r``.
* **Across it, the rollers roll**, against their rolling resistance: a force
  ``roller_friction * N`` (regularized Coulomb, ``eps = slip_epsilon``) opposing the
  roller's rolling speed ``(v_point - w e) . n``. Driving straight the rollers do
  not turn (no loss); strafing they roll at ``sqrt(2)`` times the strafe speed, so a
  strafe is slower than a drive forward at the same power and draws more current.
  The default :data:`DEFAULT_ROLLER_FRICTION` (0.03) is taken from a published
  measurement of passive-roller wheels (see its note); ``roller_friction=0`` gives
  frictionless rollers (a strafe as fast as a drive).

Chassis: ``m dv/dt = sum F`` and ``J domega/dt = sum p x F`` plus, with
``cog_height``, weight transfer, with ``bumper`` and ``field`` the walls, and the
external force inputs (see :mod:`simcore.models.chassis`).

Energy states (``track_energy=True``): ``energy_in``, ``copper_loss``,
``conversion_loss``, ``gear_loss``, ``friction_loss`` (the rotors' own friction,
roller slip along the axles and the rollers' rolling resistance), ``impact_loss``,
``external_work``; ``energy_in + external_work = ΔKE + losses``.

**FTC hubs.** Built from an FTC motor type (``MecanumDrive(GOBILDA_5203_312, ...)``:
the motor and gear ratio are the type's, ``command="duty"`` by default, and the
type is kept as ``motor_type``), each wheel is a hub channel: inputs
``<wheel>_duty`` and ``<wheel>_brake``, outputs ``<wheel>_rotor_position``,
``<wheel>_rotor_velocity`` (the motor shaft, what its encoder counts),
``<wheel>_stator_current``, ``<wheel>_supply_current`` and ``supply_voltage``. Every
mecanum drive with ``command="duty"`` has the per-wheel brake inputs; with
``command="voltage"`` one ``brake`` input serves all four.
These signals are in the wheel's frame (positive rolls the robot forward); a hub
channel maps them to its motor's own frame through its mounting, the left motors
mirrored by default (``mirrored_wheels``; :mod:`simcore.controllers.hub.motor`,
"Mounting"). Such a drive stands in the FTC field's walls by default (``field``).

**In the compiled kernel.** A drive without a ``cog_height``, with the plain motor channels (not
``from_roadrunner``'s Coulomb friction) and not a subclass, has a kernel form (:mod:`simcore.kernel.mecanum` on the
chassis core :mod:`simcore.kernel.chassis`: the four channels, the rollers' traction modes and the wall contacts as
an integer, the breakaway and grip events, the rollers' rolling resistance, the energy ledger, the external force
inputs, the odometry pods, its supply current on the battery's bus; and its walls, the FTC field's by default: the
``wall`` impacts, the corners on the walls, ``leave_wall``, where the bumper's diagonal is shorter than the
field's length and width, so that no two opposite walls hold it at once): a simulation of built-in parts runs it
compiled, and ``simulate_batch`` varies its ``mass``, ``moi``, ``wheel_radius``, ``gearing`` and
``friction_coefficient``. Its evaluation, derivatives and outputs are then the kernel's on every path (this class
calls them); the others (load transfer and the tip event, walls a bumper reaches two opposite of, Coulomb
friction) run on the Python path.
"""
from __future__ import annotations

import math

import numpy as np

from simcore import checks
from simcore.checks import STANDARD_GRAVITY
from simcore.errors import ConfigError
from simcore.system import System

from simcore.kernel import chassis_layout as _cl, loaded
from simcore.kernel import mecanum_layout as _ml

from .chassis import (BREAKAWAY_MARGIN, DEFAULT_FIELD, DRIVE_ENERGY_STATES as ENERGY_STATES,
                      EXTERNAL_INPUTS, ROLL, Chassis, ChassisDrive, ContactSolution, square_safe, walls_of)
from .drive import MotorDrive, drive_input_ranges, split_drive_options
from .battery import SupplyCurve
from .motor_channels import ChannelState, MotorChannels, motor_friction
from .odometry import odometry_pods_of, pod_rates, pod_readings, pod_signals
from .swerve import (KERNEL_MODE_CODES, KERNEL_MODES, kernel_events, kernel_mode_code, kernel_wall_forces,
                     kernel_wall_modes, module_layout)
from .tank import channel_parameters, drive_variants, motor_and_gearing

__all__ = ["MecanumDrive", "WHEELS", "ROLLER_AXES", "DEFAULT_ROLLER_FRICTION"]

#: Wheel names, in the order of every per-wheel signal.
WHEELS = ("front_left", "front_right", "rear_left", "rear_right")

_S = 1.0 / math.sqrt(2.0)
#: Roller axle directions in the robot frame ("X" seen from above).
ROLLER_AXES = ((_S, -_S), (_S, _S), (_S, _S), (_S, -_S))

#: Rolling resistance of the rollers, force per normal load (dimensionless). APPROXIMATION from
#: a published measurement: Duda, Gembalczyk, Machoczek and Kowalik (Silesian University of
#: Technology), "Experimental Evaluation of Rolling Resistance in Omnidirectional Wheels Under
#: Quasi-Static Conditions", Sensors 25(16):5026, 2025, measured the resistance of wheels with
#: passive rollers pushed at 0 to 90 degrees to their rolling direction under 117.7 N and
#: 215.8 N: mean forces of about 1 N to 10 N, i.e. about 0.005 to 0.09 of the load depending on
#: the direction (the most at 60 degrees). 0.03 lies within that range; measure your own wheels
#: (a strafe-against-forward speed test) for a better one.
DEFAULT_ROLLER_FRICTION = 0.03


def _mecanum_kernel():
    """The compiled mecanum drive (imported at first use: building a model loads no numba)."""
    return loaded("mecanum")


class MecanumSample:
    """A mecanum drive at one instant."""

    __slots__ = ("sol", "slip", "slip_free", "state", "pose", "velocity", "wheel_speed", "rotor_speed", "channels",
                 "roller_speed", "friction_power", "external_power", "bus")


class MecanumDrive(ChassisDrive, System):
    """A four-wheel mecanum drive with one motor (group) per wheel and friction-limited rollers.

    Parameters
    ----------
    motor : DCMotor or MotorType
        One wheel's motor, e.g. ``simcore.models.motors.GOBILDA_BARE``, or an FTC
        motor type (``simcore.models.hub_motor.GOBILDA_5203_312``: motor and gear
        ratio from it; see "FTC hubs" in the module docstring).
    gearing : float
        Motor turns per wheel turn (19.2 for a goBILDA 312 rpm gearmotor; None with a
        motor type).
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
        Roller-floor ``mu`` along the roller axles (default 1.0).
    name : str
        Default ``"mecanum"``.
    wheel_inertia : float or Quantity
        Each wheel's inertia about its axle with its gears, kg·m² (default 5e-4,
        a 96 mm, 0.4 kg wheel).
    rotor_inertia : float or Quantity
        One rotor's inertia, kg·m² (default 0), reflected through the gearing.
    slip_epsilon : float or Quantity
        ``eps`` of the rollers' regularized rolling resistance, m/s (default 0.02).
    gravity : float
        m/s².
    efficiency, neutral_mode, stator_current_limit, supply_current_limit, nominal_bus_voltage, n_motors
        As :class:`~simcore.models.drive.MotorDrive`, per wheel.
    command : {"voltage", "duty"}, optional
        As MotorDrive (default "voltage"; "duty" with a motor type). FTC code sets a
        power: use ``command="duty"``.
    track_energy : bool
    start_pose : (x, y, heading)
    wheel_positions : sequence of 4 (x, y), optional
        Contact positions ``front_left, front_right, rear_left, rear_right`` in the
        robot frame, m, instead of ``track_width``/``wheelbase`` (give those as None).
    roller_friction : float
        Rolling resistance of the rollers, force per normal load (default
        :data:`DEFAULT_ROLLER_FRICTION`; 0: free rollers).
    cog_height : float or Quantity
        Centre-of-mass height, m (default 0: no load transfer).
    bumper : (length, width), optional
        Bumper outline, m.
    field : field, optional
        With ``bumper``, the field's walls are contacts (``simcore.field.FTC_FIELD_WALLS``, ...).
        Default: built from an FTC motor type, the FTC field's perimeter centred on the
        origin, with an 18 in square bumper unless ``bumper`` is given
        (:func:`~simcore.models.chassis.walls_of`); otherwise none. ``None``: no walls.
    viscous_friction : float or Quantity, optional
        The motors' own viscous friction at the wheel rim, per wheel, N·s/m. Default:
        the friction the datasheet free current implies; 0 the ideal motor.
    odometry_pods : sequence of OdometryPod, optional
        Dead wheels rolling with the chassis (:mod:`simcore.models.odometry`): each adds the
        state ``<pod>_distance`` (m) and the outputs ``<pod>_rotor_position`` (rad) and
        ``<pod>_rotor_velocity`` (rad/s) a hub encoder port reads (``hub.encoder(port, drive, pod)``).

    Notes
    -----
    States ``x, y, heading, vx, vy, omega``, ``<wheel>_velocity`` (rim speed, m/s),
    ``<wheel>_position`` (rim distance, m), energy states. Inputs
    ``<wheel>_voltage`` and ``brake``, or ``<wheel>_duty`` and ``<wheel>_brake``;
    ``bus_voltage``; ``external_force_x``, ``external_force_y``, ``external_torque``.
    Outputs ``robot_vx, robot_vy, supply_current, kinetic_energy``, per wheel
    ``<wheel>_slip_speed`` (along the roller axle), ``<wheel>_stator_current``,
    ``<wheel>_supply_current``, ``<wheel>_applied_voltage``,
    ``<wheel>_rotor_position``, ``<wheel>_rotor_velocity``,
    ``<wheel>_roller_speed``; ``supply_voltage``; ``normal_force_<i>`` (wheel order);
    ``wall_force`` with walls; the odometry pods' signals last.
    """

    #: The wheels whose hub motors are mounted mirrored unless a channel says otherwise: the left ones, facing
    #: the right ones across the chassis (simcore.controllers.hub.motor, "Mounting").
    mirrored_wheels = ("front_left", "rear_left")

    def __init__(self, motor, gearing=None, *, track_width, wheelbase, wheel_radius, mass, moi,
                 friction_coefficient=1.0, name: str = "mecanum", wheel_inertia=5e-4, rotor_inertia=0.0,
                 slip_epsilon=0.02, gravity=STANDARD_GRAVITY, n_motors=1, efficiency=1.0, neutral_mode="brake",
                 stator_current_limit=None, supply_current_limit=None, command=None,
                 nominal_bus_voltage=None, track_energy: bool = False, start_pose=(0.0, 0.0, 0.0),
                 wheel_positions=None, roller_friction=DEFAULT_ROLLER_FRICTION, cog_height=0.0, bumper=None,
                 field=DEFAULT_FIELD, viscous_friction=None, odometry_pods=()):
        motor, G, self.motor_type = motor_and_gearing("motor", motor, gearing)
        #: Dead-wheel pods rolling with the chassis (:mod:`simcore.models.odometry`).
        self.odometry_pods = odometry_pods_of("odometry_pods", odometry_pods)
        field, bumper = walls_of(field, bumper, self.motor_type)
        if command is None:
            command = "duty" if self.motor_type is not None else "voltage"
        drive_kw, _ = split_drive_options(type(self), dict(
            n_motors=n_motors, efficiency=efficiency, neutral_mode=neutral_mode,
            stator_current_limit=stator_current_limit, supply_current_limit=supply_current_limit, command=command,
            nominal_bus_voltage=nominal_bus_voltage))
        self.drive = MotorDrive(motor, G, **drive_kw)
        if wheel_positions is None:
            self.track_width = checks.positive("track_width", track_width, "m", what="distance")
            self.wheelbase = checks.positive("wheelbase", wheelbase, "m", what="distance")
            hw, hl = self.track_width / 2.0, self.wheelbase / 2.0
            wheel_positions = ((hl, hw), (hl, -hw), (-hl, hw), (-hl, -hw))
            layout = (("track_width", track_width, self.track_width), ("wheelbase", wheelbase, self.wheelbase))
        else:
            self.track_width = self.wheelbase = None
            layout = None
        self.wheel_positions = module_layout("wheel_positions", wheel_positions, minimum=4)
        if len(self.wheel_positions) != 4:
            raise ConfigError("wheel_positions", wheel_positions, "four (x, y) positions in m")
        self.motor = motor
        self.gearing = G
        self.wheel_radius = square_safe("wheel_radius", wheel_radius, "m", what="radius")
        self.mass = checks.positive("mass", mass, "kg", what="mass")
        self.moi = checks.positive("moi", moi, "kg*m**2", what="moment of inertia")
        self.friction_coefficient = checks.positive("friction_coefficient", friction_coefficient,
                                                    what="friction coefficient")
        self.roller_friction = checks.nonnegative("roller_friction", roller_friction, what="coefficient")
        self.wheel_inertia = checks.nonnegative("wheel_inertia", wheel_inertia, "kg*m**2", what="inertia")
        self.rotor_inertia = checks.nonnegative("rotor_inertia", rotor_inertia, "kg*m**2", what="inertia")
        self.slip_epsilon = square_safe("slip_epsilon", slip_epsilon, "m/s", what="speed")
        self.gravity = checks.positive("gravity", gravity, "m/s**2", what="acceleration")
        r = self.wheel_radius
        self.wheel_mass = (self.wheel_inertia + self.drive.n_motors * self.rotor_inertia * G * G) / (r * r)
        if not self.wheel_mass > 0:
            raise ConfigError("wheel_inertia", wheel_inertia, "a positive inertia (or rotor_inertia > 0)")
        self.track_energy = checks.flag("track_energy", track_energy)
        self.start_pose = checks.pose("start_pose", start_pose)
        self.n_modules = 4
        self.chassis = Chassis(mass=self.mass, moi=self.moi, contacts=self.wheel_positions,
                               wheel_of_contact=(0, 1, 2, 3), gravity=self.gravity, cog_height=cog_height,
                               bumper=bumper, field=field, layout=layout or (
                                   ("wheel_positions", wheel_positions, self.wheel_positions),))
        self.cog_height = self.chassis.cog_height
        self.chassis.check_inside("start_pose", self.start_pose)
        self.bumper, self.field = self.chassis.bumper, self.chassis.field
        self.normal_load = self.mass * self.gravity / 4.0
        self.traction_limits = [self.friction_coefficient] * 4
        self._lateral_fixed = False
        self._px = [p[0] for p in self.wheel_positions]
        self._py = [p[1] for p in self.wheel_positions]
        self._ax = [a[0] for a in ROLLER_AXES]
        self._ay = [a[1] for a in ROLLER_AXES]
        # Roller rolling directions n = z x a; arms r x a and r x n; couplings e . a and e . n (e = x).
        self._free_dirs = [(-ay, ax) for ax, ay in ROLLER_AXES]
        self._arm = [px * ay - py * ax for (px, py), (ax, ay) in zip(self.wheel_positions, ROLLER_AXES)]
        self._free_arm = [px * ny - py * nx for (px, py), (nx, ny) in
                          zip(self.wheel_positions, self._free_dirs)]
        self._geometry = [(px, py, ax, ay) for (px, py), (ax, ay) in zip(self.wheel_positions, ROLLER_AXES)]
        self._k = G / r
        self._couple = list(self._ax)
        self._couple_free = [nx for nx, _ in self._free_dirs]
        self._wheel_rows = tuple(g + (cp,) for g, cp in zip(self._geometry, self._couple))
        self.chassis.set_wheels(couple=self._couple, couple_free=self._couple_free, mass_eq=(self.wheel_mass,) * 4,
                                mu=self.traction_limits, free_of_wheel=(0, 1, 2, 3))
        self.chassis.set_geometry(self._ax, self._ay, self._arm, self._free_dirs, self._free_arm)
        # The motors' own friction: from the datasheet free current unless given (0: the ideal motor).
        self.viscous_friction, b_rotor = motor_friction("viscous_friction", viscous_friction, self.drive, G / r,
                                                        "N*s/m")
        self._viscous_given = viscous_friction is not None
        self.channels = MotorChannels([self.drive] * 4, [b_rotor] * 4)
        self._names(name, command)
        self._setup_modes()
        # Without load transfer the drive is evaluated by the kernel's form (simcore.kernel.mecanum) on every path,
        # its derivatives and outputs too; with walls where its bumper cannot reach two opposite walls at once.
        self._kernel_eval = not self.chassis.tips and (
            not self.chassis.walls or _cl.walls_fit(self.chassis.bumper, self.chassis.field))
        if self.chassis.walls and self._kernel_eval:
            self.KERNEL_MODES, self._MODE_CODES = kernel_wall_modes()
        self._kernel_p = None
        self._refresh_kernel()
        self._kernel_events()

    def _names(self, name, cmd):
        states = ["x", "y", "heading", "vx", "vy", "omega"] + [f"{w}_velocity" for w in WHEELS] + \
                 [f"{w}_position" for w in WHEELS]
        self._ie = None
        if self.track_energy:
            self._ie = len(states)
            states += list(ENERGY_STATES)
            self.energy_index = self._ie + ENERGY_STATES.index("impact_loss")
        self._ipod = len(states)  # the pods' distances come last
        pod_states, pod_outputs, pod_units = pod_signals(self.odometry_pods)
        states += pod_states
        inputs = [f"{w}_{cmd}" for w in WHEELS]
        inputs += ["brake"] if cmd == "voltage" else [f"{w}_brake" for w in WHEELS]
        inputs += list(EXTERNAL_INPUTS) + ["bus_voltage"]
        self._ib = (4, 4, 4, 4) if cmd == "voltage" else (4, 5, 6, 7)
        self._ibus = inputs.index("bus_voltage")
        self._iext = inputs.index("external_force_x")
        per = ("slip_speed", "stator_current", "supply_current", "applied_voltage", "rotor_position",
               "rotor_velocity", "roller_speed")
        outputs = ["robot_vx", "robot_vy", "supply_current", "kinetic_energy"] + \
                  [f"{w}_{o}" for o in per for w in WHEELS]
        outputs += ["supply_voltage"] + [f"normal_force_{i}" for i in range(4)]
        if self.chassis.walls:
            outputs.append("wall_force")
        outputs += pod_outputs
        units = {"x": "m", "y": "m", "heading": "rad", "vx": "m/s", "vy": "m/s", "omega": "rad/s",
                 "robot_vx": "m/s", "robot_vy": "m/s", "supply_current": "A", "kinetic_energy": "J",
                 "bus_voltage": "V", "brake": "", "supply_voltage": "V", "wall_force": "N",
                 "external_force_x": "N", "external_force_y": "N", "external_torque": "N*m"}
        for w in WHEELS:
            units.update({f"{w}_velocity": "m/s", f"{w}_position": "m", f"{w}_slip_speed": "m/s",
                          f"{w}_stator_current": "A", f"{w}_supply_current": "A", f"{w}_applied_voltage": "V",
                          f"{w}_rotor_position": "rad", f"{w}_rotor_velocity": "rad/s", f"{w}_roller_speed": "m/s",
                          f"{w}_brake": "", f"{w}_{cmd}": "V" if cmd == "voltage" else ""})
        units.update({f"normal_force_{i}": "N" for i in range(4)})
        units.update({s: "J" for s in ENERGY_STATES})
        units.update(pod_units)
        System.__init__(self, name, states, inputs, outputs, units)
        self.input_ranges = drive_input_ranges(self.input_names)
        self.input_ranges.update({f"{w}_brake": (0.0, 1.0) for w in WHEELS if f"{w}_brake" in self.input_names})
        #: Names of the inputs that command the motors (for the battery's brownout "disable").
        self.motor_command_inputs = tuple(f"{w}_{cmd}" for w in WHEELS)

    def initial_state(self):
        x = np.zeros(len(self.state_names))
        x[0], x[1], x[2] = self.start_pose
        return x

    def initial_inputs(self):
        u = np.zeros(len(self.input_names))
        for i in set(self._ib):
            u[i] = 1.0 if self.drive.neutral_mode == "brake" else 0.0
        u[self._ibus] = self.drive.nominal_bus_voltage
        return u

    def free_speed(self, voltage: float) -> float:
        """Steady rim speed of a wheel with ``voltage`` on its motor and no load but the motor's friction, m/s."""
        return self.channels.free_rotor_speed(voltage) / self._k

    # -- the instant -------------------------------------------------------------------------------
    # The per-wheel work below is written out for the four wheels: on four floats a CPython loop or list
    # comprehension costs about twice the arithmetic it carries. The operations, and their order, are
    # those of the loops they replace.
    def _kinematics(self, xl):
        """(state list, cos, sin, robot-frame vx, vy, omega, per contact: velocity along its roller axle, across it,
        the ground acceleration along the axle that does not depend on the unknowns, the slip if the wheel slid)."""
        c, s = math.cos(xl[2]), math.sin(xl[2])
        xv, yv, om = xl[3], xl[4], xl[5]
        vx, vy = c * xv + s * yv, -s * xv + c * yv
        (px0, py0, ax0, ay0, c0), (px1, py1, ax1, ay1, c1), (px2, py2, ax2, ay2, c2), (px3, py3, ax3, ay3, c3) = \
            self._wheel_rows
        # The contact points' velocity (q_x, q_y) = v + omega z x r, along the axle a and across it (along n = z x a).
        qx, qy = vx - om * py0, vy + om * px0
        a0, n0 = qx * ax0 + qy * ay0, qy * ax0 - qx * ay0
        qx, qy = vx - om * py1, vy + om * px1
        a1, n1 = qx * ax1 + qy * ay1, qy * ax1 - qx * ay1
        qx, qy = vx - om * py2, vy + om * px2
        a2, n2 = qx * ax2 + qy * ay2, qy * ax2 - qx * ay2
        qx, qy = vx - om * py3, vy + om * px3
        a3, n3 = qx * ax3 + qy * ay3, qy * ax3 - qx * ay3
        hterm = [om * (vy * ax0 - vx * ay0), om * (vy * ax1 - vx * ay1), om * (vy * ax2 - vx * ay2),
                 om * (vy * ax3 - vx * ay3)]
        slip_free = [xl[6] * c0 - a0, xl[7] * c1 - a1, xl[8] * c2 - a2, xl[9] * c3 - a3]
        return xl, c, s, vx, vy, om, [a0, a1, a2, a3], [n0, n1, n2, n3], hterm, slip_free

    _rim_for = _rim_wheels = _rim_val = None  # the kinematics and wheel modes of the last _rims_of, its result

    def _rims_of(self, x, wheels):
        """(kinematics, rim speeds in m/s, rotor speeds in rad/s) at state ``x`` with wheel modes ``wheels``: a
        rolling wheel's rim follows its roller (the constraint). Remembered for the next call at the same state
        and modes: the bus solve and the evaluation at one state share them."""
        kin = self._kinematics_of(x)
        if kin is not self._rim_for or wheels != self._rim_wheels:
            (a0, a1, a2, a3), (c0, c1, c2, c3), (m0, m1, m2, m3) = kin[6], self._couple, wheels
            xl = kin[0]
            w0 = a0 / c0 if m0 == ROLL else xl[6]
            w1 = a1 / c1 if m1 == ROLL else xl[7]
            w2 = a2 / c2 if m2 == ROLL else xl[8]
            w3 = a3 / c3 if m3 == ROLL else xl[9]
            k = self._k
            self._rim_for, self._rim_wheels = kin, wheels
            self._rim_val = ([w0, w1, w2, w3], [k * w0, k * w1, k * w2, k * w3])
        return kin, self._rim_val

    def _evaluate(self, x, u, mode):
        if self._kernel_on:
            return self._evaluate_in_kernel(x, u, mode)
        # With load transfer or walls its bumper can touch two opposite of at once (Chassis.solve), or Coulomb
        # friction in the motors:
        ul = u.tolist()
        wheels, contacts = mode
        (xl, c, s, vx, vy, om, along, across, hterm, slip_free), (w, rotor) = self._rims_of(x, wheels)
        bus = ul[self._ibus]
        ib0, ib1, ib2, ib3 = self._ib
        chs = self.channels.evaluate(rotor, ul, [ul[ib0], ul[ib1], ul[ib2], ul[ib3]], bus)
        r = self.wheel_radius
        t0, t1, t2, t3 = chs.output_torque  # net of the rotor's friction
        D = [t0 / r, t1 / r, t2 / r, t3 / r]
        # Rollers: rolling speed (v_point - w e) . n and their regularized rolling resistance.
        (n0, n1, n2, n3), (w0, w1, w2, w3), (f0, f1, f2, f3) = across, w, self._couple_free
        s0, s1, s2, s3 = roll = [n0 - w0 * f0, n1 - w1 * f1, n2 - w2 * f2, n3 - w3 * f3]
        crr = self.roller_friction
        if crr:
            eps2, sqrt = self.slip_epsilon ** 2, math.sqrt
            coef = [crr * s0 / sqrt(s0 * s0 + eps2), crr * s1 / sqrt(s1 * s1 + eps2),
                    crr * s2 / sqrt(s2 * s2 + eps2), crr * s3 / sqrt(s3 * s3 + eps2)]
        else:
            coef = [0.0] * 4
        (m0, m1, m2, m3), (g0, g1, g2, g3) = wheels, slip_free
        slip = [0.0 if m0 == ROLL else g0, 0.0 if m1 == ROLL else g1, 0.0 if m2 == ROLL else g2,
                0.0 if m3 == ROLL else g3]
        ie = self._iext
        fx, fy, tz = ul[ie], ul[ie + 1], ul[ie + 2]
        sol = self.chassis.solve_fixed(hterm, D, wheels, coef, c * fx + s * fy, -s * fx + c * fy, tz,
                                       self.chassis.wall_rows(contacts, om, c, s) if contacts else ())
        smp = MecanumSample()
        smp.sol = sol
        smp.slip_free = slip_free
        smp.slip = slip
        smp.state = xl
        smp.pose = (xl[0], xl[1], c, s)
        smp.velocity = (vx, vy, om)
        smp.wheel_speed = w
        smp.rotor_speed = rotor
        smp.channels = chs
        smp.roller_speed = roll
        smp.bus = bus
        if self.track_energy:  # the power terms only the energy ledger integrates
            fric = 0.0
            for tf, wr in zip(chs.friction_torque, rotor):
                fric += tf * wr
            for f, sl, g, ro in zip(sol.traction, slip, sol.free_force, roll):
                fric += f * sl - g * ro
            smp.friction_power = fric
            smp.external_power = fx * xl[3] + fy * xl[4] + tz * om
        return smp

    def derivatives(self, t, x, u):
        if self._kernel_on:
            out = np.empty(len(self.state_names))
            _mecanum_kernel().derivatives(self._kernel_p, 0, self._mode_code(), np.asarray(x, dtype=float), 0,
                                          np.asarray(u, dtype=float), 0, out)
            return out
        smp = self._sample(t, x, u)
        sol = smp.sol
        _, _, c, s = smp.pose
        xl = smp.state
        ax, ay = sol.ax, sol.ay
        row = [xl[3], xl[4], xl[5], c * ax - s * ay, s * ax + c * ay, sol.alpha, *sol.wheel_accel, *smp.wheel_speed]
        if self.track_energy:  # energy states after the 14 of the motion, in ENERGY_STATES order
            d, chs, rotor, w = self.drive, smp.channels, smp.rotor_speed, smp.wheel_speed
            i, r = chs.stator_current, self.wheel_radius
            row += [smp.bus * sum(chs.supply_current), sum(v * v for v in i) * d.R,
                    sum(i[k] * rotor[k] for k in range(4)) * (1.0 / d.Kv - d.Kt),
                    sum((chs.motor_torque[k] - chs.friction_torque[k]) * rotor[k] - chs.output_torque[k] * w[k] / r
                        for k in range(4)),
                    smp.friction_power, 0.0, smp.external_power]
        if self.odometry_pods:
            row += pod_rates(self.odometry_pods, *smp.velocity)
        return np.array(row)

    def kinetic_energy(self, x) -> float:
        """Kinetic energy of chassis and wheels at state ``x``, J."""
        w = np.asarray(x[6:10], dtype=float)
        vx, vy, om = float(x[3]), float(x[4]), float(x[5])  # (squares as products: the kernel's bits)
        return float(0.5 * (self.mass * (vx * vx + vy * vy) + self.moi * (om * om)
                            + self.wheel_mass * (w * w).sum()))

    def outputs(self, t, x, u):
        if self._kernel_on:
            out = np.empty(_ml.n_mecanum_outputs(len(self.odometry_pods), bool(self.chassis.walls)))
            _mecanum_kernel().outputs(self._kernel_p, 0, self._mode_code(), np.asarray(x, dtype=float), 0,
                                      np.asarray(u, dtype=float), 0, out, 0)
            return out.tolist()
        smp = self._sample(t, x, u)
        sol, chs = smp.sol, smp.channels
        vx, vy, _ = smp.velocity
        k = self.gearing / self.wheel_radius
        out = [vx, vy, sum(chs.supply_current), self.kinetic_energy(x)]
        out += [abs(v) for v in smp.slip]
        out += chs.stator_current + chs.supply_current + chs.applied_voltage
        out += [k * x[10 + i] for i in range(4)] + list(smp.rotor_speed) + list(smp.roller_speed)
        out.append(smp.bus)
        out += sol.normal
        if self.chassis.walls:
            out.append(sum(sol.wall_force))
        if self.odometry_pods:
            out += pod_readings(self.odometry_pods, x[self._ipod:], *smp.velocity)
        return out

    def supply_current_at(self, x, u, bus_voltage: float) -> float:
        """The four motors' supply current, A, at bus voltage ``bus_voltage`` V (for the Battery)."""
        if self._kernel_on:
            return _mecanum_kernel().supply_current_at(self._kernel_p, 0, self._mode_code(),
                                                       np.asarray(x, dtype=float), 0, np.asarray(u, dtype=float), 0,
                                                       float(bus_voltage))
        return super().supply_current_at(x, u, bus_voltage)

    def supply_current_curve(self, x, u):
        """The four motors' supply current as a function of the bus voltage (a SupplyCurve), or None with
        current limits."""
        if self.channels.any_limits:
            return None
        if self._kernel_on:  # the kernel's assembly of the four motors' pieces
            abc, breaks = np.zeros(3), np.empty((4, 4))
            nb = _mecanum_kernel().add_supply_curve(self._kernel_p, 0, self._mode_code(),
                                                    np.asarray(x, dtype=float), 0, np.asarray(u, dtype=float), 0,
                                                    abc, breaks, 0)
            a, b, c = abc.tolist()
            return SupplyCurve(a, b, c, [tuple(row) for row in breaks[:nb].tolist()])
        return super().supply_current_curve(x, u)

    def initial_mode(self, t, x, u):
        self._refresh_kernel()
        return super().initial_mode(t, x, u)

    def _speeds_and_commands(self, x, u):
        ul = u.tolist()
        _, (_, rotor) = self._rims_of(x, self.mode[0] if self.mode else (ROLL,) * 4)
        ib = self._ib
        return rotor, ul[0:4], [ul[ib[0]], ul[ib[1]], ul[ib[2]], ul[ib[3]]]

    # -- the chassis mixin's hooks ------------------------------------------------------------------
    def _snap(self, x, wheels):
        x = np.array(x, dtype=float)
        if wheels:
            along = self._kinematics(x.tolist())[6]
            for i in wheels:
                x[6 + i] = along[i] / self._couple[i]
        return x

    def _with_velocity(self, x, vx, vy, om):
        x = np.array(x, dtype=float)
        c, s = math.cos(x[2]), math.sin(x[2])
        x[3], x[4], x[5] = c * vx - s * vy, s * vx + c * vy, om
        return x

    # -- the kernel form (simcore.kernel.mecanum) ----------------------------------------------------
    #: The kernel's mode codes (``27 w_0 + 9 w_1 + 3 w_2 + w_3``, simcore.kernel.mecanum_layout) by the drive's mode.
    _MODE_CODES = KERNEL_MODE_CODES
    #: The kernel's mode names, indexed by code.
    KERNEL_MODES = KERNEL_MODES
    #: The parameters a batch varies (``simcore.simulate_batch``'s ``params["<name>.<parameter>"]``) and their units.
    BATCH_PARAMETERS = ("mass", "moi", "wheel_radius", "gearing", "friction_coefficient")
    _BATCH_UNITS = {"mass": "kg", "moi": "kg*m**2", "wheel_radius": "m", "gearing": "", "friction_coefficient": ""}

    def _kernel_events(self) -> None:
        """The events by their kernel id (simcore.kernel.mecanum_layout), marked with their guard's code."""
        self.kernel_events = kernel_events(self, _ml.MECANUM_GUARD_BASE, walls=bool(self.chassis.walls))

    def kernel_parameters(self, overrides: dict | None = None, n: int = 1) -> np.ndarray:
        """The parameter vector of this drive in the compiled kernel, for ``n`` variants at once.

        The constructor calls it with no overrides, :meth:`kernel_form` returns its row, and a batch calls it
        with its variants' values (:attr:`BATCH_PARAMETERS`: ``mass``, ``moi``, ``wheel_radius``, ``gearing``,
        ``friction_coefficient``). What the constructor derives from them is derived again from each variant's
        value with its rules (:func:`~simcore.models.tank.tank_rim_mechanics` for ``G / r`` and the wheels'
        rotating mass at the rim; a ``viscous_friction`` given at the rim acts at the rotors through each
        variant's ``G / r``; the loads at rest are ``m g`` times each contact's share), so row ``j`` is the
        vector of the drive built with variant ``j``'s values, to the bit.

        Parameters
        ----------
        overrides : mapping of str to array-like or Quantity, optional
            Batch parameter -> ``n`` values in SI units or as a pint Quantity (one value serves every variant).
        n : int
            Number of variants.

        Returns
        -------
        numpy.ndarray
            Shape ``(n, N_MECANUM_PARAMETERS)``, laid out by :mod:`simcore.kernel.mecanum_layout`.

        Raises
        ------
        ConfigError
            A parameter this drive does not batch, a value the constructor would refuse, or a drive the kernel
            has no form of (load transfer, or walls its bumper can touch two opposite of at once), naming
            ``params['<name>.<parameter>'][j]`` and the variant ``j``.
        """
        n = checks.integer("n", n, minimum=1)
        if not self._kernel_eval:
            raise ConfigError(f"params[{self.name!r}]", sorted(overrides or {}),
                              "a MecanumDrive without cog_height, and with walls a bumper whose diagonal is shorter "
                              "than the field's length and width (the compiled kernel's mecanum)")
        ch = self.chassis
        # (the chassis' values as they are now: the Python path reads them at each solve)
        base = {"mass": ch.mass, "moi": ch.moi, "wheel_radius": self.wheel_radius, "gearing": self.gearing,
                "friction_coefficient": ch.mu[0]}
        values, k, Mw, b_rotor = drive_variants(self, base, overrides, n)
        varied = overrides or {}
        r, m, mu = values["wheel_radius"], values["mass"], values["friction_coefficient"]
        walls = bool(ch.walls)
        p = np.empty((n, _ml.n_mecanum_parameters(len(self.odometry_pods), walls)))
        channel_parameters(p, self.drive, values["gearing"], b_rotor, self.channels.any_limits)
        p[:, _ml.MP_K], p[:, _ml.MP_WHEEL_RADIUS] = k, r
        p[:, _ml.MP_MASS], p[:, _ml.MP_MOI], p[:, _ml.MP_WHEEL_MASS] = m, values["moi"], Mw
        p[:, _ml.MP_ROLLER_FRICTION], p[:, _ml.MP_SLIP_EPS2] = self.roller_friction, self.slip_epsilon ** 2
        p[:, _ml.MP_TRACK_ENERGY] = 1.0 if self.track_energy else 0.0
        p[:, _ml.MP_EXTERNAL], p[:, _ml.MP_BUS] = self._iext, self._ibus
        p[:, _ml.MP_BRAKE:_ml.MP_BRAKE + 4] = self._ib
        p[:, _ml.MP_N_PODS], p[:, _ml.MP_POD_STATE] = len(self.odometry_pods), self._ipod
        p[:, _ml.MP_WALLS] = 0.0
        if walls:  # (the walls block after the pods')
            wb = _ml.n_mecanum_parameters(len(self.odometry_pods))
            p[:, _ml.MP_WALLS] = wb
            p[:, wb:wb + _cl.N_WALL_BLOCK] = _cl.wall_block(ch)
        for j, pod in enumerate(self.odometry_pods):
            o = _ml.MP_PODS + _ml.N_POD * j
            p[:, o + _ml.PD_X], p[:, o + _ml.PD_Y], p[:, o + _ml.PD_RADIUS] = pod.x, pod.y, pod.wheel_radius
            p[:, o + _ml.PD_COS], p[:, o + _ml.PD_SIN] = math.cos(pod.heading), math.sin(pod.heading)
        # Chassis: m g times each contact's share
        load0 = [m * self.gravity * f for f in ch.load_share] if "mass" in varied else ch.load0
        (dx, dy, arm, free_dirs, free_arm) = ch.geometry
        for i in range(4):
            o = _ml.MP_WHEELS + _cl.N_WHEEL * i
            p[:, o + _cl.W_MASS_EQ], p[:, o + _cl.W_MU], p[:, o + _cl.W_MU_BREAKAWAY] = \
                Mw, mu, mu * (1.0 + BREAKAWAY_MARGIN)
            p[:, o + _cl.W_LOAD0] = load0[i]
            p[:, o + _cl.W_LOAD_X], p[:, o + _cl.W_LOAD_Y] = ch.wheel_load_x[i], ch.wheel_load_y[i]
            p[:, o + _cl.W_PX], p[:, o + _cl.W_PY] = self._px[i], self._py[i]
            p[:, o + _cl.W_DX], p[:, o + _cl.W_DY], p[:, o + _cl.W_ARM] = dx[i], dy[i], arm[i]
            p[:, o + _cl.W_COUPLE], p[:, o + _cl.W_COUPLE_FREE] = ch.couple[i], ch.couple_free[i]
            p[:, o + _cl.W_NX], p[:, o + _cl.W_NY] = free_dirs[i]
            p[:, o + _cl.W_FREE_ARM] = free_arm[i]
        return p

    def _refresh_kernel(self) -> None:
        """The kernel's parameters from the chassis as it is now (a simulation starts: what the Python path reads
        at each solve, the kernel reads from them), and whether the kernel evaluates the drive: not with motor
        channels of another kind (``from_roadrunner``'s Coulomb friction)."""
        self._kernel_on = self._kernel_eval and type(self.channels) is MotorChannels
        if self._kernel_eval:
            self._kernel_p = self.kernel_parameters()[0]

    def kernel_form(self):
        """``(kind, parameters, mode names)`` of this drive in the compiled kernel (:mod:`simcore.kernel.mecanum`),
        or None where the kernel has no form of it yet (then the simulation takes the Python path): a
        ``cog_height`` (load transfer and the tip event), walls its bumper can touch two opposite of at once (a field
        shorter or narrower than the bumper's diagonal), motor channels with Coulomb friction
        (``from_roadrunner`` with a ``ks``), or a subclass."""
        self._refresh_kernel()
        if not self._kernel_on or type(self) is not MecanumDrive:
            return None
        from simcore.kernel.parts import KIND_MECANUM

        return KIND_MECANUM, self._kernel_p, self.KERNEL_MODES

    def _mode_code(self, mode=None) -> int:
        """The kernel's code of ``mode`` (default the present one; the wheels rolling before a mode is set)."""
        return kernel_mode_code(self, self.mode if mode is None else mode)

    def _evaluate_in_kernel(self, x, u, mode):
        """:meth:`_evaluate` by the kernel's form (:func:`simcore.kernel.mecanum.evaluate`)."""
        s = np.empty(_ml.N_MECANUM_SAMPLE)
        _mecanum_kernel().evaluate(self._kernel_p, 0, self._mode_code(mode), np.asarray(x, dtype=float), 0,
                                   np.asarray(u, dtype=float), 0, s)
        s = s.tolist()
        rows = [s[_cl.S_WHEELS + _cl.N_WS * i:_cl.S_WHEELS + _cl.N_WS * (i + 1)] for i in range(4)]
        sol = ContactSolution()
        sol.ax, sol.ay, sol.alpha = s[_cl.S_AX], s[_cl.S_AY], s[_cl.S_ALPHA]
        sol.wall_force = kernel_wall_forces(s)
        sol.normal = [w[_cl.WS_NORMAL] for w in rows]
        sol.free_force = [w[_cl.WS_G] for w in rows]
        sol.traction = [w[_cl.WS_F] for w in rows]
        sol.wheel_accel = [w[_cl.WS_WA] for w in rows]
        chs = ChannelState()
        c0 = _cl.WS_CHANNEL
        (chs.applied_voltage, chs.stator_current, chs.supply_current, chs.saturated, chs.current_limited,
         chs.motor_torque, chs.output_torque, chs.friction_torque) = zip(*(w[c0:c0 + 8] for w in rows))
        smp = MecanumSample()
        smp.sol = sol
        smp.slip_free = [w[_cl.WS_SLIP_FREE] for w in rows]
        smp.slip = [w[_cl.WS_SLIP] for w in rows]
        smp.state = x.tolist()
        c, sn = s[_cl.S_COS], s[_cl.S_SIN]
        smp.pose = (smp.state[0], smp.state[1], c, sn)
        smp.velocity = (s[_cl.S_VX], s[_cl.S_VY], s[_cl.S_OM])
        smp.wheel_speed = [w[_cl.WS_W] for w in rows]
        smp.rotor_speed = [w[_cl.WS_ROTOR] for w in rows]
        smp.channels = chs
        smp.roller_speed = [w[_cl.WS_FREE_SLIP] for w in rows]
        smp.bus = s[_cl.S_BUS]
        smp.friction_power = s[_cl.S_FRICTION_POWER]
        smp.external_power = s[_cl.S_EXTERNAL_POWER]
        return smp

    def outline(self):
        """Robot outline in the robot frame for field plots: the bumper, or the wheels' box grown by a wheel, m."""
        if self.bumper is not None:
            hl, hw = self.bumper[0] / 2.0, self.bumper[1] / 2.0
            return [(hl, hw), (-hl, hw), (-hl, -hw), (hl, -hw)]
        pad = 1.5 * self.wheel_radius
        x0, x1 = min(self._px) - pad, max(self._px) + pad
        y0, y1 = min(self._py) - pad, max(self._py) + pad
        return [(x1, y1), (x0, y1), (x0, y0), (x1, y0)]

    @classmethod
    def from_roadrunner(cls, in_per_tick, lateral_in_per_tick, track_width_ticks, ks, kv, ka, *, motor_type, mass,
                        wheelbase=None, moi=None, floor_to_physics=False, **options):
        """A mecanum drive from Road Runner's drive parameters (its quickstart's ``MecanumDrive.Params``).

        Parameters
        ----------
        in_per_tick, lateral_in_per_tick : float
            ``inPerTick``, ``lateralInPerTick``: inches per encoder tick.
        track_width_ticks : float
            ``trackWidthTicks``: a wheel turns ``omega * track_width_ticks`` ticks/s at ``omega`` rad/s.
        ks, kv, ka : float
            Road Runner's feedforward in ticks: V, V per tick/s, V per tick/s².
        motor_type : MotorType
            Each wheel's FTC motor type (one motor per wheel, the wheel on its output).
        mass : float or Quantity
            Robot mass, kg.
        wheelbase : float or Quantity, optional
            Front-to-rear wheel distance, m (default: a square robot).
        moi : float or Quantity, optional
            Yaw inertia, kg·m² (default: a uniform plate over the wheels' rectangle).
        floor_to_physics : bool
            Accept a ``kv`` below the motor's back-EMF or a ``ka`` below what ``mass``
            alone needs (common in teams' hand-tuned numbers) by raising it to that
            floor, with a warning; False (default) refuses them.
        **options
            Any other MecanumDrive keyword (``friction_coefficient``, ``roller_friction``, ``name``, ...); not
            ``efficiency``, ``n_motors`` or what the conversion derives (one lossless motor per wheel).

        The conversion, and the Coulomb friction that carries ``ks``, are in
        :mod:`simcore.models.roadrunner`; the values as given are kept as
        ``roadrunner_parameters``.
        """
        from .roadrunner import CoulombMotorChannels, mecanum_parameters

        derived = mecanum_parameters(in_per_tick, lateral_in_per_tick, track_width_ticks, ks, kv, ka,
                                     motor_type=motor_type, mass=mass, wheelbase=wheelbase, moi=moi,
                                     floor_to_physics=floor_to_physics)
        # The conversion assumes one lossless motor per wheel: kV and kA carry the losses.
        clash = sorted(set(options) & (set(derived["keywords"]) | {"gearing", "n_motors", "efficiency"}))
        if clash:
            raise ConfigError(clash[0], options[clash[0]], "not given: from_roadrunner derives it")
        drive = cls(motor_type, **derived["keywords"], **options)
        if derived["coulomb_torque"] > 0:
            drive.channels = CoulombMotorChannels(drive.channels, [derived["coulomb_torque"]] * 4)
            drive._refresh_kernel()  # (the kernel's channels have no Coulomb friction: the Python path)
        drive.roadrunner_parameters = derived["roadrunner"]
        return drive
