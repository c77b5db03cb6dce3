"""A tank drive that obeys WPILib SysId's feedforward law on each side, coasting and braking included.

Each side ``i`` follows ``V_i = kS sgn(v_i) + kV v_i + kA a_i`` (with the angular
gains coupling the sides as WPILib's ``identifyDrivetrainSystem``): the state
equation of :class:`~simcore.models.CharacterizedTankDrive`, ``a = A v + B (V - f)``,
with the friction voltage ``f_i = kS sgn(v_i)`` of a side that moves, whatever the
sign of its voltage. So a side left at 0 V decelerates at ``(kS + kV v)/kA`` and
stops in a finite time, as SysId's model says. (CharacterizedTankDrive applies kS as
a deadband on the command, pyfrc's ``vintercept``: no friction while coasting.)

A side at rest is held by static friction (mode ``stuck``: ``f_i`` is whatever
keeps it still) until holding it would take more than kS; it then slides that way.
The mode is ``"<left>_<right>"``, each ``forward``, ``reverse`` or ``stuck``.
"""
from __future__ import annotations

import numpy as np

from simcore.checks import choice
from simcore.events import StateEvent
from simcore.system import System

from .tank import CharacterizedTankDrive

__all__ = ["SysIdTankDrive"]

_SIGN = {"forward": 1.0, "reverse": -1.0}


class SysIdTankDrive(CharacterizedTankDrive):
    """A tank drive from SysId's gains whose kS is Coulomb friction (see the module docstring).

    Parameters as :class:`~simcore.models.CharacterizedTankDrive`, plus
    ``command`` : ``"voltage"`` (inputs ``left_voltage``, ``right_voltage``, V) or
    ``"duty"`` (inputs ``left_duty``, ``right_duty`` in [-1, 1], applied against
    ``bus_voltage`` at the same evaluation). Outputs ``left_applied_voltage`` and
    ``right_applied_voltage`` are the motors' voltages (the command clipped to the bus).
    """

    def __init__(self, *, command: str = "voltage", **options):
        super().__init__(**options)
        self.command = choice("command", command, ("voltage", "duty"))
        if self.command == "duty":
            units = {k: v for k, v in self.units.items() if k not in ("left_voltage", "right_voltage")}
            System.__init__(self, self.name, self.state_names, ["left_duty", "right_duty", "bus_voltage"],
                            self.output_names, units)
            self.input_ranges = {**self.input_ranges, "left_duty": (-1.0, 1.0), "right_duty": (-1.0, 1.0)}
        self._Bm = self.B
        self._events_by_mode = {f"{l}_{r}": self._mode_events(l, r)
                                for l in ("forward", "reverse", "stuck") for r in ("forward", "reverse", "stuck")}

    # -- the law -------------------------------------------------------------------------------
    def _volts(self, u):
        bus = max(u[2], 0.0)
        scale = bus if self.command == "duty" else 1.0
        return [min(max(c * scale, -bus), bus) for c in (u[0], u[1])]

    def _friction(self, x, volts, sides):
        """Friction voltages ``[f_L, f_R]`` in modes ``sides``: kS sgn(v) when moving, else what holds still."""
        v = np.array([x[3], x[4]])
        V = np.array(volts)
        free = self.A @ v + self._Bm @ V  # acceleration without friction
        f = np.array([self.ks * _SIGN.get(s, 0.0) for s in sides])
        stuck = [i for i, s in enumerate(sides) if s == "stuck"]
        if len(stuck) == 2:
            return np.linalg.solve(self._Bm, free)
        if stuck:
            i, j = stuck[0], 1 - stuck[0]
            f[i] = (free[i] - self._Bm[i, j] * f[j]) / self._Bm[i, i]
        return f

    def _accel(self, x, u):
        volts = self._volts(u)
        sides = self._sides(self.mode)
        f = self._friction(x, volts, sides)
        a = self.A @ np.array([x[3], x[4]]) + self._Bm @ (np.array(volts) - f)
        for i, s in enumerate(sides):
            if s == "stuck":
                a[i] = 0.0  # exactly: the friction solved for is what holds it
        return a[0], a[1], volts[0], volts[1]

    @staticmethod
    def _sides(mode):
        return ("stuck", "stuck") if mode is None else tuple(mode.split("_"))

    # -- modes and events ----------------------------------------------------------------------
    def _settle(self, x, u, sides):
        """``sides`` with each side at rest re-judged: stuck while its holding friction is within kS."""
        sides = list(sides)
        for _ in range(2):  # a side that breaks away changes the other's holding friction once
            for i in range(2):
                if x[3 + i] != 0.0 or sides[i] not in ("stuck", "rest"):
                    continue
                trial = sides.copy()
                trial[i] = "stuck"
                trial = ["stuck" if s == "rest" else s for s in trial]
                f = self._friction(x, self._volts(u), trial)[i]
                sides[i] = "forward" if f > self.ks else "reverse" if f < -self.ks else "stuck"
        return "_".join("stuck" if s == "rest" else s for s in sides)

    def initial_mode(self, t, x, u):
        sides = ["forward" if x[3 + i] > 0 else "reverse" if x[3 + i] < 0 else "rest" for i in range(2)]
        return self._settle(x, u, sides)

    def _mode_events(self, left, right):
        sides = (left, right)
        events = []
        for i, s in enumerate(sides):
            side = ("left", "right")[i]
            if s == "stuck":
                for sign, to in ((1.0, "forward"), (-1.0, "reverse")):
                    new = list(sides)
                    new[i] = to
                    events.append(StateEvent(
                        lambda t, x, u, i=i, sign=sign: sign * self._friction(x, self._volts(u), sides)[i] - self.ks,
                        direction=+1, mode="_".join(new), name=f"{side}_breakaway_{to}"))
            else:
                def halt(t, x, u, i=i):
                    x = x.copy()
                    x[3 + i] = 0.0
                    return x

                def rest(t, x, u, i=i):
                    new = list(self._sides(self.mode))
                    new[i] = "rest"
                    return self._settle(x, u, new)

                events.append(StateEvent(lambda t, x, u, i=i: x[3 + i], direction=-1 if s == "forward" else +1,
                                         reset=halt, mode=rest, name=f"{side}_velocity_zero"))
        return tuple(events)

    def events(self):
        return self._events_by_mode.get(self.mode, ())
