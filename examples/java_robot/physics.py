"""The Java drivetrain robot's physics: its devices are those of examples/drivetrain_robot, whose physics.py serves.

Run: `python -m simcore.halsim physics.py --host localhost --port 3300` while `./gradlew simulateJava` runs.
"""
import pathlib
import runpy

# One physics description for the Python and the Java robot: the PhysicsEngine of the Python example.
PhysicsEngine = runpy.run_path(str(pathlib.Path(__file__).resolve().parents[1] / "drivetrain_robot" / "physics.py"))[
    "PhysicsEngine"]
