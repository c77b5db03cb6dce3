"""The ArmSimulation-style robot under `python -m robotpy test` with a simcore physics.py."""
import math

import wpilib.simulation

import robot as arm_robot
from simcore.robotpy import Physics


def test_holding_the_trigger_raises_the_arm_to_75_degrees_and_releasing_it_lets_it_fall(control, robot):
    joystick = wpilib.simulation.JoystickSim(arm_robot.kJoystickPort)
    with control.run_robot():
        control.step_timing(seconds=0.4, autonomous=False, enabled=True)
        physics = Physics.current()
        assert physics.signals["arm.angle"] == arm_robot.kMinAngleRads  # resting on its stop

        joystick.setTrigger(True)
        joystick.notifyNewData()
        control.step_timing(seconds=3.0, autonomous=False, enabled=True)
        r = physics.result()
        last = r.t >= r.t[-1] - 0.5
        setpoint = math.radians(arm_robot.kDefaultArmSetpointDegrees)
        # a P-only loop against gravity settles a little below its setpoint, within a degree here
        assert abs(r["arm.angle"][last] - setpoint).max() < math.radians(1.0)
        assert abs(robot.arm.encoder.getDistance() - physics.signals["arm.angle"]) <= arm_robot.kArmEncoderDistPerPulse

        joystick.setTrigger(False)
        joystick.notifyNewData()
        control.step_timing(seconds=3.0, autonomous=False, enabled=True)
        assert physics.signals["arm.duty"] == 0.0
        # falling back, slowed by the braking back-EMF of 2 motors through 200:1 (brake mode)
        assert physics.signals["arm.angle"] < setpoint - 1.0 and physics.signals["arm.velocity"] < 0
