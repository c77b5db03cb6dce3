"""The cost of one 20 ms ``update_sim`` of simcore.robotpy's Physics, for an arm robot and a swerve robot.

A robot program's loop runs every 20 ms; ``update_sim`` must cost well under
that for ``robotpy sim`` to keep real time (goals: under 1 ms of CPU for an arm, and under 1 ms for the
swerve robot with its modules turning, issue 25; an earlier goal for the swerve was 10 ms).

* **Arm**: the example arm robot (``examples/arm_robot``): its own ``physics.py``
  (a NEO arm on a Battery, a PWM motor, an encoder, a limit switch and the bus
  bound) under its own ``autonomousPeriodic`` (WPILib PIDController plus
  ArmFeedforward, ``setVoltage`` against the sagging battery), run once per update
  as robotpy does, outside the timed call. Two phases: ``arm-rise`` (the first
  50 updates, from the lower stop to the setpoint) and ``arm-hold`` (250 updates
  after 2 s, holding 1 rad against gravity: the steady case of a robot program).
* **Swerve**: four modules (Kraken X60 drive, NEO steer, friction 1.2) on a
  Battery, eight PWM motors, four drive encoders, a gyro and the Field2d; drive
  motors at 50 %, steer motors in brake at 0 (driving on), or with ``--turning`` at
  10 % (every module spinning while it drives: the tyre forces turn all the time).

Each update reads the motors, advances 20 ms and writes the sensors, as under
``robotpy sim``. The script prints each case's median wall-clock time, its 90th
percentile, and the median CPU time of the thread (``time.thread_time``: what the
update costs when the machine is shared) with the right-hand-side evaluations
and solver steps per update.

Run: ``python bench/robotpy.py [--turning]`` (needs the robotpy extra: ``pip install -e ".[robotpy]"``).
"""
from __future__ import annotations

import os
import statistics
import sys
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


_ARM_ROBOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "examples", "arm_robot")


def arm_physics():
    """The example arm robot's physics.py and its autonomous code (a stand-in object runs robotInit)."""
    sys.path.insert(0, _ARM_ROBOT)
    import physics as arm_physics_py
    import robot as arm_robot

    class Robot:  # the example's own methods, without a TimedRobot's loop
        robotInit = arm_robot.ArmRobot.robotInit
        angle = arm_robot.ArmRobot.angle
        autonomousPeriodic = arm_robot.ArmRobot.autonomousPeriodic

    robot = Robot()
    robot.robotInit()
    physics = arm_physics_py.PhysicsEngine(None, robot)
    return physics, robot.autonomousPeriodic


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
    physics._keep = keep + [gyro]
    return physics, lambda: None


def time_updates(physics, robot_periodic, n_skip, n) -> tuple:
    """Wall and thread CPU times of updates ``n_skip`` to ``n_skip + n`` and their RHS calls and steps."""
    for _ in range(n_skip):
        robot_periodic()
        physics.update_sim(0.0, 0.02)
    stats = physics.result().stats
    nfev0, steps0 = stats["nfev"], stats["n_steps"]
    wall, cpu = [], []
    for _ in range(n):
        robot_periodic()
        t0, c0 = time.perf_counter(), time.thread_time()
        physics.update_sim(0.0, 0.02)
        cpu.append(time.thread_time() - c0)
        wall.append(time.perf_counter() - t0)
    stats = physics.result().stats
    return wall, cpu, (stats["nfev"] - nfev0) / n, (stats["n_steps"] - steps0) / n


def main():
    global STEER_DUTY
    import sys

    if "--turning" in sys.argv[1:]:
        STEER_DUTY = 0.1
    _enable()
    arm, arm_code = arm_physics()
    swerve, no_code = swerve_physics()
    cases = (("arm-rise", arm, arm_code, 0, 50, 1e-3), ("arm-hold", arm, arm_code, 50, N_UPDATES, 1e-3),
             ("swerve", swerve, no_code, N_WARMUP, N_UPDATES, 1e-3))
    for name, physics, code, n_skip, n, goal in cases:
        wall, cpu, nfev, steps = time_updates(physics, code, n_skip, n)
        med, cpu_med = statistics.median(wall), statistics.median(cpu)
        p90 = sorted(wall)[int(0.9 * len(wall))]
        print(f"{name:8s} update_sim(20 ms): median {med * 1e3:.3f} ms (CPU {cpu_med * 1e3:.3f} ms), 90th percentile "
              f"{p90 * 1e3:.3f} ms, {nfev:.0f} RHS calls and {steps:.1f} steps per update, goal {goal * 1e3:.0f} ms: "
              f"{'met' if cpu_med < goal else 'MISSED'} (on CPU time)")
    print(f"arm at the end: {arm.signals['arm.angle']:.4f} rad (setpoint 1), mode {arm.sim.systems[0].mode}")


if __name__ == "__main__":
    main()
