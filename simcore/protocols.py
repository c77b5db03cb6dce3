"""What each part of the simulator needs of the objects it is given, written as ``typing.Protocol``s.

The engine, the battery, the field view, an FTC hub channel and :func:`control_loop`
work with any object that has the members listed here: a team's own mechanism or
controller joins in by having them (duck typing), not by inheriting. Because a
misspelt member used to be silently ignored (a load whose ``supply_current_at`` is
misspelt drew 0 A from the battery; a controller whose ``reset`` is misspelt was never
reset), they are checked where the object is handed over, and a missing member
raises :class:`~simcore.errors.ProtocolError` (a ConfigTypeError) naming it:

========================  ==========================================  =============================
protocol                  who needs it                                checked
========================  ==========================================  =============================
:class:`SimulatedSystem`  the engine                                  ``Simulator(...)``
:class:`BusLoad`          a battery (a system with ``feeds_bus``)      ``Simulator(...)``, with one
:class:`FieldDrawable`    :func:`simcore.field.plot_field`             ``Simulator(...)`` (spelling)
:class:`HubMechanism`     an FTC hub channel (``Hub.motor``)           ``Hub.motor(...)``
:class:`LoopController`   :func:`~simcore.controllers.control_loop`    ``control_loop(...)``
:class:`Resettable`       ``control_loop`` (reset before each run)     ``control_loop(...)``
========================  ==========================================  =============================

Members a part can do without (a drivetrain's ``outline()``, a controller's
``reset()``) are optional: the check then only refuses a near miss, a member spelt
like it but not it (``outlines``, ``rest``), which is almost always a typo.

Signals are part of two contracts: a bus load has the input ``bus_voltage``
(:data:`BUS_LOAD_INPUTS`); a hub-driven mechanism has the inputs and signals in
:data:`HUB_INPUTS` and :data:`HUB_SIGNALS`.

The functions: :func:`check` (one object against one protocol),
:func:`check_simulation` (what ``Simulator`` calls), :func:`check_hub_mechanism`
(what ``Hub.motor`` calls), :func:`loop_controller` and :func:`reset_call` (what
``control_loop`` calls).
"""
from __future__ import annotations

import difflib
import functools
import inspect
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

from .errors import ProtocolError

__all__ = ["SimulatedSystem", "BusLoad", "FieldDrawable", "SwerveFieldDrawable", "HubMechanism", "LoopController",
           "Resettable", "BUS_LOAD_INPUTS", "HUB_INPUTS", "HUB_SIGNALS", "check", "check_simulation",
           "check_hub_mechanism", "loop_controller", "reset_call"]

#: Inputs a load the battery feeds must have (the battery writes the solved bus voltage there), V.
BUS_LOAD_INPUTS = ("bus_voltage",)
#: Inputs a hub channel writes: the duty cycle in [-1, 1] and the brake flag (1 brake, 0 float).
HUB_INPUTS = ("duty", "brake")
#: Signals (outputs or states) a hub channel reads: rad, rad/s, A, A, V.
HUB_SIGNALS = ("rotor_position", "rotor_velocity", "stator_current", "supply_current", "supply_voltage")

#: difflib ratio at or above which a member's name counts as a misspelling of a protocol member (above
#: 0.8: a tank's ``axle_positions`` is exactly 0.8 from ``module_positions`` and is no misspelling of it).
_NEAR_MISS = 0.81


@runtime_checkable
class SimulatedSystem(Protocol):
    """What the engine needs of each system (every :class:`simcore.System` has it)."""

    name: str
    state_names: Sequence[str]
    input_names: Sequence[str]
    output_names: Sequence[str]

    def initial_state(self) -> Any: ...

    def initial_inputs(self) -> Any: ...

    def initial_mode(self, t: float, x: Any, u: Any) -> Any: ...

    def derivatives(self, t: float, x: Any, u: Any) -> Any: ...

    def outputs(self, t: float, x: Any, u: Any) -> Sequence[float]: ...

    def events(self) -> Sequence: ...

    def couplings(self, systems: Sequence) -> list: ...


@runtime_checkable
class BusLoad(Protocol):
    """A load the battery feeds: it has the input ``bus_voltage`` and tells the current it draws.

    In a simulation with a battery (a system whose ``feeds_bus`` is true), every
    other system with a ``bus_voltage`` input is one, and must have this method.
    """

    name: str
    input_names: Sequence[str]

    def supply_current_at(self, x: Any, u: Any, bus_voltage: float) -> float:
        """Current drawn from the bus, A, in state ``x`` with inputs ``u`` at ``bus_voltage`` V."""


@runtime_checkable
class FieldDrawable(Protocol):
    """A drivetrain the field view can draw: states ``x``, ``y``, ``heading`` and its outline.

    ``outline()`` is optional (a 0.6 m square is drawn without it).
    """

    name: str

    def outline(self) -> Sequence[tuple[float, float]]:
        """The robot's outline in its own frame, m (x forward, y left), as a polygon."""


@runtime_checkable
class SwerveFieldDrawable(FieldDrawable, Protocol):
    """A swerve drive the field view draws with module vectors: ``module_positions`` (m) and the
    signals ``steer_angle_<i>`` (rad) and ``wheel_speed_<i>`` (m/s). ``module_positions`` is optional."""

    module_positions: Sequence[tuple[float, float]]


@runtime_checkable
class HubMechanism(Protocol):
    """A mechanism a hub channel can drive: the inputs :data:`HUB_INPUTS` and the signals
    :data:`HUB_SIGNALS`; ``motor_type`` (the FTC motor type) is optional when the
    channel is given one."""

    name: str
    input_names: Sequence[str]
    output_names: Sequence[str]
    state_names: Sequence[str]


@runtime_checkable
class LoopController(Protocol):
    """A controller :func:`~simcore.controllers.control_loop` can run (or a callable ``f(measurement, setpoint)``)."""

    def calculate(self, measurement: float, setpoint: float) -> float: ...


@runtime_checkable
class Resettable(Protocol):
    """A controller ``control_loop`` restarts before each run. ``reset()`` takes no argument, or one:
    the measurement (as ``ProfiledPIDController.reset(measured_position)``)."""

    def reset(self) -> None: ...


#: Members a protocol can do without (checked for misspellings only).
_OPTIONAL = {FieldDrawable: ("outline",), SwerveFieldDrawable: ("outline", "module_positions"),
             Resettable: ("reset",)}


@functools.lru_cache(maxsize=None)
def _members(protocol) -> dict:
    """``{name: protocol function or None (an attribute)}`` over the protocol and its protocol bases."""
    out = {}
    for base in reversed(protocol.__mro__):
        if base in (object, Protocol) or not getattr(base, "_is_protocol", False):
            continue
        for name in getattr(base, "__annotations__", {}):
            out.setdefault(name, None)
        for name, value in vars(base).items():
            if not name.startswith("_") and callable(value):
                out[name] = value
    return out


def _near_miss(obj, name: str):
    """A public member of ``obj`` spelt like ``name`` but not it, or None."""
    names = [n for n in dir(obj) if not n.startswith("_") and n != name]
    near = difflib.get_close_matches(name, names, n=1, cutoff=_NEAR_MISS)
    if not near and name.lower() in (n.lower() for n in names):
        near = [next(n for n in names if n.lower() == name.lower())]
    return near[0] if near else None


def _n_positional(fn) -> int:
    params = list(inspect.signature(fn).parameters.values())[1:]  # without self
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


def _signature_text(name: str, fn) -> str:
    params = list(inspect.signature(fn).parameters)[1:]
    return f"{name}({', '.join(params)})"


def _accepts(member, n: int) -> bool:
    """Whether ``member`` can be called with ``n`` positional arguments (True when it cannot be told)."""
    try:
        inspect.signature(member).bind(*([None] * n))
    except TypeError:
        return False
    except ValueError:  # a builtin without a signature
        return True
    return True


def check(obj, protocol, *, parameter: str, role: str | None = None, optional: Sequence[str] | None = None):
    """Check ``obj`` has every member of ``protocol``; return ``obj``.

    Parameters
    ----------
    obj : object
    protocol : a Protocol class of this module (or any Protocol)
    parameter : str
        Where the object was given, for the message (``"systems[1]"``, ``"mechanism"``).
    role : str, optional
        What the object is meant to be, in words (default from the protocol's name).
    optional : sequence of str, optional
        Members it may lack (default: the protocol's optional members); a member
        spelt like one of them but not it is still refused.

    Raises
    ------
    ProtocolError
        Naming the first missing member (and a near miss of its spelling, if any),
        or a method that cannot be called with the protocol's arguments.
    """
    optional = _OPTIONAL.get(protocol, ()) if optional is None else tuple(optional)
    own = tuple(sorted(getattr(obj, "__dict__", ())))
    problem = _problem(type(obj), own, protocol, optional, obj)
    for name in set(own) & set(_callable_members(protocol)):  # methods set on the instance: never cached
        problem = problem or _method_problem(obj, name, _members(protocol)[name])
    if problem is not None:
        expected, member = problem
        raise ProtocolError(parameter, obj, f"{role or f'a {protocol.__name__}'} {expected}", member)
    return obj


def _callable_members(protocol) -> tuple:
    return tuple(n for n, spec in _members(protocol).items() if spec is not None)


_PROBLEMS: dict = {}


def _problem(cls, own: tuple, protocol, optional: tuple, obj):
    """The first problem of ``obj`` with ``protocol``: ``(expected, member)`` or None.

    Everything it looks at is fixed by the class and the names of the instance's own
    attributes, so the verdict is kept per (class, own names): a simulation built in a
    sweep's loop pays for the signatures and the spelling search once.
    """
    key = (cls, own, protocol, optional)
    if key not in _PROBLEMS:
        _PROBLEMS[key] = _find_problem(obj, set(own), protocol, optional)
    return _PROBLEMS[key]


def _find_problem(obj, own: set, protocol, optional: tuple):
    for name, spec in _members(protocol).items():
        what = name if spec is None else _signature_text(name, spec)
        if not hasattr(obj, name):
            near = _near_miss(obj, name)
            if name in optional and near is None:
                continue
            hint = f" (it has {near!r}: a misspelling?)" if near else ""
            return f"with {what}{hint}", name
        if spec is not None and name not in own:
            problem = _method_problem(obj, name, spec)
            if problem is not None:
                return problem
    return None


def _method_problem(obj, name: str, spec):
    what = _signature_text(name, spec)
    member = getattr(obj, name)
    if not callable(member):
        return f"with a method {what} (its {name} is not callable)", name
    n = _n_positional(spec)
    if not _accepts(member, n):
        return f"whose {name} takes {n} argument(s): {what}", name
    return None


def _check_signals(obj, parameter: str, role: str, inputs: Sequence[str], signals: Sequence[str] = ()) -> None:
    have_in = tuple(getattr(obj, "input_names", ()) or ())
    have = set(getattr(obj, "output_names", ()) or ()) | set(getattr(obj, "state_names", ()) or ())
    for name in inputs:
        if name not in have_in:
            near = difflib.get_close_matches(name, have_in, n=1, cutoff=_NEAR_MISS)
            hint = f" (it has the input {near[0]!r}: a misspelling?)" if near else f" (its inputs: {list(have_in)})"
            raise ProtocolError(parameter, obj, f"{role} with the input {name!r}{hint}", name)
    for name in signals:
        if name not in have:
            raise ProtocolError(parameter, obj, f"{role} with the output or state {name!r}", name)


def _overrides(obj, base, name: str) -> bool:
    return getattr(type(obj), name, None) is not getattr(base, name, None)


@functools.lru_cache(maxsize=None)
def _shadowed_system_method(cls):
    """``(near miss, System method)`` when ``cls`` leaves a System method as the default and defines a
    member spelt like it (``event`` for ``events``), else None."""
    from .system import System

    for name in ("outputs", "events", "initial_state", "initial_inputs", "initial_mode", "couplings"):
        if getattr(cls, name, None) is getattr(System, name):
            near = _near_miss(cls, name)
            if near is not None and not hasattr(System, near):
                return near, name
    return None


def check_simulation(systems: Sequence, controllers: Sequence = ()) -> None:
    """Check the systems of a simulation against what the engine, the battery and the field view need.

    Called by :class:`simcore.Simulator` once its systems are known. Checks:

    * every system is a :class:`SimulatedSystem`; one with states defines
      ``derivatives`` (the base class's raises at the first step, too late), and no
      method of the base class is shadowed by a near miss (``derivative``, ``event``)
      while the real one is left as the default;
    * with a battery (a system whose ``feeds_bus`` is true), every other system with
      a ``bus_voltage`` input is a :class:`BusLoad`, and every system with a
      ``supply_current_at`` method has that input (else it would draw nothing);
    * a system with the pose states ``x``, ``y``, ``heading`` spells the
      :class:`FieldDrawable` members it has right (``outline``, ``module_positions``).

    Raises
    ------
    ProtocolError
        Naming the system, by its position in ``systems``, and the missing member.
    """
    from .system import System

    for k, s in enumerate(systems):
        where = f"systems[{k}]"
        check(s, SimulatedSystem, parameter=where, role=f"a System ({type(s).__name__} {getattr(s, 'name', '?')!r})")
        if isinstance(s, System):
            if s.state_names and not _overrides(s, System, "derivatives"):
                near = _near_miss(s, "derivatives")
                hint = f"; it has {near!r}: a misspelling?" if near else ""
                raise ProtocolError(where, s, f"a System with states {list(s.state_names)} that defines "
                                              f"derivatives(t, x, u){hint}", "derivatives")
            shadowed = _shadowed_system_method(type(s))
            if shadowed is not None:
                near, name = shadowed
                raise ProtocolError(where, s, f"a System whose {near!r} is meant to be {name!r} (the engine "
                                              f"calls {name}; {near} is never called)", name)
    suppliers = [s for s in systems if getattr(s, "feeds_bus", False) is True]
    if suppliers:
        supply = suppliers[0]
        role = f"a load the battery {supply.name!r} feeds"
        for k, s in enumerate(systems):
            if s is supply or getattr(s, "feeds_bus", False) is True:
                continue
            has_input = "bus_voltage" in s.input_names
            if has_input:
                check(s, BusLoad, parameter=f"systems[{k}]", role=f"{role} (it has a bus_voltage input)")
            elif callable(getattr(s, "supply_current_at", None)):
                _check_signals(s, f"systems[{k}]", f"{role} (it has supply_current_at)", BUS_LOAD_INPUTS)
    for k, s in enumerate(systems):
        if {"x", "y", "heading"} <= set(s.state_names):
            check(s, SwerveFieldDrawable, parameter=f"systems[{k}]", role="a drivetrain the field view can draw")


def check_hub_mechanism(mechanism, *, parameter: str = "mechanism", wheel: str | None = None) -> None:
    """Check ``mechanism`` is a :class:`HubMechanism` (``Hub.motor`` calls this).

    With ``wheel`` (a channel on one wheel of a drivetrain) the signals carry the
    wheel's prefix and the hub checks them itself; only the members and the
    spelling of ``motor_type`` are checked here.

    Raises
    ------
    ProtocolError
        Naming the missing member, input or signal; a mechanism commanded in volts
        is told to build it with ``command="duty"``.
    """
    role = "a mechanism a hub channel can drive"
    check(mechanism, HubMechanism, parameter=parameter, role=role)
    if wheel is None:
        if "duty" not in mechanism.input_names and "voltage" in mechanism.input_names:
            raise ProtocolError(parameter, mechanism, f"{role} with the input 'duty' (it is commanded in volts: "
                                                      f"build it with command='duty')", "duty")
        _check_signals(mechanism, parameter, role, HUB_INPUTS, HUB_SIGNALS)
    if not hasattr(mechanism, "motor_type"):
        near = _near_miss(mechanism, "motor_type")
        if near is not None:
            raise ProtocolError(parameter, mechanism, f"{role} with motor_type (it has {near!r}: a misspelling?)",
                                "motor_type")


def loop_controller(controller, *, parameter: str = "controller") -> Callable:
    """The ``calculate(measurement, setpoint)`` of a :class:`LoopController`, or ``controller`` itself
    if it is a plain callable ``f(measurement, setpoint)``."""
    role = "a controller with calculate(measurement, setpoint), or a callable f(measurement, setpoint)"
    if hasattr(controller, "calculate") or not callable(controller):
        check(controller, LoopController, parameter=parameter, role=role)
        return controller.calculate
    if not _accepts(controller, 2):
        raise ProtocolError(parameter, controller, role + " (it cannot take two arguments)", "calculate")
    return controller


def reset_call(controller, *, parameter: str = "controller") -> Callable | None:
    """How to restart ``controller`` before a run: ``f(measurement)``, or None when it has no ``reset``.

    A ``reset()`` without arguments is called as is; one that needs one argument is
    given the measurement (``ProfiledPIDController.reset(measured_position)``).

    Raises
    ------
    ProtocolError
        A near miss of ``reset`` (``rest``, ``Reset``), or a ``reset`` that needs
        more than one argument.
    """
    reset = getattr(controller, "reset", None)
    if reset is None:
        check(controller, Resettable, parameter=parameter, role="a controller")  # refuses a near miss only
        return None
    if not callable(reset):
        raise ProtocolError(parameter, controller, "a controller whose reset is a method (it is not callable)",
                            "reset")
    if _accepts(reset, 0):
        return lambda measurement: reset()
    if _accepts(reset, 1):
        return reset
    raise ProtocolError(parameter, controller, "a controller whose reset() takes no argument or the measurement",
                        "reset")
