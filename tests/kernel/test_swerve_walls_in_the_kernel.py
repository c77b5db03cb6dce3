"""A swerve drive in a field's walls in the compiled kernel: its runs are the Python path's to the bit, and its
impacts obey the walls' mechanics checked independently (as tests/kernel/test_mecanum_walls_in_the_kernel.py's for
the mecanum: the swerve's walls are the same chassis core's, each module's traction direction its steer angle).

The modules hold the steer angles they start at (steer voltage 0, the steer motors braking), the drive motors at
fixed voltages, so each run drives along a known direction: straight into the field's +x wall, at an angle (one
corner, then the side), diagonally along it (sliding), back off it (leaving), and nose first into a corner.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from both_paths import assert_same_runs, compiled_only, run_on_path
from wall_checks import check_impact, corner_gaps, corners
from simcore import PeriodicController
from simcore.field import FRC_FIELD
from simcore.kernel import swerve_layout
from simcore.models.battery import Battery
from simcore.models.motors import FALCON_500, KRAKEN_X60
from simcore.models.swerve import SwerveDrive

POS = [(0.29, 0.29), (0.29, -0.29), (-0.29, 0.29), (-0.29, -0.29)]
BUMPER = (0.8, 0.8)
HALF = BUMPER[0] / 2.0
CORNERS = corners(HALF, HALF)
L, W = FRC_FIELD  # (the field spans x in [0, L], y in [0, W]: simcore.field.field_bounds)

#: name -> (start pose, start steer angle, [(from s, drive voltage)], seconds)
SCENARIOS = {
    "head_on": ((L - HALF - 0.3, 4.0, 0.0), 0.0, [(0.0, 8.0)], 0.8),
    "at_an_angle": ((L - HALF - 0.45, 4.0, 0.3), -0.3, [(0.0, 8.0)], 1.2),
    "sliding": ((L - HALF - 0.2, 3.0, 0.0), 0.7, [(0.0, 8.0)], 1.0),
    "leaving": ((L - HALF - 0.2, 4.0, 0.0), 0.0, [(0.0, 8.0), (0.5, -8.0)], 1.0),
    "nose_into_corner": ((L - HALF - 0.35, W - HALF - 0.35, math.pi / 4), 0.0, [(0.0, 6.0)], 1.0),
}


def _make(start, steer, legs):
    def make():
        drive = SwerveDrive(KRAKEN_X60, FALCON_500, module_positions=POS, drive_gearing=6.75, steer_gearing=150 / 7,
                            wheel_radius=0.0508, mass=55.0, moi=6.0, bumper=BUMPER, field=FRC_FIELD,
                            start_pose=start, start_steer_angles=(steer,) * 4, track_energy=True, name="drive")

        def loop(t, s):
            v = [v for t0, v in legs if t >= t0 - 1e-12][-1]
            out = {f"drive.drive_voltage_{i}": v for i in range(4)}
            out["drive.steer_brake"] = 1.0
            return out

        return [drive, Battery()], [PeriodicController(0.02, loop, name="loop")]
    return make


def _gaps(res):
    """Each bumper corner's gap to each wall, row ``4 corner + wall`` (x_min, x_max, y_min, y_max), m."""
    return corner_gaps(res, "drive", CORNERS, (0.0, 0.0, L, W))


@pytest.fixture(scope="module", params=sorted(SCENARIOS))
def runs(request):
    start, steer, legs, t_end = SCENARIOS[request.param]
    make = _make(start, steer, legs)
    return request.param, run_on_path(True, make, t_end), run_on_path(False, make, t_end)


def test_a_swerve_in_the_walls_in_the_kernel_is_the_python_path_to_the_bit(runs):
    name, kernel, python = runs
    assert_same_runs(kernel, python)
    assert "wall" in {e.name for e in kernel.events}, name


def test_no_corner_passes_a_wall(runs):
    _, res, _ = runs
    assert _gaps(res).min() > -1e-6


def test_an_impact_keeps_the_momentum_along_the_wall_and_stops_the_corners_going_in(runs):
    name, res, _ = runs
    impacts = [e for e in res.events if e.name == "wall"]
    assert impacts, name
    for e in impacts:
        check_impact(e, CORNERS, swerve_layout.I_ENERGY + 5)  # (impact_loss, the sixth energy state)


def test_the_scenarios_do_what_they_say(runs):
    name, res, _ = runs
    walls = [e.mode_after[1] for e in res.events if e.name == "wall"]
    gaps = _gaps(res)
    if name == "head_on":
        assert walls[0] == ((1, 0), (1, 1))
    elif name == "at_an_angle":
        assert walls[0] == ((1, 1),) and ((1, 0), (1, 1)) in walls
    elif name == "sliding":
        on = res["drive.wall_force"] > 0.0
        assert on[-1] and np.abs(gaps[1][-1]) < 1e-6 and np.abs(gaps[5][-1]) < 1e-6
        assert res["drive.y"][-1] - res["drive.y"][on][0] > 0.2  # along the wall, +y
    elif name == "leaving":
        assert res["drive.wall_force"][-1] == 0.0 and res.events[-1].mode_after[1] == () or \
            "leave_wall" in {e.name for e in res.events}
        assert res["drive.x"][-1] < res["drive.x"][res.t <= 0.5][-1] - 0.05
    elif name == "nose_into_corner":
        assert ((1, 1), (3, 0)) in walls


@compiled_only
def test_swerves_in_the_walls_batch_to_their_serial_runs():
    from simcore import simulate, simulate_batch
    from simcore.batch import elementwise

    rng = np.random.default_rng(11)
    n = 6
    values = {"mass": rng.uniform(45.0, 65.0, n), "moi": rng.uniform(4.0, 8.0, n),
              "friction_coefficient": rng.uniform(0.8, 1.3, n)}
    start, steer, legs, t_end = SCENARIOS["sliding"]

    def loop(t, s):
        zero = 0.0 * s["drive.x"]
        out = {f"drive.drive_voltage_{i}": 8.0 + zero for i in range(4)}
        out["drive.steer_brake"] = 1.0 + zero
        return out

    def drive(**kw):
        return SwerveDrive(KRAKEN_X60, FALCON_500, module_positions=POS, drive_gearing=6.75, steer_gearing=150 / 7,
                           wheel_radius=0.0508, bumper=BUMPER, field=FRC_FIELD, start_pose=start,
                           start_steer_angles=(steer,) * 4, name="drive", **{"mass": 55.0, "moi": 6.0, **kw})

    batch = simulate_batch([drive(), Battery()], t_end, [elementwise(PeriodicController(0.02, loop))],
                           params={f"drive.{k}": v for k, v in values.items()})
    for j in range(n):
        serial = simulate([drive(**{k: float(v[j]) for k, v in values.items()}), Battery()], t_end,
                          [PeriodicController(0.02, loop)], method="RK45")
        assert "wall" in {e.name for e in serial.events}
        assert np.array_equal(batch[j].t, serial.t)
        for name in serial.names:
            assert np.array_equal(batch[j][name], serial[name], equal_nan=True), name
        assert [(e.t, e.name, e.mode_before, e.mode_after) for e in batch[j].events] == \
            [(e.t, e.name, e.mode_before, e.mode_after) for e in serial.events]
