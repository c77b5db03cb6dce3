"""The cost of one 20 ms ``update_sim`` of simcore.robotpy's Physics, for an arm robot and a swerve robot.

A robot program's loop runs every 20 ms; ``update_sim`` must cost well under
that for ``robotpy sim`` to keep real time (goals: under 1 ms for an arm, under
10 ms for a swerve drive on this machine).

* **Arm**: the example arm robot's physics (``examples/arm_robot/physics.py``): a
  NEO arm on a Battery, a PWM motor, an encoder, a limit switch and the bus bound;
  the motor held at 40 % (the arm lifting, then on its upper stop).
* **Swerve**: four modules (Kraken X60 drive, NEO steer, friction 1.2) on a
  Battery, eight PWM motors, four drive encoders, a gyro and the Field2d; drive
  motors at 50 %, steer motors in brake at 0 (driving on), or with ``--turning`` at
  10 % (every module spinning while it drives: the tyre forces turn all the time).

Each update reads the motors, advances 20 ms and writes the sensors, as under
``robotpy sim``. Times are the median over 250 updates after 10 warm-up updates;
the script prints each case's median and 90th percentile.

Run: ``python bench/robotpy.py [--turning]`` (needs the robotpy extra: ``pip install -e ".[robotpy]"``).
"""
from __future__ import annotations

import statistics
import time

import wpilib
import wpilib.simulation as wsim

import simcore.models as models
from simcore.models.motors import KRAKEN_X60, NEO
from simcore.robotpy import Physics

N_WARMUP, N_UPDATES = 10, 250
#: Steer motors' duty in the swerve case; the command line's --turning sets 0.1 (modules spinning).
STEER_DUTY = 0.0


def _enable():
    wsim.DriverStationSim.setDsAttached(True)
    wsim.DriverStationSim.setEnabled(True)
    wsim.DriverStationSim.notifyNewData()


def arm_physics():
    arm = models.Arm(NEO, 75, mass=3.0, com_distance=0.35, min_angle=-1.2, max_angle=2.0, start_angle=-1.2,
                     command="duty")
    physics = Physics(None, [arm, models.Battery()])
    motor = wpilib.PWMSparkMax(0)
    encoder = wpilib.Encoder(0, 1)
    encoder.setDistancePerPulse(2 * 3.141592653589793 / 4096)
    physics.motor(motor, "arm.duty")
    physics.encoder(encoder, "arm.angle")
    physics.limit_switch(wpilib.DigitalInput(2), "arm", "lower")
    physics.battery()
    motor.set(0.4)
    return physics, (motor, encoder)


def swerve_physics():
    modules = [(0.3, 0.3), (0.3, -0.3), (-0.3, 0.3), (-0.3, -0.3)]
    swerve = models.SwerveDrive(KRAKEN_X60, NEO, module_positions=modules, drive_gearing=6.75, steer_gearing=12.8,
                                wheel_radius=0.0508, mass=55.0, moi=6.0, command="duty",
                                steer_command="duty")
    physics = Physics(None, [swerve, models.Battery()])
    keep = []
    for i in range(4):
        drive, steer = wpilib.PWMSparkMax(1 + 2 * i), wpilib.PWMSparkMax(2 + 2 * i)
        physics.motor(drive, f"swerve.drive_duty_{i}")
        physics.motor(steer, f"swerve.steer_duty_{i}")
        encoder = wpilib.Encoder(12 + 2 * i, 13 + 2 * i)
        encoder.setDistancePerPulse(1e-4)
        physics.encoder(encoder, f"swerve.wheel_distance_{i}", rate=f"swerve.wheel_speed_{i}")
        drive.set(0.5)
        steer.set(STEER_DUTY)
        keep += [drive, steer, encoder]
    gyro = wpilib.AnalogGyro(0)
    physics.gyro(gyro, "swerve.heading")
    physics.battery()
    physics.field("swerve", wpilib.Field2d())
    return physics, keep + [gyro]


def time_updates(physics) -> list:
    for _ in range(N_WARMUP):
        physics.update_sim(0.0, 0.02)
    times = []
    for _ in range(N_UPDATES):
        t0 = time.perf_counter()
        physics.update_sim(0.0, 0.02)
        times.append(time.perf_counter() - t0)
    return times


def main():
    global STEER_DUTY
    import sys

    if "--turning" in sys.argv[1:]:
        STEER_DUTY = 0.1
    _enable()
    for name, make, goal in (("arm", arm_physics, 1e-3), ("swerve", swerve_physics, 10e-3)):
        physics, _devices = make()
        times = time_updates(physics)
        med = statistics.median(times)
        p90 = sorted(times)[int(0.9 * len(times))]
        rows = len(physics.result().t)
        print(f"{name:7s} update_sim(20 ms): median {med * 1e3:.3f} ms, 90th percentile {p90 * 1e3:.3f} ms, "
              f"goal {goal * 1e3:.0f} ms: {'met' if med < goal else 'MISSED'} ({rows} rows recorded)")


if __name__ == "__main__":
    main()
