"""Warp and block reductions, written once in ``T`` from shuffles and shared memory.

Each is a ``@device`` function: call it from a kernel by name and it runs on every backend.
Every lane of the warp (every thread of the block) must call it, with the full warp present:
the simulator raises :class:`~gpusim.errors.CollectiveDivergence` otherwise, as the hardware
would hang or return garbage.

The butterfly (``shfl_xor``) pattern leaves the result in *every* lane, as in the GPU-Suitor
reduction of Naim et al. (HiPC 2015) (Alg. 4).

``warp_reduce_sum``, ``warp_reduce_max`` and ``warp_reduce_min`` are written out to be read: the language has
each as one member, ``T.reduce_add``, ``T.reduce_max`` and ``T.reduce_min``, which every backend computes as
this same butterfly (the same bits, floats included) and the simulator runs as one meeting of the warp
instead of five.  Kernels that only need the value use the members.

Example
-------
>>> import numpy as np
>>> from gpusim import Device, T, kernel
>>> from gpusim.language.reductions import warp_reduce_max
>>> @kernel(signature="int32[:], int32[:]")
... def warp_max(values, out):
...     best = warp_reduce_max(values[T.gtid()])
...     if T.lane_id() == 0:
...         out[T.gtid() // 32] = best
>>> dev = Device("sim", seed=0)
>>> out = dev.zeros(1, np.int32)
>>> _ = dev.launch(warp_max, grid=1, block=32, args=(dev.array(np.arange(32, dtype=np.int32) % 7), out))
>>> int(dev.to_host(out)[0])
6
"""

from __future__ import annotations

from gpusim.language import interface as T
from gpusim.language.kernels import device

__all__ = ["warp_reduce_max", "warp_reduce_min", "warp_reduce_sum", "warp_scan_sum"]


@device
def warp_reduce_sum(value):
    """The sum of ``value`` over the 32 lanes, in every lane (butterfly of ``shfl_xor``)."""
    offset = 16
    while offset > 0:
        value = value + T.shfl_xor(value, offset)
        offset = offset // 2
    return value


@device
def warp_reduce_max(value):
    """The maximum of ``value`` over the 32 lanes, in every lane."""
    offset = 16
    while offset > 0:
        value = max(value, T.shfl_xor(value, offset))
        offset = offset // 2
    return value


@device
def warp_reduce_min(value):
    """The minimum of ``value`` over the 32 lanes, in every lane."""
    offset = 16
    while offset > 0:
        value = min(value, T.shfl_xor(value, offset))
        offset = offset // 2
    return value


@device
def warp_scan_sum(value):
    """The inclusive prefix sum of ``value`` over the lanes: lane ``k`` gets the sum of lanes ``0..k``
    (Hillis-Steele with ``shfl_up``); lane 31 holds the warp's total.  Compacting a warp's items into
    consecutive slots is ``slot = warp_scan_sum(keep) - 1`` (Naim et al., HiPC 2015, Alg. 4 line 9)."""
    offset = 1
    while offset < 32:
        below = T.shfl_up(value, offset)
        if T.lane_id() >= offset:
            value = value + below
        offset = offset * 2
    return value
