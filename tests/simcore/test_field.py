"""Field view: path, outlines at intervals, swerve module vectors."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import simcore  # noqa: E402
from simcore import ConfigError  # noqa: E402
from simcore.field import FRC_FIELD, plot_field  # noqa: E402
from simcore.models.motors import CIM, KRAKEN_X60  # noqa: E402
from simcore.models.swerve import SwerveDrive  # noqa: E402
from simcore.models.tank import TankDrive  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def tank_run():
    drive = TankDrive(CIM, 10.71, n_motors_per_side=2, wheel_radius=0.0762, track_width=0.6, mass=50, moi=5)
    res = simcore.simulate([drive], 2.0, inputs={"drive.left_voltage": 6.0, "drive.right_voltage": 9.0},
                           x0={"drive.x": 2.0, "drive.y": 3.0})
    return drive, res


def test_tank_path_and_outlines():
    drive, res = tank_run()
    fig = plot_field(res, drive, every=0.5, field=FRC_FIELD)
    ax = fig.axes[0]
    path = ax.lines[0]
    np.testing.assert_array_equal(path.get_xdata(), res["drive.x"])
    np.testing.assert_array_equal(path.get_ydata(), res["drive.y"])
    robots = [p for p in ax.patches if isinstance(p, plt.Polygon)]
    assert len(robots) == 5  # t = 0, 0.5, 1.0, 1.5, 2.0
    # the last outline is centred on the final pose
    centre = robots[-1].get_xy()[:4].mean(axis=0)
    assert centre == pytest.approx([res.final("drive.x"), res.final("drive.y")], abs=1e-9)
    assert not ax.texts  # no module arrows for a tank


def test_swerve_module_vectors():
    pos = [(0.3, 0.3), (0.3, -0.3), (-0.3, 0.3), (-0.3, -0.3)]
    sw = SwerveDrive(KRAKEN_X60, KRAKEN_X60, module_positions=pos, drive_gearing=6.75, steer_gearing=21.4,
                     wheel_radius=0.05, mass=50, moi=6, start_steer_angles=[0.5] * 4)
    res = simcore.simulate([sw], 1.0, inputs={f"swerve.drive_voltage_{i}": 6.0 for i in range(4)})
    fig = plot_field(res, sw, every=0.25)
    ax = fig.axes[0]
    arrows = ax.texts  # annotate() arrows
    assert len(arrows) == 4 * 5
    # the last arrow of module 0 points along heading + steer angle
    a = arrows[-4]
    (x0, y0), (x1, y1) = a.xyann, a.xy
    assert np.arctan2(y1 - y0, x1 - x0) == pytest.approx(0.5, abs=1e-9)


def test_draws_into_given_axes_and_validates():
    drive, res = tank_run()
    fig, ax = plt.subplots()
    assert plot_field(res, drive, ax=ax) is fig
    with pytest.raises(ConfigError):
        plot_field(res, drive, every=0.0)
    other = TankDrive(CIM, 10.71, n_motors_per_side=2, wheel_radius=0.0762, track_width=0.6, mass=50, moi=5,
                      name="other")
    with pytest.raises(ConfigError):
        plot_field(res, other)
