"""A graph's last levels on the host, where a GPU would only be launching kernels.

A coarse level of a few thousand communities gives each launch of a sweep (a move and its application per degree
bucket, the next sweep's vertices, Eq. (1)'s sums and their read back) a few microseconds of work and costs ten or
twenty of launching; its contraction is a dozen launches more.  Once a level's vertices and adjacency entries
together are at most the driver's ``host_levels``, :func:`finish_on_host` reads that level's graph back, runs it
and every level after it with :func:`~.reference.climb` and :func:`~.reference.bucket_optimiser` (the kernels'
decisions, made sequentially; the bucket reference that the simulator is checked against), and writes every input
vertex's community at each of those levels back on the device.  The refinement of the input graph stays there.

>>> from gpusim.algorithms.louvain import louvain
>>> from gpusim.algorithms.louvain.graph import karate
>>> from gpusim.algorithms.louvain.reference import bucket_louvain
>>> on_host = louvain(karate(), backend="sim", host_levels=1000)  # every level after the first on the host
>>> on_host.stats["seconds"]["host levels"] > 0
True
>>> on_host.labels.tolist() == bucket_louvain(karate()).labels.tolist()
True
"""

from __future__ import annotations

import numpy as np

from . import kernels_aggregate as agg
from . import kernels_move as mv
from .reference import bucket_optimiser, climb

__all__ = ["HOST_LEVELS", "finish_on_host"]

#: ``host_levels`` on a GPU: the most vertices and entries, together, of a level that goes on on the host.
HOST_LEVELS = 1 << 15


def finish_on_host(run, ptr, adj, w, n: int, entries: int, labels, levels: list, n0: int, isolated: int
                   ) -> tuple[list, list, list]:
    """Level ``len(levels)`` of the graph ``ptr, adj, w`` (``n`` vertices, ``entries`` entries, on ``run``'s device)
    and the levels after it, decided on the host: each input vertex's community at every such level is appended to
    ``levels`` (device arrays of ``n0`` ids) and left in ``labels``.  Returns the levels' best Q, sweeps and
    communities."""
    optimise = bucket_optimiser(resolution=run.gamma, bounds=run.degree_buckets if run.layout == "buckets" else (),
                                dip_rule=run.dip_rule, follow_leaves=run.follow_leaves, parallel=False,
                                prune=run.prune, conflict_free_from=run.conflict_free_from)
    graph = (run.read(ptr, n + 1).astype(np.int64), run.read(adj, entries).astype(np.int64),
             run.read(w, entries).astype(np.float64))
    found, level_q, sweeps, _ = climb(*graph, optimise, run.limits, run.aggregation_tolerance, isolated=isolated,
                                      first_level=len(levels), input_with_edges=n0 - isolated)
    if found:
        same = run.zeros(n, np.int32)  # relabel's new ids: each community keeps the id the host gave it
        run.each(mv.init_communities, n, same, n)
        for community in found:  # each: this level's vertices' communities at one level of the host
            levels.append(run.zeros(n0, np.int32))
            run.each(mv.copy_labels, n0, labels, levels[-1], n0)
            run.each(agg.relabel, n0, levels[-1], run.dev.array(community), same, n0)
        run.each(mv.copy_labels, n0, levels[-1], labels, n0)
    communities = [int(community.max()) + 1 for community in found]
    for level, (q, count) in enumerate(zip(level_q, communities, strict=True), len(levels) - len(found) + 1):
        run.launch.tick(level=level, communities=count, modularity=f"{q:.6f}")
    return level_q, sweeps, communities
