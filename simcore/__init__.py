"""simcore: continuous-time simulation of robot mechanisms under digital controllers.

Mechanisms are :class:`System` objects integrated by scipy to a stated tolerance;
controllers are :class:`PeriodicController` zero-order holds ticking on an
integer-nanosecond clock; :class:`StateEvent` guards locate hard stops and mode
changes. :func:`simulate` runs a whole trajectory, :class:`Simulator` can be
advanced from outside, and both return a :class:`Result`.
"""
from .controller import PeriodicController
from .coupling import Coupling
from .engine import METHODS, Simulator, simulate
from .errors import ConfigError, IntegrationError, NonFiniteError, SimError
from .events import EventRecord, StateEvent
from .result import Result
from .solvers import StiffnessWarning
from .system import System
from .units import Q_, ureg
from .sweeping import SweepTable, pivot, sweep
from .batch import BatchResult, simulate_batch


__all__ = ["System", "StateEvent", "EventRecord", "PeriodicController", "Coupling", "simulate", "Simulator",
           "Result", "METHODS", "ureg", "Q_", "SimError", "ConfigError", "IntegrationError", "NonFiniteError",
           "sweep", "pivot", "SweepTable", "StiffnessWarning", "simulate_batch", "BatchResult"]
__version__ = "0.1.0"
