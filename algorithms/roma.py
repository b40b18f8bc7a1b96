"""Parallel ROMA on complete graphs: 4-cycle augmentation with lock-protected flips (seed 002, Alg. 6–8).

A perfect matching of a complete graph (weights a dense ``n × n`` matrix, stored flat) is
improved in phases ([002]_).  In a phase every matching edge ``(u, M[u])`` with ``u < M[u]`` looks for
the other matching edge ``(x, M[x])`` whose swap — to ``(u, x), (M[u], M[x])`` or to
``(u, M[x]), (M[u], x)`` — gains most, and swaps them with :func:`atomic_flip` (Alg. 7): lock
``min(u, x)`` first, then ``max(u, x)``, check that both mates are unchanged, flip, fence,
unlock.  Lemma 4.1.1: while a positive-gain 4-cycle exists, some thread of every phase flips.

References
----------
.. [002] S. Hovland, "Maximum weighted matching on a GPU", MSc thesis, University of Bergen,
   2020 (seed 002), §4.1: Alg. 6 (a thread per matching edge), Alg. 7 (atomicFlip), Alg. 8 (a
   block per matching edge with a block reduction of (a, b, gain)).

Example
-------
>>> import numpy as np
>>> w = np.array([[0, 1, 5, 0], [1, 0, 0, 5], [5, 0, 0, 1], [0, 5, 1, 0]], float)
>>> result = roma(w, "i,i+1", backend="sim")
>>> result.mate.tolist(), result.weight, result.stats["phase_weights"]
([2, 3, 0, 1], 10.0, [2.0, 10.0, 10.0])
"""

from __future__ import annotations

import math

import numpy as np

from gpusim import T, device, kernel
from gpusim.errors import InvalidArgument, InvalidArgumentType, InvariantViolation
from gpusim.runtime.device import Device
from gpusim.runtime.launcher import Launcher, fill

from .weighted_cpu import prepare_augmentation, unpad
from .weighted_result import WeightedMatching

__all__ = ["atomic_flip", "flip_with", "lock_order", "next_vertex", "roma", "roma_block_phase", "roma_thread_phase"]


#: ROMA's scans read the matching while other threads flip it (seed 002, Alg. 6 and 8); atomicFlip
#: re-reads both edges under all four locks before it flips, so a stale read only costs a failed flip.
_SCAN_RACES = {"mate": "the gain scan reads mates unlocked; atomicFlip re-checks them under the locks"}


@device
def next_vertex(p0, p1, p2, p3, after, descending):
    """The smallest of ``p0..p3`` above ``after`` (the largest below it when ``descending``)."""
    found = -1
    for k in range(4):
        p = p0
        if k == 1:
            p = p1
        elif k == 2:
            p = p2
        elif k == 3:
            p = p3
        if descending == 0:
            if p > after and (found < 0 or p < found):
                found = p
        elif p < after and (found < 0 or p > found):
            found = p
    return found


@device
def lock_order(u, mate_u, x, y, first, descending, k):
    """The ``k``-th vertex to lock: ``first`` (when not -1), then the four endpoints in
    increasing (``descending``: decreasing) order, ``first`` skipped."""
    v = first
    wanted = k
    if first >= 0:
        wanted = k - 1
    last = -1
    if descending == 1:
        last = 2147483647
    i = 0
    while i <= wanted:
        v = next_vertex(u, mate_u, x, y, last, descending)
        last = v
        if v != first:
            i += 1
    return v


@device
def flip_with(mate, locks, a, b, u, mate_u, flips, first, descending, check, fence):
    """atomicFlip's steps, each a parameter, so the zoo's broken twins differ in one argument.

    Takes the four endpoints' locks in :func:`lock_order`, one CAS each, and gives up (releasing
    what it holds) at the first lock already taken.  Holding all four, it checks (``check``)
    that ``u``'s and ``x``'s edges are still as read, flips, fences (``fence``), counts the flip
    and unlocks.  It never waits for a lock, so lockstep warps (pre-Volta) cannot deadlock on these
    locks.
    """
    x = min(a, b)
    y = max(a, b)
    taken = 0
    going = 1
    while going == 1 and taken < 4:
        if T.atomic_cas(locks, lock_order(u, mate_u, x, y, first, descending, taken), -1, u) == -1:
            taken += 1
        else:
            going = 0
    if taken == 4:
        if check == 0 or (T.atomic_load(mate, u) == mate_u and T.atomic_load(mate, x) == y):
            mate[u] = a
            mate[a] = u
            mate[mate_u] = b
            mate[b] = mate_u
            if fence == 1:
                T.threadfence()
            T.atomic_add(flips, 0, 1)
    for k in range(taken):
        T.atomic_exch(locks, lock_order(u, mate_u, x, y, first, descending, taken - 1 - k), -1)


@device
def atomic_flip(mate, locks, a, b, u, mate_u, flips):
    """atomicFlip (seed 002, Alg. 7): swap ``(u, mate_u), (x, M[x])`` to ``(u, a), (mate_u, b)`` safely.

    Locks are taken in one global order (increasing vertex id), which is what guarantees
    progress (Lemma 4.1.1); once they are held the mates are re-read atomically, since another
    thread may have flipped either edge since they were first read; the fence makes the flip
    visible before the locks open.  Counts a successful flip in ``flips[0]``.

    Alg. 7 locks two vertices, ``min(u, x)`` then ``max(u, x)``; this locks all four endpoints.
    With two, a thread preempted half-way through its four stores leaves ``M[mate_u] = b`` for a
    vertex it does not lock; if ``mate_u < b`` the thread of ``mate_u`` reads that half-written
    edge, locks ``mate_u`` (free), passes its check and flips it while the first thread is still
    writing: the matching breaks (found by ``gpusim explore`` under one preemption).  Locking
    every endpoint of both edges makes any flip touching a vertex wait for it.
    """
    flip_with(mate, locks, a, b, u, mate_u, flips, -1, 0, 1, 1)


@kernel(signature="float64[:], int32[:], int32[:], int32, float64, int32[:]", intended_races=_SCAN_RACES)
def roma_thread_phase(w, mate, locks, n, threshold, flips):
    """A parallel ROMA phase, a thread per matching edge (seed 002, Alg. 6 with augLocks = Alg. 5 + Alg. 7).

    Thread ``u`` (for ``u < M[u]``) scans every other matching edge ``(x, M[x])`` (``x < M[x]``)
    for the swap of largest gain above ``threshold``, then tries :func:`atomic_flip`.
    """
    u = T.gtid()
    while u < n:
        mate_u = mate[u]
        if u < mate_u:
            gain = threshold
            a = -1
            b = -1
            for x in range(n):
                mate_x = mate[x]
                if x != u and x != mate_u and x < mate_x:
                    current = w[u * n + mate_u] + w[x * n + mate_x]
                    w1 = w[u * n + x] + w[mate_u * n + mate_x]
                    w2 = w[u * n + mate_x] + w[mate_u * n + x]
                    if w1 > w2:
                        if w1 - current > gain:
                            gain = w1 - current
                            a = x
                            b = mate_x
                    elif w2 - current > gain:
                        gain = w2 - current
                        a = mate_x
                        b = x
            if a >= 0:
                atomic_flip(mate, locks, a, b, u, mate_u, flips)
        u += T.num_threads()


@kernel(signature="float64[:], int32[:], int32[:], int32, float64, int32[:]", intended_races=_SCAN_RACES)
def roma_block_phase(w, mate, locks, n, threshold, flips):
    """A parallel ROMA phase, a block per matching edge (seed 002, Alg. 8).

    Block ``u`` (for ``u < M[u]``): its threads stride over the other matching edges, each keeps
    its best (gain, a, b), a shared-memory tree reduction finds the block's best, and thread 0
    tries :func:`atomic_flip`.  Thread 0 reads ``M[u]`` once into shared memory for the whole
    block: in Alg. 8 every thread re-reads it (line 3), and if another block flips ``u``'s edge
    in between, threads of one block disagree on taking the branch that holds ``syncthreads`` —
    a divergent barrier.  Block size: a power of two, at most 256.
    """
    gains = T.shared_array(256, T.f64)
    news = T.shared_array(256, T.i32)
    others = T.shared_array(256, T.i32)
    shared_mate = T.shared_array(1, T.i32)
    u = T.block_id()
    while u < n:
        tid = T.thread_id()
        if tid == 0:
            shared_mate[0] = T.atomic_load(mate, u)
        T.syncthreads()
        mate_u = shared_mate[0]
        if u < mate_u:
            gain = threshold
            a = -1
            b = -1
            x = tid
            while x < n:
                mate_x = mate[x]
                if x != u and x != mate_u and x < mate_x:
                    current = w[u * n + mate_u] + w[x * n + mate_x]
                    w1 = w[u * n + x] + w[mate_u * n + mate_x]
                    w2 = w[u * n + mate_x] + w[mate_u * n + x]
                    if w1 > w2:
                        if w1 - current > gain:
                            gain = w1 - current
                            a = x
                            b = mate_x
                    elif w2 - current > gain:
                        gain = w2 - current
                        a = mate_x
                        b = x
                x += T.block_size()
            gains[tid] = gain
            news[tid] = a
            others[tid] = b
            T.syncthreads()
            stride = T.block_size() // 2
            while stride > 0:
                if tid < stride:
                    if gains[tid + stride] > gains[tid]:
                        gains[tid] = gains[tid + stride]
                        news[tid] = news[tid + stride]
                        others[tid] = others[tid + stride]
                T.syncthreads()
                stride = stride // 2
            if tid == 0:
                if news[0] >= 0:
                    atomic_flip(mate, locks, news[0], others[0], u, mate_u, flips)
        T.syncthreads()
        u += T.grid_size()


#: Threads per block for :func:`roma_block_phase` per backend (a power of two, at most 256).
ROMA_BLOCK = {"sim": 32, "numba": 256, "cupy": 256}


def roma(weights, mate="i,i+1", *, backend: str = "auto", variant: str = "block", threshold: float = 1e-5,
         max_phases: int | None = None, pad: bool = False, seed: int = 0, device: Device | None = None,
         check_invariants: bool = False, max_memory: int | None = None) -> WeightedMatching:
    """Parallel ROMA (seed 002, Alg. 9 with the phase of Alg. 6 or Alg. 8) on a GPU backend.

    Parameters
    ----------
    weights:
        A symmetric non-negative ``n × n`` matrix: the complete graph (seed 002's setting: every
        pair of distinct vertices is an edge, those of weight 0 included, and the result is a
        perfect matching of it).  For a sparse graph,
        :func:`gpusim.algorithms.weighted.maximum_weight_matching` runs ROMA on its dense matrix
        (non-edges weigh 0) and then drops the pairs that are not edges of the graph.
    mate:
        The start matching: a perfect matching array, or one of ``"i,i+1"``, ``"i,i+n/2"``,
        ``"shuffled"``, ``"greedy"``, ``"gpa"`` (:func:`~gpusim.algorithms.weighted_cpu.start_matching`).
    variant:
        ``"block"``: ROMA 2, a block per matching edge with a block reduction (Alg. 8, the
        thesis's faster one); ``"thread"``: ROMA 1, a thread per matching edge (Alg. 6).
    threshold:
        A swap must gain more than this (the thesis's 10^-5); 0 runs to full convergence.
    max_phases:
        Stop after this many phases (None: when a phase flips nothing).
    pad:
        For odd ``n``, add a dummy vertex whose edges weigh 0; its partner comes back as -1.
    check_invariants:
        After every phase, check the matching is still perfect and its weight did not decrease,
        and that a phase without flips leaves no 4-cycle of gain above ``threshold`` (Lemma
        4.1.1); raise :class:`~gpusim.errors.InvariantViolation` otherwise.
    max_memory:
        Refuse (``InvalidArgument``, before allocating) when the padded copy and the device copy
        of the matrix would take more bytes
        (:func:`~gpusim.algorithms.weighted_cpu.augmentation_bytes`); default half the memory
        available.

    Returns
    -------
    WeightedMatching
        ``stats["phase_weights"]`` lists the weight before the first phase and after each one;
        ``stats["phase_flips"]`` the flips per phase.

    Examples
    --------
    >>> import numpy as np
    >>> roma(np.zeros((0, 0)), backend="sim").mate.tolist()
    []
    """
    if variant not in ("block", "thread"):
        raise InvalidArgument(f"variant={variant!r} is not one of ('block', 'thread')")
    if not isinstance(check_invariants, bool):
        raise InvalidArgumentType(f"check_invariants must be True or False, got {check_invariants!r}")
    if device is not None and not isinstance(device, Device):
        raise InvalidArgumentType(f"device must be a gpusim.Device, got {device!r}")
    w, start, n, padded, threshold, max_phases, _ = prepare_augmentation(weights, mate, threshold, max_phases, pad,
                                                                         seed, max_memory, on_device=True)
    size = w.shape[0]
    dev = device if device is not None else Device(backend)
    launch = Launcher(dev)
    # mate[v]: v's partner in the perfect matching; locks[v]: -1 free, else the locking thread's vertex.
    flat = dev.array(np.ascontiguousarray(w, np.float64).ravel() if size else np.zeros(1))
    mate_dev = dev.array(start if size else np.full(1, -1, np.int32))
    locks = dev.full(max(size, 1), -1, np.int32)
    flips = dev.zeros(1, np.int32)
    weights_after = [_weight(w, start)]
    flips_per_phase: list[int] = []
    while size and (max_phases is None or len(flips_per_phase) < max_phases):
        with launch.phase("phases"):
            launch(fill, 1, 32, flips, 0, 1)
            if variant == "block":
                block = ROMA_BLOCK[dev.backend]
                launch(roma_block_phase, size, block, flat, mate_dev, locks, size, threshold, flips)
            else:
                block = 32 if dev.backend == "sim" else 256
                launch(roma_thread_phase, Device.grid_for(size, block), block, flat, mate_dev, locks, size, threshold,
                       flips)
            flipped = launch.flag(flips)
        current = dev.to_host(mate_dev)[:size]
        flips_per_phase.append(flipped)
        weights_after.append(_weight(w, current))
        if check_invariants:
            _check_phase(dev, w, current, weights_after, flipped, threshold)
        if flipped == 0:
            break
    final = dev.to_host(mate_dev)[:size] if size else np.zeros(0, np.int32)
    stats = {"variant": variant, "phases": len(flips_per_phase), "phase_weights": weights_after,
             "phase_flips": flips_per_phase, "threshold": threshold, "launches": dict(launch.launches),
             "seconds": dict(launch.seconds)}
    return WeightedMatching(unpad(final, n, padded), weights_after[-1], "roma", dev.backend, stats, w[:n, :n])


def _weight(w: np.ndarray, mate: np.ndarray) -> float:
    first = np.flatnonzero(np.arange(mate.size) < mate)
    return math.fsum(w[first, mate[first]].tolist())


def best_gain(w: np.ndarray, mate: np.ndarray) -> float:
    """The largest gain of any 4-cycle swap of ``mate`` (0 when none gains): a sequential check."""
    first = np.flatnonzero(np.arange(mate.size) < mate)
    if first.size < 2:
        return 0.0
    u, v = first[:, None], mate[first][:, None]
    x, y = first[None, :], mate[first][None, :]
    current = w[u, v] + w[x, y]
    gains = np.maximum(w[u, x] + w[v, y], w[u, y] + w[v, x]) - current
    np.fill_diagonal(gains, 0.0)
    return float(max(0.0, gains.max()))


def _check_phase(dev, w, mate, weights_after, flipped, threshold) -> None:
    size = mate.size
    problem = None
    if not (np.array_equal(mate[mate], np.arange(size)) and not (mate == np.arange(size)).any()):
        problem = "the matching is no longer perfect (some vertex's mate does not point back)"
    elif weights_after[-1] < weights_after[-2] - 1e-9 * max(1.0, abs(weights_after[-2])):
        problem = f"the weight decreased from {weights_after[-2]} to {weights_after[-1]}"
    elif flipped == 0 and best_gain(w, mate) > threshold:
        problem = (f"a phase flipped nothing though a 4-cycle of gain {best_gain(w, mate):.6g} > {threshold} exists "
                   f"(Lemma 4.1.1 says some thread always flips)")
    if problem is not None:
        phase = len(weights_after) - 1
        raise InvariantViolation(f"InvariantViolation: after ROMA phase {phase}: {problem}",
                                 token=dev.token if dev.backend == "sim" else None)
