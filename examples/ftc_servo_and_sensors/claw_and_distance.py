"""An FTC robot drives toward the field wall reading its REV 2m distance sensor, then lifts a servo wrist.

A mecanum robot (goBILDA 312 rpm motors) starts 1 m from the +x wall of the 12 ft field (centred on
the origin), drives forward at 0.3 power until its front distance sensor reads 30 cm, stops, and
raises a wrist on a goBILDA Torque servo that carries a 0.3 kg claw 0.12 m from its axis: gravity
makes the wrist lag and droop below its command, the servo drawing current as it holds it.

Run it: ``python claw_and_distance.py`` (prints the readings along the path and the wrist's droop).
"""
import math

import simcore
from simcore.controllers.hub import (DistanceUnit, Hub, LinearOpMode, Rev2mDistanceSensor, Servo, DcMotor,
                                     run_opmode)
from simcore.models import MecanumDrive
from simcore.models.hub_motor import GOBILDA_5203_312
from simcore.models.servo import GOBILDA_TORQUE_SERVO, ServoMechanism

WHEELS = ("front_left", "front_right", "rear_left", "rear_right")
CLAW_MASS, CLAW_ARM, G = 0.3, 0.12, 9.80665  # kg, m, m/s^2


class DriveToWallAndLift(LinearOpMode):
    def runOpMode(self):
        wheels = [self.hardwareMap.get(DcMotor, w) for w in WHEELS]
        front = self.hardwareMap.get(Rev2mDistanceSensor, "front_distance")
        wrist = self.hardwareMap.get(Servo, "wrist")
        for w in wheels:
            w.setZeroPowerBehavior(DcMotor.ZeroPowerBehavior.BRAKE)
        # The left motors are mounted mirrored, as on every FTC chassis kit: reversed to drive forward.
        self.hardwareMap.get(DcMotor, "front_left").setDirection(DcMotor.Direction.REVERSE)
        self.hardwareMap.get(DcMotor, "rear_left").setDirection(DcMotor.Direction.REVERSE)
        wrist.setPosition(0.5)  # level
        self.waitForStart()
        for w in wheels:
            w.setPower(0.3)
        while self.opModeIsActive() and front.getDistance(DistanceUnit.CM) > 30.0:
            self.telemetry.addData("range cm", front.getDistance(DistanceUnit.CM))
            self.telemetry.update()
        for w in wheels:
            w.setPower(0.0)
        wrist.setPosition(0.75)  # up: 1950 us, +67.5 degrees on a goBILDA servo
        self.sleep(1000)
        self.telemetry.addData("range cm", front.getDistance(DistanceUnit.CM))
        self.telemetry.addData("wrist commanded", wrist.getPosition())
        self.telemetry.update()


def build():
    """The robot, its hub configuration and the op mode's controllers."""
    drive = MecanumDrive(GOBILDA_5203_312, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0,
                         moi=0.35, start_pose=(0.8288, 0.0, 0.0))
    # the claw's weight on the wrist: gravity's torque -m g d cos(angle); its inertia m d² (a point at 0.12 m)
    wrist = ServoMechanism(GOBILDA_TORQUE_SERVO, name="wrist", load_mass=CLAW_MASS, load_com_distance=CLAW_ARM, g=G)
    hub = Hub()
    config = {w: hub.motor(port, drive, wheel=w) for port, w in enumerate(WHEELS)}
    config["front_distance"] = hub.i2c(0, Rev2mDistanceSensor(drive, x=0.18))
    config["wrist"] = hub.servo(0, wrist)
    return drive, wrist, run_opmode(DriveToWallAndLift, hubs=[hub], configuration=config, stop_time=6.0)


def main():
    drive, wrist, controllers = build()
    res = simcore.simulate([drive, wrist], 6.0, controllers=controllers, method="RK45")
    frames = res.records["DriveToWallAndLift"].frames
    for frame in frames[::5] + frames[-1:]:
        print(f"t = {frame.t:5.2f} s  range {frame.values['range cm']:6.1f} cm")
    end = frames[-1].t - 1e-4  # just before the op mode ends (then the SDK's fail-safe lets the servo go limp)
    droop = math.radians(67.5) - res.sample("wrist.angle", end)
    print(f"at t = {end:.2f} s: robot front at x = {res.sample('mecanum.x', end) + 0.18:.3f} m (wall at 1.829 m); "
          f"wrist commanded {frames[-1].values['wrist commanded']}, drooping {math.degrees(droop):.2f} deg "
          f"under the claw, drawing {res.sample('wrist.stator_current', end):.2f} A")
    return res


if __name__ == "__main__":
    main()
