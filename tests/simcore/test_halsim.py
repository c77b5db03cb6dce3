"""simcore.halsim: the physics side of WPILib's HALSim WebSocket protocol.

The frames and their faults are checked against a stand-in robot program (a WebSocket server on
loopback, or frames handed in directly at chosen instants); the whole path against a real robot
program, the drivetrain example run by `python -m robotpy sim --ws-server` in a subprocess.
"""
import asyncio
import json
import math
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

pytest.importorskip("websockets", reason="the halsim extra (websockets) is not installed")
pytest.importorskip("wpilib", reason="the robotpy extra (wpilib) is not installed")
from websockets.asyncio.server import serve  # noqa: E402

import simcore.models as models  # noqa: E402
from simcore.errors import ConfigError  # noqa: E402
from simcore.halsim import HalSim  # noqa: E402
from simcore.models.motors import NEO  # noqa: E402
from simcore.robotpy import Physics  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
MS = 1_000_000  # ns


class FlywheelPhysics(Physics):
    def __init__(self, physics_controller, robot):
        super().__init__(physics_controller, [models.Flywheel(NEO, 1.0, 0.002, command="duty"), models.Battery()])
        self.motor(0, "flywheel.duty")
        self.encoder(4, "flywheel.angle", rate="flywheel.velocity", distance_per_pulse=2 * math.pi / 2048)
        self.gyro("ADXRS450[0]", "flywheel.angle")
        self.battery()


def _frame(type_, device, **data):
    return json.dumps({"type": type_, "device": device, "data": {k.replace("_LT_", "<").replace("_GT_", ">"): v
                                                                   for k, v in data.items()}})


def _halsim(**kw):
    return HalSim(FlywheelPhysics, "127.0.0.1", 1, networktables=False, **kw)


ENABLE = json.dumps({"type": "DriverStation", "device": "", "data": {">enabled": True}})


def _speed(value):
    return json.dumps({"type": "PWM", "device": "0", "data": {"<speed": value}})


def test_each_robot_output_is_held_from_the_instant_its_frame_arrives():
    sim = _halsim()
    sim._tick(0)
    sim.handle_frame(ENABLE, now_ns=0)
    sim.handle_frame(_speed(0.5), now_ns=7 * MS)
    sim._tick(10 * MS)
    sim.handle_frame(_speed(-0.25), now_ns=13 * MS)
    sim._tick(20 * MS)
    r = sim.physics.result()
    duty = r["flywheel.duty"]
    assert sim.physics.t == pytest.approx(0.020, abs=1e-12)
    # the duty is 0 up to 7 ms, 0.5 from 7 ms to 13 ms, -0.25 after: steps at the arrival instants
    for t, expected in [(0.003, 0.0), (0.0069, 0.0), (0.0071, 0.5), (0.0129, 0.5), (0.0131, -0.25), (0.02, -0.25)]:
        i = np.searchsorted(r.t, t, side="right") - 1
        assert duty[i] == expected, (t, r.t[i], duty[i])
    assert r["flywheel.velocity"][-1] != 0.0


def test_a_disabled_or_absent_robot_has_neutral_outputs():
    sim = _halsim()
    sim._tick(0)
    sim.handle_frame(_speed(0.5), now_ns=1 * MS)  # not enabled yet
    sim._tick(5 * MS)
    assert sim.physics.signals["flywheel.duty"] == 0.0
    sim.handle_frame(ENABLE, now_ns=5 * MS)
    sim._tick(10 * MS)
    assert sim.physics.signals["flywheel.duty"] == 0.5
    sim.link.forget_robot()  # what a lost connection does
    sim._tick(15 * MS)
    assert sim.physics.signals["flywheel.duty"] == 0.0


def test_sensors_go_out_as_protocol_frames_once_the_robot_announces_its_encoder():
    sim = _halsim()
    sim._tick(0)
    for frame in (ENABLE, _speed(1.0), _frame("Encoder", "3", _LT_channel_a=4, _LT_channel_b=5, _LT_init=True)):
        sim.handle_frame(frame, now_ns=0)
    frames = [json.loads(f) for f in sim._tick(50 * MS)]
    by = {(f["type"], f["device"]): f["data"] for f in frames}
    s = sim.physics.signals
    dpp = 2 * math.pi / 2048
    assert by[("Encoder", "3")][">count"] == int(s["flywheel.angle"] / dpp) > 100  # whole pulses, from its zero
    assert by[("Encoder", "3")][">period"] == pytest.approx(dpp / s["flywheel.velocity"], rel=1e-12)
    assert by[("Gyro", "ADXRS450[0]")][">angle_x"] == -math.degrees(s["flywheel.angle"])  # clockwise degrees
    assert by[("RoboRIO", "")][">vin_voltage"] == s["battery.voltage"] < 12.6
    assert sim._tick(50 * MS) == []  # nothing new to say at the same instant


@pytest.mark.parametrize("frame, named", [
    ("{not json", "not JSON"),
    (b"\x00\x01", "binary"),
    ("[1, 2]", "not an object"),
    (json.dumps({"type": "PWM", "data": {}}), "not an object"),
    (json.dumps({"type": "PWM", "device": 0, "data": {}}), "must be strings"),
    (_frame("WarpDrive", "0", _LT_speed=1.0), "unknown device type 'WarpDrive'"),
    (_frame("PWM", "0", _LT_speed="fast", _LT_position=0.3), "PWM <speed is 'fast'"),
    ('{"type": "PWM", "device": "0", "data": {"<speed": NaN}}', "PWM <speed is nan"),
    (_frame("DriverStation", "", _GT_enabled="yes"), "DriverStation >enabled is 'yes'"),
])
def test_a_bad_frame_is_skipped_whole_with_a_message_naming_it_and_the_next_applies(frame, named, caplog):
    sim = _halsim()
    sim._tick(0)
    sim.handle_frame(ENABLE, now_ns=0)
    assert sim.handle_frame(frame, now_ns=1 * MS) is False
    assert len(sim.faults) == 1 and named in sim.faults[0]
    shown = frame.decode("latin-1") if isinstance(frame, bytes) else frame
    assert shown[:20] in sim.faults[0] or repr(frame)[:20] in sim.faults[0]  # the frame is named
    assert named in caplog.text
    assert sim.link.value("PWM", "0", "<position", None) is None  # nothing of it applied
    sim._tick(2 * MS)
    assert sim.physics.signals["flywheel.duty"] == 0.0
    assert sim.handle_frame(_speed(0.5), now_ns=2 * MS) is True
    sim._tick(4 * MS)
    assert sim.physics.signals["flywheel.duty"] == 0.5


def test_an_encoder_without_its_distance_per_pulse_and_an_analog_gyro_are_refused_naming_the_binding():
    class NoDpp(Physics):
        def __init__(self, controller, robot):
            super().__init__(controller, [models.Flywheel(NEO, 1.0, 0.002, command="duty")])
            self.encoder(0, "flywheel.angle", rate="flywheel.velocity")

    class Analog(Physics):
        def __init__(self, controller, robot):
            super().__init__(controller, [models.Flywheel(NEO, 1.0, 0.002, command="duty")])
            self.gyro(0, "flywheel.angle")

    with pytest.raises(ConfigError, match="distance_per_pulse"):
        HalSim(NoDpp, "127.0.0.1", 1, networktables=False)
    with pytest.raises(ConfigError, match="gyro.*AnalogGyro"):
        HalSim(Analog, "127.0.0.1", 1, networktables=False)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_robot_program_killed_and_restarted_is_reconnected_and_its_frames_apply():
    port = _free_port()
    sim = HalSim(FlywheelPhysics, "127.0.0.1", port, networktables=False, reconnect=0.05, rate=200.0)
    seen = {"first": [], "second": []}

    async def robot(name, frames, hold):
        async def handler(ws):
            for frame in frames:
                await ws.send(frame)
            async for frame in ws:  # until the program goes away (the server closes below)
                seen[name].append(json.loads(frame))

        async with serve(handler, "127.0.0.1", port):
            await asyncio.sleep(hold)

    duties = []

    async def watch():
        while True:
            duties.append((sim.connections, sim.physics.signals["flywheel.duty"]))
            await asyncio.sleep(0.01)

    async def scenario():
        watcher = asyncio.create_task(watch())
        runner = asyncio.create_task(sim.run(2.5))
        await robot("first", [ENABLE, "garbage", _speed(0.5)], 0.6)  # then it is killed
        await asyncio.sleep(0.3)  # away: nothing listens on the port
        await robot("second", [ENABLE, _speed(-0.75)], 0.6)  # restarted
        await runner
        watcher.cancel()

    asyncio.run(asyncio.wait_for(scenario(), 20.0))
    assert sim.connections == 2
    assert any("garbage" in f for f in sim.faults)
    during_first = [d for c, d in duties if c == 1]
    assert 0.5 in during_first  # the frame after the bad one applied
    assert (2, -0.75) in duties  # the restarted program's frames apply
    assert any(c == 1 and d == 0.0 for c, d in duties[duties.index((1, 0.5)):])  # neutral while it was away
    assert sim.physics.t > 1.5  # the physics kept running throughout
    assert any(f["type"] == "RoboRIO" for f in seen["second"])  # sensors flow to the new program


def test_the_drivetrain_robot_program_under_robotpy_sim_follows_the_simulation(tmp_path):
    """The example drivetrain robot, run by `robotpy sim --ws-server` in a subprocess, driven through the protocol."""
    robot_dir = tmp_path / "robot"
    robot_dir.mkdir()
    example = ROOT / "examples" / "drivetrain_robot"
    shutil.copy(example / "robot.py", robot_dir / "drivetrain.py")  # its physics.py stays behind: simcore.halsim
    shutil.copy(example / "pyproject.toml", robot_dir / "pyproject.toml")  # is the physics now
    (robot_dir / "robot.py").write_text(
        "import drivetrain\n\n\n"
        "class ReportingRobot(drivetrain.DrivetrainRobot):\n"
        "    def robotPeriodic(self):\n"
        "        super().robotPeriodic()\n"
        "        pose = self.odometry.getPose()\n"
        "        print('READING', self.isEnabled(), self.left_encoder.getDistance(), self.right_encoder.getDistance(),\n"
        "              self.gyro.getAngle(), pose.X(), pose.Y(), pose.rotation().radians(), flush=True)\n")
    port = _free_port()
    env = dict(os.environ, HALSIMWS_PORT=str(port), HALSIMWS_HOST="127.0.0.1")
    proc = subprocess.Popen([sys.executable, "-m", "robotpy", "sim", "--ws-server", "--nogui"], cwd=robot_dir,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        sim = HalSim(example / "physics.py", "127.0.0.1", port, enable="auto", networktables=False, reconnect=0.1)
        asyncio.run(asyncio.wait_for(sim.run(7.0), 30.0))
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the group this test started, whatever happened
        output, _ = proc.communicate(timeout=10)
    readings = [line.split()[1:] for line in output.splitlines() if line.startswith("READING")]
    assert sim.connections == 1 and not sim.faults, (sim.faults, output[-3000:])
    assert readings and readings[-1][0] == "True", output[-3000:]  # enabled through the DriverStation frames
    left, right, gyro, x, y, heading = (float(v) for v in readings[-1][1:])

    s = sim.physics.signals
    r = sim.physics.result()
    driven = r.t[np.abs(r["drive.left_duty"]) > 0]
    assert 0.9 < driven[-1] - driven[0] < 1.1  # its one second of autonomous driving, held as it arrived
    assert s["drive.x"] > 1.0 and s["drive.heading"] > 0.3  # the robot's outputs drove an arc, turning left
    assert abs(s["drive.velocity"]) < 0.05  # and it stopped
    # the robot's encoders read the simulated wheel travel (from where it started), its gyro the heading
    for reading, travel in ((left, s["drive.left_position"]), (right, s["drive.right_position"])):
        assert abs(reading - travel) <= 0.02 * abs(travel)
    assert abs(gyro + math.degrees(s["drive.heading"])) <= 0.02 * math.degrees(abs(s["drive.heading"]))
    # and the robot's odometry, built from those readings, follows the simulated pose
    assert math.hypot(x - s["drive.x"], y - s["drive.y"]) <= 0.02 * math.hypot(s["drive.x"], s["drive.y"])
    assert abs(heading - s["drive.heading"]) <= 0.02 * abs(s["drive.heading"])


HAL_BEFORE = json.dumps({"type": "HAL", "device": "HAL", "data": {">sim_periodic_before": True}})
HAL_AFTER = json.dumps({"type": "HAL", "device": "HAL", "data": {">sim_periodic_after": True}})


def _same_flywheel_run(duty, seconds):
    """The flywheel of FlywheelPhysics, run by a plain Simulator with the duty held: what the robot's loops should see."""
    from simcore import Simulator

    sim = Simulator([models.Flywheel(NEO, 1.0, 0.002, command="duty"), models.Battery()],
                    inputs={"flywheel.duty": duty})
    sim.advance(seconds)
    return sim.signals


def test_hal_sim_periodic_frames_advance_the_physics_one_loop_period_each_whatever_the_wall_clock():
    sim = _halsim(loop_period=0.02)
    sim._tick(0)
    for frame in (ENABLE, _speed(0.5), HAL_BEFORE):
        sim.handle_frame(frame, now_ns=0)
    assert sim.robot_clock and sim.physics.t == pytest.approx(0.02, abs=1e-15)
    assert sim._collect()  # the sensors after the loop go out at once, for the robot's next loop
    sim.handle_frame(HAL_AFTER, now_ns=1 * MS)  # carries nothing the physics needs
    sim._tick(45 * MS)  # wall-clock ticks no longer advance it: 45 ms of wall time, nothing simulated
    assert sim.physics.t == pytest.approx(0.02, abs=1e-15)
    sim.handle_frame(HAL_BEFORE, now_ns=46 * MS)  # a late loop
    sim.handle_frame(HAL_BEFORE, now_ns=47 * MS)  # and an early one: each is one loop period all the same
    sim._tick(500 * MS)
    assert sim.physics.t == pytest.approx(0.06, abs=1e-15)
    expected = _same_flywheel_run(0.5, 0.06)
    assert sim.physics.signals["flywheel.velocity"] == pytest.approx(expected["flywheel.velocity"], rel=1e-6)
    assert sim.physics.signals["flywheel.duty"] == 0.5
    sim.handle_frame(json.dumps({"type": "HAL", "device": "HAL", "data": {">sim_periodic_before": 1}}), now_ns=0)
    assert "HAL >sim_periodic_before is 1: expected a boolean" in sim.faults[-1]
    assert sim.physics.t == pytest.approx(0.06, abs=1e-15)  # a bad frame is no loop
    sim._robot_gone()  # the robot went away: the wall clock again
    sim._tick(600 * MS)
    sim._tick(610 * MS)
    assert sim.physics.t == pytest.approx(0.07, abs=1e-12)


def test_a_robot_sending_hal_notifications_is_stepped_per_loop_and_sees_the_sensors_before_its_next_loop():
    port = _free_port()
    sim = HalSim(FlywheelPhysics, "127.0.0.1", port, networktables=False, reconnect=0.05, rate=200.0,
                 loop_period=0.02)
    loops, gyro, calls = 8, [], []

    async def handler(ws):
        calls.append(ws)
        await ws.send(ENABLE)
        await ws.send(_speed(0.5))
        for _ in range(loops):
            await ws.send(HAL_BEFORE)
            while True:  # the robot's next loop waits for the sensors of this one
                frame = json.loads(await asyncio.wait_for(ws.recv(), 5.0))
                if frame["type"] == "Gyro":
                    gyro.append(frame["data"][">angle_x"])
                    break
            await ws.send(HAL_AFTER)
            await asyncio.sleep(0.03)  # each robot loop takes 30 ms of wall time, simulated as 20 ms
        async for _ in ws:  # then it idles, connected, until the physics leaves
            pass

    async def scenario():
        async with serve(handler, "127.0.0.1", port):
            await sim.run(1.0)

    asyncio.run(asyncio.wait_for(scenario(), 20.0))
    assert len(calls) == 1 and sim.connections == 1 and not sim.faults
    assert len(gyro) == loops and sim.robot_clock
    # 8 loops of 20 ms whatever the wall clock did (0.24 s of robot loops, then idle to 1.0 s): only the few ms
    # of wall time between the outputs' arrival and the first loop are simulated besides
    t = sim.physics.t
    assert 0.16 <= t < 0.17, t
    angle = sim.physics.signals["flywheel.angle"]
    assert -math.radians(gyro[-1]) == pytest.approx(angle, rel=1e-12)  # the robot saw the state after its last loop
    assert _same_flywheel_run(0.5, 0.16)["flywheel.angle"] <= angle <= _same_flywheel_run(0.5, t)["flywheel.angle"]
    assert all(a > b for a, b in zip(gyro, gyro[1:]))  # clockwise degrees of a counter-clockwise spin


def test_in_server_mode_a_robot_program_running_the_client_extension_connects_and_gets_its_sensors():
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    port = _free_port()
    sim = HalSim(FlywheelPhysics, "127.0.0.1", port, networktables=False, reconnect=0.05, rate=200.0, server=True)
    uri = f"ws://127.0.0.1:{port}/wpilibws"
    got, seen = {}, {}

    async def robot(frames, seconds, name):
        async with connect(uri, open_timeout=2.0) as ws:
            for frame in frames:
                await ws.send(frame)
            end = time.monotonic() + seconds
            frames_in = []
            while time.monotonic() < end:
                try:
                    frames_in.append(json.loads(await asyncio.wait_for(ws.recv(), end - time.monotonic())))
                except asyncio.TimeoutError:
                    break
            seen[name] = sim.physics.signals["flywheel.duty"]
            got[name] = frames_in

    async def refused(path):
        async with connect(f"ws://127.0.0.1:{port}{path}", open_timeout=2.0) as ws:
            try:
                await asyncio.wait_for(ws.recv(), 2.0)
            except ConnectionClosed as exc:
                return exc.rcvd.code
        return None

    async def scenario():
        runner = asyncio.create_task(sim.run(3.0))
        end = time.monotonic() + 5.0
        while True:  # until the server listens
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                assert time.monotonic() < end, "simcore.halsim never listened"
                await asyncio.sleep(0.02)
        encoder = _frame("Encoder", "0", _LT_init=True, _LT_channel_a=4, _LT_channel_b=5)
        first = asyncio.create_task(robot([ENABLE, encoder, _speed(0.5)], 0.6, "first"))
        await asyncio.sleep(0.3)
        second_code = await refused("/wpilibws")  # one robot program at a time
        other_code = await refused("/elsewhere")
        await first
        await asyncio.sleep(0.2)
        away = sim.physics.signals["flywheel.duty"]
        await robot([ENABLE, _speed(-0.75)], 0.3, "again")  # a robot program started again
        await runner
        return second_code, other_code, away

    second_code, other_code, away = asyncio.run(asyncio.wait_for(scenario(), 20.0))
    assert (second_code, other_code) == (1013, 1008)
    assert sim.connections == 2 and not sim.faults
    assert seen == {"first": 0.5, "again": -0.75} and away == 0.0  # its outputs applied, neutral while away
    frames = got["first"]
    counts = [f["data"][">count"] for f in frames if f["type"] == "Encoder" and f["device"] == "0"]
    gyro = [f["data"][">angle_x"] for f in frames if f["type"] == "Gyro"]
    volts = [f["data"][">vin_voltage"] for f in frames if f["type"] == "RoboRIO"]
    assert len(counts) > 10 and counts == sorted(counts) and counts[-1] > 0  # a spinning wheel's pulses
    assert gyro == sorted(gyro, reverse=True) and gyro[-1] < 0  # clockwise degrees of a counter-clockwise spin
    assert min(volts) < 12.6  # the battery sags under the motor's current
    # every count is whole pulses of the angle the gyro shows beside it (both from the same update)
    dpp = 2 * math.pi / 2048
    pairs = [(f["data"][">count"], g["data"][">angle_x"]) for f, g in zip(frames, frames[1:])
             if f["type"] == "Encoder" and g["type"] == "Gyro"]
    assert pairs and all(0.0 <= -math.radians(a) / dpp - c < 1.0 + 1e-9 for c, a in pairs)  # truncated pulses


# -- CAN and vendor motor controllers, by their simulated devices ------------------------------------------------
class CANPhysics(Physics):
    """One description for both: a 2-motor flywheel on a CANMotor of id 3 and its CANEncoder, addressed by CAN id."""

    def __init__(self, physics_controller, robot):
        super().__init__(physics_controller, [models.Flywheel(NEO, 1.0, 0.002, command="duty", n_motors=2),
                                              models.Battery()])
        self.motor("CANMotor[3]", "flywheel.duty")
        self.can_encoder("CANEncoder[3]", "flywheel.angle", ratio=2.0)  # the encoder turns twice per wheel turn


def _neo_current(duty, bus, rotor_speed):
    """One NEO's winding current from its datasheet (12 V, 105 A stall, 1.8 A and 5676 rpm free): (V - w/Kv) / R."""
    r = 12.0 / 105.0
    kv = (5676.0 * 2 * math.pi / 60) / (12.0 - r * 1.8)
    return (duty * bus - rotor_speed / kv) / r


def _by_device(frames):
    out = {}
    for f in frames:
        out.setdefault((f["type"], f["device"]), {}).update(f["data"])
    return out


def _check_can_sensors(data, s):
    motor, encoder = data[("CANMotor", "Talon FX[3]")], data[("CANEncoder", "Talon FX[3]")]
    current = _neo_current(s["flywheel.duty"], s["flywheel.bus_voltage"], s["flywheel.rotor_velocity"])
    assert current > 5.0  # accelerating: a real current, one motor's of the two
    assert motor[">motorCurrent"] == pytest.approx(current, rel=1e-9)
    assert motor[">supplyCurrent"] == pytest.approx(s["flywheel.duty"] * current, rel=1e-9)  # an ideal bridge
    assert motor[">busVoltage"] == s["battery.voltage"] < 12.6
    assert encoder[">position"] == pytest.approx(2.0 * s["flywheel.angle"] / (2 * math.pi), rel=1e-12)  # rotations
    assert encoder[">velocity"] == pytest.approx(2.0 * s["flywheel.velocity"] / (2 * math.pi), rel=1e-12)


CAN_ANNOUNCE = [
    _frame("CANMotor", "Talon FX[3]", _LT_init=True, _LT_percentOutput=0.0, _LT_brakeMode=True,
           _LT_neutralDeadband=0.04, _GT_supplyCurrent=0.0, _GT_motorCurrent=0.0, _GT_busVoltage=0.0),
    _frame("CANEncoder", "Talon FX[3]", _LT_init=True, _GT_position=0.0, _GT_velocity=0.0),
    _frame("CANMotor", "Talon FX[4]", _LT_init=True, _LT_percentOutput=0.9),  # another id: not bound
]


def _percent(value, device="Talon FX[3]", **more):
    return _frame("CANMotor", device, _LT_percentOutput=value, **more)


def test_a_can_motor_by_can_id_drives_its_duty_and_reads_back_its_current_bus_and_encoder():
    sim = HalSim(CANPhysics, "127.0.0.1", 1, networktables=False)
    sim._tick(0)
    assert sim._tick(1 * MS) == []  # nothing announced: no one to tell
    for frame in [ENABLE] + CAN_ANNOUNCE + [_percent(0.5)]:
        assert sim.handle_frame(frame, now_ns=2 * MS)
    data = _by_device(json.loads(f) for f in sim._tick(80 * MS))
    s = sim.physics.signals
    assert s["flywheel.duty"] == 0.5 and s["flywheel.brake"] == 1.0
    _check_can_sensors(data, s)
    assert ("CANMotor", "Talon FX[4]") not in data

    # within the neutral deadband the controller is in neutral, coasting or braking as it says
    sim.handle_frame(_percent(0.03, _LT_brakeMode=False), now_ns=90 * MS)
    sim._tick(100 * MS)
    assert (sim.physics.signals["flywheel.duty"], sim.physics.signals["flywheel.brake"]) == (0.0, 0.0)
    sim.handle_frame(_percent(0.03, _LT_brakeMode=True), now_ns=100 * MS)
    sim._tick(110 * MS)
    assert (sim.physics.signals["flywheel.duty"], sim.physics.signals["flywheel.brake"]) == (0.0, 1.0)
    # disabled, a controller goes to neutral in its own neutral mode (a roboRIO disables outputs, not brake mode)
    sim.handle_frame(_percent(0.5, _LT_brakeMode=False), now_ns=110 * MS)
    sim.handle_frame(json.dumps({"type": "DriverStation", "device": "", "data": {">enabled": False}}), now_ns=110 * MS)
    sim._tick(120 * MS)
    assert (sim.physics.signals["flywheel.duty"], sim.physics.signals["flywheel.brake"]) == (0.0, 0.0)
    # a wrongly typed value of a key simcore reads is a fault, skipped whole
    assert not sim.handle_frame(_percent("full"), now_ns=110 * MS)
    assert not sim.handle_frame(_frame("CANMotor", "Talon FX[3]", _LT_brakeMode="on"), now_ns=110 * MS)
    assert "CANMotor <percentOutput is 'full'" in sim.faults[0] and "CANMotor <brakeMode is 'on'" in sim.faults[1]


def test_a_can_id_two_devices_share_is_not_guessed():
    sim = HalSim(CANPhysics, "127.0.0.1", 1, networktables=False)
    sim._tick(0)
    for frame in [ENABLE] + CAN_ANNOUNCE + [_percent(0.5), _percent(0.7, device="SPARK MAX[3]")]:
        sim.handle_frame(frame, now_ns=0)
    frames = _by_device(json.loads(f) for f in sim._tick(20 * MS))
    assert sim.physics.signals["flywheel.duty"] == 0.0 and ("CANMotor", "Talon FX[3]") not in frames


def test_a_rev_spark_by_its_device_name_drives_from_applied_output_in_its_conversion_factors():
    class SparkPhysics(Physics):
        def __init__(self, physics_controller, robot):
            super().__init__(physics_controller, [models.Flywheel(NEO, 4.0, 0.002, command="duty"), models.Battery()])
            self.motor("SPARK MAX [5]", "flywheel.duty", inverted=True)

    sim = HalSim(SparkPhysics, "127.0.0.1", 1, networktables=False)
    sim._tick(0)
    spark = _frame("SimDevice", "SPARK MAX [5]", _LT_Setpoint=-0.6, **{"_LT_Applied Output": -0.6, "_GT_Position": 0.0,
                   "_GT_Velocity": 0.0, "_LT__GT_Motor Current": 0.0, "_LT__GT_Bus Voltage": 12.0})
    encoder = _frame("SimDevice", "SPARK MAX [5] RELATIVE ENCODER", **{
        "_GT_Position": 0.0, "_GT_Velocity": 0.0, "_LT_Position Conversion Factor": 0.25,
        "_LT_Velocity Conversion Factor": 0.5})
    for frame in (ENABLE, spark, encoder):
        assert sim.handle_frame(frame, now_ns=0)
    data = _by_device(json.loads(f) for f in sim._tick(60 * MS))
    s = sim.physics.signals
    assert s["flywheel.duty"] == 0.6  # mounted inverted: the SPARK's -0.6 turns the wheel forward
    out, enc = data[("SimDevice", "SPARK MAX [5]")], data[("SimDevice", "SPARK MAX [5] RELATIVE ENCODER")]
    rotor_turns = 4.0 * s["flywheel.angle"] / (2 * math.pi)  # the motor turns 4 times per wheel turn
    rotor_rpm = 4.0 * s["flywheel.velocity"] * 60 / (2 * math.pi)
    for device in (out, enc):  # in the SPARK's frame (inverted) and units (its conversion factors)
        assert device[">Position"] == pytest.approx(-0.25 * rotor_turns, rel=1e-12) and rotor_turns > 0.1
        assert device[">Velocity"] == pytest.approx(-0.5 * rotor_rpm, rel=1e-12)
    # values the robot announced as both ways go back under their own key
    assert "<>Bus Voltage" in out and out["<>Bus Voltage"] == s["battery.voltage"] < 12.6
    current = _neo_current(s["flywheel.duty"], s["flywheel.bus_voltage"], s["flywheel.rotor_velocity"])
    assert out["<>Motor Current"] == pytest.approx(-current, rel=1e-9) and current > 5.0
    assert not sim.handle_frame(_frame("SimDevice", "SPARK MAX [5]", **{"_LT_Applied Output": None}), now_ns=0)
    assert "SimDevice <Applied Output is None" in sim.faults[-1]


def test_device_addresses_that_name_nothing_simulated_are_refused_naming_them():
    for address, parameter in (("Talon FX[3]", "controller"), ("CANMotor", "controller"), (3.5, "controller")):
        class Bad(Physics):
            def __init__(self, controller, robot, address=address):
                super().__init__(controller, [models.Flywheel(NEO, 1.0, 0.002, command="duty")])
                self.motor(address, "flywheel.duty")

        with pytest.raises((ConfigError, TypeError), match=parameter):
            HalSim(Bad, "127.0.0.1", 1, networktables=False)

    class NotAnEncoder(Physics):
        def __init__(self, controller, robot):
            super().__init__(controller, [models.Flywheel(NEO, 1.0, 0.002, command="duty")])
            self.can_encoder("CANMotor[3]", "flywheel.angle")

    with pytest.raises(ConfigError, match="encoder.*CANEncoder"):
        HalSim(NotAnEncoder, "127.0.0.1", 1, networktables=False)


def test_can_devices_over_a_loopback_stand_in_robot_program():
    port = _free_port()
    sim = HalSim(CANPhysics, "127.0.0.1", port, networktables=False, reconnect=0.05, rate=200.0)
    received = []

    async def handler(ws):
        for frame in [ENABLE] + CAN_ANNOUNCE + [_percent(0.5)]:
            await ws.send(frame)
        async for frame in ws:
            received.append(json.loads(frame))

    async def scenario():
        async with serve(handler, "127.0.0.1", port):
            await sim.run(0.5)

    asyncio.run(asyncio.wait_for(scenario(), 20.0))
    assert sim.connections == 1 and not sim.faults
    data = _by_device(received)  # the last value of each key: the state at the last tick sent
    s = sim.physics.signals
    assert data[("CANEncoder", "Talon FX[3]")][">position"] == pytest.approx(2.0 * s["flywheel.angle"] / (2 * math.pi),
                                                                              rel=0.05)
    assert data[("CANMotor", "Talon FX[3]")][">busVoltage"] < 12.6


def test_the_same_can_description_binds_the_robot_programs_own_simulated_devices_under_robotpy():
    hal = pytest.importorskip("hal")
    import wpilib.simulation as wsim

    out, inputs = hal.SimDevice.Direction.kOutput, hal.SimDevice.Direction.kInput
    motor = hal.SimDevice("CANMotor:Talon FX", 3)
    percent = motor.createDouble("percentOutput", out, 0.0)
    motor.createBoolean("brakeMode", out, True)
    motor.createDouble("neutralDeadband", out, 0.04)
    values = {k: motor.createDouble(k, inputs, 0.0) for k in ("supplyCurrent", "motorCurrent", "busVoltage")}
    encoder = hal.SimDevice("CANEncoder:Talon FX", 3)
    values.update({k: encoder.createDouble(k, inputs, 0.0) for k in ("position", "velocity")})
    wsim.DriverStationSim.setDsAttached(True)
    wsim.DriverStationSim.setEnabled(True)
    wsim.DriverStationSim.notifyNewData()
    try:
        physics = CANPhysics(None, None)
        percent.set(0.5)
        physics.update_sim(0.0, 0.08)
        s = physics.signals
        data = {("CANMotor", "Talon FX[3]"): {f">{k}": values[k].get() for k in ("supplyCurrent", "motorCurrent",
                                                                                  "busVoltage")},
                ("CANEncoder", "Talon FX[3]"): {f">{k}": values[k].get() for k in ("position", "velocity")}}
        assert s["flywheel.duty"] == 0.5
        _check_can_sensors(data, s)
    finally:
        wsim.DriverStationSim.setEnabled(False)
        wsim.DriverStationSim.notifyNewData()


def test_a_can_motor_with_another_vendors_keys_is_named_not_read_as_zero_silently(caplog):
    hal = pytest.importorskip("hal")
    phoenix_like = hal.SimDevice("CANMotor:Vendor Motor", 3)  # a vendor's own keys under the protocol's type
    phoenix_like.createDouble("dutyCycle", hal.SimDevice.Direction.kOutput, 0.0)
    with pytest.raises(ConfigError, match="controller.*percentOutput.*dutyCycle"):
        CANPhysics(None, None)  # under robotpy: refused at binding, naming the values it has
    sim = HalSim(CANPhysics, "127.0.0.1", 1, networktables=False)
    sim._tick(0)
    sim.handle_frame(_frame("CANMotor", "Talon FX (v6)[3]", _LT_init=True, _LT_dutyCycle=0.5), now_ns=0)
    sim._tick(10 * MS)
    assert "announced no 'percentOutput' value" in caplog.text and "<dutyCycle" in caplog.text
