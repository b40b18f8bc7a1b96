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

__all__ = ["PARALLEL_FROM", "bucket_moves", "choose_move", "scratch", "score"]

#: The fewest vertices of a bucket whose moves are decided in parallel (fewer: sequentially, the same choices).
PARALLEL_FROM = 4096


def scratch(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(acc, touched)``: a row of ``n`` sums (-1: untouched) and ``n`` community ids for each of numba's threads."""
    threads = numba.get_num_threads()
    return np.full((threads, max(n, 1)), -1.0), np.zeros((threads, max(n, 1)), np.int64)


@numba.njit(cache=True)
def score(e, ki, a_c, m, gamma):
    """The modularity gain score of Algorithm 2 for a vertex of degree ``ki`` joining a community of total
    degree ``a_c`` to which it has edge weight ``e``."""
    return e / m - gamma * ki * a_c / (2.0 * m * m)


@numba.njit(cache=True)
def choose_move(v, ptr, adj, w, C, k, a, csize, m, gamma, acc, touched):  # pragma: no cover
    """Algorithm 2 for vertex ``v``: the community it moves to (its own where none is better), from the sums of
    its edge weights per neighbouring community gathered in ``acc`` (-1: untouched; reset before returning).

    The best score wins, ties to the lowest community id, and a singleton whose best community is a singleton
    of higher id stays.
    """
    own = C[v]
    n_touched = 0
    for e in range(ptr[v], ptr[v + 1]):
        j = adj[e]
        if j != v:
            c = C[j]
            if acc[c] < 0.0:
                acc[c] = 0.0
                touched[n_touched] = c
                n_touched += 1
            acc[c] += w[e]
    best = -1
    best_s = 0.0
    for q in range(n_touched):
        c = touched[q]
        if c != own:
            sc = score(acc[c], k[v], a[c], m, gamma)
            if best < 0 or sc > best_s or (sc == best_s and c < best):
                best, best_s = c, sc
    choice = own
    if best >= 0 and not (csize[own] == 1 and csize[best] == 1 and best > own):
        e_own = acc[own] if acc[own] >= 0.0 else 0.0
        if score(acc[best], k[v], a[best], m, gamma) > score(e_own, k[v], a[own] - k[v], m, gamma):
            choice = best
    for q in range(n_touched):
        acc[touched[q]] = -1.0
    return choice


@numba.njit(parallel=True, cache=False)
def bucket_moves(ptr, adj, w, C, k, a, csize, vset, m, gamma, new_comm, acc, touched):  # pragma: no cover
    """Algorithm 2 (:func:`choose_move`) for every vertex of ``vset`` from the same state, in parallel;
    ``new_comm`` gets the choices, each thread gathering into its own scratch row."""
    for i in numba.prange(vset.shape[0]):
        t = numba.get_thread_id()
        new_comm[vset[i]] = choose_move(vset[i], ptr, adj, w, C, k, a, csize, m, gamma, acc[t], touched[t])
