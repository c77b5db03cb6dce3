"""Road Runner's mecanum drive parameters as a physical mecanum model (``MecanumDrive.from_roadrunner``).

Road Runner (the FTC path-following library, ``acmerobotics/road-runner`` and its
quickstart's ``MecanumDrive.Params``) describes a drive in encoder ticks and inches:

* ``inPerTick``: inches the robot drives forward per tick of a drive wheel's encoder;
* ``lateralInPerTick``: inches it strafes per tick of the wheels' lateral sum;
* ``trackWidthTicks``: the rotation lever in ticks: Road Runner's mecanum
  kinematics give each wheel ``vx -/+ lateral vy -/+ omega * trackWidth`` with
  ``trackWidth = inPerTick * trackWidthTicks`` (in), so a wheel turns at
  ``omega * trackWidthTicks`` ticks/s when the robot spins at ``omega`` rad/s;
* ``kS`` (V), ``kV`` (V per tick/s), ``kA`` (V per tick/s²): the wheel
  feedforward ``V = kS sign(v) + kV v + kA a``, ``v`` and ``a`` in ticks of the
  wheel's encoder (the quickstart divides ``kV`` and ``kA`` by ``inPerTick`` to use
  inches).

Each becomes the physical quantity that produces it on a model whose four wheels
each have one motor of ``motor_type`` (its DC motor, gear ratio and encoder), with
``c = 2 pi / counts`` the rotor angle per tick (``counts`` per motor revolution):

* wheel radius ``r = inPerTick * 0.0254 * counts * G / (2 pi)`` m (wheels on the
  gearbox output);
* rotation lever ``(track_width + wheelbase) / 2 = inPerTick * trackWidthTicks *
  0.0254`` m (square unless ``wheelbase`` is given). A *measured* ``trackWidthTicks``
  (AngularRampLogger) includes the rollers' scrub when the robot turns, so it is
  larger than the frame's geometry: teams' 900-1100 ticks on 312 rpm motors give a
  0.54-0.61 m square robot, above the 18 in sizing limit. The model then turns as
  the tuned robot does (the lever is what Road Runner uses), but its wheel
  rectangle, and the default ``moi``, are bigger than the frame: give
  ``wheelbase`` (and ``moi``) from the CAD if they matter;
* ``kV = c (1/Kv + b R / Kt)``: the rotor's viscous friction ``b`` (a steady wheel
  carries only its own friction). A ``kV`` below the motor's own back-EMF ``c / Kv``
  means the robot's motors ran faster than ``motor_type``'s datasheet says (tuned
  at another voltage, a worn-in or different motor): it is refused unless
  ``floor_to_physics=True``, which models the datasheet motor with no viscous
  friction (its kV is then the back-EMF, a little above the given one) and warns;
* ``kS = R T_c / Kt``: a Coulomb friction torque ``T_c`` on each rotor (the
  drivetrain's gearbox and bearings). The mecanum model has none of its own; this
  adds it as ``T_c w / sqrt(w^2 + eps^2)`` with ``eps`` = :data:`COULOMB_EPSILON`
  (APPROXIMATION: a regularized Coulomb law, within 1e-4 of ``T_c`` above 70 eps);
* ``kA = c R J / Kt`` with ``J = (m/4) (r/G)^2 + wheel_inertia / G^2`` the inertia
  one rotor accelerates driving straight (a quarter of the robot, its own wheel):
  the wheel inertia is what ``kA`` gives beyond the robot's ``mass``. A ``kA`` below
  what ``mass`` alone needs is common in teams' numbers: ManualFeedforwardTuner's kA is
  set by hand until the profile looks followed, and the feedback makes up the rest.
  It is refused unless ``floor_to_physics=True``, which keeps the mass and gives the
  wheels MecanumDrive's default ``wheel_inertia`` (the model's kA is then a little above
  the mass's), and warns.

``lateralInPerTick``: the model's 45-degree rollers strafe ``inPerTick`` per lateral
tick while they grip; a real robot's smaller figure comes from its rollers slipping,
which the model makes from its own friction. A different value is kept
(``roadrunner_parameters``) with a warning, not used.
"""
from __future__ import annotations

import math
import warnings

from simcore import checks
from simcore.errors import ConfigError, ConfigTypeError

from .ftc_motor_types import MotorType
from .motor_channels import MotorChannels

__all__ = ["INCH", "COULOMB_EPSILON", "CoulombMotorChannels", "mecanum_parameters"]

#: Metres per inch.
INCH = 0.0254
#: Regularization speed of the rotors' Coulomb friction, rad/s at the rotor (APPROXIMATION; a goBILDA
#: motor's free speed is about 620 rad/s).
COULOMB_EPSILON = 0.5


class CoulombMotorChannels(MotorChannels):
    """Motor channels whose rotors also carry a Coulomb friction torque (the ``kS`` of Road Runner's feedforward).

    Parameters
    ----------
    channels : MotorChannels
        The drivetrain's own channels (drives and viscous friction are kept).
    coulomb : sequence of float
        Friction torque per channel, N·m at the rotor, applied as ``T_c w / sqrt(w^2 + eps^2)``.
    epsilon : float
        ``eps``, rad/s.
    """

    def __init__(self, channels: MotorChannels, coulomb, epsilon: float = COULOMB_EPSILON):
        super().__init__(channels.drives, channels.viscous)
        # The base class adds it to each rotor's shaft friction, before the gearbox, as the viscous part.
        self.coulomb = [float(c) for c in coulomb]
        self.epsilon = float(epsilon)
        self.coulomb_epsilon2 = self.epsilon * self.epsilon


def mecanum_parameters(in_per_tick, lateral_in_per_tick, track_width_ticks, ks, kv, ka, *, motor_type, mass,
                       wheelbase=None, moi=None, floor_to_physics=False):
    """The physical parameters of a four-motor mecanum drive from Road Runner's (see the module docstring).

    ``floor_to_physics``: a ``kv`` below the motor's back-EMF, or a ``ka`` below what
    ``mass`` alone needs, is raised to that floor with a warning instead of refused.

    Returns
    -------
    dict
        ``keywords`` (for MecanumDrive: ``gearing`` is the type's), ``coulomb_torque`` (N·m per rotor),
        ``roadrunner`` (the six values as given).
    """
    if not isinstance(motor_type, MotorType):
        raise ConfigTypeError("motor_type", motor_type, "an FTC MotorType (simcore.models.ftc_motor_types)")
    in_per_tick = checks.positive("in_per_tick", in_per_tick, what="inches per tick")
    lateral = checks.positive("lateral_in_per_tick", lateral_in_per_tick, what="inches per tick")
    track_width_ticks = checks.positive("track_width_ticks", track_width_ticks, what="ticks")
    ks = checks.nonnegative("ks", ks, what="voltage (V)")
    kv = checks.positive("kv", kv, what="V per tick/s")
    ka = checks.positive("ka", ka, what="V per tick/s^2")
    mass = checks.positive("mass", mass, "kg", what="mass")
    motor, G = motor_type.motor, motor_type.gear_ratio
    c = 2.0 * math.pi / motor_type.encoder_counts_per_motor_rev  # rotor rad per tick
    r = in_per_tick * INCH * motor_type.encoder_counts_per_motor_rev * G / (2.0 * math.pi)
    lever = in_per_tick * track_width_ticks * INCH
    if wheelbase is None:
        track_width = wheelbase = lever
    else:
        wheelbase = checks.positive("wheelbase", wheelbase, "m", what="distance")
        track_width = 2.0 * lever - wheelbase
        if not track_width > 0:
            raise ConfigError("wheelbase", wheelbase, f"less than 2 x the rotation lever {lever:.4g} m "
                                                      f"(in_per_tick x track_width_ticks)")
    if not isinstance(floor_to_physics, bool):
        raise ConfigTypeError("floor_to_physics", floor_to_physics, "True or False")
    back_emf = c / motor.Kv
    if not kv >= back_emf:
        if not floor_to_physics:
            raise ConfigError("kv", kv, f"at least {back_emf:.6g} V per tick/s, the back-EMF of {motor_type.name}'s "
                                        f"motor (a smaller kV is a motor faster than its datasheet: check motor_type, "
                                        f"or pass floor_to_physics=True to model the datasheet motor with no "
                                        f"friction, kV = {back_emf:.6g})")
        warnings.warn(f"kv={kv} is below the back-EMF of {motor_type.name}'s motor, {back_emf:.6g} V per tick/s: "
                      f"modelled as that motor with no viscous friction (kV {back_emf:.6g}, "
                      f"{100 * (back_emf / kv - 1):.2g} % above the given one)", UserWarning, stacklevel=3)
    b = (max(kv, back_emf) / c - 1.0 / motor.Kv) * motor.Kt / motor.R  # N·m·s/rad at the rotor
    J = ka * motor.Kt / (c * motor.R)  # the rotor inertia one wheel's motor accelerates, kg·m²
    J_robot = mass / 4.0 * (r / G) ** 2
    ka_mass = c * motor.R * J_robot / motor.Kt
    if not J > J_robot:
        if not floor_to_physics:
            raise ConfigError("ka", ka, f"more than {ka_mass:.6g} V per tick/s^2, what accelerating a quarter of "
                                        f"mass={mass} kg alone takes (a hand-tuned kA is often smaller: pass "
                                        f"floor_to_physics=True to keep the mass and a default wheel inertia)")
        warnings.warn(f"ka={ka} is below what accelerating a quarter of mass={mass} kg takes, {ka_mass:.6g} V per "
                      f"tick/s^2: modelled with the mass and MecanumDrive's default wheel_inertia", UserWarning,
                      stacklevel=3)
        J = None
    if not math.isclose(lateral, in_per_tick, rel_tol=1e-9):
        warnings.warn(f"lateral_in_per_tick={lateral_in_per_tick} differs from in_per_tick={in_per_tick}: the "
                      f"model's rollers strafe in_per_tick per lateral tick while they grip (a real robot's "
                      f"rollers slip); the value is kept in roadrunner_parameters, not used", UserWarning,
                      stacklevel=3)
    if moi is None:
        moi = mass * (track_width ** 2 + wheelbase ** 2) / 12.0  # a uniform plate over the wheels' rectangle
    keywords = dict(track_width=track_width, wheelbase=wheelbase, wheel_radius=r, mass=mass, moi=moi,
                    rotor_inertia=0.0, viscous_friction=b * (G / r) ** 2)
    if J is not None:  # (floored: MecanumDrive's default wheel_inertia)
        keywords["wheel_inertia"] = (J - J_robot) * G * G
    return {"keywords": keywords, "coulomb_torque": ks * motor.Kt / motor.R,
            "roadrunner": dict(in_per_tick=in_per_tick, lateral_in_per_tick=lateral,
                               track_width_ticks=track_width_ticks, ks=ks, kv=kv, ka=ka)}
