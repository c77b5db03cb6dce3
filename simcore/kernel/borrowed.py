"""Array views that skip numba's reference counting, for the kernel's hot loops.

numba counts references to every array it passes between compiled functions: an atomic increment and
decrement of the array's memory record per argument and per view, a few dozen per derivative
evaluation of a mechanism, and (as atomic operations on a cache line every thread shares) slower still
when several threads touch the same arrays. :func:`borrowed` returns a view of an array with no memory
record: counting it is a null test.

The caller must keep the array it came from alive while the view is used: numba frees an array right
after the last use of its variable, so a caller passes its arrays to :func:`keep_alive` after the last
use of their views (otherwise the next allocation may reuse their memory under the views).
"""
from __future__ import annotations

from numba.core import cgutils, config, types
from numba.extending import intrinsic

from .jit import jit

__all__ = ["borrowed", "keep_alive"]


def _same(array):
    """:func:`borrowed` run as Python (``NUMBA_DISABLE_JIT=1``): numpy counts its references itself."""
    return array


@intrinsic
def borrowed(typingctx, array):
    """``array`` viewed without a memory record (see the module docstring)."""
    if not isinstance(array, types.Array):
        raise TypeError(f"borrowed takes an array, not {array}")

    def codegen(context, builder, signature, args):
        src = context.make_array(signature.args[0])(context, builder, value=args[0])
        dst = context.make_array(signature.return_type)(context, builder, value=args[0])
        dst.meminfo = cgutils.get_null_value(src.meminfo.type)
        return dst._getvalue()

    return array(array), codegen


@jit
def keep_alive(arrays):
    """A use of the tuple ``arrays``: they are not freed before this point (see the module docstring)."""
    return len(arrays)


if config.DISABLE_JIT:
    borrowed = _same  # noqa: F811

