"""The Java robot's physics file is a standalone copy of the Python drivetrain robot's (both robots wire the
same devices; a team copies the Java one beside its project): the two must not drift apart."""
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _from_class(path: Path) -> str:
    text = path.read_text()
    return text[text.index("class PhysicsEngine"):]


def test_the_java_robots_physics_is_the_python_robots():
    java = EXAMPLES / "java_robot" / "physics.py"
    python = EXAMPLES / "drivetrain_robot" / "physics.py"
    assert _from_class(java) == _from_class(python)
    for constant in ("WHEEL_RADIUS = 0.0762", "COUNTS_PER_REV = 2048"):
        assert constant in java.read_text() and constant in python.read_text()
