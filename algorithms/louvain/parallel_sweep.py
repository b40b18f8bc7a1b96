"""The CPU engine's local moving: vertices moved one after another, on every core at once, each to its best community.

A sweep visits every *active* vertex ``v`` and moves it to the neighbouring community of the largest modularity
gain, updating ``C[v]`` and the community totals ``a`` at once, so that the next vertex sees the move (the
asynchronous local moving of Blondel et al. 2008, run by threads side by side as PLM does: Staudt and Meyerhenke,
IEEE TPDS 27(1), 2016).  A vertex that moved activates its neighbours; one that stayed sleeps until a neighbour
moves (vertex pruning: S. Sahu, GVE-Louvain, 2024), so a later sweep visits only the vertices near a change.

On the threads two vertices may read and update ``a`` at once: an update can be lost, which only makes a later
choice less informed.  :func:`~gpusim.algorithms.louvain.asynchronous.asynchronous_louvain` recomputes ``a`` exactly
after every sweep and the modularity at the end of each level, and keeps a level's start when the level did not
gain.  Below :data:`~gpusim.algorithms.louvain.parallel.PARALLEL_FROM` vertices the same sweep runs on one thread,
in vertex order: the same answer on every run.  One parallel function in this module (numba 0.68 ran one parallel
loop for another within a module: ``tests/test_cpu_engine.py``).

>>> import numpy as np
>>> ptr, adj, w = np.array([0, 1, 2, 3, 4]), np.array([1, 0, 3, 2]), np.ones(4)   # two separate edges
>>> C, k = np.arange(4), np.ones(4)
>>> a, gain, active = k.copy(), np.zeros(4), np.ones(4, np.int8)
>>> sweep_sequential(ptr, adj, w, C, k, a, 2.0, 1.0, np.full(4, -1.0), np.zeros(4, np.int64), gain, active)
>>> C.tolist(), a.tolist()
([1, 1, 3, 3], [0.0, 2.0, 0.0, 2.0])
"""

from __future__ import annotations

import numba

__all__ = ["sweep", "sweep_sequential"]


@numba.njit(cache=True)
def move(v, ptr, adj, w, C, k, a, m, gamma, row, ids, gain, active):  # pragma: no cover - compiled
    """Move the active ``v`` to the community of the largest gain (``gain[v]``: that gain, 0 if it stays)."""
    gain[v] = 0.0
    if active[v] == 0:
        return
    active[v] = 0
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
    kv = k[v]
    e_own = row[own] if row[own] >= 0.0 else 0.0
    stay = e_own / m - gamma * kv * (a[own] - kv) / (2.0 * m * m)
    best, best_score = own, stay
    for i in range(n_touched):
        c = ids[i]
        if c != own:
            score = row[c] / m - gamma * kv * a[c] / (2.0 * m * m)
            if score > best_score:
                best, best_score = c, score
    for i in range(n_touched):
        row[ids[i]] = -1.0
    if best != own:
        gain[v] = best_score - stay
        C[v] = best
        a[own] -= kv
        a[best] += kv
        for e in range(ptr[v], ptr[v + 1]):
            active[adj[e]] = 1


@numba.njit(cache=True)
def sweep_sequential(ptr, adj, w, C, k, a, m, gamma, row, ids, gain, active):  # pragma: no cover - compiled
    """One sweep on one thread, in vertex order."""
    for v in range(ptr.shape[0] - 1):
        move(v, ptr, adj, w, C, k, a, m, gamma, row, ids, gain, active)


@numba.njit(parallel=True, cache=False)
def sweep(ptr, adj, w, C, k, a, m, gamma, rows, ids, gain, active):  # pragma: no cover - compiled
    """One sweep on every core; ``rows[t]`` and ``ids[t]`` are thread ``t``'s scratch."""
    for v in numba.prange(ptr.shape[0] - 1):
        t = numba.get_thread_id()
        move(v, ptr, adj, w, C, k, a, m, gamma, rows[t], ids[t], gain, active)
