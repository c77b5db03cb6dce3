"""Drivetrain control loops as periodic controllers (zero-order holds).

**Swerve** (:func:`swerve_module_controllers`): the structure of an FRC swerve
drive. A chassis loop (default 50 Hz, the roboRIO's loop) asks ``command_fn`` for
chassis speeds, turns them into module states with
:class:`~simcore.controllers.kinematics.SwerveKinematics` and optionally desaturates them.
Each module's motor-controller loop (default 1 kHz, a Talon FX's) then:

* optimizes the module target against the *current* steer angle
  (:meth:`SwerveModuleState.optimize`: never more than a 90-degree turn; the wheel
  reverses instead), optionally scales the speed by the cosine of the steer error;
* steers with a PD on the wrapped angle error: ``V = kp e - kd rate``;
* drives with a velocity feedforward plus P: ``V = kV v* + kP (v* - v)``, where
  ``kV = G / (r Kv)`` (the voltage at which the motor turns the wheel at ``v*``
  with no load) unless given.

The targets each module loop uses are kept in ``controllers[0].targets`` (a list of
:class:`SwerveModuleState` after optimization, updated at every module tick) for
inspection.

The module law is written once, in :mod:`simcore.kernel.swerve_module` (compiled by numba,
loaded at the first module tick): a module loop's Python tick calls it, and a run of built-in
parts ticks the module loops inside the kernel between two chassis ticks (the chassis loop,
which calls ``command_fn``, ticks in Python), with the same bits.

**Tank** (:func:`tank_drive_controller`): chassis speeds to side voltages through
:class:`~simcore.controllers.kinematics.DifferentialKinematics`: ``V = kV v* + kP (v* -
v)`` per side, ``kV`` from the motor (physical drive) or the characterized
``kv_linear``/``kv_angular`` (then ``V = kv_lin v + kv_ang omega`` exactly, as
SysId feedforward, plus ``ks`` toward the motion).
"""
from __future__ import annotations

__all__ = ["swerve_module_controllers", "steer_gains", "tank_drive_controller", "tank_voltages", "SwerveCommand"]

import math
from typing import Callable

from simcore import checks
from simcore.controller import PeriodicController
from simcore.errors import ConfigError, ConfigTypeError, NonFiniteError

from .geometry import wrap_angle
from .kinematics import (ChassisSpeeds, DifferentialKinematics, SwerveKinematics, SwerveModuleState, _as,
                         _trusted)


def _module_law():
    """:func:`simcore.kernel.swerve_module.module_commands`, imported at first use (``import simcore`` loads no
    numba)."""
    global _module_commands
    if _module_commands is None:
        from simcore.kernel.swerve_module import module_commands
        _module_commands = module_commands
    return _module_commands


_module_commands = None


def _commanded_speeds(value, source: str, t: float) -> ChassisSpeeds:
    """The chassis speeds ``command_fn`` returned at tick ``t`` (a ChassisSpeeds or a triple).

    A NaN or infinite component raises NonFiniteError naming ``source`` and the time:
    the kinematics would otherwise turn a NaN request into a module at rest, and the
    robot would silently stop.
    """
    if isinstance(value, ChassisSpeeds):
        return value
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 3:
        raise ConfigTypeError(source, value, "ChassisSpeeds or a (vx, vy, omega) triple")
    out = []
    for field, unit, v in zip(ChassisSpeeds._fields, ChassisSpeeds._units, value):
        f = checks.number(f"{source}.{field}", v, unit, allow_inf=True, allow_nan=True)
        if not math.isfinite(f):
            raise NonFiniteError("command", f"{source}.{field}", v, t)
        out.append(f)
    return _trusted(ChassisSpeeds, tuple(out))


class SwerveCommand:
    """Shared state between the chassis loop and the module loops.

    Attributes
    ----------
    requested : list of SwerveModuleState
        What the chassis loop last asked of each module (before optimization).
    targets : list of SwerveModuleState
        What each module loop last drove to (after optimization).
    speeds : ChassisSpeeds
        Last chassis speeds from ``command_fn``.
    """

    def __init__(self, n):
        self.requested = [SwerveModuleState(0.0, 0.0) for _ in range(n)]
        self.targets = list(self.requested)
        self.speeds = ChassisSpeeds()


def steer_gains(swerve, tau: float = 0.01) -> tuple[float, float]:
    """Default steer PD gains ``(kp V/rad, kd V·s/rad)`` placing the slowest steer pole at ``-1/tau``.

    The steer loop is ``J phi'' = g V - b phi'`` with ``g = Kt G / R`` (N·m per V at
    rest), the motor's own back-EMF damping ``b = Kt G² / (R Kv)`` (N·m per rad/s)
    and ``J`` the swerve's ``steer_moi``; ``V = kp e - kd phi'`` closes it to
    ``J s² + (b + g kd) s + g kp``. When ``b <= 2 J / tau`` the pair is placed
    critically damped at ``-1/tau``: ``kp = J / (g tau²)``, ``kd = (2 J / tau - b) / g``.
    When the back-EMF alone damps more than that, ``kd = 0`` and
    ``kp = (b / tau - J / tau²) / g`` puts the slow pole at ``-1/tau`` (the other
    is faster), so the response is still ``tau``.

    Parameters
    ----------
    swerve : models.SwerveDrive
    tau : float
        Time constant of the slowest steer pole, s.
    """
    tau = checks.positive("tau", tau, "s", what="time constant")
    if not tau * tau > 0.0:  # the gains divide by tau**2
        raise ConfigError("tau", tau, "a time constant whose square is a positive float (above 1e-154 s)")
    st = swerve.steer
    J = swerve.steer_moi
    g = st.Kt * st.gearing / st.R
    b = st.Kt * st.gearing * st.gearing / (st.R * st.Kv)
    if b <= 2.0 * J / tau:
        return J / (g * tau * tau), (2.0 * J / tau - b) / g
    return (b / tau - J / (tau * tau)) / g, 0.0


def swerve_module_controllers(swerve, kinematics: SwerveKinematics, command_fn: Callable, *, rate=1000.0,
                              chassis_rate=50.0, steer_kp=None, steer_kd=None, drive_kp=None, drive_kv=None,
                              max_speed=None, optimize=True, cosine_scale=False,
                              field_relative=False) -> list:
    """The chassis loop and one loop per module for a :class:`models.SwerveDrive`.

    Parameters
    ----------
    swerve : models.SwerveDrive
        The drivetrain (its name addresses the signals; its motors give defaults).
    kinematics : SwerveKinematics
        Module positions as the robot code knows them.
    command_fn : callable ``command_fn(t, signals) -> ChassisSpeeds or (vx, vy, omega)``
        Robot-relative speeds (field-relative with ``field_relative=True``), m/s, rad/s.
    rate : float
        Module loop rate, Hz (default 1000).
    chassis_rate : float
        Chassis loop rate, Hz (default 50).
    steer_kp : float, optional
        V per rad of steer error (default: see Notes).
    steer_kd : float, optional
        V per rad/s of steer rate (default: see Notes).
    drive_kp : float, optional
        V per m/s of wheel speed error (default ``2 * drive_kv``).
    drive_kv : float, optional
        V per m/s of wheel speed (default from the drive motor: ``G / (r Kv)``).
    max_speed : float, optional
        Desaturate module speeds to this, m/s.
    optimize : bool
        Apply :meth:`SwerveModuleState.optimize` (default True).
    cosine_scale : bool
        Scale each speed by the cosine of its steer error.
    field_relative : bool
        ``command_fn`` returns field-relative speeds (converted with the true heading).

    Returns
    -------
    list of PeriodicController
        The chassis loop first (its ``command`` attribute is the shared
        :class:`SwerveCommand`), then one loop per module.

    Notes
    -----
    Steer gains by default come from :func:`steer_gains`: the steer loop's
    slowest pole at ``-1 / tau`` with ``tau = 10 ms``. With ``command="duty"``
    motors the voltages are divided by the nominal bus voltage.
    """
    if not isinstance(kinematics, SwerveKinematics):
        raise ConfigTypeError("kinematics", kinematics, "a simcore.controllers.kinematics.SwerveKinematics")
    n = kinematics.n_modules
    if getattr(swerve, "n_modules", None) != n:
        raise ConfigError("kinematics", kinematics, f"{getattr(swerve, 'n_modules', '?')} modules, as the swerve")
    module_period = checks.period_from_rate("rate", rate)
    chassis_period = checks.period_from_rate("chassis_rate", chassis_rate)
    optimize = checks.flag("optimize", optimize)
    cosine_scale = checks.flag("cosine_scale", cosine_scale)
    field_relative = checks.flag("field_relative", field_relative)
    if not callable(command_fn):
        raise ConfigTypeError("command_fn", command_fn, "a callable command_fn(t, signals) -> ChassisSpeeds")
    if max_speed is not None:
        max_speed = checks.nonnegative("max_speed", max_speed, "m/s", what="speed")
    dr, st = swerve.drive, swerve.steer
    drive_kv = (dr.gearing / (swerve.wheel_radius * dr.Kv) if drive_kv is None
                else checks.finite("drive_kv", drive_kv))
    drive_kp = 2.0 * drive_kv if drive_kp is None else checks.finite("drive_kp", drive_kp)
    default_kp, default_kd = steer_gains(swerve)
    steer_kp = default_kp if steer_kp is None else checks.finite("steer_kp", steer_kp)
    steer_kd = default_kd if steer_kd is None else checks.finite("steer_kd", steer_kd)
    if st.command == "duty" or dr.command == "duty":
        scale_s = 1.0 / st.nominal_bus_voltage if st.command == "duty" else 1.0
        scale_d = 1.0 / dr.nominal_bus_voltage if dr.command == "duty" else 1.0
    else:
        scale_s = scale_d = 1.0
    name = swerve.name
    cmd = SwerveCommand(n)
    heading_key = f"{name}.heading"

    def chassis(t, signals):
        speeds = _commanded_speeds(command_fn(t, signals), f"{name}_chassis command_fn()", t)
        if field_relative:
            speeds = ChassisSpeeds.from_field_relative(*speeds, signals[heading_key])
        cmd.speeds = speeds
        states = kinematics.to_module_states(speeds)
        if max_speed is not None:
            states = SwerveKinematics.desaturate(states, max_speed)
        cmd.requested = list(states)
        return None

    chassis_loop = PeriodicController(chassis_period, chassis, name=f"{name}_chassis")
    chassis_loop.command = cmd
    chassis_loop.targets = cmd.targets
    loops = [chassis_loop]
    for i in range(n):
        angle_key = f"{name}.steer_angle_{i}"
        rate_key = f"{name}.steer_rate_{i}"
        speed_key = f"{name}.wheel_speed_{i}"
        drive_in = f"{name}.{swerve.drive_input_names[i]}"
        steer_in = f"{name}.{swerve.steer_input_names[i]}"

        def module(t, signals, i=i, angle_key=angle_key, rate_key=rate_key, speed_key=speed_key,
                   drive_in=drive_in, steer_in=steer_in):
            angle = signals[angle_key]
            requested = cmd.requested[i]
            if not math.isfinite(angle):  # refused as SwerveModuleState.optimize and wrap_angle refuse it
                if optimize:
                    requested.optimize(angle)
                wrap_angle(requested.angle - angle)
            speed, target, v_drive, v_steer = _module_law()(
                requested.speed, requested.angle, angle, signals[rate_key], signals[speed_key], steer_kp, steer_kd,
                drive_kv, drive_kp, scale_d, scale_s, optimize, cosine_scale)
            cmd.targets[i] = _trusted(SwerveModuleState, (speed, target))
            return {drive_in: v_drive, steer_in: v_steer}

        loop = PeriodicController(module_period, module, name=f"{name}_module_{i}")
        loop.kernel_loop = KernelSwerveModuleLoop(cmd, i, (angle_key, rate_key, speed_key), (drive_in, steer_in),
                                                  (steer_kp, steer_kd, drive_kv, drive_kp, scale_d, scale_s),
                                                  optimize, cosine_scale, module)
        loops.append(loop)
    return loops


class KernelSwerveModuleLoop:
    """What :class:`simcore.Simulator` needs to run a swerve module loop's ticks inside the compiled kernel
    (:mod:`simcore.kernel.ticks`, kind ``"swerve_module"``; its law :mod:`simcore.kernel.swerve_module`), as
    :class:`~simcore.controllers.wiring.KernelPIDLoop` says for a PID loop: it measures the module's steer
    angle, steer rate and wheel speed and commands its drive and steer inputs; its numbers when a stretch of
    ticks starts are the module's requested state (what the chassis loop last wrote: constant until the
    chassis loop's next tick, which is Python's), its gains and scales; its state is the target it last drove
    to, kept in the shared :class:`SwerveCommand`'s ``targets`` between stretches.
    """

    kind = "swerve_module"

    def __init__(self, command: SwerveCommand, index: int, measured, commanded, gains, optimize: bool,
                 cosine_scale: bool, tick):
        self.command, self.index, self.measured, self.commanded = command, index, measured, commanded
        self.gains, self.tick = gains, tick
        self.flags = ("optimize",) * optimize + ("cosine_scale",) * cosine_scale

    @property
    def holders(self) -> tuple:
        """The objects holding the loop's state: the loop itself (its module's slot of ``targets`` is its own)."""
        return (self,)

    def unchanged(self, loop) -> bool:
        """Whether ``loop`` still ticks with the module's own function (a team may wrap it: then it ticks in
        Python)."""
        return loop.fn is self.tick

    def numbers(self, t: float, signals):
        """``(parameters, state)`` as lists of floats: the requested speed (m/s) and angle (rad), the steer
        kp, kd, drive kV, kP and the drive and steer scales; the last target's speed and angle."""
        requested, target = self.command.requested[self.index], self.command.targets[self.index]
        return [float(requested.speed), float(requested.angle), *self.gains], [float(target.speed),
                                                                                float(target.angle)]

    def store(self, state) -> None:
        """The module's target from the kernel's state (after a stretch of ticks there)."""
        self.command.targets[self.index] = _trusted(SwerveModuleState, (float(state[0]), float(state[1])))


def tank_voltages(drive, speeds, *, measured=None, kp=0.0):
    """Side voltages for chassis speeds on a tank drive (feedforward, optional P).

    Parameters
    ----------
    drive : models.TankDrive or CharacterizedTankDrive
    speeds : ChassisSpeeds or (vx, vy, omega)
        ``vy`` is ignored.
    measured : (left, right), optional
        Measured side speeds, m/s, for the P term.
    kp : float
        V per m/s of side speed error.

    Returns
    -------
    (left_voltage, right_voltage) : tuple of float
    """
    vx, _, om = _as(ChassisSpeeds, "speeds", speeds)
    kp = checks.finite("kp", kp)
    if measured is not None:  # checked even when kp = 0 leaves it unused
        ml, mr = checks.point("measured", measured, "m/s")
    kin = DifferentialKinematics(drive.track_width)
    left, right = kin.to_wheel_speeds(ChassisSpeeds(vx, 0.0, om))
    if hasattr(drive, "kv_linear"):
        ff_lin = drive.kv_linear * vx
        ff_ang = drive.kv_angular * om
        vl, vr = ff_lin - ff_ang, ff_lin + ff_ang
        if drive.ks:
            vl += math.copysign(drive.ks, vl) if vl else 0.0
            vr += math.copysign(drive.ks, vr) if vr else 0.0
    else:
        kv = drive.gearing / (drive.wheel_radius * drive.drive.Kv)
        vl, vr = kv * left, kv * right
    if measured is not None and kp:
        vl += kp * (left - ml)
        vr += kp * (right - mr)
    return vl, vr


def tank_drive_controller(drive, command_fn: Callable, *, rate=50.0, kp=0.0) -> PeriodicController:
    """A periodic controller driving a tank drive at the chassis speeds ``command_fn(t, signals)`` asks.

    Parameters
    ----------
    drive : models.TankDrive or CharacterizedTankDrive
    command_fn : callable ``(t, signals) -> ChassisSpeeds or (vx, vy, omega)``
    rate : float
        Hz (default 50).
    kp : float
        V per m/s of side-speed error (default 0: feedforward only).
    """
    period = checks.period_from_rate("rate", rate)
    kp = checks.finite("kp", kp)
    if not callable(command_fn):
        raise ConfigTypeError("command_fn", command_fn, "a callable command_fn(t, signals) -> ChassisSpeeds")
    name = drive.name
    cmd = getattr(getattr(drive, "drive", None), "command", "voltage")
    bus_scale = 1.0 / drive.drive.nominal_bus_voltage if cmd == "duty" else 1.0
    lk, rk = f"{name}.left_velocity", f"{name}.right_velocity"

    def tank(t, signals):
        speeds = _commanded_speeds(command_fn(t, signals), f"{name}_tank command_fn()", t)
        vl, vr = tank_voltages(drive, speeds, measured=(signals[lk], signals[rk]), kp=kp)
        return {f"{name}.left_{cmd}": vl * bus_scale, f"{name}.right_{cmd}": vr * bus_scale}

    return PeriodicController(period, tank, name=f"{name}_tank")
