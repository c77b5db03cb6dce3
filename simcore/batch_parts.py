"""The built-in parts of a batch for its ``N`` variants: each variant's kernel parameters, and what the
ticks and the recorder evaluate with them.

A :class:`PartVariants` stands for one model object (a :class:`~simcore.models.GearedMechanism`: a
Flywheel, Arm, Elevator or HubMotor) in :func:`simcore.simulate_batch`, a :class:`BatteryVariants` for
a :class:`~simcore.models.Battery` (its bus solved, per variant and row, by the kernel's
:func:`~simcore.kernel.parts.couple`, as in the run itself). Its variants' parameters come
from the model's own derivation (:meth:`~simcore.models.GearedMechanism.kernel_parameters`, which the
constructor uses too), and everything evaluated on them comes from the compiled kernel's functions
that a serial run uses: the initial modes, the outputs (currents, voltages, torques) at the rows the
recorder keeps and at the ticks the controllers read. The states, inputs and modes it is given are
arrays with a variant axis last (``x`` (n_states, m), ``u`` (n_inputs, m), ``mode`` (m,)), for ``m`` of
the variants (:meth:`take` selects them).

numba is imported here: this module is imported only when a batch runs.
"""
from __future__ import annotations

import numpy as np

from .errors import ConfigError
from .kernel import layout as kl
from .kernel import parts as kp

__all__ = ["PartVariants", "BatteryVariants", "DrivetrainVariants", "TankVariants", "MecanumVariants",
           "SwerveVariants", "EventKind", "variants_of"]


class EventKind:
    """One event of a part, as the batch names it: ``name``, the modes it is armed in (``active``, a bool per
    mode code), whether its guard reads the held inputs (``reads_inputs``: then a tick's writes can
    trigger it), and its kernel id."""

    __slots__ = ("name", "active", "reads_inputs", "kernel_id")

    def __init__(self, name, active, reads_inputs, kernel_id):
        self.name, self.active, self.reads_inputs, self.kernel_id = name, active, reads_inputs, kernel_id


def event_kinds(model, kind, p, n_modes) -> tuple:
    """The events of ``model`` (its ``kernel_events``), each with the modes the kernel arms it in (a part of
    ``kind`` with parameters ``p`` and ``n_modes`` modes) and whether its guard reads the held inputs."""
    ids = np.empty(kl.MAX_ACTIVE, dtype=np.int64)
    armed = {i: np.zeros(n_modes, dtype=bool) for i in model.kernel_events}
    for code in range(n_modes):  # (a drive in walls has some 23,000 modes: the flags filled in place)
        for i in kp.active_events_of(kind, p, code, ids):
            if int(i) in armed:
                armed[int(i)][code] = True
    return tuple(EventKind(model.kernel_events[i].name, armed[i],
                           model.kernel_events[i].kernel_guard in kl.GUARDS_READING_INPUTS, i)
                 for i in sorted(model.kernel_events))


class _Variants:
    """What every built-in part of a batch holds: its model's names and units, its kernel kind and mode
    names, and each variant's kernel parameters ``P`` (n, n_p) from the model's ``kernel_parameters``."""

    def __init__(self, model, form, params, n):
        self.model, self.n = model, n
        self.kind, _, self.MODES = form
        self.name = model.name
        self.state_names, self.input_names = model.state_names, model.input_names
        self.output_names, self.units, self.input_ranges = model.output_names, model.units, model.input_ranges
        self.P = np.ascontiguousarray(model.kernel_parameters(params or None, n))

    def take(self, idx):
        """The same part for the variants ``idx`` (indices into this one's)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.P = np.ascontiguousarray(self.P.take(idx, axis=0))
        new.n = len(idx)
        return new


class PartVariants(_Variants):
    """A built-in part for ``n`` variants (see the module docstring).

    Parameters
    ----------
    model : GearedMechanism
        The model object: names, units, input ranges, start values, its parameters not varied.
    form : tuple
        Its ``kernel_form()``.
    params : mapping
        The batch's parameters of this part (name -> ``n`` values), as ``kernel_parameters`` takes them.
    n : int
        Number of variants.
    """

    def __init__(self, model, form, params, n):
        super().__init__(model, form, params, n)
        self.min_position, self.max_position = model.min_position, model.max_position
        self.events = event_kinds(model, self.kind, self.P[0], len(self.MODES))
        self._table = kp.table_of([[self.kind, 0, len(self.state_names), 0, 0]])
        self._y_offsets = kp.output_offsets([self.kind])

    def couplings(self, systems) -> list:
        return []

    # -- start -----------------------------------------------------------------------------------------------
    def initial_state(self) -> np.ndarray:
        return np.repeat(np.asarray(self.model.initial_state(), dtype=float)[:, None], self.n, axis=1)

    def initial_inputs(self) -> list:
        return [np.full(self.n, float(v)) for v in self.model.initial_inputs()]

    def initial_mode(self, t, x, u) -> np.ndarray:
        """Each variant's mode code at the start, as its own model's ``initial_mode`` (which refuses a start
        outside the stops or moving into one, naming the variant here)."""
        q, v = x[0], x[1]
        bad = (q < self.min_position) | (q > self.max_position)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise ConfigError(f"{self.name} position (variant {j})", float(q[j]),
                              f"a value within the stops [{self.min_position}, {self.max_position}]")
        into = ((q <= self.min_position) & (v < 0)) | ((q >= self.max_position) & (v > 0))
        if into.any():
            j = int(np.flatnonzero(into)[0])
            upper = bool(q[j] >= self.max_position)
            units = self.units
            raise ConfigError(f"{self.name} velocity (variant {j})", float(v[j]),
                              f"no velocity into the hard stop it starts on (velocity {float(v[j])!r} "
                              f"{units['velocity']} at the {'upper' if upper else 'lower'} stop "
                              f"{self.max_position if upper else self.min_position!r} {units[self.state_names[0]]})")
        out = np.empty((self.n, 1), dtype=np.int64)
        kp.initial_modes(self._table, self.P, np.ascontiguousarray(u.T), np.ascontiguousarray(x.T), out)
        return out[:, 0].astype(np.int16)

    # -- outputs -----------------------------------------------------------------------------------------------
    def outputs(self, t, x, u, mode) -> np.ndarray:
        """Every output of each variant at ``(t, x, u, mode)``, (n_outputs, m) (the kernel's outputs, as the
        model's ``outputs`` gives them)."""
        m = x.shape[1]
        out = np.empty((m, self._y_offsets[-1]))
        kp.outputs_of_rows(self._table, self.P, np.ascontiguousarray(u.T, dtype=float),
                           np.ascontiguousarray(np.asarray(mode, dtype=np.int64)[:, None]),
                           np.ascontiguousarray(np.broadcast_to(t, (m,)), dtype=float),
                           np.ascontiguousarray(x.T, dtype=float), self._y_offsets, out)
        return out.T


class BatteryVariants(_Variants):
    """A :class:`~simcore.models.Battery` for ``n`` variants: its bus voltage and current are inputs the
    kernel's bus solve writes (:class:`KernelBus`), its outputs read them. With
    ``brownout_behaviour="disable"`` its modes are the kernel's (normal, browned out) and its events the
    kernel's brownout and recovery (:mod:`simcore.kernel.battery`)."""

    def __init__(self, model, form, params, n):
        from .kernel import battery as kb

        super().__init__(model, form, params, n)
        self.disables = model.brownout_behaviour == "disable"
        #: The run's start, s (the batch sets it): when the outputs of a variant browned out there went off.
        self.start_time = np.nan
        self.events = tuple(
            EventKind(model.kernel_events[i].name, np.array([i == (kb.EV_BROWNOUT if m == kb.MODE_NORMAL
                                                                   else kb.EV_RECOVERY) for m in range(2)]), True, i)
            for i in sorted(model.kernel_events)) if self.disables else ()

    def couplings(self, systems) -> list:
        return [KernelBus(systems)]

    def initial_state(self) -> np.ndarray:
        return np.zeros((0, self.n))

    def initial_inputs(self) -> list:
        from .kernel import battery as kb

        return [self.P[:, kb.P_VOC].copy(), np.zeros(self.n)]

    def initial_mode(self, t, x, u) -> np.ndarray:
        """Normal; with ``"disable"``, browned out where the bus starts below the threshold (as the model's)."""
        from .kernel import battery as kb

        if not self.disables:
            return np.zeros(self.n, dtype=np.int16)
        return np.where(u[0] < self.P[:, kb.P_BROWNOUT], kb.MODE_BROWNED_OUT, kb.MODE_NORMAL).astype(np.int16)

    def outputs(self, t, x, u, mode) -> np.ndarray:
        """Bus voltage V, current A, and the brownout flag (the bus below the threshold; with ``"disable"``,
        the outputs off), per variant."""
        from .kernel import battery as kb

        if self.disables:
            flag = np.where(np.asarray(mode) == kb.MODE_BROWNED_OUT, 1.0, 0.0)
        else:
            flag = np.where(u[0] < self.P[:, kb.P_BROWNOUT], 1.0, 0.0)
        return np.stack([u[0], u[1], flag])

    def mode_names(self, codes, events, switches):
        """The model's mode names of one variant's rows (mode codes ``codes``) and of its battery events
        (``events``: EventRecords in time order, their modes as codes; renamed in place): browned out is
        ``("browned_out", t_off)``, ``t_off`` when the outputs went off: the run's start, then as each
        event sets it from the row after it on (``switches``: (row index, t_off or NaN), in order)."""
        from .kernel import battery as kb

        if not self.disables:
            return [self.MODES[c] for c in codes]
        t_off = np.full(len(codes), self.start_time)
        for row, off in switches:
            t_off[row:] = off
        last = self.start_time
        for e in events:
            before = last
            if e.mode_after == kb.MODE_BROWNED_OUT:
                last = e.t
            e.mode_before = self._name(e.mode_before, before)
            e.mode_after = self._name(e.mode_after, last)
        return [self._name(c, o) for c, o in zip(codes, t_off.tolist())]

    def _name(self, code, t_off):
        name = self.MODES[int(code)]
        from .kernel.battery import MODE_BROWNED_OUT

        return (name, float(t_off)) if int(code) == MODE_BROWNED_OUT else name


class KernelBus:
    """The battery's bus over columns of the batch (the kernel's :func:`~simcore.kernel.parts.couple_rows`):
    each geared part's ``bus_voltage`` and the battery's inputs, solved from the columns' states, held
    inputs and modes."""

    def __init__(self, systems):
        self.targets = []
        rows, u_off, p_off, x_off = [], 0, 0, 0
        for s in systems:
            nx, nu = len(s.state_names), len(s.input_names)
            rows.append([s.kind, x_off, nx, u_off, p_off])
            if s.kind in (kp.KIND_GEARED, kp.KIND_TANK, kp.KIND_MECANUM, kp.KIND_SWERVE):
                self.targets.append(f"{s.name}.bus_voltage")
            elif s.kind == kp.KIND_BATTERY:
                self.targets += [f"{s.name}.{name}" for name in s.input_names]
            x_off, u_off, p_off = x_off + nx, u_off + nu, p_off + s.P.shape[1]
        self.table = kp.table_of(rows)
        disabling = any(s.kind == kp.KIND_BATTERY and s.disables for s in systems)
        self.run_state = kp.brownout_slots(len(systems)) if disabling else 0

    def apply(self, t, systems, xs, us, modes) -> None:
        m = us[0].shape[1] if us else 0
        P = np.ascontiguousarray(np.concatenate([s.P for s in systems], axis=1))
        U = np.ascontiguousarray(np.concatenate(us, axis=0).T)
        X = np.ascontiguousarray(np.concatenate(xs, axis=0).T) if xs else np.zeros((m, 0))
        M = np.ascontiguousarray(np.stack([np.asarray(mo, dtype=np.int64) for mo in modes], axis=1))
        if self.run_state:  # a disabling battery's: nothing held back (each row's held inputs are as written)
            U = np.ascontiguousarray(np.concatenate([U, np.full((m, self.run_state), np.nan)], axis=1))
        kp.couple_rows(self.table, P, U, M, np.ascontiguousarray(np.broadcast_to(t, (m,)), dtype=float), X)
        off = 0
        for k, s in enumerate(systems):
            nu = len(s.input_names)
            us[k][...] = U[:, off:off + nu].T
            off += nu


class DrivetrainVariants(_Variants):
    """A drivetrain without modes or events (a :class:`~simcore.models.CharacterizedTankDrive`) for ``n``
    variants: its start values the model's, its outputs the kernel's (as :class:`PartVariants`')."""

    events = ()

    def __init__(self, model, form, params, n):
        super().__init__(model, form, params, n)
        self._table = kp.table_of([[self.kind, 0, len(self.state_names), 0, 0]])
        self._y_offsets = kp.output_offsets([self.kind])

    def couplings(self, systems) -> list:
        return []

    def initial_mode(self, t, x, u) -> np.ndarray:
        return np.zeros(self.n, dtype=np.int16)

    initial_state = PartVariants.initial_state
    initial_inputs = PartVariants.initial_inputs
    outputs = PartVariants.outputs


class TankVariants(DrivetrainVariants):
    """A :class:`~simcore.models.TankDrive` for ``n`` variants: its traction modes and events (breakaway, grip)
    as the kernel arms them, its initial modes and outputs the kernel's (as its own model's)."""

    def __init__(self, model, form, params, n):
        super().__init__(model, form, params, n)
        self.events = event_kinds(model, self.kind, self.P[0], len(self.MODES))
        # the kernel's output slots (as many as its axles need) that this drive has (without a traction limit,
        # two of the first four are not)
        from .kernel.tank_layout import n_tank_outputs

        n_out = n_tank_outputs(len(model.axle_x) if model.scrub else 0)
        self._y_offsets = np.array([0, n_out], dtype=np.int64)
        self._slots = np.arange(n_out) if model.traction else np.r_[0:2, 4:n_out]

    def initial_mode(self, t, x, u) -> np.ndarray:
        """Each variant's traction modes at the start, settled as its own model's ``initial_mode`` settles them."""
        out = np.empty((self.n, 1), dtype=np.int64)
        kp.initial_modes(self._table, self.P, np.ascontiguousarray(u.T, dtype=float),
                         np.ascontiguousarray(x.T, dtype=float), out)
        return out[:, 0].astype(np.int16)

    def outputs(self, t, x, u, mode) -> np.ndarray:
        return PartVariants.outputs(self, t, x, u, mode)[self._slots]


class MecanumVariants(DrivetrainVariants):
    """A :class:`~simcore.models.MecanumDrive` for ``n`` variants: its rollers' traction modes and events
    (breakaway, grip) as the kernel arms them, its initial modes and outputs the kernel's (as its own model's)."""

    def __init__(self, model, form, params, n):
        super().__init__(model, form, params, n)
        self.events = event_kinds(model, self.kind, self.P[0], len(self.MODES))
        from .kernel.mecanum_layout import n_mecanum_outputs

        self._y_offsets = np.array([0, n_mecanum_outputs(len(model.odometry_pods), bool(model.chassis.walls))],
                                     dtype=np.int64)

    initial_mode = TankVariants.initial_mode


class SwerveVariants(DrivetrainVariants):
    """A :class:`~simcore.models.SwerveDrive` for ``n`` variants: its tyres' traction modes and events (breakaway,
    grip) as the kernel arms them, its initial modes and outputs the kernel's (as its own model's)."""

    def __init__(self, model, form, params, n):
        super().__init__(model, form, params, n)
        self.events = event_kinds(model, self.kind, self.P[0], len(self.MODES))
        from .kernel.swerve_layout import n_swerve_outputs

        self._y_offsets = np.array([0, n_swerve_outputs(bool(model.chassis.walls))], dtype=np.int64)

    initial_mode = TankVariants.initial_mode


def variants_of(model, form, params, n):
    """The batch's part for ``model`` (its kernel form ``form``): a :class:`BatteryVariants`, a
    :class:`TankVariants`, a :class:`MecanumVariants`, a :class:`SwerveVariants`, a :class:`DrivetrainVariants` or a
    :class:`PartVariants`."""
    if form[0] == kp.KIND_BATTERY:
        return BatteryVariants(model, form, params, n)
    if form[0] == kp.KIND_TANK:
        return TankVariants(model, form, params, n)
    if form[0] == kp.KIND_MECANUM:
        return MecanumVariants(model, form, params, n)
    if form[0] == kp.KIND_SWERVE:
        return SwerveVariants(model, form, params, n)
    if form[0] == kp.KIND_CHARACTERIZED_TANK:
        return DrivetrainVariants(model, form, params, n)
    return PartVariants(model, form, params, n)

