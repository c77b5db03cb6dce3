"""A drivetrain's motor channels evaluated together: electrical state, torques and the supply curve.

A drivetrain has several motor channels (a tank's two sides, a mecanum's four
wheels, a swerve's four drive and four steer motors), each a
:class:`~simcore.models.drive.MotorDrive` (a motor group behind its controller and
gearbox) with its own command. :class:`MotorChannels` evaluates all of them at one
instant with the semantics of :meth:`MotorDrive.electrical` and
:meth:`MotorDrive.output_torque` (brake and coast at neutral, saturation at the
bus, current limits, gearbox efficiency blended through zero speed), plus the
motor's own friction: a viscous torque ``b w_rotor`` on each rotor (at the shaft, before
the gearbox and its efficiency), whose default
(:func:`free_current_friction`) is the friction the datasheet's free current
implies, so an unloaded motor at its nominal voltage turns at the datasheet free
speed drawing the datasheet free current.

It is one flat loop over plain floats: on the two to eight channels of a
drivetrain this is faster than numpy (measured: about 2.6x on eight channels; numpy
pays about a microsecond per call on arrays this small). A channel without current
limits is computed in line; one with limits calls :meth:`MotorDrive.electrical`.
The compiled drivetrains' form of this loop is :func:`simcore.kernel.channels.channel` (the same
operations, so a drive gives the same bits on both paths); this one stays for the drivetrains that run
on the Python path (mecanum, swerve, a tank with scrub, load transfer or walls), where one call of the
kernel per evaluation costs about three times the loop (measured: 11 us against 3.4 us on eight
channels). It goes when they move into the kernel.

:meth:`MotorChannels.supply_curve` gives the channels' total supply current as a
function of the bus voltage, from the same single evaluation
(:class:`~simcore.models.battery.SupplyCurve`), so a
:class:`~simcore.models.battery.Battery` solves the bus exactly with one call; it
returns None when a channel has current limits (the battery then solves numerically).
"""
from __future__ import annotations

import math
from operator import mul

from simcore import checks

from .battery import SupplyCurve
from .drive import EFFICIENCY_SPEED_EPSILON, MotorDrive

__all__ = ["MotorChannels", "ChannelState", "free_current_friction", "motor_friction"]

_EPS2 = EFFICIENCY_SPEED_EPSILON ** 2


def free_current_friction(drive: MotorDrive) -> float:
    """The viscous torque coefficient at one motor group's rotor the datasheet free current implies, N·m·s/rad.

    The free current ``I_free`` at free speed ``w_free`` is the current the motor's own
    friction draws: a torque ``Kt I_free`` at ``w_free``, taken proportional to speed:
    ``b = Kt I_free / w_free`` (times the number of motors in the group). With it a motor
    at its nominal voltage settles at exactly ``w_free`` drawing exactly ``I_free``.
    """
    m = drive.motor
    return drive.n_motors * m.Kt * m.free_current / m.free_speed


def motor_friction(parameter: str, value, drive: MotorDrive, k: float, unit: str):
    """A mechanism's viscous friction from its keyword: ``(b at the mechanism, b at each rotor)``.

    ``value`` None: the motors' own friction (:func:`free_current_friction`), reflected
    through ``k`` (rotor speed per unit of mechanism speed): ``b = b_rotor k^2``;
    otherwise ``value`` (checked non-negative in ``unit``, named ``parameter``) and
    ``b_rotor = b / k^2``.
    """
    if value is None:
        b_rotor = free_current_friction(drive)
        return b_rotor * k * k, b_rotor
    b = checks.nonnegative(parameter, value, unit, what="coefficient")
    return b, b / k / k  # k * k could underflow to 0 for an extreme gearing


class ChannelState:
    """The channels' electrical and mechanical state at one instant (tuples, channel order).

    Attributes
    ----------
    applied_voltage, stator_current, supply_current : tuple of float
        V, A, A (group totals).
    saturated, current_limited : tuple of float
        0/1 flags.
    motor_torque : tuple of float
        ``Kt I`` at the rotor, N·m.
    output_torque : tuple of float
        At the gearbox output, N·m: the net shaft torque ``Kt I - b w_rotor`` through the
        gearbox (efficiency applied to it).
    friction_torque : tuple of float
        The rotor's viscous friction torque ``b w_rotor``, N·m (opposes the rotor).
    """

    __slots__ = ("applied_voltage", "stator_current", "supply_current", "saturated", "current_limited",
                 "motor_torque", "output_torque", "friction_torque")



class MotorChannels:
    """Motor channels, one MotorDrive each (the same object may serve several channels).

    Parameters
    ----------
    drives : sequence of MotorDrive
        One per channel.
    viscous : sequence of float
        Each channel's rotor viscous friction coefficient, N·m·s/rad.
    """

    def __init__(self, drives, viscous):
        self.drives = list(drives)
        self.n = len(self.drives)
        self.viscous = tuple(float(b) for b in viscous)  # fixed: the channels' constants are built from it
        self._inv_kv = [1.0 / d.Kv for d in self.drives]
        self._duty = [d.command == "duty" for d in self.drives]
        self._limited = [d.stator_current_limit != math.inf or d.supply_current_limit != math.inf
                         for d in self.drives]
        self.any_limits = any(self._limited)
        # Each channel's constants in one tuple, unpacked by the evaluation loop (fewer lookups per call).
        self._constants = [(d.R, 1.0 / d.Kv, d.Kt, d.gearing, d.efficiency, d.command == "duty", lim, b, d)
                           for d, lim, b in zip(self.drives, self._limited, self.viscous)]
        # The conductances of the supply curve (1 / R computed once, the same float as per call).
        self._conductance = [1.0 / d.R for d in self.drives]
        self._no_coulomb = [None] * self.n
        #: Optional Coulomb friction per rotor, N·m, smoothed as ``T_c w / sqrt(w^2 + eps^2)`` with
        #: ``eps^2`` = :attr:`coulomb_epsilon2` (set by a subclass; None: viscous friction only).
        self.coulomb = None
        self.coulomb_epsilon2 = 0.0

    def evaluate(self, rotor_speed, command, brake, bus_voltage: float) -> ChannelState:
        """Every channel at rotor speeds ``rotor_speed`` (rad/s), commands, brake flags and one bus voltage."""
        rows = []
        vb = bus_voltage if bus_voltage > 0.0 else 0.0
        eps2 = _EPS2
        ce2 = self.coulomb_epsilon2
        sqrt = math.sqrt
        for (R, inv_kv, kt, gear, eta, duty, limited, b, drive), w, cmd, brk, tc in zip(
                self._constants, rotor_speed, command, brake, self.coulomb or self._no_coulomb):
            sat = lim = 0.0
            if limited or (vb == 0.0 and cmd != 0.0):
                v, i, isup, sat, lim = drive.electrical(w, cmd, brk, bus_voltage)[:5]
            else:
                emf = w * inv_kv
                if cmd == 0.0:
                    if brk >= 0.5:
                        v, i, isup = 0.0, -emf / R, 0.0
                    elif emf > vb:
                        v = vb
                        i = isup = (vb - emf) / R
                    elif emf < -vb:
                        v = -vb
                        i = (-vb - emf) / R
                        isup = -i
                    else:
                        v, i, isup = emf, 0.0, 0.0
                else:
                    v = cmd * vb if duty else cmd
                    if v > vb:
                        v, sat = vb, 1.0
                    elif v < -vb:
                        v, sat = -vb, 1.0
                    i = (v - emf) / R
                    isup = v / vb * i
            tm = kt * i
            tf = b * w
            if tc is not None:
                tf += tc * w / sqrt(w * w + ce2)
            # The rotor's own friction acts on the motor shaft, before the gearbox: the gearbox
            # carries (and loses its 1 - eta of) the net shaft torque, so a free-running motor
            # draws its free current whatever the efficiency.
            tn = tm - tf
            if eta == 1.0 or tn == 0.0:
                to = gear * tn
            else:
                sw = w / sqrt(w * w + eps2)
                to = gear * tn * eta ** (sw if tn > 0.0 else -sw)
            rows.append((v, i, isup, sat, lim, tm, to, tf))
        st = ChannelState()
        (st.applied_voltage, st.stator_current, st.supply_current, st.saturated, st.current_limited,
         st.motor_torque, st.output_torque, st.friction_torque) = zip(*rows)
        return st

    def free_rotor_speed(self, voltage: float, channel: int = 0) -> float:
        """Steady rotor speed of ``channel`` with ``voltage`` across its motors and no load but its own
        viscous friction, rad/s: the back-EMF plus the friction's share of the current balance ``V``."""
        d = self.drives[channel]
        return voltage / (1.0 / d.Kv + self.viscous[channel] * d.R / d.Kt)

    def supply_curve(self, rotor_speed, command, brake):
        """The channels' total supply current as a function of the bus voltage, or None with current limits."""
        if self.any_limits:
            return None
        curve = SupplyCurve()
        curve.add_motors(self._conductance, list(map(mul, rotor_speed, self._inv_kv)), self._duty, command, brake)
        return curve

    def supply_current(self, rotor_speed, command, brake, bus_voltage: float) -> float:
        """The channels' total supply current at ``bus_voltage``, A."""
        if not self.any_limits and bus_voltage > 0.0:
            return self.supply_curve(rotor_speed, command, brake).at(bus_voltage)
        return sum(self.evaluate(rotor_speed, command, brake, bus_voltage).supply_current)
