"""``T`` for Numba CUDA: every member of :mod:`gpusim.language` as an inlined device function.

This module imports ``numba.cuda``; only :mod:`gpusim.backends.numba` and :mod:`gpusim.runtime.compile`
import it, lazily, so ``import gpusim`` never needs numba-cuda.

How it is built (each point measured with numba-cuda 0.30.4):

- ``T`` is a real :class:`types.ModuleType`: numba types a global module and resolves its
  attributes at compile time.  Raw numba stubs such as ``cuda.atomic.cas`` or
  ``cuda.shared.array`` are *not* typeable as attributes of another module, so every member is
  a ``cuda.jit(device=True, inline="always")`` wrapper around the stub.
- Inlining happens on numba's IR before typing, so the wrappers cost nothing at run time, need
  no compute capability from the driver (headless ``compile_ptx`` works), and literal arguments
  propagate: ``T.shared_array(64, T.i32)`` reaches ``cuda.shared.array`` with the constant 64.
  Every call site gets its own array.
- The casts ``T.i32`` ... ``T.f64`` are numba's own number classes: callable as casts in a
  kernel and accepted as dtypes by ``cuda.shared.array``/``cuda.local.array``.
- ``T.atomic_load`` is ``atomicOr(&a[i], 0)``: a read-modify-write that NVVM keeps as
  ``atom.or`` (checked in the PTX), so polling loops are never hoisted.

Atomics accept, besides the dtypes :mod:`gpusim.language` lists, ``int64`` for every atomic and
``float32``/``float64`` for ``atomic_min``/``atomic_max`` (an intrinsic of ours: numba-cuda
0.30.4's float min/max return a wrong old value); the CuPy backend supports exactly the same
set, through shims.

Example
-------
>>> from gpusim.backends.numba_language import T
>>> from gpusim.language import MEMBERS
>>> sorted(set(MEMBERS) - set(vars(T)))
[]
>>> T.i32
int32
"""

from __future__ import annotations

import types as pytypes

import numba
from llvmlite import ir as llvm_ir
from numba import cuda
from numba.cuda import cgutils, types
from numba.cuda.extending import intrinsic
from numba.cuda.typing import signature

__all__ = ["T", "inline_device"]

_FULL_MASK = 0xFFFFFFFF


def inline_device(fn):
    """Compile ``fn`` as a numba device function inlined at numba-IR level into its callers."""
    return cuda.jit(device=True, inline="always")(fn)


_i32 = numba.int32
_u32 = numba.uint32


# -- indices -----------------------------------------------------------------------------------
@inline_device
def thread_id():
    return _i32(cuda.threadIdx.x)


@inline_device
def block_id():
    return _i32(cuda.blockIdx.x)


@inline_device
def block_size():
    return _i32(cuda.blockDim.x)


@inline_device
def grid_size():
    return _i32(cuda.gridDim.x)


@inline_device
def gtid():
    return _i32(cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x)


@inline_device
def num_threads():
    return _i32(cuda.gridDim.x * cuda.blockDim.x)


@inline_device
def lane_id():
    return _i32(cuda.threadIdx.x & 31)


@inline_device
def warp_id():
    return _i32(cuda.threadIdx.x >> 5)


@inline_device
def warp_size():
    return _i32(32)


# -- barriers and fences -------------------------------------------------------------------------
@inline_device
def syncthreads():
    cuda.syncthreads()


@inline_device
def syncwarp():
    cuda.syncwarp(_FULL_MASK)


@inline_device
def threadfence():
    cuda.threadfence()


# -- warp shuffles and votes (full mask) -------------------------------------------------------
@inline_device
def shfl_down(value, delta):
    return cuda.shfl_down_sync(_FULL_MASK, value, delta)


@inline_device
def shfl_up(value, delta):
    return cuda.shfl_up_sync(_FULL_MASK, value, delta)


@inline_device
def shfl_xor(value, lane_mask):
    return cuda.shfl_xor_sync(_FULL_MASK, value, lane_mask)


@inline_device
def shfl_idx(value, src_lane):
    return cuda.shfl_sync(_FULL_MASK, value, src_lane)


@inline_device
def ballot(predicate):
    return _u32(cuda.ballot_sync(_FULL_MASK, predicate))


@inline_device
def vote_any(predicate):
    return _i32(cuda.any_sync(_FULL_MASK, predicate))


@inline_device
def vote_all(predicate):
    return _i32(cuda.all_sync(_FULL_MASK, predicate))


# -- warp reductions: the butterfly of shfl_xor, as gpusim.language.reductions writes it ----------
@inline_device
def reduce_add(value):
    offset = 16
    while offset > 0:
        value = value + cuda.shfl_xor_sync(_FULL_MASK, value, offset)
        offset //= 2
    return value


@inline_device
def reduce_max(value):
    offset = 16
    while offset > 0:
        value = max(value, cuda.shfl_xor_sync(_FULL_MASK, value, offset))
        offset //= 2
    return value


@inline_device
def reduce_min(value):
    offset = 16
    while offset > 0:
        value = min(value, cuda.shfl_xor_sync(_FULL_MASK, value, offset))
        offset //= 2
    return value


# -- atomics: each returns the old value -------------------------------------------------------
@inline_device
def atomic_cas(array, index, expected, new):
    return cuda.atomic.cas(array, index, expected, new)


@inline_device
def atomic_add(array, index, value):
    return cuda.atomic.add(array, index, value)


def _minmax_intrinsic(is_max: bool):
    """An intrinsic ``(array, index, value) -> old`` for atomic min or max on any numeric dtype.

    Integers use LLVM's ``atomicrmw [u]min/[u]max``.  Floats use a compare-and-swap loop on the
    bits that returns the value it replaced (or the smaller/larger one it found): numba-cuda
    0.30.4's own float ``cuda.atomic.min/max`` store the right value but return the element as
    first read, not the old value (its ``___numba_atomic_*_min`` ends in ``ret %ptrval``).
    NaN values never replace anything; NaN elements are kept.
    """

    def typer(typingctx, array, index, value):
        if not isinstance(array, types.Array) or array.ndim != 1 or array.dtype not in _MINMAX_TYPES:
            return None
        if not isinstance(index, types.Integer):
            return None
        return signature(array.dtype, array, types.intp, array.dtype)

    def codegen(context, builder, sig, args):
        aryty = sig.args[0]
        ary, index, value = args
        lary = context.make_array(aryty)(context, builder, ary)
        ptr = cgutils.get_item_pointer(context, builder, aryty, lary, [index], wraparound=False)
        dtype = aryty.dtype
        if isinstance(dtype, types.Integer):
            op = ("max" if is_max else "min") if dtype.signed else ("umax" if is_max else "umin")
            return builder.atomic_rmw(op, ptr, value, "monotonic")
        bits = llvm_ir.IntType(dtype.bitwidth)
        bits_ptr = builder.bitcast(ptr, bits.as_pointer())
        entry = builder.basic_block
        loop = builder.append_basic_block("gpusim_fminmax.loop")
        swap = builder.append_basic_block("gpusim_fminmax.swap")
        done = builder.append_basic_block("gpusim_fminmax.done")
        # the first read is atomic too, so no earlier plain store of this thread is forwarded into it
        first = builder.atomic_rmw("or", bits_ptr, llvm_ir.Constant(bits, 0), "monotonic")
        builder.branch(loop)
        builder.position_at_end(loop)
        old = builder.phi(bits)
        old.add_incoming(first, entry)
        better = builder.fcmp_ordered(">" if is_max else "<", value, builder.bitcast(old, value.type))
        builder.cbranch(better, swap, done)
        builder.position_at_end(swap)
        pair = builder.cmpxchg(bits_ptr, old, builder.bitcast(value, bits), "monotonic", "monotonic")
        old.add_incoming(builder.extract_value(pair, 0), swap)
        builder.cbranch(builder.extract_value(pair, 1), done, loop)
        builder.position_at_end(done)
        return builder.bitcast(old, value.type)

    def template(typingctx, array, index, value):
        sig = typer(typingctx, array, index, value)
        return (sig, codegen) if sig is not None else None

    template.__name__ = "gpusim_atomic_max" if is_max else "gpusim_atomic_min"
    return intrinsic(template)


_MINMAX_TYPES = (types.int32, types.uint32, types.int64, types.uint64, types.float32, types.float64)
_atomic_min = _minmax_intrinsic(is_max=False)
_atomic_max = _minmax_intrinsic(is_max=True)


@inline_device
def atomic_min(array, index, value):
    return _atomic_min(array, index, value)


@inline_device
def atomic_max(array, index, value):
    return _atomic_max(array, index, value)


@inline_device
def atomic_exch(array, index, value):
    return cuda.atomic.exch(array, index, value)


@inline_device
def atomic_load(array, index):
    return cuda.atomic.or_(array, index, 0)


# -- memory ----------------------------------------------------------------------------------------
@inline_device
def shared_array(size, dtype):
    return cuda.shared.array(size, dtype)


@inline_device
def local_array(size, dtype):
    return cuda.local.array(size, dtype)


def _build() -> pytypes.ModuleType:
    module = pytypes.ModuleType("gpusim.backends.numba.T", "The kernel language T, bound to Numba CUDA.")
    members = {
        "thread_id": thread_id, "block_id": block_id, "block_size": block_size, "grid_size": grid_size,
        "gtid": gtid, "num_threads": num_threads, "lane_id": lane_id, "warp_id": warp_id,
        "warp_size": warp_size,
        "syncthreads": syncthreads, "syncwarp": syncwarp, "threadfence": threadfence,
        "shfl_down": shfl_down, "shfl_up": shfl_up, "shfl_xor": shfl_xor, "shfl_idx": shfl_idx,
        "ballot": ballot, "any": vote_any, "all": vote_all,
        "reduce_add": reduce_add, "reduce_max": reduce_max, "reduce_min": reduce_min,
        "atomic_cas": atomic_cas, "atomic_add": atomic_add, "atomic_min": atomic_min,
        "atomic_max": atomic_max, "atomic_exch": atomic_exch, "atomic_load": atomic_load,
        "shared_array": shared_array, "local_array": local_array,
        # numba's number classes are both casts (T.i32(x)) and dtypes (T.shared_array(n, T.i32))
        "i32": numba.int32, "i64": numba.int64, "u32": numba.uint32, "u64": numba.uint64,
        "f32": numba.float32, "f64": numba.float64,
    }
    for name, value in members.items():
        setattr(module, name, value)
    return module


#: The language ``T`` for Numba CUDA.
T = _build()
