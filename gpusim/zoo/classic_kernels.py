"""Kernels of the classic zoo entries, each a broken twin beside its fixed twin.

Sources: the CUDA C Programming Guide (§7.6 synchronisation, §7.22 warp shuffles, §7.5 memory
fences: the ``__threadfence`` example), Harris's *Optimizing Parallel Reduction in CUDA* (NVIDIA,
2007), and the lock idioms in Sanders and Kandrot, *CUDA by Example* (2010), appendix A.
"""

from __future__ import annotations

from gpusim import T, kernel

# -- a lost update -------------------------------------------------------------------------------


@kernel(signature="int32[:], int32")
def count_plain(counter, n):
    """Broken: ``counter[0] = counter[0] + 1``, a load and a store another thread can come between."""
    i = T.gtid()
    if i < n:
        counter[0] = counter[0] + 1


@kernel(signature="int32[:], int32")
def count_atomic(counter, n):
    """Fixed: one indivisible ``atomic_add``."""
    i = T.gtid()
    if i < n:
        T.atomic_add(counter, 0, 1)


# -- a shared-memory reduction (Harris 2007, reduction #1) ------------------------------------------


@kernel(signature="int32[:], int32[:]")
def block_sum_missing_syncthreads(values, total):
    """Broken: the tree reduction without the ``syncthreads`` between levels (blocks of 8 threads)."""
    cache = T.shared_array(8, T.i32)
    t = T.thread_id()
    cache[t] = values[t]
    T.syncthreads()
    stride = T.block_size() // 2
    while stride > 0:
        if t < stride:
            cache[t] = cache[t] + cache[t + stride]
        stride = stride // 2
    if t == 0:
        total[0] = cache[0]


@kernel(signature="int32[:], int32[:]")
def block_sum(values, total):
    """Fixed: every level ends at a ``syncthreads`` all threads reach."""
    cache = T.shared_array(8, T.i32)
    t = T.thread_id()
    cache[t] = values[t]
    T.syncthreads()
    stride = T.block_size() // 2
    while stride > 0:
        if t < stride:
            cache[t] = cache[t] + cache[t + stride]
        T.syncthreads()
        stride = stride // 2
    if t == 0:
        total[0] = cache[0]


# -- a barrier in divergent code ---------------------------------------------------------------------


@kernel(signature="int32[:], int32")
def rotate_divergent_barrier(values, n):
    """Broken: the ``syncthreads`` sits inside ``if t < n``; threads ``t >= n`` never reach it."""
    cache = T.shared_array(4, T.i32)
    t = T.thread_id()
    if t < n:
        cache[t] = values[t]
        T.syncthreads()
        values[t] = cache[(t + 1) % n]


@kernel(signature="int32[:], int32")
def rotate(values, n):
    """Fixed: every thread reaches the barrier; only the memory accesses are guarded."""
    cache = T.shared_array(4, T.i32)
    t = T.thread_id()
    if t < n:
        cache[t] = values[t]
    T.syncthreads()
    if t < n:
        values[t] = cache[(t + 1) % n]


# -- a shuffle after some lanes exited ---------------------------------------------------------------


@kernel(signature="int32[:], int32[:], int32")
def warp_sum_after_exit(values, total, n):
    """Broken: lanes ``>= n`` leave before the full-mask shuffles the others wait in."""
    lane = T.lane_id()
    if lane < n:
        v = values[lane]
        offset = 16
        while offset > 0:
            v = v + T.shfl_down(v, offset)
            offset = offset // 2
        if lane == 0:
            total[0] = v


@kernel(signature="int32[:], int32[:], int32")
def warp_sum(values, total, n):
    """Fixed: every lane shuffles (lanes ``>= n`` contribute 0); only the load is guarded."""
    lane = T.lane_id()
    v = 0
    if lane < n:
        v = values[lane]
    offset = 16
    while offset > 0:
        v = v + T.shfl_down(v, offset)
        offset = offset // 2
    if lane == 0:
        total[0] = v


# -- spin locks --------------------------------------------------------------------------------------


@kernel(signature="int32[:], int32[:], int32")
def count_under_spin_lock(lock, counter, n):
    """Broken under lockstep warps: the loser spins while the winner, a lane of the same warp, waits to run."""
    i = T.gtid()
    if i < n:
        while T.atomic_cas(lock, 0, 0, 1) != 0:
            pass
        counter[0] = counter[0] + 1
        T.threadfence()
        T.atomic_exch(lock, 0, 0)


@kernel(signature="int32[:], int32[:], int32")
def count_under_warp_safe_lock(lock, counter, n):
    """Fixed: the critical section sits inside the loop, so the lane that wins runs it before the warp loops."""
    i = T.gtid()
    if i < n:
        done = 0
        while done == 0:
            if T.atomic_cas(lock, 0, 0, 1) == 0:
                counter[0] = counter[0] + 1
                T.threadfence()
                T.atomic_exch(lock, 0, 0)
                done = 1


@kernel(signature="int32[:], int32[:], int32")
def count_under_lock_without_fence(lock, counter, n):
    """Broken under weak memory: the unlock can become visible before the counter's store."""
    i = T.gtid()
    if i < n:
        done = 0
        while done == 0:
            if T.atomic_cas(lock, 0, 0, 1) == 0:
                counter[0] = counter[0] + 1
                T.atomic_exch(lock, 0, 0)
                done = 1


# -- message passing: a spin on a plain load ------------------------------------------------------------


@kernel(signature="int32[:], int32[:], int32[:]")
def message_plain_spin(data, flag, seen):
    """Broken under weak memory: the consumer polls the flag with plain loads and reads the data unfenced."""
    if T.gtid() == 0:
        data[0] = 42
        T.threadfence()
        T.atomic_exch(flag, 0, 1)
    elif T.gtid() == 1:
        while flag[0] == 0:
            pass
        seen[0] = data[0]


@kernel(signature="int32[:], int32[:], int32[:]")
def message_atomic_spin(data, flag, seen):
    """Fixed: the consumer polls with ``atomic_load`` and fences before reading the data."""
    if T.gtid() == 0:
        data[0] = 42
        T.threadfence()
        T.atomic_exch(flag, 0, 1)
    elif T.gtid() == 1:
        while T.atomic_load(flag, 0) == 0:
            pass
        T.threadfence()
        seen[0] = data[0]


@kernel(signature="int32[:], int32[:], int32")
def count_under_fenced_lock(lock, counter, n):
    """Fixed for weak memory: a fence after taking the lock (acquire) and before releasing it (release)."""
    i = T.gtid()
    if i < n:
        done = 0
        while done == 0:
            if T.atomic_cas(lock, 0, 0, 1) == 0:
                T.threadfence()
                counter[0] = counter[0] + 1
                T.threadfence()
                T.atomic_exch(lock, 0, 0)
                done = 1
