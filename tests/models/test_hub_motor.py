"""HubMotor (simcore.models.hub_motor): a non-finite external torque is reported with the simulation time
at which it happened, wherever the engine met it (the right-hand side, an event guard, the start)."""
import math

import pytest

import simcore
from simcore.errors import NonFiniteError
from simcore.models import HubMotor
from simcore.models.ftc_motor_types import GOBILDA_5203_312


# -- a non-finite external torque is reported with the simulation time ------------------------------------
def test_non_finite_external_torque_at_the_start_reports_time_zero():
    with pytest.raises(NonFiniteError) as e:
        simcore.simulate([HubMotor(GOBILDA_5203_312, external_torque=lambda a: float("nan"), name="z")], 0.1)
    assert e.value.t == 0.0 and math.isfinite(e.value.t)
    assert "external_torque" in str(e.value) and "'z'" in str(e.value) and "t=0.0 s" in str(e.value)


def test_non_finite_external_torque_while_moving_reports_when_it_happened():
    mech = HubMotor(GOBILDA_5203_312, external_torque=lambda a: 0.5 if a < 0.3 else math.inf, name="z")
    with pytest.raises(NonFiniteError) as e:
        simcore.simulate([mech], 3.0)
    assert 0.0 < e.value.t < 3.0 and "external_torque" in str(e.value) and "inf" in str(e.value)


def test_non_finite_external_torque_found_by_an_event_guard_reports_its_time():
    # at rest against static friction the load is only evaluated by the breakaway guards (and the mode)
    state = {"bad": False}
    mech = HubMotor(GOBILDA_5203_312, external_torque=lambda a: math.nan if state["bad"] else 0.0,
                    static_friction=0.5, name="z")

    def spoil(t, signals):
        if t >= 0.05:
            state["bad"] = True

    with pytest.raises(NonFiniteError) as e:
        simcore.simulate([mech], 0.1, controllers=[simcore.PeriodicController(0.01, spoil)])
    assert e.value.t == pytest.approx(0.05) and "external_torque" in str(e.value)
