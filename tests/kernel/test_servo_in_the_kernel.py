"""A servo runs in the compiled kernel, and its run is the Python path's to the bit.

The servo's electronics (the pulse's target, its proportional loop, the open bridge without pulses) are
checked against duties computed here by hand from the datasheet geometry; then position and continuous
servos, the PWM switched on and off, a claw stalled on its stop and let go, servos beside other mechanisms
on a battery and a servo lifting a claw against gravity, driven by the hub's ``Servo`` from an op mode, are
each run in the kernel and on the Python path
(``simcore.engine.USE_KERNEL = False``: simcore.dopri5's steps, the model's Python guards, scipy's brentq),
which must agree exactly: rows, every signal, events with their states, modes and statistics.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import simcore
import simcore.models as models
from simcore import PeriodicController
from simcore.controllers.hub import Hub, LinearOpMode, Servo, run_opmode
from simcore.models.ftc_motor_types import GOBILDA_5203_312
from simcore.models.motors import NEO
from simcore.models.servo import (GOBILDA_SPEED_SERVO, GOBILDA_TORQUE_SERVO, REV_SMART_ROBOT_SERVO, ServoMechanism,
                                  servo_drive_command)

from test_kernel_equals_the_python_path import _assert_same, _both

pytestmark = pytest.mark.filterwarnings("ignore::simcore.solvers.StiffnessWarning")

TORQUE = GOBILDA_TORQUE_SERVO  # 300 degrees over 500-2500 us: 0.15 degree per us; proportional band 5 degrees


def _duty(servo, angle, pulse, enabled=1.0):
    st = servo.servo_type
    return servo_drive_command(angle, pulse, enabled, st.pulse_min, st.pulse_max, st.radians_per_microsecond,
                               st.proportional_band, servo.continuous, st.continuous_full_speed_pulse)


@pytest.mark.parametrize("angle_deg, pulse, expected", [
    (0.0, 1520.0, 0.6),     # 20 us past the centre: a 3 degree target, 3/5 of the band
    (1.0, 1520.0, 0.4),     # 1 degree already turned: 2 degrees of error
    (0.0, 1400.0, -1.0),    # 15 degrees below: beyond the band, the full supply
    (-149.0, 300.0, -0.2),  # a pulse below 500 us is 500 us: -150 degrees, 1 degree of error
    (10.0, 1566.6666666666667, 0.0),  # on target: 66.67 us is 10 degrees
])
def test_the_position_loop_applies_the_error_over_its_band(angle_deg, pulse, expected):
    servo = ServoMechanism(TORQUE, name="s")
    duty, brake = _duty(servo, math.radians(angle_deg), pulse)
    assert duty == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert brake == 1.0  # pulses arriving: the bridge is driven (and brakes at zero duty)


@pytest.mark.parametrize("pulse, expected", [(1950.0, 0.5), (1050.0, -0.5), (3000.0, 1.0), (1500.0, 0.0)])
def test_the_continuous_servo_applies_the_pulse_offset_over_its_full_speed_offset(pulse, expected):
    cr = ServoMechanism(GOBILDA_SPEED_SERVO, continuous=True, name="cr")  # full speed 900 us from 1500 us
    assert _duty(cr, 123.0, pulse) == (pytest.approx(expected, rel=1e-12, abs=1e-15), 1.0)  # the angle is moot


def test_without_pulses_the_bridge_is_open_whatever_the_error():
    servo = ServoMechanism(TORQUE, name="s")
    assert _duty(servo, -1.0, 2500.0, enabled=0.0) == (0.0, 0.0)


def test_the_outputs_name_the_target_and_the_loop_duty():
    # REV Smart Robot Servo: 270 degrees over 500-2500 us, 0.135 degree per us; at 1700 us the target is 27
    # degrees, and from 25 degrees the loop applies 2/5 of the rail: the motor's 5 V * 0.4 on its windings.
    servo = ServoMechanism(REV_SMART_ROBOT_SERVO, name="s", start_angle=math.radians(25.0))
    sim = simcore.Simulator(servo, inputs={"s.pulse_width": 1700.0, "s.pwm_enabled": 1.0})
    assert sim._compiled is not None
    res = sim.result()
    assert res["s.target_angle"][0] == pytest.approx(math.radians(27.0), rel=1e-12)
    assert res["s.loop_duty"][0] == pytest.approx(0.4, rel=1e-9)
    assert res["s.applied_voltage"][0] == pytest.approx(2.0, rel=1e-9)


# -- the kernel is the Python path -----------------------------------------------------------------------------
def _pulses(name, schedule, enabled=None, period=0.01):
    """A controller writing ``name``'s pulse ``schedule(t)`` (and ``enabled(t)``) every ``period`` s."""
    def write(t, s):
        out = {f"{name}.pulse_width": schedule(t)}
        out[f"{name}.pwm_enabled"] = 1.0 if enabled is None else enabled(t)
        return out
    return PeriodicController(period, write, name=f"{name}_pulses")


@pytest.mark.parametrize("method", ["RK45", "auto"])
@pytest.mark.parametrize("energy", [False, True])
def test_a_position_servo_stepping_between_targets_and_its_stops_equals_the_python_path(method, energy):
    def make():
        wrist = ServoMechanism(TORQUE, name="wrist", load_inertia=4e-4, min_angle=-1.0, max_angle=1.2,
                               static_friction=0.02, track_energy=energy)
        steps = lambda t: 2200.0 if t < 0.4 else (900.0 if t < 1.0 else (1620.0 if t < 1.3 else 1480.0))  # noqa: E731
        return [wrist], [_pulses("wrist", steps)]

    a, b = _both(make, 1.8, method=method)
    _assert_same(a, b)
    res = a[0]
    names = [e.name for e in res.events]
    assert "upper_stop" in names and "lower_stop" in names  # 2200 us is 105 degrees, past the 1.2 rad stop
    assert res["wrist.angle"][-1] == pytest.approx(math.radians(-3.0), abs=math.radians(0.5))  # 1480 us: -3 deg


def test_a_continuous_servo_with_its_pwm_switched_on_and_off_equals_the_python_path():
    def make():
        cr = ServoMechanism(GOBILDA_SPEED_SERVO, continuous=True, name="intake", load_inertia=2e-4,
                            static_friction=0.01)
        return [cr], [_pulses("intake", lambda t: 1500.0 + 800.0 * math.sin(6.0 * t),
                              enabled=lambda t: 0.0 if 0.5 <= t < 0.8 else 1.0, period=0.02)]

    a, b = _both(make, 1.2)
    _assert_same(a, b)
    res = a[0]
    off = (res.t > 0.55) & (res.t < 0.8)
    assert np.all(res["intake.loop_duty"][off] == 0.0) and np.all(res["intake.stator_current"][off] == 0.0)
    assert any(e.name == "velocity_zero" for e in res.events)  # friction stops it while limp


def test_a_claw_stalled_on_its_game_piece_and_let_go_equals_the_python_path():
    # Closing on a piece at 40 degrees with a 60 degree command it stalls on the stop drawing the stall current;
    # commanded back open at 0.5 s it leaves the stop at that tick (an event the write fires).
    def make():
        claw = ServoMechanism(TORQUE, name="claw", max_angle=math.radians(40.0))
        return [claw], [_pulses("claw", lambda t: 1900.0 if t < 0.5 else 1100.0, period=0.05)]

    a, b = _both(make, 0.8, method="RK45")
    _assert_same(a, b)
    res = a[0]
    assert [e.name for e in res.events][:2] == ["upper_stop", "leave_upper_stop"]
    leave = res.events[1]
    assert leave.t == 0.5
    held = (res.t > res.events[0].t) & (res.t < 0.5)
    assert held.sum() >= 5
    assert np.all(res["claw.stator_current"][held] == pytest.approx(TORQUE.stall_current * 5.0 / 6.0, rel=1e-9))


def test_servos_beside_an_arm_and_a_hub_motor_on_a_battery_equal_the_python_path():
    # The battery feeds the arm and the hub motor; the servos are on their own rail (no load of its bus).
    def make():
        arm = models.Arm(NEO, 60, mass=2.0, com_distance=0.3, min_angle=-0.5, max_angle=1.0)
        hub = models.HubMotor(GOBILDA_5203_312, load_inertia=0.01, name="hub")
        wrist = ServoMechanism(TORQUE, name="wrist", load_inertia=1e-4, max_angle=0.6)
        cr = ServoMechanism(GOBILDA_SPEED_SERVO, continuous=True, name="cr")

        def drive(t, s):
            return {"arm.voltage": 6.0 if t < 0.5 else -4.0, "hub.duty": math.cos(4 * t),
                    "wrist.pulse_width": 1900.0 if t < 0.6 else 1300.0, "wrist.pwm_enabled": 1.0,
                    "cr.pulse_width": 1500.0 + 500.0 * math.sin(3 * t), "cr.pwm_enabled": 1.0}

        return [models.Battery(resistance=0.05), arm, wrist, hub, cr], [PeriodicController(0.02, drive, name="drive")]

    a, b = _both(make, 1.2)
    _assert_same(a, b)
    res = a[0]
    assert {e.system for e in res.events} >= {"arm", "wrist"}
    assert np.all(res["wrist.supply_voltage"] == 5.0)  # the hub's servo rail, whatever the battery's sag
    assert res["battery.current"].max() > 1.0
    np.testing.assert_allclose(res["battery.current"], res["arm.supply_current"] + res["hub.supply_current"],
                               rtol=1e-9, atol=1e-9)


def test_a_hub_servo_lifting_a_claw_against_gravity_from_an_op_mode_equals_the_python_path():
    class Wave(LinearOpMode):
        def runOpMode(self):
            wrist = self.hardwareMap.get(Servo, "wrist")
            wrist.setPosition(0.5)
            self.waitForStart()
            for position in (0.9, 0.2, 0.6):
                wrist.setPosition(position)
                self.sleep(300)
            wrist.setPwmDisable()  # (a ServoImplEx: the limp servo)
            self.sleep(200)

    def make():
        wrist = ServoMechanism(TORQUE, name="wrist", load_mass=0.3, load_com_distance=0.12, min_angle=-1.5,
                               max_angle=1.5, static_friction=0.01)
        hub = Hub()
        servo = hub.servo(0, wrist)
        return [wrist], run_opmode(Wave, hubs=[hub], configuration={"wrist": servo}, stop_time=1.2)

    a, b = _both(make, 1.6, method="RK45")
    _assert_same(a, b)
    res = a[0]
    # 0.6 of the SDK's 600-2400 us is 1680 us: 27 degrees on a goBILDA servo, reached before the PWM goes off
    assert res.sample("wrist.target_angle", 0.9) == pytest.approx(math.radians(27.0), rel=1e-12)
    assert res["wrist.pwm_enabled"][-1] == 0.0
    assert res["wrist.angle"][-1] == -1.5  # limp, the claw falls onto the lower stop
    assert res.events[-1].name == "lower_stop"


def test_a_servo_whose_load_or_loop_is_python_takes_the_python_path():
    loaded = ServoMechanism(TORQUE, name="s", load_torque=lambda a: -0.1 * math.cos(a))
    assert loaded.kernel_form() is None
    assert simcore.Simulator(loaded)._compiled is None

    class DeadBand(ServoMechanism):
        def _drive_inputs(self, angle, u):
            duty, brake, rail = super()._drive_inputs(angle, u)
            return [0.0 if abs(duty) < 0.05 else duty, brake, rail]

    assert DeadBand(TORQUE, name="d").kernel_form() is None
    assert ServoMechanism(TORQUE, name="k").kernel_form() is not None
