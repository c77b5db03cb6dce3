"""Plots of results: signals against time, grouped by unit, inputs as steps.

Each axes holds the signals of one unit; its label names the quantity and the unit
(``angle [rad]``, ``current [A]``): the signal's own name when it is alone, else
the quantity the unit measures. A legend entry carries the signal's note when its
system gives one (``flywheel.stator_current (total of 2 motors)``).
"""
from __future__ import annotations

from typing import Sequence

__all__ = ["plot_result", "axis_label"]

#: The quantity each of the project's SI units measures, for axis labels.
QUANTITY_OF_UNIT = {
    "s": "time", "rad": "angle", "rad/s": "angular velocity", "rad/s**2": "angular acceleration",
    "m": "position", "m/s": "velocity", "m/s**2": "acceleration", "kg": "mass", "kg*m**2": "moment of inertia",
    "N*m": "torque", "N": "force", "V": "voltage", "A": "current", "ohm": "resistance", "W": "power",
    "J": "energy", "Hz": "frequency",
}


def _unit_text(unit: str) -> str:
    if not unit:
        return "-"
    from .units import ureg

    try:
        return f"{ureg.Unit(unit):~P}"
    except Exception:  # an unparsable unit string still labels the axis verbatim
        return unit


def axis_label(names: Sequence[str], unit: str) -> str:
    """``"<quantity> [<unit>]"`` for an axes showing the signals ``names``, all in ``unit``.

    One signal: its name without the system (``arm.stator_current`` -> ``stator
    current [A]``); several with one such name: that name; several others: the
    quantity the unit measures (``current [A]``), or the names, for a unit not in
    :data:`QUANTITY_OF_UNIT`.
    """
    short = list(dict.fromkeys(n.split(".", 1)[-1].replace("_", " ") for n in names))
    if len(short) == 1:
        quantity = short[0]
    else:
        quantity = QUANTITY_OF_UNIT.get(unit) or ", ".join(short)
    return f"{quantity} [{_unit_text(unit)}]"


def plot_result(result, names: Sequence[str], *, events: bool = True, title: str | None = None):
    """Plot ``names`` of ``result``, one axes per distinct unit.

    Without ``names``: the first six recorded signals that are not inputs (a
    drivetrain records dozens; name the ones you want), and the title says how
    many were left out.
    """
    import matplotlib.pyplot as plt

    if not names:
        candidates = [n for n in result.names if n not in result.input_names]
        names = candidates[:6]
        if len(candidates) > 6:
            left = f"{len(candidates) - 6} more signals not shown: pass names to plot them"
            title = f"{title} ({left})" if title else left
    for n in names:
        result[n]  # raise a clear KeyError for unknown names
    groups: dict[str, list[str]] = {}
    for n in names:
        groups.setdefault(result.units.get(n, ""), []).append(n)
    notes = getattr(result, "notes", {})
    fig, axes = plt.subplots(len(groups), 1, sharex=True, squeeze=False,
                             figsize=(8, 2.4 * len(groups) + 0.6))
    for ax, (unit, group) in zip(axes[:, 0], groups.items()):
        for n in group:
            label = f"{n} ({notes[n]})" if n in notes else n
            if n in result.input_names:
                ax.step(result.t, result[n], where="post", label=label)
            else:
                ax.plot(result.t, result[n], label=label)
        ax.set_ylabel(axis_label(group, unit))
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize="small")
        if events:
            for e in result.events:
                ax.axvline(e.t, color="0.5", linestyle=":", linewidth=0.8)
    axes[-1, 0].set_xlabel("time [s]")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
