"""The playing field and the field view of a drivetrain run.

**Fields.** :data:`FRC_FIELD` and :data:`FTC_FIELD` are ``(length, width)`` from
the origin, m; :func:`field_bounds` turns those or an ``(x_min, y_min, x_max,
y_max)`` rectangle into its bounds. A drivetrain given a field and a bumper treats
the field's perimeter as walls (see :mod:`simcore.models.chassis`).

**The FTC field** (:data:`FTC_FIELD_WALLS`): a 12 ft x 12 ft square perimeter
(six by six 2 ft foam tiles; FIRST's FTC game manuals, part 2, the field) in the
FTC field coordinate system, whose origin is the centre of the field,
equidistant from the four perimeter walls (FIRST, "FTC Field Coordinate System
Definition", rev. 1.0.0). A drivetrain built from an FTC motor type gets these
walls by default, with a bumper of :data:`FTC_ROBOT_SIZE` square unless it
gives its own (the FTC robot rules: a robot starts inside an 18 in x 18 in x
18 in sizing cube), so a robot starting at the origin has 1.6 m of field ahead.

**Field view** (:func:`plot_field`): the path, the robot outline at intervals,
swerve module vectors. It reads the pose signals ``<drive>.x``, ``<drive>.y``,
``<drive>.heading`` (field frame, m and rad) from a :class:`~simcore.result.Result`.
The drive object is only asked, by duck typing, for its ``name``, its
``outline()`` (robot-frame polygon, m), its ``field`` when it has one, and, for a
swerve drive, ``module_positions`` together with the recorded ``steer_angle_<i>``
and ``wheel_speed_<i>`` signals (``simcore`` imports no model).
"""
from __future__ import annotations

import math

import numpy as np

from . import checks
from .errors import ConfigError, ConfigTypeError

__all__ = ["plot_field", "field_bounds", "FRC_FIELD", "FTC_FIELD", "FTC_FIELD_WALLS", "FTC_ROBOT_SIZE"]

#: FRC field (2024-2026 style), length x width, m.
FRC_FIELD = (16.54, 8.07)
#: FTC field, 12 ft x 12 ft, m.
FTC_FIELD = (3.6576, 3.6576)
#: The FTC field's perimeter in the FTC field coordinates (origin at its centre): (x_min, y_min, x_max, y_max), m.
FTC_FIELD_WALLS = (-FTC_FIELD[0] / 2, -FTC_FIELD[1] / 2, FTC_FIELD[0] / 2, FTC_FIELD[1] / 2)
#: The FTC robot's largest starting footprint, 18 in x 18 in (the sizing cube), m.
FTC_ROBOT_SIZE = (0.4572, 0.4572)


def field_bounds(parameter: str, field) -> tuple[float, float, float, float]:
    """``(x_min, y_min, x_max, y_max)`` of a field given as that, or as ``(length, width)`` from (0, 0), m."""
    expected = "(length, width) or (x_min, y_min, x_max, y_max) in m"
    if isinstance(field, (str, bytes)) or not hasattr(field, "__iter__"):
        raise ConfigTypeError(parameter, field, expected)
    values = tuple(field)
    if len(values) == 2:
        values = (0.0, 0.0) + values
    if len(values) != 4:
        raise ConfigTypeError(parameter, field, expected)
    x0, y0, x1, y1 = (checks.finite(f"{parameter}[{i}]", v, "m") for i, v in enumerate(values))
    if not (x1 > x0 and y1 > y0):
        raise ConfigError(parameter, field, "x_max > x_min and y_max > y_min")
    return x0, y0, x1, y1


def _rotate(points, x, y, heading):
    c, s = math.cos(heading), math.sin(heading)
    return [(x + c * px - s * py, y + s * px + c * py) for px, py in points]


def plot_field(result, drive, *, every=0.5, ax=None, field=None, vector_scale=None):
    """Plot a drivetrain's path on the field and return the Figure.

    Parameters
    ----------
    result : Result
        A run containing ``<name>.x``, ``<name>.y``, ``<name>.heading``.
    drive : System
        The drivetrain (``name``; optional ``outline()`` and ``module_positions``).
    every : float
        Interval between drawn robot outlines, s (> 0).
    ax : matplotlib Axes, optional
        Draw into these axes (their figure is returned).
    field : field, optional
        Draw the field boundary: ``(length, width)`` from (0, 0) (e.g. :data:`FRC_FIELD`)
        or ``(x_min, y_min, x_max, y_max)``, m. Default: the drive's own ``field``
        (its walls) when it has one.
    vector_scale : float, optional
        Length of a module vector per m/s of wheel speed, s (default: the
        fastest wheel draws as long as half the robot).
    """
    import matplotlib.pyplot as plt

    if not (isinstance(every, (int, float)) and not isinstance(every, bool) and every > 0 and math.isfinite(every)):
        raise ConfigError("every", every, "a positive interval in s")
    name = getattr(drive, "name", drive)
    keys = [f"{name}.{s}" for s in ("x", "y", "heading")]
    for k in keys:
        if k not in result:
            raise ConfigError("result", k, f"a result recording {k!r}")
    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 6))
    else:
        fig = ax.figure
    x, y, h = (result[k] for k in keys)
    ax.plot(x, y, color="C0", linewidth=1.2, label="path")
    ax.plot(x[:1], y[:1], "o", color="C2", label="start")
    ax.plot(x[-1:], y[-1:], "s", color="C3", label="end")

    outline = list(drive.outline()) if hasattr(drive, "outline") else [(0.3, 0.3), (-0.3, 0.3), (-0.3, -0.3),
                                                                        (0.3, -0.3)]
    size = max(max(abs(px), abs(py)) for px, py in outline)
    t0, t1 = float(result.t[0]), float(result.t[-1])
    times = t0 + every * np.arange(int(math.floor((t1 - t0) / every + 1e-9)) + 1)
    xs, ys, hs = (result.sample(k, times) for k in keys)

    positions = getattr(drive, "module_positions", None)
    has_modules = positions is not None and f"{name}.steer_angle_0" in result
    if has_modules:
        n = len(positions)
        angles = [result.sample(f"{name}.steer_angle_{i}", times) for i in range(n)]
        speeds = [result.sample(f"{name}.wheel_speed_{i}", times) for i in range(n)]
        if vector_scale is None:
            fastest = max(float(np.max(np.abs(s))) for s in speeds) if len(times) else 0.0
            vector_scale = 0.5 * size / fastest if fastest > 0 else 0.0

    for k, (xk, yk, hk) in enumerate(zip(xs, ys, hs)):
        poly = _rotate(outline, xk, yk, hk)
        ax.add_patch(plt.Polygon(poly, closed=True, fill=False, edgecolor="0.35", linewidth=0.8,
                                 label="robot" if k == 0 else None))
        # heading tick: centre to the front edge
        ax.plot([xk, xk + size * math.cos(hk)], [yk, yk + size * math.sin(hk)], color="0.35", linewidth=0.8)
        if has_modules:
            for i, p in enumerate(positions):
                (mx, my), = _rotate([p], xk, yk, hk)
                a = hk + angles[i][k]
                length = vector_scale * speeds[i][k]
                ax.annotate("", xy=(mx + length * math.cos(a), my + length * math.sin(a)), xytext=(mx, my),
                            arrowprops=dict(arrowstyle="->", color="C1", linewidth=0.9))
    if has_modules:
        ax.plot([], [], color="C1", label="module vectors")
    if field is None:
        field = getattr(drive, "field", None)
    if field is not None:
        x0, y0, x1, y1 = field_bounds("field", field)
        ax.add_patch(plt.Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, edgecolor="k", linewidth=1.5))
    # "box" keeps equal scales by shaping the axes, so limits a user sets afterwards are honoured.
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("field x [m]")
    ax.set_ylabel("field y [m]")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    ax.set_title(f"{name}: path, robot every {every:g} s")
    ax.autoscale_view()
    return fig
