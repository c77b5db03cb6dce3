"""Tank (differential) drivetrains: physical (motors, gearbox, battery, traction) and characterized.

Frames and signs: field frame x, y (m), ``heading`` counter-clockwise from field
+x (rad, not wrapped). Robot frame x forward, y left. Each side's speed is
positive forward; a positive voltage drives that side forward on both sides (no
right-side inversion, unlike pyfrc's ``r_motor``).

**Physical model** (:class:`TankDrive`). Each side is a :class:`~simcore.models.drive.MotorDrive`
(``n_motors_per_side`` motors, gearbox ``gearing``, efficiency, brake/coast,
current limits, supply current) turning wheels of radius ``r``. The side's drive
force at the ground is ``D = T_out / r``. Each side's rotating parts (wheels, gears,
and the motor rotors reflected through the gearbox) have an equivalent mass
``M_w = (wheel_inertia + n * rotor_inertia * G**2) / r**2`` at the wheel rim.

* Without a traction limit (``friction_coefficient=None``) the wheels roll without
  slipping and the chassis obeys::

      m dv/dt = F_L + F_R,   J dw/dt = (b/2) (F_R - F_L),   M_w a_s = D_s - F_s

  (``b`` track width, ``F_s`` the ground force of side ``s``, ``a_s`` its
  acceleration). With ``M_w = 0`` the side speeds follow WPILib's drivetrain
  velocity plant exactly (``C1 = -G^2 Kt/(Kv R r^2)``, ``C2 = G Kt/(R r)``, ``C3 =
  1/m + rb^2/J``, ``C4 = 1/m - rb^2/J``, ``rb = b/2``). States: ``x, y, heading,
  left_velocity, right_velocity, left_position, right_position``; the chassis
  ``velocity`` and ``yaw_rate`` are outputs.
* With ``friction_coefficient=mu`` each side's ground force is limited by
  friction: ``F_s = mu N s / sqrt(s^2 + eps^2)`` with ``N = m g / 2`` per side, the
  slip speed ``s = wheel rim speed - ground speed of that side`` and
  ``eps = slip_epsilon`` (a regularized Coulomb law: smooth, so adaptive solvers
  integrate it; within ``|s| << eps`` it behaves as a stiff linear creep). The
  wheels' rim speeds ``left_velocity``/``right_velocity`` (what the encoders see)
  then differ from the chassis motion, whose ``velocity`` and ``yaw_rate`` become
  states. Lateral skid of a tank drive is not modelled (the chassis never moves
  sideways); the normal load does not transfer under acceleration.

With ``track_energy=True`` five states integrate energy flows, J: ``energy_in``
(``∫ V_bus I_supply dt`` over both sides), ``copper_loss`` (``∫ I^2 R``),
``conversion_loss``, ``gear_loss`` and ``friction_loss`` (``∫ F_s s dt``, tyre
slip). Then ``energy_in = ΔKE + copper_loss + conversion_loss + gear_loss +
friction_loss`` where ``KE = m v^2/2 + J w^2/2 + M_w (v_L^2 + v_R^2)/2`` (output
``kinetic_energy``).

``conversion_loss = ∫ I w (1/Kv - Kt) dt`` is the back-EMF power ``E I`` minus the
shaft power ``T w``. WPILib's motor constants from datasheet values make
``Kt Kv != 1`` (the free current is not modelled as a friction torque; e.g.
``Kt Kv = 1.0199`` for a Kraken X60), so this term is not zero and, with
``Kt Kv > 1``, negative: the model motor makes about 2 % more shaft work than the
electrical power it converts. It is zero for a motor with ``Kt Kv = 1``.

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

from simcore.errors import ConfigError, ConfigTypeError, check_bool
from simcore.system import System
from simcore.units import to_si

from .drive import MotorDrive, drive_input_ranges
from .motors import DCMotor

__all__ = ["TankDrive", "CharacterizedTankDrive", "rectangle_moi", "STANDARD_GRAVITY",
           "TANK_ENERGY_STATES", "SIDE_OUTPUTS"]

#: Standard gravity, m/s².
STANDARD_GRAVITY = 9.80665

#: Energy-accounting states (``track_energy=True``), J.
TANK_ENERGY_STATES = ("energy_in", "copper_loss", "conversion_loss", "gear_loss", "friction_loss")

#: Motor outputs given per side (``left_<name>``, ``right_<name>``), as a GearedMechanism's.
SIDE_OUTPUTS = ("acceleration", "rotor_position", "rotor_velocity", "rotor_acceleration", "stator_current",
                "supply_current", "applied_voltage", "supply_voltage", "torque", "motor_torque", "saturated",
                "current_limited")

_SIDE_UNITS = {"acceleration": "m/s**2", "rotor_position": "rad", "rotor_velocity": "rad/s",
               "rotor_acceleration": "rad/s**2", "stator_current": "A", "supply_current": "A",
               "applied_voltage": "V", "supply_voltage": "V", "torque": "N*m", "motor_torque": "N*m",
               "saturated": "", "current_limited": ""}

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
    m = _positive("mass", mass, "kg")
    w = _positive("width", width, "m")
    ln = _positive("length", length, "m")
    return m * (w * w + ln * ln) / 12.0


def _positive(parameter, value, unit, what="a positive number"):
    v = to_si(parameter, value, unit)
    if not v > 0:
        raise ConfigError(parameter, value, f"{what} in {unit or 'dimensionless'}")
    return v


def _nonnegative(parameter, value, unit):
    v = to_si(parameter, value, unit)
    if not v >= 0:
        raise ConfigError(parameter, value, f"a non-negative number in {unit}")
    return v


def _pose(parameter, pose):
    try:
        x, y, h = pose
    except (TypeError, ValueError):
        raise ConfigTypeError(parameter, pose, "an (x m, y m, heading rad) triple") from None
    return to_si(f"{parameter}[0]", x, "m"), to_si(f"{parameter}[1]", y, "m"), to_si(f"{parameter}[2]", h, "rad")


def _regularized(s, eps):
    """``s / sqrt(s^2 + eps^2)``: the regularized sign of a slip speed."""
    return s / math.sqrt(s * s + eps * eps)


class TankDrive(System):
    """A differential drive with real motors, optional traction limit and battery coupling.

    See the module docstring for the equations.

    Parameters
    ----------
    motor : DCMotor
        One drive motor.
    gearing : float
        Motor turns per wheel turn.
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
        Wheel-ground friction coefficient ``mu``; ``None`` (default): no slip.
    wheel_inertia : float or Quantity, optional
        Rotating inertia of one side's wheels and gears about the wheel axle,
        kg·m². Default: 0 without a traction limit (as WPILib's plant) and
        0.005 kg·m² (three 6-inch wheels and sprockets) with one.
    rotor_inertia : float or Quantity
        Inertia of one motor rotor, kg·m² (default 0, as WPILib); reflected through
        the gearbox (``x G^2``) into each side's rotating inertia.
    slip_epsilon : float or Quantity
        ``eps`` of the regularized Coulomb law, m/s (default 0.02 m/s).
    gravity : float
        m/s² (default standard gravity), for the normal load.
    efficiency, neutral_mode, stator_current_limit, supply_current_limit, command, nominal_bus_voltage
        As :class:`~simcore.models.drive.MotorDrive`; current limits apply per side.
    track_energy : bool
        Add the energy-accounting states.
    start_pose : (x, y, heading)
        Initial pose, m, m, rad.

    Notes
    -----
    Inputs: ``left_voltage``, ``right_voltage`` (or ``left_duty``/``right_duty``
    with ``command="duty"``), ``brake`` (1 brake, 0 coast; both sides) and one
    ``bus_voltage`` shared by both sides, which a :class:`~simcore.models.battery.Battery`
    solves; :meth:`supply_current_at` returns both sides' total.
    """

    def __init__(self, motor, gearing, *, n_motors_per_side, wheel_radius, track_width, mass, moi,
                 name: str = "drive", friction_coefficient=None, wheel_inertia=None, rotor_inertia=0.0,
                 slip_epsilon=0.02, gravity=STANDARD_GRAVITY, efficiency=1.0, neutral_mode="brake",
                 stator_current_limit=None, supply_current_limit=None, command="voltage",
                 nominal_bus_voltage=None, track_energy: bool = False, start_pose=(0.0, 0.0, 0.0)):
        if not isinstance(motor, DCMotor):
            raise ConfigTypeError("motor", motor, "a simcore.models.motors.DCMotor")
        self.drive = MotorDrive(motor, gearing, n_motors=n_motors_per_side, efficiency=efficiency,
                                neutral_mode=neutral_mode, stator_current_limit=stator_current_limit,
                                supply_current_limit=supply_current_limit, command=command,
                                nominal_bus_voltage=nominal_bus_voltage)
        self.motor = motor
        self.gearing = self.drive.gearing
        self.n_motors_per_side = n_motors_per_side
        self.wheel_radius = _positive("wheel_radius", wheel_radius, "m", "a positive radius")
        self.track_width = _positive("track_width", track_width, "m", "a positive distance")
        self.mass = _positive("mass", mass, "kg", "a positive mass")
        self.moi = _positive("moi", moi, "kg*m**2", "a positive moment of inertia")
        self.rotor_inertia = _nonnegative("rotor_inertia", rotor_inertia, "kg*m**2")
        self.gravity = _positive("gravity", gravity, "m/s**2")
        self.slip_epsilon = _positive("slip_epsilon", slip_epsilon, "m/s")
        if friction_coefficient is None:
            self.friction_coefficient = None
        else:
            self.friction_coefficient = _positive("friction_coefficient", friction_coefficient, "")
        self.traction = self.friction_coefficient is not None
        if wheel_inertia is None:
            wheel_inertia = DEFAULT_TANK_WHEEL_INERTIA if self.traction else 0.0
        self.wheel_inertia = _nonnegative("wheel_inertia", wheel_inertia, "kg*m**2")
        r, G = self.wheel_radius, self.gearing
        #: Equivalent mass of one side's rotating parts at the wheel rim, kg.
        self.side_rotating_mass = (self.wheel_inertia + n_motors_per_side * self.rotor_inertia * G * G) / (r * r)
        if self.traction and not self.side_rotating_mass > 0:
            raise ConfigError("wheel_inertia", wheel_inertia,
                              "a positive inertia (or a positive rotor_inertia) with a traction limit")
        self.normal_load = self.mass * self.gravity / 2.0
        self.track_energy = check_bool("track_energy", track_energy)
        self.start_pose = _pose("start_pose", start_pose)
        self._rb = self.track_width / 2.0
        cmd = self.drive.command
        states = ["x", "y", "heading", "left_velocity", "right_velocity", "left_position", "right_position"]
        outputs = []
        if self.traction:
            states += ["velocity", "yaw_rate"]
            outputs += ["left_slip_speed", "right_slip_speed", "left_ground_force", "right_ground_force"]
        else:
            outputs += ["velocity", "yaw_rate"]
        if self.track_energy:
            states += list(TANK_ENERGY_STATES)
        outputs += ["acceleration", "yaw_acceleration", "supply_current", "kinetic_energy"]
        outputs += [f"{side}_{o}" for side in ("left", "right") for o in SIDE_OUTPUTS]
        inputs = [f"left_{cmd}", f"right_{cmd}", "brake", "bus_voltage"]
        units = {"x": "m", "y": "m", "heading": "rad", "left_velocity": "m/s", "right_velocity": "m/s",
                 "left_position": "m", "right_position": "m", "velocity": "m/s", "yaw_rate": "rad/s",
                 "acceleration": "m/s**2", "yaw_acceleration": "rad/s**2", "supply_current": "A",
                 "kinetic_energy": "J", "left_slip_speed": "m/s", "right_slip_speed": "m/s",
                 "left_ground_force": "N", "right_ground_force": "N", "bus_voltage": "V", "brake": "",
                 f"left_{cmd}": "V" if cmd == "voltage" else "", f"right_{cmd}": "V" if cmd == "voltage" else ""}
        units.update({s: "J" for s in TANK_ENERGY_STATES})
        for side in ("left", "right"):
            units.update({f"{side}_{o}": u for o, u in _SIDE_UNITS.items()})
        super().__init__(name, states, inputs, outputs, units)
        self.input_ranges = drive_input_ranges(self.input_names)
        self._n_base = 9 if self.traction else 7

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
        kv_si = _positive("kv", kv, "V*s/m")
        ka_si = _positive("ka", ka, "V*s**2/m")
        m = _positive("robot_mass", robot_mass, "kg")
        wb = _positive("x_wheelbase", x_wheelbase, "m")
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
        m = _positive("robot_mass", robot_mass, "kg")
        G = _positive("gearing", gearing, "")
        if isinstance(n_motors, bool) or not isinstance(n_motors, int) or n_motors < 1:
            raise ConfigError("n_motors", n_motors, "a whole number >= 1")
        d = _positive("wheel_diameter", wheel_diameter, "m", "a positive diameter")
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
        return np.array([0.0, 0.0, 1.0 if self.drive.neutral_mode == "brake" else 0.0,
                         self.drive.nominal_bus_voltage])

    def free_speed(self, voltage: float) -> float:
        """Steady straight-line speed with ``voltage`` on both sides and no load, m/s."""
        return voltage * self.drive.Kv * self.wheel_radius / self.gearing

    def _side(self, v_wheel, command, brake, bus):
        d = self.drive
        w_rotor = v_wheel * self.gearing / self.wheel_radius
        va, i, isup, sat, lim = d.electrical(w_rotor, command, brake, bus)
        tm = d.Kt * i
        tout = d.output_torque(tm, w_rotor)
        return tout / self.wheel_radius, w_rotor, va, i, isup, tm, tout, sat, lim

    def _core(self, x, u):
        """Everything at one instant: derivatives and outputs share it."""
        heading, vl, vr = x[2], x[3], x[4]
        bus = u[3]
        L = self._side(vl, u[0], u[2], bus)
        R = self._side(vr, u[1], u[2], bus)
        Dl, Dr = L[0], R[0]
        m, J, rb, Mw = self.mass, self.moi, self._rb, self.side_rotating_mass
        if self.traction:
            v, w = x[7], x[8]
            sl = vl - (v - rb * w)
            sr = vr - (v + rb * w)
            muN = self.friction_coefficient * self.normal_load
            eps = self.slip_epsilon
            Fl = muN * _regularized(sl, eps)
            Fr = muN * _regularized(sr, eps)
            al = (Dl - Fl) / Mw
            ar = (Dr - Fr) / Mw
            acc = (Fl + Fr) / m
            alpha = rb * (Fr - Fl) / J
            fric = Fl * sl + Fr * sr
        else:
            v = 0.5 * (vl + vr)
            w = (vr - vl) / self.track_width
            # (I + Mw K) a = K D with K = [[C3, C4], [C4, C3]], solved in sum/difference form.
            a_sum = 2.0 * (Dl + Dr) / (m + 2.0 * Mw)
            a_diff = 2.0 * rb * rb * (Dr - Dl) / (J + 2.0 * Mw * rb * rb)
            al = 0.5 * (a_sum - a_diff)
            ar = 0.5 * (a_sum + a_diff)
            acc = 0.5 * a_sum
            alpha = a_diff / self.track_width
            Fl = Dl - Mw * al
            Fr = Dr - Mw * ar
            sl = sr = 0.0
            fric = 0.0
        return heading, v, w, vl, vr, al, ar, acc, alpha, L, R, Fl, Fr, sl, sr, fric

    def derivatives(self, t, x, u):
        heading, v, w, vl, vr, al, ar, acc, alpha, L, R, Fl, Fr, sl, sr, fric = self._core(x, u)
        c, s = math.cos(heading), math.sin(heading)
        if self.traction:
            base = [v * c, v * s, w, al, ar, vl, vr, acc, alpha]
        else:
            base = [v * c, v * s, w, al, ar, vl, vr]
        if self.track_energy:
            d = self.drive
            r = self.wheel_radius
            base += [u[3] * (L[4] + R[4]), (L[3] * L[3] + R[3] * R[3]) * d.R,
                     (L[3] * L[1] + R[3] * R[1]) * (1.0 / d.Kv - d.Kt),
                     L[5] * L[1] - L[6] * vl / r + R[5] * R[1] - R[6] * vr / r, fric]
        return np.array(base)

    def kinetic_energy(self, x) -> float:
        """Kinetic energy of chassis and rotating parts at state ``x``, J."""
        vl, vr = x[3], x[4]
        if self.traction:
            v, w = x[7], x[8]
        else:
            v, w = 0.5 * (vl + vr), (vr - vl) / self.track_width
        return 0.5 * (self.mass * v * v + self.moi * w * w + self.side_rotating_mass * (vl * vl + vr * vr))

    def outputs(self, t, x, u):
        heading, v, w, vl, vr, al, ar, acc, alpha, L, R, Fl, Fr, sl, sr, fric = self._core(x, u)
        k = self.gearing / self.wheel_radius
        out = [sl, sr, Fl, Fr] if self.traction else [v, w]
        out += [acc, alpha, L[4] + R[4], self.kinetic_energy(x)]
        for side, pos, a in ((L, x[5], al), (R, x[6], ar)):
            _, w_rotor, va, i, isup, tm, tout, sat, lim = side
            out += [a, k * pos, w_rotor, k * a, i, isup, va, u[3], tout, tm, sat, lim]
        return out

    def supply_current_at(self, x, u, bus_voltage: float) -> float:
        """Both sides' supply current, A, at bus voltage ``bus_voltage`` V (for the Battery)."""
        k = self.gearing / self.wheel_radius
        d = self.drive
        return (d.electrical(k * x[3], u[0], u[2], bus_voltage)[2]
                + d.electrical(k * x[4], u[1], u[2], bus_voltage)[2])

    def outline(self):
        """Robot outline in the robot frame for field plots: a square of the track width, m."""
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
    """

    def __init__(self, *, kv_linear, ka_linear, kv_angular, ka_angular, ks=0.0, track_width,
                 name: str = "drive", start_pose=(0.0, 0.0, 0.0), nominal_bus_voltage=12.0):
        self.kv_linear = _positive("kv_linear", kv_linear, "V*s/m")
        self.ka_linear = _positive("ka_linear", ka_linear, "V*s**2/m")
        self.kv_angular = _positive("kv_angular", kv_angular, "V*s/rad")
        self.ka_angular = _positive("ka_angular", ka_angular, "V*s**2/rad")
        self.ks = _nonnegative("ks", ks, "V")
        self.track_width = _positive("track_width", track_width, "m", "a positive distance")
        self.nominal_bus_voltage = _positive("nominal_bus_voltage", nominal_bus_voltage, "V")
        self.start_pose = _pose("start_pose", start_pose)
        # WPILib identifyDrivetrainSystem: angular gains to per-wheel gains (x 2/trackwidth).
        kva = self.kv_angular * 2.0 / self.track_width
        kaa = self.ka_angular * 2.0 / self.track_width
        self.A1 = -0.5 * (self.kv_linear / self.ka_linear + kva / kaa)
        self.A2 = -0.5 * (self.kv_linear / self.ka_linear - kva / kaa)
        self.B1 = 0.5 / self.ka_linear + 0.5 / kaa
        self.B2 = 0.5 / self.ka_linear - 0.5 / kaa
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

    def _volts(self, u):
        bus = max(u[2], 0.0)
        out = []
        for v in (u[0], u[1]):
            v = min(max(v, -bus), bus)
            out.append(math.copysign(max(abs(v) - self.ks, 0.0), v))
        return out

    def _accel(self, x, u):
        vl_in, vr_in = self._volts(u)
        vl, vr = x[3], x[4]
        al = self.A1 * vl + self.A2 * vr + self.B1 * vl_in + self.B2 * vr_in
        ar = self.A2 * vl + self.A1 * vr + self.B2 * vl_in + self.B1 * vr_in
        return al, ar, vl_in, vr_in

    def derivatives(self, t, x, u):
        al, ar, _, _ = self._accel(x, u)
        vl, vr = x[3], x[4]
        v = 0.5 * (vl + vr)
        return np.array([v * math.cos(x[2]), v * math.sin(x[2]), (vr - vl) / self.track_width, al, ar, vl, vr])

    def outputs(self, t, x, u):
        al, ar, vli, vri = self._accel(x, u)
        vl, vr = x[3], x[4]
        return (0.5 * (vl + vr), (vr - vl) / self.track_width, al, ar, vli, vri)

    def outline(self):
        """Robot outline in the robot frame for field plots, m."""
        h = self.track_width / 2.0 * 1.25
        return [(h, h), (-h, h), (-h, -h), (h, -h)]
