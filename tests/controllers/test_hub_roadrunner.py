"""Road Runner's numbers: MecanumDrive.from_roadrunner (Road Runner's inches and ticks to physics) and its feedforward
ramp procedure (simcore.controllers.hub.roadrunner) run through a hub on the model built from them: the procedure
recovers every parameter the model was built from."""
import inspect
import math
import warnings

import pytest

from simcore.controllers.hub.roadrunner import feedforward_ramps
from simcore.errors import ConfigError, ConfigTypeError
from simcore.models import MecanumDrive
from simcore.models.ftc_motor_types import GOBILDA_5203_312 as T

# A goBILDA strafer's numbers as Road Runner has them: 96 mm wheels on 312 rpm motors (537.6 ticks per wheel turn)
RR = dict(in_per_tick=0.0221, lateral_in_per_tick=0.0221, track_width_ticks=590.0, ks=0.8, kv=0.0048, ka=0.0008)


def build(**kw):
    return MecanumDrive.from_roadrunner(*RR.values(), **{"motor_type": T, "mass": 12.0, **kw})


def test_from_roadrunner_turns_ticks_and_inches_into_the_model_s_geometry_and_motor_friction():
    d = build()
    ticks_per_wheel_turn = T.encoder_counts_per_motor_rev * T.gear_ratio
    assert d.wheel_radius == pytest.approx(RR["in_per_tick"] * 0.0254 * ticks_per_wheel_turn / (2 * math.pi),
                                           rel=1e-12)
    lever = RR["in_per_tick"] * RR["track_width_ticks"] * 0.0254  # Road Runner's rotation lever, m
    assert (d.track_width + d.wheelbase) / 2 == pytest.approx(lever, rel=1e-12) and d.track_width == d.wheelbase
    assert d.motor_type is T and d.drive.command == "duty" and d.roadrunner_parameters == RR
    # At steady speed a wheel carries its own friction only: V = kS + kV v, v in ticks/s (eps << v).
    c = 2 * math.pi / T.encoder_counts_per_motor_rev
    w = 300.0  # rotor rad/s
    st = d.channels.evaluate([w] * 4, [0.0] * 4, [1.0] * 4, 12.0)
    m = d.drive.motor
    voltage = m.R * st.friction_torque[0] / m.Kt + w / m.Kv
    assert voltage == pytest.approx(RR["ks"] + RR["kv"] * w / c, rel=1e-5)
    other = build(wheelbase=0.30)
    assert other.wheelbase == 0.30 and (other.track_width + 0.30) / 2 == pytest.approx(lever, rel=1e-12)


def test_from_roadrunner_takes_teams_published_numbers_with_floor_to_physics():
    # A team's goBILDA 312 Params (review 15): kV below the datasheet back-EMF, a hand-tuned kA of 1e-5
    team = (0.0231696995344901, 0.0228513095084505, 922.69, 0.7463, 0.004149, 1e-5)
    with pytest.raises(ConfigError, match="floor_to_physics=True") as e:
        MecanumDrive.from_roadrunner(*team, motor_type=T, mass=13)
    assert e.value.parameter == "kv"
    with pytest.warns(UserWarning) as caught:
        d = MecanumDrive.from_roadrunner(*team, motor_type=T, mass=13, floor_to_physics=True)
    text = " ".join(str(w.message) for w in caught)
    assert "kv=0.004149" in text and "ka=1e-05" in text and "lateral_in_per_tick" in text
    m, c = d.drive.motor, 2 * math.pi / T.encoder_counts_per_motor_rev
    # kV floored to the back-EMF: a steady wheel needs kS + (c / Kv) v volts, v in ticks/s (no viscous friction)
    w = 300.0
    st = d.channels.evaluate([w] * 4, [0.0] * 4, [1.0] * 4, 12.0)
    assert m.R * st.friction_torque[0] / m.Kt + w / m.Kv == pytest.approx(team[3] + (c / m.Kv) * w / c, rel=1e-5)
    default = inspect.signature(MecanumDrive).parameters["wheel_inertia"].default
    assert d.wheel_inertia == default and d.mass == 13  # kA floored: the mass and a default wheel
    assert d.roadrunner_parameters["kv"] == 0.004149 and d.roadrunner_parameters["ka"] == 1e-5  # as given
    assert (d.track_width + d.wheelbase) / 2 == pytest.approx(team[0] * team[2] * 0.0254, rel=1e-12)


def test_from_roadrunner_refuses_numbers_no_model_of_that_motor_and_mass_can_have():
    with pytest.raises(ConfigError) as e:
        MecanumDrive.from_roadrunner(0.0221, 0.0221, 590, 0.8, 0.001, 0.0008,
                                                                motor_type=T, mass=12.0)
    assert e.value.parameter == "kv" and "back-EMF" in str(e.value)
    with pytest.raises(ConfigError) as e:
        MecanumDrive.from_roadrunner(0.0221, 0.0221, 590, 0.8, 0.0048, 0.0001, motor_type=T, mass=12.0)
    assert e.value.parameter == "ka" and "mass=12.0" in str(e.value)
    with pytest.raises(ConfigError) as e:
        build(wheelbase=0.8)
    assert e.value.parameter == "wheelbase"
    with pytest.raises(ConfigError) as e:
        build(wheel_radius=0.05)
    assert e.value.parameter == "wheel_radius" and "derives" in str(e.value)
    with pytest.raises(ConfigError) as e:
        build(efficiency=0.9)
    assert e.value.parameter == "efficiency"
    with pytest.raises(ConfigTypeError):
        MecanumDrive.from_roadrunner(*RR.values(), motor_type="goBILDA", mass=12.0)
    with pytest.warns(UserWarning, match="lateral_in_per_tick"):
        d = MecanumDrive.from_roadrunner(0.0221, 0.018, 590, 0.8, 0.0048, 0.0008, motor_type=T, mass=12.0)
    assert d.roadrunner_parameters["lateral_in_per_tick"] == 0.018
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        build()
    with pytest.raises(ConfigTypeError):
        feedforward_ramps(object())


def test_road_runner_s_drive_encoder_tuning_recovers_the_parameters_the_model_was_built_from(capsys):
    """ForwardPushTest, LateralPushTest, AngularRampLogger and (emulated) ManualFeedforwardTuner on the model."""
    with pytest.raises(ConfigError, match="field=None") as e:  # the FTC field's walls by default: no room
        feedforward_ramps(build())
    assert e.value.parameter == "drive"
    measured = feedforward_ramps(build(field=None))  # open floor, as the tuning steps need
    printed = capsys.readouterr().out
    for name in ("inPerTick", "lateralInPerTick", "trackWidthTicks", "kA", "ForwardPushTest", "LateralPushTest",
                 "AngularRampLogger", "ManualFeedforwardTuner"):
        assert name in printed, name
    for name, value in RR.items():
        assert getattr(measured, name) == pytest.approx(value, rel=0.01), name
    # AngularRampLogger's regression alone: its slope is kV; its intercept is above kS, for on a rising ramp the
    # wheels accelerate and the line puts kA times that acceleration into it.
    assert measured.ramp_kv == pytest.approx(RR["kv"], rel=0.02)
    assert measured.ramp_ks > RR["ks"] * 1.05
    # the emulated hand tuning ends where feedforward alone follows the profile (peak 50 in/s): within 1 in/s rms
    assert measured.tracking_error < 1.0
    assert set(measured.logs) == {"forward_push", "lateral_push", "angular", "profile", "profile_check"}
