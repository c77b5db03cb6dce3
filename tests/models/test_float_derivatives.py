"""The float form of a system's derivatives (``derivatives_of_floats``), which the engine calls on small
systems: the same trajectories to the bit as the array form, overrides of ``derivatives`` honoured, the
same checks of what it returns."""
import math

import numpy as np
import pytest

import simcore
import simcore.models as models
from simcore import NonFiniteError, PeriodicController, simulate
from simcore.dopri5 import DormandPrince
from simcore.models.hub_motor import GOBILDA_5203_312, HubMotor
from simcore.models.motors import NEO
from simcore.system import derivatives_on_floats, float_derivatives


@pytest.fixture
def array_stages(monkeypatch):
    """The calls of DormandPrince's array evaluation of a stage (none when the float form is used)."""
    calls = []
    original = DormandPrince._stage_on_arrays

    def counted(self, t, y):
        calls.append(t)
        return original(self, t, y)
    monkeypatch.setattr(DormandPrince, "_stage_on_arrays", counted)
    return calls


def _arm(cls=models.Arm, **kw):
    return cls(NEO, 60.0, mass=3.0, com_distance=0.3, min_angle=-0.5, max_angle=1.0, static_friction=0.5,
               efficiency=0.8, **kw)


def _run(arm):
    # Up into the upper stop, down into the lower one, then a push below breakaway: every mode of the arm.
    pc = PeriodicController(0.02, lambda t, s: {"arm.voltage": 12.0 if t < 1 else (-12.0 if t < 2 else 0.5)},
                            name="c")
    return simulate(arm, 3.0, [pc])


class ArrayFormArm(models.Arm):
    """The same arm through the array form: overriding ``derivatives`` turns the float form off."""

    def derivatives(self, t, x, u):
        return super().derivatives(t, x, u)


@pytest.mark.parametrize("kw", [{}, {"track_energy": True}, {"stator_current_limit": 20.0, "neutral_mode": "coast"}])
def test_the_float_and_array_forms_give_the_same_run_to_the_bit(kw, array_stages):
    # The array form computes on numpy scalars, the float form on Python floats: the same IEEE operations.
    fast, slow = _arm(**kw), _arm(ArrayFormArm, **kw)
    assert float_derivatives(fast) is not None and float_derivatives(slow) is None
    a = _run(fast)
    assert not array_stages  # every stage on lists
    b = _run(slow)
    assert len(array_stages) > 100
    assert {e.name for e in a.events} >= {"upper_stop", "lower_stop"}
    assert a.stats["nfev"] == b.stats["nfev"] and a.names == b.names
    np.testing.assert_array_equal(a.t, b.t)
    for name in a.names:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    assert [(e.name, e.t) for e in a.events] == [(e.name, e.t) for e in b.events]


class PushedFlywheel(models.Flywheel):
    """A coasting frictionless flywheel pushed by a constant extra acceleration, written as an
    override of ``derivatives`` only (as a user would add a disturbance)."""

    push = 7.0  # rad/s**2

    def derivatives(self, t, x, u):
        d = super().derivatives(t, x, u)
        d[1] += self.push
        return d


def test_an_override_of_derivatives_alone_is_what_the_engine_integrates():
    # Coast at zero command: no current flows below the bus voltage, so the only torque is the push and
    # v(t) = push * t, angle(t) = push t^2 / 2. Had the engine called the base class's float form, v would stay 0.
    fw = PushedFlywheel(NEO, 2.0, 0.01, viscous_friction=0.0, neutral_mode="coast")
    r = simulate(fw, 2.0)
    assert r.final("flywheel.velocity") == pytest.approx(7.0 * 2.0, rel=1e-9)
    assert r.final("flywheel.angle") == pytest.approx(7.0 * 2.0 ** 2 / 2, rel=1e-9)


class WrongLength(models.Flywheel):
    def derivatives_of_floats(self, t, x, u):
        return [x[1]]


class NotFinite(models.Flywheel):
    def derivatives_of_floats(self, t, x, u):
        return [x[1], math.nan if t > 0.5 else 0.0]


class SingularLoad(models.Arm):
    """A user's load that divides by zero at the start angle (q = 0)."""

    def load_force(self, q):
        return super().load_force(q) + 1.0 / q


def test_an_arithmetic_error_of_the_float_form_is_reported_as_on_arrays():
    # On Python floats 1 / 0 raises ZeroDivisionError, (negative) ** 0.5 is complex; on numpy scalars
    # they are inf and nan: the engine re-evaluates on arrays and reports the signal by name, as before.
    with np.errstate(all="ignore"), pytest.raises(NonFiniteError, match="arm.velocity"):
        simulate(SingularLoad(NEO, 60.0, mass=3.0, com_distance=0.3, min_angle=-0.5, max_angle=1.0), 1.0)
    hub = HubMotor(GOBILDA_5203_312, load_inertia=0.01, external_torque=lambda a: (a - 1e-4) ** 0.5)
    with np.errstate(all="ignore"), pytest.raises(NonFiniteError, match="external_torque"):
        simulate(hub, 1.0)


def test_what_the_float_form_returns_is_checked_as_the_array_form_is():
    with pytest.raises(simcore.ConfigError, match="flywheel"):
        simulate(WrongLength(NEO, 2.0, 0.01), 1.0)
    with pytest.raises(NonFiniteError, match="flywheel.velocity") as info:
        simulate(NotFinite(NEO, 2.0, 0.01), 1.0)
    assert info.value.t > 0.5


class Decay(simcore.System):
    """A user's system with both forms: x' = -k x."""

    name = "decay"
    state_names = ("x",)
    k = 3.0

    def initial_state(self):
        return np.array([1.0])

    def derivatives_of_floats(self, t, x, u):
        return [-self.k * x[0]]

    @derivatives_on_floats
    def derivatives(self, t, x, u):
        return np.array(self.derivatives_of_floats(t, x, u))


def test_a_users_system_can_give_the_float_form(array_stages):
    r = simulate(Decay(), 2.0)
    assert r.final("decay.x") == pytest.approx(math.exp(-6.0), rel=1e-7)
    assert not array_stages
