"""What the hub's SDK calls and its firmware model accept: setTargetPosition and the tolerance take a Java
int (as Java does, a float needs a cast), and FirmwareConstants refuses values that are not what its fields
are (a bool, a float bit width, an infinite clamp or loop period)."""
import math

import numpy as np
import pytest

from simcore.controllers.hub import Direction, FirmwareConstants, Hub
from simcore.errors import ConfigError, ConfigTypeError

from test_hub_exact import make, reg

INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1  # Java int


# -- setTargetPosition takes a Java int ---------------------------------------------------------------
def test_target_position_outside_the_java_int_range_is_refused_and_nothing_is_sent():
    hub, m, sig = make()
    m.setTargetPosition(100)
    for bad in (2 ** 40, INT_MAX + 1, INT_MIN - 1, -2 ** 40):
        with pytest.raises(ConfigError) as e:
            m.setTargetPosition(bad)
        msg = str(e.value)
        assert msg.startswith(f"position={bad!r}") and f"[{INT_MIN}, {INT_MAX}]" in msg
        assert reg(hub, "target_position") == 100 and m.getTargetPosition() == 100
    for ok in (INT_MAX, INT_MIN, np.int64(178)):
        m.setTargetPosition(ok)
        assert reg(hub, "target_position") == ok and type(reg(hub, "target_position")) is int


def test_target_position_under_reverse_refuses_int_min_whose_java_negation_overflows():
    hub, m, sig = make()  # NeveRest 20 is a CW type: REVERSE is the operational direction
    m.setDirection(Direction.REVERSE)
    m.setTargetPosition(INT_MIN + 1)
    assert reg(hub, "target_position") == INT_MAX and m.getTargetPosition() == INT_MIN + 1
    m.setTargetPosition(INT_MAX)
    assert reg(hub, "target_position") == -INT_MAX
    with pytest.raises(ConfigError) as e:
        m.setTargetPosition(INT_MIN)  # Java: -Integer.MIN_VALUE == Integer.MIN_VALUE
    assert str(e.value).startswith(f"position={INT_MIN}") and f"[{INT_MIN + 1}, {INT_MAX}]" in str(e.value)
    assert "REVERSE" in str(e.value)
    assert reg(hub, "target_position") == -INT_MAX  # nothing sent


def test_target_position_must_be_an_integer_as_in_java():
    hub, m, sig = make()
    m.setTargetPosition(7)
    # a float is refused (Java needs an explicit (int) cast), integral or not: the existing behaviour, kept
    for bad in (True, False, "178", 178.0, 178.5, math.nan, math.inf, None):
        with pytest.raises(ConfigTypeError, match="position"):
            m.setTargetPosition(bad)
        assert reg(hub, "target_position") == 7
    with pytest.raises(TypeError):  # ConfigTypeError is still a TypeError
        m.setTargetPosition(1.0)


def test_tolerance_is_a_java_int_too_but_its_hub_range_is_still_checked_by_the_next_target():
    hub, m, sig = make()
    with pytest.raises(ConfigError, match="tolerance"):
        m.setTargetPositionTolerance(2 ** 40)
    with pytest.raises(ConfigTypeError, match="tolerance"):
        m.setTargetPositionTolerance(True)
    assert m.getTargetPositionTolerance() == 5


# -- FirmwareConstants validation ------------------------------------------------------------------------
def test_velocity_report_bits_must_be_an_int():
    for bad in (16.0, True, "16", None):
        with pytest.raises(ConfigTypeError, match="velocity_report_bits"):
            FirmwareConstants(velocity_report_bits=bad)
    with pytest.raises(ConfigError, match="velocity_report_bits"):
        FirmwareConstants(velocity_report_bits=8)
    fw = FirmwareConstants(velocity_report_bits=np.int64(16))
    assert type(fw.velocity_report_bits) is int and fw.velocity_report_bits == 16


@pytest.mark.parametrize("name", ["i_clamp", "position_i_clamp"])
def test_integral_clamps_refuse_bools_and_non_finite_values(name):
    for bad in (True, False, "1000"):
        with pytest.raises(ConfigTypeError, match=name):
            FirmwareConstants(**{name: bad})
    for bad in (math.inf, math.nan, -1.0):
        with pytest.raises(ConfigError, match=name):
            FirmwareConstants(**{name: bad})
    assert getattr(FirmwareConstants(**{name: 0}), name) == 0  # no integral action: allowed


def test_loop_period_must_be_positive_and_finite_and_is_named_as_such():
    for bad in (math.inf, math.nan, -0.01, 0.0):
        with pytest.raises(ConfigError, match="loop_period"):
            FirmwareConstants(loop_period=bad)
        with pytest.raises(ConfigError, match="loop_period"):
            Hub(loop_period=bad)
    with pytest.raises(ConfigTypeError, match="loop_period"):
        FirmwareConstants(loop_period=True)
    assert FirmwareConstants(loop_period=np.float64(0.02)).loop_period == 0.02
