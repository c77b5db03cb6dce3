"""Planar pose and twist value types with the SE(2) exponential and logarithm.

Follows WPILib's ``Pose2d.exp`` / ``Pose2d.log`` and ``Twist2d``
(``edu/wpi/first/math/geometry``, v2025.3.2): a :class:`Twist2d` ``(dx, dy,
dtheta)`` is a motion along a constant-curvature arc expressed in the starting
pose's frame, and ``pose.exp(twist)`` is where that arc ends. This is the exact
update for a robot whose body-frame velocity is constant over the step, which is
why odometry uses it instead of a straight-line (Euler) step.

Convention: field frame, x forward/right-handed, y left, heading counter-clockwise
from +x, all in metres and radians. Unlike WPILib's ``Rotation2d``, ``heading`` is a
plain float that is *not* wrapped, so it stays continuous over many turns; use
:func:`wrap_angle` to fold it into ``(-pi, pi]``. Both value types check their fields
on construction (finite numbers, or Quantities of length and angle, converted to m and
rad); strings, None, bools, NaN and wrong dimensions raise ConfigError.
"""
from __future__ import annotations

__all__ = ["Pose2d", "Twist2d", "wrap_angle"]

import math
from dataclasses import dataclass, fields

from simcore import checks


def wrap_angle(angle: float) -> float:
    """Fold an angle (rad) into ``(-pi, pi]``."""
    return math.pi - (math.pi - checks.angle("angle", angle)) % (2.0 * math.pi)


class _Checked:
    """Mixin of the frozen value types: each field checked and converted to SI (``_units``) on construction."""

    _units: tuple = ()

    def __post_init__(self):
        for f, unit in zip(fields(self), self._units):
            # Frozen: the checked value is written past the dataclass's guard.
            object.__setattr__(self, f.name, checks.finite(f.name, getattr(self, f.name), unit))


def _arc_factors(theta: float):
    """``sin(t)/t`` and ``(1 - cos(t))/t``, by series near 0 where they cancel."""
    if abs(theta) < 1e-4:
        t2 = theta * theta
        return 1.0 - t2 / 6.0 + t2 * t2 / 120.0, theta * (0.5 - t2 / 24.0)
    return math.sin(theta) / theta, (1.0 - math.cos(theta)) / theta


@dataclass(frozen=True)
class Twist2d(_Checked):
    """A constant-curvature motion in the robot's own frame.

    Parameters
    ----------
    dx : float
        Forward displacement along the arc's start direction, m.
    dy : float
        Leftward displacement, m.
    dtheta : float
        Rotation, rad (counter-clockwise positive).
    """

    dx: float = 0.0
    dy: float = 0.0
    dtheta: float = 0.0

    _units = ("m", "m", "rad")


@dataclass(frozen=True)
class Pose2d(_Checked):
    """A robot pose on the field.

    Parameters
    ----------
    x : float
        Position along the field x axis, m.
    y : float
        Position along the field y axis, m.
    heading : float
        Counter-clockwise angle of the robot's forward axis from field +x, rad
        (not wrapped).
    """

    x: float = 0.0
    y: float = 0.0
    heading: float = 0.0

    _units = ("m", "m", "rad")

    def __iter__(self):
        yield self.x
        yield self.y
        yield self.heading

    def transform_by(self, dx: float, dy: float, dtheta: float) -> "Pose2d":
        """Move by ``(dx, dy)`` m in this pose's own frame and turn by ``dtheta`` rad."""
        dx, dy = checks.finite("dx", dx, "m"), checks.finite("dy", dy, "m")
        dtheta = checks.angle("dtheta", dtheta)
        c, s = math.cos(self.heading), math.sin(self.heading)
        return Pose2d(self.x + c * dx - s * dy, self.y + s * dx + c * dy,
                      self.heading + dtheta)

    def relative_to(self, other: "Pose2d"):
        """This pose expressed in ``other``'s frame, as ``(dx, dy, dtheta)``.

        ``dtheta`` is wrapped into ``(-pi, pi]``.
        """
        c, s = math.cos(other.heading), math.sin(other.heading)
        ex, ey = self.x - other.x, self.y - other.y
        return c * ex + s * ey, -s * ex + c * ey, wrap_angle(self.heading - other.heading)

    def exp(self, twist: Twist2d) -> "Pose2d":
        """The pose reached by following ``twist`` from this pose.

        Integrating a body velocity ``(vx, vy, w)`` held for unit time gives the
        body-frame displacement ``[[S, -C], [C, S]] @ (dx, dy)`` with ``S =
        sin(dtheta)/dtheta`` and ``C = (1 - cos(dtheta))/dtheta``.
        """
        s, c = _arc_factors(twist.dtheta)
        return self.transform_by(twist.dx * s - twist.dy * c, twist.dx * c + twist.dy * s,
                                 twist.dtheta)

    def log(self, end: "Pose2d") -> Twist2d:
        """The twist that takes this pose to ``end`` (inverse of :meth:`exp`).

        The rotation is the wrapped heading difference, so the twist turns at most
        half a revolution.
        """
        tx, ty, dtheta = end.relative_to(self)
        s, c = _arc_factors(dtheta)
        # Invert [[S, -C], [C, S]]: its inverse is [[S, C], [-C, S]] / (S^2 + C^2).
        det = s * s + c * c
        return Twist2d((s * tx + c * ty) / det, (-c * tx + s * ty) / det, dtheta)
