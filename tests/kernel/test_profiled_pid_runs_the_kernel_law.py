"""ProfiledPIDController runs simcore.kernel.profiled_pid's law: on random call sequences (goals, resets, new
limits, continuous input) its outputs, setpoints and goals equal, to the bit, its documented steps composed from
the public parts (input_modulus, TrapezoidProfile.calculate over one period, PIDController.calculate at the
setpoint position); the kernel function reads the three vectors at offsets. CI runs this file with
NUMBA_DISABLE_JIT=1 too.
"""
from __future__ import annotations

import math
import random
import struct

import numpy as np

from simcore.controllers import PIDController, ProfiledPIDController, State, TrapezoidProfile, input_modulus


def bits(x) -> bytes:
    return struct.pack("<d", float(x))


class Composed:
    """The documented steps of WPILib's ProfiledPIDController, each done by the public part that owns it."""

    def __init__(self, kp, ki, kd, vmax, amax, period, kick):
        self.pid = PIDController(kp, ki, kd, period=period, derivative_kick=kick)
        self.profile = TrapezoidProfile(vmax, amax)
        self.period, self.goal, self.setpoint, self.range = period, State(), State(), None

    def calculate(self, measurement, goal=None):
        if goal is not None:
            self.goal = State(goal, 0.0) if isinstance(goal, float) else State(*goal)
        if self.range is not None:  # 1. the copies of goal and setpoint nearest the measurement
            half = (self.range[1] - self.range[0]) / 2.0
            self.goal = State(measurement + input_modulus(self.goal.position - measurement, -half, half),
                              self.goal.velocity)
            self.setpoint = State(measurement + input_modulus(self.setpoint.position - measurement, -half, half),
                                  self.setpoint.velocity)
        self.setpoint = self.profile.calculate(self.period, self.setpoint, self.goal)  # 2. one period along
        return self.pid.calculate(measurement, self.setpoint.position)  # 3. PID on the setpoint position

    def reset(self, x, v):
        self.pid.reset()
        self.setpoint = State(x, v)


def test_random_call_sequences_equal_the_documented_steps_composed_to_the_bit():
    rng = random.Random(11)
    for _ in range(60):
        kp, ki, kd = rng.uniform(0, 5), rng.choice([0.0, rng.uniform(0, 3)]), rng.choice([0.0, rng.uniform(0, 0.3)])
        vmax, amax, period = rng.uniform(0.2, 4), rng.uniform(0.2, 8), rng.choice([0.02, 0.005, 0.01])
        kick = rng.random() < 0.3
        controller = ProfiledPIDController(kp, ki, kd, vmax, amax, period=period, derivative_kick=kick)
        reference = Composed(kp, ki, kd, vmax, amax, period, kick)
        if rng.random() < 0.4:
            reference.range = rng.choice([(-math.pi, math.pi), (0.0, 360.0), (-1.0, 3.0)])
            controller.enable_continuous_input(*reference.range)
            reference.pid.enable_continuous_input(*reference.range)
        for _ in range(100):
            action = rng.random()
            if action < 0.6:
                m = rng.uniform(-5, 5)
                assert bits(controller.calculate(m)) == bits(reference.calculate(m))
            elif action < 0.8:
                m = rng.uniform(-5, 5)
                goal = rng.choice([rng.uniform(-5, 5), (rng.uniform(-5, 5), rng.uniform(-5, 5))])
                assert bits(controller.calculate(m, goal)) == bits(reference.calculate(m, goal))
            elif action < 0.9:
                x, v = rng.uniform(-5, 5), rng.uniform(-5, 5)
                controller.reset(x, v)
                reference.reset(x, v)
            else:
                vmax, amax = rng.uniform(0.2, 4), rng.uniform(0.2, 8)
                controller.set_constraints(vmax, amax)
                reference.profile = TrapezoidProfile(vmax, amax)
            for ours, theirs in ((controller.setpoint, reference.setpoint), (controller.goal, reference.goal)):
                assert (bits(ours.position), bits(ours.velocity)) == (bits(theirs.position), bits(theirs.velocity))
            assert bits(controller.position_error) == bits(reference.pid.error)
            assert bits(controller.velocity_error) == bits(reference.pid.error_derivative)


def test_the_kernel_reads_the_three_vectors_at_offsets():
    from simcore.kernel import pid, profile, profiled_pid as k

    controller = ProfiledPIDController(2.0, 0.5, 0.1, 1.0, 2.0)
    twin = ProfiledPIDController(2.0, 0.5, 0.1, 1.0, 2.0)
    for c in (controller, twin):
        c.enable_continuous_input(-math.pi, math.pi)
        c.reset(3.0, 0.0)
        c.set_goal(-3.0)  # the short way round is up through pi
    pid_p, pid_s = (np.concatenate([np.full(2, np.nan), v]) for v in controller.pid.kernel_vectors())
    p = np.concatenate([np.full(3, np.nan), controller._profile.kernel_vectors()[0]])
    s = np.concatenate([np.full(1, np.nan), controller._s, np.full(2, np.nan)])
    for m in (3.0, 3.1, -3.1):
        out = k.calculate(pid_p, 2, pid_s, 2, p, 3, s, 1, m)
        assert bits(out) == bits(twin.calculate(m))
        assert s[1 + k.Y_SETPOINT_POSITION] == twin.setpoint.position
    assert twin.setpoint.velocity > 0.0  # it goes up, through pi, not down through 0 (6 rad the long way)
    assert np.isnan(s[0]) and np.isnan(s[-2:]).all() and np.isnan(pid_p[:2]).all() and np.isnan(p[:3]).all()
    assert k.N_PROFILED_STATE == profile.N_PROFILE_STATE + 4 and pid.N_PID_STATE == pid_s.size - 2
