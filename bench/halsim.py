"""Real-time lag of simcore.halsim against the example drivetrain robot, run by ``robotpy sim --ws-server``.

The drivetrain robot (``examples/drivetrain_robot/robot.py``, without its physics.py,
so the physics is simcore.halsim's) runs in a subprocess with WPILib's WebSocket
server extension on a free loopback port; ``simcore.halsim`` runs the example's
``physics.py`` against it at 200 Hz for ``--seconds`` of wall time (30 by default).
Every 2 s the bench re-enables autonomous through the protocol's DriverStation
frames (disabled for one tick, then enabled), so the robot drives its one-second
arc again and again and its motor outputs keep changing.

Two lags are printed, median and worst:

* **message to update**: for each robot output that changes a held input (a PWM
  ``<speed``, the DriverStation's ``>enabled``), the wall time from its frame's
  arrival to the first sensor frame sent after it (the robot sees the effect);
* **tick lateness**: how late each 5 ms physics tick ran after its due instant.

Run: ``python bench/halsim.py [--seconds 30]`` (needs the halsim extra: ``pip install -e ".[halsim]"``).
"""
import argparse
import asyncio
import json
import os
import pathlib
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile

from simcore.halsim import HalSim

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "drivetrain_robot"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def drive(sim: HalSim, seconds: float):
    async def restart_autonomous():
        while True:
            await asyncio.sleep(2.0)
            for enabled in (False, True):
                sim.link.send("DriverStation", "", ">enabled", enabled)
                sim.link.send("DriverStation", "", ">autonomous", True)
                sim.link.send("DriverStation", "", ">new_data", True)
                await asyncio.sleep(2.0 / sim.rate)  # one tick apart: sent in two frames

    again = asyncio.create_task(restart_autonomous())
    try:
        await sim.run(seconds)
    finally:
        again.cancel()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(EXAMPLE / "robot.py", folder)
        shutil.copy(EXAMPLE / "pyproject.toml", folder)
        port = free_port()
        env = dict(os.environ, HALSIMWS_PORT=str(port), HALSIMWS_HOST="127.0.0.1")
        proc = subprocess.Popen([sys.executable, "-m", "robotpy", "sim", "--ws-server", "--nogui"], cwd=folder,
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            sim = HalSim(EXAMPLE / "physics.py", "127.0.0.1", port, enable="auto", networktables=False,
                         reconnect=0.1)
            asyncio.run(drive(sim, args.seconds))
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    out = {"simulated_s": round(sim.physics.t, 3), "connections": sim.connections, "faults": len(sim.faults)}
    for name, values in sim.lag.items():
        ms = sorted(v * 1e3 for v in values)
        out[name] = {"n": len(ms), "median_ms": round(statistics.median(ms), 3), "worst_ms": round(ms[-1], 3)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
