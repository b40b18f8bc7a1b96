"""The result of stable marriage built on the device (Manne et al., CSC 2016 §4): each man's wife from the women's
slots, and the number of proposals made, so the host copies back one array of ``n_men`` and one number.

:func:`wives_from_held` reads every slot of woman ``w`` (offers packed ``rank << 32 | man``,
:mod:`gpusim.algorithms.stable.slots`) and writes ``wife[man] = w``; :func:`proposals_made` adds, per warp,
how far each man went down his list (``man_next[m] - men_ptr[m]``) and :func:`sum_warps` adds the warps'
sums in a fixed order.  :func:`list_starts` sets every man at the top of his list when the lists are
already on the device (no copy of ``men_ptr`` in).

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> from gpusim.algorithms.stable.slots import EMPTY, LOW
>>> dev = Device("sim", seed=0)
>>> held = dev.array(np.array([EMPTY, (0 << 32) | 1, (1 << 32) | 0], np.int64))
>>> wife = dev.full(2, -1, np.int32)
>>> _ = dev.launch(wives_from_held, grid=1, block=32,
...                args=(held, dev.array(np.array([0, 1, 3], np.int32)), 2, wife, LOW, EMPTY))
>>> dev.to_host(wife).tolist()
[1, 1]
"""

from __future__ import annotations

from gpusim import T, kernel

__all__ = ["list_starts", "proposals_made", "sum_warps", "wives_from_held"]


@kernel(signature="int64[:], int32[:], int32, int32[:], int64, int64")
def wives_from_held(held, slot_ptr, n_women, wife, low, empty):
    """A thread per woman: every man she holds gets her as his wife (each man is held at most once)."""
    w = T.gtid()
    while w < n_women:
        for s in range(slot_ptr[w], slot_ptr[w + 1]):
            offer = held[s]
            if offer != empty:
                wife[T.i32(offer & low)] = w
        w += T.num_threads()


@kernel(signature="int32[:], int32[:], int32, int64[:]")
def proposals_made(men_ptr, man_next, n_men, partial):
    """Each warp's total of ``man_next[m] - men_ptr[m]`` (the positions of his list a man has passed), stored
    by lane 0 at the warp's index."""
    m = T.gtid()
    made = T.i64(0)
    while m < n_men:
        made += T.i64(man_next[m] - men_ptr[m])
        m += T.num_threads()
    made = T.reduce_add(made)
    if T.lane_id() == 0:
        partial[T.gtid() // 32] = made


@kernel(signature="int64[:], int32, int64[:]")
def sum_warps(partial, k, total):
    """One warp adds the ``k`` warps' sums in a fixed order into ``total[0]``."""
    i = T.lane_id()
    s = T.i64(0)
    while i < k:
        s += partial[i]
        i += 32
    s = T.reduce_add(s)
    if T.gtid() == 0:
        total[0] = s


@kernel(signature="int32[:], int32, int32[:]")
def list_starts(men_ptr, n_men, man_next):
    """``man_next[m] = men_ptr[m]``: each man starts at the top of his list (lists already on the device)."""
    m = T.gtid()
    while m < n_men:
        man_next[m] = men_ptr[m]
        m += T.num_threads()
