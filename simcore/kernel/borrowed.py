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

__all__ = ["borrowed", "keep_alive", "shaped"]


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


@intrinsic
def shaped(typingctx, flat, shape):
    """The 1-D C-contiguous array ``flat`` viewed with ``shape`` (a tuple of integers whose product is its length,
    which is not checked), C-contiguous and without a memory record, as :func:`borrowed`. numba's ``reshape``
    calls a helper of its runtime that works out the strides (some hundreds of ns): the kernel views a
    variant's rows this way for every variant of a batch."""
    if not (isinstance(flat, types.Array) and flat.ndim == 1 and flat.layout == "C"):
        raise TypeError(f"shaped takes a 1-D C-contiguous array, not {flat}")
    if not (isinstance(shape, types.BaseTuple) and all(isinstance(t, types.Integer) for t in shape.types)):
        raise TypeError(f"shaped takes a tuple of integers, not {shape}")
    nd = len(shape.types)

    def codegen(context, builder, signature, args):
        src = context.make_array(signature.args[0])(context, builder, value=args[0])
        dst = context.make_array(signature.return_type)(context, builder)
        intp = context.get_value_type(types.intp)
        dims = [context.cast(builder, builder.extract_value(args[1], i), shape.types[i], types.intp)
                for i in range(nd)]
        strides, step = [None] * nd, src.itemsize
        for i in reversed(range(nd)):  # (C order: the last axis is contiguous)
            strides[i] = step
            step = builder.mul(step, dims[i])
        context.populate_array(dst, data=src.data, shape=cgutils.pack_array(builder, dims, ty=intp),
                               strides=cgutils.pack_array(builder, strides, ty=intp), itemsize=src.itemsize,
                               meminfo=cgutils.get_null_value(src.meminfo.type))
        return dst._getvalue()

    return types.Array(flat.dtype, nd, "C")(flat, shape), codegen


@jit
def keep_alive(arrays):
    """A use of the tuple ``arrays``: they are not freed before this point (see the module docstring)."""
    return len(arrays)


def _reshaped(flat, shape):
    """:func:`shaped` run as Python."""
    return flat.reshape(shape)


if config.DISABLE_JIT:
    borrowed = _same  # noqa: F811
    shaped = _reshaped  # noqa: F811

