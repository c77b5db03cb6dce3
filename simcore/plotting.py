"""Plots of results: signals against time, grouped by unit, inputs as steps."""
from __future__ import annotations

from typing import Sequence

__all__ = ["plot_result"]


def _unit_label(unit: str) -> str:
    if not unit:
        return "[-]"
    from .units import ureg

    try:
        return f"[{ureg.Unit(unit):~P}]"
    except Exception:  # an unparsable unit string still labels the axis verbatim
        return f"[{unit}]"


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
    fig, axes = plt.subplots(len(groups), 1, sharex=True, squeeze=False,
                             figsize=(8, 2.4 * len(groups) + 0.6))
    for ax, (unit, group) in zip(axes[:, 0], groups.items()):
        for n in group:
            if n in result.input_names:
                ax.step(result.t, result[n], where="post", label=n)
            else:
                ax.plot(result.t, result[n], label=n)
        ax.set_ylabel(_unit_label(unit))
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
