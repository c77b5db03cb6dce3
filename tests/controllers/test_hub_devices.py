"""Servos and sensors on the hub, against the SDK's documented behaviour and the geometry they measure,
and the SDK's servo and sensor samples run as written."""
import math

import numpy as np
import pytest

import simcore
from simcore.controllers.hub import (AnalogInput, CRServo, DigitalChannel, DistanceSensor, DistanceUnit, Hub,
                                     LimitSwitch, LinearOpMode, Potentiometer, PwmControl, Rev2mDistanceSensor, Servo,
                                     ServoImplEx, SimulatedDevice, TouchSensor, VoltageSensor, run_opmode)
from simcore.controllers.hub.device_samples import ConceptScanServo, SensorREV2mDistance, SensorTouch
from simcore.controllers.hub.sdk import IllegalArgumentException
from simcore.errors import ConfigError, ConfigTypeError, ProtocolError
from simcore.models import HubMotor
from simcore.models.hub_motor import GOBILDA_5203_312
from simcore.models.servo import GOBILDA_SPEED_SERVO, GOBILDA_TORQUE_SERVO, ServoMechanism
from simcore.system import System

pytestmark = pytest.mark.filterwarnings("ignore::simcore.solvers.StiffnessWarning")
HALF_FIELD = 3.6576 / 2  # m: the 12 ft field, centred


class ParkedRobot(System):
    """A robot standing still at a pose (states x, y, heading that do not change)."""

    def __init__(self, x, y, heading, name="robot"):
        super().__init__(name, ("x", "y", "heading"), (), (), {"x": "m", "y": "m", "heading": "rad"})
        self.pose = (x, y, heading)

    def initial_state(self):
        return np.array(self.pose, dtype=float)

    def derivatives(self, t, x, u):
        return np.zeros(3)


def frames_of(res, name):
    return res.records[name].frames


# -- servos -------------------------------------------------------------------------------------------------
def test_set_position_sends_the_sdk_pulse_and_get_position_returns_the_command_not_the_shaft():
    mech = ServoMechanism(GOBILDA_TORQUE_SERVO, name="wrist")
    hub = Hub()
    servo = hub.servo(0, mech)
    assert isinstance(servo, ServoImplEx) and isinstance(servo, Servo)
    channel = servo._channel
    assert not servo.isPwmEnabled()  # disabled until the first setPosition
    servo.setPosition(0.25)  # 600 + 0.25 * (2400 - 600)
    assert (channel.pulse, channel.enabled) == (1050, True)
    assert servo.getPosition() == 0.25
    servo.setDirection(Servo.Direction.REVERSE)  # 1 - p
    servo.setPosition(0.25)
    assert channel.pulse == 1950 and servo.getPosition() == 0.25
    servo.setDirection(Servo.Direction.FORWARD)
    servo.scaleRange(0.2, 0.8)  # [0, 1] onto [0.2, 0.8]
    servo.setPosition(0.0)
    assert channel.pulse == 960 and servo.getPosition() == 0.0
    servo.setPwmRange(PwmControl.PwmRange(500, 2500))
    servo.setPosition(1.0)  # 0.8 of 500-2500
    assert channel.pulse == 2100
    servo.setPosition(1.7)  # clipped to 1, as the SDK clips
    assert channel.pulse == 2100
    with pytest.raises(IllegalArgumentException, match="min must be less than max"):
        servo.scaleRange(0.6, 0.6)
    servo.setPwmDisable()  # forgets the command: the next getPosition reads the pulse back
    assert not servo.isPwmEnabled()
    assert servo.getPosition() == pytest.approx(1.0)  # 2100 us of 500-2500 is 0.8, scaled back from [0.2, 0.8]


def test_the_servo_turns_to_the_angle_its_pulse_means_at_its_own_speed():
    # goBILDA: 300 degrees over 500-2500 us, so the SDK's default 2400 us (position 1) is +135 degrees; at the
    # 5 V rail the no-load speed is 5/6 of the datasheet's (60 degrees in 0.20 s at 6 V).
    st = GOBILDA_TORQUE_SERVO
    mech = ServoMechanism(st, name="wrist")
    hub = Hub()
    servo = hub.servo(2, mech)

    class Raise(LinearOpMode):
        def runOpMode(self):
            s = self.hardwareMap.get(Servo, "wrist")
            self.waitForStart()
            s.setPosition(1.0)
            while self.opModeIsActive():
                self.telemetry.addData("commanded", s.getPosition())
                self.telemetry.update()

    res = simcore.simulate([mech], 1.5, controllers=run_opmode(Raise, hubs=[hub], configuration={"wrist": servo}),
                           method="RK45")
    angle = res["wrist.angle"]
    assert angle[-1] == pytest.approx(math.radians(135.0), abs=1e-5)
    at_90 = res.t[np.argmax(angle >= math.radians(90.0))]
    slew = math.radians(90.0) / (math.pi / 3 / st.seconds_per_60deg * 5.0 / 6.0)
    assert slew < at_90 < slew + 0.02 + 0.012  # plus the spin-up and the first firmware pass (10 ms)
    assert all(f.values["commanded"] == 1.0 for f in frames_of(res, "Raise"))


def test_cr_servo_power_sets_the_continuous_servo_speed():
    st = GOBILDA_SPEED_SERVO
    mech = ServoMechanism(st, continuous=True, name="intake")
    hub = Hub()
    cr = hub.servo(1, mech)
    assert isinstance(cr, CRServo)

    class Spin(LinearOpMode):
        def runOpMode(self):
            self.waitForStart()
            intake = self.hardwareMap.get(CRServo, "intake")
            intake.setDirection(CRServo.Direction.REVERSE)
            intake.setPower(-0.5)  # REVERSE: +0.5, position 0.75, pulse 1950 us: half the full-speed offset
            while self.opModeIsActive():
                pass

    res = simcore.simulate([mech], 1.0, controllers=run_opmode(Spin, hubs=[hub], configuration={"intake": cr}),
                           method="RK45")
    assert res["intake.pulse_width"][-1] == 1950.0
    assert res["intake.velocity"][-1] == pytest.approx(0.5 * st.free_speed * 5.0 / st.nominal_voltage, rel=1e-6)


def test_servo_ports_are_checked():
    hub = Hub()
    with pytest.raises(ConfigError, match="port"):
        hub.servo(6, ServoMechanism(GOBILDA_TORQUE_SERVO, name="a"))
    with pytest.raises(ConfigError, match="mechanism"):
        hub.servo(0, HubMotor(GOBILDA_5203_312, name="m"))
    s = hub.servo(0, ServoMechanism(GOBILDA_TORQUE_SERVO, name="b"))
    with pytest.raises(IllegalArgumentException, match="NaN"):
        s.setPosition(float("nan"))


# -- touch sensor and limit switch (with the SensorTouch sample) ---------------------------------------------------
def test_sensor_touch_sample_reports_the_claw_closing_on_its_stop():
    # A claw closes on a game piece (a stop at 40 degrees) under a held pulse; the touch sensor's switch closes
    # on the stop. The sample reports "Is Not Pressed" until the claw arrives and "Is Pressed" after, each
    # report within one read (a round trip) and one loop of the instant of contact.
    st = GOBILDA_TORQUE_SERVO
    claw = ServoMechanism(st, max_angle=math.radians(40.0), name="claw")
    hub = Hub()
    touch = hub.digital(1, LimitSwitch(claw, math.radians(40.0)))
    controllers = run_opmode(SensorTouch, hubs=[hub], configuration={"touch": touch}, stop_time=0.6)
    res = simcore.simulate([claw], 0.6, controllers=controllers, method="RK45",
                           inputs={"claw.pulse_width": 1500.0 + 60.0 / 0.15, "claw.pwm_enabled": 1.0})
    contact = next(e.t for e in res.events if e.name == "upper_stop")
    frames = frames_of(res, "SensorTouch")
    texts = [(f.t, f.values["Touch Sensor"]) for f in frames]
    assert {v for _, v in texts} == {"Is Pressed", "Is Not Pressed"}
    first_pressed = next(t for t, v in texts if v == "Is Pressed")
    assert all(v == "Is Not Pressed" for t, v in texts if t < contact)
    assert all(v == "Is Pressed" for t, v in texts if t > contact + 0.0041)
    assert contact < first_pressed <= contact + 0.0041


def test_digital_channel_reads_the_active_low_line_and_touch_sensors_need_an_odd_port():
    claw = ServoMechanism(GOBILDA_TORQUE_SERVO, max_angle=0.5, name="claw")
    hub = Hub()
    with pytest.raises(ConfigError, match="odd digital port"):
        hub.digital(0, LimitSwitch(claw, 0.5))
    ch = hub.digital(2, LimitSwitch(claw, 0.5), DigitalChannel)
    touch = hub.digital(3, LimitSwitch(claw, 0.5))
    hub.observe({"claw.angle": 0.5})
    assert ch.getState() is False and touch.isPressed() is True and touch.getValue() == 1.0
    hub.observe({"claw.angle": 0.1})
    assert ch.getState() is True and touch.isPressed() is False
    ch.setMode(DigitalChannel.Mode.OUTPUT)
    ch.setState(True)
    assert ch.getState() is True
    # bulk caching: the cached bulk read carries the digital inputs
    hub.setBulkCachingMode(Hub.BulkCachingMode.MANUAL)
    hub.observe({"claw.angle": 0.5})
    assert touch.isPressed() is True
    hub.observe({"claw.angle": 0.1})
    assert touch.isPressed() is True  # still the cached bulk read
    hub.clearBulkCache()
    assert touch.isPressed() is False


# -- analog, voltage ------------------------------------------------------------------------------------------
def test_potentiometer_on_a_servo_reads_its_angle_in_whole_millivolts():
    servo = ServoMechanism(GOBILDA_TORQUE_SERVO, name="wrist")
    hub = Hub()
    pot = hub.analog(0, Potentiometer(servo, zero_angle=-math.radians(135.0)))
    assert isinstance(pot, AnalogInput) and pot.getMaxVoltage() == 3.3
    hub.observe({"wrist.angle": math.radians(30.0)})
    assert pot.getVoltage() == pytest.approx(round(3300 * 165.0 / 270.0) / 1000.0, abs=1e-12)
    hub.observe({"wrist.angle": math.radians(170.0)})  # past the end of the pot
    assert pot.getVoltage() == pytest.approx(3.3)


def test_voltage_sensor_reads_the_bus_the_motors_see_with_its_sag():
    from simcore.models import Battery

    arm = HubMotor(GOBILDA_5203_312, name="arm")
    battery = Battery(open_circuit_voltage=12.5, resistance=0.05)
    hub = Hub()
    motor = hub.motor(0, arm)

    class Stall(LinearOpMode):
        def runOpMode(self):
            volts = self.hardwareMap.voltageSensor.iterator().next()
            self.waitForStart()
            self.hardwareMap.get(type(motor), "arm").setPower(1.0)
            while self.opModeIsActive():
                self.telemetry.addData("V", volts.getVoltage())
                self.telemetry.update()

    res = simcore.simulate([arm, battery], 0.3, controllers=run_opmode(Stall, hubs=[hub],
                                                                       configuration={"arm": motor}))
    frames = frames_of(res, "Stall")
    last = frames[-1]
    # the reading is the bus voltage when the read was issued (one round trip before the frame), whole mV
    k = np.searchsorted(res.t, last.t - 0.002)
    expected = round(res.sample("arm.supply_voltage", last.t - 0.002) * 1000) / 1000
    assert last.values["V"] == pytest.approx(expected, abs=1e-12)
    # the sag: open-circuit voltage less the internal resistance times the current drawn, to the whole mV
    drawn = res.sample("arm.supply_current", last.t - 0.002)
    assert drawn > 0.1 and last.values["V"] == pytest.approx(12.5 - 0.05 * drawn, abs=0.0005 + 1e-12)
    assert frames[0].values["V"] < last.values["V"] < 12.5  # the start, near stall, sags most
    assert k > 0


# -- distance sensor (with the SensorREV2mDistance sample) --------------------------------------------------------
def sensor_reading(pose, mount, unit=DistanceUnit.MM):
    robot = ParkedRobot(*pose)
    hub = Hub()
    sensor = hub.i2c(0, Rev2mDistanceSensor(robot, x=mount[0], y=mount[1], heading=mount[2]))
    hub.observe({"robot.x": pose[0], "robot.y": pose[1], "robot.heading": pose[2]})
    return sensor.getDistance(unit)


@pytest.mark.parametrize("pose, mount, expected", [
    # facing the +x wall from the centre, sensor 0.2 m ahead of the centre: 1.8288 - 0.2
    ((0.0, 0.0, 0.0), (0.2, 0.0, 0.0), HALF_FIELD - 0.2),
    # robot at (1.0, -0.5) heading 30 degrees, sensor 0.1 m ahead: the +x wall along 30 degrees
    ((1.0, -0.5, math.radians(30)), (0.1, 0.0, 0.0),
     (HALF_FIELD - (1.0 + 0.1 * math.cos(math.radians(30)))) / math.cos(math.radians(30))),
    # robot facing +y at (0.3, 1.0); the sensor on its right side (y = -0.15 m) faces right: the +x wall
    ((0.3, 1.0, math.pi / 2), (0.0, -0.15, -math.pi / 2), HALF_FIELD - 0.45),
    # facing the -y wall from (-1.2, -0.9), sensor at the back (-0.2 m) facing back; robot heading +90 deg
    ((-1.2, -0.9, math.pi / 2), (-0.2, 0.0, math.pi), HALF_FIELD - 1.1),
])
def test_range_is_the_distance_from_the_mounting_point_to_the_wall(pose, mount, expected):
    assert sensor_reading(pose, mount) == pytest.approx(expected * 1000.0, abs=1.0)  # mm, to 1 mm


def test_out_of_range_reads_the_chips_8190_mm_in_every_unit():
    # from the centre along the diagonal the wall is 2.59 m away, past the 2 m range
    for unit, value in ((DistanceUnit.MM, 8190.0), (DistanceUnit.CM, 819.0), (DistanceUnit.METER, 8.19),
                        (DistanceUnit.INCH, 8190 / 25.4)):
        assert sensor_reading((0.0, 0.0, math.pi / 4), (0.0, 0.0, 0.0), unit) == pytest.approx(value, rel=1e-15)
    assert DistanceSensor.distanceOutOfRange == DistanceUnit.infinity


def test_distance_units_convert_as_the_sdk():
    assert DistanceUnit.INCH.fromMm(25.4) == pytest.approx(1.0)
    assert DistanceUnit.MM.fromInches(1.0) == pytest.approx(25.4)
    assert DistanceUnit.CM.fromMeters(1.5) == 150.0
    assert DistanceUnit.METER.toInches(0.0254) == pytest.approx(1.0)
    assert DistanceUnit.INCH.toString(2.0) == "2.00in" and str(DistanceUnit.CM) == "cm"
    assert DistanceUnit.CM.fromMeters(DistanceUnit.infinity) == DistanceUnit.infinity


def test_sensor_rev2m_distance_sample_reports_the_wall_at_the_sensors_update_rate():
    robot = ParkedRobot(0.5, 0.25, 0.0)
    hub = Hub()
    sensor = hub.i2c(1, Rev2mDistanceSensor(robot, x=0.15))
    res = simcore.simulate([robot], 1.0, controllers=run_opmode(SensorREV2mDistance, hubs=[hub],
                                                                configuration={"sensor_range": sensor}))
    frames = [f for f in frames_of(res, "SensorREV2mDistance") if "deviceName" in f.values]
    mm = round((HALF_FIELD - 0.65) * 1000)
    assert frames[-1].lines == ("deviceName : REV 2M ToF Distance Sensor", f"range : {mm:.1f} mm",
                                f"range : {mm / 10:.1f} cm", f"range : {mm / 1000:.1f} m",
                                f"range : {mm / 25.4:.1f} in", "ID : ee", "did time out : false")
    # Each loop reads four ranges, each waiting for a new measurement every 33 ms: one loop per 4 x 33 ms.
    periods = np.diff([f.t for f in frames])
    assert np.median(periods) == pytest.approx(4 * 0.033, abs=0.004)


# -- the SDK's scan-servo sample ---------------------------------------------------------------------------------
def test_concept_scan_servo_sweeps_between_the_ends_in_steps_of_one_hundredth():
    st = GOBILDA_TORQUE_SERVO
    mech = ServoMechanism(st, name="dropper")
    hub = Hub()
    servo = hub.servo(0, mech)
    res = simcore.simulate([mech], 4.0, method="RK45",
                           controllers=run_opmode(ConceptScanServo, hubs=[hub],
                                                  configuration={"dropperServo": servo}, stop_time=3.9))
    frames = [f for f in frames_of(res, "ConceptScanServo") if "Servo Position" in f.values]
    positions = np.array([f.values["Servo Position"] for f in frames])
    steps = np.diff(positions)
    assert np.allclose(np.abs(steps), 0.01, atol=1e-9)  # INCREMENT each cycle
    assert positions.max() == 1.0 and np.argmax(positions) < len(positions) - 1  # up to the end, then back
    assert positions[0] == pytest.approx(0.51)
    # one cycle per CYCLE_MS (the sleep resumes at the first tick 50 ms later)
    assert np.median(np.diff([f.t for f in frames])) == pytest.approx(0.050, abs=0.0021)
    # the servo follows: 0.01 per 50 ms is 18 us per cycle, 54 degrees/s, within its speed
    k = np.searchsorted(res.t, 3.0)
    target = np.interp(res.t[k], res.t, res["dropper.target_angle"])
    assert res["dropper.angle"][k] == pytest.approx(target, abs=math.radians(6.0))
    assert frames_of(res, "ConceptScanServo")[-1].lines == ("> : Done",)
    assert res["dropper.pwm_enabled"][-1] == 0.0  # the fail-safe at the end of the op mode
    from simcore.controllers.hub import OpModeEndedError

    with pytest.raises(OpModeEndedError, match="setPosition"):  # the run is over: the hub no longer answers
        servo.setPosition(0.3)


# -- devices teams write ----------------------------------------------------------------------------------------
class LaserTag(SimulatedDevice):
    """A team's own sensor: reads the robot's x position (a made-up beacon)."""

    device_name = "Laser Tag Beacon"

    def __init__(self, robot):
        super().__init__()
        self.key = f"{robot.name}.x"

    def getX(self) -> float:
        return self.read_signal(self.key)


def test_a_device_a_team_writes_is_returned_by_the_hardware_map():
    robot = ParkedRobot(0.7, 0.0, 0.0)
    beacon = LaserTag(robot)

    class UseIt(LinearOpMode):
        def runOpMode(self):
            tag = self.hardwareMap.get(LaserTag, "beacon")
            self.waitForStart()
            self.telemetry.addData("x", tag.getX())
            self.telemetry.addData("name", tag.getDeviceName())
            self.telemetry.update()

    res = simcore.simulate([robot], 0.1, controllers=run_opmode(UseIt, hubs=[Hub()],
                                                                configuration={"beacon": beacon}))
    frame = frames_of(res, "UseIt")[-1]
    assert frame.values == {"x": 0.7, "name": "Laser Tag Beacon"}
    assert frame.t == pytest.approx(0.002)  # the read cost one round trip


def test_a_configuration_entry_that_is_no_device_is_refused_naming_the_member():
    class NotADevice:
        def getDeviceName(self):
            return "x"

    with pytest.raises(ProtocolError, match="observe"):
        run_opmode(SensorTouch, hubs=[Hub()], configuration={"thing": NotADevice()})
    with pytest.raises(ConfigTypeError, match="instance"):
        run_opmode(SensorTouch, hubs=[Hub()], configuration={"thing": LaserTag})


def test_the_claw_and_distance_example_reads_the_wall_and_holds_the_wrist_against_gravity():
    import runpy
    from pathlib import Path

    example = runpy.run_path(str(Path(__file__).parents[2] / "examples" / "ftc_servo_and_sensors"
                                 / "claw_and_distance.py"))
    drive, wrist, controllers = example["build"]()
    res = simcore.simulate([drive, wrist], 6.0, controllers=controllers, method="RK45")
    last = res.records["DriveToWallAndLift"].frames[-1]
    t_read = last.t - 0.004  # the range read issued one I2C read (two round trips) before the report
    front = res.sample("mecanum.x", t_read) + 0.18
    assert last.values["range cm"] == pytest.approx(round((HALF_FIELD - front) * 1000) / 10, abs=0.1 + 1e-9)
    # the wrist holds the claw's gravity torque with the proportional droop band * T / T_stall(5 V)
    st, t = GOBILDA_TORQUE_SERVO, last.t - 1e-4
    load = example["CLAW_MASS"] * example["G"] * example["CLAW_ARM"] * math.cos(res.sample("wrist.angle", t))
    droop = st.proportional_band * load / (st.stall_torque * 5.0 / st.nominal_voltage)
    assert res.sample("wrist.angle", t) == pytest.approx(math.radians(67.5) - droop, abs=1e-6)


def test_a_bumper_switch_closes_on_the_field_wall():
    # A mecanum robot driven straight at the FTC field's +x wall from its centre; a touch sensor on a bumper
    # switch reads "not pressed" until the bumper's front reaches the wall (the chassis' located wall event) and
    # "pressed" while the robot pushes on it, each read within a round trip and a loop of the contact.
    from simcore.controllers.hub import BumperSwitch, DcMotor
    from simcore.models import MecanumDrive
    from simcore.models.ftc_motor_types import GOBILDA_5203_312
    from simcore.models.mecanum import WHEELS

    drive = MecanumDrive(GOBILDA_5203_312, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0,
                         moi=0.35, start_pose=(1.0, 0.0, 0.0))
    hub = Hub()
    bumper = hub.digital(1, BumperSwitch(drive))
    config = {w: hub.motor(p, drive, wheel=w) for p, w in enumerate(WHEELS)}
    config["bumper"] = bumper
    seen = []

    class PushTheWall(LinearOpMode):
        def runOpMode(self):
            motors = [self.hardwareMap.get(DcMotor, w) for w in WHEELS]
            for w in ("front_left", "rear_left"):  # mounted mirrored
                self.hardwareMap.get(DcMotor, w).setDirection(DcMotor.Direction.REVERSE)
            touch = self.hardwareMap.get(TouchSensor, "bumper")
            self.waitForStart()
            for m in motors:
                m.setPower(0.5)
            while self.opModeIsActive():
                seen.append((self.getRuntime(), touch.isPressed()))

    res = simcore.simulate([drive], 2.0, controllers=run_opmode(PushTheWall, hubs=[hub], configuration=config,
                                                                stop_time=2.0))
    contact = next(e.t for e in res.events if e.name == "wall")
    assert res.sample("mecanum.x", [contact])[0] == pytest.approx(72 * 0.0254 - 9 * 0.0254, abs=1e-9)
    assert any(p for _, p in seen) and not all(p for _, p in seen)
    pressed_from = next(t for t, p in seen if p)
    assert all(not p for t, p in seen if t < contact)
    assert contact < pressed_from <= contact + 0.01  # the next reads after the contact (a loop of hub reads)
    assert all(p for t, p in seen if t >= pressed_from)  # it stays on the wall, pushing


def test_a_bumper_switch_needs_a_drivetrain_with_walls():
    from simcore.controllers.hub import BumperSwitch

    claw = ServoMechanism(GOBILDA_TORQUE_SERVO, max_angle=0.5, name="claw")
    with pytest.raises(ConfigError, match="drivetrain"):
        BumperSwitch(claw)
