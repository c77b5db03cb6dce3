"""Mecanum drive (FTC): terminal speeds, strafing, kinematics consistency, slip, energy, geometry."""
import math

import numpy as np
import pytest

import simcore
from simcore import ConfigError, PeriodicController
from simcore.models.battery import Battery
from simcore.models.mecanum import WHEELS, MecanumDrive
from simcore.models.motors import GOBILDA_BARE
from simcore.controllers.kinematics import ChassisSpeeds, MecanumKinematics

G, R, TW, WB = 19.2, 0.048, 0.36, 0.30
# goBILDA bare motor, gm0 table: 5900 rpm free, 0.3 A free, 11 A stall at 12 V.
KV = (5900 * 2 * math.pi / 60) / (12.0 - 12.0 / 11.0 * 0.3)


def make(**kw):
    # Free rollers (roller_friction=0) and ideal motors (viscous_friction=0): the references below are the
    # frictionless-roller kinematics and the free speed of the motor without its free current.
    args = dict(track_width=TW, wheelbase=WB, wheel_radius=R, mass=12.0, moi=0.35, roller_friction=0.0,
                viscous_friction=0)
    args.update(kw)
    return MecanumDrive(GOBILDA_BARE, G, **args)


def volts(fl, fr, rl, rr):
    return {f"mecanum.{w}_voltage": v for w, v in zip(WHEELS, (fl, fr, rl, rr))}


def test_forward_terminal_speed():
    res = simcore.simulate([make()], 3.0, inputs=volts(10, 10, 10, 10))
    assert res.final("mecanum.robot_vx") == pytest.approx(10 * KV * R / G, rel=1e-6)
    assert abs(res.final("mecanum.robot_vy")) < 1e-9
    assert np.max(np.abs(res["mecanum.omega"])) < 1e-9


def test_strafe_is_pure_sideways_at_wheel_speed():
    # left strafe with an "X" roller layout: fl -, fr +, rl +, rr -
    res = simcore.simulate([make()], 3.0, inputs=volts(-8, 8, 8, -8))
    assert res.final("mecanum.robot_vy") == pytest.approx(8 * KV * R / G, rel=1e-6)
    assert np.max(np.abs(res["mecanum.vx"])) < 1e-9
    assert np.max(np.abs(res["mecanum.omega"])) < 1e-9


@pytest.mark.parametrize("speeds", [(0.6, 0.0, 0.0), (0.3, -0.4, 0.0), (0.0, 0.0, 2.0)])
def test_wheel_speeds_from_wpilib_kinematics_give_the_chassis_speeds(speeds):
    kin = MecanumKinematics((WB / 2, TW / 2), (WB / 2, -TW / 2), (-WB / 2, TW / 2), (-WB / 2, -TW / 2))
    wheel = kin.to_wheel_speeds(ChassisSpeeds(*speeds))
    v = [s * G / (R * KV) for s in wheel]  # no-load voltage for each rim speed
    res = simcore.simulate([make()], 3.0, inputs=volts(*v))
    got = (res.final("mecanum.robot_vx"), res.final("mecanum.robot_vy"), res.final("mecanum.omega"))
    np.testing.assert_allclose(got, speeds, atol=1e-6)


def test_low_friction_slips():
    drive = make(friction_coefficient=0.1)
    res = simcore.simulate([drive], 0.5, inputs=volts(12, 12, 12, 12))
    assert res["mecanum.front_left_slip_speed"].max() > 0.3
    # each roller pushes at most mu N along its axle, i.e. mu N / sqrt(2) forward
    assert res.final("mecanum.vx") <= 0.1 * 9.80665 / math.sqrt(2) * 0.5 + 1e-9


def test_energy_audit_with_duty_command_and_battery():
    drive = make(command="duty", track_energy=True, efficiency=0.9, friction_coefficient=0.5)
    batt = Battery(resistance=0.1)

    def cmd(t, s):
        p = (1.0, -0.5, 0.8, 0.2) if t < 0.5 else (-0.6, 0.6, 0.6, -0.6)
        return {f"mecanum.{w}_duty": v for w, v in zip(WHEELS, p)}

    res = simcore.simulate([drive, batt], 1.0, [PeriodicController(0.01, cmd)])
    e_in = res.final("mecanum.energy_in")
    dke = res.final("mecanum.kinetic_energy") - res["mecanum.kinetic_energy"][0]
    losses = sum(res.final(f"mecanum.{k}") for k in ("copper_loss", "conversion_loss", "gear_loss",
                                                        "friction_loss"))
    assert res.final("mecanum.friction_loss") > 0
    assert abs((e_in - dke - losses) / e_in) < 1e-6
    np.testing.assert_allclose(res["battery.current"], res["mecanum.supply_current"], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kw,param", [(dict(track_width=0.0), "track_width"), (dict(wheelbase=-0.3), "wheelbase"),
                                      (dict(wheel_radius=-0.048), "wheel_radius"),
                                      (dict(wheel_positions=[(0.1, 0.1)] * 4, track_width=None, wheelbase=None),
                                       "wheel_positions")])
def test_bad_geometry_raises(kw, param):
    with pytest.raises(ConfigError) as info:
        make(**kw)
    assert info.value.parameter == param
