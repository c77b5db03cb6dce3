"""Plots: every y-axis names its quantity and unit; a legend says when a current is several motors' total."""
import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

import simcore.models as models  # noqa: E402
from simcore import simulate  # noqa: E402
from simcore.models.motors import NEO  # noqa: E402
from simcore.plotting import axis_label  # noqa: E402


def labels(fig):
    return [(ax.get_ylabel(), [t.get_text() for t in ax.get_legend().get_texts()]) for ax in fig.axes]


@pytest.mark.parametrize("names, unit, label", [
    (["arm.angle"], "rad", "angle [rad]"),
    (["arm.stator_current"], "A", "stator current [A]"),
    (["arm.stator_current", "arm.supply_current"], "A", "current [A]"),
    (["arm.voltage", "arm.applied_voltage"], "V", "voltage [V]"),
    (["a.velocity", "b.velocity"], "m/s", "velocity [m/s]"),
    (["arm.saturated", "arm.current_limited"], "", "saturated, current limited [-]"),
    (["a.x", "b.y"], "furlong", "x, y [fur]"),
])
def test_an_axis_label_names_the_quantity_and_the_unit(names, unit, label):
    assert axis_label(names, unit) == label


def test_a_plot_labels_its_axes_and_notes_a_current_that_is_several_motors_total():
    two = models.Flywheel(NEO, 1.5, 0.005, n_motors=2, name="two")
    one = models.Flywheel(NEO, 1.5, 0.005, name="one")
    r = simulate([two, one], 0.05, inputs={"two.voltage": 12.0, "one.voltage": 12.0})
    fig = r.plot("two.velocity", "two.stator_current", "one.stator_current", "two.voltage")
    assert labels(fig) == [
        ("velocity [rad/s]", ["two.velocity"]),
        ("stator current [A]", ["two.stator_current (total of 2 motors)", "one.stator_current"]),
        ("voltage [V]", ["two.voltage"]),
    ]
    # the total it notes is the physics: at rest under 12 V two NEOs draw twice the datasheet's 105 A stall current
    assert r["two.stator_current"][0] == pytest.approx(2 * 105.0, rel=1e-12)
    assert r["one.stator_current"][0] == pytest.approx(105.0, rel=1e-12)
    assert r.notes == {f"two.{n}": "total of 2 motors" for n in ("stator_current", "supply_current", "motor_torque")}
