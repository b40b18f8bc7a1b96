"""Broken twin of GPU Suitor: a proposal written with a plain load and store instead of a CAS."""

from __future__ import annotations

from gpusim import T, kernel
from gpusim.algorithms.weighted import best_entry, offer_beats


@kernel(signature="int32[:], int32[:], float64[:], int32[:], int32[:], int32")
def suitor_without_cas(ptr, adj, weights, src, ws, n):
    """Suitor (seed 003, Paper I, Alg. 3) with the lock (our CAS) removed: two suitors can both win.

    The twin of :func:`gpusim.algorithms.weighted.suitor_thread_per_vertex`: the proposal reads
    ``ws[partner]``, compares, and stores with plain memory operations, so two proposers that
    both read the old offer both believe they won, and one of them is lost.
    """
    u = T.gtid()
    while u < n:
        current = u
        while current >= 0:
            entry = best_entry(ptr, adj, weights, src, ws, current, 0, 1)
            if entry < 0:
                current = -1
            else:
                partner = adj[entry]
                held = ws[partner]
                if offer_beats(weights, src, held, weights[entry], current) == 1:
                    ws[partner] = entry
                    if held < 0:
                        current = -1
                    else:
                        current = src[held]
        u += T.num_threads()
