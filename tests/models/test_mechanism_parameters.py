"""GearedMechanism.kernel_parameters: one derivation of a mechanism's parameters, for the model and for a batch.

Row ``j`` of ``kernel_parameters(overrides, n)`` is the parameter vector of the model built with variant ``j``'s
values (its ``kernel_form()``), to the bit, with the constructor's rules (an arm's rod inertia, kinetic friction
following static friction, the motors' own friction following the gearing); a value the constructor refuses is
refused naming the batch parameter, the variant and the value. The physical values of the vector are checked
against the motor's datasheet numbers and the mechanism's geometry.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import simcore.models as models
from simcore import Q_
from simcore.errors import ConfigError
from simcore.kernel import layout as kl
from simcore.models.ftc_motor_types import REV_HD_HEX_20
from simcore.models.motors import NEO, VEX_775PRO

# -- the models, built with keyword values (a variant's are its overrides) ------------------------------------


def arm(**kw):
    kw.setdefault("gearing", 100.0)
    kw.setdefault("mass", 2.0)
    kw.setdefault("com_distance", 0.3)
    g = kw.pop("gearing")
    return models.Arm(NEO, g, min_angle=-0.8, max_angle=1.6, **kw)


def flywheel(**kw):
    kw.setdefault("gearing", 2.0)
    kw.setdefault("moi", 0.004)
    g = kw.pop("gearing")
    return models.Flywheel(VEX_775PRO, g, **kw)


def elevator(**kw):
    kw.setdefault("gearing", 10.0)
    kw.setdefault("carriage_mass", 5.0)
    g = kw.pop("gearing")
    return models.Elevator(NEO, g, drum_radius=0.03, min_height=0.0, max_height=1.2, counterweight_mass=1.0,
                           constant_force=3.0, **kw)


#: Batch parameters and how to draw a value of each (SI units).
DRAW = {"gearing": lambda r: r.uniform(5.0, 200.0), "mass": lambda r: r.uniform(0.5, 8.0),
        "com_distance": lambda r: r.uniform(0.1, 0.6), "moi": lambda r: r.uniform(0.001, 1.5),
        "carriage_mass": lambda r: r.uniform(1.0, 15.0), "viscous_friction": lambda r: r.uniform(0.0, 0.2),
        "static_friction": lambda r: r.choice([0.0, r.uniform(0.0, 2.0)]),
        "kinetic_friction": lambda r: r.choice([0.0, r.uniform(0.0, 2.0)])}

BUILDERS = {"arm": (arm, models.Arm), "flywheel": (flywheel, models.Flywheel), "elevator": (elevator, models.Elevator)}

#: Constructor options the model is built with (the variants vary the batch parameters on top of them).
OPTIONS = [{}, {"efficiency": 0.8}, {"static_friction": 0.3}, {"static_friction": 0.3, "kinetic_friction": 0.3},
           {"viscous_friction": 0.05, "efficiency": 0.7}, {"static_friction": Q_(0.2, "V"), "efficiency": 0.9},
           {"kinetic_friction": Q_(0.1, "V"), "static_friction": Q_(0.3, "V")},
           {"n_motors": 2, "rotor_inertia": 1e-5, "stator_current_limit": 40.0, "command": "duty"},
           {"track_energy": True, "supply_current_limit": 30.0}]


def _cases():
    rng = np.random.default_rng(2026_12_07)
    cases = []
    for kind in BUILDERS:
        for i, options in enumerate(OPTIONS):
            for moi_given in ((False, True) if kind == "arm" else (True,)):
                keys = list(BUILDERS[kind][1].BATCH_PARAMETERS)
                if kind == "arm" and not moi_given:
                    keys.remove("moi")
                chosen = [k for k in keys if rng.random() < 0.5] or [keys[0]]
                cases.append((kind, i, moi_given, tuple(chosen), int(rng.integers(1 << 30))))
    return cases


@pytest.mark.parametrize("kind, option, moi_given, keys, seed", _cases(),
                         ids=lambda v: str(v) if not isinstance(v, tuple) else "+".join(v))
def test_each_row_is_the_parameter_vector_of_the_model_built_with_that_variants_values(kind, option, moi_given, keys,
                                                                                       seed):
    make, _ = BUILDERS[kind]
    options = dict(OPTIONS[option])
    if kind == "arm" and moi_given:
        options["moi"] = 0.4
    rng = np.random.default_rng(seed)
    n = 5
    overrides = {k: np.array([DRAW[k](rng) for _ in range(n)]) for k in keys}
    rows = make(**options).kernel_parameters(overrides, n)
    assert rows.shape == (n, kl.N_PARAMETERS)
    for j in range(n):
        own = dict(options)
        own.update({k: float(v[j]) for k, v in overrides.items()})
        form = make(**own).kernel_form()
        np.testing.assert_array_equal(rows[j], form[1], err_msg=f"variant {j} of {overrides}")


def test_no_overrides_give_the_models_own_vector_and_its_attributes():
    a = arm(static_friction=0.2, efficiency=0.9)
    p = a.kernel_parameters()
    assert p.shape == (1, kl.N_PARAMETERS)
    np.testing.assert_array_equal(p[0], a.kernel_form()[1])
    assert (p[0, kl.P_K], p[0, kl.P_M], p[0, kl.P_KINETIC]) == (a.k, a.M, a.kinetic_friction)


# -- the physical values ---------------------------------------------------------------------------------------
def test_the_inertia_includes_each_variants_rotors_through_its_gearing():
    rotor = 2e-5
    gearing = np.array([10.0, 50.0, 120.0])
    p = flywheel(moi=0.01, n_motors=2, rotor_inertia=rotor).kernel_parameters({"gearing": gearing}, 3)
    np.testing.assert_allclose(p[:, kl.P_M], 0.01 + 2 * rotor * gearing ** 2, rtol=1e-15)
    np.testing.assert_array_equal(p[:, kl.P_K], gearing)


def test_an_arm_built_without_moi_gets_each_variants_rod_inertia_and_gravity_torque():
    mass, com = np.array([1.0, 3.0]), np.array([0.25, 0.5])
    p = arm().kernel_parameters({"mass": mass, "com_distance": com}, 2)
    np.testing.assert_allclose(p[:, kl.P_M], mass * (2 * com) ** 2 / 3, rtol=1e-15)  # no rotor inertia given
    np.testing.assert_allclose(p[:, kl.P_LOAD_A], mass * 9.80665 * com, rtol=1e-15)
    # an arm given its moi keeps it
    p = arm(moi=0.7).kernel_parameters({"mass": mass, "com_distance": com}, 2)
    np.testing.assert_array_equal(p[:, kl.P_M], [0.7, 0.7])


def test_the_elevators_weight_and_springs_force_follow_the_carriage_mass():
    carriage = np.array([2.0, 9.0])
    p = elevator().kernel_parameters({"carriage_mass": carriage}, 2)
    np.testing.assert_allclose(p[:, kl.P_LOAD_A], 3.0 - (carriage - 1.0) * 9.80665, rtol=1e-15)
    np.testing.assert_allclose(p[:, kl.P_M], carriage + 1.0, rtol=1e-15)
    np.testing.assert_allclose(p[:, kl.P_K], 10.0 / 0.03, rtol=1e-15)  # rotor radians per metre of travel


def test_the_motors_own_friction_follows_the_gearing_and_a_given_one_does_not():
    # NEO datasheet: 1.8 A free current at 5676 rpm, 2.6 N·m / 105 A: rotor friction Kt I_free / w_free.
    b_rotor = (2.6 / 105) * 1.8 / (5676 * 2 * math.pi / 60)
    gearing = np.array([20.0, 60.0])
    p = arm().kernel_parameters({"gearing": gearing}, 2)
    np.testing.assert_allclose(p[:, kl.P_LOAD_VISCOUS], b_rotor * gearing ** 2, rtol=1e-12)
    # through a lossy gearbox it acts on the rotors: rotor torque per unit of arm speed b_rotor * G
    p = arm(efficiency=0.8).kernel_parameters({"gearing": gearing}, 2)
    np.testing.assert_allclose(p[:, kl.P_SHAFT_FRICTION], b_rotor * gearing, rtol=1e-12)
    np.testing.assert_array_equal(p[:, kl.P_LOAD_VISCOUS], [0.0, 0.0])
    p = arm(viscous_friction=0.1).kernel_parameters({"gearing": gearing}, 2)
    np.testing.assert_array_equal(p[:, kl.P_LOAD_VISCOUS], [0.1, 0.1])


def test_kinetic_friction_follows_a_varied_static_friction_only_when_not_given():
    static = np.array([0.0, 0.4, 1.0])
    p = arm(static_friction=0.2).kernel_parameters({"static_friction": static}, 3)
    np.testing.assert_array_equal(p[:, kl.P_KINETIC], static)
    np.testing.assert_array_equal(p[:, kl.P_DIRECTIONAL], [0.0, 1.0, 1.0])  # friction makes direction a mode
    p = arm(static_friction=0.2, kinetic_friction=0.2).kernel_parameters({"static_friction": static}, 3)
    np.testing.assert_array_equal(p[:, kl.P_KINETIC], [0.2, 0.2, 0.2])
    # breakaway: the larger of the two, just above it
    assert np.all(p[:, kl.P_BREAKAWAY] > np.maximum(static, 0.2))
    np.testing.assert_allclose(p[:, kl.P_BREAKAWAY], np.maximum(static, 0.2), rtol=1e-7)


def test_a_ks_voltage_friction_is_each_variants_force_through_its_gearing():
    # F = kS * Kt / R * G * eta: a kS voltage stalls the motor group at that voltage
    gearing = np.array([30.0, 90.0])
    p = arm(static_friction=Q_(0.5, "V"), efficiency=0.9).kernel_parameters({"gearing": gearing}, 2)
    np.testing.assert_allclose(p[:, kl.P_KINETIC], 0.5 / 12 * 2.6 * gearing * 0.9, rtol=1e-12)


def test_overrides_in_other_units_are_converted():
    p = arm().kernel_parameters({"mass": Q_([4000.0, 8000.0], "g")}, 2)
    np.testing.assert_array_equal(p, arm().kernel_parameters({"mass": [4.0, 8.0]}, 2))


# -- errors ------------------------------------------------------------------------------------------------------
def test_a_value_the_constructor_refuses_is_refused_naming_the_parameter_variant_and_value():
    with pytest.raises(ConfigError):
        arm(mass=-2.0)
    with pytest.raises(ConfigError, match=r"params\['arm.mass'\]\[1\]=-2.0.*positive.*variant 1"):
        arm().kernel_parameters({"mass": [1.0, -2.0]}, 2)
    with pytest.raises(ConfigError, match=r"params\['flywheel.static_friction'\]\[0\]=.*variant 0"):
        flywheel().kernel_parameters({"static_friction": [math.nan, 1.0]}, 2)
    with pytest.raises(ConfigError, match=r"params\['elevator.gearing'\]\[2\]=0.0"):
        elevator().kernel_parameters({"gearing": [1.0, 2.0, 0.0]}, 3)
    with pytest.raises(ConfigError, match=r"params\['arm.mass'\]"):
        arm().kernel_parameters({"mass": Q_([1.0, 2.0], "m")}, 2)


def test_a_derived_value_the_constructor_refuses_is_refused_for_its_variant():
    # a rod inertia that overflows
    with pytest.raises(ConfigError, match="rod inertia"):
        arm(mass=1e300, com_distance=1e10)
    with pytest.raises(ConfigError, match=r"params\['arm.mass'\]\[1\]=1e\+300.*rod inertia.*variant 1") as info:
        arm().kernel_parameters({"mass": [1.0, 1e300], "com_distance": [0.2, 1e10]}, 2)
    assert info.value.parameter == "params['arm.mass'][1]"
    # a reflected rotor inertia that overflows
    with pytest.raises(ConfigError, match="reflected rotor inertia is finite"):
        flywheel(gearing=1e200, rotor_inertia=1e-4)
    with pytest.raises(ConfigError, match=r"params\['flywheel.gearing'\]\[0\]=1e\+200.*reflected rotor inertia.*"
                                          r"variant 0"):
        flywheel(rotor_inertia=1e-4).kernel_parameters({"gearing": [1e200, 3.0]}, 2)


def test_a_parameter_the_mechanism_does_not_batch_is_named():
    with pytest.raises(ConfigError, match=r"params\['arm.mas'\].*batch parameter of Arm 'arm': mass, com_distance"):
        arm().kernel_parameters({"mas": [1.0]}, 1)
    with pytest.raises(ConfigError, match=r"params\['arm.mass'\].*3 values"):
        arm().kernel_parameters({"mass": [1.0, 2.0]}, 3)
    hub = models.HubMotor(REV_HD_HEX_20, name="hub")
    with pytest.raises(ConfigError, match=r"params\['hub.gearing'\].*HubMotor 'hub' batches with its controllers'"):
        hub.kernel_parameters({"gearing": [1.0]}, 1)
    np.testing.assert_array_equal(hub.kernel_parameters()[0], hub.kernel_form()[1])
