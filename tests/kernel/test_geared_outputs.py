"""The geared mechanisms' outputs, computed in the kernel (simcore.kernel.geared.outputs).

(a) The physics, from datasheet numbers and the mechanism's geometry: a stalled motor draws V/R and makes
Kt I of torque, G eta Kt I at the gearbox output; a free-running motor turns at its free speed drawing its
free current; the supply current is the duty times the stator current; a stator current limit caps the
current. On all four models (Flywheel, Arm, Elevator, HubMotor).
(b) The kernel's outputs equal the Python arithmetic they replaced (kept below as the reference), bit for
bit, on random states, inputs and modes; the stacked dispatch (parts.outputs, parts.outputs_of_rows) equals
each model's own outputs.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import simcore.models as models
from simcore.kernel import layout as kl
from simcore.kernel import parts
from simcore.models.ftc_motor_types import GOBILDA_5203_312
from simcore.models.motors import NEO, VEX_775PRO

G_ARM, G_FLY, G_ELEV, DRUM = 60.0, 3.0, 12.0, 0.03


def make(kind, **kw):
    if kind == "flywheel":
        return models.Flywheel(VEX_775PRO, G_FLY, 0.01, **kw)
    if kind == "arm":
        kw.setdefault("min_angle", -1.0)
        kw.setdefault("max_angle", 2.0)
        return models.Arm(NEO, G_ARM, mass=2.0, com_distance=0.3, **kw)
    if kind == "elevator":
        kw.setdefault("min_height", 0.0)
        kw.setdefault("max_height", 1.5)
        return models.Elevator(NEO, G_ELEV, carriage_mass=4.0, drum_radius=DRUM, **kw)
    kw.setdefault("load_inertia", 0.01)
    return models.HubMotor(GOBILDA_5203_312, **kw)


KINDS = ("flywheel", "arm", "elevator", "hub")


def motor_of(m):
    return m.motor_type.motor if isinstance(m, models.HubMotor) else m.drive.motor


def gearing_of(kind):
    return {"flywheel": G_FLY, "arm": G_ARM, "elevator": G_ELEV, "hub": GOBILDA_5203_312.gear_ratio}[kind]


def named(m, x, u, mode, t=0.0):
    m.mode = mode
    return dict(zip(m.output_names, m.outputs(t, np.asarray(x, dtype=float), np.asarray(u, dtype=float))))


def drive_inputs(m, volts, bus=12.0):
    """The inputs applying ``volts`` (a duty of the bus for a duty-commanded drive)."""
    return [volts / bus if m.drive.command == "duty" else volts, 0.0, bus]


# -- (a) physics ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n_motors, efficiency", [(1, 1.0), (2, 0.8)])
def test_a_stalled_motor_draws_v_over_r_and_makes_kt_i_through_the_gearbox(kind, n_motors, efficiency):
    options = {"efficiency": efficiency}
    if kind != "hub":
        options["n_motors"] = n_motors
    m = make(kind, gravity=False, **options) if kind in ("arm", "elevator") else make(kind, **options)
    n = n_motors if kind != "hub" else 1
    motor = motor_of(m)
    volts = 6.0
    y = named(m, [0.0 if kind != "elevator" else 0.5, 0.0], drive_inputs(m, volts), "moving")
    current = n * motor.stall_current * volts / motor.nominal_voltage  # V / R, R = V_nominal / I_stall per motor
    torque = motor.stall_torque / motor.stall_current * current  # Kt I
    assert y["stator_current"] == pytest.approx(current, rel=1e-12)
    assert y["motor_torque"] == pytest.approx(torque, rel=1e-12)
    assert y["applied_voltage"] == pytest.approx(volts, rel=1e-12)
    assert y["torque"] == pytest.approx(torque * gearing_of(kind) * efficiency, rel=1e-12)  # gearbox output
    assert y["saturated"] == 0.0 and y["current_limited"] == 0.0 and y["supply_voltage"] == 12.0
    # no load but the drive: the output torque accelerates the inertia (at the mechanism: / drum for a carriage)
    force = y["torque"] / (DRUM if kind == "elevator" else 1.0)
    assert y["acceleration"] == pytest.approx(force / m.M, rel=1e-12)
    k = gearing_of(kind) / (DRUM if kind == "elevator" else 1.0)
    assert y["rotor_acceleration"] == pytest.approx(k * force / m.M, rel=1e-12)


@pytest.mark.parametrize("kind", KINDS)
def test_a_free_running_motor_turns_at_its_free_speed_drawing_its_free_current(kind):
    # The default viscous friction is the motors' own, from the datasheet free current: at the nominal
    # voltage and the free speed the current is the free current and the net torque zero.
    m = make(kind, gravity=False) if kind in ("arm", "elevator") else make(kind)
    motor = motor_of(m)
    k = gearing_of(kind) / (DRUM if kind == "elevator" else 1.0)
    v = motor.free_speed / k
    y = named(m, [0.5 if kind == "elevator" else 0.0, v], drive_inputs(m, motor.nominal_voltage,
                                                                        motor.nominal_voltage), "moving")
    assert y["stator_current"] == pytest.approx(motor.free_current, rel=1e-9)
    assert y["rotor_velocity"] == pytest.approx(motor.free_speed, rel=1e-12)
    stall_acceleration = motor.stall_torque * gearing_of(kind) / (DRUM if kind == "elevator" else 1.0) / m.M
    assert abs(y["acceleration"]) < 1e-9 * stall_acceleration


@pytest.mark.parametrize("kind", KINDS)
def test_the_supply_current_is_the_duty_times_the_stator_current(kind):
    m = make(kind)
    for bus in (12.0, 10.0):
        y = named(m, [0.5 if kind == "elevator" else 0.2, 1.0], drive_inputs(m, 7.0, bus), "moving")
        assert y["applied_voltage"] == pytest.approx(7.0, rel=1e-12)
        assert y["supply_current"] == pytest.approx(7.0 / bus * y["stator_current"], rel=1e-12)
        assert y["supply_voltage"] == bus


@pytest.mark.parametrize("kind", KINDS)
def test_a_stator_current_limit_caps_the_current(kind):
    limit = 2.0 if kind == "hub" else 20.0  # per motor, A
    n = 1 if kind == "hub" else 2
    options = {"stator_current_limit": limit} if kind == "hub" else {"stator_current_limit": limit, "n_motors": 2}
    m = make(kind, **options)
    motor = motor_of(m)
    y = named(m, [0.5 if kind == "elevator" else 0.0, 0.0], drive_inputs(m, 12.0), "moving")
    assert y["stator_current"] == pytest.approx(n * limit, rel=1e-12)
    assert y["current_limited"] == 1.0
    # the voltage that drives the limit through the stalled windings: I R
    assert y["applied_voltage"] == pytest.approx(n * limit * motor.nominal_voltage / (n * motor.stall_current),
                                                 rel=1e-12)
    assert y["motor_torque"] == pytest.approx(motor.stall_torque / motor.stall_current * n * limit, rel=1e-12)


@pytest.mark.parametrize("kind", ("arm", "elevator"))
def test_a_body_resting_on_its_stop_does_not_accelerate(kind):
    m = make(kind)
    lo = m.min_position
    y = named(m, [lo, 0.0], drive_inputs(m, -6.0), "lower_stop")  # pushed into the stop (and gravity)
    assert y["acceleration"] == 0.0 and y["rotor_acceleration"] == 0.0
    assert y["stator_current"] < 0.0  # the motor still draws its stall current
    assert y["rotor_position"] == pytest.approx(lo * gearing_of(kind) / (DRUM if kind == "elevator" else 1.0))


def test_gravity_on_an_arm_decelerates_it_by_m_g_d_cos_over_the_inertia():
    m = make("arm", viscous_friction=0.0)
    q = 0.4
    y = named(m, [q, 0.0], [0.0, 0.0, 12.0], "moving")  # coasting at rest: no drive torque
    assert y["acceleration"] == pytest.approx(-2.0 * 9.80665 * 0.3 * math.cos(q) / m.M, rel=1e-12)


# -- (b) the Python arithmetic the kernel replaced -------------------------------------------------------------
def python_outputs(m, x, u, mode):
    """GearedMechanism.outputs as it was in Python (drive_sample inlined), the reference."""
    q, v = x[0], x[1]
    resting = mode in ("stuck", "lower_stop", "upper_stop")
    direction = {"forward": 1.0, "reverse": -1.0}.get(mode, 0.0)
    vd = 0.0 if resting else v
    d = m.drive
    e = d.electrical(m.k * vd, u[0], u[1], u[2])
    tm = d.Kt * e.stator_current
    f = d.output_torque_directed(tm - m._shaft_friction * vd, direction) * m._k_per_gearing
    a = 0.0 if resting else (f + m.load_force(q) - (m._load_viscous * v + m._coulomb.get(mode, 0.0))) / m.M
    return (a, m.k * q, m.k * v, m.k * a, e.stator_current, e.supply_current, e.applied_voltage, u[2],
            f * (m.drum_radius if m.linear else 1.0), tm, e.saturated, e.current_limited)


def random_models(rng):
    out = []
    for kind in KINDS:
        for _ in range(4):
            options = {}
            if rng.random() < 0.5:
                options["efficiency"] = float(rng.uniform(0.5, 1.0))
            if rng.random() < 0.5:
                options["static_friction"] = float(rng.uniform(0.0, 0.5))
            if rng.random() < 0.3:
                options["viscous_friction"] = float(rng.uniform(0.0, 0.1))
            if rng.random() < 0.4:
                options["stator_current_limit"] = float(rng.uniform(1.0, 40.0))
            if rng.random() < 0.4:
                options["supply_current_limit"] = float(rng.uniform(1.0, 30.0))
            if rng.random() < 0.3:
                options["track_energy"] = True
            if kind != "hub" and rng.random() < 0.3:
                options["command"] = "duty"
            out.append(make(kind, **options))
    out.append(make("hub", external_torque=lambda a: -0.3 * math.cos(a)))  # a load written in Python
    return out


def random_point(m, rng):
    lo = m.min_position if math.isfinite(m.min_position) else -3.0
    hi = m.max_position if math.isfinite(m.max_position) else 3.0
    mode = str(rng.choice(kl.MODE_NAMES))
    q = float(rng.choice([lo, hi, rng.uniform(lo, hi)]))
    v = 0.0 if mode in ("stuck", "lower_stop", "upper_stop") else float(rng.normal(0.0, 20.0 / m.k))
    x = np.zeros(len(m.state_names))
    x[0], x[1] = q, v
    cmd = float(rng.choice([0.0, rng.uniform(-1.3, 1.3)])) if m.drive.command == "duty" else \
        float(rng.choice([0.0, rng.uniform(-16.0, 16.0)]))
    u = np.array([cmd, float(rng.integers(0, 2)), float(rng.choice([0.0, rng.uniform(4.0, 13.0)]))])
    return x, u, mode


def test_the_kernel_outputs_are_the_python_arithmetic_they_replaced():
    rng = np.random.default_rng(424242)
    for m in random_models(rng):
        for _ in range(60):
            x, u, mode = random_point(m, rng)
            m.mode = mode
            got = m.outputs(0.25, x, u)
            want = python_outputs(m, x, u, mode)
            assert len(got) == len(m.output_names)
            np.testing.assert_array_equal(np.array(got), np.array(want), err_msg=f"{m!r} {mode} {x} {u}")


def test_the_stacked_outputs_of_many_rows_are_each_models_own():
    rng = np.random.default_rng(7)
    ms = [make("arm", track_energy=True, static_friction=0.2), make("elevator", command="duty"),
          make("flywheel", efficiency=0.7), make("hub", stator_current_limit=3.0)]
    table = np.zeros((len(ms), 5), dtype=np.int64)
    x_off = u_off = 0
    for k, m in enumerate(ms):
        table[k] = (parts.KIND_GEARED, x_off, len(m.state_names), u_off, k * kl.N_PARAMETERS)
        x_off += len(m.state_names)
        u_off += 3
    y_off = parts.output_offsets(table[:, parts.T_KIND])
    assert list(y_off) == [0, 12, 24, 36, 48]
    N = 40
    P = np.empty((N, len(ms) * kl.N_PARAMETERS))
    X, U = np.empty((N, x_off)), np.empty((N, u_off))
    modes = np.empty((N, len(ms)), dtype=np.int64)
    T = rng.uniform(0.0, 5.0, N)
    expected = np.empty((N, y_off[-1]))
    for r in range(N):
        for k, m in enumerate(ms):
            # each row its own variant: a gearing of its own
            variant = {"gearing": [float(rng.uniform(5.0, 50.0))]} if m.BATCH_PARAMETERS else None
            P[r, k * kl.N_PARAMETERS:(k + 1) * kl.N_PARAMETERS] = m.kernel_parameters(variant, 1)[0]
            x, u, mode = random_point(m, rng)
            X[r, table[k, parts.T_X]:table[k, parts.T_X] + table[k, parts.T_NX]] = x
            U[r, 3 * k:3 * k + 3] = u
            modes[r, k] = kl.MODE_NAMES.index(mode)
            own = m if variant is None else _rebuilt(m, variant["gearing"][0])
            own.mode = mode
            expected[r, y_off[k]:y_off[k + 1]] = own.outputs(T[r], x, u)
    OUT = np.full((N, y_off[-1]), np.nan)
    parts.outputs_of_rows(table, P, U, modes, T, X, y_off, OUT)
    np.testing.assert_array_equal(OUT, expected)
    # the same rows with the parameters held per variant (here: every row its own variant, in reverse order)
    V = np.arange(N)[::-1].copy()
    OUT_V = np.full((N, y_off[-1]), np.nan)
    parts.outputs_of_variant_rows(table, P[::-1].copy(), V, U, modes, T, X, y_off, OUT_V)
    np.testing.assert_array_equal(OUT_V, expected)
    one = np.full(y_off[-1], np.nan)
    parts.outputs(table, P[3], U[3], modes[3], T[3], X[3], y_off, one)
    np.testing.assert_array_equal(one, expected[3])


def _rebuilt(m, gearing):
    """The model ``m`` built with another gearing (as the stacked test's variants)."""
    if isinstance(m, models.Arm):
        return models.Arm(NEO, gearing, mass=2.0, com_distance=0.3, min_angle=-1.0, max_angle=2.0, track_energy=True,
                          static_friction=0.2)
    if isinstance(m, models.Elevator):
        return models.Elevator(NEO, gearing, carriage_mass=4.0, drum_radius=DRUM, min_height=0.0, max_height=1.5,
                               command="duty")
    return models.Flywheel(VEX_775PRO, gearing, 0.01, efficiency=0.7)


def test_a_subclass_with_outputs_of_its_own_or_a_python_load_keeps_them_on_the_python_path():
    class Tagged(models.Flywheel):
        def extra_outputs(self, t, x, u):
            return (42.0,)

    class Sprung(models.Flywheel):
        def load_force(self, q):
            return -3.0 * q

    tagged = Tagged(VEX_775PRO, G_FLY, 0.01)
    tagged.output_names = tuple(tagged.output_names) + ("tag",)
    assert tagged.kernel_form() is None  # the kernel computes the built-in outputs only
    assert tagged.outputs(0.0, np.zeros(2), np.array([6.0, 0.0, 12.0]))[-1] == 42.0
    sprung = Sprung(VEX_775PRO, G_FLY, 0.01, viscous_friction=0.0)
    assert sprung.kernel_form() is None
    sprung.mode = "moving"
    y = dict(zip(sprung.output_names, sprung.outputs(0.0, np.array([0.5, 0.0]), np.array([0.0, 0.0, 12.0]))))
    assert y["acceleration"] == pytest.approx(-1.5 / sprung.M, rel=1e-12)  # the spring's force, from Python
