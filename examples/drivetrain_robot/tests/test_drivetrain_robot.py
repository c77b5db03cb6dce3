"""The drivetrain robot under `python -m robotpy test`, with simcore as its physics."""
import math

import robot as drivetrain_robot
from simcore.robotpy import Physics

COUNT = 2 * math.pi * drivetrain_robot.WHEEL_RADIUS / drivetrain_robot.COUNTS_PER_REV  # m per count


def test_encoders_gyro_and_odometry_agree_with_the_simulated_pose(control, robot):
    with control.run_robot():
        control.step_timing(seconds=0.2, autonomous=True, enabled=False)
        control.step_timing(seconds=2.6, autonomous=True, enabled=True)
        physics = Physics.current()
        s = physics.signals
        assert s["drive.x"] > 1.0 and s["drive.heading"] > 0.3  # it drove an arc, turning left
        assert abs(s["drive.velocity"]) < 0.05  # and stopped

        # the sensors hold the state at the simulation's present: whole counts, degrees clockwise
        assert abs(robot.left_encoder.getDistance() - s["drive.left_position"]) <= COUNT
        assert abs(robot.right_encoder.getDistance() - s["drive.right_position"]) <= COUNT
        assert robot.gyro.getAngle() == -math.degrees(s["drive.heading"])
        pose = physics.field2d.getRobotPose()
        assert (pose.X(), pose.Y()) == (s["drive.x"], s["drive.y"])
        # Field2d keeps the rotation in degrees: the radians come back through that conversion, to an ulp or two
        heading = math.remainder(s["drive.heading"], 2 * math.pi)
        assert abs(pose.rotation().radians() - heading) <= 4 * math.ulp(heading)

        # the odometry, last updated from the sensors of one loop (20 ms) earlier, follows the true pose
        r = physics.result()
        t_prev = physics.t - 0.02
        odo = robot.odometry.getPose()
        assert math.hypot(odo.X() - r.sample("drive.x", [t_prev])[0], odo.Y() - r.sample("drive.y", [t_prev])[0]) < 0.005
        assert abs(odo.rotation().radians() - r.sample("drive.heading", [t_prev])[0]) < 0.002
