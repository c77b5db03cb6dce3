"""The robot battery: an open-circuit voltage behind an internal resistance.

Every motor-driven mechanism simulated with a battery draws from one bus whose
voltage is

    V_bus = V_oc - R * sum(supply currents)

where each mechanism's supply current itself depends on ``V_bus`` (duty cycle,
saturation, current limits). When no bus voltage >= 0 satisfies the loads (motors
driven hard against their own back-EMF, as when an unlimited drivetrain reverses at
speed), the bus collapses to 0 V and the battery is shorted through the bridges: its
current is then ``V_oc / R`` (and ``brownout`` is 1). The loads' supply currents,
computed at the 0 V bus, no longer sum to it; the difference recirculates through the
bridges' diodes. The relation is solved inside every evaluation of
the right-hand side, outputs and guards (no lag): a closed-form first guess
(power balance ``V_bus**2 - V_oc V_bus + R P = 0`` when no controller saturates)
refined by the secant method to 1e-13 V, with Brent's method as a fallback.
A mechanism joins the bus when it has a ``bus_voltage`` input and a
``supply_current_at(x, u, bus_voltage)`` method (every ``GearedMechanism`` does).

Without a battery, each mechanism's ``bus_voltage`` input holds its nominal
value (an ideal source) unless a controller writes it.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from simcore.coupling import Coupling
from simcore.errors import ConfigError
from simcore.system import System
from simcore.units import to_si

__all__ = ["Battery"]


class Battery(System):
    """A battery feeding every motor-driven mechanism it is simulated with.

    Parameters
    ----------
    open_circuit_voltage : float or Quantity
        V (default 12, as WPILib's BatterySim and YAMS).
    resistance : float or Quantity
        Internal resistance plus wiring, ohm (default 0.02).
    brownout_voltage : float or Quantity
        Below this bus voltage the output ``brownout`` is 1, V (default 6.8, the
        roboRIO's brownout threshold).
    name : str

    Notes
    -----
    Outputs: ``voltage`` (bus voltage, V), ``current`` (total supply current, A),
    ``brownout`` (0/1). Its inputs ``bus_voltage`` and ``load_current`` are
    written by the bus coupling, never by controllers.
    """

    #: Feeds every system with a ``bus_voltage`` input (see :class:`simcore.protocols.BusLoad`).
    feeds_bus = True

    def __init__(self, *, open_circuit_voltage=12.0, resistance=0.02, brownout_voltage=6.8,
                 name: str = "battery"):
        self.open_circuit_voltage = to_si("open_circuit_voltage", open_circuit_voltage, "V")
        if not self.open_circuit_voltage > 0:
            raise ConfigError("open_circuit_voltage", open_circuit_voltage, "a positive voltage")
        self.resistance = to_si("resistance", resistance, "ohm")
        if not self.resistance >= 0:
            raise ConfigError("resistance", resistance, "a non-negative resistance in ohm")
        self.brownout_voltage = to_si("brownout_voltage", brownout_voltage, "V")
        if not 0 <= self.brownout_voltage < self.open_circuit_voltage:
            raise ConfigError("brownout_voltage", brownout_voltage,
                              f"a voltage in [0, open_circuit_voltage={self.open_circuit_voltage})")
        super().__init__(name, (), ("bus_voltage", "load_current"), ("voltage", "current", "brownout"),
                         {"voltage": "V", "current": "A", "bus_voltage": "V", "load_current": "A",
                          "brownout": ""})

    def initial_inputs(self):
        return np.array([self.open_circuit_voltage, 0.0])

    def derivatives(self, t, x, u):
        return np.zeros(0)

    def outputs(self, t, x, u):
        return (u[0], u[1], 1.0 if u[0] < self.brownout_voltage else 0.0)

    def couplings(self, systems):
        consumers = [k for k, s in enumerate(systems)
                     if s is not self and "bus_voltage" in s.input_names and hasattr(s, "supply_current_at")]
        me = next(k for k, s in enumerate(systems) if s is self)
        if any(isinstance(s, Battery) and s is not self for s in systems):
            raise ConfigError("systems", [s.name for s in systems], "at most one Battery per simulation")
        return [_BusCoupling(self, me, consumers, systems)]

    def batched(self, params, n, xp=np):
        """This battery for ``n`` parameter variants at once (``simcore.simulate_batch``); see
        :mod:`simcore.models.batched`."""
        from .batched import batched_system

        return batched_system(self, params, n, xp)


class _BusCoupling(Coupling):
    """Solves the bus voltage and writes it into every consumer's ``bus_voltage`` input."""

    def __init__(self, battery: Battery, index: int, consumers: list, systems):
        self.battery = battery
        self.index = index
        self.consumers = [(k, systems[k], systems[k].input_names.index("bus_voltage")) for k in consumers]
        self.targets = [f"{systems[k].name}.bus_voltage" for k in consumers] + \
                       [f"{battery.name}.bus_voltage", f"{battery.name}.load_current"]

    def _total(self, xs, us, v):
        return sum(s.supply_current_at(xs[k], us[k], v) for k, s, _ in self.consumers)

    def apply(self, t, xs, us):
        voc, r = self.battery.open_circuit_voltage, self.battery.resistance
        collapsed = False
        if r == 0.0 or not self.consumers:
            v = voc
        else:
            phi = lambda v: v - voc + r * self._total(xs, us, v)  # noqa: E731
            f0 = phi(voc)
            if f0 == 0.0:
                v = voc
            else:
                # Closed form when no controller saturates: the electrical power each draws is fixed.
                p = voc * (f0 / r)
                disc = voc * voc - 4.0 * r * p
                v1 = 0.5 * (voc + math.sqrt(disc)) if disc >= 0 else 0.5 * voc
                v = self._secant(phi, voc, f0, v1, voc)
                if v is None:
                    # No bus voltage >= 0 satisfies the loads (motors plugged against a big back-EMF):
                    # the bus collapses and the battery is shorted through the bridges.
                    v, collapsed = 0.0, True
        for k, s, i in self.consumers:
            us[k][i] = v
        ub = us[self.index]
        ub[0] = v
        ub[1] = voc / r if collapsed else self._total(xs, us, v)

    @staticmethod
    def _secant(phi, a, fa, b, voc):
        fb = phi(b)
        tol = 1e-13 * voc
        for _ in range(30):
            if abs(fb) <= tol or fb == fa:
                break
            c = b - fb * (b - a) / (fb - fa)
            a, fa = b, fb
            b, fb = c, phi(c)
        else:
            b = None
        if b is not None and math.isfinite(b) and abs(fb) <= 10 * tol and b >= 0:
            return b
        # Fallback: the physical bus voltage is the largest root. Bracket it from above: grow an upper
        # bound past a regenerating bus, then walk down a grid to the first sign change.
        hi = voc
        while phi(hi) < 0:
            hi *= 2.0
            if hi > 1e6 * voc:
                raise ConfigError("battery", voc, "a bus voltage the consumers' currents allow (none found)")
        grid = np.linspace(hi, 0.0, 257)
        upper = hi
        for lower in grid[1:]:
            if phi(lower) < 0.0:
                return brentq(phi, lower, upper, xtol=1e-14, rtol=4 * np.finfo(float).eps)
            upper = lower
        return None  # no root on a live bus: collapsed
