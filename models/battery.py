"""The robot battery: an open-circuit voltage behind an internal resistance, and the roboRIO's brownout.

Every motor-driven mechanism simulated with a battery draws from one bus whose
voltage is

    V_bus = V_oc - R * sum(supply currents)

where each mechanism's supply current itself depends on ``V_bus`` (duty cycle,
saturation, current limits). The relation is solved inside every evaluation of
the right-hand side, outputs and guards (no lag).

**The bus solve.** At one instant, a motor controller without current limits draws
a supply current that is, as a function of the bus voltage ``V``, piecewise of the
form ``a V + b + c / V`` (``c / V``: a voltage request below the bus, a fixed
electrical power; ``a V + b``: a duty command, a request the bus cannot meet, or the
body diodes conducting in coast), with at most one breakpoint per controller
(where the request meets the bus, or the back-EMF meets it). A load that can say so
returns its whole curve from one evaluation (:class:`SupplyCurve`, from its
``supply_current_curve(x, u)``), and the bus voltage is the largest root of
``V - V_oc + R I(V) = 0``, found exactly, piece by piece from the top, by the
quadratic formula: one evaluation of each load per solve. When a load cannot give
its curve (current limits configured, or no ``supply_current_curve`` method), its
``supply_current_at(x, u, V)`` is called instead, and the root is found by the
secant method to 1e-13 V from the power-balance guess, with Brent's method on a
bracket as the fallback.

When no bus voltage >= 0 satisfies the loads (motors driven hard against their own
back-EMF, as when an unlimited drivetrain reverses at speed), the bus collapses to
0 V and the battery is shorted through the bridges: its current is then
``V_oc / R``. The loads' supply currents, computed at the 0 V bus, no longer sum to
it; the difference recirculates through the bridges' diodes.

A mechanism joins the bus when it has a ``bus_voltage`` input and a
``supply_current_at(x, u, bus_voltage)`` method (every ``GearedMechanism`` and
drivetrain does). Without a battery, each mechanism's ``bus_voltage`` input holds
its nominal value (an ideal source) unless a controller writes it.

**Brownout** (the roboRIO's protection, as WPILib's documentation of the roboRIO
and the NI roboRIO user manual describe it). Stage 1, below 6.8 V, only lowers the
roboRIO's 6 V rail. Stage 2 disables the outputs: PWM outputs stop and CAN motor
controllers are sent a disable, so every motor goes to its neutral mode (brake or
coast); the roboRIO 1 enters it below 6.3 V (fixed), the roboRIO 2 below a level
the robot code may set (``RobotController.setBrownoutVoltage``), 6.75 V by default.
The roboRIO stays in stage 2 until its input rises above 7.5 V (a hysteresis).
``brownout_behaviour`` selects what the model does:

* ``"flag"`` (default): the output ``brownout`` is 1 while the bus is below
  ``brownout_voltage``; the motors keep their commands.
* ``"disable"``: as the roboRIO does. When the bus falls below ``brownout_voltage``
  (an event, ``"brownout"``) every motor command input of every load is held at
  neutral (the inputs named by a load's ``motor_command_inputs``, or a
  ``GearedMechanism``'s command input; the bus coupling writes ``-0.0`` into them,
  which a motor drive reads as its neutral command). With the motors at neutral
  the bus is back above ``recovery_voltage`` at once (an ideal battery has no
  recovery time), so the outputs come back at the next re-enable, ``recovery_time``
  after the brownout (:data:`RECOVERY_TIME`, an approximation), provided the bus is
  then above ``recovery_voltage`` and would stay above ``brownout_voltage`` with
  the commands restored (event ``"brownout_recovery"``). If the restored commands
  would pull it below again, the outputs stay off for another ``recovery_time``: on
  a real robot they come back for the moment it takes the roboRIO to see the sag
  again, which with a battery of no recovery time is no moment at all. Commands a
  controller writes during the brownout are kept and take effect when the outputs
  come back (a controller writing exactly ``-0.0`` is read as writing nothing new).
  The output ``brownout`` is 1 while the outputs are disabled.
"""
from __future__ import annotations

import math

import numpy as np

from simcore import checks
from simcore.coupling import Coupling
from simcore.errors import ConfigError
from simcore.events import StateEvent
from simcore.system import System

__all__ = ["Battery", "SupplyCurve", "BROWNOUT_BEHAVIOURS", "ROBORIO_1_BROWNOUT_VOLTAGE",
           "ROBORIO_2_BROWNOUT_VOLTAGE", "ROBORIO_RECOVERY_VOLTAGE", "RECOVERY_TIME"]

BROWNOUT_BEHAVIOURS = ("flag", "disable")

#: The roboRIO 1's stage-2 brownout (outputs disabled) threshold, V (fixed in the device).
ROBORIO_1_BROWNOUT_VOLTAGE = 6.3
#: The roboRIO 2's default stage-2 brownout threshold, V (settable by robot code).
ROBORIO_2_BROWNOUT_VOLTAGE = 6.75
#: The roboRIO leaves stage 2 when its input rises above this, V (both versions).
ROBORIO_RECOVERY_VOLTAGE = 7.5
#: APPROXIMATION. Delay after a brownout before the motor outputs can come back, s: the
#: 20 ms period of the robot's control cycle (driver-station packets, the default robot
#: loop). The roboRIO's documentation gives the voltage levels, not this timing.
RECOVERY_TIME = 0.02


class SupplyCurve:
    """A load's total supply current as a function of the bus voltage, at one instant.

    ``I(V) = a V + b + c / V`` for ``V`` above every breakpoint; below a breakpoint
    ``v_k`` its increments ``(da_k, db_k, dc_k)`` are added. Built by a load from one
    evaluation of its state and inputs (see the module docstring).

    Attributes
    ----------
    a : float
        A/V.
    b : float
        A.
    c : float
        A*V.
    breaks : list of (v_k, da_k, db_k, dc_k)
        Breakpoints, V, with the increments that apply below them.
    """

    __slots__ = ("a", "b", "c", "breaks")

    def __init__(self, a: float = 0.0, b: float = 0.0, c: float = 0.0, breaks=None):
        self.a, self.b, self.c = a, b, c
        self.breaks = [] if breaks is None else breaks

    def add_motor(self, resistance: float, emf: float, duty_command: bool, command: float, brake: float) -> None:
        """Add one motor controller without current limits (the branches of MotorDrive.electrical).

        Parameters
        ----------
        resistance : float
            Winding resistance of the motor group, ohm.
        emf : float
            Back-EMF, V.
        duty_command : bool
            The command is a duty (fraction of the bus), else a voltage.
        command : float
            The command (V or duty); exactly 0 is neutral.
        brake : float
            >= 0.5 brake, else coast (at neutral only).
        """
        self.add_motors((1.0 / resistance,), (emf,), (duty_command,), (command,), (brake,))

    def add_motors(self, conductances, emfs, duty_commands, commands, brakes) -> None:
        """Add several motor controllers without current limits: :meth:`add_motor` for each, in order.

        Parameters
        ----------
        conductances : sequence of float
            ``1 / R`` of each motor group's windings, S.
        emfs, duty_commands, commands, brakes : sequence
            Per motor, as :meth:`add_motor`'s ``emf``, ``duty_command``, ``command``, ``brake``.
        """
        from simcore.kernel.battery import motor_supply_piece

        a, b, c = self.a, self.b, self.c
        breaks = self.breaks
        for g, emf, duty_command, command, brake in zip(conductances, emfs, duty_commands, commands, brakes):
            da, db, dc, v_k, bda, bdb, bdc = motor_supply_piece(g, emf, bool(duty_command), command, brake)
            a, b, c = a + da, b + db, c + dc
            if v_k >= 0.0:
                breaks.append((v_k, bda, bdb, bdc))
        self.a, self.b, self.c = a, b, c

    def extend(self, other: "SupplyCurve") -> None:
        """Add another load's curve to this one."""
        self.a += other.a
        self.b += other.b
        self.c += other.c
        self.breaks.extend(other.breaks)

    def at(self, voltage: float) -> float:
        """The total supply current at bus voltage ``voltage`` (> 0, or 0 for the dead-bus limit), A."""
        from simcore.kernel.battery import curve_at

        return curve_at(self.a, self.b, self.c, _break_rows(self.breaks), float(voltage))


def _break_rows(breaks, descending: bool = False) -> np.ndarray:
    """A curve's breakpoints as the kernel's (n, 4) rows, sorted from the top (as Python sorts the tuples)
    with ``descending``."""
    if descending and len(breaks) > 1:
        breaks = sorted(breaks, reverse=True)
    return np.array(breaks, dtype=float).reshape(len(breaks), 4)


def bus_root(curve: SupplyCurve, open_circuit_voltage: float, resistance: float):
    """The largest bus voltage ``V >= 0`` with ``V = V_oc - R I(V)``, or None when there is none.

    Searches the curve's pieces from the top down; on each, ``V (V - V_oc + R I(V))``
    is the quadratic ``(1 + R a) V^2 - (V_oc - R b) V + R c`` (``1 + R a > 0``: ``a``
    never decreases a load's current with the bus). ``I`` is continuous at the
    breakpoints, so a root that round-off places a hair outside its piece is accepted.
    """
    from simcore.kernel.battery import bus_root as exact_root

    v = exact_root(curve.a, curve.b, curve.c, _break_rows(curve.breaks, descending=True),
                   float(open_circuit_voltage), float(resistance))
    return None if math.isnan(v) else v


def brentq(f, a: float, b: float, xtol: float, rtol: float, maxiter: int = 100) -> float:
    """The root of ``f`` on the bracket ``[a, b]`` by Brent's method (:mod:`simcore.kernel.brent`, the
    algorithm of scipy's ``brentq``), ``f`` called from here; the iterate after ``maxiter`` steps is
    returned as the root."""
    from simcore.kernel.brent import B_X, BRENT_EVALUATE, N_BRENT, brent_next, brent_start

    s = np.empty(N_BRENT)
    status = brent_start(s, a, b, xtol, rtol, maxiter)
    while status == BRENT_EVALUATE:
        status = brent_next(s, f(s[B_X]))
    return float(s[B_X])


class Battery(System):
    """A battery feeding every motor-driven mechanism it is simulated with.

    Parameters
    ----------
    open_circuit_voltage : float or Quantity
        V (default 12, as WPILib's BatterySim and YAMS).
    resistance : float or Quantity
        Internal resistance plus wiring, ohm (default 0.02).
    brownout_voltage : float or Quantity
        Brownout threshold, V (default 6.8: the roboRIO's stage 1; its output-disable
        stage 2 is at :data:`ROBORIO_2_BROWNOUT_VOLTAGE` = 6.75 V on a roboRIO 2 by
        default and :data:`ROBORIO_1_BROWNOUT_VOLTAGE` = 6.3 V on a roboRIO 1).
    name : str
    brownout_behaviour : {"flag", "disable"}
        ``"flag"`` (default): only the ``brownout`` output; ``"disable"``: the motor
        outputs go to neutral as the roboRIO does (see the module docstring).
    recovery_voltage : float or Quantity
        With ``"disable"``: the bus voltage above which the roboRIO leaves brownout,
        V, in ``[brownout_voltage, open_circuit_voltage)`` (default
        :data:`ROBORIO_RECOVERY_VOLTAGE`, 7.5). With ``"flag"`` a value other than the
        default is refused (it would have no effect).
    recovery_time : float or Quantity
        With ``"disable"``: the delay before outputs can come back, s (default
        :data:`RECOVERY_TIME`, an approximation). With ``"flag"`` a value other than
        the default is refused.

    Notes
    -----
    Outputs: ``voltage`` (bus voltage, V), ``current`` (total supply current, A),
    ``brownout`` (0/1). Its inputs ``bus_voltage`` and ``load_current`` are
    written by the bus coupling, never by controllers. With ``"disable"`` its mode is
    ``"normal"`` or ``("browned_out", t)`` (the instant the outputs went off).
    """

    #: Feeds every system with a ``bus_voltage`` input (see :class:`simcore.protocols.BusLoad`).
    feeds_bus = True

    def __init__(self, *, open_circuit_voltage=12.0, resistance=0.02, brownout_voltage=6.8,
                 name: str = "battery", brownout_behaviour: str = "flag",
                 recovery_voltage=ROBORIO_RECOVERY_VOLTAGE, recovery_time=RECOVERY_TIME):
        self.open_circuit_voltage = checks.positive("open_circuit_voltage", open_circuit_voltage, "V",
                                                    what="voltage")
        self.resistance = checks.nonnegative("resistance", resistance, "ohm", what="resistance")
        self.brownout_voltage = checks.finite("brownout_voltage", brownout_voltage, "V")
        if not 0 <= self.brownout_voltage < self.open_circuit_voltage:
            raise ConfigError("brownout_voltage", brownout_voltage,
                              f"a voltage in [0, open_circuit_voltage={self.open_circuit_voltage})")
        self.brownout_behaviour = checks.choice("brownout_behaviour", brownout_behaviour, BROWNOUT_BEHAVIOURS)
        self.recovery_voltage = checks.finite("recovery_voltage", recovery_voltage, "V")
        self.recovery_time = checks.positive("recovery_time", recovery_time, "s", what="time")
        if self.brownout_behaviour == "flag":
            # A flagging battery never disables the outputs: a recovery setting would be silently ignored.
            for parameter, given, value, default in (
                    ("recovery_voltage", recovery_voltage, self.recovery_voltage, ROBORIO_RECOVERY_VOLTAGE),
                    ("recovery_time", recovery_time, self.recovery_time, RECOVERY_TIME)):
                if value != default:
                    raise ConfigError(parameter, given, 'brownout_behaviour="disable" with it (with "flag" the '
                                                        'outputs are never disabled, so it has no effect)')
        elif not self.brownout_voltage <= self.recovery_voltage < self.open_circuit_voltage:
            # At or above the open-circuit voltage the bus never recovers: the robot would stay disabled.
            raise ConfigError("recovery_voltage", recovery_voltage,
                              f"a voltage in [brownout_voltage={self.brownout_voltage}, "
                              f"open_circuit_voltage={self.open_circuit_voltage})")
        self._coupling = None
        super().__init__(name, (), ("bus_voltage", "load_current"), ("voltage", "current", "brownout"),
                         {"voltage": "V", "current": "A", "bus_voltage": "V", "load_current": "A",
                          "brownout": ""})
        self._disable = self.brownout_behaviour == "disable"
        if self._disable:
            from simcore.kernel import battery as kb
            from simcore.kernel.layout import GUARD_BROWNOUT, GUARD_RECOVERY

            # The guards are the kernel's (simcore.kernel.battery); the recovery's reads when the outputs went
            # off from the mode it is armed in.
            fall = StateEvent(lambda t, x, u: kb.brownout_guard(u[0], self.brownout_voltage), direction=-1,
                              mode=lambda t, x, u: ("browned_out", t), name="brownout")
            back = StateEvent(lambda t, x, u: kb.recovery_guard(t, self.mode[1], self.recovery_time, u[0],
                                                                self.recovery_voltage),
                              direction=+1, mode=self._after_recovery, name="brownout_recovery")
            fall.kernel_guard, back.kernel_guard = GUARD_BROWNOUT, GUARD_RECOVERY
            self._fall, self._back = (fall,), (back,)
            #: The events by kernel id (simcore.kernel.battery's EV_*).
            self.kernel_events = {kb.EV_BROWNOUT: fall, kb.EV_RECOVERY: back}

    def initial_inputs(self):
        return np.array([self.open_circuit_voltage, 0.0])

    def derivatives(self, t, x, u):
        return np.zeros(0)

    def outputs(self, t, x, u):
        if self._disable:
            return (u[0], u[1], 1.0 if _browned_out(self.mode) else 0.0)
        return (u[0], u[1], 1.0 if u[0] < self.brownout_voltage else 0.0)

    # -- brownout modes (brownout_behaviour="disable") ----------------------------------------------
    def initial_mode(self, t, x, u):
        if not self._disable:
            return None
        return ("browned_out", t) if u[0] < self.brownout_voltage else "normal"

    def events(self):
        if not self._disable:
            return ()
        return self._back if _browned_out(self.mode) else self._fall

    def _after_recovery(self, t, x, u):
        """Outputs back on, unless the restored commands would pull the bus below the threshold again."""
        from simcore.kernel.battery import stays_browned_out

        restored = self._coupling.bus_voltage_enabled(t) if self._coupling is not None else u[0]
        return ("browned_out", t) if stays_browned_out(restored, self.brownout_voltage) else "normal"

    def held_commands(self) -> dict:
        """With ``"disable"``: the motor commands held back while the outputs are off (its coupling's
        :meth:`_BusCoupling.held_commands`), which a compiled run takes over and gives back."""
        return self._coupling.held_commands() if self._coupling is not None else {}

    def hold_commands(self, held: dict) -> None:
        """Hold back ``held`` (as :meth:`held_commands` gives them) in place of the commands held now."""
        self._coupling.hold_commands(held)

    def couplings(self, systems):
        consumers = [k for k, s in enumerate(systems)
                     if s is not self and "bus_voltage" in s.input_names and hasattr(s, "supply_current_at")]
        me = next(k for k, s in enumerate(systems) if s is self)
        if any(isinstance(s, Battery) and s is not self for s in systems):
            raise ConfigError("systems", [s.name for s in systems], "at most one Battery per simulation")
        self._coupling = _BusCoupling(self, me, consumers, systems)
        return [self._coupling]

    #: The parameters a batch may vary (``params={"battery.resistance": [...]}``); with
    #: ``brownout_behaviour="disable"`` also its thresholds.
    BATCH_PARAMETERS = ("resistance", "open_circuit_voltage", "brownout_voltage", "recovery_voltage")

    def kernel_form(self):
        """``(kind, parameters, mode names)`` of this battery in the compiled kernel
        (:mod:`simcore.kernel.battery`, its bus solved by :func:`simcore.kernel.parts.couple`, its brownout
        events and held-back commands in :mod:`simcore.kernel.parts`). With ``"disable"`` the mode names are
        ``("normal", "browned_out")`` (the kernel keeps when the outputs went off in the run's inputs)."""
        from simcore.kernel.parts import KIND_BATTERY

        return KIND_BATTERY, self.kernel_parameters()[0], ("normal", "browned_out") if self._disable else (None,)

    def kernel_parameters(self, overrides: dict | None = None, n: int = 1) -> np.ndarray:
        """The kernel's parameter vector of this battery for ``n`` variants, (n, N_PARAMETERS): open-circuit
        voltage V, resistance ohm, brownout threshold V, whether the brownout disables the outputs (1/0), the
        recovery voltage V and time s (:mod:`simcore.kernel.battery`'s ``P_*``), with the values a batch varies
        (:attr:`BATCH_PARAMETERS`, ``n`` values each in SI units or as pint Quantities) in place of this
        battery's, checked as the constructor checks them (naming ``params['<name>.<parameter>'][j]`` and the
        variant)."""
        from simcore.batch_params import variant_values
        from simcore.kernel import battery as kb

        n = checks.integer("n", n, minimum=1)
        values = {"open_circuit_voltage": np.full(n, self.open_circuit_voltage),
                  "resistance": np.full(n, self.resistance),
                  "brownout_voltage": np.full(n, self.brownout_voltage),
                  "recovery_voltage": np.full(n, self.recovery_voltage)}
        given = set()
        for key, value in (overrides or {}).items():
            label = f"params[{self.name + '.' + key!r}]"
            if key not in self.BATCH_PARAMETERS or (key == "recovery_voltage" and not self._disable):
                # (with "flag" the outputs are never disabled: a recovery voltage would have no effect)
                raise ConfigError(label, key, f"a batch parameter of Battery {self.name!r} with brownout_behaviour="
                                              f"{self.brownout_behaviour!r}: "
                                              f"{', '.join(self.BATCH_PARAMETERS[:3 + self._disable])} (and "
                                              f"recovery_voltage with brownout_behaviour='disable')")
            unit_check = {"open_circuit_voltage": dict(positive=True), "resistance": dict(nonnegative=True),
                          "brownout_voltage": dict(nonnegative=True), "recovery_voltage": {}}[key]
            values[key] = np.broadcast_to(variant_values(label, value, "ohm" if key == "resistance" else "V",
                                                         **unit_check), (n,))
            given.add(key)
        voc, brownout, recovery = values["open_circuit_voltage"], values["brownout_voltage"], values["recovery_voltage"]

        def refuse(key, bad, what):  # the constructor's ranges, named on a varied parameter
            j = int(np.flatnonzero(bad)[0])
            raise ConfigError(f"params[{self.name + '.' + key!r}][{j}]", float(values[key][j]),
                              f"{what(j)} (variant {j})")

        low = ~(brownout < voc)
        if low.any():
            if "brownout_voltage" in given:
                refuse("brownout_voltage", low, lambda j: f"a voltage in [0, open_circuit_voltage={float(voc[j])})")
            refuse("open_circuit_voltage", low, lambda j: f"a voltage above brownout_voltage={float(brownout[j])}")
        if self._disable:
            below, above = ~(brownout <= recovery), ~(recovery < voc)
            if below.any():
                refuse("recovery_voltage" if "recovery_voltage" in given else "brownout_voltage", below,
                       lambda j: f"brownout_voltage <= recovery_voltage (variant values {float(brownout[j])} and "
                                 f"{float(recovery[j])})")
            if above.any():
                refuse("recovery_voltage" if "recovery_voltage" in given else "open_circuit_voltage", above,
                       lambda j: f"recovery_voltage < open_circuit_voltage (variant values {float(recovery[j])} "
                                 f"and {float(voc[j])})")
        p = np.zeros((n, kb.N_PARAMETERS))
        p[:, kb.P_VOC], p[:, kb.P_R], p[:, kb.P_BROWNOUT] = voc, values["resistance"], brownout
        p[:, kb.P_DISABLE] = 1.0 if self._disable else 0.0
        p[:, kb.P_RECOVERY_VOLTAGE], p[:, kb.P_RECOVERY_TIME] = recovery, self.recovery_time
        return p


def _browned_out(mode) -> bool:
    return isinstance(mode, tuple) and mode[0] == "browned_out"


def _command_inputs(system) -> list:
    """Indices of the inputs of ``system`` that command its motors (for brownout "disable")."""
    names = getattr(system, "motor_command_inputs", None)
    if names is None:
        drive = getattr(system, "drive", None)
        command = getattr(drive, "command", None)
        names = (command,) if isinstance(command, str) and command in system.input_names else None
    if not names:
        raise ConfigError("brownout_behaviour", "disable",
                          f"loads whose motor commands are known: {system.name!r} names none (give it a "
                          "motor_command_inputs attribute listing its command inputs)")
    return [system.input_names.index(n) for n in names]


class _BusCoupling(Coupling):
    """Solves the bus voltage and writes it into every consumer's ``bus_voltage`` input."""

    #: The compiled kernel solves this coupling itself when every system has a kernel form
    #: (:func:`simcore.kernel.parts.couple`).
    in_kernel = True

    def __init__(self, battery: Battery, index: int, consumers: list, systems):
        self.battery = battery
        self.index = index
        self.consumers = [(k, systems[k], systems[k].input_names.index("bus_voltage")) for k in consumers]
        self.curves = [getattr(systems[k], "supply_current_curve", None) for k in consumers]
        self.targets = [f"{systems[k].name}.bus_voltage" for k in consumers] + \
                       [f"{battery.name}.bus_voltage", f"{battery.name}.load_current"]
        self.commands = ([(k, _command_inputs(systems[k])) for k in consumers]
                         if battery.brownout_behaviour == "disable" else [])
        self._held: dict = {}  # (system index, input index) -> the command a controller last wrote
        self._last = None  # (t, xs, us) of the last apply, for the recovery decision
        self._key = None  # the loads' states and inputs at the last solve (their bus slots hold its result)
        # One load with a supply curve (the usual drivetrain on its battery): solved without the loops.
        self._one = (consumers[0], self.curves[0]) if len(consumers) == 1 and self.curves[0] is not None else None

    # -- brownout: commands held at neutral ---------------------------------------------------------
    # (the laws are the kernel's: simcore.kernel.battery.held_back and restored; a slot holding nothing is NaN)
    def _hold_neutral(self, us) -> None:
        from simcore.kernel.battery import held_back

        held = self._held
        for k, slots in self.commands:
            u = us[k]
            for i in slots:
                # a command written since the outputs went off (or the one before) is stored, the marker put
                u[i], held[(k, i)] = held_back(u[i], held.get((k, i), math.nan))

    def _restore(self, us) -> None:
        from simcore.kernel.battery import restored

        for (k, i), v in self._held.items():
            us[k][i] = restored(us[k][i], v)
        self._held.clear()

    def held_commands(self) -> dict:
        """The commands held back while the outputs are off: ``(system index, input index) -> value`` (NaN:
        nothing held). The compiled kernel takes them over for its run, and gives them back
        (:meth:`hold_commands`)."""
        return dict(self._held)

    def hold_commands(self, held: dict) -> None:
        """Hold back ``held`` (as :meth:`held_commands` gives them) in place of the commands held now."""
        self._held = dict(held)

    def bus_voltage_enabled(self, t: float) -> float:
        """The bus voltage the loads would give now with their commands restored (brownout recovery)."""
        from simcore.kernel.battery import restored

        _, xs, us = self._last
        trial = [u.copy() for u in us]
        for (k, i), v in self._held.items():
            trial[k][i] = restored(trial[k][i], v)
        v, _, _ = self._solve(xs, trial)
        return v

    # -- the bus ------------------------------------------------------------------------------------
    def apply(self, t, xs, us):
        if self.commands:
            if _browned_out(self.battery.mode):
                self._hold_neutral(us)
            elif self._held:
                self._restore(us)
            self._last = (t, xs, us)
        # The same loads in the same states with the same inputs give the same bus: records and guards
        # at an instant the right-hand side just saw. The key is taken with the bus slots as the last
        # solve wrote them (whole arrays: cheaper than cutting the slots out), so it matches only when
        # nothing but this coupling has written them since.
        # On a match the slots already hold the solution (the battery's own are written only here).
        one = self._one
        if one is not None:  # _state_key of the one load, in line (on every evaluation of the right-hand side)
            key = (self.battery.mode, xs[one[0]].tobytes() + us[one[0]].tobytes())
        else:
            key = (self.battery.mode, self._state_key(xs, us))
        if key != self._key:
            v, current, _ = self._solve(xs, us)
            for k, _, i in self.consumers:
                us[k][i] = v
            ub = us[self.index]
            ub[0] = v
            ub[1] = current
            self._key = (key[0], self._state_key(xs, us))

    def _state_key(self, xs, us) -> bytes:
        """The loads' states and inputs as one key (apply() builds the one load's in line for its check)."""
        one = self._one
        if one is not None:
            return xs[one[0]].tobytes() + us[one[0]].tobytes()
        return b"".join([xs[k].tobytes() + us[k].tobytes() for k, _, _ in self.consumers])

    def _solve(self, xs, us):
        """(bus voltage, battery current, collapsed)."""
        bat = self.battery
        voc, r = bat.open_circuit_voltage, bat.resistance
        if self._one is not None:
            k, curve_of = self._one
            total = curve_of(xs[k], us[k])
            if total is None:
                return self._solve_numerically(xs, us)
        else:
            if not self.consumers:
                return voc, 0.0, False
            curves = []
            for (k, s, _), curve_of in zip(self.consumers, self.curves):
                curve = curve_of(xs[k], us[k]) if curve_of is not None else None
                if curve is None:
                    return self._solve_numerically(xs, us)
                curves.append(curve)
            if len(curves) == 1:
                total = curves[0]
            else:
                total = SupplyCurve()
                for curve in curves:
                    total.extend(curve)
        if r == 0.0:
            return voc, total.at(voc), False
        v = bus_root(total, voc, r)
        if v is None:
            return 0.0, voc / r, True
        return v, total.at(v), False

    def _total(self, xs, us, v):
        return sum(s.supply_current_at(xs[k], us[k], v) for k, s, _ in self.consumers)

    def _solve_numerically(self, xs, us):
        """The bus from ``supply_current_at`` alone (a load without a supply curve): the kernel's numeric
        search (:func:`simcore.kernel.battery.search_next`), the loads evaluated here."""
        from simcore.kernel import battery as kb

        bat = self.battery
        voc, r = bat.open_circuit_voltage, bat.resistance
        if r == 0.0:
            return voc, self._total(xs, us, voc), False
        s = np.empty(kb.N_SEARCH)
        status = kb.search_start(s, voc, r)
        while status == kb.SEARCH_EVALUATE:
            status = kb.search_next(s, self._total(xs, us, s[kb.S_V]))
        if status == kb.SEARCH_BRACKETED:
            v = brentq(lambda v: v - voc + r * self._total(xs, us, v), s[kb.S_V], s[kb.S_UPPER],
                       xtol=kb.BUS_XTOL, rtol=kb.BUS_RTOL, maxiter=kb.BUS_MAX_ITERATIONS)
        elif status == kb.SEARCH_ROOT:
            v = float(s[kb.S_V])
        elif status == kb.SEARCH_COLLAPSED:
            # No bus voltage >= 0 satisfies the loads (motors plugged against a big back-EMF):
            # the bus collapses and the battery is shorted through the bridges.
            return 0.0, voc / r, True
        else:
            raise ConfigError("battery", voc, "a bus voltage the consumers' currents allow (none found)")
        return v, self._total(xs, us, v), False
