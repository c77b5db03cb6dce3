"""The geared mechanisms and the battery for many parameter variants at once (``simcore.simulate_batch``).

Each class here is the physics of one model object (:class:`~simcore.models.Flywheel`,
:class:`~simcore.models.Arm`, :class:`~simcore.models.Elevator`, :class:`~simcore.models.Battery`)
written element-wise over ``N`` variants: states are ``(n_states, m)`` arrays, one column per
variant, and the discrete mode of each variant is an integer code into :attr:`MODES`. The
equations are those of :mod:`simcore.models.mechanism`, :mod:`simcore.models.drive` and
:mod:`simcore.models.battery`, branch for branch (a scalar ``if`` becomes a ``where``), so that
every variant follows exactly what its own model object would do in ``simulate``.

Parameters. Every value is read from the model object's public attributes; a batch parameter
replaces one attribute for each variant, and what the model derives from that attribute in
its constructor (the effective inertia with the rotors, the transmission ratio, the gravity
torque, the breakaway force) is derived again from the varied value. So are the two defaults
the constructor derives from other arguments: an arm built without ``moi`` gets each variant's
rod inertia ``m (2 d)^2 / 3`` from its varied ``mass`` or ``com_distance`` (as
``Arm(mass=m)`` would), and kinetic friction follows each variant's ``static_friction`` when the
model was built without ``kinetic_friction`` (its default, ``kinetic_friction_from_static``) and
``kinetic_friction`` is not varied itself; a ``kinetic_friction`` given to the constructor, even
one equal to the static friction, stays the model's in every variant.

=============  ===========================================================================
model          batch parameters
=============  ===========================================================================
Flywheel       ``moi``, ``gearing``, ``viscous_friction``, ``static_friction``, ``kinetic_friction``
Arm            ``mass``, ``com_distance``, ``moi``, ``gearing``, and the friction ones
Elevator       ``carriage_mass``, ``gearing``, and the friction ones
Battery        ``resistance``, ``open_circuit_voltage``
=============  ===========================================================================

A batched Battery takes ``brownout_behaviour="flag"`` only (the default): its bus flags a
brownout but never switches its loads off, so a battery built with ``"disable"`` raises,
naming itself, when the batch is built.

What a model needs to batch (the contract ``simcore.batch`` relies on): ``name``, the signal
names and units, ``MODES``, ``initial_state/inputs/mode``, ``derivatives``, ``outputs`` and
``events`` on ``(n, m)`` arrays with a mode-code array, ``take(idx)`` (the same physics for a
subset of the variants), and for a battery ``couplings``. Optional: ``prepare(u, mode, bus_held)``,
what ``derivatives(..., out=, pre=)`` needs from the held inputs and modes alone (the engine calls
it once per set of columns and passes it to every stage), and ``TIME_INVARIANT = True`` when the
derivatives never read the time (the engine then passes None). Everything uses only the array
namespace ``xp`` given at construction (numpy by default).
"""
from __future__ import annotations

import math

import numpy as np

from simcore.batch_params import variant_values
from simcore.errors import ConfigError, ConfigTypeError
from simcore.kernel.libm import sin as _libm_sin  # the C library's sin, as a serial run (numpy's SIMD sin may differ)

from .arm import Arm
from .battery import Battery
from .elevator import Elevator
from .flywheel import Flywheel
from .mechanism import _LINEAR_UNITS, _ROTARY_UNITS, BREAKAWAY_MARGIN, GearedMechanism

__all__ = ["BatchedMechanism", "BatchedBattery", "BatchEvent", "batched_system"]

_FRICTION = ("viscous_friction", "static_friction", "kinetic_friction")
_PARAMETERS = {Flywheel: ("moi", "gearing") + _FRICTION,
               Arm: ("mass", "com_distance", "moi", "gearing") + _FRICTION,
               Elevator: ("carriage_mass", "gearing") + _FRICTION}
_POSITIVE = {"moi", "gearing", "mass", "com_distance", "carriage_mass"}
_DEAD_BUS_PROBE = 1e-9  # as MotorDrive.electrical


def batched_system(system, params: dict, n: int, xp=np):
    """The batch physics of ``system`` for ``n`` variants; raises naming a system that cannot batch."""
    if isinstance(system, Battery) and type(system) is Battery:
        return BatchedBattery(system, params, n, xp)
    if isinstance(system, GearedMechanism) and type(system) in _PARAMETERS:
        return BatchedMechanism(system, params, n, xp)
    raise ConfigTypeError("systems", system, f"a system that can batch (Flywheel, Arm, Elevator, Battery); "
                                             f"{type(system).__name__} {system.name!r} cannot batch")


def _check_params(system, params: dict, allowed: tuple) -> None:
    for key in params:
        if key not in allowed:
            raise ConfigError(f"params[{system.name + '.' + key!r}]", key,
                              f"a batch parameter of {type(system).__name__} {system.name!r}: {', '.join(allowed)}")


def _values(system, params: dict, key: str, n: int, *, positive: bool = False, nonnegative: bool = False):
    """The ``n`` values of ``key``: the varied ones, or the model's attribute repeated."""
    if key not in params:
        owner = system.drive if key == "gearing" else system
        return np.full(n, float(getattr(owner, key)))
    label = f"params[{system.name + '.' + key!r}]"
    return variant_values(label, params[key], _parameter_unit(system, key), positive=positive, nonnegative=nonnegative)


def _arm_moi(arm, params: dict, mass, com, val):
    """The arm's inertia about its pivot per variant: the varied ``moi``, the arm's own, or, for an
    arm built without ``moi``, the rod inertia ``m (2 d)^2 / 3`` of each variant's mass and
    com_distance (what ``Arm(mass=m, com_distance=d)`` derives)."""
    if "moi" in params or not getattr(arm, "moi_from_rod", False) or not ("mass" in params or "com_distance" in params):
        return val("moi", positive=True)
    moi = mass * (2 * com) ** 2 / 3
    if not np.all(np.isfinite(moi) & (moi > 0)):
        j = int(np.flatnonzero(~(np.isfinite(moi) & (moi > 0)))[0])
        raise ConfigError(f"params[{arm.name + '.mass'!r}][{j}]", float(mass[j]),
                          f"a mass and com_distance whose rod inertia m (2 d)^2 / 3 is a positive finite number "
                          f"(variant {j})")
    return moi


def _parameter_unit(system, key: str) -> str:
    """The SI unit the serial constructor converts parameter ``key`` of ``system`` to."""
    if isinstance(system, Battery):
        return {"resistance": "ohm", "open_circuit_voltage": "V"}[key]
    u = _LINEAR_UNITS if system.linear else _ROTARY_UNITS
    return {"gearing": "", "moi": "kg*m**2", "mass": "kg", "carriage_mass": "kg", "com_distance": "m",
            "viscous_friction": u["viscous"], "static_friction": u["force"], "kinetic_friction": u["force"]}[key]


class BatchEvent:
    """One state event of a batched system: guard, direction, reset and mode switch over variants.

    ``active`` is a boolean per mode code: the modes in which the event is armed. ``guard(s, t, x,
    u, mode)`` returns one value per variant of the batched system ``s``; ``reset(s, ...)`` (or
    None) the new states; ``new_mode(s, ...)`` (or None: keep) the new mode codes. Two modes
    share an event (one identity, as the model's StateEvent objects) when one BatchEvent is
    active in both.
    """

    __slots__ = ("name", "direction", "active", "guard", "reset", "new_mode", "terminal", "reads_inputs", "linear")

    def __init__(self, name, direction, active, guard, reset=None, new_mode=None, terminal=False,
                 reads_inputs=True, linear=None):
        self.name, self.direction, self.active = name, direction, np.asarray(active, dtype=bool)
        self.guard, self.reset, self.new_mode, self.terminal = guard, reset, new_mode, terminal
        # False: the guard reads the state only, no input (no bus solve needed, and it cannot jump at a tick)
        self.reads_inputs = reads_inputs
        # (i, c) when the guard is exactly x[i] - c: the engine can then bound it over a step cheaply.
        self.linear = linear


class BatchedMechanism:
    """A Flywheel, Arm or Elevator for ``n`` variants (see the module docstring).

    Parameters
    ----------
    system : Flywheel, Arm or Elevator
        The model object whose attributes give every parameter not varied.
    params : mapping of str to array of shape (n,)
        Batch parameters by attribute name (``"mass"``, ``"gearing"``...).
    n : int
        Number of variants.
    xp : module
        Array namespace (numpy).
    """

    #: Mode codes, in the order of their integer values.
    MODES = ("moving", "forward", "reverse", "stuck", "lower_stop", "upper_stop")
    #: The derivatives do not read the time (the engine may pass None for it).
    TIME_INVARIANT = True
    MOVING, FORWARD, REVERSE, STUCK, LOWER, UPPER = range(6)

    def __init__(self, system, params: dict, n: int, xp=np):
        cls = type(system)
        _check_params(system, params, _PARAMETERS[cls])
        if system.track_energy:
            raise ConfigError("systems", system.name, f"a mechanism without track_energy ({cls.__name__} "
                                                      f"{system.name!r} tracks energy, which cannot batch)")
        self.system, self.xp, self.n = system, xp, n
        self.name = system.name
        self.state_names, self.input_names = system.state_names, system.input_names
        self.output_names, self.units, self.input_ranges = system.output_names, system.units, system.input_ranges
        d = system.drive
        self._R, self._Kt, self._Kv, self._eta = d.R, d.Kt, d.Kv, d.efficiency
        # The same constants as 0-d arrays for the right-hand side: a ufunc converts a Python float
        # operand on every call, which at a few columns costs more than the operation itself.
        self._Kv0, self._R0, self._Kt0 = (xp.asarray(float(c)) for c in (d.Kv, d.R, d.Kt))
        self._duty = d.command == "duty"
        self._ls, self._lp = d.stator_current_limit, d.supply_current_limit
        self.min_position, self.max_position = system.min_position, system.max_position
        val = lambda key, **kw: _values(system, params, key, n, **kw)  # noqa: E731
        gearing = val("gearing", positive=True)
        k = gearing / system.drum_radius if system.linear else gearing
        if cls is Arm:
            mass, com = val("mass", positive=True), val("com_distance", positive=True)
            load_mass = _arm_moi(system, params, mass, com, val)
            # the direction as a 0-d array, the operand the right-hand side subtracts the angle from
            self._load = ("gravity", mass * system.g * com, xp.asarray(float(system.gravity_direction)))
        elif cls is Elevator:
            carriage = val("carriage_mass", positive=True)
            load_mass = carriage + system.counterweight_mass
            self._load = ("constant", system.constant_force - (carriage - system.counterweight_mass) * system.g)
        else:
            load_mass = val("moi", positive=True)
            self._load = None
        static = val("static_friction", nonnegative=True)
        if ("kinetic_friction" in params or not system.kinetic_friction_from_static
                or system.kinetic_friction != system.static_friction):
            kinetic = val("kinetic_friction", nonnegative=True)
        else:
            kinetic = static
        shaft = None
        if "viscous_friction" not in params and system.viscous_friction_from_motors:
            if d.efficiency < 1.0:
                # As GearedMechanism: the motors' own friction acts on the rotors, before the lossy
                # gearbox (rotor torque per unit of mechanism speed), and none at the mechanism.
                shaft, b = system.rotor_viscous_friction * k, np.zeros(n)
            else:
                b = system.rotor_viscous_friction * k ** 2  # the motors' own friction, through each variant's gearing
        else:
            b = val("viscous_friction", nonnegative=True)
        directional = (static > 0) | (kinetic > 0) | (d.efficiency < 1.0)
        self._p = {
            "G": gearing, "k": k, "kG": k / gearing,
            "M": load_mass + d.n_motors * system.rotor_inertia * k ** 2,
            "b": b, "Fc": kinetic,
            "fb": np.maximum(static, kinetic) * (1.0 + BREAKAWAY_MARGIN) + np.where(directional, 1e-12, 0.0),
            "dir": directional,
        }
        if d.efficiency != 1.0:
            self._p["G_eta"] = gearing * d.efficiency
        self._has_shaft = shaft is not None
        if self._has_shaft:
            self._p["shaft"] = np.broadcast_to(shaft, (n,)).astype(float)
        # k / G for a rotary mechanism is G / G, exactly 1: multiplying by it changes nothing, so it is skipped.
        self._unit_kG = bool(np.all(self._p["kG"] == 1.0))
        if self._load is not None and not np.isscalar(self._load[1]):
            self._p["load"] = self._load[1]
        elif self._load is not None:
            self._p["load"] = np.full(n, float(self._load[1]))
        self._stack_parameters()
        self._any_dir = bool(directional.any())
        self.events = self._build_events()

    # -- subsets -----------------------------------------------------------------------------
    def _stack_parameters(self):
        # The per-variant values as rows of one array (and the direction flags as one bool row), so that a
        # subset of the variants is two gathers; self._p names the rows.
        names = [key for key in self._p if key != "dir"]
        self._names, self._values = names, np.stack([self._p[key] for key in names])
        self._dir = self._p["dir"]
        self._p = dict(zip(names, self._values))
        self._p["dir"] = self._dir

    #: The batch's parameter rows and the kernel parameter (simcore.kernel.geared's P_*) each one is.
    _KERNEL_SLOTS = (("G", "P_GEARING"), ("k", "P_K"), ("kG", "P_K_PER_GEARING"), ("M", "P_M"), ("b", "P_LOAD_VISCOUS"),
                     ("Fc", "P_KINETIC"), ("fb", "P_BREAKAWAY"), ("dir", "P_DIRECTIONAL"), ("shaft", "P_SHAFT_FRICTION"),
                     ("load", "P_LOAD_A"))

    def kernel_parameters(self, base):
        """The kernel's parameter vector (``base``, the model's ``kernel_form()``) of every variant, (n, n_p):
        the entries a batch parameter varies from this batch's derivation of them."""
        from simcore.kernel import geared

        P = np.tile(base, (self.n, 1))
        for key, slot in self._KERNEL_SLOTS:
            if key in self._p:
                column = np.broadcast_to(np.asarray(self._p[key], dtype=float), (self.n,))
                c = getattr(geared, slot)
                if not np.array_equal(column, P[:, c]):  # varied: the batch's value for each variant
                    P[:, c] = column
        return P

    def take(self, idx) -> "BatchedMechanism":
        """The same physics for the variants ``idx`` (an integer index array)."""
        new = object.__new__(BatchedMechanism)
        new.__dict__.update(self.__dict__)
        new._values, new._dir = self._values.take(idx, axis=1), self._dir.take(idx)
        new._p = dict(zip(self._names, new._values))
        new._p["dir"] = new._dir
        new.n = len(idx)
        # (a subset of variants none of which is directional has none; count_nonzero is one C call)
        new._any_dir = self._any_dir and np.count_nonzero(new._dir) != 0
        return new

    # -- initial values ------------------------------------------------------------------------
    def initial_state(self):
        x = np.asarray(self.system.initial_state(), dtype=float)
        return np.repeat(x[:, None], self.n, axis=1)

    def initial_inputs(self):
        u = np.asarray(self.system.initial_inputs(), dtype=float)
        return np.repeat(u[:, None], self.n, axis=1)

    def initial_mode(self, t, x, u):
        q, v = x[0], x[1]
        bad = (q < self.min_position) | (q > self.max_position)
        if np.any(bad):
            j = int(np.flatnonzero(bad)[0])
            raise ConfigError(f"{self.name} position (variant {j})", float(q[j]),
                              f"a value within the stops [{self.min_position}, {self.max_position}]")
        into = ((q <= self.min_position) & (v < 0)) | ((q >= self.max_position) & (v > 0))
        if np.any(into):  # as GearedMechanism.initial_mode refuses it
            j = int(np.flatnonzero(into)[0])
            upper = bool(q[j] >= self.max_position)
            units = self.units
            raise ConfigError(f"{self.name} velocity (variant {j})", float(v[j]),
                              f"no velocity into the hard stop it starts on (velocity {float(v[j])!r} "
                              f"{units['velocity']} at the {'upper' if upper else 'lower'} stop "
                              f"{self.max_position if upper else self.min_position!r} {units[self.state_names[0]]})")
        p, xp = self._p, self.xp
        moving_fwd = xp.where(p["dir"], self.FORWARD, self.MOVING)
        moving_rev = xp.where(p["dir"], self.REVERSE, self.MOVING)
        return xp.where(v > 0, moving_fwd, xp.where(v < 0, moving_rev, self._rest_mode(q, u)))

    # -- the drive (MotorDrive.electrical and output_torque_directed, element-wise) ------------------
    def _electrical(self, w, command, brake, bus):
        xp, R = self.xp, self._R
        emf = w / self._Kv
        vb = xp.maximum(bus, 0.0)
        neutral = command == 0.0
        v_req = command * vb if self._duty else command
        v = self._limited_voltage(v_req, emf, vb)
        saturated = xp.where((v_req > vb) | (v_req < -vb), 1.0, 0.0)
        limited = xp.where(v != xp.minimum(xp.maximum(v_req, -vb), vb), 1.0, 0.0)
        i = (v - emf) / R
        live = vb > 0.0
        if xp.all(live):
            duty = v / vb
        else:
            eps = _DEAD_BUS_PROBE
            probe = self._limited_voltage(command * eps if self._duty else v_req, emf, xp.full_like(vb, eps)) / eps
            duty = xp.where(live, v / xp.where(live, vb, 1.0), probe)
        isup = duty * i
        if not neutral.any():
            return v, i, isup, saturated, limited
        # Neutral: brake shorts the windings; coast conducts through the diodes only beyond the bus.
        braking = neutral & (brake >= 0.5)
        over, under = emf > vb, emf < -vb
        v_coast = xp.where(over, vb, xp.where(under, -vb, emf))
        i_coast = xp.where(over, (vb - emf) / R, xp.where(under, (-vb - emf) / R, 0.0))
        s_coast = xp.where(over, i_coast, xp.where(under, -i_coast, 0.0))
        va = xp.where(neutral, xp.where(braking, 0.0, v_coast), v)
        i = xp.where(neutral, xp.where(braking, -emf / R, i_coast), i)
        isup = xp.where(neutral, xp.where(braking, 0.0, s_coast), isup)
        return va, i, isup, xp.where(neutral, 0.0, saturated), xp.where(neutral, 0.0, limited)

    def _limited_voltage(self, v_req, emf, vb):
        """MotorDrive._limited_voltage element-wise: the request projected onto what the limits allow."""
        xp, R = self.xp, self._R
        lo, hi = -vb, vb
        if self._ls != math.inf:
            wlo, whi = emf - self._ls * R, emf + self._ls * R
            overlap = (wlo <= hi) & (whi >= lo)
            edge = xp.where(wlo > hi, hi, lo)
            lo, hi = xp.where(overlap, xp.maximum(lo, wlo), edge), xp.where(overlap, xp.minimum(hi, whi), edge)
        best = xp.minimum(xp.maximum(v_req, lo), hi)
        if self._lp == math.inf:
            return best
        c = self._lp * R * vb
        root = xp.sqrt(emf * emf + 4.0 * c)
        r1, r2 = (emf - root) / 2.0, (emf + root) / 2.0
        two = emf * emf > 4.0 * c
        gap = xp.sqrt(xp.where(two, emf * emf - 4.0 * c, 0.0))
        a1, b1 = r1, xp.where(two, (emf - gap) / 2.0, r2)
        a2, b2 = (emf + gap) / 2.0, r2
        a1, b1 = xp.maximum(a1, lo), xp.minimum(b1, hi)
        a2, b2 = xp.maximum(a2, lo), xp.minimum(b2, hi)
        ok1 = a1 <= b1
        ok2 = two & (a2 <= b2)
        p1 = xp.minimum(xp.maximum(v_req, a1), b1)
        p2 = xp.minimum(xp.maximum(v_req, a2), b2)
        # The first interval wins ties, as the scalar loop's strict comparison.
        pick2 = ok2 & (~ok1 | (xp.abs(p2 - v_req) < xp.abs(p1 - v_req)))
        supply = xp.where(pick2, p2, p1)
        return xp.where((vb > 0.0) & (ok1 | ok2), supply, best)

    def _torque_at_load(self, tm, direction):
        """Drive force at the mechanism coordinate from motor torque ``tm`` for motion in ``direction``."""
        p, eta = self._p, self._eta
        if eta == 1.0:
            out = p["G"] * tm
        else:
            out = self.xp.where(tm * direction >= 0.0, p["G_eta"] * tm, p["G"] * tm / eta)
        return out if self._unit_kG else out * p["kG"]

    def _load_force(self, q):
        if self._load is None:
            return 0.0
        if self._load[0] == "gravity":
            return _libm_sin(self._load[2] - q) * self._p["load"]  # the C library's sin, as serially
        return self._p["load"]

    def _applied_force(self, q, u, direction):
        w = self.xp.zeros_like(q)
        _, i, _, _, _ = self._electrical(w, u[0], u[1], u[2])
        return self._torque_at_load(self._Kt * i, direction) + self._load_force(q)

    def _direction(self, mode):
        xp = self.xp
        return xp.where(mode == self.FORWARD, 1.0, xp.where(mode == self.REVERSE, -1.0, 0.0))

    # -- System interface on arrays --------------------------------------------------------------
    def _stator_current(self, w, command, brake, bus):
        """The stator current of :meth:`_electrical` alone (what the right-hand side needs)."""
        xp, R = self.xp, self._R
        emf = w / self._Kv
        vb = xp.maximum(bus, 0.0)
        v_req = command * vb if self._duty else command
        i = (self._limited_voltage(v_req, emf, vb) - emf) / R
        neutral = command == 0.0
        if not neutral.any():
            return i
        coast = xp.where(emf > vb, (vb - emf) / R, xp.where(emf < -vb, (-vb - emf) / R, 0.0))
        return xp.where(neutral, xp.where(brake >= 0.5, -emf / R, coast), i)

    def outputs(self, t, x, u, mode):
        xp, p = self.xp, self._p
        q = x[0]
        resting = mode >= self.STUCK
        v = xp.where(resting, 0.0, x[1])
        direction = self._direction(mode)
        va, i, isup, sat, lim = self._electrical(p["k"] * v, u[0], u[1], u[2])
        tm = self._Kt * i
        f = self._torque_at_load(tm - p["shaft"] * v if self._has_shaft else tm, direction)
        a = xp.where(resting, 0.0, (f + self._load_force(q) - (p["b"] * v + p["Fc"] * direction)) / p["M"])
        torque = f * self.system.drum_radius if self.system.linear else f
        return xp.stack([a, p["k"] * q, p["k"] * x[1], p["k"] * a, i, isup, va, u[2], torque, tm,
                         sat, lim])

    def supply_current_at(self, x, u, bus_voltage, mode):
        """Supply current, A, at bus voltage ``bus_voltage`` (the battery's coupling calls this)."""
        v = self.xp.where(mode >= self.STUCK, 0.0, x[1])
        return self._electrical(self._p["k"] * v, u[0], u[1], bus_voltage)[2]

    # -- modes and events ----------------------------------------------------------------------
    def _rest_mode(self, q, u):
        """GearedMechanism._rest_mode element-wise."""
        xp, p = self.xp, self._p
        fb = p["fb"]
        f_fwd = self._applied_force(q, u, 1.0)
        f_rev = self._applied_force(q, u, -1.0) if self._eta < 1.0 else f_fwd
        free = xp.where(p["dir"], xp.where(f_fwd > fb, self.FORWARD, xp.where(f_rev < -fb, self.REVERSE,
                                                                            self.STUCK)), self.MOVING)
        upper = (q >= self.max_position) & (f_rev >= -fb)
        lower = (q <= self.min_position) & (f_fwd <= fb)
        return xp.where(lower, self.LOWER, xp.where(upper, self.UPPER, free))

    def _build_events(self):
        """The events of every mode; each function takes the batched system it runs on first
        (a subset of the variants has its own), so one set serves every subset."""
        M = self.MODES
        moving_modes = [m in ("moving", "forward", "reverse") for m in M]
        xp = self.xp

        def to_rest(s, t, x, u, mode):
            return s._rest_mode(x[0], u)

        def impact(stop):
            def reset(s, t, x, u, mode):
                return xp.stack([xp.full_like(x[0], stop), xp.zeros_like(x[1])])
            return reset

        def halt(s, t, x, u, mode):
            return xp.stack([x[0], xp.zeros_like(x[1])])

        def fwd_push(s, t, x, u, mode):
            return s._applied_force(x[0], u, 1.0) - s._p["fb"]

        def back_push(s, t, x, u, mode):
            return -s._applied_force(x[0], u, -1.0) - s._p["fb"]

        def leave(forward):
            return lambda s, t, x, u, mode: xp.where(s._p["dir"], s.FORWARD if forward else s.REVERSE, s.MOVING)

        def to(code):
            return lambda s, t, x, u, mode: xp.full_like(mode, code)

        only = lambda *names: [m in names for m in M]  # noqa: E731
        lo, hi = self.min_position, self.max_position
        events = []
        if lo > -math.inf:
            events.append(BatchEvent("lower_stop", -1, moving_modes, lambda s, t, x, u, mode: x[0] - lo,
                                     impact(lo), to_rest, reads_inputs=False, linear=(0, lo)))
        if hi < math.inf:
            events.append(BatchEvent("upper_stop", +1, moving_modes, lambda s, t, x, u, mode: x[0] - hi,
                                     impact(hi), to_rest, reads_inputs=False, linear=(0, hi)))
        events += [
            BatchEvent("velocity_zero", -1, only("forward"), lambda s, t, x, u, mode: x[1] - 0.0, halt, to_rest,
                       reads_inputs=False, linear=(1, 0.0)),
            BatchEvent("velocity_zero", +1, only("reverse"), lambda s, t, x, u, mode: x[1] - 0.0, halt, to_rest,
                       reads_inputs=False, linear=(1, 0.0)),
            BatchEvent("breakaway_forward", +1, only("stuck"), fwd_push, new_mode=to(self.FORWARD)),
            BatchEvent("breakaway_reverse", +1, only("stuck"), back_push, new_mode=to(self.REVERSE)),
            BatchEvent("leave_lower_stop", +1, only("lower_stop"), fwd_push, new_mode=leave(True)),
            BatchEvent("leave_upper_stop", +1, only("upper_stop"), back_push, new_mode=leave(False)),
        ]
        return tuple(events)

    def couplings(self, systems):
        return []


class BatchedBattery:
    """A Battery for ``n`` variants: the bus voltage solved per variant inside every evaluation."""

    MODES = (None,)
    TIME_INVARIANT = True  # neither the derivatives nor the bus solve read the time

    def __init__(self, system, params: dict, n: int, xp=np):
        _check_params(system, params, ("resistance", "open_circuit_voltage"))
        self.system, self.xp, self.n, self.name = system, xp, n, system.name
        self.state_names, self.input_names = system.state_names, system.input_names
        self.output_names, self.units, self.input_ranges = system.output_names, system.units, system.input_ranges
        self._p = {"voc": _values(system, params, "open_circuit_voltage", n, positive=True),
                   "r": _values(system, params, "resistance", n, nonnegative=True)}
        bad = ~(self._p["voc"] > system.brownout_voltage)
        if np.any(bad):
            raise ConfigError(f"params[{self.name + '.open_circuit_voltage'!r}]", self._p["voc"][bad][0],
                              f"voltages above brownout_voltage={system.brownout_voltage}")
        self.events = ()

    def take(self, idx) -> "BatchedBattery":
        new = object.__new__(BatchedBattery)
        new.__dict__.update(self.__dict__)
        new._p = {key: v.take(idx) for key, v in self._p.items()}
        new.n = len(idx)
        return new

    def initial_state(self):
        return np.zeros((0, self.n))

    def initial_inputs(self):
        return np.stack([self._p["voc"].copy(), np.zeros(self.n)])

    def initial_mode(self, t, x, u):
        return np.zeros(self.n, dtype=np.int8)

    def derivatives(self, t, x, u, mode):
        return self.xp.zeros((0, u.shape[1]))

    def outputs(self, t, x, u, mode):
        return self.xp.stack([u[0], u[1], self.xp.where(u[0] < self.system.brownout_voltage, 1.0, 0.0)])

    def couplings(self, systems):
        consumers = [k for k, s in enumerate(systems)
                     if s is not self and "bus_voltage" in s.input_names and hasattr(s, "supply_current_at")]
        me = next(k for k, s in enumerate(systems) if s is self)
        return [_BatchedBus(me, consumers, systems)]


class _BatchedBus:
    """The battery's bus solve (models.battery._BusCoupling) element-wise over variants."""

    def __init__(self, index, consumers, systems):
        self.index = index
        self.consumers = [(k, systems[k].input_names.index("bus_voltage")) for k in consumers]
        self.targets = [f"{systems[k].name}.bus_voltage" for k in consumers] + \
                       [f"{systems[index].name}.bus_voltage", f"{systems[index].name}.load_current"]

    def apply(self, t, systems, xs, us, modes):
        """Write the bus voltage into every consumer's input and the battery's (in place in ``us``)."""
        battery = systems[self.index]
        xp = battery.xp
        voc, r = battery._p["voc"], battery._p["r"]

        def total(v):
            out = 0.0
            for k, _ in self.consumers:
                out = out + systems[k].supply_current_at(xs[k], us[k], v, modes[k])
            return out

        def phi(v):
            return v - voc + r * total(v)

        if not self.consumers:
            v, collapsed = voc, xp.zeros(voc.shape, dtype=bool)
        else:
            f0 = phi(voc)
            p = voc * (f0 / xp.where(r == 0.0, 1.0, r))
            disc = voc * voc - 4.0 * r * p
            v1 = xp.where(disc >= 0, 0.5 * (voc + xp.sqrt(xp.maximum(disc, 0.0))), 0.5 * voc)
            b, ok = self._secant(phi, voc, f0, v1, voc)
            trivial = (r == 0.0) | (f0 == 0.0)
            ok = ok | trivial
            b = xp.where(trivial, voc, b)
            collapsed = xp.zeros(voc.shape, dtype=bool)
            if not xp.all(ok):
                b, collapsed = self._fallback(phi, voc, b, ok)
            v = b
        for k, i in self.consumers:
            us[k][i] = v
        ub = us[self.index]
        ub[0] = v
        ub[1] = xp.where(collapsed, voc / xp.where(r == 0.0, 1.0, r), total(v))

    @staticmethod
    def _secant(phi, a, fa, b, voc):
        """The scalar secant of _BusCoupling._secant, each variant stopping on its own test."""
        xp = np
        fb = phi(b)
        tol = 1e-13 * voc
        running = np.ones(b.shape, dtype=bool)
        for _ in range(30):
            running = running & ~((xp.abs(fb) <= tol) | (fb == fa))
            if not running.any():
                break
            with np.errstate(divide="ignore", invalid="ignore"):
                c = b - fb * (b - a) / (fb - fa)
            fc = phi(xp.where(running, c, b))
            a, fa = xp.where(running, b, a), xp.where(running, fb, fa)
            b, fb = xp.where(running, c, b), xp.where(running, fc, fb)
        # Still running: updated on the scalar loop's 30th pass and never tested again, which it counts as failed.
        failed = running
        ok = ~failed & xp.isfinite(b) & (xp.abs(fb) <= 10 * tol) & (b >= 0)
        return b, ok

    @staticmethod
    def _fallback(phi, voc, b, ok):
        """The largest root by a downward grid walk and bisection (the scalar fallback), for the variants
        whose secant failed; a bus with no root on [0, V_oc...] collapses to 0 V."""
        xp = np
        hi = voc.copy()
        grow = ~ok & (phi(hi) < 0)
        while grow.any():
            hi = xp.where(grow, hi * 2.0, hi)
            if np.any(hi[grow] > 1e6 * voc[grow]):
                raise ConfigError("battery", voc[grow][0], "a bus voltage the consumers' currents allow (none found)")
            grow = grow & (phi(hi) < 0)
        found = ok.copy()
        lower_b, upper_b = xp.zeros_like(hi), hi.copy()
        upper = hi.copy()
        step = -hi / 256.0  # numpy.linspace(hi, 0, 257), as the scalar walk
        for j in range(1, 257):
            lower = hi + j * step if j < 256 else xp.zeros_like(hi)
            neg = ~found & (phi(lower) < 0.0)
            lower_b, upper_b = xp.where(neg, lower, lower_b), xp.where(neg, upper, upper_b)
            found = found | neg
            upper = lower
        bracketed = found & ~ok
        root = _brentq(phi, lower_b, upper_b, bracketed, xtol=1e-14, rtol=4 * np.finfo(float).eps)
        collapsed = ~found
        out = xp.where(ok, b, xp.where(bracketed, root, 0.0))
        return out, collapsed


def _brentq(phi, xa, xb, active, *, xtol, rtol, maxiter=100):
    """scipy's ``brentq(phi, xa, xb, xtol, rtol)`` for every column of ``active`` at once, each column
    taking the iterates, the steps and the stopping test scipy's scalar Brent takes for it alone,
    so that a batch's bus voltage is the serial fallback's to the last bit.

    Scipy's C routine keeps a bracket ``[xcur, xblk]`` with ``|f(xcur)| <= |f(xblk)|`` and
    tries inverse interpolation (linear when only two points are known, else inverse quadratic),
    accepting the step only when it is short enough, else bisecting; it stops when
    ``f(xcur) == 0`` or half the bracket is below ``(xtol + rtol |xcur|) / 2``. Columns not
    ``active`` are evaluated but ignored. A column that does not converge in ``maxiter`` steps
    returns its last iterate.
    """
    xp = np
    xpre, xcur = xa.copy(), xb.copy()
    with np.errstate(all="ignore"):
        fpre, fcur = phi(xpre), phi(xcur)
    root = xp.where(fpre == 0, xpre, xcur)
    run = active & (fpre != 0) & (fcur != 0)
    zero = xp.zeros_like(xcur)
    xblk, fblk, spre, scur = zero, zero, zero, zero
    for _ in range(maxiter):
        if not run.any():
            break
        with np.errstate(all="ignore"):
            opposite = (fpre != 0) & (fcur != 0) & (xp.signbit(fpre) != xp.signbit(fcur))
            xblk, fblk = xp.where(opposite, xpre, xblk), xp.where(opposite, fpre, fblk)
            spre = scur = xp.where(opposite, xcur - xpre, scur)
            swap = xp.abs(fblk) < xp.abs(fcur)
            xpre, xcur, xblk = xp.where(swap, xcur, xpre), xp.where(swap, xblk, xcur), xp.where(swap, xcur, xblk)
            fpre, fcur, fblk = xp.where(swap, fcur, fpre), xp.where(swap, fblk, fcur), xp.where(swap, fcur, fblk)
            delta = (xtol + rtol * xp.abs(xcur)) / 2
            sbis = (xblk - xcur) / 2
            done = run & ((fcur == 0) | (xp.abs(sbis) < delta))
            root = xp.where(done, xcur, root)
            run = run & ~done
            if not run.any():
                break
            interpolate = -fcur * (xcur - xpre) / (fcur - fpre)
            dpre, dblk = (fpre - fcur) / (xpre - xcur), (fblk - fcur) / (xblk - xcur)
            extrapolate = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            stry = xp.where(xpre == xblk, interpolate, extrapolate)
            a, b = xp.abs(spre), 3 * xp.abs(sbis) - delta
            short = (xp.abs(spre) > delta) & (xp.abs(fcur) < xp.abs(fpre)) & (2 * xp.abs(stry) < xp.where(a < b, a, b))
            spre, scur = xp.where(short, scur, sbis), xp.where(short, stry, sbis)
            xpre, fpre = xcur, fcur
            xcur = xp.where(xp.abs(scur) > delta, xcur + scur, xcur + xp.where(sbis > 0, delta, -delta))
            xcur = xp.where(run, xcur, xpre)  # finished columns stay put (their root is kept above)
            fcur = phi(xcur)
    return xp.where(run, xcur, root)
