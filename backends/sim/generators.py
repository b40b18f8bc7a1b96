"""Numba helpers of the compiled engine: thread generators kept in one block of memory, and typed results.

A numba generator object is a pointer to a structure (resume point, arguments, live variables) in
its creator's stack frame, so one creation site in a loop gives one structure, reused.  The compiled
engine (:mod:`.compiled`) creates each thread's generator in a loop and copies its fresh structure
into a NumPy byte array (``gen_store``); ``gen_at`` turns an address back into a generator of
the same type, which ``next()`` then advances in place.  Thousands of threads cost one loop, not a
tuple literal of thousands of generators compiled as a switch.  The copies own no references of
their own: the arrays they use must outlive the run (the scheduler keeps them alive), and a kernel
lowered for the engine never holds an iterator whose state points into the stack (``for`` over
``range`` is lowered to ``while``, see :mod:`.lowering`).

:func:`like` gives a warp collective's result the kind of its operand: an integer for an integer or
a boolean, a float for a float (the engine passes each value as both).  :func:`operand_kind` tells a warp
reduction the operand's type, so that its butterfly wraps and rounds at each step as that type does.

>>> import numba, numpy as np
>>> @numba.njit
... def count(i):
...     yield i
...     yield i + 10
>>> @numba.njit
... def run(n):
...     ids = np.arange(n)
...     proto = count(ids[0])
...     size = gen_size(proto)
...     memory = np.zeros(n * size, np.uint8)
...     base = memory.ctypes.data
...     gen_store(proto, base)
...     for i in range(1, n):
...         gen_store(count(ids[i]), base + i * size)
...     out = np.zeros(2 * n, np.int64)
...     for k in range(2 * n):
...         out[k] = next(gen_at(base + (k % n) * size, proto))
...     return out + memory[0] * 0
>>> run(3).tolist()
[0, 1, 2, 10, 11, 12]
"""

from __future__ import annotations

from numba import types
from numba.core.errors import TypingError
from numba.extending import intrinsic, overload

__all__ = ["gen_at", "gen_size", "gen_store", "like", "operand_kind"]


@intrinsic
def gen_size(typingctx, gen):
    """The bytes of a generator's structure, rounded up to 64 (cache lines)."""
    if not isinstance(gen, types.Generator):
        raise TypingError("gen_size takes a generator")

    def codegen(context, builder, signature, args):
        size = context.get_abi_sizeof(context.get_value_type(gen).pointee)
        return context.get_constant(types.int64, (size + 63) // 64 * 64)

    return types.int64(gen), codegen


@intrinsic
def gen_store(typingctx, gen, address):
    """Copy a generator's structure to ``address`` (an integer)."""
    if not isinstance(gen, types.Generator):
        raise TypingError("gen_store takes a generator")

    def codegen(context, builder, signature, args):
        value, where = args
        builder.store(builder.load(value), builder.inttoptr(where, context.get_value_type(gen)))
        return context.get_dummy_value()

    return types.none(gen, address), codegen


@intrinsic
def gen_at(typingctx, address, proto):
    """The generator (of ``proto``'s type) whose structure lies at ``address``."""
    if not isinstance(proto, types.Generator):
        raise TypingError("gen_at takes a generator as its prototype")

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(proto))

    return proto(address, proto), codegen


def like(value, as_int, as_float):  # pragma: no cover - replaced by the overload in compiled code
    """``as_int`` when ``value`` is an integer or a boolean, else ``as_float``."""
    return as_int if isinstance(value, (bool, int)) else as_float


@overload(like)
def _like(value, as_int, as_float):
    if isinstance(value, (types.Integer, types.Boolean)):
        return lambda value, as_int, as_float: as_int
    return lambda value, as_int, as_float: as_float


#: :func:`operand_kind`'s codes: the types whose arithmetic a reduction's butterfly must follow step by step.
KIND_INT64, KIND_INT32, KIND_UINT32, KIND_UINT64, KIND_FLOAT64, KIND_FLOAT32 = range(6)


def operand_kind(value):  # pragma: no cover - replaced by the overload in compiled code
    """The code of ``value``'s type: 1 int32, 2 uint32, 3 uint64, 5 float32, 4 other floats, 0 other integers."""
    raise NotImplementedError("operand_kind runs in compiled code only")


@overload(operand_kind)
def _operand_kind(value):
    if isinstance(value, types.Float):
        code = KIND_FLOAT32 if value.bitwidth == 32 else KIND_FLOAT64
    elif isinstance(value, types.Integer) and value.bitwidth <= 32:
        code = KIND_INT32 if value.signed else KIND_UINT32
    elif isinstance(value, types.Integer) and not value.signed:
        code = KIND_UINT64
    else:
        code = KIND_INT64
    return lambda value: code
