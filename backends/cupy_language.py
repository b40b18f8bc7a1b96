"""``T`` for ``cupyx.jit.rawkernel``: every member of :mod:`gpusim.language` as a cupyx builtin.

This module imports CuPy; only :mod:`gpusim.backends.cupy` and :mod:`gpusim.runtime.compile` import it,
lazily.  ``cupyx.jit`` resolves ``T.<member>`` when it transpiles a kernel, so ``T`` is a module
whose members are cupyx builtins: ``syncthreads`` and ``syncwarp`` are cupyx's own; everything
else is a shim from :mod:`gpusim.backends.cupy_shims`.  Kernels are transpiled with
``mode="numpy"`` (cupyx's default ``"cuda"`` mode silently narrows types).

Example
-------
>>> from gpusim.backends.cupy_language import T
>>> from gpusim.language import MEMBERS
>>> sorted(set(MEMBERS) - set(vars(T)))
[]
>>> T.u32(-1), T.i32.dtype
(4294967295, dtype('int32'))
"""

from __future__ import annotations

import types

from cupyx import jit

from gpusim.backends import cupy_shims as shims

__all__ = ["MODE", "T", "wrap_device"]

#: The cupyx typing mode every kernel and device function is transpiled with.
MODE = "numpy"


def wrap_device(fn: types.FunctionType):
    """A cupyx device function for ``fn`` (a clone made by :func:`gpusim.language.kernels.bind`)."""
    from cupyx.jit._interface import _JitRawKernel

    # rawkernel(device=True) would warn that cupyx.jit is experimental on every call
    return _JitRawKernel(fn, MODE, True)


def _build() -> types.ModuleType:
    module = types.ModuleType("gpusim.backends.cupy.T", "The kernel language T, bound to cupyx.jit.")
    members = {
        "thread_id": shims.Index("thread_id", "threadIdx.x"),
        "block_id": shims.Index("block_id", "blockIdx.x"),
        "block_size": shims.Index("block_size", "blockDim.x"),
        "grid_size": shims.Index("grid_size", "gridDim.x"),
        "gtid": shims.Index("gtid", "blockIdx.x * blockDim.x + threadIdx.x"),
        "num_threads": shims.Index("num_threads", "gridDim.x * blockDim.x"),
        "lane_id": shims.Index("lane_id", "threadIdx.x & 31u"),
        "warp_id": shims.Index("warp_id", "threadIdx.x >> 5"),
        "warp_size": shims.Index("warp_size", "32"),
        "syncthreads": jit.syncthreads,
        "syncwarp": jit.syncwarp,
        "threadfence": shims.Statement("threadfence", "__threadfence()"),
        "shfl_down": shims.Shuffle("down"),
        "shfl_up": shims.Shuffle("up"),
        "shfl_xor": shims.Shuffle("xor"),
        "shfl_idx": shims.Shuffle("idx"),
        "ballot": shims.Vote("ballot"),
        "any": shims.Vote("any"),
        "all": shims.Vote("all"),
        "reduce_add": shims.Reduce("add"),
        "reduce_max": shims.Reduce("max"),
        "reduce_min": shims.Reduce("min"),
        "atomic_cas": shims.Atomic("cas"),
        "atomic_add": shims.Atomic("add"),
        "atomic_min": shims.Atomic("min"),
        "atomic_max": shims.Atomic("max"),
        "atomic_exch": shims.Atomic("exch"),
        "atomic_load": shims.Atomic("load"),
        "shared_array": shims.SharedArray(),
        "local_array": shims.LocalArray(),
        "i32": shims.Cast("i32", "int32"),
        "i64": shims.Cast("i64", "int64"),
        "u32": shims.Cast("u32", "uint32"),
        "u64": shims.Cast("u64", "uint64"),
        "f32": shims.Cast("f32", "float32"),
        "f64": shims.Cast("f64", "float64"),
    }
    for name, value in members.items():
        setattr(module, name, value)
    return module


#: The language ``T`` for cupyx.jit.
T = _build()
