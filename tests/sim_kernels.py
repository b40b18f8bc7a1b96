"""Small kernels the simulator tests run (also compiled headless for the GPU backends)."""

from __future__ import annotations

from gpusim import T, device, kernel
from gpusim.language.reductions import warp_reduce_max


@kernel(signature="int32[:], int32")
def racy_count(counter, n):
    """Every thread adds one to counter[0] with a plain load and store: updates get lost."""
    i = T.gtid()
    if i < n:
        counter[0] = counter[0] + 1


@kernel(signature="int32[:], int32")
def atomic_count(counter, n):
    """The repaired counter: one indivisible atomic add per thread."""
    i = T.gtid()
    if i < n:
        T.atomic_add(counter, 0, 1)


@kernel(signature="int32[:], int32[:], int32[:], int32")
def neighbour_max(ptr, adj, out, n):
    """A warp per vertex: lanes stride over the CSR neighbour list, a butterfly takes the maximum."""
    vertex = T.gtid() // 32
    best = -1
    if vertex < n:
        j = ptr[vertex] + T.lane_id()
        while j < ptr[vertex + 1]:
            best = max(best, adj[j])
            j = j + 32
    best = warp_reduce_max(best)
    if vertex < n:
        if T.lane_id() == 0:
            out[vertex] = best


@device
def acquire(lock):
    while T.atomic_cas(lock, 0, 0, 1) != 0:
        pass
    T.threadfence()


@device
def release(lock):
    T.threadfence()
    T.atomic_exch(lock, 0, 0)


@kernel(signature="int32[:], int32[:], int32")
def locked_count(lock, counter, n):
    """A CAS spin lock around a plain read-modify-write: correct under any schedule."""
    i = T.gtid()
    if i < n:
        acquire(lock)
        counter[0] = counter[0] + 1
        release(lock)


@kernel(signature="int32[:]")
def divergent_barrier(out):
    """syncthreads inside a branch that only even threads take: barrier divergence."""
    i = T.thread_id()
    if i % 2 == 0:
        T.syncthreads()
    out[i] = 1


@kernel(signature="int32[:], int32[:]")
def wait_for_flag(flag, out):
    """Thread 0 waits for a flag that no thread ever sets: livelock."""
    if T.thread_id() == 0:
        while T.atomic_load(flag, 0) == 0:
            pass
    out[T.thread_id()] = 1


@kernel(signature="int32[:], int32")
def out_of_bounds(a, offset):
    """Thread i writes a[i + offset]: out of bounds for the last threads, or negative."""
    a[T.thread_id() + offset] = 7


@kernel(signature="int32[:]")
def block_sum(out):
    """Shared-memory tree reduction of the thread ids of a block, with a barrier per level."""
    cache = T.shared_array(64, T.i32)
    tid = T.thread_id()
    cache[tid] = tid
    T.syncthreads()
    stride = 32
    while stride > 0:
        if tid < stride:
            cache[tid] = cache[tid] + cache[tid + stride]
        T.syncthreads()
        stride = stride // 2
    if tid == 0:
        out[T.block_id()] = cache[0]


@kernel(signature="int32[:]")
def read_before_write(out):
    """Reads a shared element no thread wrote."""
    scratch = T.shared_array(32, T.i32)
    out[T.thread_id()] = scratch[T.thread_id()]


@kernel(signature="int32[:]")
def early_exit_shuffle(out):
    """Half the lanes return, the rest shuffle: the classic collective after exit."""
    lane = T.lane_id()
    if lane >= 16:
        return
    out[lane] = T.shfl_down(lane, 1)


@kernel(signature="int32[:], uint32[:], int32[:]")
def warp_votes(values, ballots, flags):
    """ballot / any / all of (value > 0) per warp."""
    i = T.gtid()
    positive = values[i] > 0
    mask = T.ballot(positive)
    some = T.any(positive)
    every = T.all(positive)
    if T.lane_id() == 0:
        w = i // 32
        ballots[w] = mask
        flags[2 * w] = some
        flags[2 * w + 1] = every


@kernel(signature="int32[:]")
def barrier_against_shuffle(out):
    """Lane 0 waits at a shuffle for lanes that wait at syncthreads for lane 0: deadlock."""
    lane = T.lane_id()
    if lane == 0:
        out[0] = T.shfl_idx(lane, 0)
    else:
        T.syncthreads()
