"""The arm robot under `python -m robotpy test`, with simcore as its physics."""
import math

import wpilib

import robot as arm_robot
from simcore.robotpy import Physics


def test_arm_rests_on_its_stop_then_reaches_the_setpoint_under_its_own_pid(control, robot):
    with control.run_robot():
        control.step_timing(seconds=0.4, autonomous=True, enabled=False)
        physics = Physics.current()
        assert physics.signals["arm.angle"] == arm_robot.LOWER_STOP  # gravity holds it on the stop
        assert robot.lower_limit.get() is False  # the normally-open switch to ground is closed
        assert robot.angle() == arm_robot.LOWER_STOP

        control.step_timing(seconds=3.0, autonomous=True, enabled=True)
        r = physics.result()
        last = r.t >= r.t[-1] - 1.0
        print("angle over the last second", r["arm.angle"][last].min(), r["arm.angle"][last].max())
        assert abs(r["arm.angle"][last] - arm_robot.SETPOINT).max() < 0.01  # settled within 0.01 rad
        angle = physics.signals["arm.angle"]
        assert abs(robot.angle() - angle) <= 2 * math.pi / arm_robot.COUNTS_PER_REV  # one count
        assert robot.lower_limit.get() is True

        # The robot read the battery the simulation solved: sagging while the arm lifted.
        bus = r["battery.voltage"]
        assert robot.lowest_battery_voltage < 11.9
        assert robot.lowest_battery_voltage >= bus.min()
        assert wpilib.RobotController.getBatteryVoltage() == physics.signals["battery.voltage"]
