"""The simulated truth on NetworkTables, read back by an NT4 client as AdvantageScope reads it.

A server instance (the robot program's role) carries the LiveView; a second instance connects
to it over loopback as a client and decodes the struct topics' raw bytes by WPILib's documented
layouts (little-endian, packed doubles) with the standard library, not with wpimath.
"""
import math
import socket
import struct
import time

import pytest

ntcore = pytest.importorskip("ntcore", reason="the robotpy extra (pyntcore) is not installed")
pytest.importorskip("wpimath.geometry", reason="the robotpy extra (wpimath) is not installed")

import simcore.models as models  # noqa: E402
from simcore import Simulator  # noqa: E402
from simcore.errors import ConfigError  # noqa: E402
from simcore.live_view import LiveView  # noqa: E402
from simcore.models.motors import KRAKEN_X60, NEO  # noqa: E402

DEADLINE = 10.0  # s: bound on every wait for the loopback connection and its values


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server_and_client():
    port = _free_port()
    server = ntcore.NetworkTableInstance.create()
    server.startServer("", "127.0.0.1", 0, port)
    client = ntcore.NetworkTableInstance.create()
    client.startClient4("simcore-test")
    client.setServer("127.0.0.1", port)
    # as AdvantageScope does: subscribe to every topic, so the client learns them all with their properties
    everything = ntcore.MultiSubscriber(client, ["/"])
    end = time.monotonic() + DEADLINE
    while not client.isConnected():
        assert time.monotonic() < end, "the NT4 client did not connect over loopback"
        time.sleep(0.01)
    try:
        yield server, client
    finally:
        everything.close()
        client.stopClient()
        server.stopServer()
        ntcore.NetworkTableInstance.destroy(client)
        ntcore.NetworkTableInstance.destroy(server)


def _raw(client, name, type_string):
    """The bytes of ``name`` once the client has them (and the type string the server announced)."""
    sub = client.getRawTopic(name).subscribe(type_string, b"")
    end = time.monotonic() + DEADLINE
    while True:
        value = sub.get()
        if value:
            return bytes(value), client.getTopic(name).getTypeString()
        assert time.monotonic() < end, f"no value of {name} reached the client"
        time.sleep(0.01)


def _wait_for_time(client, t):
    sub = client.getDoubleTopic("/simcore/time").subscribe(-1.0)
    end = time.monotonic() + DEADLINE
    while sub.get() != t:
        assert time.monotonic() < end, "the client never saw the published time"
        time.sleep(0.01)


def test_a_drivetrains_pose_reaches_a_client_as_struct_pose2d_and_pose3d(server_and_client):
    server, client = server_and_client
    drive = models.TankDrive(NEO, 8.45, n_motors_per_side=2, wheel_radius=0.0762, track_width=0.6, mass=50.0,
                             moi=models.rectangle_moi(50.0, 0.8, 0.8))
    sim = Simulator([drive, models.Battery()], inputs={"drive.left_voltage": 6.0, "drive.right_voltage": 9.0})
    view = LiveView(sim.systems, server)
    sim.advance(0.7)
    s = sim.signals
    assert s["drive.heading"] > 0.2 and s["drive.x"] > 0.3  # an arc: every component of the pose is non-trivial
    view.publish(sim.t, s)
    server.flush()
    _wait_for_time(client, sim.t)

    raw, type_string = _raw(client, "/simcore/drive/pose", "struct:Pose2d")
    assert type_string == "struct:Pose2d" and len(raw) == 24
    x, y, rotation = struct.unpack("<3d", raw)  # Translation2d(x, y), Rotation2d(value): packed doubles
    assert abs(x - s["drive.x"]) <= 1e-9 and abs(y - s["drive.y"]) <= 1e-9
    assert abs(rotation - s["drive.heading"]) <= 1e-9

    raw, type_string = _raw(client, "/simcore/drive/pose3d", "struct:Pose3d")
    assert type_string == "struct:Pose3d" and len(raw) == 56
    x, y, z, qw, qx, qy, qz = struct.unpack("<7d", raw)  # Translation3d, then Rotation3d's Quaternion(w, x, y, z)
    assert (abs(x - s["drive.x"]), abs(y - s["drive.y"]), z) <= (1e-9, 1e-9, 0.0)
    assert abs(2.0 * math.atan2(qz, qw) - s["drive.heading"]) <= 1e-9 and qx == qy == 0.0
    assert abs(qw * qw + qz * qz - 1.0) <= 1e-12

    # the layouts AdvantageScope needs to decode them are on the server too
    topics = {t.getName(): t.getTypeString() for t in client.getTopics()}
    for schema in ("Pose2d", "Translation2d", "Rotation2d", "Pose3d", "Translation3d", "Rotation3d", "Quaternion"):
        assert topics.get(f"/.schema/struct:{schema}") == "structschema"

    # every signal a double with its unit; the battery's voltage and the supply current among them
    volts = client.getDoubleTopic("/simcore/battery/voltage")
    assert volts.getProperty("unit") == "volts"
    assert client.getDoubleTopic("/simcore/drive/supply_current").getProperty("unit") == "amps"
    assert volts.subscribe(0.0).get() == s["battery.voltage"] < 12.6  # it sags under the drive's current
    assert client.getDoubleTopic("/simcore/drive/left_velocity").getProperty("unit") == "meters per second"
    assert set(view.topics) <= set(topics)


def test_swerve_module_states_reach_a_client_as_struct_swerve_module_state_array(server_and_client):
    server, client = server_and_client
    positions = [(0.3, 0.3), (0.3, -0.3), (-0.3, 0.3), (-0.3, -0.3)]
    swerve = models.SwerveDrive(KRAKEN_X60, NEO, module_positions=positions, drive_gearing=6.75, steer_gearing=21.4,
                                wheel_radius=0.05, mass=50.0, moi=5.0)
    inputs = {f"swerve.drive_voltage_{i}": 3.0 + i for i in range(4)}
    inputs.update({f"swerve.steer_voltage_{i}": 0.5 - 0.3 * i for i in range(4)})
    sim = Simulator([swerve], inputs=inputs)
    view = LiveView(sim.systems, server, prefix="/sim/truth")
    sim.advance(0.4)
    s = sim.signals
    view.publish(sim.t, s)
    server.flush()
    raw, type_string = _raw(client, "/sim/truth/swerve/module_states", "struct:SwerveModuleState[]")
    assert type_string == "struct:SwerveModuleState[]" and len(raw) == 4 * 16
    values = struct.unpack("<8d", raw)  # per module: speed (m/s), Rotation2d (rad)
    for i in range(4):
        speed, angle = values[2 * i], values[2 * i + 1]
        assert abs(speed - s[f"swerve.wheel_speed_{i}"]) <= 1e-9 and abs(angle - s[f"swerve.steer_angle_{i}"]) <= 1e-9
    assert len({round(v, 6) for v in values}) == 8  # distinct speeds and angles: the order of modules is checked
    pose, _ = _raw(client, "/sim/truth/swerve/pose", "struct:Pose2d")
    assert struct.unpack("<3d", pose) == (s["swerve.x"], s["swerve.y"], s["swerve.heading"])


def test_a_bad_prefix_or_instance_is_refused_naming_it():
    drive = models.Flywheel(NEO, 1.0, 0.002)
    inst = ntcore.NetworkTableInstance.create()
    try:
        with pytest.raises(ConfigError, match="prefix"):
            LiveView([drive], inst, prefix="simcore/")
        with pytest.raises(TypeError, match="instance"):
            LiveView([drive], "localhost")
    finally:
        ntcore.NetworkTableInstance.destroy(inst)


def _rotate(v, axis, angle):
    """Rodrigues' rotation of v about the unit vector axis by angle (rad), in plain floats."""
    c, s = math.cos(angle), math.sin(angle)
    dot = sum(a * b for a, b in zip(axis, v))
    cross = (axis[1] * v[2] - axis[2] * v[1], axis[2] * v[0] - axis[0] * v[2], axis[0] * v[1] - axis[1] * v[0])
    return tuple(v[i] * c + cross[i] * s + axis[i] * dot * (1 - c) for i in range(3))


def _quaternion_rotate(q, v):
    """v rotated by the unit quaternion q = (w, x, y, z): q v q*, expanded."""
    w, x, y, z = q
    t = (2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0]))
    return (v[0] + w * t[0] + (y * t[2] - z * t[1]), v[1] + w * t[1] + (z * t[0] - x * t[2]),
            v[2] + w * t[2] + (x * t[1] - y * t[0]))


def test_arm_and_elevator_joints_reach_a_client_as_robot_relative_pose3d_components(server_and_client):
    server, client = server_and_client
    arm = models.Arm(NEO, 100, mass=2.0, com_distance=0.4, min_angle=-1.0, max_angle=2.5, start_angle=0.3,
                     command="duty")
    lift = models.Elevator(NEO, 10, carriage_mass=5.0, drum_radius=0.02, min_height=0.0, max_height=1.5,
                           start_height=0.2, command="duty", name="lift")
    sim = Simulator([lift, arm, models.Battery()], inputs={"arm.duty": 0.6, "lift.duty": 0.8})
    pivot, axis = (0.1, 0.05, 0.5), (0.0, -1.0, 0.0)
    view = LiveView(sim.systems, server, components={"arm": {"pivot": pivot}})
    sim.advance(0.3)
    s = sim.signals
    assert s["arm.angle"] > 0.4 and s["lift.position"] > 0.3  # both moved: the poses are not the start's
    view.publish(sim.t, s)
    server.flush()
    _wait_for_time(client, sim.t)
    raw, type_string = _raw(client, "/simcore/components", "struct:Pose3d[]")
    assert type_string == "struct:Pose3d[]" and len(raw) == 2 * 56  # one per joint, in the order of systems
    lift_pose, arm_pose = struct.unpack("<7d", raw[:56]), struct.unpack("<7d", raw[56:])

    # the elevator: translated by its height along the robot's z, unrotated
    assert lift_pose[:2] == (0.0, 0.0) and abs(lift_pose[2] - s["lift.position"]) <= 1e-9
    assert lift_pose[3:] == (1.0, 0.0, 0.0, 0.0)

    # the arm: rotated by its angle about -y through the pivot, so the pivot stays and a point on the arm turns
    theta = s["arm.angle"]
    q = arm_pose[3:]
    assert abs(q[0] - math.cos(theta / 2)) <= 1e-9 and abs(q[2] + math.sin(theta / 2)) <= 1e-9
    assert q[1] == 0.0 and q[3] == 0.0
    t = arm_pose[:3]

    def placed(p):  # a model point of the component, where the pose puts it
        r = _quaternion_rotate(q, p)
        return tuple(r[i] + t[i] for i in range(3))

    assert all(abs(a - b) <= 1e-9 for a, b in zip(placed(pivot), pivot))
    tip = (pivot[0] + 0.8, pivot[1], pivot[2])  # the arm's tip, pointing forward at angle 0
    expected = tuple(pivot[i] + d for i, d in enumerate(_rotate((0.8, 0.0, 0.0), axis, theta)))
    assert all(abs(a - b) <= 1e-9 for a, b in zip(placed(tip), expected))
    assert expected[2] > pivot[2] and expected[0] < tip[0]  # a positive angle raised it
    topics = {tp.getName(): tp.getTypeString() for tp in client.getTopics()}
    assert topics.get("/.schema/struct:Pose3d") == "structschema"


def test_components_naming_no_arm_or_a_bad_axis_are_refused_naming_them():
    arm = models.Arm(NEO, 100, mass=2.0, com_distance=0.4, min_angle=-1.0, max_angle=2.5, command="duty")
    inst = ntcore.NetworkTableInstance.create()
    try:
        with pytest.raises(ConfigError, match="components.*'wrist'"):
            LiveView([arm], inst, components={"wrist": {"pivot": (0, 0, 0)}})
        with pytest.raises(ConfigError, match=r"components\['arm'\]\['axis'\]"):
            LiveView([arm], inst, components={"arm": {"axis": (0, 0, 0)}})
        with pytest.raises(TypeError, match=r"components\['arm'\]\['pivot'\]"):
            LiveView([arm], inst, components={"arm": {"pivot": 0.5}})
    finally:
        ntcore.NetworkTableInstance.destroy(inst)
