"""A rigid chassis on wheel contacts: traction modes, scrub, weight transfer, walls, external forces.

The shared mechanics of :class:`~simcore.models.tank.TankDrive`,
:class:`~simcore.models.swerve.SwerveDrive` and
:class:`~simcore.models.mecanum.MecanumDrive`. Robot frame: x forward, y left,
origin at the centre of mass; field frame: heading counter-clockwise from +x.

**Contacts.** The robot stands on ground contacts ``j`` at robot-frame points
``r_j``. Each belongs to a *wheel* ``i``: a rotating part (a tank side with its
chain, a swerve module's wheel, a mecanum wheel) of equivalent mass ``M_i`` at its
rim (wheel, gears and reflected motor rotors), rim speed ``w_i`` and rim direction
``e_i``. At a wheel's contacts the ground pushes along two directions:

* the **traction direction** ``d_i`` (the wheel's rolling direction for a tank or
  swerve wheel, the roller axle for a mecanum wheel), with the *slip*
  ``s_i = w_i (e_i . d_i) - v_i . d_i`` (the rim's surface speed along ``d_i``
  minus the ground speed of the contact point there). This is **exact Coulomb
  friction with modes** (the project's way with stiction: a mode, not a stiff
  smoothing): in ``roll`` the contact does not slip (``s_i = 0``: the wheel's
  inertia rides with the chassis) and the force along ``d_i`` is whatever the
  constraint needs, while it is within ``mu_i N_i``; past that the wheel slips,
  mode ``forward`` (``s_i > 0``, the wheel spins ahead of the ground) or
  ``backward``, with the force ``+-mu_i N_i`` and the wheel's own dynamics
  ``M_i dw_i/dt = D_i - F_i . e_i``. Located events switch: ``breakaway`` when the
  force roll needs reaches the limit, ``grip`` when the slip comes back to zero (and
  the force roll needs is within the limit; otherwise the wheel slips the other
  way). No mode is stiff, so explicit Runge-Kutta methods integrate it at the
  steps the motion needs.
* the **free direction** ``n_j`` (perpendicular to ``d_i``): sideways scrub of a
  tank or swerve wheel, the rolling direction of a mecanum roller. There the ground
  resists with a regularized Coulomb law ``g_j = -mu_n,j N_j s_n / sqrt(s_n^2 +
  eps^2)`` of the sideways slip ``s_n = v_j . n_j - w_i (e_i . n_j)`` (the lateral
  friction coefficient for scrub, the roller rolling-resistance coefficient for a
  mecanum roller). It acts on the chassis (time constant ``eps / (mu_n g)``, a few
  milliseconds: not stiff at the steps a robot needs).

The traction and the free direction are independent (a friction box, not a
circle): each has its own limit.

**Weight transfer.** The contacts carry the weight on equal vertical springs (a
rigid chassis): the normal loads are the planar distribution
``N_j = N0_j - h (q_j H_x + r_j H_y)`` that balances the weight and the pitch and
roll moments about the centre of mass of the ground's horizontal forces, which act
at depth ``h`` (the centre-of-mass height): ``sum N_j = m g``,
``sum N_j x_j = -h H_x``, ``sum N_j y_j = -h H_y``, with ``H = m A - F_ext - F_wall``
their sum (``A`` the robot-frame acceleration of the centre of mass; the external and
wall forces act at the centre-of-mass height, so they pitch nothing themselves).
Driven by its wheels alone, ``H = m A``: on a rectangle of wheelbase ``L`` the
textbook ``m a h / L`` taken from the front axle to the rear; a coasting robot pushed
through its centre of mass pitches only by its wheels' spin-up reactions. With all
contacts on one line across the robot (a tank without a wheelbase) there is no
pitch lever, and only the roll transfer is kept. Each contact's load is an output;
the event ``tip`` (terminal) is located when one reaches zero.

**Walls.** With a bumper outline (a rectangle ``length x width`` about the
centre) and a field (``(x_min, y_min, x_max, y_max)``, m), each field wall is a
contact for the bumper's corners: the event ``wall`` is located when a corner
reaches a wall (a perfectly plastic impact: the corner's velocity into the wall
becomes zero; the wheels cannot pass an impulse, so their rims keep their speeds
and slip), after which the corner stays on the wall, sliding along it without
friction, while the wall pushes (``wall_force_<k>``); event ``leave_wall`` when it
no longer does. No penetration.

**External forces** on the centre of mass (applied at its height, so they move no
load between the wheels by themselves): ``external_force_x``, ``external_force_y``
(N, field frame) and ``external_torque`` (N·m), for pushing matches and bumps. The
bumper's wall contacts act at the same height.

At each instant the accelerations, the rolling wheels' traction forces, the wall
forces and the normal loads are linear in each other; :meth:`Chassis.solve`
solves that small linear system (3 unknowns, plus one per wall contact). For wheels
that do not steer and no load transfer, the system's matrix depends on the wheels'
modes alone: :meth:`Chassis.solve_fixed` (and :meth:`Chassis.solve_axle` for a tank
without a wheelbase) form it once per mode and give the same numbers.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from simcore import checks
from simcore.errors import ConfigError, IntegrationError
from simcore.events import StateEvent
from simcore.field import FTC_FIELD_WALLS, FTC_ROBOT_SIZE, field_bounds
from simcore.kernel.chassis_layout import walls_fit

__all__ = ["Chassis", "ChassisDrive", "DEFAULT_FIELD", "walls_of", "ContactSolution", "DRIVE_ENERGY_STATES", "EXTERNAL_INPUTS", "ROLL", "FORWARD",
           "BACKWARD", "BREAKAWAY_MARGIN", "GRIP_SPEED", "TOUCH_DISTANCE", "square_safe"]

#: Energy-accounting states of every drivetrain (``track_energy=True``), J: ``energy_in +
#: external_work = ΔKE + copper_loss + conversion_loss + gear_loss + friction_loss + impact_loss``.
DRIVE_ENERGY_STATES = ("energy_in", "copper_loss", "conversion_loss", "gear_loss", "friction_loss",
                       "impact_loss", "external_work")

#: External force and torque inputs on the centre of mass: N and N (field frame), N·m.
EXTERNAL_INPUTS = ("external_force_x", "external_force_y", "external_torque")

#: Traction modes of a wheel.
ROLL, FORWARD, BACKWARD = 0, 1, -1

#: Relative margin past the traction limit at which a rolling wheel breaks away (as the
#: mechanisms' stiction): a constraint force that converges on the limit from below would
#: otherwise break away and grip again on round-off.
BREAKAWAY_MARGIN = 1e-9

#: Slip speed, m/s, below which a wheel whose grip event fired is set rolling exactly (the
#: event is located to 1e-13 s, so the slip left there is about 1e-11 m/s).
GRIP_SPEED = 1e-9


class _DefaultField:
    """The type of :data:`DEFAULT_FIELD`."""

    def __repr__(self):
        return "DEFAULT_FIELD"


#: A drivetrain's default ``field``: the FTC field's walls for one built from an FTC motor type (that can push a
#: wall), none for the others (:func:`walls_of`). Give ``field=None`` for no walls.
DEFAULT_FIELD = _DefaultField()


def walls_of(field, bumper, motor_type, *, can_push: bool = True):
    """The ``(field, bumper)`` a drivetrain stands in, its ``field`` argument's default resolved.

    With ``field`` :data:`DEFAULT_FIELD`: an FTC drivetrain (built from an FTC
    ``motor_type``) that ``can_push`` a wall stands in the FTC field's perimeter
    (:data:`simcore.field.FTC_FIELD_WALLS`) with its ``bumper``, or the largest
    starting footprint :data:`simcore.field.FTC_ROBOT_SIZE` when it gives none;
    any other drivetrain in no field. Any other ``field`` is returned as given.
    """
    if field is not DEFAULT_FIELD:
        return field, bumper
    if motor_type is None or not can_push:
        return None, bumper
    return FTC_FIELD_WALLS, FTC_ROBOT_SIZE if bumper is None else bumper


def square_safe(parameter: str, value, unit: str = "", *, what: str, signed: bool = False) -> float:
    """A positive parameter (any finite one with ``signed``) whose square is a finite float, and
    positive for a positive value.

    The drivetrain equations square their radii, regularization speeds and ratios (a
    rotating inertia at the rim divides by ``r^2``); 1e-300 m would underflow that to 0
    and 1e300 overflow it.
    """
    x = checks.finite(parameter, value, unit) if signed else checks.positive(parameter, value, unit, what=what)
    square = x * x
    if square == math.inf or (square == 0.0 and x != 0.0):
        size = "a magnitude" if signed else "a size"
        raise ConfigError(parameter, value, f"a {what} in {unit or 'its unit'} of {size} between about 1e-154 "
                                            "and 1e154 (its square must be a positive finite float)")
    return x


class ContactSolution:
    """The chassis at one instant (robot frame; lists in wheel, contact or wall-contact order).

    Attributes
    ----------
    ax, ay : float
        Acceleration of the centre of mass, robot frame, m/s².
    alpha : float
        Yaw acceleration, rad/s².
    normal : list of float
        Each ground contact's normal load, N.
    traction : list of float
        Each wheel's force along its traction direction on the robot, N.
    free_force : list of float
        Each contact's force along its free direction, N.
    wall_force : list of float
        Each wall contact's push, N (>= 0 while it holds).
    wheel_accel : list of float
        Each wheel's rim acceleration, m/s².
    """

    __slots__ = ("ax", "ay", "alpha", "normal", "traction", "free_force", "wall_force", "wheel_accel")


class Chassis:
    """Mass, layout, weight transfer and walls of a drivetrain's chassis (see the module docstring).

    Parameters
    ----------
    mass : float
        kg.
    moi : float
        Yaw moment of inertia about the centre of mass, kg·m² (of the chassis with
        everything but the wheels' and modules' own spin).
    contacts : sequence of (x, y)
        Ground contact points, robot frame, m.
    wheel_of_contact : sequence of int
        The wheel each contact belongs to.
    gravity, cog_height : float
        m/s², m.
    bumper : (length, width), optional
        Robot outline for wall contacts, m.
    field : field, optional
        ``(x_min, y_min, x_max, y_max)`` or ``(length, width)``, m (needs ``bumper``).
    static_share : sequence of float, optional
        Each contact's share of the weight at rest (summing to 1, no moment about the
        centre of mass); default the equal-spring distribution. The load transfer
        under acceleration is the equal-spring one either way.
    layout : sequence of (str, object, float or sequence of float), optional
        The user's parameters the contacts come from, as ``(name, value given, value
        in m)``, so a layout error names the one the user passed (default: ``contacts``).
    """

    def __init__(self, *, mass, moi, contacts, wheel_of_contact, gravity, cog_height, bumper=None, field=None,
                 static_share=None, layout=None):
        self.mass, self.moi, self.gravity = mass, moi, gravity
        self.cog_height = checks.nonnegative("cog_height", cog_height, "m", what="height")
        self.contacts = [tuple(c) for c in contacts]
        self.wheel_of_contact = list(wheel_of_contact)
        self.n_wheels = max(self.wheel_of_contact) + 1
        self.contacts_of_wheel = [[j for j, w in enumerate(self.wheel_of_contact) if w == i]
                                  for i in range(self.n_wheels)]
        xs = np.array([c[0] for c in self.contacts])
        ys = np.array([c[1] for c in self.contacts])
        # The planar (equal-spring) load distribution: N_j = [1, x_j, y_j] S^+ (m g, -h H_x, -h H_y), H the
        # ground's horizontal force (m A without external or wall forces; see Chassis.solve).
        with np.errstate(over="ignore", invalid="ignore"):  # refused below, by the parameter's name
            S = np.array([[len(xs), xs.sum(), ys.sum()], [xs.sum(), (xs * xs).sum(), (xs * ys).sum()],
                          [ys.sum(), (xs * ys).sum(), (ys * ys).sum()]])
        if not np.isfinite(S).all():
            # Positions so large their squares overflow: name the user's parameter with the largest.
            name, given, _ = max(layout or (("contacts", self.contacts, self.contacts),),
                                 key=lambda p: float(np.max(np.abs(np.asarray(p[2], dtype=float)))))
            raise ConfigError(name, given, "a size in m below about 1e154 (the weight distribution squares "
                                           "the contact positions)")
        rho = np.column_stack([np.ones_like(xs), xs, ys]) @ np.linalg.pinv(S, rcond=1e-12)
        m, h = mass, self.cog_height
        #: Each contact's share of the weight at rest (its load at rest is ``m g`` times it).
        self.load_share = rho[:, 0] if static_share is None else np.asarray(static_share, dtype=float)
        self.load0 = (m * gravity * self.load_share).tolist()
        self.load_x = (-m * h * rho[:, 1]).tolist()
        self.load_y = (-m * h * rho[:, 2]).tolist()
        if min(self.load0) <= 0.0:
            raise ConfigError("contacts", self.contacts, "a layout whose contacts all carry weight at rest")
        # Each wheel's load, the sum of its contacts'.
        self.wheel_load0 = [sum(self.load0[j] for j in cs) for cs in self.contacts_of_wheel]
        self.wheel_load_x = [sum(self.load_x[j] for j in cs) for cs in self.contacts_of_wheel]
        self.wheel_load_y = [sum(self.load_y[j] for j in cs) for cs in self.contacts_of_wheel]
        self.tips = h > 0.0
        # Walls.
        if bumper is None:
            self.bumper = None
            if field is not None:
                raise ConfigError("field", field, "a bumper=(length, width) too: walls touch the bumper outline")
            self.field = None
        else:
            length, width = checks.point("bumper", bumper, "m")
            if not (length > 0 and width > 0):
                raise ConfigError("bumper", bumper, "a positive (length, width) in m")
            self.bumper = (length, width)
            self.field = None if field is None else field_bounds("field", field)
        hl, hw = (self.bumper[0] / 2.0, self.bumper[1] / 2.0) if self.bumper else (0.0, 0.0)
        #: Bumper corners, robot frame: front-left, front-right, rear-left, rear-right.
        self.corners = [(hl, hw), (hl, -hw), (-hl, hw), (-hl, -hw)]
        if self.field is not None:
            x0, y0, x1, y1 = self.field
            # (inward normal, offset): gap of a point p is n . p - offset.
            self.walls = [((1.0, 0.0), x0), ((-1.0, 0.0), -x1), ((0.0, 1.0), y0), ((0.0, -1.0), -y1)]
        else:
            self.walls = []

    # -- geometry of the walls ------------------------------------------------------------------------
    def gap(self, wall: int, corner: int, x: float, y: float, c: float, s: float) -> float:
        """Distance of bumper ``corner`` inside ``wall`` at pose (x, y, heading with cos c, sin s), m."""
        (nx, ny), off = self.walls[wall]
        px, py = self.corners[corner]
        return nx * (x + c * px - s * py) + ny * (y + s * px + c * py) - off

    def check_inside(self, parameter: str, pose) -> None:
        """ConfigError when the bumper at ``pose`` is outside the field."""
        if not self.walls:
            return
        x, y, h = pose
        c, s = math.cos(h), math.sin(h)
        for w in range(4):
            for k in range(4):
                if self.gap(w, k, x, y, c, s) < -1e-12:
                    raise ConfigError(parameter, pose, f"a pose with the bumper {self.bumper} m inside the field "
                                                       f"{self.field} (field=None for no walls)")

    def wall_rows(self, contacts, om: float, c: float, s: float) -> list:
        """Per wall contact (wall, corner): (n_x, n_y robot frame, corner x n, omega^2 n . corner)."""
        rows = []
        for w, k in contacts:
            (nx, ny), _ = self.walls[w]
            nrx, nry = c * nx + s * ny, -s * nx + c * ny  # the wall's normal in the robot frame
            px, py = self.corners[k]
            rows.append((nrx, nry, px * nry - py * nrx, om * om * (nrx * px + nry * py)))
        return rows

    # -- the instant ------------------------------------------------------------------------------------
    def set_wheels(self, *, couple, couple_free, mass_eq, mu, free_of_wheel) -> None:
        """The wheels' fixed data: ``couple = e . d``, ``couple_free = e . n`` of the wheel's own contact
        (mecanum; 0 otherwise), ``mass_eq`` ``M_i``, ``mu`` (None: never slips) and ``free_of_wheel``
        (the contact whose free force reacts on the wheel through ``couple_free``, or -1)."""
        self.couple, self.couple_free = list(couple), list(couple_free)
        self.mass_eq, self.mu, self.free_of_wheel = list(mass_eq), list(mu), list(free_of_wheel)
        self._reacts = [j >= 0 and cp != 0.0 for j, cp in zip(self.free_of_wheel, self.couple_free)]
        self._no_free = [0.0] * len(self.contacts)
        self._fixed_rows = {}  # solve_fixed's per mode

    def solve(self, vx, vy, om, dx, dy, arm, hterm, drive, modes, free_dirs, free_arm, free_coef,
              fext_x, fext_y, torque, walls, ay_fixed=None) -> ContactSolution:
        """Accelerations and forces at one instant.

        Per wheel ``i`` (sequences): traction direction ``(dx, dy)``; ``arm = r_i x d_i``;
        ``hterm``: the part of the ground acceleration along ``d_i`` that does not
        depend on the unknowns (``omega (v_y d_x - v_x d_y)`` plus, for a steered
        wheel, ``dphi/dt (v_i . n_i)``); ``drive`` ``D_i`` (the motor's force at the rim
        along ``e_i``, friction included); ``modes``. Per contact ``j``: ``free_dirs``
        ``(n_x, n_y)``, ``free_arm = r_j x n_j``, ``free_coef = mu_n,j s_n / sqrt(s_n^2 +
        eps^2)`` (the free force is ``-free_coef N_j``). ``fext_*``, ``torque``: external
        force (robot frame) and yaw torque (external minus steering reactions);
        ``walls``: :meth:`wall_rows` of the wall contacts. ``ay_fixed``: a chassis that
        cannot move sideways (a tank without a wheelbase) has ``A_y`` given (the
        centripetal ``omega v``); its sideways force is whatever that takes.
        The wheels' fixed data are :meth:`set_wheels`'s.
        """
        m, J = self.mass, self.moi
        l0 = self.load0
        wl0 = self.wheel_load0
        transfer = self.tips
        nc = len(free_coef)
        if transfer:
            # The loads follow the ground's horizontal forces, m A - F_ext - F_wall (the external and
            # wall forces act at the centre-of-mass height, so they pitch nothing): in A, the loads'
            # constant part moves by the external force's share; the wall forces' is added below.
            lx, ly = self.load_x, self.load_y
            ex, ey = fext_x / m, fext_y / m
            l0 = [l0[j] - lx[j] * ex - ly[j] * ey for j in range(len(l0))]
            wl0 = [wl0[i] - self.wheel_load_x[i] * ex - self.wheel_load_y[i] * ey for i in range(len(wl0))]
        # Free forces g_j = G0 + Gx A_x + Gy A_y (Gx = Gy = 0 without load transfer).
        G0 = [-free_coef[j] * l0[j] for j in range(nc)]
        if transfer:
            Gx = [-free_coef[j] * lx[j] for j in range(nc)]
            Gy = [-free_coef[j] * ly[j] for j in range(nc)]
            # The load-dependent parts of the rows' A_x and A_y coefficients, for the wall columns.
            px = [0.0, 0.0, 0.0]
            py = [0.0, 0.0, 0.0]
        load_coeffs = []  # per wheel: its traction's load-dependent (A_x, A_y) coefficients
        a00, a01, a02 = m, 0.0, 0.0
        a10, a11, a12 = 0.0, m, 0.0
        a20, a21, a22 = 0.0, 0.0, J
        b0, b1, b2 = fext_x, fext_y, torque
        # Traction forces f_i = F0 + Fx A_x + Fy A_y + Fa alpha, into the chassis rows as they come.
        coeffs = []
        couple, cfree, mass_eq, mu, fow, reacts = (self.couple, self.couple_free, self.mass_eq, self.mu,
                                                   self.free_of_wheel, self._reacts)
        for i in range(len(modes)):
            ddx, ddy, ar = dx[i], dy[i], arm[i]
            if modes[i] == ROLL:
                c, M = couple[i], mass_eq[i]
                k = M / (c * c)
                f0 = (drive[i] - M * hterm[i] / c) / c
                fx, fy, fa = -k * ddx, -k * ddy, -k * ar
                lxi = lyi = 0.0
                if reacts[i]:
                    j = fow[i]
                    q = cfree[i] / c
                    f0 -= q * G0[j]
                    if transfer:
                        lxi, lyi = -q * Gx[j], -q * Gy[j]
                        fx += lxi
                        fy += lyi
            else:
                lim = modes[i] * mu[i]
                f0 = lim * wl0[i]
                fx = lxi = lim * self.wheel_load_x[i]
                fy = lyi = lim * self.wheel_load_y[i]
                fa = 0.0
            coeffs.append((f0, fx, fy, fa))
            load_coeffs.append((lxi, lyi))
            if transfer:
                px[0] -= lxi * ddx
                px[1] -= lxi * ddy
                px[2] -= lxi * ar
                py[0] -= lyi * ddx
                py[1] -= lyi * ddy
                py[2] -= lyi * ar
            a00 -= fx * ddx
            a01 -= fy * ddx
            a02 -= fa * ddx
            a10 -= fx * ddy
            a11 -= fy * ddy
            a12 -= fa * ddy
            a20 -= fx * ar
            a21 -= fy * ar
            a22 -= fa * ar
            b0 += f0 * ddx
            b1 += f0 * ddy
            b2 += f0 * ar
        for j in range(nc):
            g0 = G0[j]
            if g0 == 0.0 and not transfer:
                continue
            nx, ny = free_dirs[j]
            ar = free_arm[j]
            if transfer:
                gx, gy = Gx[j], Gy[j]
                a00 -= gx * nx
                a01 -= gy * nx
                a10 -= gx * ny
                a11 -= gy * ny
                a20 -= gx * ar
                a21 -= gy * ar
                px[0] -= gx * nx
                px[1] -= gx * ny
                px[2] -= gx * ar
                py[0] -= gy * nx
                py[1] -= gy * ny
                py[2] -= gy * ar
            b0 += g0 * nx
            b1 += g0 * ny
            b2 += g0 * ar
        if ay_fixed is not None:
            a10, a11, a12, b1 = 0.0, 1.0, 0.0, ay_fixed
        if walls:
            A = [[a00, a01, a02], [a10, a11, a12], [a20, a21, a22]]
            b = [b0, b1, b2]
            for nx, ny, chi, rhs in walls:
                # A wall force lam (n_x, n_y) is not a ground force: the loads see A - lam n / m.
                wx, wy = (nx / m, ny / m) if transfer else (0.0, 0.0)
                A[0].append(-nx - px[0] * wx - py[0] * wy if transfer else -nx)
                A[1].append(0.0 if ay_fixed is not None else
                            (-ny - px[1] * wx - py[1] * wy if transfer else -ny))
                A[2].append(-chi - px[2] * wx - py[2] * wy if transfer else -chi)
                A.append([nx, ny, chi] + [0.0] * len(walls))
                b.append(rhs)
            z = _gauss(A, b)
            ax, ay, alpha = z[0], z[1], z[2]
            lam = z[3:]
        else:
            # Cramer's rule on the 3x3.
            c00 = a11 * a22 - a12 * a21
            c01 = a12 * a20 - a10 * a22
            c02 = a10 * a21 - a11 * a20
            det = a00 * c00 + a01 * c01 + a02 * c02
            ax = (b0 * c00 + b1 * (a02 * a21 - a01 * a22) + b2 * (a01 * a12 - a02 * a11)) / det
            ay = (b0 * c01 + b1 * (a00 * a22 - a02 * a20) + b2 * (a02 * a10 - a00 * a12)) / det
            alpha = (b0 * c02 + b1 * (a01 * a20 - a00 * a21) + b2 * (a00 * a11 - a01 * a10)) / det
            lam = ()
        sol = ContactSolution()
        sol.ax, sol.ay, sol.alpha, sol.wall_force = ax, ay, alpha, lam
        # The wall forces' share of the acceleration the loads see (see above).
        wxs = sum(lk * w[0] for lk, w in zip(lam, walls)) / m if transfer and walls else 0.0
        wys = sum(lk * w[1] for lk, w in zip(lam, walls)) / m if transfer and walls else 0.0
        if transfer:
            bx, by = ax - wxs, ay - wys
            sol.normal = [l0[j] + lx[j] * bx + ly[j] * by for j in range(len(l0))]
            sol.free_force = [G0[j] + Gx[j] * bx + Gy[j] * by for j in range(nc)]
        else:
            sol.normal = l0
            sol.free_force = G0
        f, wa = [], []
        ff = sol.free_force
        for i, (f0, fx, fy, fa) in enumerate(coeffs):
            lxi, lyi = load_coeffs[i]
            fi = f0 + fx * ax + fy * ay + fa * alpha - lxi * wxs - lyi * wys
            f.append(fi)
            c = couple[i]
            if modes[i] == ROLL:
                wa.append((dx[i] * ax + dy[i] * ay + arm[i] * alpha + hterm[i]) / c)
            else:
                g = ff[fow[i]] * cfree[i] if reacts[i] else 0.0
                wa.append((drive[i] - fi * c - g) / mass_eq[i])
        sol.traction = f
        sol.wheel_accel = wa
        return sol

    def clear_cache(self) -> None:
        """Forget the matrices built per mode (:meth:`solve_fixed`): they are built from the mass, inertia, grip
        and wheel parameters, read again at the next solve."""
        self._fixed_rows = {}

    def set_geometry(self, dx, dy, arm, free_dirs, free_arm) -> None:
        """Declare the wheels' traction directions and arms and the contacts' free directions and arms fixed in
        the robot frame (wheels that do not steer), as :meth:`solve` takes them, for :meth:`solve_fixed`."""
        self.geometry = (tuple(dx), tuple(dy), tuple(arm), tuple(free_dirs), tuple(free_arm))
        self._free_rows = tuple((nx, ny, ar) for (nx, ny), ar in zip(free_dirs, free_arm))
        self._fixed_rows = {}

    def solve_fixed(self, hterm, drive, modes, free_coef, fext_x, fext_y, torque, walls,
                    ay_fixed=None) -> ContactSolution:
        """:meth:`solve` with the geometry of :meth:`set_geometry`, with the same results.

        Without load transfer or wall contacts the system's matrix depends on the
        wheels' modes only (the free forces then enter the right-hand side alone), so
        it is formed, with its cofactors, once per mode; an instant costs the
        right-hand side and three dot products. A fixed lateral acceleration (``ay_fixed``, a tank
        without scrub: it reaches here only with load transfer or walls) takes :meth:`solve` as well.
        """
        if self.tips or walls or ay_fixed is not None:
            dx, dy, arm, free_dirs, free_arm = self.geometry
            return self.solve(0.0, 0.0, 0.0, dx, dy, arm, hterm, drive, modes, free_dirs, free_arm, free_coef,
                              fext_x, fext_y, torque, walls, ay_fixed)
        rows = self._fixed_rows.get(modes)
        if rows is None:
            rows = self._fixed_rows[modes] = self._fixed_matrix(modes)
        kx, ky, ka, det, pre, post = rows
        G0 = [-fc * n for fc, n in zip(free_coef, self.load0)]
        b0, b1, b2 = fext_x, fext_y, torque
        f0s = []
        for (roll, c, M, j, q, f_slip, ddx, ddy, ar), d, h in zip(pre, drive, hterm):
            if roll:
                f0 = (d - M * h / c) / c
                if j >= 0:
                    f0 -= q * G0[j]
            else:
                f0 = f_slip
            f0s.append(f0)
            b0 += f0 * ddx
            b1 += f0 * ddy
            b2 += f0 * ar
        for g0, (nx, ny, ar) in zip(G0, self._free_rows):
            if g0 != 0.0:
                b0 += g0 * nx
                b1 += g0 * ny
                b2 += g0 * ar
        ax = (b0 * kx[0] + b1 * kx[1] + b2 * kx[2]) / det
        ay = (b0 * ky[0] + b1 * ky[1] + b2 * ky[2]) / det
        alpha = (b0 * ka[0] + b1 * ka[1] + b2 * ka[2]) / det
        f, wa = [], []
        for (roll, c, M, fx, fy, fa, j, cf, ddx, ddy, ar), f0, d, h in zip(post, f0s, drive, hterm):
            fi = f0 + fx * ax + fy * ay + fa * alpha
            f.append(fi)
            if roll:
                wa.append((ddx * ax + ddy * ay + ar * alpha + h) / c)
            else:
                wa.append((d - fi * c - (G0[j] * cf if j >= 0 else 0.0)) / M)
        sol = ContactSolution()
        sol.ax, sol.ay, sol.alpha, sol.wall_force = ax, ay, alpha, ()
        sol.normal = self.load0
        sol.free_force = G0
        sol.traction = f
        sol.wheel_accel = wa
        return sol

    def _fixed_matrix(self, modes):
        """:meth:`solve_fixed`'s matrix in mode ``modes``, without load transfer: ``(cofactor rows of A_x, A_y
        and alpha, det, per wheel what the right-hand side needs (rolling, couple, M_i, the reacting contact or
        -1, its share through the roller, a slipping wheel's force, d_x, d_y, arm), per wheel what the forces
        and rim accelerations need (rolling, couple, M_i, the traction's A_x, A_y and alpha coefficients, the
        reacting contact or -1, couple_free, d_x, d_y, arm))``: :meth:`solve`'s sums with the free forces'
        terms (load-dependent only) left out."""
        m, J = self.mass, self.moi
        dx, dy, arm, _, _ = self.geometry
        A = [[m, 0.0, 0.0], [0.0, m, 0.0], [0.0, 0.0, J]]  # rows A_x, A_y, alpha; columns as solve's
        pre, post = [], []
        for i, mode in enumerate(modes):
            ddx, ddy, ar = dx[i], dy[i], arm[i]
            c, M, cf = self.couple[i], self.mass_eq[i], self.couple_free[i]
            j = self.free_of_wheel[i] if self._reacts[i] else -1
            if mode == ROLL:
                k = M / (c * c)
                fx, fy, fa = -k * ddx, -k * ddy, -k * ar
                q, f_slip = cf / c, None
            else:
                lim = mode * self.mu[i]
                f_slip = lim * self.wheel_load0[i]
                fx, fy, fa, q = lim * self.wheel_load_x[i], lim * self.wheel_load_y[i], 0.0, None
            pre.append((mode == ROLL, c, M, j, q, f_slip, ddx, ddy, ar))
            post.append((mode == ROLL, c, M, fx, fy, fa, j, cf, ddx, ddy, ar))
            for row, d in zip(A, (ddx, ddy, ar)):  # each entry's terms in wheel order, as solve sums them
                row[0] -= fx * d
                row[1] -= fy * d
                row[2] -= fa * d
        (a00, a01, a02), (a10, a11, a12), (a20, a21, a22) = A
        # Cramer's rule on the 3x3, as solve forms it.
        c00 = a11 * a22 - a12 * a21
        c01 = a12 * a20 - a10 * a22
        c02 = a10 * a21 - a11 * a20
        det = a00 * c00 + a01 * c01 + a02 * c02
        kx = (c00, a02 * a21 - a01 * a22, a01 * a12 - a02 * a11)
        ky = (c01, a00 * a22 - a02 * a20, a02 * a10 - a00 * a12)
        ka = (c02, a01 * a20 - a00 * a21, a00 * a11 - a01 * a10)
        return kx, ky, ka, det, pre, post

    def solve_axle(self, drive, modes, arm, fext_x, torque, ay_fixed) -> ContactSolution:
        """:meth:`solve` for two wheels on one axle through the centre of mass, with the same results.

        The wheels' traction directions are the robot's x axis (``arm``, a tuple, their
        ``-y``), their couples 1, there are no free forces, load transfer or wall contacts,
        and ``A_y`` is ``ay_fixed``: a tank drive without a wheelbase. The system is then
        2x2 in ``A_x`` and ``alpha`` (the same sums and Cramer's rule as the general 3x3
        with its zero terms left out), solved by the kernel's
        :func:`simcore.kernel.tank.axle_solution` (which the compiled tank uses).
        """
        from simcore.kernel.tank import axle_solution

        roll0, roll1 = modes[0] == ROLL, modes[1] == ROLL
        slip0 = 0.0 if roll0 else modes[0] * self.mu[0] * self.wheel_load0[0]
        slip1 = 0.0 if roll1 else modes[1] * self.mu[1] * self.wheel_load0[1]
        ax, alpha, f0, f1, a0, a1 = axle_solution(
            float(self.mass), float(self.moi), float(self.mass_eq[0]), float(self.mass_eq[1]), float(arm[0]),
            float(arm[1]), roll0, roll1, float(slip0), float(slip1), float(drive[0]), float(drive[1]),
            float(fext_x), float(torque))
        sol = ContactSolution()
        sol.ax, sol.ay, sol.alpha, sol.wall_force = ax, ay_fixed, alpha, ()
        sol.normal = self.load0
        sol.free_force = self._no_free
        sol.traction = [f0, f1]
        sol.wheel_accel = [a0, a1]
        return sol

    # -- wall impacts ---------------------------------------------------------------------------------------
    def impact(self, contacts, vx: float, vy: float, om: float, c: float, s: float, lateral_fixed: bool = False):
        """Chassis velocity (robot frame) after a perfectly plastic impact on the wall ``contacts``.

        The impulses ``P_k >= 0`` make every contact's velocity into its wall zero or
        outward, with ``P_k`` zero where it is outward (a linear complementarity problem:
        the few contacts' active sets are enumerated, smallest first). With
        ``lateral_fixed`` the chassis cannot move sideways (its sideways constraint takes
        that part of the impulse). Returns ``(vx, vy, om, kept contacts)``.
        """
        m, J = self.mass, self.moi
        my = math.inf if lateral_fixed else m
        rows = self.wall_rows(contacts, 0.0, c, s)
        corners = self.corners
        vn = [nx * (vx - om * corners[k][1]) + ny * (vy + om * corners[k][0])
              for (nx, ny, chi, _), (w, k) in zip(rows, contacts)]
        n = len(rows)
        tol = 1e-12 * (1.0 + abs(vx) + abs(vy) + abs(om))
        W = [[rows[p][0] * rows[q][0] / m + rows[p][1] * rows[q][1] / my + rows[p][2] * rows[q][2] / J
              for q in range(n)] for p in range(n)]
        best = None
        if min(vn, default=0.0) < -tol:
            for size in range(1, n + 1):
                for active in itertools.combinations(range(n), size):
                    try:
                        P = _gauss([[W[p][q] for q in active] for p in active], [-vn[p] for p in active])
                    except ZeroDivisionError:  # a contact dependent on the others (two along one line)
                        continue
                    if min(P) < -tol:
                        continue
                    post = [vn[p] + sum(W[p][q] * P[a] for a, q in enumerate(active)) for p in range(n)]
                    if min(post) >= -tol:
                        best = (active, P)
                        break
                if best is not None:
                    break
            if best is None:
                raise IntegrationError("no consistent wall impact", float("nan"))
            active, P = best
            vx += sum(P[a] * rows[q][0] for a, q in enumerate(active)) / m
            vy += sum(P[a] * rows[q][1] for a, q in enumerate(active)) / my
            om += sum(P[a] * rows[q][2] for a, q in enumerate(active)) / J
        kept = []
        for (nx, ny, chi, _), (w, k) in zip(rows, contacts):
            v = nx * (vx - om * corners[k][1]) + ny * (vy + om * corners[k][0])
            if v <= tol:
                kept.append((w, k))
        return vx, vy, om, kept


def _gauss(A, b):
    """Solve the small dense system ``A z = b`` by Gaussian elimination with partial pivoting."""
    n = len(b)
    M = [list(row) + [b[i]] for i, row in enumerate(A)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(M[r][col]))
        if M[piv][col] == 0.0:
            raise ZeroDivisionError("singular contact system")
        M[col], M[piv] = M[piv], M[col]
        pv = M[col][col]
        for r in range(col + 1, n):
            fct = M[r][col] / pv
            if fct != 0.0:
                Mr, Mc = M[r], M[col]
                for q in range(col, n + 1):
                    Mr[q] -= fct * Mc[q]
    z = [0.0] * n
    for r in range(n - 1, -1, -1):
        acc = M[r][n] - sum(M[r][q] * z[q] for q in range(r + 1, n))
        z[r] = acc / M[r][r]
    return z


#: Instants a drivetrain remembers its evaluation at: the right-hand side's and the guards' calls at one
#: state share it, also when the engine samples every guard at a step's few points guard by guard.
SAMPLE_CACHE_SIZE = 8

#: Distance, m, within which a bumper corner counts as touching a wall when contacts are settled.
TOUCH_DISTANCE = 1e-9


class ChassisDrive:
    """Mode, event and cache machinery of a drivetrain on a :class:`Chassis` (a mixin for a System).

    The drivetrain's mode is ``(wheel modes, wall contacts)``: a tuple of
    :data:`ROLL`/:data:`FORWARD`/:data:`BACKWARD` per wheel and a sorted tuple of
    ``(wall, corner)`` pairs. A subclass sets ``chassis``, ``traction_limits`` (per
    wheel, the friction coefficient or None for a wheel that never slips) and
    ``energy_index`` (index of the ``impact_loss`` state, or None), and provides:

    ``_evaluate(x, u, mode)``
        a sample with ``sol`` (:class:`ContactSolution`), ``slip`` (per wheel),
        ``pose`` ``(x, y, cos, sin)`` and ``velocity`` ``(vx, vy, omega)`` (robot frame);
    ``_snap(x, wheels)``
        the state with those wheels' rims at their ground speed;
    ``_with_velocity(x, vx, vy, omega)``
        the state with that chassis velocity (robot frame), wheels unchanged;
    ``kinetic_energy(x)``.
    """

    traction_limits: list = []
    energy_index = None
    _kin_key = _kin_val = None  # the state and the result of the last _kinematics_of

    def _kinematics_of(self, x):
        """``self._kinematics`` of the state array ``x``, remembered for the next call with the same state."""
        key = x.tobytes()
        if key != self._kin_key:
            self._kin_key, self._kin_val = key, self._kinematics(x.tolist())
        return self._kin_val

    # -- the bus (for the Battery); a drivetrain defines _speeds_and_commands(x, u) ----------------------
    def supply_current_at(self, x, u, bus_voltage: float) -> float:
        """Total supply current of every motor, A, at ``bus_voltage`` V."""
        return self.channels.supply_current(*self._speeds_and_commands(x, u), bus_voltage)

    def supply_current_curve(self, x, u):
        """Every motor's supply current as a function of the bus voltage (a SupplyCurve), or None with limits."""
        if self.channels.any_limits:
            return None
        return self.channels.supply_curve(*self._speeds_and_commands(x, u))

    def _setup_modes(self, name_prefix: str = ""):
        self._samples: dict = {}
        self._event_cache: dict = {}
        n = self.chassis.n_wheels
        self._wheel_contacts = self.chassis.contacts_of_wheel
        lim = self.traction_limits
        self._breakaway = [None if lim[i] is None else StateEvent(
            self._breakaway_guard(i), direction=+1, reset=self._reset_grip, mode=self._breakaway_mode(i),
            name="breakaway") for i in range(n)]
        self._grip = {}
        for i in range(n):
            if lim[i] is None:
                continue
            self._grip[(i, FORWARD)] = StateEvent(self._grip_guard(i, -1.0), direction=+1, reset=self._reset_grip,
                                                  mode=self._settle_event, name="grip")
            self._grip[(i, BACKWARD)] = StateEvent(self._grip_guard(i, 1.0), direction=+1,
                                                   reset=self._reset_grip, mode=self._settle_event, name="grip")
        ch = self.chassis
        self._wall_events = [StateEvent(self._wall_guard(w), direction=-1, reset=self._reset_impact,
                                        mode=self._settle_event, name="wall") for w in range(len(ch.walls))]
        self._tip = (StateEvent(self._tip_guard, direction=-1, terminal=True, mode=self._settle_event,
                                name="tip"),) if ch.tips else ()

    # -- the cached instant ------------------------------------------------------------------------
    def _sample(self, t, x, u):
        if getattr(x, "ndim", 1) != 1:
            raise TypeError("one state at a time")  # the engine then calls the guards point by point
        key = (t, x.tobytes(), u.tobytes(), self.mode)
        samples = self._samples
        val = samples.get(key)
        if val is not None:
            return val
        val = self._evaluate(x, u, self.mode)
        if len(samples) >= SAMPLE_CACHE_SIZE:  # the oldest goes: the engine samples a step's points in turn
            del samples[next(iter(samples))]
        samples[key] = val
        return val

    def _wheel_load(self, sol, i):
        return sum(sol.normal[j] for j in self._wheel_contacts[i])

    # -- guards ---------------------------------------------------------------------------------------
    def _breakaway_guard(self, i):
        mu = self.traction_limits[i] * (1.0 + BREAKAWAY_MARGIN)
        contacts = self._wheel_contacts[i]
        if len(contacts) == 1:  # the wheel's load is its one contact's (no sum to form per call)
            j = contacts[0]

            def guard(t, x, u):
                sol = self._sample(t, x, u).sol
                return abs(sol.traction[i]) - mu * sol.normal[j]
        else:
            def guard(t, x, u):
                sol = self._sample(t, x, u).sol
                return abs(sol.traction[i]) - mu * self._wheel_load(sol, i)
        return guard

    def _grip_guard(self, i, sign):
        return lambda t, x, u: sign * self._sample(t, x, u).slip[i]

    def _wall_guard(self, w):
        def guard(t, x, u):
            px, py, c, s = self._sample(t, x, u).pose
            touching = self.mode[1]
            return min(self.chassis.gap(w, k, px, py, c, s) for k in range(4) if (w, k) not in touching)
        return guard

    def _tip_guard(self, t, x, u):
        """The smallest contact load, with the wheels' traction as it is: a rolling wheel asked for more than
        its limit (only just after a controller's write, before its breakaway fires) counted as slipping."""
        smp = self._sample(t, x, u)
        sol = smp.sol
        wheels = self.mode[0]
        for i, m in enumerate(wheels):
            mu = self.traction_limits[i]
            if m == ROLL and mu is not None and \
                    abs(sol.traction[i]) > mu * (1.0 + BREAKAWAY_MARGIN) * self._wheel_load(sol, i):
                sol = self._evaluate(x, u, self._settle(x, u, self.mode)).sol
                break
        return min(sol.normal)

    def _leave_guard(self, q):
        return lambda t, x, u: self._sample(t, x, u).sol.wall_force[q]

    def events(self):
        mode = self.mode
        evs = self._event_cache.get(mode)
        if evs is None:
            wheels, contacts = mode
            evs = []
            for i, m in enumerate(wheels):
                if self.traction_limits[i] is None:
                    continue
                evs.append(self._breakaway[i] if m == ROLL else self._grip[(i, m)])
            for w, ev in enumerate(self._wall_events):
                if sum(1 for (w2, _) in contacts if w2 == w) < 2:
                    evs.append(ev)
            evs += [StateEvent(self._leave_guard(q), direction=-1, mode=self._settle_event, name="leave_wall")
                    for q in range(len(contacts))]
            # Tipping first: at a tick the engine fires one event per system, and the others' modes are settled
            # together by whichever fires, but a tip ends the run.
            evs = self._tip + tuple(evs)
            self._event_cache[mode] = evs
        return evs

    # -- modes ------------------------------------------------------------------------------------------
    def kernel_refusal(self) -> str | None:
        """Why this drive has no form in the compiled kernel (it then takes the Python path, and cannot batch), in
        words for an error message, or None when it has one."""
        if self.kernel_form() is not None:
            return None
        if self.chassis.tips:
            return "a cog_height (load transfer and tipping are not in the kernel yet)"
        if self.chassis.walls:
            if not walls_fit(self.chassis.bumper, self.chassis.field):
                return ("walls two opposite of which its bumper can touch at once (in a field longer and wider than "
                        "the bumper's diagonal it runs in the kernel; field=None leaves the walls out)")
            return ("walls (a bumper in a field; a drive built from an FTC motor type stands in the field by default: "
                    "field=None leaves it out)")
        return "what its kernel_form() docstring lists (other modules, motor friction from Road Runner's ks, a subclass)"

    def initial_mode(self, t, x, u):
        # A simulation starts: what was cached from the parameters (the chassis matrices per mode, the
        # samples) is built afresh from their present values, so a run does not depend on the runs before it.
        self.chassis.clear_cache()
        self._samples.clear()
        mode = self._settle(x, u, ((ROLL,) * self.chassis.n_wheels, ()), initial=True)
        if self.chassis.tips:
            normal = self._evaluate(x, u, mode).sol.normal
            j = min(range(len(normal)), key=normal.__getitem__)
            if normal[j] < 0.0:
                raise IntegrationError(f"{self.name} tips at once: contact {j} would carry {normal[j]:.6g} N "
                                       "(a lower cog_height, or a gentler start)", t)
        return mode

    def _settle_event(self, t, x, u):
        return self._settle(x, u, self.mode)

    def _breakaway_mode(self, i):
        """The mode after wheel ``i``'s breakaway: that wheel slips the way its force pushes (the event says its
        limit was reached, though at the located instant the force can sit a rounding below it, and a wheel
        left rolling would hold more than its limit until its guard crossed zero again), the others settled."""
        return lambda t, x, u: self._settle(x, u, self.mode, slipping=i)

    def _settle(self, x, u, mode, initial=False, slipping=None):
        """The consistent mode at state ``x``: slipping wheels by their slip, rolling ones within their limit
        (wheel ``slipping``, whose breakaway fired, slips), the wall contacts touching and pushing."""
        ch = self.chassis
        n = ch.n_wheels
        probe = self._evaluate(x, u, ((ROLL,) * n, mode[1]))
        wheels = []
        for i in range(n):
            s = probe.slip_free[i]
            wheels.append(ROLL if self.traction_limits[i] is None or abs(s) <= GRIP_SPEED
                          else (FORWARD if s > 0.0 else BACKWARD))
        contacts = set(mode[1])
        if ch.walls:
            px, py, c, s = probe.pose
            for w in range(len(ch.walls)):
                for k in range(4):
                    g = ch.gap(w, k, px, py, c, s)
                    if g < -TOUCH_DISTANCE and initial:
                        raise ConfigError(f"{self.name} pose", (px, py), "a bumper inside the field")
                    if g <= TOUCH_DISTANCE:
                        contacts.add((w, k))
        contacts = sorted(contacts)
        for _ in range(4 * (n + len(contacts)) + 4):
            trial = (tuple(wheels), tuple(contacts))
            smp = self._evaluate(x, u, trial)
            changed = False
            for q, lam in enumerate(smp.sol.wall_force):
                if lam < 0.0:
                    del contacts[q]
                    changed = True
                    break
            if changed:
                continue
            for i in range(n):
                mu = self.traction_limits[i]
                if wheels[i] == ROLL and mu is not None:
                    f = smp.sol.traction[i]
                    if i == slipping or abs(f) > mu * (1.0 + BREAKAWAY_MARGIN) * self._wheel_load(smp.sol, i):
                        wheels[i] = FORWARD if f > 0.0 else BACKWARD
                        changed = True
            if not changed:
                return trial
        raise IntegrationError(f"{self.name}: no consistent traction and wall contact mode", float("nan"))

    # -- resets ------------------------------------------------------------------------------------------
    def _reset_grip(self, t, x, u):
        """A wheel that rolled (its rim speed state follows the constraint up to the integration error), or
        whose slip reached zero, is set to its ground speed exactly before the modes change."""
        probe = self._evaluate(x, u, ((ROLL,) * self.chassis.n_wheels, self.mode[1]))
        wheels = [i for i, s in enumerate(probe.slip_free) if abs(s) <= GRIP_SPEED or self.mode[0][i] == ROLL]
        return self._book(x, self._snap(x, wheels))

    def _reset_impact(self, t, x, u):
        """A bumper corner reached a wall: the perfectly plastic impact (the wheels pass no impulse)."""
        ch = self.chassis
        wheels_mode = self.mode[0]
        rolling = [i for i, m in enumerate(wheels_mode) if m == ROLL]
        x1 = self._snap(x, rolling)  # a rolling wheel's rim at its ground speed before the impact
        probe = self._evaluate(x1, u, self.mode)
        px, py, c, s = probe.pose
        touching = sorted(set(self.mode[1]) | {(w, k) for w in range(len(ch.walls)) for k in range(4)
                                               if ch.gap(w, k, px, py, c, s) <= TOUCH_DISTANCE})
        vx, vy, om = probe.velocity
        vx, vy, om, _ = ch.impact(touching, vx, vy, om, c, s, lateral_fixed=self._lateral_fixed)
        return self._book(x, self._with_velocity(x1, vx, vy, om))

    def _book(self, x_before, x_after):
        """Book the kinetic energy a reset removes as impact loss."""
        if self.energy_index is not None:
            x_after = np.array(x_after, dtype=float)
            x_after[self.energy_index] += self.kinetic_energy(x_before) - self.kinetic_energy(x_after)
        return x_after
