"""A :func:`~simcore.controllers.control_loop` for many parameter variants at once (``simcore.simulate_batch``).

At each tick the loop does what the serial loop does, on ``(N,)`` arrays: read ``measure``,
evaluate the setpoint, ``calculate``, add the feedforward, clamp to ``output_limits``, write
``command``. The controller is a copy of the loop's own, so the serial and batched runs
share one implementation of its semantics:

* a :class:`~simcore.controllers.PIDController` is copied with its gains as arrays (its
  ``calculate`` is element-wise; see :mod:`simcore.controllers.pid`) and reset before the
  first tick, as the serial loop resets it;
* a plain callable ``f(measurement, setpoint)`` is called with arrays (it must be
  element-wise);
* the feedforward callable ``ff(t, setpoint, signals)`` is called with the batch's
  signals, whose values are ``(N,)`` arrays; a feedforward *object* given to
  ``control_loop`` is copied with its gains as arrays.

Batch parameters (``"<loop name>.<parameter>"``): ``kp``, ``ki``, ``kd`` (a PIDController
loop), ``setpoint`` (one constant setpoint per variant, for a loop whose setpoint is a
constant, not a function of time; numbers in the measured signal's SI unit, or a Quantity,
converted to it when the run starts), ``ks``, ``kv``, ``ka``, ``kg`` (a loop whose feedforward
is a feedforward object). Other controllers (a ProfiledPIDController, a
BangBangController) cannot batch and say so.
"""
from __future__ import annotations

import copy

import numpy as np

from simcore.batch_params import has_units, magnitudes, variant_values
from simcore.errors import ConfigError, ConfigTypeError

from .feedforward import ArmFeedforward, ElevatorFeedforward
from .pid import PIDController
from .wiring import QuantitySetpoint, refuse_quantity_setpoint

__all__ = ["BatchedControlLoop"]

_PID_GAINS = ("kp", "ki", "kd")
_FF_GAINS = ("ks", "kv", "ka", "kg")


class BatchedControlLoop:
    """The batch form of one control loop (built by the loop's ``batched`` attribute).

    Parameters
    ----------
    spec : dict
        What :func:`~simcore.controllers.control_loop` was given (controller, measure,
        command, setpoint reference, feedforward, output limits).
    name : str
        The loop's name (params are addressed by it).
    params : mapping of str to (n,) array
    n : int
    """

    def __init__(self, spec: dict, name: str, params: dict, n: int, xp=np):
        self.name, self.n, self.xp = name, n, xp
        self.measure, self.command, self.limits = spec["measure"], spec["command"], spec["output_limits"]
        allowed = ("setpoint",)
        controller = spec["controller"]
        label = lambda key: f"params[{name + '.' + key!r}]"  # noqa: E731
        if isinstance(controller, PIDController):
            allowed += _PID_GAINS
            pid = copy.deepcopy(controller)
            for key in _PID_GAINS:
                if key in params:  # checked here to name the params key and the variant; the setter checks again
                    setattr(pid, key, variant_values(label(key), params[key], nonnegative=True))
            self.pid = pid
            self.calc = pid.calculate
        elif not hasattr(controller, "calculate") and callable(controller):
            self.pid = None
            self.calc = controller
        else:
            raise ConfigTypeError("controllers", name, f"a loop whose controller can batch (a PIDController or an "
                                                       f"element-wise function); {type(controller).__name__} in loop "
                                                       f"{name!r} cannot batch")
        ff = spec["feedforward"]
        model = getattr(ff, "model", None)
        if model is not None:
            acting = _acting_gains(model)
            for key in params:
                if key in _FF_GAINS and hasattr(model, key) and key not in acting:
                    raise ConfigError(label(key), key, f"a feedforward gain that acts: loop {name!r} evaluates its "
                                                       f"{type(model).__name__} at the setpoint at rest, where only "
                                                       f"{', '.join(acting)} act (vary those, or use a callable "
                                                       f"feedforward)")
            allowed += acting
            ff = copy.copy(ff)
            ff.model = copy.deepcopy(model)
            for key in _FF_GAINS:
                if key in params:
                    setattr(ff.model, key, variant_values(label(key), params[key], nonnegative=key in ("kv", "ka")))
        self.feedforward = ff
        for key in params:
            if key not in allowed:
                raise ConfigError(label(key), key, f"a batch parameter of loop {name!r}: {', '.join(allowed)}")
        self.reference = spec["reference"]
        function = spec["setpoint_function"]
        if "setpoint" in params and function is not None:  # varied, it would replace the user's function
            raise ConfigError(label("setpoint"), params["setpoint"],
                              f"no params setpoint for loop {name!r}: it follows the setpoint function "
                              f"{getattr(function, '__name__', function)!r}, which one value per variant would "
                              f"replace (only a constant setpoint can vary)")
        # A setpoint Quantity (the loop's own, or the varied one) converts to the measured signal's unit when
        # the run starts, as control_loop's does; plain numbers are checked here, naming the variant.
        self.setpoint = self._setpoint_param = None
        if "setpoint" in params:
            if has_units(params["setpoint"]):
                variant_values(label("setpoint"), magnitudes(params["setpoint"]))
                self._setpoint_param = params["setpoint"]
            else:
                self.setpoint = variant_values(label("setpoint"), params["setpoint"])
        self._label = label("setpoint")

    def start(self, t, signals):
        if isinstance(self.reference, QuantitySetpoint):
            self.reference.convert(signals)
        if self._setpoint_param is not None:
            unit = signals.unit(self.measure)
            try:
                self.setpoint = variant_values(self._label, self._setpoint_param, unit)
            except ConfigError as exc:
                exc.add_note(f"loop {self.name!r} measures {self.measure!r}, which its system declares in "
                             f"{unit or 'no unit (a dimensionless number)'}")
                raise
        if self.pid is not None:
            self.pid.reset()

    def tick(self, t, signals):
        r = self.setpoint if self.setpoint is not None else self.reference(t)
        if self.setpoint is None:
            refuse_quantity_setpoint(r, self.name, t)
        try:
            out = self.calc(signals[self.measure], r)
            if self.feedforward is not None:
                out = out + self.feedforward(t, r, signals)
        except (TypeError, ValueError) as exc:
            if isinstance(exc, ConfigError):
                raise
            raise ConfigTypeError("controllers", self.name, f"a loop whose controller and feedforward work on "
                                                            f"arrays (loop {self.name!r} cannot batch: "
                                                            f"{type(exc).__name__}: {exc})") from exc
        if self.limits is not None:
            out = np.minimum(np.maximum(out, self.limits[0]), self.limits[1])
        return {self.command: out}


def _acting_gains(model) -> tuple:
    """The gains of a feedforward object that change its output where a loop evaluates it (at the
    setpoint, see ``control_loop``): an arm's or elevator's ``calculate`` there has zero velocity and
    acceleration, so only ``kg`` acts; a simple motor's ``calculate(setpoint)`` has zero acceleration."""
    if isinstance(model, (ArmFeedforward, ElevatorFeedforward)):
        return ("kg",)
    return tuple(g for g in ("ks", "kv") if hasattr(model, g))
