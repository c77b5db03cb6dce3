"""simcore.robotpy's bindings against wpilib's (and the vendors') simulated devices, outside robotpy test.

Each test uses its own channels and CAN ids: the simulated HAL is one per process.
"""
import math
import subprocess
import sys
import time

import numpy as np
import pytest

wpilib = pytest.importorskip("wpilib", reason="the robotpy extra (wpilib) is not installed")
import wpilib.simulation as wsim  # noqa: E402

import simcore.models as models  # noqa: E402
from simcore import ConfigError  # noqa: E402
from simcore.models.motors import NEO  # noqa: E402
from simcore.robotpy import Physics, wpilib_current  # noqa: E402


def _enable(on=True):
    wsim.DriverStationSim.setDsAttached(True)
    wsim.DriverStationSim.setEnabled(on)
    wsim.DriverStationSim.notifyNewData()


def _flywheel(**kw):
    return models.Flywheel(NEO, 1.0, 0.002, command="duty", **kw)


def test_update_sim_holds_the_pwm_duty_and_advances_exactly_tm_diff():
    motor = wpilib.PWMSparkMax(10)
    physics = Physics(None, [_flywheel(), models.Battery()])
    physics.motor(motor, "flywheel.duty", inverted=True)
    _enable()
    motor.set(0.25)
    pwm = wsim.PWMSim(motor).getSpeed()
    assert pwm == pytest.approx(0.25, abs=0.002)  # the pulse width is whole microseconds
    steps = [0.02, 0.020001, 0.019999, 0.02]
    for dt in steps:
        physics.update_sim(0.0, dt)
        assert physics.signals["flywheel.duty"] == -pwm
    assert physics.sim._t_ns == 80_000_000  # four steps summed to the nanosecond
    r = physics.result()
    assert r["flywheel.velocity"][-1] < 0  # inverted
    # the applied voltage is the duty times the sagging bus of the same instant
    moving = r.t > 0
    np.testing.assert_allclose(r["flywheel.applied_voltage"][moving], -pwm * r["battery.voltage"][moving], rtol=1e-12)
    _enable(False)  # a disabled robot's outputs are neutral, whatever the PWM holds
    physics.update_sim(0.0, 0.02)
    assert physics.signals["flywheel.duty"] == 0.0


def test_history_is_a_rolling_window_by_default_so_a_program_left_running_stays_bounded():
    from simcore.robotpy import DEFAULT_HISTORY

    physics = Physics(None, [_flywheel()])
    n = int(round((DEFAULT_HISTORY + 5.0) / 0.02))
    for _ in range(n):
        physics.update_sim(0.0, 0.02)
    r = physics.result()
    assert r.t[-1] == pytest.approx(n * 0.02, abs=1e-12)
    assert r.t[0] >= r.t[-1] - DEFAULT_HISTORY - 0.02  # the first 5 s fell out of the window
    assert r.dropped["rows"] > 0
    full = Physics(None, [_flywheel(name="other")], record="all")
    full.update_sim(0.0, 0.02)
    assert full.result().t[0] == 0.0 and full.result().dropped["rows"] == 0


def test_a_voltage_input_is_refused_with_the_fix():
    physics = Physics(None, [models.Flywheel(NEO, 1.0, 0.002)])
    with pytest.raises(ConfigError, match='command="duty"'):
        physics.motor(wpilib.PWMSparkMax(11), "flywheel.voltage")
    with pytest.raises(ConfigError, match="signal of the simulated systems"):
        physics.motor(wpilib.PWMSparkMax(12), "flywheel.dutty")


def test_encoders_gyros_and_the_field_read_wpilib_conventions():
    drive = models.TankDrive(NEO, 8.45, n_motors_per_side=2, wheel_radius=0.0762, track_width=0.6, mass=50.0,
                             moi=5.0, command="duty", start_pose=(1.0, 2.0, 0.3))
    physics = Physics(None, [drive])
    left, right = wpilib.PWMSparkMax(13), wpilib.PWMSparkMax(14)
    enc = wpilib.Encoder(10, 11)
    enc.setDistancePerPulse(1e-4)
    analog, adxrs = wpilib.AnalogGyro(1), wpilib.ADXRS450_Gyro()
    physics.motor(left, "drive.left_duty")
    physics.motor(right, "drive.right_duty")
    physics.encoder(enc, "drive.left_position")
    physics.gyro(analog, "drive.heading")
    physics.gyro(adxrs, "drive.heading")
    field = wpilib.Field2d()
    physics.field("drive", field)
    assert analog.getAngle() == -math.degrees(0.3) and enc.getDistance() == 0.0  # from the start
    _enable()
    left.set(0.2)
    right.set(0.6)
    for _ in range(25):
        physics.update_sim(0.0, 0.02)
    s = physics.signals
    assert s["drive.heading"] > 0.4  # turning counter-clockwise
    for g in (analog, adxrs):
        assert g.getAngle() == -math.degrees(s["drive.heading"])  # clockwise degrees
        assert g.getRotation2d().radians() == pytest.approx(math.remainder(s["drive.heading"], 2 * math.pi),
                                                            abs=1e-12)
    assert analog.getRate() == -math.degrees(s["drive.yaw_rate"])
    assert abs(enc.getDistance() - s["drive.left_position"]) <= 1e-4  # whole counts
    assert enc.getRate() == pytest.approx(s["drive.left_velocity"], rel=1e-12)
    pose = field.getRobotPose()
    assert (pose.X(), pose.Y()) == (s["drive.x"], s["drive.y"])


def test_duty_cycle_encoder_wraps_into_its_full_range_and_limit_switch_follows_the_stop_mode():
    arm = models.Arm(NEO, 100, mass=2.0, com_distance=0.3, min_angle=-1.0, max_angle=1.0, start_angle=-1.0,
                     command="duty")
    physics = Physics(None, [arm])
    absolute = wpilib.DutyCycleEncoder(12, 360.0, 0.0)
    lower, upper = wpilib.DigitalInput(13), wpilib.DigitalInput(14)
    motor = wpilib.PWMSparkMax(15)
    physics.motor(motor, "arm.duty")
    physics.duty_cycle_encoder(absolute, "arm.angle", full_range=360.0)
    physics.limit_switch(lower, "arm", "lower")
    physics.limit_switch(upper, "arm", "upper", pressed_value=True)
    assert absolute.get() == pytest.approx(360.0 - math.degrees(1.0), rel=1e-12)  # -57.3 deg wraps to 302.7
    assert lower.get() is False and upper.get() is False  # on the lower stop; upper open
    _enable()
    motor.set(1.0)
    for _ in range(100):
        physics.update_sim(0.0, 0.02)
        if physics.signals["arm.angle"] == 1.0:
            break
    assert physics.signals["arm.angle"] == 1.0
    assert lower.get() is True and upper.get() is True
    assert absolute.get() == pytest.approx(math.degrees(1.0), rel=1e-12)


def test_battery_voltage_brownout_threshold_and_supply_current_on_the_pdh():
    battery = models.Battery(resistance=0.3, brownout_voltage=7.0)
    physics = Physics(None, [_flywheel(), battery])
    motor = wpilib.PWMSparkMax(16)
    pdh = wpilib.PowerDistribution(1, wpilib.PowerDistribution.ModuleType.kRev)
    physics.motor(motor, "flywheel.duty")
    physics.battery()
    physics.power_distribution(pdh, {3: "flywheel.supply_current"})
    assert wpilib.RobotController.getBrownoutVoltage() == 7.0
    _enable()
    motor.set(0.6)
    physics.update_sim(0.0, 0.001)
    s = physics.signals
    assert wpilib.RobotController.getBatteryVoltage() == s["battery.voltage"] < 7.0  # a stalled NEO on 0.3 ohm
    assert physics.browned_out
    assert wpilib.RobotController.isBrownedOut() is False  # wpilib's simulation HAL never reports it
    assert pdh.getCurrent(3) == pytest.approx(abs(s["flywheel.supply_current"]), rel=1e-12)
    duty = s["flywheel.duty"]
    assert s["flywheel.supply_current"] == pytest.approx(duty * s["flywheel.stator_current"], rel=1e-12)


def test_wpilib_current_is_the_magnitude_with_the_voltage_sign():
    assert wpilib_current(-30.0, 0.0) == 0.0  # brake-mode back-EMF current reads 0 in WPILib
    assert wpilib_current(-30.0, 2.0) == 30.0
    assert wpilib_current(12.0, -1.0) == -12.0


def test_rev_spark_max_sim_drives_the_duty_and_reads_the_rotor():
    rev = pytest.importorskip("rev", reason="the vendors extra (robotpy-rev) is not installed")
    spark = rev.SparkMax(20, rev.SparkLowLevel.MotorType.kBrushless)
    physics = Physics(None, [_flywheel()])
    physics.motor(spark, "flywheel.duty")
    _enable()
    spark.set(0.5)
    for _ in range(30):
        physics.update_sim(0.0, 0.02)
    s = physics.signals
    assert s["flywheel.duty"] == pytest.approx(0.5, rel=1e-6)  # REV's model reached the setpoint
    encoder = spark.getEncoder()
    assert encoder.getPosition() == pytest.approx(s["flywheel.rotor_position"] / (2 * math.pi), rel=1e-6)
    assert encoder.getVelocity() == pytest.approx(s["flywheel.rotor_velocity"] * 60 / (2 * math.pi), rel=1e-6)


def test_navx_yaw_is_the_heading_in_clockwise_degrees():
    navx = pytest.importorskip("navx", reason="the vendors extra (robotpy-navx) is not installed")
    ahrs = navx.AHRS(navx.AHRS.NavXComType.kMXP_SPI)
    drive = models.TankDrive(NEO, 8.45, n_motors_per_side=2, wheel_radius=0.0762, track_width=0.6, mass=50.0,
                             moi=5.0, command="duty", start_pose=(0.0, 0.0, 0.5))
    physics = Physics(None, [drive])
    physics.gyro(ahrs, "drive.heading")
    # The library calibrates on its own thread, against the wall clock (about 1 s), then zeroes its yaw once.
    # The wait ends as soon as the yaw arrives; its 60 s bound only ends a run where it never does, so a
    # loaded machine (a starved thread) slows the test rather than failing it.
    deadline = time.monotonic() + 60.0
    while time.monotonic() < deadline and (ahrs.isCalibrating() or abs(ahrs.getYaw() + math.degrees(0.5)) > 1e-4):
        time.sleep(0.05)
        physics.update_sim(0.0, 0.02)
    assert ahrs.getYaw() == pytest.approx(-math.degrees(0.5), abs=1e-4)  # single precision
    assert ahrs.isConnected()


_TALONFX_SCRIPT = """
import math, os, time
import phoenix6
import simcore.models as models
from simcore.models.motors import NEO
from simcore.robotpy import Physics
talon = phoenix6.hardware.TalonFX(21)
physics = Physics(None, [models.Flywheel(NEO, 1.0, 0.002, command="duty", start_velocity=30.0)])
physics.motor(talon, "flywheel.duty")
velocity = talon.get_rotor_velocity()
# phoenix6's simulation runs on its own thread, against the wall clock: wait until the velocity arrives
# (well under a second when the machine is free); the 60 s bound only ends a run where it never does
deadline = time.monotonic() + 60.0
while time.monotonic() < deadline and abs(velocity.refresh().value - 30.0 / (2 * math.pi)) > 1e-3:
    time.sleep(0.02)
print(repr(velocity.value), flush=True)
os._exit(0)  # phoenix6's threads can abort the interpreter's exit ("terminate called"): skip it
"""


def test_talonfx_sim_state_takes_the_rotor_and_supply(tmp_path):
    # In a child process: with phoenix6 loaded, the interpreter's exit aborts now and then in phoenix6's own
    # threads, which would fail the whole test run after every test passed.
    pytest.importorskip("phoenix6", reason="the vendors extra (phoenix6) is not installed")
    # cwd: phoenix6 persists its simulated devices under ./ctre_sim/, so the child runs in a temporary directory
    proc = subprocess.run([sys.executable, "-c", _TALONFX_SCRIPT], capture_output=True, text=True, timeout=180,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert float(proc.stdout.split()[-1]) == pytest.approx(30.0 / (2 * math.pi), abs=1e-3)
    assert (tmp_path / "ctre_sim").is_dir()  # its device file went to the child's directory, not the checkout


def test_bindings_refuse_bad_input_naming_the_parameter():
    from simcore.errors import ConfigTypeError

    arm = models.Arm(NEO, 100, mass=2.0, com_distance=0.3, min_angle=-1.0, max_angle=1.0, start_angle=-1.0,
                     command="duty")
    physics = Physics(None, [_flywheel(), arm, models.Battery()])
    enc = wpilib.Encoder(20, 21)
    for kw, parameter, error in ((dict(scale=math.nan), "scale", ConfigError), (dict(scale="2"), "scale", TypeError),
                                 (dict(zero_at="x"), "zero_at", TypeError), (dict(zero_at=math.inf), "zero_at",
                                                                             ConfigError)):
        with pytest.raises(error, match=parameter):
            physics.encoder(enc, "arm.angle", **kw)
    with pytest.raises(ConfigTypeError, match="encoder"):
        physics.encoder(wpilib.PWMSparkMax(7), "arm.angle")
    with pytest.raises(ConfigError, match="offset"):
        physics.duty_cycle_encoder(wpilib.DutyCycleEncoder(22), "arm.angle", offset=math.nan)
    switch = wpilib.DigitalInput(23)
    for system in ("flywheel", "battery"):  # no hard stop: the switch could never close
        with pytest.raises(ConfigError, match="system"):
            physics.limit_switch(switch, system, "lower")
    with pytest.raises(ConfigTypeError, match="inverted"):
        physics.motor(wpilib.PWMSparkMax(8), "arm.duty", inverted="no")
    physics.motor(wpilib.PWMSparkMax(9), "flywheel.duty")
    with pytest.raises(ConfigError, match="flywheel.duty"):  # a second controller on one input would be dropped
        physics.motor(wpilib.PWMSparkMax(8), "flywheel.duty")
    physics.motor(wpilib.PWMSparkMax(8), "arm.duty")  # the refused calls bound nothing
    with pytest.raises(ConfigError, match="voltage"):
        physics.battery("arm.angle")
    pdp = wpilib.PowerDistribution(0, wpilib.PowerDistribution.ModuleType.kCTRE)
    assert pdp.getNumChannels() == 24  # what wpilib's simulated HAL reports (a PDH's count)
    for channel in (24, -1, "3", 2.0):
        with pytest.raises(ConfigError, match="channels"):
            physics.power_distribution(pdp, {channel: "arm.supply_current"})


PLAIN_SCRIPT = """
import sys
import wpilib
assert "wpilib.simulation" not in sys.modules  # what a plain script has: pyfrc is what imports it
import simcore.models as models
from simcore.models.motors import NEO
from simcore.robotpy import Physics

motor, encoder = wpilib.PWMSparkMax(0), wpilib.Encoder(0, 1)
encoder.setDistancePerPulse(1e-3)
physics = Physics(None, [models.Flywheel(NEO, 1.0, 0.002, command="duty"), models.Battery()], rtol=1e-10, atol=1e-12)
physics.motor(motor, "flywheel.duty")
physics.encoder(encoder, "flywheel.angle", rate="flywheel.velocity", zero_at=0.0)
physics.battery()
physics.update_sim(0.0, 0.02)
assert "pyfrc" not in sys.modules
print(physics.t, physics.sim.rtol, physics.sim.atol)
"""


def test_physics_binds_in_a_plain_python_process_without_pyfrc():
    # A unit test of physics.py, a script or a notebook: wpilib imported, wpilib.simulation not, no pyfrc.
    proc = subprocess.run([sys.executable, "-c", PLAIN_SCRIPT], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    t, rtol, atol = (float(v) for v in proc.stdout.split()[-3:])
    assert (t, rtol, atol) == (0.02, 1e-10, 1e-12)  # rtol and atol reach the Simulator


def test_networktables_publishes_the_pose_each_update():
    import struct

    import ntcore

    inst = ntcore.NetworkTableInstance.create()
    try:
        drive = models.TankDrive(NEO, 8.45, n_motors_per_side=2, wheel_radius=0.0762, track_width=0.6, mass=50.0,
                                 moi=models.rectangle_moi(50.0, 0.8, 0.8), command="duty", name="nt_drive")
        physics = Physics(None, [drive])
        left = wpilib.PWMSparkMax(13)
        physics.motor(left, "nt_drive.left_duty")
        physics.networktables(prefix="/truth", instance=inst)
        pose = inst.getRawTopic("/truth/nt_drive/pose").subscribe("struct:Pose2d", b"")
        time_sub = inst.getDoubleTopic("/truth/time").subscribe(-1.0)
        _enable()
        left.set(0.6)
        for _ in range(25):
            physics.update_sim(0.0, 0.02)
        s = physics.signals
        assert time_sub.get() == physics.t == pytest.approx(0.5, abs=1e-12)
        assert s["nt_drive.heading"] < -0.05  # only the left side drives: it turns clockwise
        assert struct.unpack("<3d", bytes(pose.get())) == (s["nt_drive.x"], s["nt_drive.y"], s["nt_drive.heading"])
    finally:
        _enable(False)
        ntcore.NetworkTableInstance.destroy(inst)
