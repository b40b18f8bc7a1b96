"""The kernels around parallel ROMA's phases when its input and output stay on the device (Hovland, MSc thesis 2020,
Alg. 9).

Alg. 9 runs phases (:mod:`gpusim.algorithms.weighted.kernels_roma`) until one flips nothing, and the thesis reports
the weight after each.  These kernels do the rest of that loop where the matrix lives, so the host copies back two
numbers a phase, never the matrix nor the matching:

* :func:`weight_matrix_check` — the rules of ``gpusim.types.complete_graphs.check_weight_matrix`` (finite,
  non-negative, exactly symmetric) on a matrix already on the device, recording the first offence of each kind;
* :func:`pad_matrix` — the dummy vertex of Hovland (MSc thesis 2020) §5.1 for odd ``n``: the matrix copied into a zeroed
  ``(n + 1) x (n + 1)`` one;
* :func:`phase_weight` — after each phase, the matching's weight, the sum of ``w[u, M[u]]`` over ``u < M[u]``
  (per warp, then one warp adds the warps' sums in a fixed order: the same total on every run), and the
  phase's flips, both in one two-number array, the flip counter reset for the next phase.  It is one launch
  where the loop used to launch ``fill``, so the phases keep their launch numbers (the simulator seeds each
  launch's schedule with its number: the runs shown in the tutorials do not change);
* :func:`unpadded_mate` — the matching of the ``n`` real vertices, the dummy's partner unmatched.

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> dev = Device("sim", seed=0)
>>> w = dev.array(np.array([[0, 2, 1, 1], [2, 0, 1, 1], [1, 1, 0, 3], [1, 1, 3, 0]], float).ravel())
>>> mate, flips = dev.array(np.array([1, 0, 3, 2], np.int32)), dev.array(np.array([7], np.int32))
>>> totals = dev.zeros(2, np.float64)
>>> _ = dev.launch(phase_weight, grid=1, block=32, args=(w, mate, 4, flips, totals))
>>> dev.to_host(totals).tolist(), dev.to_host(flips).tolist()
([5.0, 7.0], [0])
"""

from __future__ import annotations

from gpusim import T, kernel

__all__ = ["pad_matrix", "phase_weight", "unpadded_mate", "weight_matrix_check"]


@kernel(signature="float64[:], int32, int32[:]")
def weight_matrix_check(w, n, bad):
    """The checks of a dense weight matrix (``w[i * n + j]``), a block per row: ``bad[0]`` the smallest position
    ``i * n + j`` of an entry that is NaN or infinite, ``bad[1]`` of a negative one, ``bad[2]`` of an entry
    ``w[i, j] != w[j, i]`` with ``i < j`` (the first of its pair in row-major order)."""
    i = T.block_id()
    while i < n:
        j = T.thread_id()
        while j < n:
            x = w[i * n + j]
            if not (x - x == 0.0):
                T.atomic_min(bad, 0, i * n + j)
            elif x < 0.0:
                T.atomic_min(bad, 1, i * n + j)
            if j > i and x != w[j * n + i]:
                T.atomic_min(bad, 2, i * n + j)
            j += T.block_size()
        i += T.grid_size()


@kernel(signature="float64[:], int32, float64[:]")
def pad_matrix(w, n, padded):
    """Hovland (MSc thesis 2020) §5.1's dummy vertex for odd ``n``: ``padded`` (``(n + 1) x (n + 1)``, zeroed
    beforehand) takes
    ``w`` in its first ``n`` rows and columns, so every edge of the dummy vertex ``n`` weighs 0."""
    i = T.block_id()
    while i < n:
        j = T.thread_id()
        while j < n:
            padded[i * (n + 1) + j] = w[i * n + j]
            j += T.block_size()
        i += T.grid_size()


@kernel(signature="float64[:], int32[:], int32, int32[:], float64[:]")
def phase_weight(w, mate, n, flips, totals):
    """After a phase (Hovland, MSc thesis 2020, Alg. 9), one block: ``totals = [weight, flips]``, the weight of the
    perfect
    matching (the sum of ``w[u, M[u]]`` over ``u < M[u]``) and the phase's flips, which it resets for the next
    phase.  Each thread adds its share, each warp its lanes (``T.reduce_add``), warp 0 the warps' sums: a fixed
    order, the same total on every run.  Block size: a multiple of 32, at most 1024."""
    warp_sums = T.shared_array(32, T.f64)
    u = T.thread_id()
    total = 0.0
    while u < n:
        mate_u = mate[u]
        if u < mate_u:
            total += w[u * n + mate_u]
        u += T.block_size()
    total = T.reduce_add(total)
    if T.lane_id() == 0:
        warp_sums[T.warp_id()] = total
    T.syncthreads()
    if T.warp_id() == 0:
        total = 0.0
        if T.lane_id() < T.block_size() // 32:
            total = warp_sums[T.lane_id()]
        total = T.reduce_add(total)
        if T.thread_id() == 0:
            totals[0] = total
            totals[1] = T.f64(flips[0])
            flips[0] = 0


@kernel(signature="int32[:], int32, int32[:]")
def unpadded_mate(mate, n, out):
    """``out[v] = M[v]`` for the ``n`` real vertices, -1 for the one matched to the dummy vertex ``n``."""
    v = T.gtid()
    while v < n:
        partner = mate[v]
        if partner == n:
            partner = -1
        out[v] = partner
        v += T.num_threads()
