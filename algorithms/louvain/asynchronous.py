"""The CPU engine's Louvain: asynchronous local moving on every core, the host's contraction, levels until no gain.

What ``backend="cpu"`` runs for the ``"louvain"`` algorithm by default (``cpu_method="asynchronous"``).  The GPU
method of Naim et al. (IPDPS 2017) decides a whole degree bucket from one snapshot and needs many sweeps
(at 10^7 edges 9 + 30 + 15); moving vertices one after another, each seeing the moves before it, converges in
a few (Blondel et al. 2008), and threads can do that side by side (PLM: Staudt and Meyerhenke, IEEE TPDS 2016),
visiting only the vertices near a change (vertex pruning: Sahu, GVE-Louvain, 2024).  The moves are
:mod:`~gpusim.algorithms.louvain.parallel_sweep`'s; a level ends when a sweep gains less than ``threshold`` in
modularity (the sum of its moves' gains); its modularity is recomputed exactly.  ``refine`` ends with sweeps
over the input graph from the last level's communities, as the GPU method's driver does.

The GPU method's own decisions on the cores stay available: ``cpu_method="buckets"``
(:func:`~gpusim.algorithms.louvain.reference.bucket_louvain` with ``parallel=True``, the simulator's oracle).

References
----------
V. D. Blondel, J.-L. Guillaume, R. Lambiotte, E. Lefebvre, "Fast unfolding of communities in large networks",
J. Stat. Mech. 2008.  C. L. Staudt, H. Meyerhenke, "Engineering parallel algorithms for community detection in
massive networks", IEEE TPDS 27(1), 2016 (PLM).  S. Sahu, "CPU vs. GPU for Community Detection: Performance
Insights from GVE-Louvain and ν-Louvain", arXiv:2501.19004, 2025 (vertex pruning).

>>> from gpusim.algorithms.louvain.graph import karate
>>> r = asynchronous_louvain(karate())
>>> r.n_communities, round(r.modularity, 4), r.valid
(4, 0.4198, True)
"""

from __future__ import annotations

import numba
import numpy as np

from .graph import LouvainGraph, list_sums
from .parallel import PARALLEL_FROM
from .parallel_sweep import sweep, sweep_sequential
from .reference import by_levels, host_arrays, partition_modularity
from .result import CommunityResult

__all__ = ["MAX_SWEEPS", "asynchronous_louvain"]

#: The most sweeps of one level (a level on the threads that keeps gaining a little ends there).
MAX_SWEEPS = 100


def _moves(ptr, adj, w, limit: float, resolution: float, start: np.ndarray | None = None):
    """One level's local moving: ``(C, q_start, q, sweeps)``; ``C`` is ``start`` (or singletons) if no gain."""
    n = ptr.size - 1
    k = list_sums(ptr, w)
    two_m = float(k.sum())
    C = np.arange(n, dtype=np.int64) if start is None else start.astype(np.int64)
    on_threads = n >= PARALLEL_FROM and numba.get_num_threads() > 1
    a = np.bincount(C, k, minlength=n)
    q_start = partition_modularity(ptr, adj, w, C, a, two_m, resolution, on_threads)
    first = C.copy()
    gain, active = np.zeros(n), np.ones(n, np.int8)
    threads = numba.get_num_threads() if on_threads else 1
    rows, ids = np.full((threads, max(n, 1)), -1.0), np.zeros((threads, max(n, 1)), np.int64)
    sweeps = 0
    while sweeps < MAX_SWEEPS:
        if on_threads:
            sweep(ptr, adj, w, C, k, a, two_m / 2.0, resolution, rows, ids, gain, active)
            a = np.bincount(C, k, minlength=n)   # the exact totals (a thread's update may have been lost)
        else:
            sweep_sequential(ptr, adj, w, C, k, a, two_m / 2.0, resolution, rows[0], ids[0], gain, active)
        sweeps += 1
        if float(gain.sum()) < limit:
            break
    q = partition_modularity(ptr, adj, w, C, a, two_m, resolution, on_threads)
    if q < q_start:   # moves decided on stale totals lost more than they gained: keep the level's start
        return first, q_start, q_start, sweeps
    return C, q_start, q, sweeps


def asynchronous_louvain(graph: LouvainGraph, *, resolution: float = 1.0, threshold: float = 1e-6,
                         refine: bool = True) -> CommunityResult:
    """Louvain by asynchronous local moving on every core (the module docstring); a validated result.

    Parameters
    ----------
    graph : LouvainGraph
    resolution : float
        The resolution ``gamma`` of the modularity.
    threshold : float
        A level's sweeps end when one gains less modularity; the levels end when one does.
    refine : bool
        Sweep the input graph once more from the last level's communities.

    Returns
    -------
    CommunityResult
        ``stats``: ``levels``, ``sweeps`` per level, ``communities`` per level, ``refine_sweeps`` (None without
        ``refine``), ``engine``.
    """
    def optimise(ptr, adj, w, limit):
        return _moves(ptr, adj, w, limit, resolution)

    result = by_levels(graph, optimise, threshold, threshold, 0, resolution, "louvain-asynchronous")
    stats = {**result.stats, "refine_sweeps": None,
             "engine": "asynchronous local moving on every core, PLM-style, with vertex pruning"}
    if refine and result.levels:
        C, _, q, stats["refine_sweeps"] = _moves(*host_arrays(graph), threshold, resolution, start=result.labels)
        labels = np.unique(C, return_inverse=True)[1].astype(np.int32)
        return CommunityResult(graph, labels, q, result.levels, result.level_modularity, result.algorithm, "cpu",
                               stats, resolution)
    result.stats = stats
    return result
