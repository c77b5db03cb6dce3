"""The compiled kernel: the built-in parts' physics, Dormand-Prince and the event search, in numba.

Two tiers, one semantics: Python is where a team's code runs
(robot programs, controllers and systems they write, the API, units and errors); this package is
where the built-in parts run, compiled by numba. Every function here works on floats and numpy
arrays only, allocates nothing per step (but the battery's bus search, a few floats of scratch for each
solve, and the restart after an event), and is written to be the one implementation of its law:
the Python classes call it (:class:`simcore.models.drive.MotorDrive`'s electrical law, say), and so does the
engine's compiled segment (:mod:`simcore.kernel.segment`).

Start-up:

* ``import simcore`` imports nothing from here: numba is loaded when a simulation first uses the
  kernel, and each function is compiled at its first call (:func:`simcore.kernel.jit.jit` is lazy).
* Compiled code is cached on disk (:mod:`simcore.kernel.jit`). The cache folder is keyed by a hash
  of this package's sources, so a change to a callee (which numba's own per-function cache does not
  notice in its callers) gets a fresh folder: ``$NUMBA_CACHE_DIR/simcore/kernel-<hash>`` when that
  variable is set, else ``simcore/kernel-<hash>`` in the user's cache directory (``$XDG_CACHE_HOME``
  or ``~/.cache``; ``~/Library/Caches`` on macOS; ``%LOCALAPPDATA%`` on Windows), else a folder of
  this user's own in the temporary directory, so a read-only install never fails at import. Where no
  folder can be written, caching is off (each process compiles afresh) and a warning says how to set
  ``NUMBA_CACHE_DIR``. The setting applies to the kernel's functions alone: a team's own numba code
  keeps numba's.
* ``NUMBA_DISABLE_JIT=1`` runs the same functions as Python (slow, for debugging and for CI's
  interpreted subset).
"""
import importlib

_LOADED: dict = {}


def loaded(name: str):
    """The kernel module ``simcore.kernel.<name>``, imported at its first use (building a model loads no numba;
    later calls cost a dictionary lookup, not an import statement's)."""
    module = _LOADED.get(name)
    if module is None:
        module = _LOADED[name] = importlib.import_module(f"{__name__}.{name}")
    return module
