"""The compiled kernel: the built-in parts' physics, Dormand-Prince and the event search, in numba.

Two tiers, one semantics (see the project's design notes): Python is where a team's code runs
(robot programs, controllers and systems they write, the API, units and errors); this package is
where the built-in parts run, compiled by numba. Every function here works on floats and numpy
arrays only, allocates nothing per step, and is the one implementation of its law: the Python
classes call it (:class:`simcore.models.drive.MotorDrive`'s electrical law, say), and so does the
engine's compiled segment (:mod:`simcore.kernel.segment`).

Start-up:

* ``import simcore`` imports nothing from here: numba is loaded when a simulation first uses the
  kernel, and each function is compiled at its first call (:func:`jit` is lazy).
* Compiled code is cached on disk. The cache folder is keyed by a hash of this package's sources,
  so a change to a callee (which numba's own per-function cache does not notice in its callers)
  gets a fresh folder. It is ``$NUMBA_CACHE_DIR/simcore-<hash>`` when that variable is set, else a
  ``simcore`` folder in the user's cache directory (``$XDG_CACHE_HOME`` or ``~/.cache``;
  ``%LOCALAPPDATA%`` on Windows), so a read-only install never fails at import. Where no folder can
  be written, caching is off (each process compiles afresh) and a warning says how to set
  ``NUMBA_CACHE_DIR``.
* ``NUMBA_DISABLE_JIT=1`` runs the same functions as Python (slow, for debugging and for CI's
  interpreted subset).
"""
from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import warnings
from pathlib import Path

__all__ = ["jit", "cache_dir"]


def _source_hash() -> str:
    h = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _user_cache_root() -> Path:
    if sys.platform.startswith("win"):
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = str(Path.home() / "Library" / "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "simcore"


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder):
            pass
        return True
    except OSError:
        return False


def _choose_cache_dir() -> Path | None:
    tag = f"kernel-{_source_hash()}"
    given = os.environ.get("NUMBA_CACHE_DIR")
    candidates = [Path(given) / "simcore" / tag] if given else [_user_cache_root() / tag]
    candidates.append(Path(tempfile.gettempdir()) / f"simcore-{os.getuid() if hasattr(os, 'getuid') else 0}" / tag)
    for folder in candidates:
        if _writable(folder):
            return folder
    return None


_CACHE_DIR = _choose_cache_dir()

import numba  # noqa: E402  (after the cache folder is chosen: the decorators below read it)

if _CACHE_DIR is not None:
    numba.config.CACHE_DIR = str(_CACHE_DIR)
else:
    warnings.warn("simcore: no writable folder for numba's compiled-code cache; every process compiles the "
                  "kernel afresh. Set the environment variable NUMBA_CACHE_DIR to a writable folder.",
                  RuntimeWarning, stacklevel=2)


def cache_dir() -> Path | None:
    """The folder the compiled kernel is cached in (None: caching is off)."""
    return _CACHE_DIR


def jit(fn=None, **options):
    """``numba.njit`` with the kernel's settings: cached on disk (where a folder is writable), no
    fast-math (results equal the Python arithmetic to the bit), the GIL released so that kernels can
    run on several Python threads at once."""
    options.setdefault("cache", _CACHE_DIR is not None)
    options.setdefault("nogil", True)
    options.setdefault("error_model", "numpy")  # a division by zero gives inf/nan (checked), not an exception
    if fn is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(fn)
