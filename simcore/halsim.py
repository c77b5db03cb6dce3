"""simcore as the physics of any WPILib robot program, through WPILib's HALSim WebSocket protocol.

The contract
------------
A robot program in Java, C++ or Python started with WPILib's WebSocket server
extension (Java/C++: ``wpi.sim.addWebsocketsServer()`` in ``build.gradle``;
robotpy: ``python -m robotpy sim --ws-server``, package ``robotpy-halsim-ws``) sends
the state of its hardware as JSON text frames ``{"type", "device", "data"}`` on
``ws://<host>:<port>/wpilibws`` (port 3300 by default) and takes sensor values the
same way. Keys of ``data`` beginning ``<`` are the robot's outputs, ``>`` its inputs,
``<>`` both; each frame carries only what changed. (WPILib's specification of the
protocol: ``simulation/halsim_ws_core/doc/hardware_ws_api.md`` in allwpilib.)

:class:`HalSim` is the physics side, a client of that server (or a server: below). It builds the same
``PhysicsEngine`` (a :class:`simcore.robotpy.Physics` subclass) robotpy loads from
``physics.py``, with the protocol's devices in place of wpilib's simulated ones, so
one physics description serves both when it addresses devices as the protocol
does:

=====================================  ===========================================================
binding in ``physics.py``               protocol
=====================================  ===========================================================
``motor(channel, ...)``                 ``PWM`` device ``"<channel>"``: ``<speed`` in
``encoder(channel_a, ...,               ``Encoder`` whose ``<channel_a`` is ``channel_a``: ``>count``
distance_per_pulse=...)``               (whole pulses), ``>period`` (s, signed; the largest double at rest)
``gyro("ADXRS450[0]", ...)``            ``Gyro`` device ``"ADXRS450[0]"``: ``>angle_x``, ``>rate_x`` (degrees)
``duty_cycle_encoder(channel, ...)``    ``DutyCycle`` ``"DutyCycleEncoder[<channel>]"``: ``>Position``
``limit_switch(channel, ...)``          ``DIO`` ``"<channel>"``: ``<>value``
``motor("CANMotor[3]", ...)``           ``CANMotor`` device ``"<type>[3]"`` (any type; or
                                        ``"CANMotor:<type>[3]"``, that one): ``<percentOutput``
                                        (neutral within ``<neutralDeadband``), ``<brakeMode`` (the
                                        mechanism's ``brake`` input); ``>supplyCurrent``,
                                        ``>motorCurrent`` (A, one motor's: the mechanism's totals over
                                        its ``n_motors``), ``>busVoltage``
``can_encoder("CANEncoder[3]", ...)``   ``CANEncoder``: ``>position`` (rotations), ``>velocity`` (rotations/s)
``motor("SPARK MAX [3]", ...)``         ``SimDevice`` ``"SPARK MAX [3]"`` (REVLib's; ``"SPARK Flex [3]"``
                                        too): ``Applied Output`` in (or ``value=``, e.g. ``"Setpoint"``);
                                        ``Bus Voltage``, ``Motor Current``, rotor ``Position`` and
                                        ``Velocity`` (rotations, rpm, times the conversion factors the
                                        robot announced on ``"SPARK MAX [3] RELATIVE ENCODER"``, which
                                        is written too) out
``battery()``                           ``RoboRIO``: ``>vin_voltage``
``networktables()``                     NetworkTables 4 client of the robot program's server
``field(...)``                          the drivetrain's pose on NetworkTables (no Field2d here)
=====================================  ===========================================================

WPILib's 2026 WebSocket extension carries no ``AnalogGyro`` and no power
distribution: those bindings are refused naming the binding.

A simulated device's inputs go out once the robot has announced the device, under
the key it announced them with (``>name``, or ``<>name`` for a value both ways). The
protocol says hardware should send only one of ``>supplyCurrent`` and
``>motorCurrent``; simcore knows both and sends both. Vendor libraries name their
own simulated devices: a CTRE phoenix6 TalonFX registers ``"CANMotor:Talon FX (v6)[n]"``
with ``dutyCycle``/``supplyVoltage`` rather than the protocol's keys, so it is not a
``CANMotor`` here; its rotor sensor ``"CANEncoder:Talon FX (v6)[n]/Rotor Sensor"`` is a
``can_encoder``. The REV SPARK computes ``Applied Output`` in REVLib's ``SparkSim``: a
robot program that does not run one leaves it at 0, and ``value="Setpoint"`` reads
the duty of a SPARK in duty-cycle control instead. Under robotpy, the same string
addresses bind the robot program's own simulated devices (``SimDeviceSim``).

**Time.** The protocol carries no simulation time: the robot program runs on the
wall clock. The simulation advances by the wall clock (``time.monotonic_ns``) in
ticks at a fixed rate (``rate``, 200 Hz by default) at which the sensors are sent;
each robot output is a zero-order hold from the instant its frame arrives (the
simulation is advanced to that instant with the previous outputs, then the new one
applies). While the robot is disabled (its ``DriverStation`` ``>enabled`` false) or
not connected, every motor output is neutral, as on a roboRIO. Results depend on
when frames arrive: **determinism is not promised** here (a robotpy program under
``robotpy test`` is deterministic; this is not). :attr:`HalSim.lag` measures how
late the simulation runs: for each robot output, the wall time from its arrival to
the first sensor frame sent after it, and for each tick, how late it ran.

**The robot's loop as the clock (XRP mode).** A robot program whose WebSocket
extension runs in XRP mode sends a ``HAL`` frame with ``>sim_periodic_before`` true
each time it is about to run its simulation periodic code (once per robot loop,
after the loop's own code wrote its outputs), and one with ``>sim_periodic_after``
after it. From the first ``>sim_periodic_before`` on, the physics advances on those
frames instead of the wall clock: each one advances it exactly ``loop_period``
(``--loop-period``, 0.02 s, a ``TimedRobot``'s default period) with the outputs the
loop wrote held, as ``robotpy sim`` does, and the sensors are sent at once, for the
robot's next loop; the fixed-rate ticks then only send. ``>sim_periodic_after``
carries nothing the physics needs. The simulated time then counts robot loops, not
wall time, so it stays in step with the robot however late the loops run (still no
determinism: which loop a frame falls in depends on the wall clock). When the robot
program goes away the wall clock takes over again.

**Faults.** A frame that is not JSON, not an object of the three keys, of a type
the protocol does not define, or whose values have the wrong JSON type for a key
simcore reads (a ``<speed`` that is not a finite number, a ``<>value`` that is not
a boolean) is skipped whole, with a message naming the frame (logged on the
``simcore.halsim`` logger and kept in :attr:`HalSim.faults`): nothing of it applies.
A robot program that stops (or is killed) leaves its outputs neutral; the physics
keeps running and reconnects every ``reconnect`` seconds; the restarted program
sends its whole state again and its frames apply.

**Server mode.** WPILib also ships the protocol's client extension
(``halsim_ws_client``: Java/C++ ``wpi.sim.addWebsocketsClient()``), with which the robot
program connects to ``ws://HALSIMWS_HOST:HALSIMWS_PORT/wpilibws`` (environment
variables; localhost:3300 by default). ``server=True`` (``--server``) makes
:class:`HalSim` that server: it listens on ``host``:``port`` at ``/wpilibws``, takes
one robot program at a time (a second connection is closed with code 1013, as the
protocol asks, and another resource with 1008) and otherwise behaves as the client
does: the physics runs while no robot is connected, a robot that leaves has its
outputs neutral, and the next one's frames apply.

Start it from a command line::

    python -m simcore.halsim physics.py --host localhost --port 3300
    python -m simcore.halsim physics.py --server --port 3300   # for the client extension

It prints what it bound and, every few seconds, the lag. ``--enable auto`` (or
``teleop``) also sends the DriverStation frames that enable the robot, for a robot
without a Driver Station.
"""
from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import logging
import math
import pathlib
import statistics
import sys
import time
import types

from . import checks
from .errors import ConfigError, ConfigTypeError
from .extras import require
from .robotpy import matches

__all__ = ["HalSim", "load_physics", "DEFAULT_PORT", "PROTOCOL_TYPES", "main"]

log = logging.getLogger("simcore.halsim")

#: The protocol's standard port.
DEFAULT_PORT = 3300
#: Every message type of WPILib's protocol (2026): frames of other types are faults.
PROTOCOL_TYPES = frozenset({
    "Accel", "AddressableLED", "AI", "AO", "CTREPCM", "DIO", "dPWM", "DriverStation", "DutyCycle", "Encoder",
    "Gyro", "HAL", "Joystick", "PWM", "Relay", "Solenoid", "RoboRIO", "REVPH", "PowerDistribution", "SimDevice",
    "CANMotor", "CANEncoder", "CANGyro", "CANAccel", "CANAIn", "CANDIO", "CANDutyCycle"})
#: A period WPILib's encoders read as "not moving" (the robot program itself sends the largest double).
_AT_REST = sys.float_info.max


def _finite_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


#: The JSON type of each key simcore reads, by message type: a frame with another type is a fault.
_READ_KEYS = {
    ("PWM", "<speed"): (_finite_number, "a finite number"),
    ("DriverStation", ">enabled"): (lambda v: isinstance(v, bool), "a boolean"),
    ("Encoder", "<channel_a"): (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
    ("DIO", "<>value"): (lambda v: isinstance(v, bool), "a boolean"),
    ("CANMotor", "<percentOutput"): (_finite_number, "a finite number"),
    ("CANMotor", "<neutralDeadband"): (_finite_number, "a finite number"),
    ("CANMotor", "<brakeMode"): (lambda v: isinstance(v, bool), "a boolean"),
    ("SimDevice", "<Applied Output"): (_finite_number, "a finite number"),
    ("SimDevice", "<>Applied Output"): (_finite_number, "a finite number"),
    ("HAL", ">sim_periodic_before"): (lambda v: isinstance(v, bool), "a boolean"),
    ("HAL", ">sim_periodic_after"): (lambda v: isinstance(v, bool), "a boolean"),
}


class _Link:
    """What the robot program last said (its outputs, as held) and what is to be sent to it."""

    def __init__(self):
        self.outputs: dict[tuple[str, str], dict] = {}
        self.pending: dict[tuple[str, str], dict] = {}
        self.enabled = False
        self.encoders: dict[int, str] = {}  # channel A -> the protocol's encoder device
        # the outputs a binding reads: a change of one of them is a step of a held input
        self.watched: set[tuple[str, str, str]] = {("DriverStation", "", ">enabled")}
        self.watched_devices: list[tuple[str, object]] = []  # (type, device address): any of its outputs
        self.keys: dict[tuple[str, str], set[str]] = {}  # every key each device has announced
        self._ambiguous: set[tuple[str, object]] = set()
        self.told: set[tuple[str, str]] = set()  # devices already warned of a missing value

    def watches(self, type_, device, key):
        return (type_, device, key) in self.watched or any(
            t == type_ and matches(d, device) for t, d in self.watched_devices)

    def resolve(self, type_, device):
        """The announced device ``device`` (a name, or ``("[n]",)``: by CAN id) means, or None (not yet, or two)."""
        if not isinstance(device, tuple):
            return device if (type_, device) in self.keys else None
        found = [d for t, d in self.keys if t == type_ and matches(device, d)]
        if len(found) > 1 and (type_, device) not in self._ambiguous:
            self._ambiguous.add((type_, device))
            log.warning("%s%s matches several devices the robot announced (%s): give the full name, "
                        "\"%s:<type>%s\"", type_, device[0], ", ".join(sorted(found)), type_, device[0])
        return found[0] if len(found) == 1 else None

    def value(self, type_, device, key, default):
        return self.outputs.get((type_, device), {}).get(key, default)

    def send(self, type_, device, key, value):
        self.pending.setdefault((type_, device), {})[key] = value

    def apply(self, type_, device, data):
        self.outputs.setdefault((type_, device), {}).update(data)
        if type_ == "DriverStation" and ">enabled" in data:
            self.enabled = data[">enabled"]
        if type_ == "Encoder" and "<channel_a" in data:
            for channel, dev in list(self.encoders.items()):
                if dev == device:
                    del self.encoders[channel]
            self.encoders[data["<channel_a"]] = device

    def forget_robot(self):
        """The robot program went away: its outputs are no longer held, its encoders to be announced again."""
        self.outputs.clear()
        self.keys.clear()
        self._ambiguous.clear()
        self.told.clear()
        self.enabled = False
        self.encoders.clear()


# -- the protocol's devices, with the calls simcore.robotpy's bindings make of wpilib's sims -------
class _PWMSim:
    def __init__(self, link, channel):
        if isinstance(channel, bool) or not isinstance(channel, int):
            raise ConfigTypeError("controller", channel, "a PWM channel (int): through the HALSim protocol a motor "
                                                         "controller is addressed by its channel")
        self.link, self.device = link, str(channel)
        self.address = f"PWM {channel} <speed"
        link.watched.add(("PWM", self.device, "<speed"))

    def getSpeed(self):
        return self.link.value("PWM", self.device, "<speed", 0.0)


class _EncoderSim:
    def __init__(self, link, channel_a):
        self.link, self.channel_a, self.dpp = link, channel_a, 0.0
        self.address = f"Encoder of channel A {channel_a} >count >period"
        self.count, self.period = 0, _AT_REST

    def getDistancePerPulse(self):
        return self.dpp

    def setDistancePerPulse(self, dpp):
        self.dpp = dpp

    def _need_dpp(self):
        if self.dpp == 0.0:
            raise ConfigError("distance_per_pulse", None, f"the distance per pulse robot code sets on the encoder "
                                                          f"of channel {self.channel_a} (the HALSim protocol carries "
                                                          f"pulse counts only)")

    def setDistance(self, distance):
        self._need_dpp()
        self.count = int(distance / self.dpp)  # whole pulses, truncated as WPILib's EncoderSim.setDistance does
        self._send()

    def setRate(self, rate):
        self._need_dpp()
        self.period = self.dpp / rate if rate != 0.0 else _AT_REST  # signed, as EncoderSim.setRate
        self._send()

    def _send(self):
        device = self.link.encoders.get(self.channel_a)
        if device is not None:  # before the robot announces the encoder, there is no one to tell
            self.link.send("Encoder", device, ">count", self.count)
            self.link.send("Encoder", device, ">period", self.period)


class _DutyCycleEncoderSim:
    def __init__(self, link, channel):
        if isinstance(channel, bool) or not isinstance(channel, int):
            raise ConfigTypeError("encoder", channel, "a duty-cycle encoder's DIO channel (int)")
        self.link, self.device = link, f"DutyCycleEncoder[{channel}]"
        self.address = f"DutyCycle {self.device} >Position"

    def set(self, value):
        self.link.send("DutyCycle", self.device, ">Position", value)


class _DIOSim:
    def __init__(self, link, channel):
        if isinstance(channel, bool) or not isinstance(channel, int):
            raise ConfigTypeError("switch", channel, "a DIO channel (int)")
        self.link, self.device = link, str(channel)
        self.address = f"DIO {channel} <>value"

    def setValue(self, value):
        self.link.send("DIO", self.device, "<>value", bool(value))


class _GyroSim:
    def __init__(self, link, name, axis):
        self.link, self.device, self.axis = link, name, axis
        self.address = f"Gyro {name} >angle_{axis} >rate_{axis}"

    def setAngle(self, degrees):
        self.link.send("Gyro", self.device, f">angle_{self.axis}", degrees)

    def setRate(self, degrees_per_second):
        self.link.send("Gyro", self.device, f">rate_{self.axis}", degrees_per_second)


class _LinkDevice:
    """A simulated device of the protocol (``CANMotor``, ``CANEncoder``, a vendor's ``SimDevice``), by value name.

    Reads are the robot's outputs (``<name`` or ``<>name``) as held; writes go out
    with the prefix the robot announced the value with (``<>name`` if so, else
    ``>name``), once the robot has announced the device.
    """

    def __init__(self, link, kind, device, watch=True):
        self.link, self.kind, self.device = link, kind, device
        self.address = f"{kind} " + (f"of CAN id {device[0][1:-1]}" if isinstance(device, tuple) else repr(device))
        if watch:
            link.watched_devices.append((kind, device))

    def expect(self, parameter, name):
        self.expected = name  # checked once the robot announces the device (it sends its whole state then)

    def get(self, name, default):
        device = self.link.resolve(self.kind, self.device)
        held = self.link.outputs.get((self.kind, device), {}) if device is not None else {}
        for key in ("<" + name, "<>" + name):
            if key in held:
                return held[key]
        if device is not None and name == getattr(self, "expected", None) and (self.kind, device) not in self.link.told:
            self.link.told.add((self.kind, device))
            log.warning("%s %r announced no %r value (its keys: %s): its output reads as 0", self.kind, device, name,
                        ", ".join(sorted(self.link.keys[(self.kind, device)])))
        return default

    def set(self, name, value):
        device = self.link.resolve(self.kind, self.device)
        if device is not None:  # before the robot announces the device, there is no one to tell
            key = "<>" + name if "<>" + name in self.link.keys[(self.kind, device)] else ">" + name
            self.link.send(self.kind, device, key, value)

    def related(self, suffix):
        """The device named this one's name plus ``suffix`` (a SPARK's ``" RELATIVE ENCODER"``)."""
        return _LinkDevice(self.link, self.kind, self.device + suffix, watch=False)


class _RoboRioSim:
    def __init__(self, link):
        self.link, self.brownout = link, 6.75  # V, the roboRIO's default brownout threshold
        self.address = "RoboRIO >vin_voltage"

    def setBrownoutVoltage(self, volts):
        self.brownout = volts

    def getBrownoutVoltage(self):
        return self.brownout

    def setVInVoltage(self, volts):
        self.link.send("RoboRIO", "", ">vin_voltage", volts)


def _not_carried(name, binding, what):
    def refuse(self, *args, **kwargs):
        raise ConfigError(binding, args[0] if args else None, f"a device the HALSim WebSocket protocol carries ({what})")
    return type(name, (), {"__init__": refuse})


def _on(link, cls, name):
    """``cls`` with its first argument, the link, given: constructed as wpilib's sim is, from its address."""
    return type(name, (cls,), {"__init__": lambda self, *args: cls.__init__(self, link, *args)})


class _Absent:
    """A wpilib class no robot object here can be an instance of (the robot runs in another process)."""


class _Devices:
    """``simcore_devices`` of the physics controller HalSim hands to ``PhysicsEngine``."""

    def __init__(self, halsim):
        link = halsim.link
        self._halsim = halsim
        encoder_sim = type("EncoderSim", (_EncoderSim,), {
            "createForChannel": staticmethod(lambda channel: _EncoderSim(link, channel))})
        self.simulation = types.SimpleNamespace(
            PWMSim=_on(link, _PWMSim, "PWMSim"),
            EncoderSim=encoder_sim,
            DutyCycleEncoderSim=_on(link, _DutyCycleEncoderSim, "DutyCycleEncoderSim"),
            DIOSim=_on(link, _DIOSim, "DIOSim"),
            RoboRioSim=_RoboRioSim(link),
            named_gyro=lambda name, axis: _GyroSim(link, name, axis),
            AnalogGyroSim=_not_carried("AnalogGyroSim", "gyro", "WPILib 2026's extension sends no AnalogGyro: use "
                                                                "an ADXRS450_Gyro, bound by its name \"ADXRS450[0]\""),
            ADXRS450_GyroSim=_Absent,
            PowerDistributionSim=_not_carried("PowerDistributionSim", "pd", "WPILib 2026's extension sends no "
                                                                            "power distribution"),
        )
        self.wpilib = types.SimpleNamespace(
            DriverStation=types.SimpleNamespace(isEnabled=lambda: link.enabled),
            Encoder=_Absent, AnalogGyro=_Absent, ADXRS450_Gyro=_Absent, PowerDistribution=_Absent)

    def networktables_instance(self):
        return self._halsim.networktables_instance()

    def device(self, kind, device):
        return _LinkDevice(self._halsim.link, kind, device)

    def field(self, physics, drivetrain):
        log.info("field(%r): the pose is published on NetworkTables as %s/%s/pose (struct:Pose2d)",
                 drivetrain, self._halsim.nt_prefix, drivetrain)
        return None


class _Controller:
    """What HalSim passes to ``PhysicsEngine`` as robotpy's ``physics_controller``."""

    def __init__(self, halsim):
        self.simcore_devices = _Devices(halsim)
        self.field = None


def load_physics(path):
    """The ``PhysicsEngine`` class of the physics file at ``path`` (its folder importable, as robotpy makes it)."""
    path = pathlib.Path(path)
    if not path.is_file():
        raise ConfigError("physics", str(path), "a physics.py file")
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # physics.py may import its robot's constants, as under robotpy
    spec = importlib.util.spec_from_file_location(f"_simcore_halsim_physics_{abs(hash(str(path)))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    engine = getattr(module, "PhysicsEngine", None)
    if not isinstance(engine, type):
        raise ConfigError("physics", str(path), "a file defining a PhysicsEngine class (a simcore.robotpy.Physics)")
    return engine


def _warm_up() -> None:
    """Load, before a robot program connects, what the physics' first update would load on the way: numba
    and the compiled motor-drive law (from the disk cache, or compiled), a few hundred milliseconds that would
    otherwise delay the first frames' sensors."""
    from simcore.kernel import motor_drive

    motor_drive.electrical(0.0, 1.0, 1.0, 12.0, 1.0, 1.0, math.inf, math.inf, False)


class HalSim:
    """The physics side of WPILib's HALSim WebSocket protocol (see the module docstring).

    Parameters
    ----------
    physics : str, path or class
        A physics file defining ``PhysicsEngine``, or the class itself (a
        :class:`simcore.robotpy.Physics` subclass taking ``(physics_controller, robot)``).
    host, port : str, int
        The robot program's WebSocket server (``ws://host:port/wpilibws``); in
        server mode, the address this one listens on.
    server : bool
        Be the WebSocket server, for a robot program running WPILib's client
        extension (``halsim_ws_client``, which connects to ``HALSIMWS_HOST``:
        ``HALSIMWS_PORT``), instead of a client of its server.
    rate : float
        Physics ticks per second of wall time, at which the sensors are sent, Hz.
    enable : {None, "auto", "teleop", "test"}
        Send the DriverStation frames that enable the robot in this mode on each
        connection (None: leave it to a Driver Station).
    networktables : bool
        Publish the simulated truth (:mod:`simcore.live_view`) through an NT4
        client of the robot program's server at ``host``:``nt_port``.
    reconnect : float
        Seconds between connection attempts while the robot program is away.
    loop_period : float
        The robot program's loop period, s: how far each ``HAL``
        ``>sim_periodic_before`` frame advances the physics (XRP mode).
    """

    def __init__(self, physics, host: str = "localhost", port: int = DEFAULT_PORT, *, rate: float = 200.0,
                 enable: str | None = None, networktables: bool = True, nt_port: int = 5810,
                 nt_prefix: str = "/simcore", reconnect: float = 0.5, loop_period: float = 0.02,
                 server: bool = False):
        self._connect = require("websockets.asyncio.client", "halsim", "simcore.halsim").connect
        self._closed = require("websockets.exceptions", "halsim", "simcore.halsim").ConnectionClosed
        if not isinstance(host, str) or not host:
            raise ConfigTypeError("host", host, "a host name or address")
        self.host = host
        self.port = checks.integer("port", port, minimum=1, what="a TCP port")
        self.rate = checks.positive("rate", rate, "Hz", what="rate")
        if enable is not None:
            checks.choice("enable", enable, ("auto", "teleop", "test"))
        self.enable = enable
        self.reconnect = checks.positive("reconnect", reconnect, "s", what="time")
        self.loop_period = checks.positive("loop_period", loop_period, "s", what="time")
        self.server = checks.flag("server", server)
        #: True while the robot's HAL sim_periodic_before frames are the clock (XRP mode), not the wall
        self.robot_clock = False
        self._robot_steps = 0  # robot loops the physics advanced on, this connection
        self.nt_port, self.nt_prefix, self._want_nt = nt_port, nt_prefix, bool(networktables)
        self._nt = None
        self.link = _Link()
        self.faults: list[str] = []
        self.lag = {"message_to_update": [], "tick_late": []}  # s
        self.connections = 0
        self._awaiting_update: list[int] = []  # arrival times (ns) of outputs not yet followed by a sensor frame
        engine = load_physics(physics) if isinstance(physics, (str, pathlib.Path)) else physics
        self.physics = engine(_Controller(self), None)
        if self._want_nt and not any(type(b).__name__ == "_LiveView" for b in self.physics._bindings):
            self.physics.networktables(prefix=nt_prefix)
        self._wall_ns = None  # the wall-clock instant (ns) the simulation's present corresponds to

    # -- NetworkTables -------------------------------------------------------------------------------
    def networktables_instance(self):
        if not self._want_nt:
            ntcore = require("ntcore", "halsim", "simcore.halsim")
            return ntcore.NetworkTableInstance.create()  # published nowhere: networktables=False
        if self._nt is None:
            ntcore = require("ntcore", "halsim", "simcore.halsim")
            self._nt = ntcore.NetworkTableInstance.create()
            self._nt.startClient4("simcore.halsim")
            self._nt.setServer(self.host, self.nt_port)
        return self._nt

    # -- bindings ------------------------------------------------------------------------------------
    def describe(self) -> str:
        """What the physics binds, one line each."""
        role = "serving" if self.server else "client of"
        lines = [f"simcore.halsim: {role} ws://{self.host}:{self.port}/wpilibws, physics at {self.rate:g} Hz of wall "
                 f"time"]
        for b in self.physics._bindings:
            device = getattr(b, "sim", None) or getattr(b, "roborio", None) or getattr(b, "device", None)
            signal = next((getattr(b, a) for a in ("duty", "distance", "heading", "angle", "signal")
                           if isinstance(getattr(b, a, None), str)), "")
            if hasattr(b, "view"):
                device, signal = None, f"NetworkTables {b.view.prefix}/... ({len(b.view.topics)} topics)"
            lines.append(f"  {type(b).__name__.strip('_')}: {signal}"
                         + (f" <-> {device.address}" if hasattr(device, "address") else ""))
        return "\n".join(lines)

    # -- frames --------------------------------------------------------------------------------------
    def _fault(self, frame, why):
        text = frame if isinstance(frame, str) else repr(frame)
        message = f"skipped frame {text[:200]!s}: {why}"
        self.faults.append(message)
        log.warning(message)

    def handle_frame(self, frame, now_ns: int | None = None) -> bool:
        """Check one text frame and apply it whole, or skip it with a fault naming it. True when applied."""
        if isinstance(frame, bytes):
            self._fault(frame, "a binary frame (the protocol sends JSON text)")
            return False
        try:
            message = json.loads(frame)
        except ValueError as exc:
            self._fault(frame, f"not JSON ({exc})")
            return False
        if not isinstance(message, dict) or not {"type", "device", "data"} <= set(message):
            self._fault(frame, "not an object with \"type\", \"device\" and \"data\"")
            return False
        type_, device, data = message["type"], message["device"], message["data"]
        if not isinstance(type_, str) or not isinstance(device, str) or not isinstance(data, dict):
            self._fault(frame, "\"type\" and \"device\" must be strings and \"data\" an object")
            return False
        if type_ not in PROTOCOL_TYPES:
            self._fault(frame, f"unknown device type {type_!r} (not one of the protocol's)")
            return False
        for key, value in data.items():
            check = _READ_KEYS.get((type_, key))
            if check is not None and not check[0](value):
                self._fault(frame, f"{type_} {key} is {value!r}: expected {check[1]}")
                return False
        if type_ == "HAL" and data.get(">sim_periodic_before") is True:
            self._robot_loop(time.monotonic_ns() if now_ns is None else now_ns)
            return True
        self.link.keys.setdefault((type_, device), set()).update(data)
        outputs = {k: v for k, v in data.items() if k.startswith("<") or k == ">enabled" and type_ == "DriverStation"}
        if not outputs:
            return True  # the robot's echo of inputs: nothing the physics holds
        held = self.link.outputs.get((type_, device), {})
        steps = [k for k in outputs if self.link.watches(type_, device, k) and held.get(k) != outputs[k]]
        if steps:
            now_ns = time.monotonic_ns() if now_ns is None else now_ns
            self._advance_to(now_ns)  # the previous outputs held up to this frame's arrival
            self._awaiting_update.append(now_ns)
        self.link.apply(type_, device, outputs)
        return True

    # -- time ----------------------------------------------------------------------------------------
    def _robot_loop(self, now_ns: int):
        """The robot is about to run its simulation periodic code: its loop's outputs held over one loop period."""
        if not self.robot_clock:
            self._advance_to(now_ns)  # the wall clock's share up to the first robot loop
            self.robot_clock = True
            log.info("the robot program sends HAL sim_periodic_before: the physics now advances %g s per robot loop",
                     self.loop_period)
        self.physics.update_sim(None, self.loop_period)
        self._robot_steps += 1
        self._wall_ns = now_ns

    def _advance_to(self, now_ns: int):
        if self._wall_ns is None or self.robot_clock:
            self._wall_ns = now_ns  # (the robot's loops are the clock: the wall only keeps the instant)
        if now_ns > self._wall_ns:
            self.physics.update_sim(None, (now_ns - self._wall_ns) * 1e-9)
            self._wall_ns = now_ns

    def _tick(self, now_ns: int):
        """Advance to ``now_ns`` and collect the sensor frames to send."""
        self._advance_to(now_ns)
        return self._collect()

    def _collect(self):
        """The sensor frames to send (each device's changes in one frame), taken from the link."""
        frames = [json.dumps({"type": t, "device": d, "data": data}) for (t, d), data in self.link.pending.items()]
        self.link.pending.clear()
        return frames

    def _record_update(self, sent_ns: int):
        self.lag["message_to_update"].extend((sent_ns - a) * 1e-9 for a in self._awaiting_update)
        self._awaiting_update.clear()

    def lag_summary(self) -> dict:
        """Median and worst of each lag (s) measured so far."""
        out = {}
        for name, values in self.lag.items():
            out[name] = (statistics.median(values), max(values)) if values else (math.nan, math.nan)
        return out

    # -- the connection ------------------------------------------------------------------------------
    def _enable_frames(self):
        if self.enable is None:
            return []
        data = {">enabled": True, ">autonomous": self.enable == "auto", ">test": self.enable == "test",
                ">ds": True, ">new_data": True}
        return [json.dumps({"type": "DriverStation", "device": "", "data": data})]

    async def _session(self, ws, stop_at):
        period_ns = int(round(1e9 / self.rate))
        start = time.monotonic_ns()
        k = 0

        async def receive():
            async for frame in ws:
                self.handle_frame(frame)
                if self.robot_clock and self.link.pending:  # the robot's next loop is to read them
                    for out in self._collect():
                        await ws.send(out)
                    self._record_update(time.monotonic_ns())

        receiver = asyncio.create_task(receive())
        try:
            for frame in self._enable_frames():
                await ws.send(frame)
            while not receiver.done():
                k += 1
                due = start + k * period_ns  # ticks at fixed instants of the wall clock, not accumulated
                delay = (due - time.monotonic_ns()) * 1e-9
                if delay > 0:
                    await asyncio.wait({receiver}, timeout=delay)
                now = time.monotonic_ns()
                if stop_at is not None and now >= stop_at:
                    return True
                self.lag["tick_late"].append(max(0.0, (now - due) * 1e-9))
                frames = self._tick(now)
                for frame in frames:
                    await ws.send(frame)
                if frames:
                    self._record_update(time.monotonic_ns())
            receiver.result()  # the connection ended: raise what ended it
            return False
        finally:
            receiver.cancel()

    async def run(self, duration: float | None = None) -> None:
        """Serve the robot program for ``duration`` seconds of wall time (None: until cancelled)."""
        _warm_up()
        stop_at = None if duration is None else time.monotonic_ns() + int(duration * 1e9)
        if self.server:
            return await self._serve(stop_at)
        uri = f"ws://{self.host}:{self.port}/wpilibws"
        closed = (self._closed, OSError, asyncio.TimeoutError)
        while stop_at is None or time.monotonic_ns() < stop_at:
            try:
                async with self._connect(uri, open_timeout=2.0, max_size=None) as ws:
                    self.connections += 1
                    log.info("connected to the robot program at %s", uri)
                    if await self._session(ws, stop_at):
                        return
            except closed as exc:
                if self.connections:
                    log.info("robot program away (%s); reconnecting", exc.__class__.__name__)
            # away: its outputs are no longer held; the physics keeps running on the wall clock
            self._robot_gone()
            self._tick(time.monotonic_ns())
            self.link.pending.clear()
            await asyncio.sleep(self._away_wait(stop_at))

    def _away_wait(self, stop_at):
        if stop_at is None:
            return self.reconnect
        return min(self.reconnect, max(0.0, (stop_at - time.monotonic_ns()) * 1e-9))

    def _away_tick(self):
        """No robot program: the physics keeps running on the wall clock, its outputs neutral, nothing sent."""
        self._tick(time.monotonic_ns())
        self.link.pending.clear()

    async def _serve(self, stop_at):
        """Server mode: wait for a robot program running the client extension; one at a time, as the protocol says."""
        serve = require("websockets.asyncio.server", "halsim", "simcore.halsim (server mode)").serve
        state = {"robot": None, "done": False}

        async def robot(ws):
            path = ws.request.path if ws.request is not None else ""
            if path.split("?")[0] != "/wpilibws":
                await ws.close(1008, "the resource is /wpilibws")
                return
            if state["robot"] is not None:  # the protocol: a second connection to the resource is rejected
                log.warning("refused a second robot program from %s: one is connected", ws.remote_address)
                await ws.close(1013, "a robot program is already connected")
                return
            state["robot"] = ws
            self.connections += 1
            log.info("robot program connected from %s", ws.remote_address)
            try:
                state["done"] = await self._session(ws, stop_at)
            except (self._closed, OSError) as exc:
                log.info("robot program away (%s); waiting for it", exc.__class__.__name__)
            finally:
                state["robot"] = None
                self._robot_gone()
                if not state["done"]:
                    self._away_tick()

        async with serve(robot, self.host, self.port, max_size=None):
            log.info("waiting for a robot program at ws://%s:%d/wpilibws", self.host, self.port)
            while not state["done"] and (stop_at is None or time.monotonic_ns() < stop_at):
                if state["robot"] is None:
                    self._away_tick()
                await asyncio.sleep(self._away_wait(stop_at) if state["robot"] is None else 0.05)

    def _robot_gone(self):
        self.link.forget_robot()
        if self.robot_clock:
            self._wall_ns = None  # the wall clock takes over from the next instant, not from the last loop
        self.robot_clock, self._robot_steps = False, 0

    def close(self):
        """Stop publishing on NetworkTables."""
        if self._nt is not None:
            require("ntcore", "halsim", "simcore.halsim").NetworkTableInstance.destroy(self._nt)
            self._nt = None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simcore.halsim", description=(
        "Run a simcore physics.py as the physics of a WPILib robot program started with the HALSim WebSocket "
        "server extension. Real time: results are not deterministic."))
    parser.add_argument("physics", help="the physics file defining PhysicsEngine (a simcore.robotpy.Physics)")
    parser.add_argument("--host", default="localhost",
                        help="the robot program's host (with --server: the address to listen on)")
    parser.add_argument("--server", action="store_true",
                        help="be the WebSocket server, for a robot program running the client extension "
                             "(halsim_ws_client; it connects to HALSIMWS_HOST:HALSIMWS_PORT)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--rate", type=float, default=200.0, help="physics ticks per second (Hz)")
    parser.add_argument("--enable", choices=("auto", "teleop", "test"), default=None,
                        help="enable the robot in this mode through the protocol's DriverStation frames")
    parser.add_argument("--duration", type=float, default=None, help="seconds of wall time to run (default: ever)")
    parser.add_argument("--no-nt", action="store_true", help="do not publish the simulated truth on NetworkTables")
    parser.add_argument("--nt-port", type=int, default=5810, help="the robot program's NetworkTables 4 port")
    parser.add_argument("--loop-period", type=float, default=0.02,
                        help="the robot's loop period (s): how far each HAL sim_periodic_before advances (XRP mode)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    sim = HalSim(args.physics, args.host, args.port, rate=args.rate, enable=args.enable,
                 networktables=not args.no_nt, nt_port=args.nt_port, loop_period=args.loop_period,
                 server=args.server)
    print(sim.describe(), flush=True)

    async def report():
        while True:
            await asyncio.sleep(5.0)
            s = sim.lag_summary()
            m, w = s["message_to_update"]
            print(f"t = {sim.physics.t:.1f} s; lag output -> sensors: median {m * 1e3:.2f} ms, worst "
                  f"{w * 1e3:.2f} ms; faults {len(sim.faults)}", flush=True)

    async def both():
        reporter = asyncio.create_task(report())
        try:
            await sim.run(args.duration)
        finally:
            reporter.cancel()

    try:
        asyncio.run(both())
    except KeyboardInterrupt:
        pass
    finally:
        sim.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
