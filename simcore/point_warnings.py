"""Warnings issued while sweep points are evaluated: recorded where the points run, issued again by the sweep.

:func:`simcore.sweep` may evaluate its points in this process, on threads or in other processes (a
process pool, a Dask cluster), where a warning (a :class:`~simcore.StiffnessWarning`, a metric's
``RuntimeWarning``) would be shown in a worker the user never sees, or not at all. So every point's
warnings are recorded where it runs (:func:`recording`), travel back with its rows as :class:`Caught`
(made picklable by :func:`crossing`) and are issued again in the sweep's process by :func:`reissue`, in
grid order, each naming its grid points. A batch's own StiffnessWarning numbers variants within its chunk;
:func:`batch_stiffness` replaces it by one entry per stiff grid point, the same for every chunk size.
"""
from __future__ import annotations

import contextlib
import os
import pickle
import socket
import sys
import threading
import warnings
from typing import NamedTuple

import numpy as np

from .batch_result import BatchResult
from .solvers import STIFF_METHOD, StiffnessWarning

__all__ = ["Caught", "recording", "caught_in", "crossing", "here", "reissue", "batch_stiffness"]

#: Points named one by one in a re-issued warning (the others by index only).
_POINTS_NAMED = 20


class Caught(NamedTuple):
    """A warning recorded while evaluating sweep points, in the form that travels back to the sweep:
    the category (a class: it pickles by reference), the message as text, where it was issued,
    and ``detail``, what belongs to one point only (a batch variant's stiffness time), shown with it."""

    category: type
    text: str
    filename: str
    lineno: int
    detail: str | None = None


# ``warnings.catch_warnings`` swaps process-wide state and is not thread-safe (points on a thread
# pool, or on a Dask worker's threads, would take each other's warnings or lose them): the first
# point to start in a process installs one recorder, which files each warning under the thread
# that issued it, and the last point to end restores what was there.
_record_lock = threading.Lock()
_record_state: dict = {"depth": 0}
_record_local = threading.local()


def _show(message, category, filename, lineno, file=None, line=None):
    """The ``warnings.showwarning`` of a process evaluating points: a warning of a thread that is
    evaluating one is recorded for it; any other goes where it would have gone."""
    logs = getattr(_record_local, "logs", None)
    if logs:
        logs[-1].append(warnings.WarningMessage(message, category, filename, lineno, file, line))
        return
    # the display the recorder replaced (the default one, which an enclosing catch_warnings(record=True),
    # pytest's for one, redirects); the default when the recorder was left installed (see the sweep's notes)
    previous = _record_state.get("showwarning") or warnings._showwarning_orig
    previous(message, category, filename, lineno, file, line)


@contextlib.contextmanager
def recording():
    """Record every warning this thread issues in the block (``"always"``: none is filtered out or
    turned into an error here; the sweep's process applies its own filters when it re-issues them).

    Yields the list the ``warnings.WarningMessage`` are appended to. While any thread of the process
    records, the filters are ``"always"`` for every thread (a warning of another thread is shown,
    or recorded by an enclosing ``catch_warnings``, as it would have been, just not deduplicated).
    """
    if getattr(sys.flags, "context_aware_warnings", False):  # Python >= 3.14 with context-local filters
        with warnings.catch_warnings(record=True) as log:
            warnings.simplefilter("always")
            yield log
        return
    log: list = []
    with _record_lock:
        if _record_state["depth"] == 0:
            saved = warnings.catch_warnings()
            saved.__enter__()
            _record_state.update(saved=saved, showwarning=warnings.showwarning)
            warnings.simplefilter("always")
            warnings.showwarning = _show
        _record_state["depth"] += 1
    logs = _record_local.__dict__.setdefault("logs", [])
    logs.append(log)
    try:
        yield log
    finally:
        logs.pop()
        with _record_lock:
            _record_state["depth"] -= 1
            if _record_state["depth"] == 0:
                _record_state.pop("showwarning")
                _record_state.pop("saved").__exit__(None, None, None)


def caught_in(log) -> list:
    """The recorded ``warnings.WarningMessage`` of one task as ``(None, Caught)`` pairs (None: the
    warning belongs to the whole task, its point or chunk)."""
    return [(None, Caught(w.category, str(w.message), str(w.filename), int(w.lineno or 0))) for w in log]


_picklable_categories: dict = {}


def crossing(caught: list) -> list:
    """``caught`` made safe to pickle back to the sweep's process: a category that does not pickle
    (a class defined in a function, say) becomes UserWarning, with its name in the text."""
    out = []
    for where, c in caught:
        ok = _picklable_categories.get(c.category)
        if ok is None:
            try:
                ok = pickle.loads(pickle.dumps(c.category)) is c.category
            except Exception:
                ok = False
            _picklable_categories[c.category] = ok
        if not ok:
            name = f"{getattr(c.category, '__module__', '?')}.{getattr(c.category, '__qualname__', c.category)}"
            c = c._replace(category=UserWarning,
                           text=f"{name} (a warning category that does not pickle, re-issued as UserWarning): "
                                f"{c.text}")
        out.append((where, c))
    return out


def here() -> tuple:
    """This process, as told apart from a worker's: (host name, process id)."""
    return socket.gethostname(), os.getpid()


def _value_text(v) -> str:
    return repr(v.item() if isinstance(v, np.generic) else v)


def _point_label(i: int, point: dict, detail) -> str:
    values = ", ".join(f"{k}={_value_text(v)}" for k, v in point.items())
    return f"{i} ({values}{'; ' + detail if detail else ''})"


def _index_ranges(indices: list) -> str:
    """``[3, 4, 5, 9]`` -> ``"3-5, 9"``."""
    parts = []
    start = prev = indices[0]
    for i in indices[1:] + [None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        parts.append(f"{start}" if start == prev else f"{start}-{prev}")
        if i is not None:
            start = prev = i
    return ", ".join(parts)


_module_of_file: dict = {}


def _module_named(filename: str):
    """The name of the imported module whose file is ``filename`` (what a filter's module pattern is
    matched against), None if there is none (``warn_explicit`` then derives it from the file name)."""
    if filename not in _module_of_file:
        _module_of_file[filename] = next((name for name, m in list(sys.modules.items())
                                          if getattr(m, "__file__", None) == filename), None)
    return _module_of_file[filename]


def reissue(caught: list, points: list) -> None:
    """Re-issue, in this process, the warnings recorded while evaluating ``points``.

    ``caught`` holds ``((first, last), Caught)``: the grid points (indices, both included) the
    warning came from, one point or a batch's chunk. Warnings equal but for their points (same
    category, text and place of issue) are issued once, naming every point they came from; in
    order of the first point each came from (grid order, whatever order the workers finished in).
    Each keeps its category, its text (the points follow it in brackets) and its place of issue, so
    that filters (``"error"``, ``"ignore"``, by category, message or module; ``pytest.warns``) act on
    it as on the original; "default"'s once per place is counted afresh by each sweep.
    """
    groups: dict = {}
    for (first, last), c in sorted(caught, key=lambda item: item[0]):  # stable: a task's order kept
        sources = groups.setdefault((c.category, c.text, c.filename, c.lineno), {})
        sources.setdefault((first, last), c.detail)
    for (category, text, filename, lineno), sources in groups.items():
        labels, rest = [], []
        for (first, last), detail in sources.items():
            if len(labels) >= _POINTS_NAMED:
                rest.extend(range(first, last + 1))
            elif first == last:
                labels.append(_point_label(first, points[first], detail))
            else:
                labels.append(f"{first}-{last} (evaluated as one batch)")
        many = sum(last - first + 1 for first, last in sources) > 1
        where = ", ".join(labels) + (f" and {len(rest)} more ({_index_ranges(rest)})" if rest else "")
        # the points after the text: a filter's message pattern is matched from the start of the text
        warnings.warn_explicit(f"{text} [sweep point{'s' if many else ''} {where}]", category, filename, lineno,
                               module=_module_named(filename))


def batch_stiffness(result: BatchResult, caught: list) -> list:
    """``caught`` with the batch's own StiffnessWarning, which names variants by their place in the
    chunk, replaced by one per stiff variant, ``(j, Caught)`` with ``j`` its place in the chunk, whose
    text is the same for every point and every chunk (the time it was found stiff, from
    ``result.stiff_at``, is its ``detail``): so the sweep's warning names grid points, and does not
    depend on how the grid was cut into chunks.

    The batch's warning is recognised by its text, ``result.stiffness_message``; when it is not there
    (``make_result`` filtered it out itself), nothing is added.
    """
    message = result.stiffness_message
    if message is None:
        return caught
    k = next((k for k, (_, c) in enumerate(caught)
              if issubclass(c.category, StiffnessWarning) and c.text == message), None)
    if k is None:
        return caught
    own = caught[k][1]
    text = (f"in simcore.simulate_batch, RK45's steps are limited by stability, not accuracy, from the time "
            f"given on (a stiff system); the serial simcore.simulate(..., method='auto') or "
            f"method='{STIFF_METHOD}' integrates such a point with far fewer evaluations.")
    stiff = [(int(j), Caught(own.category, text, own.filename, own.lineno,
                              f"found stiff at t={float(result.stiff_at[j])!r} s"))
             for j in np.flatnonzero(~np.isnan(np.asarray(result.stiff_at, dtype=float)))]
    return caught[:k] + stiff + caught[k + 1:]
