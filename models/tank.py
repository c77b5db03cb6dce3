"""Tank (differential) drivetrains: physical (motors, gearbox, battery, traction, scrub) and characterized.

Frames and signs: field frame x, y (m), ``heading`` counter-clockwise from field
+x (rad, not wrapped). Robot frame x forward, y left. Each side's speed is
positive forward; a positive voltage drives that side forward on both sides (no
right-side inversion, unlike pyfrc's ``r_motor``).

**Physical model** (:class:`TankDrive`). Each side is a :class:`~simcore.models.drive.MotorDrive`
(``n_motors_per_side`` motors, gearbox ``gearing``, efficiency, brake/coast,
current limits, supply current) turning the side's wheels (one chain) of radius
``r``: the drive force at the ground is ``D = T_out / r``, ``T_out`` the gearbox output
of the net shaft torque ``Kt I - T_f`` (``T_f`` the rotors' own friction, see
``viscous_friction``; it acts at the motor shaft, before the gearbox efficiency). Each side's rotating parts (wheels,
gears, and the motor rotors reflected through the gearbox) have an equivalent
mass ``M_w = (wheel_inertia + n * rotor_inertia * G**2) / r**2`` at the wheel rim.
The chassis stands on the wheels' contacts; :mod:`simcore.models.chassis` holds the
mechanics (traction modes, scrub, weight transfer, walls, external forces).

* Without a traction limit (``friction_coefficient=None``) the wheels roll without
  slipping and the chassis obeys::

      m dv/dt = F_L + F_R,   J dw/dt = (b/2) (F_R - F_L),   M_w a_s = D_s - F_s

  (``b`` track width, ``F_s`` the ground force of side ``s``, ``a_s`` its
  acceleration). With ``M_w = 0`` the side speeds follow WPILib's drivetrain
  velocity plant exactly (``C1 = -G^2 Kt/(Kv R r^2)``, ``C2 = G Kt/(R r)``, ``C3 =
  1/m + rb^2/J``, ``C4 = 1/m - rb^2/J``, ``rb = b/2``). States: ``x, y, heading,
  left_velocity, right_velocity, left_position, right_position``; the chassis
  ``velocity`` and ``yaw_rate`` are outputs.
* With ``friction_coefficient=mu`` each side rolls while the force that takes is
  within ``mu N_s`` (``N_s`` the side's normal load), and slips at exactly
  ``mu N_s`` past it (exact Coulomb friction, with located ``breakaway`` and
  ``grip`` events). The wheels' rim speeds ``left_velocity``/``right_velocity`` (what
  the encoders see) then differ from the chassis motion, whose ``velocity`` and
  ``yaw_rate`` become states; ``<side>_slip_speed`` is rim speed minus ground speed.
* **Scrub** (``wheelbase`` or ``axle_positions``): the wheels stand on axles at
  ``x_a`` (two at ``+-wheelbase/2``; three for a six-wheel drop centre), each with
  its own sideways friction ``lateral_friction_coefficient`` (a traction wheel's
  ``mu``, an omni wheel's small roller friction), a regularized Coulomb law of the
  axle's sideways slip ``v_y + omega x_a`` with ``eps = slip_epsilon``. Turning then
  costs torque: turning in place the end axles slide sideways, and the scrub torque
  ``sum mu_a N_a |x_a|`` opposes the turn. The chassis gets a sideways velocity
  state ``lateral_velocity`` (robot frame). Without a wheelbase the chassis never
  moves sideways (the wheels are on one line across the robot, where scrub has no
  lever).
* **Weight transfer** with ``cog_height``: the axles' and sides' loads change with
  the accelerations (outputs ``normal_force_<i>``: contacts ordered axle by axle,
  front to back, left before right); the event ``tip`` (terminal) is located when
  one reaches zero. The side's traction limit follows its load.
* **Walls** with ``bumper`` and ``field`` (needs ``friction_coefficient``), and
  **external forces**: inputs ``external_force_x``, ``external_force_y`` (N, field
  frame) and ``external_torque`` (N·m) on the centre of mass, at its height (so the
  load transfer follows the ground's forces only, see :mod:`simcore.models.chassis`).

With ``track_energy=True`` seven states integrate energy flows, J: ``energy_in``
(``∫ V_bus I_supply dt`` over both sides), ``copper_loss`` (``∫ I^2 R``),
``conversion_loss``, ``gear_loss``, ``friction_loss`` (the rotors' own friction,
tyre slip and scrub), ``impact_loss`` (wall impacts) and ``external_work``. Then
``energy_in + external_work = ΔKE + copper_loss + conversion_loss + gear_loss +
friction_loss + impact_loss`` where ``KE = m (v^2 + v_y^2)/2 + J w^2/2 + M_w (v_L^2 +
v_R^2)/2`` (output ``kinetic_energy``).

``conversion_loss = ∫ I w (1/Kv - Kt) dt`` is the back-EMF power ``E I`` minus the
shaft power ``T w``. WPILib's motor constants from datasheet values make
``Kt Kv != 1`` (e.g. ``Kt Kv = 1.0199`` for a Kraken X60), so this term is not zero
and, with ``Kt Kv > 1``, negative: the model motor makes about 2 % more shaft work
than the electrical power it converts. It is zero for a motor with ``Kt Kv = 1``
(:meth:`~simcore.models.motors.DCMotor.energy_consistent`).

**FTC hubs.** Built from an FTC motor type (``TankDrive(GOBILDA_5203_312, ...)``,
the gear ratio taken from it, ``command="duty"`` by default), the drive keeps it
as ``motor_type`` and is hub-drivable: each side is a hub channel with inputs
``<side>_duty`` and ``<side>_brake`` and outputs ``<side>_rotor_position``,
``<side>_rotor_velocity`` (the motor shaft, what the encoder counts),
``<side>_stator_current``, ``<side>_supply_current`` and ``supply_voltage``. Every
drive with ``command="duty"`` has the per-side brake inputs (each side's
controller has its own neutral mode); with ``command="voltage"`` one ``brake``
input serves both sides.
These signals are in the wheel's frame (positive rolls the robot forward); a hub
channel maps them to its motor's own frame through its mounting, the left motors
mirrored by default (``mirrored_wheels``; :mod:`simcore.controllers.hub.motor`,
"Mounting"). With a ``friction_coefficient`` such a drive stands in the FTC
field's walls by default (``field``).

**Dead-wheel odometry pods** (``odometry_pods``, :mod:`simcore.models.odometry`) roll
with the chassis as on a mecanum: each integrates the velocity of its contact point
along its rolling direction from the chassis' forward speed, its sideways speed
(``lateral_velocity`` with scrub; 0 without, where the chassis cannot move sideways)
and its yaw rate; with a traction limit that is the ground motion, not the wheels'
rims, so a pod sees through wheel slip. A hub encoder port reads it
(``hub.encoder(port, drive, pod)``).

**In the compiled kernel.** A drive without a ``cog_height``, walls or odometry pods, on at most four axles (and
not a subclass) has a kernel form (:mod:`simcore.kernel.tank`: both channels, the chassis with its scrub, the
traction modes as an integer, the breakaway and grip events, the energy ledger, the external force inputs, its
supply current on the battery's bus): a simulation of built-in parts runs it compiled, and ``simulate_batch``
varies its ``mass``, ``moi``, ``wheel_radius``, ``gearing`` and ``friction_coefficient``. Its evaluation is the
kernel's on every path (this class calls it). The others (load transfer and the tip event, walls, pods) run on
the Python path.

**Characterized model** (:meth:`TankDrive.characterized`): WPILib's
``LinearSystemId.identifyDrivetrainSystem(kVlinear, kAlinear, kVangular, kAangular,
trackwidth)``; the angular gains are in V/(rad/s) and V/(rad/s^2) and are
converted to per-wheel gains by ``2/trackwidth`` as WPILib does. ``ks`` removes
``ks`` volts from each side's command toward zero, exactly pyfrc's
``vintercept`` (``V' = sign(V) max(|V| - ks, 0)``). For a side driven in the
direction it moves this is SysId's ``V = kS sign(v) + kV v + kA a``; unlike a
Coulomb friction it does not decelerate a coasting robot (neither does pyfrc).

:meth:`TankDrive.pyfrc_theory` and :meth:`TankDrive.pyfrc` build the characterized
model from pyfrc ``TankModel``'s numbers: per side ``dv/dt = (V' - kv v) / ka`` and
pyfrc's rotation ``omega = (x_wheelbase/2) m (v_R - v_L) / J`` with
``J = m (length^2 + width^2) / 12``, which is the kinematic relation
``omega = (v_R - v_L) / b_eff`` with ``b_eff = 2 J / (m x_wheelbase)``.
"""
from __future__ import annotations

import math

import numpy as np

from simcore import checks
from simcore.checks import STANDARD_GRAVITY
from simcore.errors import ConfigError, ConfigTypeError
from simcore.kernel import loaded, tank_layout as _tl
from simcore.system import System
from simcore.units import to_si

from .chassis import (BACKWARD, BREAKAWAY_MARGIN, DEFAULT_FIELD, DRIVE_ENERGY_STATES, EXTERNAL_INPUTS, FORWARD, ROLL,
                      Chassis, ChassisDrive, ContactSolution, square_safe, walls_of)
from .drive import MotorDrive, drive_input_ranges, split_drive_options
from .ftc_motor_types import MotorType
from .battery import SupplyCurve
from .motor_channels import ChannelState, MotorChannels, free_current_friction, motor_friction
from .motors import DCMotor
from .odometry import odometry_pods_of, pod_rates, pod_readings, pod_signals

__all__ = ["TankDrive", "CharacterizedTankDrive", "rectangle_moi", "STANDARD_GRAVITY",
           "TANK_ENERGY_STATES", "SIDE_OUTPUTS", "SIDES", "EXTERNAL_INPUTS"]

#: Energy-accounting states (``track_energy=True``), J.
TANK_ENERGY_STATES = DRIVE_ENERGY_STATES

#: The two sides, in the order of every per-side signal.
SIDES = ("left", "right")

#: Motor outputs given per side (``left_<name>``, ``right_<name>``), as a GearedMechanism's.
SIDE_OUTPUTS = ("acceleration", "rotor_position", "rotor_velocity", "rotor_acceleration", "stator_current",
                "supply_current", "applied_voltage", "supply_voltage", "torque", "motor_torque", "saturated",
                "current_limited")

_SIDE_UNITS = {"acceleration": "m/s**2", "rotor_position": "rad", "rotor_velocity": "rad/s",
               "rotor_acceleration": "rad/s**2", "stator_current": "A", "supply_current": "A",
               "applied_voltage": "V", "supply_voltage": "V", "torque": "N*m", "motor_torque": "N*m",
               "saturated": "", "current_limited": "", "slip_speed": "m/s", "ground_force": "N"}

#: Default rotating inertia per side with a traction limit (wheels, sprockets, chain), kg·m².
DEFAULT_TANK_WHEEL_INERTIA = 0.005


def rectangle_moi(mass, width, length) -> float:
    """Moment of inertia of a uniform rectangular plate about its centre, kg·m².

    ``m (width^2 + length^2) / 12``: pyfrc ``TankModel``'s estimate from the robot's
    frame (bumpers included).

    Parameters
    ----------
    mass : float or Quantity
        Robot mass, kg.
    width, length : float or Quantity
        Robot frame width and length, m.
    """
    m = checks.positive("mass", mass, "kg", what="mass")
    w = checks.positive("width", width, "m", what="width")
    ln = checks.positive("length", length, "m", what="length")
    return m * (w * w + ln * ln) / 12.0


def motor_and_gearing(parameter: str, motor, gearing, gearing_name: str = "gearing"):
    """``(DCMotor, gear ratio, MotorType or None)`` from a DCMotor and a gearing, or from an FTC motor type."""
    if isinstance(motor, MotorType):
        if gearing is not None:
            raise ConfigError(gearing_name, gearing, f"None: the gear ratio comes from {parameter}={motor.name!r}")
        return motor.motor, motor.gear_ratio, motor
    if not isinstance(motor, DCMotor):
        raise ConfigTypeError(parameter, motor, "a simcore.models.motors.DCMotor or an FTC MotorType")
    if gearing is None:
        raise ConfigTypeError(gearing_name, gearing, "a gear ratio (motor turns per wheel turn)")
    return motor, checks.positive(gearing_name, gearing, what="gear ratio (motor turns per wheel turn)"), None


def regularized_sign(s: float, eps: float) -> float:
    """``s / sqrt(s^2 + eps^2)``: the regularized sign of a slip speed."""
    return s / math.sqrt(s * s + eps * eps)


def _tank_kernel():
    """The compiled tank drive (imported at first use: building a model loads no numba)."""
    return loaded("tank")


def tank_rim_mechanics(gearing, wheel_radius, wheel_inertia, rotor_inertia, n_motors):
    """``(k, M_w)``: rotor rad per m at the wheel rim ``G / r`` (1/m), and one side's rotating mass at the rim
    ``(wheel_inertia + n rotor_inertia G^2) / r^2`` (kg), for floats or arrays of variants alike (the one
    derivation: :class:`TankDrive`'s constructor and its batch parameters)."""
    r = wheel_radius
    return gearing / r, (wheel_inertia + n_motors * rotor_inertia * gearing * gearing) / (r * r)


def drive_variants(model, base, overrides, n, *, traction=True):
    """A drivetrain's batch values and what its constructor derives from them, for ``n`` variants (the one
    derivation of :meth:`TankDrive.kernel_parameters` and :meth:`~simcore.models.MecanumDrive.kernel_parameters`).

    ``base``: the drive's values (parameter -> float, SI), which ``overrides`` (batch parameter -> ``n`` values)
    replace, each checked as the constructor checks it (naming ``params['<name>.<parameter>'][j]``). ``model``
    has ``drive``, ``chassis``, ``wheel_inertia``, ``rotor_inertia``, ``viscous_friction`` and
    ``_viscous_given``. Returns ``(values, k, M_w, b_rotor)``: the values (float arrays), rotor rad per m at the
    rim ``G / r`` (1/m), a wheel's rotating mass at the rim (kg; the chassis' own while neither gearing nor radius
    varies) and the rotors' viscous friction (N·m·s/rad: a ``viscous_friction`` given at the rim acts at the
    rotors through each variant's ``G / r``). ``traction``: whether the drive has a traction limit (then the
    friction coefficient batches and the rotating mass must be positive).
    """
    values = {key: np.full(n, float(v)) for key, v in base.items()}
    varied = overrides or {}
    for key, value in varied.items():
        if key == "gearing" and getattr(model, "motor_type", None) is not None:
            raise ConfigError(f"params[{model.name + '.gearing'!r}]", value,
                              f"no gearing for a drive built from an FTC motor type: the gear ratio comes from "
                              f"motor={model.motor_type.name} (its constructor refuses one too)")
        values[key] = batch_values(model, key, value, n, model.BATCH_PARAMETERS, model._BATCH_UNITS.get(key, ""))
        if key == "friction_coefficient" and not traction:
            raise ConfigError(f"params[{model.name + '.' + key!r}]", key,
                              "a parameter of a drive built with a friction_coefficient (this one never slips)")
        if key == "wheel_radius":
            for j, r in enumerate(values[key]):
                square_safe(f"params[{model.name + '.' + key!r}][{j}]", float(r), "m", what="radius")
    d = model.drive
    with np.errstate(over="ignore", invalid="ignore"):
        k, Mw = tank_rim_mechanics(values["gearing"], values["wheel_radius"], model.wheel_inertia,
                                   model.rotor_inertia, d.n_motors)
        if "gearing" not in varied and "wheel_radius" not in varied:
            Mw = np.full(n, float(model.chassis.mass_eq[0]))
        b_rotor = (model.viscous_friction / k / k if model._viscous_given
                   else np.full(n, free_current_friction(d)))
    bad = ~(np.isfinite(k) & np.isfinite(Mw) & np.isfinite(b_rotor)) | (traction & ~(Mw > 0))
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        key = next((key for key in ("gearing", "wheel_radius") if key in varied), "gearing")
        raise ConfigError(f"params[{model.name + '.' + key!r}][{j}]", float(values[key][j]),
                          f"a value whose rotating mass at the rim and rotor friction are finite (and the mass "
                          f"positive with a traction limit) (variant {j})")
    return values, k, Mw, b_rotor


def channel_parameters(p, drive, gearing, b_rotor, limited) -> None:
    """Write a drivetrain's motor channel (one MotorDrive ``drive`` behind ``gearing``, per variant, with rotor
    friction ``b_rotor`` N·m·s/rad; ``limited``: whether it has current limits) into the first slots of its kernel
    parameters ``p`` (n, n_p), which every drivetrain lays out alike (``TP_R`` ... ``TP_CONVERSION`` of
    :mod:`simcore.kernel.tank_layout`, ``MP_R`` ... ``MP_CONVERSION`` of :mod:`simcore.kernel.mecanum_layout`)."""
    d = drive
    p[:, _tl.TP_R], p[:, _tl.TP_INV_KV], p[:, _tl.TP_KV], p[:, _tl.TP_KT] = d.R, 1.0 / d.Kv, d.Kv, d.Kt
    p[:, _tl.TP_GEARING], p[:, _tl.TP_EFFICIENCY] = gearing, d.efficiency
    p[:, _tl.TP_DUTY] = 1.0 if d.command == "duty" else 0.0
    p[:, _tl.TP_LIMITED] = 1.0 if limited else 0.0
    p[:, _tl.TP_STATOR_LIMIT], p[:, _tl.TP_SUPPLY_LIMIT] = d.stator_current_limit, d.supply_current_limit
    p[:, _tl.TP_B_ROTOR], p[:, _tl.TP_CONDUCTANCE], p[:, _tl.TP_CONVERSION] = b_rotor, 1.0 / d.R, 1.0 / d.Kv - d.Kt


def _characterized_kernel():
    """The compiled characterized tank (imported at first use: building a model loads no numba)."""
    return loaded("characterized_tank")


def batch_values(model, key, value, n, allowed, unit, *, nonnegative=False):
    """A batch's ``n`` values of ``model``'s parameter ``key`` (SI, float array ``(n,)``), checked as its
    constructor checks them (positive, or with ``nonnegative`` non-negative), naming
    ``params['<name>.<key>'][j]``; a key not in ``allowed`` is refused, naming them."""
    from simcore.batch_params import variant_values

    label = f"params[{model.name + '.' + str(key)!r}]"
    if key not in allowed:
        raise ConfigError(label, key, f"a batch parameter of {type(model).__name__} {model.name!r}: "
                                      f"{', '.join(allowed)}")
    arr = variant_values(label, value, unit, positive=not nonnegative, nonnegative=nonnegative)
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    if arr.shape != (n,):
        raise ConfigError(label, f"<array of shape {arr.shape}>", f"{n} values (one per variant)")
    return arr


class TankSample:
    """A tank drive at one instant: the chassis solution and what the derivatives and outputs need."""

    __slots__ = ("sol", "slip", "slip_free", "pose", "velocity", "wheel_speed", "rotor_speed", "channels",
                 "friction_power", "external_power", "bus")


class TankDrive(ChassisDrive, System):
    """A differential drive with real motors, optional traction limit, scrub, walls and battery coupling.

    See the module docstring for the equations.

    Parameters
    ----------
    motor : DCMotor or MotorType
        One drive motor, or an FTC motor type (its motor and gear ratio; see the
        module docstring's "FTC hubs").
    gearing : float
        Motor turns per wheel turn (None with a motor type).
    n_motors_per_side : int
        Motors geared together on each side.
    wheel_radius : float or Quantity
        m.
    track_width : float or Quantity
        Distance between the left and right wheel contact lines, m.
    mass : float or Quantity
        Robot mass, kg.
    moi : float or Quantity
        Robot moment of inertia about its vertical axis through the centre, kg·m²
        (:func:`rectangle_moi` gives pyfrc's estimate from width and length).
    name : str
        System name (default ``"drive"``).
    friction_coefficient : float, optional
        Wheel-ground friction coefficient ``mu`` along the wheels; ``None`` (default):
        no slip.
    wheel_inertia : float or Quantity, optional
        Rotating inertia of one side's wheels and gears about the wheel axle,
        kg·m². Default: 0 without a traction limit (as WPILib's plant) and
        0.005 kg·m² (three 6-inch wheels and sprockets) with one.
    rotor_inertia : float or Quantity
        Inertia of one motor rotor, kg·m² (default 0, as WPILib); reflected through
        the gearbox (``x G^2``) into each side's rotating inertia.
    slip_epsilon : float or Quantity
        ``eps`` of the regularized sideways (scrub) friction law, m/s (default 0.02).
    gravity : float
        m/s² (default standard gravity), for the normal load.
    efficiency, neutral_mode, stator_current_limit, supply_current_limit, nominal_bus_voltage
        As :class:`~simcore.models.drive.MotorDrive`; current limits apply per motor.
    command : {"voltage", "duty"}, optional
        As MotorDrive (default "voltage"; "duty" with an FTC motor type).
    track_energy : bool
        Add the energy-accounting states.
    start_pose : (x, y, heading)
        Initial pose, m, m, rad.
    wheelbase : float or Quantity, optional
        Distance between the front and rear axles, m: adds scrub (module docstring).
    axle_positions : sequence of float, optional
        Robot-frame x of each axle, m, instead of ``wheelbase`` (three for a
        six-wheel drop centre: ``(L/2, 0, -L/2)``).
    lateral_friction_coefficient : float or sequence of float, optional
        Sideways friction coefficient, one for all axles or one per axle (a traction
        wheel's mu, an omni wheel's roller friction, about 0.05). Default: the
        ``friction_coefficient``, or 1.0 without one.
    axle_load_fractions : sequence of float, optional
        Each axle's share of the weight at rest (a drop centre carries more on its
        middle axle; summing to 1 with no moment about the centre of mass). Default:
        equal springs.
    cog_height : float or Quantity
        Height of the centre of mass, m (default 0: no load transfer).
    bumper : (length, width), optional
        Bumper outline, m, for wall contacts and field plots.
    field : field, optional
        ``simcore.field.FRC_FIELD``, ``FTC_FIELD_WALLS`` or ``(x_min, y_min, x_max, y_max)``;
        with ``bumper``, the walls are contacts. Default: built from an FTC motor type
        with a ``friction_coefficient``, the FTC field's perimeter centred on the origin,
        with an 18 in square bumper unless ``bumper`` is given
        (:func:`~simcore.models.chassis.walls_of`); otherwise none. ``None``: no walls.
    viscous_friction : float or Quantity, optional
        The motors' own viscous friction at the wheel rim, per side, N·s/m. Default:
        the friction the datasheet free current implies (a motor at free speed draws
        its free current; :func:`~simcore.models.motor_channels.free_current_friction`);
        0 gives WPILib's ideal plant.
    odometry_pods : sequence of OdometryPod, optional
        Dead wheels rolling with the chassis (:mod:`simcore.models.odometry`): each adds the
        state ``<pod>_distance`` (m) and the outputs ``<pod>_rotor_position`` (rad) and
        ``<pod>_rotor_velocity`` (rad/s) a hub encoder port reads (``hub.encoder(port, drive, pod)``).

    Notes
    -----
    The odometry pods' states and outputs come after all the others.
    Inputs: ``left_voltage``, ``right_voltage`` and ``brake`` (1 brake, 0 coast;
    both sides), or with ``command="duty"`` ``left_duty``, ``right_duty``,
    ``left_brake``, ``right_brake``; one ``bus_voltage`` shared by both sides, which a
    :class:`~simcore.models.battery.Battery` solves; the external force inputs.
    :meth:`supply_current_at` returns both sides' total.
    """

    #: The side whose hub motors are mounted mirrored unless a channel says otherwise: the left, facing the
    #: right across the chassis (simcore.controllers.hub.motor, "Mounting").
    mirrored_wheels = ("left",)

    def __init__(self, motor, gearing=None, *, n_motors_per_side, wheel_radius, track_width, mass, moi,
                 name: str = "drive", friction_coefficient=None, wheel_inertia=None, rotor_inertia=0.0,
                 slip_epsilon=0.02, gravity=STANDARD_GRAVITY, efficiency=1.0, neutral_mode="brake",
                 stator_current_limit=None, supply_current_limit=None, command=None,
                 nominal_bus_voltage=None, track_energy: bool = False, start_pose=(0.0, 0.0, 0.0),
                 wheelbase=None, axle_positions=None, lateral_friction_coefficient=None, axle_load_fractions=None,
                 cog_height=0.0, bumper=None, field=DEFAULT_FIELD, viscous_friction=None, odometry_pods=()):
        motor, G, self.motor_type = motor_and_gearing("motor", motor, gearing)
        #: Dead-wheel pods rolling with the chassis (:mod:`simcore.models.odometry`).
        self.odometry_pods = odometry_pods_of("odometry_pods", odometry_pods)
        if command is None:
            command = "duty" if self.motor_type is not None else "voltage"
        drive_kw, _ = split_drive_options(type(self), dict(
            n_motors_per_side=n_motors_per_side, efficiency=efficiency, neutral_mode=neutral_mode,
            stator_current_limit=stator_current_limit, supply_current_limit=supply_current_limit, command=command,
            nominal_bus_voltage=nominal_bus_voltage), n_motors_keyword="n_motors_per_side")
        self.drive = MotorDrive(motor, G, **drive_kw)
        n = self.drive.n_motors
        self.motor = motor
        self.gearing = G
        self.n_motors_per_side = n
        self.wheel_radius = square_safe("wheel_radius", wheel_radius, "m", what="radius")
        self.track_width = checks.positive("track_width", track_width, "m", what="distance")
        self.mass = checks.positive("mass", mass, "kg", what="mass")
        self.moi = checks.positive("moi", moi, "kg*m**2", what="moment of inertia")
        self.rotor_inertia = checks.nonnegative("rotor_inertia", rotor_inertia, "kg*m**2", what="inertia")
        self.gravity = checks.positive("gravity", gravity, "m/s**2", what="acceleration")
        self.slip_epsilon = square_safe("slip_epsilon", slip_epsilon, "m/s", what="speed")
        self.friction_coefficient = (None if friction_coefficient is None else
                                     checks.positive("friction_coefficient", friction_coefficient,
                                                     what="friction coefficient"))
        self.traction = self.friction_coefficient is not None
        # The FTC field by default for an FTC tank that can push a wall (one that cannot slip cannot).
        field, bumper = walls_of(field, bumper, self.motor_type, can_push=self.traction)
        if wheel_inertia is None:
            wheel_inertia = DEFAULT_TANK_WHEEL_INERTIA if self.traction else 0.0
        self.wheel_inertia = checks.nonnegative("wheel_inertia", wheel_inertia, "kg*m**2", what="inertia")
        r = self.wheel_radius
        #: Equivalent mass of one side's rotating parts at the wheel rim, kg.
        self._k, self.side_rotating_mass = tank_rim_mechanics(G, r, self.wheel_inertia, self.rotor_inertia, n)
        if self.traction and not self.side_rotating_mass > 0:
            raise ConfigError("wheel_inertia", wheel_inertia,
                              "a positive inertia (or a positive rotor_inertia) with a traction limit")
        self.track_energy = checks.flag("track_energy", track_energy)
        self.start_pose = checks.pose("start_pose", start_pose)
        self._rb = self.track_width / 2.0
        #: Robot-frame x of each axle, m (None without scrub).
        self.axle_x = self._axles(wheelbase, axle_positions)
        self.wheelbase = (None if self.axle_x is None
                          else max(self.axle_x) - min(self.axle_x))
        self.scrub = self.axle_x is not None
        self.lateral_friction_coefficient = self._lateral(lateral_friction_coefficient)
        axles = self.axle_x if self.scrub else (0.0,)
        contacts, wheel_of = [], []
        for xa in axles:
            contacts += [(xa, self._rb), (xa, -self._rb)]
            wheel_of += [0, 1]
        share = None
        if axle_load_fractions is not None:
            if not self.scrub:
                raise ConfigError("axle_load_fractions", axle_load_fractions,
                                  "None without wheelbase or axle_positions")
            fr = [checks.positive(f"axle_load_fractions[{i}]", f, what="fraction")
                  for i, f in enumerate(axle_load_fractions)]
            if len(fr) != len(axles) or abs(sum(fr) - 1.0) > 1e-9 or \
                    abs(sum(f * xa for f, xa in zip(fr, axles))) > 1e-9 * max(abs(a) for a in axles):
                raise ConfigError("axle_load_fractions", axle_load_fractions,
                                  f"{len(axles)} fractions summing to 1 with no moment about the centre of mass")
            share = [f / 2.0 for f in fr for _ in (0, 1)]
        self.chassis = Chassis(mass=self.mass, moi=self.moi, contacts=contacts, wheel_of_contact=wheel_of,
                               gravity=self.gravity, cog_height=cog_height, bumper=bumper, field=field,
                               static_share=share, layout=self._layout(wheelbase, axle_positions, track_width))
        self.cog_height = self.chassis.cog_height
        if self.chassis.walls and not self.traction:
            raise ConfigError("field", field, "a friction_coefficient too: a robot that cannot slip cannot push a wall")
        self.chassis.check_inside("start_pose", self.start_pose)
        self.bumper, self.field = self.chassis.bumper, self.chassis.field
        self.traction_limits = [self.friction_coefficient] * 2
        Mw = self.side_rotating_mass
        self.chassis.set_wheels(couple=(1.0, 1.0), couple_free=(0.0, 0.0), mass_eq=(Mw, Mw),
                                mu=self.traction_limits, free_of_wheel=(-1, -1))
        self._lateral_fixed = not self.scrub
        self._contact_axle = [a for a in range(len(axles)) for _ in (0, 1)]
        self._free_dirs = [(0.0, 1.0)] * len(contacts)
        self._free_arm = [xa for xa, _ in contacts]
        self._ones2, self._zeros2, self._arms = (1.0, 1.0), (0.0, 0.0), (-self._rb, self._rb)
        self.chassis.set_geometry(self._ones2, self._zeros2, self._arms, self._free_dirs, self._free_arm)
        self._zeros = [0.0] * len(contacts)
        self._contact_mu = ([self.lateral_friction_coefficient[a] for a in self._contact_axle] if self.scrub
                            else self._zeros)
        # The motors' own friction: from the datasheet free current unless given (0: the ideal motor).
        self.viscous_friction, b_rotor = motor_friction("viscous_friction", viscous_friction, self.drive, G / r,
                                                        "N*s/m")
        self._viscous_given = viscous_friction is not None
        self.channels = MotorChannels([self.drive, self.drive], [b_rotor, b_rotor])
        self._names(name, command, contacts)
        self._setup_modes()
        # The drive without load transfer or walls is evaluated by the kernel's form (simcore.kernel.tank) on every
        # path; with no odometry pods its derivatives and outputs too.
        self._kernel_eval = (not self.chassis.tips and not self.chassis.walls
                             and (not self.scrub or len(self.axle_x) <= _tl.MAX_AXLES))
        self._kernel_whole = self._kernel_eval and not self.odometry_pods
        self._kernel_p = self.kernel_parameters()[0] if self._kernel_eval else None
        self._kernel_events()

    def _layout(self, wheelbase, axle_positions, track_width):
        """The user's layout parameters, for :class:`Chassis` to name in its errors."""
        layout = [("track_width", track_width, self.track_width)]
        if axle_positions is not None:
            layout.append(("axle_positions", axle_positions, self.axle_x))
        elif wheelbase is not None:
            layout.append(("wheelbase", wheelbase, self.axle_x[0] * 2.0))
        return layout

    def _axles(self, wheelbase, axle_positions):
        if axle_positions is not None:
            if wheelbase is not None:
                raise ConfigError("wheelbase", wheelbase, "None when axle_positions is given")
            if isinstance(axle_positions, (str, bytes)) or not hasattr(axle_positions, "__iter__"):
                raise ConfigTypeError("axle_positions", axle_positions, "a sequence of axle x positions in m")
            xs = [checks.finite(f"axle_positions[{i}]", a, "m") for i, a in enumerate(axle_positions)]
            if len(xs) < 2 or len(set(xs)) != len(xs):
                raise ConfigError("axle_positions", axle_positions, "two or more distinct axle positions in m")
            return xs
        if wheelbase is None:
            return None
        L = checks.positive("wheelbase", wheelbase, "m", what="distance")
        return [L / 2.0, -L / 2.0]

    def _lateral(self, value):
        if not self.scrub:
            if value is not None:
                raise ConfigError("lateral_friction_coefficient", value, "None without wheelbase or axle_positions "
                                                                         "(no lever arm for scrub)")
            return None
        n = len(self.axle_x)
        if value is None:
            value = self.friction_coefficient if self.friction_coefficient is not None else 1.0
        if hasattr(value, "__iter__") and not isinstance(value, (str, bytes)):
            mus = [checks.nonnegative(f"lateral_friction_coefficient[{i}]", v, what="friction coefficient")
                   for i, v in enumerate(value)]
            if len(mus) != n:
                raise ConfigError("lateral_friction_coefficient", value, f"one value or {n} (one per axle)")
            return mus
        return [checks.nonnegative("lateral_friction_coefficient", value, what="friction coefficient")] * n

    def _names(self, name, cmd, contacts):
        states = ["x", "y", "heading", "left_velocity", "right_velocity", "left_position", "right_position"]
        outputs = []
        self._iv = self._iw = self._ilat = self._ie = None
        if self.traction:
            self._iv, self._iw = len(states), len(states) + 1
            states += ["velocity", "yaw_rate"]
            outputs += ["left_slip_speed", "right_slip_speed", "left_ground_force", "right_ground_force"]
        else:
            outputs += ["velocity", "yaw_rate"]
        if self.scrub:
            self._ilat = len(states)
            states.append("lateral_velocity")
        if self.track_energy:
            self._ie = len(states)
            states += list(TANK_ENERGY_STATES)
            self.energy_index = self._ie + TANK_ENERGY_STATES.index("impact_loss")
        self._ipod = len(states)  # the pods' distances come last
        pod_states, pod_outputs, pod_units = pod_signals(self.odometry_pods)
        states += pod_states
        outputs += ["acceleration", "yaw_acceleration", "supply_current", "kinetic_energy"]
        outputs += [f"{side}_{o}" for side in SIDES for o in SIDE_OUTPUTS]
        outputs += ["supply_voltage"] + [f"normal_force_{j}" for j in range(len(contacts))]
        if self.scrub:
            outputs.append("lateral_acceleration")
        if self.chassis.walls:
            outputs.append("wall_force")
        outputs += pod_outputs
        inputs = [f"left_{cmd}", f"right_{cmd}"]
        inputs += ["brake"] if cmd == "voltage" else ["left_brake", "right_brake"]
        inputs += list(EXTERNAL_INPUTS) + ["bus_voltage"]
        self._ib = (2, 2) if cmd == "voltage" else (2, 3)
        self._ibus = inputs.index("bus_voltage")
        self._iext = inputs.index("external_force_x")
        units = {"x": "m", "y": "m", "heading": "rad", "left_velocity": "m/s", "right_velocity": "m/s",
                 "left_position": "m", "right_position": "m", "velocity": "m/s", "yaw_rate": "rad/s",
                 "lateral_velocity": "m/s", "lateral_acceleration": "m/s**2",
                 "acceleration": "m/s**2", "yaw_acceleration": "rad/s**2", "supply_current": "A",
                 "kinetic_energy": "J", "bus_voltage": "V", "brake": "", "left_brake": "", "right_brake": "",
                 "supply_voltage": "V", "wall_force": "N", "external_force_x": "N", "external_force_y": "N",
                 "external_torque": "N*m", f"left_{cmd}": "V" if cmd == "voltage" else "",
                 f"right_{cmd}": "V" if cmd == "voltage" else ""}
        units.update({s: "J" for s in TANK_ENERGY_STATES})
        units.update({f"normal_force_{j}": "N" for j in range(len(contacts))})
        for side in SIDES:
            units.update({f"{side}_{o}": u for o, u in _SIDE_UNITS.items()})
        units.update(pod_units)
        System.__init__(self, name, states, inputs, outputs, units)
        self.input_ranges = drive_input_ranges(self.input_names)
        #: Names of the inputs that command the motors (for the battery's brownout "disable").
        self.motor_command_inputs = (f"left_{cmd}", f"right_{cmd}")

    #: pyfrc's moment-of-inertia estimate from the frame: ``m (width^2 + length^2) / 12``.
    estimate_moi = staticmethod(rectangle_moi)

    # -- constructors for characterized models -------------------------------------------------
    @staticmethod
    def characterized(*, kv_linear, ka_linear, kv_angular, ka_angular, ks=0.0, track_width,
                      name: str = "drive", start_pose=(0.0, 0.0, 0.0)) -> "CharacterizedTankDrive":
        """A drivetrain from measured feedforward gains (SysId), WPILib's identified plant.

        Parameters
        ----------
        kv_linear : float or Quantity
            V per m/s of chassis speed (each side).
        ka_linear : float or Quantity
            V per m/s² of chassis acceleration.
        kv_angular : float or Quantity
            V per rad/s of yaw rate (each side, opposite signs).
        ka_angular : float or Quantity
            V per rad/s² of yaw acceleration.
        ks : float or Quantity
            Static-friction voltage per side, V (a deadband on the command, as
            pyfrc's ``vintercept``; see the module docstring).
        track_width : float or Quantity
            m; converts the angular gains to per-wheel gains and the side speeds
            to the yaw rate.
        name : str
        start_pose : (x, y, heading)

        Returns
        -------
        CharacterizedTankDrive
        """
        return CharacterizedTankDrive(kv_linear=kv_linear, ka_linear=ka_linear, kv_angular=kv_angular,
                                      ka_angular=ka_angular, ks=ks, track_width=track_width, name=name,
                                      start_pose=start_pose)

    @staticmethod
    def pyfrc(*, kv, ka, vintercept, robot_mass, x_wheelbase, robot_width, robot_length,
              name: str = "drive", start_pose=(0.0, 0.0, 0.0)) -> "CharacterizedTankDrive":
        """pyfrc ``TankModel(motor_config, robot_mass, x_wheelbase, robot_width, robot_length, kv, ka, vi, ...)``.

        Same equations as pyfrc (see the module docstring), integrated exactly
        instead of by pyfrc's 5 ms Heun steps. Left and right gains are equal.
        Give pyfrc's imperial gains as Quantities (``kv`` in V/(ft/s), ``ka`` in
        V/(ft/s²)) or SI floats (V/(m/s), V/(m/s²)).

        Parameters
        ----------
        kv, ka : float or Quantity
            Per-side velocity and acceleration gains.
        vintercept : float or Quantity
            V.
        robot_mass : float or Quantity
            kg.
        x_wheelbase, robot_width, robot_length : float or Quantity
            m.
        """
        kv_si = checks.positive("kv", kv, "V*s/m")
        ka_si = checks.positive("ka", ka, "V*s**2/m")
        m = checks.positive("robot_mass", robot_mass, "kg")
        wb = checks.positive("x_wheelbase", x_wheelbase, "m")
        J = rectangle_moi(m, to_si("robot_width", robot_width, "m"), to_si("robot_length", robot_length, "m"))
        b_eff = 2.0 * J / (m * wb)
        return CharacterizedTankDrive(kv_linear=kv_si, ka_linear=ka_si, kv_angular=kv_si * b_eff / 2.0,
                                      ka_angular=ka_si * b_eff / 2.0, ks=vintercept, track_width=b_eff,
                                      name=name, start_pose=start_pose)

    @staticmethod
    def pyfrc_theory(motor, robot_mass, gearing, n_motors=1, x_wheelbase=0.5334, robot_width=0.6985,
                     robot_length=0.9271, wheel_diameter=0.1524, vintercept=1.3, *, name: str = "drive",
                     start_pose=(0.0, 0.0, 0.0)) -> "CharacterizedTankDrive":
        """pyfrc's ``TankModel.theory(...)``: kv and ka derived from motor data.

        ``v_max = w_free pi d / G``, ``a_max = 2 n T_stall G / (d m)``,
        ``kv = V_nominal / v_max``, ``ka = V_nominal / a_max`` (pyfrc's equations;
        the free current does not enter), then :meth:`pyfrc`. Defaults are pyfrc's
        kitbot: 21 in wheelbase, 27.5 x 36.5 in frame, 6 in wheels, 1.3 V.

        Parameters
        ----------
        motor : DCMotor
            One motor (its nominal voltage, free speed and stall torque are used).
        robot_mass : float or Quantity
            kg.
        gearing : float
            Motor turns per wheel turn.
        n_motors : int
            Motors per side.
        x_wheelbase, robot_width, robot_length, wheel_diameter : float or Quantity
            m.
        vintercept : float or Quantity
            V.
        """
        if not isinstance(motor, DCMotor):
            raise ConfigTypeError("motor", motor, "a simcore.models.motors.DCMotor")
        m = checks.positive("robot_mass", robot_mass, "kg")
        G = checks.positive("gearing", gearing, "")
        n_motors = checks.integer("n_motors", n_motors, minimum=1, what="a whole number of motors")
        d = checks.positive("wheel_diameter", wheel_diameter, "m", what="diameter")
        v_max = motor.free_speed * d / 2.0 / G
        a_max = 2.0 * n_motors * motor.stall_torque * G / (d * m)
        return TankDrive.pyfrc(kv=motor.nominal_voltage / v_max, ka=motor.nominal_voltage / a_max,
                               vintercept=vintercept, robot_mass=m, x_wheelbase=x_wheelbase,
                               robot_width=robot_width, robot_length=robot_length, name=name,
                               start_pose=start_pose)

    # -- System interface -------------------------------------------------------------------------
    def initial_state(self):
        x = np.zeros(len(self.state_names))
        x[0], x[1], x[2] = self.start_pose
        return x

    def initial_inputs(self):
        u = np.zeros(len(self.input_names))
        u[self._ib[0]] = u[self._ib[1]] = 1.0 if self.drive.neutral_mode == "brake" else 0.0
        u[self._ibus] = self.drive.nominal_bus_voltage
        return u

    def free_speed(self, voltage: float) -> float:
        """Steady straight-line speed with ``voltage`` on both sides and no load but the motors' own friction, m/s."""
        return self.channels.free_rotor_speed(voltage) / self._k

    def _chassis_velocity(self, xl):
        """(forward speed, sideways speed, yaw rate), robot frame."""
        if self.traction:
            v, om = xl[self._iv], xl[self._iw]
        else:
            v, om = 0.5 * (xl[3] + xl[4]), (xl[4] - xl[3]) / self.track_width
        return v, (xl[self._ilat] if self.scrub else 0.0), om

    def _evaluate(self, x, u, mode):
        if self._kernel_eval:
            return self._evaluate_in_kernel(x, u, mode[0])
        xl, ul = x.tolist(), u.tolist()
        wheels, contacts = mode
        th = xl[2]
        c, s = math.cos(th), math.sin(th)
        rb = self._rb
        vl, vr = xl[3], xl[4]
        if self.traction:
            v, om = xl[self._iv], xl[self._iw]
            gl, gr = v - om * rb, v + om * rb
            wl = gl if wheels[0] == ROLL else vl
            wr = gr if wheels[1] == ROLL else vr
        else:
            v, om = 0.5 * (vl + vr), (vr - vl) / self.track_width
            gl, gr, wl, wr = vl, vr, vl, vr
        vlat = xl[self._ilat] if self.scrub else 0.0
        k = self._k
        rotor = (k * wl, k * wr)
        bus = ul[self._ibus]
        ib0, ib1 = self._ib
        chs = self.channels.evaluate(rotor, ul, (ul[ib0], ul[ib1]), bus)
        r = self.wheel_radius
        to = chs.output_torque
        D = (to[0] / r, to[1] / r)  # to: net of the rotors' friction
        ch = self.chassis
        if self.scrub:
            eps2 = self.slip_epsilon ** 2
            lat = [vlat + om * xa for xa in self._free_arm]
            coef = [mu_a * sn / math.sqrt(sn * sn + eps2) for mu_a, sn in zip(self._contact_mu, lat)]
        else:
            lat = coef = self._zeros
        ie = self._iext
        fx, fy, tz = ul[ie], ul[ie + 1], ul[ie + 2]
        sol = ch.solve_fixed((om * vlat, om * vlat), D, wheels, coef, c * fx + s * fy, -s * fx + c * fy, tz,
                             ch.wall_rows(contacts, om, c, s) if contacts else (), None if self.scrub else om * v)
        smp = TankSample()
        smp.sol = sol
        sl, sr = vl - gl, vr - gr
        smp.slip_free = (sl, sr)
        sl = 0.0 if wheels[0] == ROLL else sl
        sr = 0.0 if wheels[1] == ROLL else sr
        smp.slip = (sl, sr)
        smp.pose = (xl[0], xl[1], c, s)
        smp.velocity = (v, vlat, om)
        smp.wheel_speed = (wl, wr)
        smp.rotor_speed = rotor
        smp.channels = chs
        smp.bus = bus
        if self.track_energy:  # the power terms only the energy ledger integrates
            tf, f = chs.friction_torque, sol.traction
            fric = tf[0] * rotor[0] + tf[1] * rotor[1] + f[0] * sl + f[1] * sr
            if self.scrub:
                fric -= sum(g * sn for g, sn in zip(sol.free_force, lat))
            smp.friction_power = fric
            smp.external_power = fx * (c * v - s * vlat) + fy * (s * v + c * vlat) + tz * om
        return smp

    def _evaluate_in_kernel(self, x, u, wheels):
        """:meth:`_evaluate` by the kernel's form (:func:`simcore.kernel.tank.evaluate`)."""
        s = np.empty(_tl.N_TANK_SAMPLE)
        _tank_kernel().evaluate(self._kernel_p, 0, int(wheels[0]), int(wheels[1]), np.asarray(x, dtype=float), 0,
                                np.asarray(u, dtype=float), 0, s)
        s = s.tolist()
        sol = ContactSolution()
        sol.ax, sol.ay, sol.alpha, sol.wall_force = s[_tl.TS_AX], s[_tl.TS_AY], s[_tl.TS_ALPHA], ()
        nc = len(self._zeros)
        sol.normal = s[_tl.TS_NORMAL:_tl.TS_NORMAL + nc]
        sol.free_force = s[_tl.TS_FREE:_tl.TS_FREE + nc] if self.scrub else self._zeros
        sol.traction = [s[_tl.TS_F_L], s[_tl.TS_F_R]]
        sol.wheel_accel = [s[_tl.TS_WA_L], s[_tl.TS_WA_R]]
        chs = ChannelState()
        cl, cr = _tl.TS_CHANNEL_L, _tl.TS_CHANNEL_R
        (chs.applied_voltage, chs.stator_current, chs.supply_current, chs.saturated, chs.current_limited,
         chs.motor_torque, chs.output_torque, chs.friction_torque) = zip(s[cl:cl + 8], s[cr:cr + 8])
        smp = TankSample()
        smp.sol = sol
        smp.slip_free = (s[_tl.TS_SLIP_FREE_L], s[_tl.TS_SLIP_FREE_R])
        smp.slip = (s[_tl.TS_SLIP_L], s[_tl.TS_SLIP_R])
        smp.pose = (float(x[0]), float(x[1]), s[_tl.TS_COS], s[_tl.TS_SIN])
        smp.velocity = (s[_tl.TS_V], s[_tl.TS_VLAT], s[_tl.TS_OM])
        smp.wheel_speed = (s[_tl.TS_WS_L], s[_tl.TS_WS_R])
        smp.rotor_speed = (s[_tl.TS_ROTOR_L], s[_tl.TS_ROTOR_R])
        smp.channels = chs
        smp.bus = s[_tl.TS_BUS]
        smp.friction_power = s[_tl.TS_FRICTION_POWER]
        smp.external_power = s[_tl.TS_EXTERNAL_POWER]
        return smp

    def _mode_code(self) -> int:
        """The kernel's code of the present mode (the wheels rolling before a mode is set)."""
        return self._MODE_CODES.get(self.mode, 0)

    def derivatives(self, t, x, u):
        if self._kernel_whole:
            out = np.empty(len(self.state_names))
            _tank_kernel().derivatives(self._kernel_p, 0, self._mode_code(), np.asarray(x, dtype=float), 0,
                                       np.asarray(u, dtype=float), 0, out)
            return out
        smp = self._sample(t, x, u)
        sol = smp.sol
        v, vlat, om = smp.velocity
        _, _, c, s = smp.pose
        out = np.empty(len(self.state_names))
        out[0] = c * v - s * vlat
        out[1] = s * v + c * vlat
        out[2] = om
        out[3], out[4] = sol.wheel_accel
        out[5], out[6] = smp.wheel_speed
        if self.traction:
            out[self._iv] = sol.ax + om * vlat
            out[self._iw] = sol.alpha
        if self.scrub:
            out[self._ilat] = sol.ay - om * v
        if self.track_energy:
            d, chs, rotor = self.drive, smp.channels, smp.rotor_speed
            i, r = chs.stator_current, self.wheel_radius
            e = self._ie
            out[e] = smp.bus * (chs.supply_current[0] + chs.supply_current[1])
            out[e + 1] = (i[0] * i[0] + i[1] * i[1]) * d.R
            out[e + 2] = (i[0] * rotor[0] + i[1] * rotor[1]) * (1.0 / d.Kv - d.Kt)
            out[e + 3] = sum((chs.motor_torque[k] - chs.friction_torque[k]) * rotor[k]
                             - chs.output_torque[k] * smp.wheel_speed[k] / r for k in (0, 1))
            out[e + 4] = smp.friction_power
            out[e + 5] = 0.0
            out[e + 6] = smp.external_power
        if self.odometry_pods:  # the chassis velocity, robot frame: no sideways velocity without scrub
            out[self._ipod:] = pod_rates(self.odometry_pods, v, vlat, om)
        return out

    def kinetic_energy(self, x) -> float:
        """Kinetic energy of chassis and rotating parts at state ``x``, J."""
        xl = list(x) if not hasattr(x, "tolist") else x.tolist()
        v, vlat, om = self._chassis_velocity(xl)
        vl, vr = xl[3], xl[4]
        return 0.5 * (self.mass * (v * v + vlat * vlat) + self.moi * om * om
                      + self.side_rotating_mass * (vl * vl + vr * vr))

    def outputs(self, t, x, u):
        if self._kernel_whole:
            out = np.empty(_tl.n_tank_outputs(len(self.axle_x) if self.scrub else 0))
            _tank_kernel().outputs(self._kernel_p, 0, self._mode_code(), np.asarray(x, dtype=float), 0,
                                   np.asarray(u, dtype=float), 0, out, 0)
            out = out.tolist()
            return out if self.traction else out[:2] + out[4:]
        smp = self._sample(t, x, u)
        sol, chs = smp.sol, smp.channels
        v, vlat, om = smp.velocity
        k = self.gearing / self.wheel_radius
        out = list(smp.slip) + list(sol.traction) if self.traction else [v, om]
        out += [sol.ax + om * vlat, sol.alpha, chs.supply_current[0] + chs.supply_current[1], self.kinetic_energy(x)]
        bus = smp.bus
        for side, pos in ((0, x[5]), (1, x[6])):
            a = sol.wheel_accel[side]
            out += [a, k * pos, smp.rotor_speed[side], k * a, chs.stator_current[side], chs.supply_current[side],
                    chs.applied_voltage[side], bus, chs.output_torque[side], chs.motor_torque[side],
                    chs.saturated[side], chs.current_limited[side]]
        out.append(bus)
        out += sol.normal
        if self.scrub:
            out.append(sol.ay - om * v)
        if self.chassis.walls:
            out.append(sum(sol.wall_force))
        if self.odometry_pods:
            out += pod_readings(self.odometry_pods, x[self._ipod:], v, vlat, om)
        return out

    def _commands(self, ul):
        return (ul[0], ul[1]), (ul[self._ib[0]], ul[self._ib[1]])

    def supply_current_at(self, x, u, bus_voltage: float) -> float:
        """Both sides' supply current, A, at bus voltage ``bus_voltage`` V (for the Battery)."""
        if self._kernel_eval:
            return _tank_kernel().supply_current_at(self._kernel_p, 0, self._mode_code(), np.asarray(x, dtype=float), 0,
                                                    np.asarray(u, dtype=float), 0, float(bus_voltage))
        cmd, brake = self._commands(u.tolist())
        return self.channels.supply_current(self._rotor_speeds(x), cmd, brake, bus_voltage)

    def supply_current_curve(self, x, u):
        """Both sides' supply current as a function of the bus voltage (a SupplyCurve), or None with limits."""
        if self.channels.any_limits:
            return None
        if self._kernel_eval:  # the kernel's assembly of the two motors' pieces
            abc, breaks = np.zeros(3), np.empty((2, 4))
            nb = _tank_kernel().add_supply_curve(self._kernel_p, 0, self._mode_code(), np.asarray(x, dtype=float), 0,
                                                 np.asarray(u, dtype=float), 0, abc, breaks, 0)
            a, b, c = abc.tolist()
            return SupplyCurve(a, b, c, [tuple(row) for row in breaks[:nb].tolist()])
        ul = u.tolist()
        ib0, ib1 = self._ib
        return self.channels.supply_curve(self._rotor_speeds(x), ul, (ul[ib0], ul[ib1]))  # commands first in u

    def _rotor_speeds(self, x):
        """Both sides' rotor speeds, rad/s, in the present traction mode (the bus solve's view): a rolling
        side's rim turns at its ground speed (the constraint)."""
        xl, k = x.tolist(), self._k
        if not self.traction:
            return k * xl[3], k * xl[4]
        wheels = self.mode[0] if self.mode else (ROLL, ROLL)
        v, om, rb = xl[self._iv], xl[self._iw], self._rb
        return (k * (v - om * rb if wheels[0] == ROLL else xl[3]),
                k * (v + om * rb if wheels[1] == ROLL else xl[4]))

    # -- the chassis mixin's hooks ------------------------------------------------------------------
    def _snap(self, x, wheels):
        x = np.array(x, dtype=float)
        if self.traction and wheels:
            v, _, om = self._chassis_velocity(x.tolist())
            for i in wheels:
                x[3 + i] = v + (om * self._rb if i else -om * self._rb)
        return x

    def _with_velocity(self, x, vx, vy, om):
        x = np.array(x, dtype=float)
        x[self._iv], x[self._iw] = vx, om
        if self.scrub:
            x[self._ilat] = vy
        return x

    # -- the kernel form (simcore.kernel.tank) -------------------------------------------------------
    #: The kernel's mode codes (``3 w_L + w_R``, simcore.kernel.tank_layout) by the drive's mode.
    _MODE_CODES = {((a, b), ()): 3 * i + j for i, a in enumerate(_tl.TANK_WHEEL_MODES)
                   for j, b in enumerate(_tl.TANK_WHEEL_MODES)}
    #: The kernel's mode names, indexed by code.
    KERNEL_MODES = tuple(sorted(_MODE_CODES, key=_MODE_CODES.get))
    #: The parameters a batch varies (``simcore.simulate_batch``'s ``params["<name>.<parameter>"]``) and their units
    #: (``cog_height`` is not one: a drive with load transfer has no kernel form yet).
    BATCH_PARAMETERS = ("mass", "moi", "wheel_radius", "gearing", "friction_coefficient")
    _BATCH_UNITS = {"mass": "kg", "moi": "kg*m**2", "wheel_radius": "m", "gearing": "", "friction_coefficient": ""}

    def _kernel_events(self) -> None:
        """The events by their kernel id (simcore.kernel.tank_layout's ``EV_TANK_*``), marked with their guard's
        code."""
        self.kernel_events = {}
        if not self.traction:
            return
        events = {_tl.EV_TANK_BREAKAWAY_LEFT: self._breakaway[0], _tl.EV_TANK_BREAKAWAY_RIGHT: self._breakaway[1],
                  _tl.EV_TANK_GRIP_LEFT_FORWARD: self._grip[(0, FORWARD)],
                  _tl.EV_TANK_GRIP_LEFT_BACKWARD: self._grip[(0, BACKWARD)],
                  _tl.EV_TANK_GRIP_RIGHT_FORWARD: self._grip[(1, FORWARD)],
                  _tl.EV_TANK_GRIP_RIGHT_BACKWARD: self._grip[(1, BACKWARD)]}
        for i, e in events.items():
            e.kernel_guard = _tl.TANK_GUARD_BASE + i
        self.kernel_events = events

    def kernel_parameters(self, overrides: dict | None = None, n: int = 1) -> np.ndarray:
        """The parameter vector of this drive in the compiled kernel, for ``n`` variants at once.

        The constructor calls it with no overrides, :meth:`kernel_form` returns its row, and a batch calls it
        with its variants' values (:attr:`BATCH_PARAMETERS`: ``mass``, ``moi``, ``wheel_radius``, ``gearing``,
        ``friction_coefficient``). What the constructor derives from them is derived again from each variant's
        value with its rules (:func:`tank_rim_mechanics`; a ``viscous_friction`` given at the rim acts at the
        rotors through each variant's ``G / r``; the loads at rest are ``m g`` times each contact's share), so row
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
            Shape ``(n, N_TANK_PARAMETERS)``, laid out by :mod:`simcore.kernel.tank_layout`'s ``TP_*``.

        Raises
        ------
        ConfigError
            A parameter this drive does not batch, a value the constructor would refuse, or a drive the kernel
            has no form of (scrub, load transfer or walls), naming ``params['<name>.<parameter>'][j]`` and the
            variant ``j``.
        """
        n = checks.integer("n", n, minimum=1)
        if not self._kernel_eval:
            raise ConfigError(f"params[{self.name!r}]", sorted(overrides or {}),
                              f"a TankDrive without cog_height or walls, on at most {_tl.MAX_AXLES} axles (the "
                              "compiled kernel's tank)")
        ch = self.chassis
        # (the chassis' values as they are now: the Python path reads them at each solve)
        base = {"mass": ch.mass, "moi": ch.moi, "wheel_radius": self.wheel_radius, "gearing": self.gearing,
                "friction_coefficient": ch.mu[0] if self.traction else math.nan}
        values, k, Mw, b_rotor = drive_variants(self, base, overrides, n, traction=self.traction)
        d = self.drive
        G, r, m = values["gearing"], values["wheel_radius"], values["mass"]
        varied = overrides or {}
        mu = values["friction_coefficient"]
        share = self.chassis.load_share
        n_axles = len(self.axle_x) if self.scrub else 0
        p = np.empty((n, _tl.n_tank_parameters(n_axles)))
        channel_parameters(p, d, G, b_rotor, self.channels.any_limits)
        p[:, _tl.TP_K], p[:, _tl.TP_WHEEL_RADIUS] = k, r
        p[:, _tl.TP_RB], p[:, _tl.TP_TRACK_WIDTH] = self._rb, self.track_width
        p[:, _tl.TP_MASS], p[:, _tl.TP_MOI], p[:, _tl.TP_MW] = m, values["moi"], Mw
        p[:, _tl.TP_MU], p[:, _tl.TP_MU_BREAKAWAY] = mu, mu * (1.0 + BREAKAWAY_MARGIN)
        if "mass" in varied:
            weight = m * self.gravity
            contact_load = [weight * f for f in share]  # Chassis: m g times each contact's share
            for i, slot in enumerate((_tl.TP_LOAD0_L, _tl.TP_LOAD0_R)):  # a side's, its contacts' (wheel_load0)
                p[:, slot] = sum(contact_load[j] for j in ch.contacts_of_wheel[i])
        else:
            contact_load = ch.load0
            p[:, _tl.TP_LOAD0_L], p[:, _tl.TP_LOAD0_R] = ch.wheel_load0
        p[:, _tl.TP_SCRUB] = 1.0 if self.scrub else 0.0
        p[:, _tl.TP_SLIP_EPS2] = self.slip_epsilon ** 2
        p[:, _tl.TP_N_AXLES] = n_axles
        # load transfer coefficients: zero without a cog height (the kernel's tank has none)
        p[:, _tl.TP_WLX_L], p[:, _tl.TP_WLX_R] = self.chassis.wheel_load_x
        p[:, _tl.TP_WLY_L], p[:, _tl.TP_WLY_R] = self.chassis.wheel_load_y
        for a in range(n_axles):
            o = _tl.TP_AXLES + _tl.N_AXLE * a
            p[:, o + _tl.AX_X], p[:, o + _tl.AX_MU] = self.axle_x[a], self.lateral_friction_coefficient[a]
            p[:, o + _tl.AX_LOAD0_L], p[:, o + _tl.AX_LOAD0_R] = contact_load[2 * a], contact_load[2 * a + 1]
        p[:, _tl.TP_TRACTION] = 1.0 if self.traction else 0.0
        p[:, _tl.TP_TRACK_ENERGY] = 1.0 if self.track_energy else 0.0
        p[:, _tl.TP_BRAKE_L], p[:, _tl.TP_BRAKE_R] = self._ib
        p[:, _tl.TP_EXTERNAL], p[:, _tl.TP_BUS] = self._iext, self._ibus
        return p

    def initial_mode(self, t, x, u):
        self._refresh_kernel()
        return super().initial_mode(t, x, u)

    def _refresh_kernel(self) -> None:
        """The kernel's parameters from the chassis as it is now (a simulation starts: what the Python path reads
        at each solve, the kernel reads from them)."""
        if self._kernel_eval:
            self._kernel_p = self.kernel_parameters()[0]

    def kernel_form(self):
        """``(kind, parameters, mode names)`` of this drive in the compiled kernel (:mod:`simcore.kernel.tank`), or
        None where the kernel has no form of it yet (then the simulation takes the Python path): a ``cog_height``
        (load transfer and the tip event), walls, more than ``MAX_AXLES`` (4) axles, odometry pods, or a subclass."""
        if not self._kernel_whole or type(self) is not TankDrive:
            return None
        from simcore.kernel.parts import KIND_TANK

        self._refresh_kernel()
        return KIND_TANK, self._kernel_p, self.KERNEL_MODES

    def outline(self):
        """Robot outline in the robot frame for field plots: the bumper, or a square of the track width, m."""
        if self.bumper is not None:
            hl, hw = self.bumper[0] / 2.0, self.bumper[1] / 2.0
            return [(hl, hw), (-hl, hw), (-hl, -hw), (hl, -hw)]
        h = self._rb * 1.25
        return [(h, h), (-h, h), (-h, -h), (h, -h)]


    @staticmethod
    def from_sysid(ks, kv, ka, *, track_width, kv_angular=None, ka_angular=None, name: str = "drive",
                   start_pose=(0.0, 0.0, 0.0), **options) -> "CharacterizedTankDrive":
        """A drivetrain from WPILib SysId's gains: ``ks`` V, ``kv`` V/(m/s), ``ka`` V/(m/s²) per side.

        ``kv_angular`` V/(rad/s) and ``ka_angular`` V/(rad/s²) from an angular test;
        see :func:`simcore.sysid.tank_drive` for their defaults and ``options``
        (``command="duty"``, ``nominal_bus_voltage``).
        """
        from simcore.sysid import tank_drive

        return tank_drive(ks, kv, ka, track_width=track_width, kv_angular=kv_angular, ka_angular=ka_angular,
                          name=name, start_pose=start_pose, **options)


class CharacterizedTankDrive(System):
    """A tank drive from feedforward gains; build it with :meth:`TankDrive.characterized`.

    States ``x, y, heading, left_velocity, right_velocity, left_position,
    right_position``; inputs ``left_voltage``, ``right_voltage`` and
    ``bus_voltage`` (default 12 V, an ideal source: each side's voltage is clipped
    to it; this model has no motor data, so it draws no current from a Battery).
    Outputs ``velocity``, ``yaw_rate``, ``left_acceleration``,
    ``right_acceleration``, ``left_applied_voltage``, ``right_applied_voltage``.

    The law is written once, in kernel form (:mod:`simcore.kernel.characterized_tank`): this class calls it,
    and a simulation of built-in parts runs it compiled. ``simulate_batch`` varies the gains and the track
    width (:attr:`BATCH_PARAMETERS`, derived by :meth:`kernel_parameters`).
    """

    def __init__(self, *, kv_linear, ka_linear, kv_angular, ka_angular, ks=0.0, track_width,
                 name: str = "drive", start_pose=(0.0, 0.0, 0.0), nominal_bus_voltage=12.0):
        self.kv_linear = checks.positive("kv_linear", kv_linear, "V*s/m")
        self.ka_linear = checks.positive("ka_linear", ka_linear, "V*s**2/m")
        self.kv_angular = checks.positive("kv_angular", kv_angular, "V*s/rad")
        self.ka_angular = checks.positive("ka_angular", ka_angular, "V*s**2/rad")
        self.ks = checks.nonnegative("ks", ks, "V")
        self.track_width = checks.positive("track_width", track_width, "m", what="distance")
        self.nominal_bus_voltage = checks.positive("nominal_bus_voltage", nominal_bus_voltage, "V")
        self.start_pose = checks.pose("start_pose", start_pose)
        #: The parameter vector of the kernel form (:meth:`kernel_parameters`, the one derivation).
        self._kernel_p = self.kernel_parameters()[0]
        self.A1, self.A2, self.B1, self.B2 = (float(self._kernel_p[i]) for i in (_tl.CP_A1, _tl.CP_A2, _tl.CP_B1,
                                                                                   _tl.CP_B2))
        self._kernel_law = self._law_is_the_kernels()
        states = ["x", "y", "heading", "left_velocity", "right_velocity", "left_position", "right_position"]
        outputs = ["velocity", "yaw_rate", "left_acceleration", "right_acceleration", "left_applied_voltage",
                   "right_applied_voltage"]
        units = {"x": "m", "y": "m", "heading": "rad", "left_velocity": "m/s", "right_velocity": "m/s",
                 "left_position": "m", "right_position": "m", "velocity": "m/s", "yaw_rate": "rad/s",
                 "left_acceleration": "m/s**2", "right_acceleration": "m/s**2", "left_applied_voltage": "V",
                 "right_applied_voltage": "V", "left_voltage": "V", "right_voltage": "V", "bus_voltage": "V"}
        super().__init__(name, states, ["left_voltage", "right_voltage", "bus_voltage"], outputs, units)
        self.input_ranges = drive_input_ranges(self.input_names)

    @property
    def A(self) -> np.ndarray:
        """State matrix of the side velocities ``[v_L, v_R]``, 1/s."""
        return np.array([[self.A1, self.A2], [self.A2, self.A1]])

    @property
    def B(self) -> np.ndarray:
        """Input matrix for ``[V_L, V_R]`` (after the ks deadband), m/s² per V."""
        return np.array([[self.B1, self.B2], [self.B2, self.B1]])

    def initial_state(self):
        x = np.zeros(7)
        x[0], x[1], x[2] = self.start_pose
        return x

    def initial_inputs(self):
        return np.array([0.0, 0.0, self.nominal_bus_voltage])

    # -- the parameter vector and the kernel form ------------------------------------------------
    #: The parameters a batch varies (``simcore.simulate_batch``'s ``params["<name>.<parameter>"]``), with
    #: their SI units and whether zero is allowed.
    BATCH_PARAMETERS = ("kv_linear", "ka_linear", "kv_angular", "ka_angular", "ks", "track_width")
    _BATCH_UNITS = {"kv_linear": "V*s/m", "ka_linear": "V*s**2/m", "kv_angular": "V*s/rad",
                    "ka_angular": "V*s**2/rad", "ks": "V", "track_width": "m"}

    def kernel_parameters(self, overrides: dict | None = None, n: int = 1) -> np.ndarray:
        """The parameter vector of this drive in the compiled kernel, for ``n`` variants at once.

        The one derivation of the plant: the constructor calls it with no overrides (its attributes ``A1``,
        ``A2``, ``B1``, ``B2`` come from it), :meth:`kernel_form` returns its row, and a batch calls it with
        its variants' values. WPILib's ``identifyDrivetrainSystem``: the angular gains become per-wheel gains
        (``x 2/trackwidth``), then ``A1 = -(kVl/kAl + kVa'/kAa')/2``, ``A2 = -(kVl/kAl - kVa'/kAa')/2``,
        ``B1 = (1/kAl + 1/kAa')/2``, ``B2 = (1/kAl - 1/kAa')/2``.

        Parameters
        ----------
        overrides : mapping of str to array-like or Quantity, optional
            Batch parameter (one of :attr:`BATCH_PARAMETERS`, named as the constructor's argument) -> ``n``
            values in SI units or as a pint Quantity (a single value serves every variant).
        n : int
            Number of variants.

        Returns
        -------
        numpy.ndarray
            Shape ``(n, N_CHARACTERIZED_PARAMETERS)``, laid out by :mod:`simcore.kernel.tank_layout`'s ``CP_*``.

        Raises
        ------
        ConfigError
            A parameter this drive does not batch, or a value the constructor would refuse, naming
            ``params['<name>.<parameter>'][j]``, its value and the variant ``j``.
        """
        n = checks.integer("n", n, minimum=1)
        values = {key: np.full(n, float(getattr(self, key))) for key in self.BATCH_PARAMETERS}
        for key, value in (overrides or {}).items():
            values[key] = batch_values(self, key, value, n, self.BATCH_PARAMETERS, self._BATCH_UNITS[key]
                                       if key in self._BATCH_UNITS else "", nonnegative=key == "ks")
        tw = values["track_width"]
        kva = values["kv_angular"] * 2.0 / tw
        kaa = values["ka_angular"] * 2.0 / tw
        kvl, kal = values["kv_linear"], values["ka_linear"]
        p = np.empty((n, _tl.N_CHARACTERIZED_PARAMETERS))
        p[:, _tl.CP_A1] = -0.5 * (kvl / kal + kva / kaa)
        p[:, _tl.CP_A2] = -0.5 * (kvl / kal - kva / kaa)
        p[:, _tl.CP_B1] = 0.5 / kal + 0.5 / kaa
        p[:, _tl.CP_B2] = 0.5 / kal - 0.5 / kaa
        p[:, _tl.CP_KS] = values["ks"]
        p[:, _tl.CP_TRACK_WIDTH] = tw
        return p

    def _law_is_the_kernels(self) -> bool:
        """Whether this class keeps the kernel's law (a subclass changing ``_volts``, ``_accel``, the
        derivatives or the outputs has its own, on the Python path)."""
        cls = type(self)
        return all(getattr(cls, name) is getattr(CharacterizedTankDrive, name)
                   for name in ("_volts", "_accel", "derivatives", "outputs", "initial_mode", "events"))

    def kernel_form(self):
        """``(kind, parameters, mode names)`` of this drive in the compiled kernel
        (:mod:`simcore.kernel.characterized_tank`; the parameters are :meth:`kernel_parameters`' row), or
        None for a subclass that changes the law (then the simulation takes the Python path)."""
        if not self._kernel_law:
            return None
        from simcore.kernel.parts import KIND_CHARACTERIZED_TANK

        return KIND_CHARACTERIZED_TANK, self._kernel_p, (None,)

    # -- the law (simcore.kernel.characterized_tank) ------------------------------------------------
    def _volts(self, u):
        """Both sides' applied voltages, V (:func:`simcore.kernel.characterized_tank.applied_voltage`)."""
        k, p = _characterized_kernel(), self._kernel_p
        return [k.applied_voltage(p, 0, float(u[0]), float(u[2])), k.applied_voltage(p, 0, float(u[1]), float(u[2]))]

    def _accel(self, x, u):
        """``(a_L, a_R, V_L, V_R)``: the side accelerations, m/s², and applied voltages, V."""
        vl_in, vr_in = self._volts(u)
        al, ar = _characterized_kernel().accelerations(self._kernel_p, 0, float(x[3]), float(x[4]), vl_in, vr_in)
        return al, ar, vl_in, vr_in

    def derivatives(self, t, x, u):
        k, out = _characterized_kernel(), np.empty(7)
        x = np.asarray(x, dtype=float)
        if self._kernel_law:
            k.derivatives(self._kernel_p, 0, x, 0, np.asarray(u, dtype=float), 0, out)
        else:  # a subclass's accelerations, the kernel's kinematics
            al, ar, _, _ = self._accel(x, u)
            k.pose_rates(self._kernel_p, 0, x, 0, float(al), float(ar), out)
        return out

    def outputs(self, t, x, u):
        k, out = _characterized_kernel(), np.empty(_tl.N_CHARACTERIZED_OUTPUTS)
        x = np.asarray(x, dtype=float)
        if self._kernel_law:
            k.outputs(self._kernel_p, 0, x, 0, np.asarray(u, dtype=float), 0, out, 0)
        else:
            al, ar, vli, vri = self._accel(x, u)
            k.outputs_from(self._kernel_p, 0, x, 0, float(al), float(ar), float(vli), float(vri), out, 0)
        return tuple(out.tolist())

    def outline(self):
        """Robot outline in the robot frame for field plots, m."""
        h = self.track_width / 2.0 * 1.25
        return [(h, h), (-h, h), (-h, -h), (h, -h)]
