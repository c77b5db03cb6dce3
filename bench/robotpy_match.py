"""A 150 s match of the example drivetrain robot under ``python -m robotpy test``: what it costs.

The example robot (``examples/drivetrain_robot``: a tank drive on a battery, two PWM motors, two encoders, a gyro,
the Field2d and the NetworkTables truth) is copied into a temporary folder with one extra test: a match of 15 s of
autonomous (its own ``autonomousPeriodic``) and 135 s of teleop, driving an arc at 60 % (a ``teleopPeriodic``
the test gives the robot). The test measures the CPU and wall time of the match's steps alone (not robotpy's
start-up) and writes them to a file this script reads.

Two runs, one after the other, each a fresh ``python -m robotpy test`` process:

* **simcore**: the example's own ``physics.py``;
* **no physics**: the same robot and match without ``physics.py`` (robotpy's own cost of 7,500 loops of a robot
  program in simulated time, what any physics adds to).

Printed: each run's CPU and wall seconds for the match, the CPU per simulated second, and simcore's share (the
difference). Run: ``python bench/robotpy_match.py`` (needs the robotpy extra: ``pip install -e ".[robotpy]"``).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "drivetrain_robot"
AUTONOMOUS, TELEOP = 15.0, 135.0

MATCH_TEST = '''
"""One match, timed (written by bench/robotpy_match.py)."""
import json
import os
import time


def test_a_match(control, robot):
    robot.teleopPeriodic = lambda: robot.drive.arcadeDrive(0.6, 0.3, squareInputs=False)
    with control.run_robot():
        control.step_timing(seconds=0.2, autonomous=True, enabled=False)
        cpu, wall = time.process_time(), time.perf_counter()
        control.step_timing(seconds={auto!r}, autonomous=True, enabled=True)
        control.step_timing(seconds={teleop!r}, autonomous=False, enabled=True)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        assert robot.isTeleopEnabled() and robot.left.get() != 0.0  # the match ran, driving
    with open(os.environ["SIMCORE_MATCH_TIMES"], "w") as f:
        json.dump({{"cpu": cpu, "wall": wall}}, f)
'''


def run(with_physics: bool) -> dict:
    """One ``python -m robotpy test`` of the match; its times, s."""
    with tempfile.TemporaryDirectory() as folder:
        robot = Path(folder) / "robot"
        shutil.copytree(EXAMPLE, robot, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
        for old in (robot / "tests").glob("test_*.py"):
            old.unlink()
        (robot / "tests" / "test_match.py").write_text(MATCH_TEST.format(auto=AUTONOMOUS, teleop=TELEOP))
        if not with_physics:
            (robot / "physics.py").unlink()
        times = Path(folder) / "times.json"
        env = dict(os.environ, SIMCORE_MATCH_TIMES=str(times))
        done = subprocess.run([sys.executable, "-m", "robotpy", "test", "--", "-q", "-p", "no:cacheprovider"],
                              cwd=robot, env=env, capture_output=True, text=True)
        if done.returncode != 0 or not times.exists():
            raise SystemExit(f"robotpy test failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return json.loads(times.read_text())


def main() -> None:
    simulated = AUTONOMOUS + TELEOP
    physics, bare = run(True), run(False)
    for name, t in (("simcore", physics), ("no physics", bare)):
        print(f"{name:10s}: match of {simulated:.0f} s in {t['cpu']:.2f} s CPU, {t['wall']:.2f} s wall "
              f"({t['cpu'] / simulated * 1e3:.2f} ms CPU per simulated s, {t['cpu'] / simulated * 20:.3f} ms per 20 ms loop)")
    extra = physics["cpu"] - bare["cpu"]
    print(f"simcore's share: {extra:.2f} s CPU ({extra / simulated * 20:.3f} ms per 20 ms loop)")


if __name__ == "__main__":
    main()
