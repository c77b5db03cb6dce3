"""Robot programs with simcore as their physics, each run headless by `python -m robotpy test` in a subprocess.

The project's two example robots (examples/), and robot code in the style of WPILib's public
ArmSimulation example with a physics.py written against simcore.robotpy (tests/robotpy_programs/).
Their own tests (each program's tests/ folder) check what Done-means 1 and 2 of the FRC tool chain ask.
"""
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("pyfrc", reason="the robotpy extra (wpilib, pyfrc) is not installed")

ROOT = pathlib.Path(__file__).resolve().parents[1]
PROGRAMS = [ROOT / "examples" / "arm_robot", ROOT / "examples" / "drivetrain_robot",
            ROOT / "tests" / "robotpy_programs" / "wpilib_style_arm"]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_robotpy_test_passes(program):
    proc = subprocess.run([sys.executable, "-m", "robotpy", "test"], cwd=program, capture_output=True, text=True,
                          timeout=300)
    summary = [line for line in proc.stdout.splitlines() if " passed" in line or " failed" in line]
    assert proc.returncode == 0, f"robotpy test in {program} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-2000:]}"
    assert summary and "failed" not in summary[-1], proc.stdout[-2000:]
