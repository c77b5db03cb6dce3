"""Bit-identity check of the drivetrains against a baseline interpreter: a speed change must not move a bit.

Runs the bench's mecanum, tank and swerve runs and mecanum variants that take the other code paths (a wall
contact, a brownout with the outputs disabled, a robot-centric strafe with the energy ledger, a field-centric
turn with weight transfer, supply current limits, the hub-driven FTC autonomous), in this interpreter and in
the one given by ``--baseline-python`` (a venv with the branch point installed), and compares x, y, heading
and every wheel's stator and supply current at every controller tick with ``np.array_equal``.

Run: ``python bench/drivetrain_identity.py --baseline-python /tmp/base/.venv/bin/python [--only a,b]``
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np



def _bench_dir():
    """The bench folder of the simcore this interpreter imports (the baseline's own runs for the baseline)."""
    import simcore
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(simcore.__file__))), "bench")


def _mecanum(**kw):
    from simcore.models.motors import GOBILDA_BARE
    from simcore.models.mecanum import MecanumDrive
    args = dict(track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0, moi=0.35, start_pose=(1.2, 1.2, 0.0))
    args.update(kw)
    return MecanumDrive(GOBILDA_BARE, 19.2, **args)


def _duties(name, fn):
    from simcore.models.mecanum import WHEELS

    def code(t, s):
        return {f"{name}.{w}_duty": v for w, v in zip(WHEELS, fn(t, s))}
    return code


def run(kind):
    """(result, system name, clock name, current signal names) of one variant."""
    import simcore
    from simcore import PeriodicController
    from simcore.models.battery import Battery
    from simcore.models.mecanum import WHEELS
    sys.path.insert(0, _bench_dir())
    import drivetrains
    currents = [f"{w}_{c}_current" for w in WHEELS for c in ("stator", "supply")]
    if kind in ("bench_mecanum", "bench_tank", "bench_swerve"):
        res, name, clock = drivetrains.RUNS[kind.split("_")[1]]()
        if kind == "bench_tank":
            currents = [f"{sd}_{c}_current" for sd in ("left", "right") for c in ("stator", "supply")]
        elif kind == "bench_swerve":
            currents = ["supply_current"]
        return res, name, clock, currents
    if kind == "wall":
        from simcore.field import FTC_FIELD
        mec = _mecanum(command="duty", bumper=(0.45, 0.45), field=FTC_FIELD, start_pose=(3.0, 1.0, 0.3))
        code = _duties("mecanum", lambda t, s: (0.8, 0.6, 0.7, 0.9) if t < 2.0 else (0.3, -0.6, -0.6, 0.3))
        systems = [mec, Battery(resistance=0.05)]
    elif kind == "wall_tip":  # no battery: the guards are sampled on blocks of instants
        from simcore.field import FTC_FIELD
        mec = _mecanum(bumper=(0.45, 0.45), field=FTC_FIELD, cog_height=0.1, start_pose=(3.0, 1.0, 0.3))

        def code(t, s):
            p = (11.0, 9.0, 10.0, 12.0) if t < 2.0 else (4.0, -9.0, -9.0, 4.0)
            return {f"mecanum.{w}_voltage": v for w, v in zip(WHEELS, p)}
        systems = [mec]
    elif kind in ("tank_alone", "swerve_alone"):
        from simcore.models.tank import TankDrive
        from simcore.models.motors import CIM
        if kind == "tank_alone":
            drive = TankDrive(CIM, 10.71, n_motors_per_side=2, wheel_radius=0.0762, track_width=0.6, mass=50.0,
                              moi=5.0, friction_coefficient=1.0, wheelbase=0.5, cog_height=0.2)

            def code(t, s):
                on = t % 1.0 < 0.5
                return {"drive.left_voltage": 12.0 if on else -6.0, "drive.right_voltage": 10.0 if on else 6.0}
            res = simcore.simulate([drive], 3.0, [PeriodicController(0.02, code, name="code")])
            return res, "drive", "code", [f"{sd}_{c}_current" for sd in ("left", "right") for c in ("stator", "supply")]
        from simcore.controllers.drive_control import swerve_module_controllers
        from simcore.controllers.kinematics import SwerveKinematics
        from simcore.models.motors import FALCON_500, KRAKEN_X60
        from simcore.models.swerve import SwerveDrive
        sw = SwerveDrive(KRAKEN_X60, FALCON_500, module_positions=drivetrains.POS, drive_gearing=6.75,
                         steer_gearing=150 / 7, wheel_radius=0.0508, mass=55.0, moi=6.0, cog_height=0.05)
        ctrls = swerve_module_controllers(sw, SwerveKinematics(drivetrains.POS), drivetrains.swerve_command,
                                          rate=1000.0, chassis_rate=50.0)
        return simcore.simulate([sw], 3.0, ctrls), "swerve", "swerve_chassis", ["supply_current"]
    elif kind == "brownout":
        mec = _mecanum(command="duty", friction_coefficient=1.2)
        # Ramped so that the robot moves before the bus browns out (at full duty from rest the stall draw
        # browns it out at the first tick and the run compares constants), then reversed at full duty.
        code = _duties("mecanum", lambda t, s: (min(1.0, t) if t < 1.5 else -1.0,) * 4)
        systems = [mec, Battery(resistance=0.15, brownout_behaviour="disable", brownout_voltage=8.0,
                                recovery_voltage=9.0)]
    elif kind == "strafe":
        mec = _mecanum(track_energy=True, efficiency=0.9, friction_coefficient=0.7)

        def code(t, s):
            v = 10.0 if t < 1.5 else -8.0
            return {f"mecanum.{w}_voltage": p * v for w, p in zip(WHEELS, (-1.0, 1.0, 1.0, -1.0))}
        systems = [mec]
        currents = currents + ["energy_in", "copper_loss", "conversion_loss", "gear_loss", "friction_loss"]
    elif kind == "field_turn":
        from simcore.controllers.kinematics import ChassisSpeeds, MecanumKinematics
        mec = _mecanum(command="duty", cog_height=0.12, friction_coefficient=0.8)
        kin = MecanumKinematics((0.15, 0.18), (0.15, -0.18), (-0.15, 0.18), (-0.15, -0.18))
        v_free = mec.free_speed(12.0)

        def fn(t, s):
            sp = ChassisSpeeds.from_field_relative(0.8, 0.5 if t < 1.5 else -0.7, 2.0, s["mecanum.heading"])
            return [v / v_free for v in kin.to_wheel_speeds(sp).desaturate(v_free)]
        code = _duties("mecanum", fn)
        systems = [mec, Battery(resistance=0.1)]
    elif kind == "limits":
        mec = _mecanum(command="duty", supply_current_limit=4.0, stator_current_limit=8.0)
        code = _duties("mecanum", lambda t, s: (1.0, 0.9, -0.5, 1.0) if t < 1.0 else (-1.0, 0.2, 1.0, -0.3))
        systems = [mec, Battery(resistance=0.1)]
    elif kind == "ftc":
        import ftc_autonomous
        res = ftc_autonomous.generator_run()
        clock = [c for c in res.controller_names if len(res.ticks(c))][0]
        return res, "mecanum", clock, currents
    else:
        raise KeyError(kind)
    res = simcore.simulate(systems, 3.0, [PeriodicController(0.02, code, name="code")])
    return res, "mecanum", "code", currents


KINDS = ("bench_mecanum", "wall", "wall_tip", "brownout", "strafe", "field_turn", "limits", "bench_tank", "bench_swerve", "tank_alone", "swerve_alone",
         "ftc")


def worker(kind):
    res, name, clock, currents = run(kind)
    ticks = res.ticks(clock)
    out = {k: res.sample(f"{name}.{k}", ticks).tolist() for k in ["x", "y", "heading"] + currents}
    out["_stats"] = {"n_steps": int(res.stats["n_steps"]), "n_events": int(res.stats["n_events"]),
                     "events": sorted({e.name for e in res.events})}
    print(json.dumps(out))


def _run(python, kind):
    proc = subprocess.run([python, os.path.abspath(__file__), "--worker", kind], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=""))
    if proc.returncode != 0:
        raise RuntimeError(f"{python} {kind}: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline-python", required=False)
    ap.add_argument("--only", default=",".join(KINDS))
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.worker)
        return
    bad = 0
    for kind in args.only.split(","):
        now, base = _run(sys.executable, kind), _run(args.baseline_python, kind)
        stats = now.pop("_stats"), base.pop("_stats")
        diff = [k for k in base if not np.array_equal(np.array(now[k]), np.array(base[k]))]
        bad += bool(diff)
        print(f"{kind:14s} {'IDENTICAL' if not diff else 'DIFFERENT: ' + ', '.join(diff)} "
              f"({len(base['x'])} ticks, {len(base)} signals; steps {stats[0]['n_steps']} vs {stats[1]['n_steps']}, "
              f"events {stats[1]['n_events']} {stats[1]['events']})")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
