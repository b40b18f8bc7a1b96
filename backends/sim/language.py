"""``T`` for the simulator (also ``gpusim.T``): every member of :mod:`gpusim.language`.

Each simulated thread is a greenlet (:class:`~gpusim.backends.sim.scheduler.SimThread`); these
functions read the calling thread's indices from it, and turn memory operations and
collectives into scheduling points of its simulator.  Called outside a launch they raise
:class:`~gpusim.errors.GpusimError`.

>>> from gpusim import T
>>> T.i32(2**31), T.u32(-1), T.f32(0.1) == 0.1
(-2147483648, 4294967295, False)
"""

from __future__ import annotations

import sys

from greenlet import getcurrent

from gpusim.errors import GpusimError, InvalidArgumentType
from gpusim.language.casts import CASTS, dtype_of
from gpusim.language.members import WARP_SIZE

__all__ = [  # noqa: F822  (any and all are defined below, shadowing the builtins on purpose)
    "all", "any", "atomic_add", "atomic_cas", "atomic_exch", "atomic_load", "atomic_max", "atomic_min",
    "ballot", "block_id", "block_size", "f32", "f64", "grid_size", "gtid", "i32", "i64", "lane_id",
    "local_array", "num_threads", "reduce_add", "reduce_max", "reduce_min", "shared_array", "shfl_down",
    "shfl_idx", "shfl_up", "shfl_xor",
    "syncthreads", "syncwarp", "thread_id", "threadfence", "u32", "u64", "warp_id", "warp_size",
]


def _thread():
    thread = getcurrent()
    if not hasattr(thread, "sim"):
        caller = sys._getframe(1).f_code.co_name
        raise GpusimError(f"T.{caller}() was called outside a kernel launch; launch kernels with Device.launch")
    return thread


# -- indices ---------------------------------------------------------------------------------
def thread_id() -> int:
    return _thread().tid


def block_id() -> int:
    return _thread().bid


def block_size() -> int:
    return _thread().sim.block


def grid_size() -> int:
    return _thread().sim.grid


def gtid() -> int:
    return _thread().index


def num_threads() -> int:
    return _thread().sim.n_threads


def lane_id() -> int:
    return _thread().tid % WARP_SIZE


def warp_id() -> int:
    return _thread().tid // WARP_SIZE


def warp_size() -> int:
    return WARP_SIZE


# -- barriers and fences -----------------------------------------------------------------------
def syncthreads() -> None:
    thread = _thread()
    thread.sim.barrier(thread)


def syncwarp() -> None:
    thread = _thread()
    thread.sim.collective(thread, "syncwarp", 0, 0)


def threadfence() -> None:
    thread = _thread()
    thread.sim.fence(thread)


# -- warp shuffles and votes -------------------------------------------------------------------
def shfl_down(value, delta):
    thread = _thread()
    return thread.sim.collective(thread, "shfl_down", value, delta)


def shfl_up(value, delta):
    thread = _thread()
    return thread.sim.collective(thread, "shfl_up", value, delta)


def shfl_xor(value, lane_mask):
    thread = _thread()
    return thread.sim.collective(thread, "shfl_xor", value, lane_mask)


def shfl_idx(value, src_lane):
    thread = _thread()
    return thread.sim.collective(thread, "shfl_idx", value, src_lane)


def ballot(predicate) -> int:
    thread = _thread()
    return thread.sim.collective(thread, "ballot", 1 if predicate else 0, 0)


def any(predicate) -> int:  # noqa: A001  (the language's name, as CUDA's __any_sync)
    thread = _thread()
    return thread.sim.collective(thread, "any", 1 if predicate else 0, 0)


def all(predicate) -> int:  # noqa: A001
    thread = _thread()
    return thread.sim.collective(thread, "all", 1 if predicate else 0, 0)


# -- warp reductions: one rendezvous, the butterfly computed as the hardware's shuffles would ------
def reduce_add(value):
    thread = _thread()
    return thread.sim.collective(thread, "reduce_add", value, 0)


def reduce_max(value):
    thread = _thread()
    return thread.sim.collective(thread, "reduce_max", value, 0)


def reduce_min(value):
    thread = _thread()
    return thread.sim.collective(thread, "reduce_min", value, 0)


# -- atomics: one indivisible scheduling point each ------------------------------------------
def atomic_cas(array, index, expected, new):
    return _array(array, "atomic_cas").atomic("atomic_cas", index, new, expected)


def atomic_add(array, index, value):
    return _array(array, "atomic_add").atomic("atomic_add", index, value)


def atomic_min(array, index, value):
    return _array(array, "atomic_min").atomic("atomic_min", index, value)


def atomic_max(array, index, value):
    return _array(array, "atomic_max").atomic("atomic_max", index, value)


def atomic_exch(array, index, value):
    return _array(array, "atomic_exch").atomic("atomic_exch", index, value)


def atomic_load(array, index):
    return _array(array, "atomic_load").atomic("atomic_load", index, 0)


def _array(array, operation: str):
    if not hasattr(array, "atomic"):
        raise InvalidArgumentType(f"T.{operation} needs a device, shared or local array, got {array!r}")
    return array


# -- memory ------------------------------------------------------------------------------------
def shared_array(size, dtype):
    thread = _thread()
    return thread.sim.shared_array(thread, size, dtype_of(dtype), sys._getframe(1))


def local_array(size, dtype):
    thread = _thread()
    return thread.sim.local_array(thread, size, dtype_of(dtype), sys._getframe(1))


# -- casts (also the dtypes of shared and local arrays): the language's own, shared with the neutral T
i32, i64, u32, u64, f32, f64 = (CASTS[name] for name in ("i32", "i64", "u32", "u64", "f32", "f64"))
