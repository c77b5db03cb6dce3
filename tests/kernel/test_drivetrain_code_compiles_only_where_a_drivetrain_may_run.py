"""A run of the geared family (arms, flywheels, elevators, hub motors, servos, the battery) compiles no drivetrain
code: the part table's integer type says at compile time which kinds it may hold (simcore.kernel.drivetrains)."""
from __future__ import annotations

import numba
import numpy as np
import pytest

import simcore
import simcore.models as models
from simcore.kernel import drivetrains, parts
from simcore.models.motors import NEO


def _arm():
    return models.Arm(NEO, 100, mass=2.0, com_distance=0.3, min_angle=-1.5, max_angle=2.0)


def test_the_table_type_follows_the_kinds_a_run_holds():
    d = drivetrains
    assert d.table_dtype([parts.KIND_GEARED, parts.KIND_BATTERY, parts.KIND_SERVO]) is d.GEARED_FAMILY_TABLE
    assert d.table_dtype([parts.KIND_GEARED, parts.KIND_TANK, parts.KIND_CHARACTERIZED_TANK]) is d.TANK_FAMILY_TABLE
    assert d.table_dtype([parts.KIND_MECANUM, parts.KIND_BATTERY]) is d.MECANUM_FAMILY_TABLE
    assert d.table_dtype([parts.KIND_SWERVE]) is d.SWERVE_FAMILY_TABLE
    assert d.table_dtype([parts.KIND_TANK, parts.KIND_MECANUM]) is d.ANY_KIND_TABLE
    assert len({d.GEARED_FAMILY_TABLE, d.TANK_FAMILY_TABLE, d.MECANUM_FAMILY_TABLE, d.SWERVE_FAMILY_TABLE,
                d.ANY_KIND_TABLE}) == 5
    # (offsets past a small type's range: any kind's type, which holds them)
    assert d.table_of([[parts.KIND_TANK, 0, 9, 0, 40_000]]).dtype == d.ANY_KIND_TABLE
    assert d.table_of([[parts.KIND_TANK, 0, 9, 0, 400]]).dtype == d.TANK_FAMILY_TABLE
    arm = _arm()
    sim = simcore.Simulator(arm, inputs={"arm.voltage": 6.0}, method="RK45")
    assert sim._compiled.table.dtype == np.int32
    tank = models.TankDrive(NEO, 8.0, n_motors_per_side=2, track_width=0.6, wheel_radius=0.05, mass=50.0, moi=5.0)
    sim = simcore.Simulator(tank, inputs={"drive.left_voltage": 6.0, "drive.right_voltage": 6.0}, method="RK45")
    assert sim._compiled.table.dtype == drivetrains.TANK_FAMILY_TABLE


def _stacked(arm):
    kind, p, _ = arm.kernel_form()
    return np.asarray(p, dtype=float), kind


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_a_geared_part_runs_the_same_in_either_table(dtype):
    arm = _arm()
    p, kind = _stacked(arm)
    table = np.array([[kind, 0, 2, 0, 0]], dtype=dtype)
    U = np.array([7.0, 1.0, 12.0])
    X = np.array([0.3, 1.5])
    out = np.empty(2)
    parts.derivatives(table, p, U, np.zeros(1, dtype=np.int64), 0.0, X, out)
    expected = np.asarray(arm.derivatives(0.0, X, U), dtype=float)
    assert out.tolist() == expected.tolist()


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="the compiled dispatch only")
def test_a_drivetrain_in_a_geared_familys_table_gives_nan_not_silence():
    tank = models.TankDrive(NEO, 8.0, n_motors_per_side=2, track_width=0.6, wheel_radius=0.05, mass=50.0, moi=5.0)
    kind, p, _ = tank.kernel_form()
    n = len(tank.initial_state())
    table = np.array([[kind, 0, n, 0, 0]], dtype=np.int32)  # (table_dtype never builds this)
    out = np.full(n, -7.0)
    U = np.asarray(tank.initial_inputs(), dtype=float)
    parts.derivatives(table, np.asarray(p, dtype=float), U, np.zeros(1, dtype=np.int64), 0.0,
                      np.asarray(tank.initial_state(), dtype=float), out)
    assert np.isnan(out).all()


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="inspects compiled code")
def test_the_geared_familys_table_compiles_no_drivetrain_function():
    arm = _arm()
    p, kind = _stacked(arm)
    U, X, out = np.array([7.0, 1.0, 12.0]), np.array([0.3, 1.5]), np.empty(2)
    # A copy of the dispatch compiled here, uncached (numba does not show cached code), its callees as the kernel's.
    dispatch = numba.njit(parts.derivatives.py_func, cache=False, error_model="numpy")
    llvm = {}
    for dtype in (np.int32, np.int64):
        table = np.array([[kind, 0, 2, 0, 0]], dtype=dtype)
        dispatch(table, p, U, np.zeros(1, dtype=np.int64), 0.0, X, out)
        sig = [s for s in dispatch.signatures if s[0].dtype == numba.from_dtype(np.dtype(dtype))][0]
        llvm[dtype] = dispatch.inspect_llvm(sig)
    # numba's mangled names spell each module path: ...6kernel4tank11derivatives...
    assert "6kernel4tank" in llvm[np.int64]
    assert "6kernel4tank" not in llvm[np.int32] and "characterized_tank" not in llvm[np.int32]


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="inspects compiled code")
def test_a_drivetrain_familys_table_compiles_no_other_familys_code():
    tank = models.TankDrive(NEO, 8.0, n_motors_per_side=2, track_width=0.6, wheel_radius=0.05, mass=50.0, moi=5.0)
    kind, p, _ = tank.kernel_form()
    n = len(tank.initial_state())
    P, U = np.asarray(p, dtype=float), np.asarray(tank.initial_inputs(), dtype=float)
    X, out = np.asarray(tank.initial_state(), dtype=float), np.empty(n)
    dispatch = numba.njit(parts.derivatives.py_func, cache=False, error_model="numpy")
    llvm, results = {}, {}
    for dtype in (drivetrains.TANK_FAMILY_TABLE, drivetrains.ANY_KIND_TABLE):
        table = np.array([[kind, 0, n, 0, 0]], dtype=dtype)
        dispatch(table, P, U, np.zeros(1, dtype=np.int64), 0.0, X, out)
        results[dtype] = out.copy()
        sig = [s for s in dispatch.signatures if s[0].dtype == numba.from_dtype(np.dtype(dtype))][0]
        llvm[dtype] = dispatch.inspect_llvm(sig)
    assert results[drivetrains.TANK_FAMILY_TABLE].tolist() == results[drivetrains.ANY_KIND_TABLE].tolist()
    assert "6kernel4tank" in llvm[drivetrains.TANK_FAMILY_TABLE]
    for other in ("7mecanum", "6swerve"):
        assert other in llvm[drivetrains.ANY_KIND_TABLE] and other not in llvm[drivetrains.TANK_FAMILY_TABLE]
