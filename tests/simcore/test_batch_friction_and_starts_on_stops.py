"""Batched mechanisms as their serial models: friction defaults that follow a varied static friction, starts on a stop.

1. A varied ``static_friction`` moves ``kinetic_friction`` with it only when the model was built
   without ``kinetic_friction`` (the serial constructor then derives it from the static one); a
   kinetic friction given, even equal to the static one, stays in every variant.
2. A variant starting on a stop with a velocity into it is refused, as ``simulate`` refuses it,
   naming the x0 entry and the variant; at the stop at rest or moving away it runs as serially.

The references are independent serial runs (``simulate(..., method="RK45")``) of model objects
built with each variant's values.
"""
import numpy as np
import pytest

import simcore.models as models
from simcore import ConfigError, simulate, simulate_batch
from simcore.controllers import PIDController, control_loop
from simcore.models.motors import NEO

T_END = 0.6
SF = [0.02, 0.05, 0.2, 1.0]  # static frictions around the models' 0.05 (N*m, or N for the elevator x 40)


def arm(**options):
    return models.Arm(NEO, 100, mass=2, com_distance=0.3, min_angle=-1.5, max_angle=2, **options)


def elevator(**options):
    return models.Elevator(NEO, 10.0, carriage_mass=6.0, drum_radius=0.05, min_height=0.0, max_height=1.2,
                           **options)


def flywheel(**options):
    return models.Flywheel(NEO, 1.0, 0.01, **options)


# (make, measured state, setpoint, friction scale): the scale puts the frictions where they matter
CASES = {"arm": (arm, "arm.angle", 1.0, 1.0), "elevator": (elevator, "elevator.position", 0.8, 40.0),
         "flywheel": (flywheel, "flywheel.velocity", 200.0, 1.0)}


def loop(measure, setpoint):
    name = measure.split(".")[0]
    return control_loop(PIDController(8.0, 0.0, 0.2, period=0.02), measure=measure, command=f"{name}.voltage",
                        setpoint=setpoint, output_limits=(-12.0, 12.0), name="pid")


def worst_difference(batch, serial, name):
    """The largest difference of ``name`` at the ticks between the variants and their serial runs, relative
    to the value (a signal crossing zero against 1e-3 of its range there, as test_batch)."""
    ticks = serial[0].ticks("pid")
    got, ref = batch.at_ticks(name, "pid"), np.stack([r.sample(name, ticks) for r in serial])
    return np.max(np.abs(got - ref) / np.maximum(np.abs(ref), 1e-3 * np.max(np.abs(ref))))


def assert_equals_serial(batch, serial, signals, rtol=1e-7):
    """Every variant at every controller tick within ``rtol`` of its own serial run."""
    np.testing.assert_array_equal(batch.tick_times("pid"), serial[0].ticks("pid"))
    for name in signals:
        worst = worst_difference(batch, serial, name)
        assert worst <= rtol, f"{name}: worst relative difference {worst:.3g}"


# -- 1: kinetic friction follows a varied static friction only when it was not given ------------------
def test_the_constructor_records_whether_kinetic_friction_was_given():
    assert arm(static_friction=0.05).kinetic_friction_from_static
    assert not arm(static_friction=0.05, kinetic_friction=0.05).kinetic_friction_from_static
    assert not flywheel(kinetic_friction=0.0).kinetic_friction_from_static


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_kinetic_friction_given_equal_to_the_static_one_stays_when_the_static_one_varies(case):
    make, measure, setpoint, scale = CASES[case]
    name = measure.split(".")[0]
    sf = [scale * s for s in SF]
    kinetic = 0.05 * scale
    batch = simulate_batch(make(static_friction=kinetic, kinetic_friction=kinetic), T_END,
                           [loop(measure, setpoint)], params={f"{name}.static_friction": sf})
    serial = [simulate(make(static_friction=s, kinetic_friction=kinetic), T_END, [loop(measure, setpoint)],
                       method="RK45") for s in sf]
    signals = (measure, f"{name}.velocity", f"{name}.voltage", f"{name}.stator_current")
    assert_equals_serial(batch, serial, signals)
    # (the kinetic friction matters here: the runs whose kinetic friction followed the static one differ)
    followed = [simulate(make(static_friction=s), T_END, [loop(measure, setpoint)], method="RK45") for s in sf]
    assert worst_difference(batch, followed, f"{name}.velocity") > 1e-4


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_default_kinetic_friction_follows_each_variants_static_friction(case):
    make, measure, setpoint, scale = CASES[case]
    name = measure.split(".")[0]
    sf = [scale * s for s in SF]
    batch = simulate_batch(make(static_friction=0.05 * scale), T_END, [loop(measure, setpoint)],
                           params={f"{name}.static_friction": sf})
    serial = [simulate(make(static_friction=s), T_END, [loop(measure, setpoint)], method="RK45") for s in sf]
    assert_equals_serial(batch, serial, (measure, f"{name}.velocity", f"{name}.voltage", f"{name}.stator_current"))


def test_a_varied_kinetic_friction_beside_a_varied_static_one_is_each_variants_own():
    kf = [0.3, 0.05, 0.0, 0.6]
    batch = simulate_batch(arm(static_friction=0.05), T_END, [loop("arm.angle", 1.0)],
                           params={"arm.static_friction": SF, "arm.kinetic_friction": kf})
    serial = [simulate(arm(static_friction=s, kinetic_friction=k), T_END, [loop("arm.angle", 1.0)], method="RK45")
              for s, k in zip(SF, kf)]
    assert_equals_serial(batch, serial, ("arm.angle", "arm.velocity", "arm.voltage"))


# -- 2: a start on a stop with a velocity into it ----------------------------------------------------
STOPS = {"arm": (arm, "arm.angle", -1.5, 2.0), "elevator": (elevator, "elevator.position", 0.0, 1.2)}


@pytest.mark.parametrize("case", sorted(STOPS))
@pytest.mark.parametrize("side", ["upper", "lower"])
def test_a_variant_on_a_stop_with_a_velocity_into_it_is_refused_as_serially(case, side):
    make, position, lo, hi = STOPS[case]
    name = position.split(".")[0]
    stop, into = (hi, 0.4) if side == "upper" else (lo, -0.4)
    with pytest.raises(ConfigError, match="no velocity into the hard stop"):
        simulate(make(), T_END, x0={position: stop, f"{name}.velocity": into})
    middle = 0.5 * (lo + hi)
    with pytest.raises(ConfigError) as info:
        simulate_batch(make(), T_END, params={f"{name}.gearing": [10.0, 12.0, 14.0]},
                       x0={position: [middle, stop, stop], f"{name}.velocity": [into, 0.0, into]})
    e = info.value
    # variant 2 (variant 1 rests on the stop, variant 0 moves in the middle), named by its velocity, as the
    # serial run names it (its position on the stop is allowed)
    assert (e.parameter, e.value) == (f"x0['{name}.velocity'][2]", into)
    assert "no velocity into the hard stop it starts on" in e.expected and "(variant 2)" in e.expected
    assert f"{side} stop {stop!r}" in e.expected and f"velocity {into!r}" in e.expected


def test_a_velocity_alone_in_x0_into_the_stop_the_model_starts_on_is_named():
    with pytest.raises(ConfigError):
        simulate(arm(start_angle=2.0), T_END, x0={"arm.velocity": 0.7})
    with pytest.raises(ConfigError) as info:
        simulate_batch(arm(start_angle=2.0), T_END, params={"arm.mass": [2.0, 3.0]},
                       x0={"arm.velocity": [-0.7, 0.7]})
    e = info.value
    assert e.parameter == "x0['arm.velocity'][1]" and e.value == 0.7
    assert "rad/s" in e.expected and "(variant 1)" in e.expected


@pytest.mark.parametrize("case", sorted(STOPS))
def test_variants_on_a_stop_at_rest_or_moving_away_run_as_serially(case):
    make, position, lo, hi = STOPS[case]
    name = position.split(".")[0]
    starts = [(hi, 0.0), (hi, -0.4), (lo, 0.0), (lo, 0.4)]
    setpoint = 0.5 * (lo + hi)
    batch = simulate_batch(make(), T_END, [loop(position, setpoint)], params={"pid.kp": [8.0] * 4},
                           x0={position: [q for q, _ in starts], f"{name}.velocity": [v for _, v in starts]})
    serial = [simulate(make(), T_END, [loop(position, setpoint)], x0={position: q, f"{name}.velocity": v},
                       method="RK45") for q, v in starts]
    assert_equals_serial(batch, serial, (position, f"{name}.velocity", f"{name}.voltage"))
