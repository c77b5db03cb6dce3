"""What each part of the simulator needs of the objects it is given, written as ``typing.Protocol``s.

The battery, the field view, an FTC hub channel and :func:`control_loop` work with any
object that has the members listed here: a team's own load or controller joins in by
having them (duck typing), not by inheriting. The engine is the exception: its
systems must be :class:`simcore.System` subclasses (``Simulator`` refuses anything
else); :class:`SimulatedSystem` lists what it uses of them, the members a subclass
overrides. Because a
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
:class:`HardwareDevice`   an FTC robot configuration (``hardwareMap``)  ``run_opmode(...)``
========================  ==========================================  =============================

Members a part can do without (a drivetrain's ``outline()``, a controller's
``reset()``) are optional. Where one is absent the check refuses only a member that
looks like a typo of it: spelt nearly the same (``outlines``, ``rest``, ``Reset``) *and*
of the same kind, a method callable with the protocol's arguments for a method, a
plain value for an attribute. A counter ``self.resets = 0`` or a helper ``output(k)``
is left alone. A missing *required* member is always refused, with any near spelling
as a hint.

Signals are part of two contracts: a bus load has the input ``bus_voltage``
(:data:`BUS_LOAD_INPUTS`); a hub-driven mechanism has the inputs and signals in
:data:`HUB_INPUTS` and :data:`HUB_SIGNALS`.

The functions: :func:`check` (one object against one protocol),
:func:`check_simulation` (what ``Simulator`` calls), :func:`check_hub_mechanism`
(what ``Hub.motor`` calls), :func:`loop_controller`, :func:`reset_call` and
:func:`check_callable` (what ``control_loop`` calls).
"""
from __future__ import annotations

import difflib
import functools
import inspect
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

from .errors import ProtocolError

__all__ = ["SimulatedSystem", "BusLoad", "FieldDrawable", "SwerveFieldDrawable", "HubMechanism", "LoopController",
           "Resettable", "HardwareDevice", "BUS_LOAD_INPUTS", "HUB_INPUTS", "HUB_SIGNALS", "check", "check_simulation",
           "check_hub_mechanism", "loop_controller", "reset_call", "check_callable"]

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


@runtime_checkable
class HardwareDevice(Protocol):
    """A device a team writes for an FTC robot configuration: ``hardwareMap.get(TheirType, name)`` returns it.

    ``getDeviceName()`` names it; the op mode's run hands it the simulation's live signals
    (``"<system>.<signal>"`` -> value) at every tick through ``observe(signals)``, and asks it once to hold
    them weakly (``hold_signals_weakly()``: keep a weak view, so a finished simulation is freed).
    ``simcore.controllers.hub.SimulatedDevice`` has all three and charges its reads to the op mode as a
    hub read; subclass it and add the SDK methods the robot code calls.
    """

    def getDeviceName(self) -> str: ...

    def observe(self, signals: Any) -> None: ...

    def hold_signals_weakly(self) -> None: ...


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
    """A public member of ``obj`` spelt like ``name`` but not it, or None (a hint for a missing member)."""
    near = _near_names(obj, name)
    return near[0] if near else None


def _near_names(obj, name: str) -> list:
    names = [n for n in dir(obj) if not n.startswith("_") and n != name]
    near = difflib.get_close_matches(name, names, n=3, cutoff=_NEAR_MISS)
    near += [n for n in names if n.lower() == name.lower() and n not in near]
    return near


def _misspelling(obj, name: str, spec):
    """A member of ``obj`` that is most likely a typo of the protocol member ``name``, or None.

    Spelling alone is no evidence (``preset`` is spelt like ``reset``): the near miss
    must also be of the member's kind. For a method (``spec`` a function) it must be
    callable with the protocol's positional arguments; for an attribute (``spec``
    None) it must not be callable.
    """
    for near in _near_names(obj, name):
        try:
            member = getattr(obj, near)
        except Exception:  # a property that raises: not evidence of anything
            continue
        if spec is None:
            if not callable(member):
                return near
        elif callable(member) and _accepts(member, _n_positional(spec), unknown=False):
            return near
    return None


def _n_positional(fn) -> int:
    params = list(inspect.signature(fn).parameters.values())[1:]  # without self
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


def _signature_text(name: str, fn) -> str:
    params = list(inspect.signature(fn).parameters)[1:]
    return f"{name}({', '.join(params)})"


def _accepts(member, n: int, unknown: bool = True) -> bool:
    """Whether ``member`` can be called with ``n`` positional arguments (``unknown`` when it cannot be told)."""
    try:
        inspect.signature(member).bind(*([None] * n))
    except TypeError:
        return False
    except ValueError:  # a builtin without a signature
        return unknown
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
        Members it may lack (default: the protocol's optional members); where one
        is absent, a member that looks like a typo of it (spelt nearly the same and
        of the same kind) is still refused.

    Raises
    ------
    ProtocolError
        Naming the first missing member (and a near miss of its spelling, if any),
        or a method that cannot be called with the protocol's arguments.
    """
    optional = _OPTIONAL.get(protocol, ()) if optional is None else tuple(optional)
    own = tuple(sorted(getattr(obj, "__dict__", ())))
    problem = _problem(own, protocol, optional, obj)
    for name in set(own) & set(_callable_members(protocol)):  # methods set on the instance: never cached
        problem = problem or _method_problem(obj, name, _members(protocol)[name])
    if problem is not None:
        expected, member = problem
        raise ProtocolError(parameter, obj, f"{role or f'a {protocol.__name__}'} {expected}", member)
    return obj


def _callable_members(protocol) -> tuple:
    return tuple(n for n, spec in _members(protocol).items() if spec is not None)


_PROBLEMS: dict = {}


def _fingerprint(obj, names: tuple):
    """What a verdict on ``obj`` depends on, or None when it cannot be cached.

    The class, the names defined along its MRO (a member added or deleted in a
    notebook cell changes them), the identity of the members ``names`` the verdict
    is about (a method replaced in place), the instance's own attribute names. An
    instance with callables of its own is not cached: their signatures belong to the
    instance. The members are returned too and kept with the verdict, so no ``id``
    is reused while cached.
    """
    own = getattr(obj, "__dict__", {})
    if any(map(callable, own.values())):
        return None, ()
    cls = type(obj)
    members = tuple(getattr(cls, n, None) for n in names)
    key = (cls, tuple(sorted(own)), tuple(tuple(vars(c)) for c in cls.__mro__), tuple(map(id, members)))
    return key, members


def _cached(kind, names: tuple, obj, compute):
    """``compute()``, remembered for objects with the same :func:`_fingerprint`; failures are not kept."""
    key, members = _fingerprint(obj, names)
    if key is None:
        return compute()
    key = (kind, key)
    if key not in _PROBLEMS:
        verdict = compute()
        if verdict is not None:
            return verdict
        _PROBLEMS[key] = (verdict, members)
    return _PROBLEMS[key][0]


def _problem(own: tuple, protocol, optional: tuple, obj):
    """The first problem of ``obj`` with ``protocol``: ``(expected, member)`` or None.

    A simulation built in a sweep's loop pays for the signatures and the spelling
    search once per class (see :func:`_fingerprint`).
    """
    return _cached((protocol, optional), tuple(_members(protocol)), obj,
                   lambda: _find_problem(obj, set(own), protocol, optional))


def _find_problem(obj, own: set, protocol, optional: tuple):
    for name, spec in _members(protocol).items():
        what = name if spec is None else _signature_text(name, spec)
        if not hasattr(obj, name):
            if name in optional:
                near = _misspelling(obj, name, spec)
                if near is None:
                    continue
            else:
                near = _near_miss(obj, name)
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


def _shadowed_system_method(system):
    """``(misspelling, System method)`` when ``system`` leaves a System method as the default and has a
    member that looks like a typo of it (``event()`` for ``events()``), else None."""
    from .system import System

    names = ("outputs", "events", "initial_state", "initial_inputs", "initial_mode", "couplings")

    def find():
        cls = type(system)
        for name in names:
            if getattr(cls, name, None) is getattr(System, name):
                near = _misspelling(system, name, getattr(System, name))
                if near is not None and not hasattr(System, near):
                    return near, name
        return None

    return _cached("System", names, system, find)


def check_simulation(systems: Sequence, controllers: Sequence = ()) -> None:
    """Check the systems of a simulation against what the engine, the battery and the field view need.

    Called by :class:`simcore.Simulator` once its systems are known. Checks:

    * every system is a :class:`SimulatedSystem`; one with states defines
      ``derivatives`` (the base class's raises at the first step, too late), and no
      method of the base class is shadowed by a near miss (``derivative``, ``event``)
      while the real one is left as the default;
    * with a battery (a system whose ``feeds_bus`` is true), every other system with
      a ``bus_voltage`` input is a :class:`BusLoad`, and every system with a
      ``supply_current_at`` method has that input (else it would draw nothing), but for
      one whose ``own_supply`` is true (a servo on the hub's rail, not the battery's load);
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
            shadowed = _shadowed_system_method(s)
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
            elif callable(getattr(s, "supply_current_at", None)) and getattr(s, "own_supply", False) is not True:
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
        near = _misspelling(mechanism, "motor_type", None)
        if near is not None:
            raise ProtocolError(parameter, mechanism, f"{role} with motor_type (it has {near!r}: a misspelling?)",
                                "motor_type")


def loop_controller(controller, *, parameter: str = "controller") -> Callable:
    """The ``calculate(measurement, setpoint)`` of a :class:`LoopController`, or ``controller`` itself
    if it is a plain callable ``f(measurement, setpoint)``."""
    role = "a callable f(measurement, setpoint) or a controller"
    if hasattr(controller, "calculate") or not callable(controller):
        check(controller, LoopController, parameter=parameter, role=role)
        return controller.calculate
    if not _accepts(controller, 2):
        raise ProtocolError(parameter, controller, "a callable f(measurement, setpoint) (it cannot take two "
                                                   "arguments) or a controller with calculate(measurement, setpoint)",
                            "calculate")
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


def check_callable(fn, n_args: int, *, parameter: str, role: str) -> Callable:
    """Check ``fn`` can be called with ``n_args`` positional arguments; return it.

    For the callables a part calls later (a loop's feedforward ``ff(t, setpoint,
    signals)``, a setpoint function ``f(t)``): a wrong signature raises when the
    part is built, not as a bare TypeError at the first tick.

    Raises
    ------
    ProtocolError
        ``fn`` is not callable, or its signature cannot take ``n_args`` arguments.
    """
    if not callable(fn):
        raise ProtocolError(parameter, fn, f"{role} (it is not callable)", "__call__")
    if not _accepts(fn, n_args):
        raise ProtocolError(parameter, fn, f"{role} (it cannot take {n_args} positional argument(s))", "__call__")
    return fn
