"""The CPU engine's Louvain moves: Algorithm 2 of Naim et al. (IPDPS 2017) for a bucket of vertices, on every core.

The GPU method decides the moves of a whole degree bucket from one state (every vertex reads the same
``C``, ``k``, ``a_c``) and applies them together; :func:`bucket_moves` does that on numba's threads.  Each
vertex writes only ``new_comm[v]``; the sums of edge weights per neighbouring community go into the
scratch row of the thread that runs it (``acc[thread]``, ``touched[thread]``), so no two threads share a
slot and the choices are those of the sequential
:func:`~gpusim.algorithms.louvain.reference.bucket_louvain` exactly, whatever the number of threads.
:func:`~gpusim.algorithms.louvain.reference.bucket_louvain` with ``parallel=True`` runs it; the backend
``"cpu"`` of :func:`~gpusim.algorithms.louvain.driver.gpu_louvain` is that.

References
----------
Naim et al. (IPDPS 2017): M. Naim, F. Manne, M. Halappanavar, A. Tumeo,
"Community detection on the GPU", IPDPS 2017, Algorithm 2 and §4.1.  V. D. Blondel, J.-L. Guillaume,
R. Lambiotte, E. Lefebvre, "Fast unfolding of communities in large networks", J. Stat. Mech. 2008.

Example
-------
>>> from gpusim.algorithms.louvain.graph import karate
>>> from gpusim.algorithms.louvain.reference import bucket_louvain
>>> r = bucket_louvain(karate(), parallel=True)
>>> r.n_communities, round(r.modularity, 4)
(4, 0.4198)
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["PARALLEL_ENTRIES", "PARALLEL_FROM", "bucket_moves", "scratch"]

#: The fewest vertices of a bucket whose moves are decided in parallel (fewer: sequentially, the same choices).
PARALLEL_FROM = 4096

#: The fewest adjacency entries of a bucket whose moves are decided in parallel, however few its vertices (a
#: coarse level's communities have long rows).
PARALLEL_ENTRIES = 1 << 16


def scratch(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(acc, touched)``: a row of ``n`` sums (-1: untouched) and ``n`` community ids for each of numba's threads."""
    threads = numba.get_num_threads()
    return np.full((threads, max(n, 1)), -1.0), np.zeros((threads, max(n, 1)), np.int64)


@numba.njit(parallel=True, cache=False)
def bucket_moves(ptr, adj, w, C, k, a, csize, vset, m, gamma, new_comm, acc, touched):  # pragma: no cover
    """Algorithm 2 for every vertex of ``vset`` from the same state, in parallel; ``new_comm`` gets the choices.

    The rules are :func:`~gpusim.algorithms.louvain.reference.bucket_louvain`'s: the best score, ties to the
    lowest community id, and a singleton whose best community is a singleton of higher id stays.
    """
    for i in numba.prange(vset.shape[0]):
        v = vset[i]
        t = numba.get_thread_id()
        row = acc[t]
        ids = touched[t]
        own = C[v]
        n_touched = 0
        for e in range(ptr[v], ptr[v + 1]):
            j = adj[e]
            if j != v:
                c = C[j]
                if row[c] < 0.0:
                    row[c] = 0.0
                    ids[n_touched] = c
                    n_touched += 1
                row[c] += w[e]
        best = -1
        best_s = 0.0
        for q in range(n_touched):
            c = ids[q]
            if c != own:
                sc = row[c] / m - gamma * k[v] * a[c] / (2.0 * m * m)
                if best < 0 or sc > best_s or (sc == best_s and c < best):
                    best = c
                    best_s = sc
        choice = own
        if best >= 0 and not (csize[own] == 1 and csize[best] == 1 and best > own):
            e_own = row[own] if row[own] >= 0.0 else 0.0
            gain = row[best] / m - gamma * k[v] * a[best] / (2.0 * m * m)
            if gain > e_own / m - gamma * k[v] * (a[own] - k[v]) / (2.0 * m * m):
                choice = best
        new_comm[v] = choice
        for q in range(n_touched):
            row[ids[q]] = -1.0

