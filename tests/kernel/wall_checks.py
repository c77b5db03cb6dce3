"""Independent checks of a chassis drive's wall contacts (a helper of the walls tests here): the bumper corners'
gaps to the field's walls, and what a perfectly plastic impact on a frictionless wall must do."""
from __future__ import annotations

import math

import numpy as np


def corners(half_length: float, half_width: float) -> tuple:
    """The bumper's corners, robot frame, m: front-left, front-right, rear-left, rear-right (Chassis.corners)."""
    return ((half_length, half_width), (half_length, -half_width), (-half_length, half_width),
            (-half_length, -half_width))


def corner_gaps(res, name: str, bumper_corners, bounds) -> np.ndarray:
    """Each bumper corner's gap to each wall of ``bounds`` ``(x_min, y_min, x_max, y_max)`` at every row of
    ``res`` (drive ``name``), m: row ``4 corner + wall``, walls x_min, x_max, y_min, y_max."""
    x, y, h = res[f"{name}.x"], res[f"{name}.y"], res[f"{name}.heading"]
    c, s = np.cos(h), np.sin(h)
    x0, y0, x1, y1 = bounds
    out = []
    for px, py in bumper_corners:
        cx, cy = x + c * px - s * py, y + s * px + c * py
        out += [cx - x0, x1 - cx, cy - y0, y1 - cy]
    return np.array(out)


def check_impact(event, bumper_corners, i_impact_loss: int) -> None:
    """A ``wall`` event's reset: the impulse is along the wall's normal only, so the field-frame velocity along
    the walls hit (x walls: vy; y walls: vx) is unchanged; the impact loss booked is not negative; no corner on a
    wall moves into it after it."""
    xb, xa = np.asarray(event.x_before), np.asarray(event.x_after)
    walls = {w for w, _ in event.mode_after[1]}
    if walls <= {0, 1}:
        assert abs(xa[4] - xb[4]) <= 1e-12 * (1.0 + abs(xb[4]))
    elif walls <= {2, 3}:
        assert abs(xa[3] - xb[3]) <= 1e-12 * (1.0 + abs(xb[3]))
    assert xa[i_impact_loss] - xb[i_impact_loss] >= 0.0
    c, s = math.cos(xa[2]), math.sin(xa[2])
    for w, k in event.mode_after[1]:
        px, py = bumper_corners[k]
        vx, vy = xa[3] - xa[5] * (s * px + c * py), xa[4] + xa[5] * (c * px - s * py)
        assert (-vx, vx, -vy, vy)[w] <= 1e-9, (event.t, w, k)  # the corner's velocity towards its wall
