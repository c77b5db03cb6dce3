"""The kernel's compiler settings: numba's ``njit`` with an on-disk cache that survives a new process
and a read-only install (see :mod:`simcore.kernel`). Importing this module imports numba.

A kernel function is compiled without numba's reference counting unless it is declared to make arrays
(``jit(allocates=True)``, or :func:`jit_allocating` for a whole module): the others only work on arrays
their callers hold, and the count, a runtime call per array argument at each call's entry and exit, was
most of the cost of an evaluation. A function that makes an array without the declaration fails to compile;
one that takes back an array a callee made must be declared too (it would leak it otherwise), and so must one
that returns an array, even one it was passed (its caller would count a reference the function never took, and
free the array twice): the kernel's dispatcher refuses to compile such a function undeclared."""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import warnings
from pathlib import Path

__all__ = ["jit", "jit_allocating", "compiled_by_types", "cache_dir", "scratch", "scratch_2d"]


def _source_hash() -> str:
    """A hash of the kernel's sources: numba's cache does not notice a changed callee in another file, so
    any change to the kernel gets a fresh cache folder."""
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


def _private_temp_root() -> Path | None:
    """``<tmp>/simcore-<uid>``, made for this user alone (mode 0700), or None when a folder of that name
    belongs to someone else or others may write into it: numba's cache files are pickles, and a folder
    another user prepared could hand this process code to run."""
    if not hasattr(os, "getuid"):  # Windows: the temporary folder is the user's own
        return Path(tempfile.gettempdir()) / "simcore"
    root = Path(tempfile.gettempdir()) / f"simcore-{os.getuid()}"
    try:
        root.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(root)
    except OSError:
        return None
    if st.st_uid != os.getuid() or st.st_mode & 0o022 or not root.is_dir() or root.is_symlink():
        return None
    return root


def _choose_cache_dir() -> Path | None:
    tag = f"kernel-{_source_hash()}"
    given = os.environ.get("NUMBA_CACHE_DIR")
    candidates = [Path(given) / "simcore" / tag] if given else [_user_cache_root() / tag]
    for folder in candidates:
        if _writable(folder):
            return folder
    temp = _private_temp_root()
    if temp is not None and _writable(temp / tag):
        return temp / tag
    return None


_CACHE_DIR = _choose_cache_dir()

import numba  # noqa: E402
from numba.core import types  # noqa: E402
from numba.core.registry import CPUDispatcher  # noqa: E402

if _CACHE_DIR is None:
    warnings.warn("simcore: no writable folder for numba's compiled-code cache; every process compiles the "
                  "kernel afresh. Set the environment variable NUMBA_CACHE_DIR to a writable folder.",
                  RuntimeWarning, stacklevel=2)


def cache_dir() -> Path | None:
    """The folder the compiled kernel is cached in (None: caching is off)."""
    return _CACHE_DIR


def _options(internal, options, allocates=False):
    # Reference counting only where arrays are made: numba counts the references to every array a function is
    # passed, with a call of its runtime per array at entry and exit (most of an evaluation's time on the
    # kernel's call chains, which LLVM does not inline). A function that neither allocates an array nor takes
    # one back from a callee works on arrays its caller holds, and needs none (one that allocates fails to
    # compile without). Set either way: a function numba compiles while compiling another inherits its setting.
    options.setdefault("_nrt", bool(allocates))
    options.setdefault("forceinline", False)  # (inherited like the reference counting, where not set)
    if internal:
        options.setdefault("no_cpython_wrapper", True)
    # (the wrapper that lets a compiled function be passed as a first-class function value, which the kernel
    # never does: it is compiled, linked into every caller and generated again there)
    options.setdefault("no_cfunc_wrapper", True)
    options.setdefault("nogil", True)
    options.setdefault("error_model", "numpy")  # a division by zero gives inf/nan (checked), not an exception
    return options


def jit(fn=None, *, internal=False, allocates=False, **options):
    """``numba.njit`` with the kernel's settings: cached on disk (where a folder is writable), no
    fast-math (results equal the Python arithmetic to the bit), the GIL released so that kernels can
    run on several Python threads at once, no wrapper for first-class function values. ``internal=True`` for a
    function only the kernel calls: it is compiled without the wrapper that lets Python call it either (a good
    part of a cold compile's time). ``allocates=True`` for a function that allocates an array or is handed one
    that a callee allocated: it is compiled with numba's reference counting (the others without: they only work
    on arrays their callers hold, which is cheaper)."""
    options = _options(internal, options, allocates)
    options.setdefault("cache", _CACHE_DIR is not None)
    if fn is None:
        return lambda f: _compiled(f, options)
    return _compiled(f=fn, options=options)


def jit_allocating(fn=None, **options):
    """:func:`jit` with ``allocates=True``, for a module whose functions make arrays and hand them to each other
    (the drivetrains' sampling and sorting scratch): every function there keeps numba's reference counting."""
    return jit(fn, allocates=True, **options)


def compiled_by_types(fn, choose):
    """Compile the kernel's calls of ``fn`` by their argument types: where numba compiles a call of ``fn``, it
    compiles ``choose(*argument_types)`` instead (``fn`` itself, or another function of the same arguments),
    so code a run cannot reach is never compiled (numba's ``overload``, with the kernel's settings; the
    callers' cache holds the result). Called from Python, and with ``NUMBA_DISABLE_JIT=1``, ``fn`` runs as
    written. Returns ``fn``."""
    from numba.extending import overload
    overload(fn, jit_options=_options(True, {}, allocates=True), strict=False)(choose)
    return fn


class _KernelDispatcher(CPUDispatcher):
    """numba's dispatcher, but a call from compiled code is compiled for its arguments' types, not their
    values: numba would compile a second copy of the callee for a constant argument (``settle(p, po, 0, ...)``
    beside ``settle(p, po, mode, ...)``, or a counter that starts at 0), a good part of a cold compile."""

    def get_call_template(self, args, kws):
        return super().get_call_template(tuple(types.unliteral(a) for a in args),
                                         {k: types.unliteral(v) for k, v in kws.items()})

    def add_overload(self, cres):
        # (every compiled or cache-loaded version passes here: a function without reference counting that returns
        # an array would have its caller free that array twice, so it is refused before it can run)
        if not self.targetoptions.get("_nrt", True) and _holds_array(cres.signature.return_type):
            raise TypeError(f"the kernel function {self.py_func.__module__}.{self.py_func.__qualname__} returns "
                            f"{cres.signature.return_type}, an array, but is compiled without reference counting: "
                            "declare it jit(allocates=True)")
        super().add_overload(cres)


def _holds_array(t) -> bool:
    """Whether numba type ``t`` is an array or a tuple holding one."""
    if isinstance(t, types.Array):
        return True
    return isinstance(t, types.BaseTuple) and any(_holds_array(e) for e in t.types)


def _compiled(f, options):
    """``numba.njit(**options)(f)`` with the kernel's dispatcher and cache folder: numba reads its
    (process-wide) cache setting when a function is decorated, so it is set for this decoration alone and
    put back, and a team's own numba functions keep theirs."""
    if numba.config.DISABLE_JIT:
        return f
    options = dict(options, nopython=True)
    cache = options.pop("cache", False)
    saved = numba.config.CACHE_DIR
    if _CACHE_DIR is not None:
        numba.config.CACHE_DIR = str(_CACHE_DIR)
    try:
        dispatcher = _KernelDispatcher(py_func=f, locals={}, targetoptions=options)
        if cache:
            dispatcher.enable_caching()
        return dispatcher
    finally:
        numba.config.CACHE_DIR = saved


# -- scratch on the stack ----------------------------------------------------------------------------------------
from numba.core import cgutils  # noqa: E402
from numba.core.errors import TypingError  # noqa: E402
from numba.extending import intrinsic  # noqa: E402


def _literal_sizes(sizes):
    """The ints of numba's literal integer types ``sizes`` (a scratch array's shape is fixed when it compiles)."""
    if not all(isinstance(n, types.IntegerLiteral) and n.literal_value > 0 for n in sizes):
        raise TypingError(f"a scratch array's sizes must be positive integer constants, not {sizes}")
    return [n.literal_value for n in sizes]


def _stack_array(context, builder, shape):
    """A C-contiguous float64 array of ``shape`` (ints) in the calling function's stack frame, without a
    meminfo (nothing counts references to it; it lives as long as that frame)."""
    arrty = types.Array(types.float64, len(shape), "C")
    count = 1
    for n in shape:
        count *= n
    data = cgutils.alloca_once(builder, context.get_value_type(types.float64), size=count)
    ary = context.make_array(arrty)(context, builder)
    itemsize = context.get_constant(types.intp, 8)
    strides, step = [], 8
    for n in reversed(shape):
        strides.insert(0, context.get_constant(types.intp, step))
        step *= n
    context.populate_array(ary, data=data, shape=cgutils.pack_array(builder, [context.get_constant(types.intp, n)
                                                                               for n in shape]),
                           strides=cgutils.pack_array(builder, strides), itemsize=itemsize, meminfo=None)
    return ary._getvalue()


@intrinsic
def _scratch(typingctx, n):
    (size,) = _literal_sizes([n])
    return types.Array(types.float64, 1, "C")(n), lambda context, builder, sig, args: _stack_array(
        context, builder, [size])


@intrinsic
def _scratch_2d(typingctx, rows, cols):
    shape = _literal_sizes([rows, cols])
    return types.Array(types.float64, 2, "C")(rows, cols), lambda context, builder, sig, args: _stack_array(
        context, builder, shape)


def scratch(n):
    """An uninitialized float64 array of ``n`` (a constant) on the stack of the kernel function calling this:
    ``np.empty(n)`` without an allocation, so the function needs no reference counting. It lives as long as that
    function's frame: the function may hand it to its callees, never return it or keep it. For kernel functions
    only (compiled, it is a numba intrinsic, which Python cannot call); with ``NUMBA_DISABLE_JIT=1``, where the
    kernel runs as Python, ``np.empty(n)``."""
    import numpy as np
    return np.empty(n)


def scratch_2d(rows, cols):
    """:func:`scratch` of shape ``(rows, cols)`` (constants), C order."""
    import numpy as np
    return np.empty((rows, cols))


if not numba.config.DISABLE_JIT:
    scratch = _scratch  # noqa: F811  (compiled: the stack array)
    scratch_2d = _scratch_2d  # noqa: F811
