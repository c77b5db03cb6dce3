"""A batch of mecanum drives: each variant is its own serial run, over every parameter the mecanum batches (mass,
moi, wheel radius, gearing, friction coefficient), with its rollers' traction events and its battery.

Each variant is compared with ``simulate(..., method="RK45")`` of the drive built with that variant's values:
every row's time, every signal (states, inputs with the battery's bus, outputs), every event.
"""
from __future__ import annotations

import numpy as np
import pytest

from simcore import PeriodicController, simulate, simulate_batch
from simcore.batch import elementwise
from simcore.errors import ConfigError, ConfigTypeError
from simcore.models.battery import Battery
from simcore.models.mecanum import MecanumDrive
from simcore.models.motors import NEO

WHEELS = ("front_left", "front_right", "rear_left", "rear_right")


def _mecanum(gearing=8.0, **options):
    args = dict(track_width=0.5, wheelbase=0.45, wheel_radius=0.0508, mass=25.0, moi=1.6, friction_coefficient=0.8,
                name="drive")
    args.update(options)
    return MecanumDrive(NEO, gearing, **args)


def _drive_loop(t, s):
    # a launch forward, then a strafe right while turning; element-wise
    zero = 0.0 * s["drive.x"]
    w = (12.0, 12.0, 12.0, 12.0) if t % 1.0 < 0.5 else (10.0, -12.0, -12.0, 8.0)
    return {f"drive.{name}_voltage": v + zero for name, v in zip(WHEELS, w)}


def _same(variant, serial):
    assert np.array_equal(variant.t, serial.t)
    for name in serial.names:
        assert np.array_equal(variant[name], serial[name], equal_nan=True), name
    assert [(e.t, e.name, e.mode_before, e.mode_after) for e in variant.events] == \
        [(e.t, e.name, e.mode_before, e.mode_after) for e in serial.events]


@pytest.mark.filterwarnings("ignore::simcore.solvers.StiffnessWarning")  # (the rollers are stiff for RK45 at times)
def test_a_hundred_and_twenty_mecanum_drives_are_their_serial_runs():
    rng = np.random.default_rng(25)
    n = 120
    values = {"mass": rng.uniform(12.0, 40.0, n), "moi": rng.uniform(0.5, 3.0, n),
              "wheel_radius": rng.uniform(0.04, 0.076, n), "gearing": rng.uniform(5.0, 15.0, n),
              "friction_coefficient": rng.uniform(0.3, 1.2, n)}
    loop = PeriodicController(0.02, _drive_loop, name="loop")
    batch = simulate_batch([_mecanum(track_energy=True), Battery()], 1.2, [elementwise(loop)],
                           params={f"drive.{k}": v for k, v in values.items()})
    assert batch.event_counts().min() >= 1  # every variant's rollers break away
    for j in range(n):
        kw = {k: float(v[j]) for k, v in values.items()}
        serial = simulate([_mecanum(track_energy=True, **kw), Battery()], 1.2,
                          [PeriodicController(0.02, _drive_loop, name="loop")], method="RK45")
        _same(batch[j], serial)


def test_a_batch_refuses_a_wheel_radius_that_leaves_no_rotating_mass_and_names_it():
    with pytest.raises(ConfigError, match=r"drive\.wheel_radius"):
        simulate_batch([_mecanum()], 0.1, params={"drive.wheel_radius": [0.05, -0.02]})
    with pytest.raises(ConfigError, match="track_width"):
        simulate_batch([_mecanum()], 0.1, params={"drive.track_width": [0.4, 0.5]})


def test_a_mecanum_the_kernel_has_no_form_of_cannot_batch_and_the_error_says_why():
    with pytest.raises(ConfigTypeError, match="cannot batch: it has a cog_height"):  # load transfer: not yet
        simulate_batch([_mecanum(cog_height=0.1)], 0.1, params={"drive.mass": [20.0, 30.0]})
    from simcore.models.hub_motor import GOBILDA_5203_312

    # (a 0.6 m square bumper, 0.85 m across its diagonal, in a 0.8 m field: it can touch both x walls at once)
    tight = MecanumDrive(GOBILDA_5203_312, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0, moi=0.35,
                         name="drive", bumper=(0.6, 0.6), field=(-0.4, -0.4, 0.4, 0.4))
    with pytest.raises(ConfigTypeError, match=r"cannot batch: it has walls two opposite of which .*field=None"):
        simulate_batch([tight], 0.1, params={"drive.mass": [10.0, 12.0]})
    ftc = MecanumDrive(GOBILDA_5203_312, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0, moi=0.35,
                       name="drive")  # (in the FTC field's walls by default: it batches)
    assert tight.kernel_refusal() is not None and ftc.kernel_refusal() is None and _mecanum().kernel_refusal() is None


def test_mecanum_drives_with_dead_wheels_batch_to_their_serial_runs():
    from simcore.models.odometry import OdometryPod

    pods = (OdometryPod("par", 0.05, 0.15, 0.0, 0.024, 2000.0), OdometryPod("perp", -0.1, 0.0, 1.6, 0.016, 8192.0))
    masses = np.linspace(15.0, 35.0, 12)
    loop = PeriodicController(0.02, _drive_loop, name="loop")
    batch = simulate_batch([_mecanum(odometry_pods=pods), Battery()], 1.2, [elementwise(loop)],
                           params={"drive.mass": masses})
    for j, m in enumerate(masses):
        serial = simulate([_mecanum(odometry_pods=pods, mass=float(m)), Battery()], 1.2,
                          [PeriodicController(0.02, _drive_loop, name="loop")], method="RK45")
        _same(batch[j], serial)
        assert abs(serial.final("drive.par_distance")) > 0.1  # the pods rolled


def test_a_batch_refuses_a_gearing_for_a_drive_built_from_an_ftc_motor_type():
    from simcore.models.hub_motor import GOBILDA_5203_312

    ftc = MecanumDrive(GOBILDA_5203_312, track_width=0.36, wheelbase=0.30, wheel_radius=0.048, mass=12.0, moi=0.35,
                       name="drive", field=None)
    with pytest.raises(ConfigError, match=r"drive\.gearing.*gear ratio comes from motor="):
        simulate_batch([ftc], 0.1, params={"drive.gearing": [15.0, 20.0]})
    simulate_batch([ftc], 0.05, params={"drive.mass": [10.0, 12.0]})  # (the drive itself batches)
