"""Modularity's inside term on every core: the weight of each vertex's entries that stay inside its community.

The CPU engine's Louvain recomputes Q after every sweep (the stopping rule of Naim et al., IPDPS 2017, §5); over
10^7 edges that sum was half the run on one thread.  Each vertex's sum is taken by one thread in entry order,
and the vertices' sums are added on the host, so :func:`inside_weights` (every core) and
:func:`inside_weights_sequential` (one thread) give the same Q bit for bit.  A module of its own: numba 0.68
ran one parallel function's loop for another's in one module (``tests/test_cpu_engine.py``).

>>> import numpy as np
>>> ptr, adj, w = np.array([0, 1, 2, 3, 4]), np.array([1, 0, 3, 2]), np.ones(4)
>>> out = np.empty(4)
>>> inside_weights(ptr, adj, w, np.array([0, 0, 1, 2]), out)
>>> out.tolist()
[1.0, 1.0, 0.0, 0.0]
"""

from __future__ import annotations

import numba

__all__ = ["inside_weights", "inside_weights_sequential"]


@numba.njit(cache=True)
def inside_weight(v, ptr, adj, w, C):  # pragma: no cover - compiled
    """The weight of ``v``'s entries whose other end is in ``v``'s community (modularity's inside term)."""
    own = C[v]
    total = 0.0
    for e in range(ptr[v], ptr[v + 1]):
        total += w[e] * (C[adj[e]] == own)  # no branch: a third of the time where half the entries count
    return total


@numba.njit(cache=True)
def inside_weights_sequential(ptr, adj, w, C, out):  # pragma: no cover - compiled
    """``out[v] = inside_weight(v)`` for every vertex, on one thread."""
    for v in range(ptr.shape[0] - 1):
        out[v] = inside_weight(v, ptr, adj, w, C)


@numba.njit(parallel=True, cache=False)
def inside_weights(ptr, adj, w, C, out):  # pragma: no cover - compiled
    """``out[v] = inside_weight(v)`` for every vertex, on every core (the same sums)."""
    for v in numba.prange(ptr.shape[0] - 1):
        out[v] = inside_weight(v, ptr, adj, w, C)
