"""Demo: a closed-loop flywheel spin-up on a battery, plotted and written to CSV.

``python -m simcore.demo [--out DIR]`` simulates a shooter flywheel (two NEOs,
1.5:1, 0.005 kg·m², 40 A stator limit on each motor's controller) spun up to 3000 rpm by a 50 Hz velocity
PID plus feedforward, fed by a 12 V / 20 mOhm battery, and writes
``DIR/flywheel_spinup.png`` (speed, voltage, currents, bus voltage) and
``DIR/flywheel_spinup.csv``, then prints a one-line summary.

This module is an application of the engine: unlike the engine modules of ``simcore``
it imports ``simcore.models`` and ``simcore.controllers``.
"""
from __future__ import annotations

import argparse
import math
from pathlib import Path


def run(out_dir: Path) -> str:
    """Simulate, write the plot and CSV into ``out_dir``, return the summary line."""
    import matplotlib

    matplotlib.use("Agg")
    import simcore.models as models
    from simcore.controllers import PIDController, SimpleMotorFeedforward, control_loop
    from simcore.models.motors import NEO
    from simcore import simulate
    from simcore.testing import step_info

    out_dir.mkdir(parents=True, exist_ok=True)
    gearing, moi = 1.5, 0.005
    flywheel = models.Flywheel(NEO, gearing, moi, n_motors=2, stator_current_limit=40.0, neutral_mode="coast")
    battery = models.Battery()
    target = 3000 * 2 * math.pi / 60  # rad/s at the flywheel
    # Feedforward from the motor constants: the voltage that holds the target speed.
    kv = gearing / flywheel.drive.Kv
    ff = SimpleMotorFeedforward(0.0, kv, 0.0)
    pid = PIDController(0.05, 0.0, 0.0, period=0.02)
    loop = control_loop(pid, measure="flywheel.velocity", command="flywheel.voltage", setpoint=target,
                        feedforward=lambda t, r, s: ff.calculate(r), output_limits=(-12.0, 12.0),
                        name="velocity loop")
    result = simulate([battery, flywheel], 3.0, [loop])
    fig = result.plot("flywheel.velocity", "flywheel.voltage", "flywheel.applied_voltage", "battery.voltage",
                      "flywheel.stator_current", "flywheel.supply_current",
                      title="Flywheel spin-up: 2x NEO, 40 A stator limit per motor, 50 Hz PID + feedforward")
    png = out_dir / "flywheel_spinup.png"
    fig.savefig(png, dpi=110)
    csv = out_dir / "flywheel_spinup.csv"
    result.to_csv(csv)
    info = step_info(result, "flywheel.velocity", target)
    peak_i = float(abs(result["flywheel.stator_current"]).max())
    min_v = float(result["battery.voltage"].min())
    return (f"flywheel 0 -> {target:.1f} rad/s: rise {info.rise_time:.3f} s, settles (2 %) in "
            f"{info.settling_time:.3f} s, overshoot {100 * info.overshoot:.2f} %, peak stator current "
            f"{peak_i:.1f} A, minimum bus {min_v:.2f} V; wrote {png} and {csv}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m simcore.demo", description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="demo-output", help="folder for the PNG and CSV (default: demo-output)")
    args = ap.parse_args(argv)
    print(run(Path(args.out)))


if __name__ == "__main__":
    main()
