"""The README's FTC blocks run as a reader pastes them, in order, and do what their text says: the op mode with
its direction lines drives the mecanum straight ahead; the gyro sample comes back to about where it started."""
import math
import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_ftc_blocks_run_as_written():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    forward = next(b for b in blocks if "class DriveForward" in b)
    gyro = next(b for b in blocks if "RobotAutoDriveByGyro_Linear" in b)
    names: dict = {}
    exec(forward, names)  # noqa: S102 - the README's own code
    result, drive = names["result"], names["drive"]
    # 1000 counts of a 5203 312 (28 counts per motor turn, 19.2:1) on 48 mm wheels: the wheels' travel when the
    # loop ends (then the op mode returns, the fail-safe opens the bridges and the robot coasts on, straight)
    travel = 1000 / (28 * drive.gearing) * 2 * math.pi * 0.048
    assert result.final("mecanum.x") > 0.97 * travel
    assert abs(result.final("mecanum.heading")) < 1e-9 and abs(result.final("mecanum.y")) < 1e-9
    exec(gyro, names)  # noqa: S102
    result = names["result"]
    assert math.hypot(result.final("drive.x"), result.final("drive.y")) < 1.0 * 0.0254
    assert abs(result.final("drive.heading")) < math.radians(2)
