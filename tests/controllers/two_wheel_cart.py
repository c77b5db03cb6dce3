"""A small hub-drivable drivetrain for the hub's tests: two wheels coupled through one rigid body.

A differential-drive chassis (mass ``m``, yaw inertia ``J``, wheels ``left`` and
``right`` a track width ``b`` apart, radius ``r``), each wheel driven through a
gearbox ``G`` by its own motor on a hub channel, rolling without slip: the rims
move at ``v -/+ omega b/2``, the wheels push the body with ``F = T_out / r``::

    m dv/dt     = F_left + F_right
    J domega/dt = (F_right - F_left) b / 2

Rotor inertia is neglected, so the motors see only the body. Signals follow the
naming the real mecanum and tank drives use for hub channels: inputs
``<wheel>_duty``, ``<wheel>_brake``; outputs ``<wheel>_rotor_position`` (rad),
``<wheel>_rotor_velocity`` (rad/s), ``<wheel>_stator_current``,
``<wheel>_supply_current`` (A), ``supply_voltage`` (V); states ``x, y, heading``
(rad, counter-clockwise), ``v``, ``omega`` and each wheel's travel
``<wheel>_travel`` (m).
"""
import math

import numpy as np

from simcore.models.drive import MotorDrive
from simcore.system import System

WHEELS = ("left", "right")


class TwoWheelCart(System):
    def __init__(self, motor_type, *, mass=10.0, moi=0.5, track_width=0.4, wheel_radius=0.048, name="cart"):
        self.motor_type = motor_type
        self.drive = MotorDrive(motor_type.motor, motor_type.gear_ratio, command="duty")
        self.m, self.J, self.b, self.r = mass, moi, track_width, wheel_radius
        self.G = motor_type.gear_ratio
        states = ["x", "y", "heading", "v", "omega", "left_travel", "right_travel"]
        inputs = [f"{w}_{s}" for w in WHEELS for s in ("duty", "brake")]
        outputs = [f"{w}_{s}" for w in WHEELS for s in ("rotor_position", "rotor_velocity", "stator_current",
                                                         "supply_current")] + ["supply_voltage"]
        super().__init__(name, states, inputs, outputs, {"heading": "rad", "omega": "rad/s"})

    def _rim_speeds(self, x):
        v, w = x[3], x[4]
        return v - w * self.b / 2, v + w * self.b / 2

    def _wheel(self, rim, duty, brake):
        rotor_speed = rim / self.r * self.G
        _, i, i_supply, _, _ = self.drive.electrical(rotor_speed, duty, brake, self.drive.nominal_bus_voltage)
        force = self.drive.output_torque(self.drive.Kt * i, rotor_speed) / self.r
        return force, rotor_speed, i, i_supply

    def derivatives(self, t, x, u):
        left, right = self._rim_speeds(x)
        fl = self._wheel(left, u[0], u[1])[0]
        fr = self._wheel(right, u[2], u[3])[0]
        heading, v, w = x[2], x[3], x[4]
        return np.array([v * math.cos(heading), v * math.sin(heading), w, (fl + fr) / self.m,
                         (fr - fl) * self.b / 2 / self.J, left, right])

    def outputs(self, t, x, u):
        left, right = self._rim_speeds(x)
        _, wl, il, sl = self._wheel(left, u[0], u[1])
        _, wr, ir, sr = self._wheel(right, u[2], u[3])
        return [x[5] / self.r * self.G, wl, il, sl, x[6] / self.r * self.G, wr, ir, sr,
                self.drive.nominal_bus_voltage]

    def initial_inputs(self):
        return np.array([0.0, 1.0, 0.0, 1.0])
