"""The signal layout of a simulation: stacked state, held inputs, couplings, and the right-hand side.

Every system's states are stacked into one vector ``X`` in the order the systems
were given (system ``k`` owns the slice ``slices[k]``); each system's held inputs
are one float array ``U[k]``, written in place (by controllers, ``set_inputs`` and
couplings) so that the right-hand side, which holds references to them, always
sees the present values. A signal ``"system.signal"`` is a state, an input or an
output (computed on demand from ``(t, x, u)`` and the system's mode).

The right-hand side built here (:meth:`SignalLayout.make_rhs`) is the hot path:
one Python call into each system's ``derivatives`` per evaluation, and a check of
what came back (an array of the right length, real, finite) that costs about a
microsecond when it passes; anything else goes through a slow path that names
the system and what was expected, or the state and the time for a non-finite
value.

Input writes (:meth:`SignalLayout.write_input`) accept floats and pint Quantities
(converted to the signal's declared unit, refused on a wrong dimension), check the
input's declared range, and refuse couplings' targets.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from .errors import ConfigError, ConfigTypeError, NonFiniteError, SimError, as_real, check_finite
from .system import float_derivatives

__all__ = ["SignalLayout", "Signals", "annotate", "checked_values", "with_time"]

_F64 = np.dtype(float)
_FLOAT_ONLY = {float}  # (the element types of a list of Python floats)


def annotate(exc: BaseException, t: float, where: str, when: str) -> None:
    """Tell an exception from model or robot code when and where it happened (its own type is kept).

    ``when`` says what the time is: ``"tick"``, ``"solver stage"``, ``"event search"``...
    """
    if not isinstance(exc, SimError) and getattr(exc, "sim_time", None) is None:
        exc.sim_time = float(t)
        if hasattr(exc, "add_note"):
            exc.add_note(f"raised {where} at simulation time t={float(t)!r} s ({when})")


def with_time(exc: NonFiniteError, t: float) -> NonFiniteError:
    """``exc`` at time ``t`` when it was raised without one (model code that does not know the time)."""
    return exc.at(float(t)) if math.isnan(exc.t) else exc


def _row_of_numbers(system, what: str, names, value, t) -> np.ndarray:
    """``value`` returned by ``system.<what>()`` as a float array ordered as ``names``, or a clear error."""
    return checked_values(f"{system.name}.{what}() at t={float(t)!r} s", names, value)


def checked_values(parameter: str, names, value) -> np.ndarray:
    """``value`` (what model code returned: ``parameter`` says which) as a float array ordered as
    ``names``: one real number per name, not complex, not a scalar, ``None``, a mapping or 2-D."""
    n = len(names)
    expected = f"{n} real numbers ordered as {tuple(names)}"
    if value is None or isinstance(value, (str, bytes, Mapping)) or np.isscalar(value):
        raise ConfigTypeError(parameter, value, f"a sequence of {expected}")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        raise ConfigTypeError(parameter, value, f"a sequence of {expected}") from None
    if arr.dtype.kind == "c":
        raise ConfigTypeError(parameter, value, f"{expected} (not complex)")
    if arr.dtype.kind not in "iuf":
        raise ConfigTypeError(parameter, value, f"a sequence of {expected}")
    if arr.shape != (n,):
        raise ConfigError(parameter, value, f"{expected} (got shape {arr.shape})")
    return arr.astype(float)


def _finite_row(system, what: str, names, kind: str, value, t) -> np.ndarray:
    """``value`` returned by ``system.<what>()`` checked as a row of numbers, and finite."""
    row = _row_of_numbers(system, what, names, value, t)
    if not np.isfinite(row).all():
        i = int(np.flatnonzero(~np.isfinite(row))[0])
        raise NonFiniteError(kind, f"{system.name}.{names[i]}", row[i], float(t))
    return row


def output_row(system, value, t) -> np.ndarray:
    """What ``system.outputs()`` returned, checked: a float array ordered as ``output_names``, finite (a
    copy: the model may reuse its array)."""
    # The fast check, as the right-hand side's (a sum of finite values is finite; an overflow only costs
    # the slow path, which names what is wrong).
    if (type(value) is np.ndarray and value.dtype is _F64 and value.shape == (len(system.output_names),)
            and math.isfinite(sum(value.tolist()))):
        return value.copy()
    if (type(value) is list and len(value) == len(system.output_names) and set(map(type, value)) <= _FLOAT_ONLY
            and math.isfinite(sum(value))):  # (a list of Python floats, as the kernel forms' outputs give)
        return np.array(value)
    return _finite_row(system, "outputs", system.output_names, "output", value, t)


def derivative_row(system, value, t) -> np.ndarray:
    """What ``system.derivatives()`` returned, checked (the slow path of the right-hand side)."""
    return _finite_row(system, "derivatives", system.state_names, "derivative of", value, t)


def stacked(systems) -> tuple[list[slice], int, dict[str, tuple[str, int, int]]]:
    """How the systems' states stack into one vector, and where each ``"system.signal"`` lives.

    Returns ``(slices, n_states, index)``: each system's slice of the stacked state, its length,
    and per signal ``(kind, system index, i)`` with kind ``"x"`` (``i`` into the stacked state),
    ``"u"`` or ``"y"`` (``i`` into that system's inputs or outputs). Shared by the serial engine
    and the batch kernel.
    """
    slices, offset = [], 0
    for s in systems:
        n = len(s.state_names)
        slices.append(slice(offset, offset + n))
        offset += n
    index: dict[str, tuple[str, int, int]] = {}
    for k, s in enumerate(systems):
        for i, n in enumerate(s.state_names):
            index[f"{s.name}.{n}"] = ("x", k, slices[k].start + i)
        for i, n in enumerate(s.input_names):
            index[f"{s.name}.{n}"] = ("u", k, i)
        for i, n in enumerate(s.output_names):
            index[f"{s.name}.{n}"] = ("y", k, i)
    return slices, offset, index


class SignalLayout:
    """Where every signal of a simulation lives, and the stacked right-hand side.

    Parameters
    ----------
    systems : list of System
        Already validated (names unique, signal names valid).
    """

    def __init__(self, systems):
        self.systems = systems
        self.slices, self.n_states, self.index = stacked(systems)
        self.units: dict[str, str] = {f"{s.name}.{n}": unit for s in systems for n, unit in s.units.items()}
        self.input_names = [f"{s.name}.{n}" for s in systems for n in s.input_names]
        self.input_ranges = {f"{s.name}.{n}": s.input_ranges[n] for s in systems
                             for n in s.input_names if n in s.input_ranges}
        self.couplings = []
        self.coupled: dict[str, str] = {}
        self.U: list[np.ndarray] = [np.zeros(len(s.input_names)) for s in systems]
        for s in systems:
            for c in s.couplings(systems):
                for target in c.targets:
                    if self.index.get(target, ("?",))[0] != "u":
                        raise ConfigError("coupling target", target, "an input of a simulated system")
                    self.coupled[target] = s.name
                self.couplings.append(c)
        self._held = None  # (inputs, modes) snapshot for recording; None when stale
        self._y_cache: dict[int, tuple] = {}

    # -- initial values -----------------------------------------------------------------------------
    def initial_state(self) -> np.ndarray:
        """The stacked ``initial_state()`` of every system, checked."""
        X = np.empty(self.n_states)
        for k, s in enumerate(self.systems):
            x = checked_values(f"{s.name}.initial_state()", s.state_names, s.initial_state())
            for i, v in enumerate(x):
                if not math.isfinite(v):
                    raise ConfigError(f"{s.name}.initial_state()[{s.state_names[i]!r}]", v, "a finite number")
            X[self.slices[k]] = x
        return X

    def set_initial_inputs(self) -> None:
        """Fill every ``U[k]`` from the systems' ``initial_inputs()``, checked."""
        for k, s in enumerate(self.systems):
            u = checked_values(f"{s.name}.initial_inputs()", s.input_names, s.initial_inputs())
            for i, v in enumerate(u):
                rng = s.input_ranges.get(s.input_names[i], (-math.inf, math.inf))
                if not (math.isfinite(v) and rng[0] <= v <= rng[1]):
                    raise ConfigError(f"{s.name}.initial_inputs()[{s.input_names[i]!r}]", v,
                                      f"a finite number in [{rng[0]}, {rng[1]}]")
            self.U[k][:] = u
        self._held = None

    def set_state(self, X: np.ndarray, name: str, value, who: str = "x0") -> None:
        """Write the state ``name`` of ``X`` (a float, or a Quantity in the state's unit)."""
        kind = self.index.get(name, ("?",))
        if kind[0] != "x":
            raise ConfigError(who, name, "a state name, one of " + ", ".join(
                n for n, v in self.index.items() if v[0] == "x"))
        X[kind[2]] = check_finite(f"{who}[{name!r}]", self._magnitude(f"{who}[{name!r}]", name, value))

    def _magnitude(self, parameter: str, name: str, value):
        """A pint Quantity converted to the signal's unit; anything else as given."""
        if hasattr(value, "magnitude") and hasattr(value, "dimensionality"):
            from .units import to_si
            return to_si(parameter, value, self.units.get(name, ""))
        return value

    # -- inputs ----------------------------------------------------------------------------------------
    def write_input(self, name: str, value, who: str, t: float) -> None:
        """Write a held input (float or Quantity), checked against its kind and range."""
        self.write_inputs([self.checked_input(name, value, who, t)])

    def checked_input(self, name: str, value, who: str, t: float) -> tuple:
        """``(system index, input index, value as a float)`` for a write of ``value`` to the input
        ``name``, checked against its kind and range; nothing is written."""
        kind = self.index.get(name)
        if kind is None or kind[0] != "u":
            what = "a state" if kind and kind[0] == "x" else "an output" if kind else "unknown"
            raise ConfigError(f"{who} signal", name,
                              f"an input ({what} given); valid inputs: {', '.join(self.input_names)}")
        if name in self.coupled:
            raise ConfigError(f"{who} signal", name,
                              f"an input not driven by {self.coupled[name]!r} (it is solved continuously)")
        if type(value) is float:  # (the common case: no name for an error is built)
            v = value
        else:
            parameter = f"{who}[{name!r}]"
            v = as_real(parameter, self._magnitude(parameter, name, value))
        if not math.isfinite(v):
            raise NonFiniteError("input", name, value, float(t))
        rng = self.input_ranges.get(name)
        if rng is not None and not rng[0] <= v <= rng[1]:
            raise ConfigError(f"{who}[{name!r}]", value, f"a value in [{rng[0]}, {rng[1]}] (at t={float(t)!r} s)")
        return kind[1], kind[2], v

    def write_each(self, written: Mapping, who: str, t: float) -> None:
        """Write the inputs of ``written`` (name to value) in order, each checked (as :meth:`write_input`)
        just before it is written: a refused value leaves those before it written and the rest not."""
        U, checked = self.U, self.checked_input
        changed = False
        try:
            for name, value in written.items():
                k, i, v = checked(name, value, who, t)
                u = U[k]
                before = u[i]
                u[i] = v
                if not changed and (before != v or (v == 0.0 and math.copysign(1.0, before) != math.copysign(1.0, v))):
                    changed = True
        finally:
            if changed:  # (the same values bit for bit, -0.0 told from 0.0: the rows' snapshot holds)
                self._held = None

    def write_inputs(self, writes) -> list:
        """Write checked inputs ``[(system index, input index, value)]`` (from :meth:`checked_input`);
        returns what they held before, in the same form, for :meth:`write_inputs` to put back."""
        U = self.U
        before = [(k, i, float(U[k][i])) for k, i, _ in writes]
        for k, i, v in writes:
            U[k][i] = v
        self._held = None
        return before[::-1]  # undone in reverse, so an input written twice gets its first value back

    def modes_changed(self) -> None:
        """A system's mode was switched: the next recorded row takes a new snapshot."""
        self._held = None

    def apply_couplings(self, t: float, X: np.ndarray) -> None:
        xs = [X[sl] for sl in self.slices]
        for c in self.couplings:
            c.apply(t, xs, self.U)

    def held(self, t: float, X: np.ndarray) -> tuple:
        """(every input concatenated, every mode): shared by consecutive rows until one changes."""
        if self.couplings:
            self.apply_couplings(t, X)
            return (np.concatenate(self.U) if self.U else np.empty(0), tuple(s.mode for s in self.systems))
        if self._held is None:
            self._held = (np.concatenate(self.U) if self.U else np.empty(0), tuple(s.mode for s in self.systems))
        return self._held

    # -- reading ---------------------------------------------------------------------------------------
    def unit(self, name: str) -> str:
        """The unit its system declares for signal ``name`` (``""``: none declared, a dimensionless number).

        Raises KeyError, listing the signals, for a name that is no signal of the simulation."""
        if name not in self.index:
            raise KeyError(f"no signal {name!r}; signals: {', '.join(self.index)}")
        return self.units.get(name, "")

    def read(self, name: str, t: float, X: np.ndarray) -> float:
        """The value of one signal at (t, X) with the present inputs and modes."""
        try:
            kind, k, i = self.index[name]
        except KeyError:
            raise KeyError(f"no signal {name!r}; signals: {', '.join(self.index)}") from None
        if kind == "x":
            return float(X[i])
        if kind == "u":
            if self.couplings:
                self.apply_couplings(t, X)
            return float(self.U[k][i])
        return float(self.outputs_of(k, t, X)[i])

    def outputs_of(self, k: int, t: float, X: np.ndarray) -> np.ndarray:
        # Cached until the state, an input, the mode or the time changes.
        U = self.U
        key = (t, X.tobytes(), U[0].tobytes() if len(U) == 1 else b"".join([u.tobytes() for u in U]),
               self.systems[k].mode)
        hit = self._y_cache.get(k)
        if hit is not None and hit[0] == key:
            return hit[1]
        if self.couplings:
            self.apply_couplings(t, X)
        s = self.systems[k]
        try:
            y = output_row(s, s.outputs(t, X[self.slices[k]], self.U[k]), t)
        except NonFiniteError as exc:
            raise with_time(exc, t) from None
        self._y_cache[k] = (key, y)
        return y

    # -- the right-hand side ----------------------------------------------------------------------------
    def make_rhs(self):
        """``(rhs, rhs_floats, nfev)``: the stacked ``rhs(t, X) -> dX/dt``, the same on lists of floats
        (``rhs_floats(t, x) -> list``, or None when a system has no float form of its derivatives:
        :func:`~simcore.system.float_derivatives`) and a function counting the calls of both."""
        count = 0
        systems, slices, U = self.systems, self.slices, self.U
        parts = [(s.derivatives, slices[k], U[k], (len(s.state_names),), s) for k, s in enumerate(systems)]
        ndarray, F64, isfinite = np.ndarray, _F64, math.isfinite

        def nfev() -> int:
            return count

        if len(systems) == 1 and not self.couplings:
            deriv, _, u0, shape, s0 = parts[0]
            where = f"in {s0.name}.derivatives"

            def rhs(t, X):
                nonlocal count
                count += 1
                try:
                    d = deriv(t, X, u0)
                except NonFiniteError as exc:
                    raise with_time(exc, t) from None
                except Exception as exc:
                    annotate(exc, t, where, "solver stage")
                    raise
                # The fast check (a sum of finite values is finite; an overflow only costs the slow path).
                if type(d) is ndarray and d.dtype is F64 and d.shape == shape and isfinite(sum(d.tolist())):
                    return d
                return derivative_row(s0, d, t)

            fderiv, n0 = float_derivatives(s0), shape[0]

            def rhs_floats(t, x):
                nonlocal count
                try:
                    d = fderiv(t, x, u0.tolist())
                    if type(d) is list and len(d) == n0 and isfinite(sum(d)):
                        count += 1
                        return d
                except NonFiniteError as exc:
                    count += 1
                    raise with_time(exc, t) from None
                except Exception:
                    pass
                # Anything else (an error of Python float arithmetic where numpy gives inf or nan, a
                # complex value, a wrong return): the array form evaluates it again, checked as always,
                # so the run fails (or not) exactly as on arrays, with the same named error.
                return rhs(t, np.array(x)).tolist()
            return rhs, (rhs_floats if fderiv is not None else None), nfev

        n_states, couplings = self.n_states, self.couplings
        apply = self.apply_couplings

        def rhs(t, X):
            nonlocal count
            count += 1
            if couplings:
                apply(t, X)
            d = np.empty(n_states)
            for deriv, sl, u, shape, s in parts:
                try:
                    dk = deriv(t, X[sl], u)
                except NonFiniteError as exc:
                    raise with_time(exc, t) from None
                except Exception as exc:
                    annotate(exc, t, f"in {s.name}.derivatives", "solver stage")
                    raise
                if not (type(dk) is ndarray and dk.dtype is F64 and dk.shape == shape
                        and isfinite(sum(dk.tolist()))):
                    dk = derivative_row(s, dk, t)
                d[sl] = dk
            return d
        return rhs, None, nfev


class Signals(Mapping):
    """Live read-only view of every signal at the simulator's current instant.

    ``signals["arm.angle"]`` reads the state, held input or output of a system at
    the current time. The same object is handed to every controller call and is
    returned by :attr:`Simulator.signals`, so code that keeps a reference to it
    (an FTC hub, robot code between ``advance`` calls) always reads the present.
    """

    def __init__(self, sim):
        self._sim = sim

    def __getitem__(self, name: str) -> float:
        sim = self._sim
        return sim._layout.read(name, sim.t, sim._X)

    def __iter__(self):
        return iter(self._sim._layout.index)

    def __len__(self) -> int:
        return len(self._sim._layout.index)

    @property
    def t(self) -> float:
        """Current simulation time, s."""
        return self._sim.t

    def unit(self, name: str) -> str:
        """The unit signal ``name`` is read in, as its system declares it (``"rad"``, ``"m/s"``;
        ``""`` when it declares none). Values are always in these SI units; a controller given a
        pint Quantity converts it with this once, not at each tick."""
        return self._sim._layout.unit(name)

    def __repr__(self):
        return f"<Signals at t={self._sim.t!r} s: {len(self)} signals>"
