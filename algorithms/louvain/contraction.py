"""Algorithm 3 of Naim et al. (IPDPS 2017) from the host: the launches that contract a level's communities.

:class:`Contraction` is the part of the driver's run (:func:`~gpusim.algorithms.louvain.driver.gpu_louvain`) that builds
the next level's graph: the new ids (lines 4–12), the vertices placed by community (lines 17–19),
``mergeCommunity`` for each community group (lines 20–23, :mod:`.kernels_aggregate`) and the packed lists.  It uses
the run's ``dev``, ``launch``, ``each``, ``zeros``, ``tables``, ``kernels``, ``primes`` and ``max_grid``, and the
community groups of line 21 (:class:`~.degree_groups.DegreeGroups`).

>>> Contraction.contract.__doc__.split(":")[0]
'Algorithm 3'
"""

from __future__ import annotations

import numpy as np

from . import kernels_aggregate as agg
from . import kernels_move as mv
from .degree_groups import DegreeGroups
from .kernels_scan import exclusive_scan

__all__ = ["Contraction"]


class Contraction:
    """Algorithm 3's launches, as methods of the driver's run."""

    def new_ids(self, ptr, C, n: int):
        """Alg. 3 lines 4–12: each community's size and degree, the new id of each non-empty community (numbered by
        increasing id), and how many there are."""
        com_size, com_degree, flags = (self.zeros(n, np.int32) for _ in range(3))
        self.each(agg.community_sizes, n, C, ptr, com_size, com_degree, n)
        self.each(agg.mark_nonempty, n, com_size, flags, n)
        new_id, n_new = exclusive_scan(self.dev, flags, n, self.launch)
        return com_size, com_degree, new_id, n_new

    def merge_in_chunks(self, args: tuple, tail: tuple, tables: tuple, member_start, offset: int, count: int) -> None:
        """The last community group (more than ``chunk`` edges, the group's lower bound): ``chunk`` edges a block,
        in three launches of :func:`~gpusim.algorithms.louvain.kernels_aggregate.merge_chunks` (clear, hash, emit)."""
        chunk = self.community_buckets[-1]
        chunks = self.zeros(count, np.int32)
        self.each(agg.count_chunks, count, args[7], args[8], offset, count, chunk, chunks)
        chunk_start, total = exclusive_scan(self.dev, chunks, count, self.launch)
        for step in range(3):
            self.launch(self.kernels.merge_chunks, min(total, self.max_grid), mv.BLOCK, *args, offset, count, *tail,
                        *tables, member_start, chunk, chunk_start, total, step)

    def contract(self, ptr, adj, w, C, n: int, always: bool = False):
        """Algorithm 3: the graph of the communities of ``C``; None when every community is one vertex (unless
        ``always``)."""
        dev = self.dev
        com_size, com_degree, new_id, n_new = self.new_ids(ptr, C, n)
        if n_new == n and not always:
            return None
        edge_pos, bound = exclusive_scan(dev, com_degree, n, self.launch)
        com_start, _ = exclusive_scan(dev, com_size, n, self.launch, total=False)
        cursor, com = self.zeros(n, np.int32), self.zeros(n, np.int32)
        self.each(mv.copy_labels, n, com_start, cursor, n)
        self.each(agg.place_vertices, n, C, cursor, com, n)
        groups = DegreeGroups(dev, self.launch, com_degree, self.community_buckets, n, self.zeros(n, np.int32),
                              self.max_grid)
        cset, buckets = groups.vset, groups.every_vertex
        member_start = None
        if any(count for _, count in buckets[1:]):  # the block kernels number each community's edges flat
            member_degree = self.zeros(n, np.int32)
            self.each(agg.member_degrees, n, ptr, com, member_degree, n)
            member_start, _ = exclusive_scan(dev, member_degree, n, self.launch, total=False)
        fill, new_adj, new_w = self.zeros(n, np.int32), self.zeros(bound, np.int32), self.zeros(bound, np.float64)
        args = (ptr, adj, w, C, com, com_start, com_size, com_degree, cset)
        tail = (self.primes, len(self.primes_host), edge_pos, fill, new_id, new_adj, new_w)
        kernels = self.kernels
        for b, (offset, count) in enumerate(buckets):
            if not count:
                continue
            if b == 0:
                self.launch(kernels.merge_warp, min(-(-count // 4), self.max_grid), mv.BLOCK, *args, offset,
                            count, *tail)
            elif b == 1:
                self.launch(kernels.merge_block_shared, min(count, self.max_grid), mv.BLOCK, *args, offset, count,
                            *tail, member_start)
            elif b == 2:
                self.launch(kernels.merge_block_global, min(count, self.max_grid), mv.BLOCK, *args, offset, count,
                            *tail, *self.tables(bound, n), member_start)
            else:
                self.merge_in_chunks(args, tail, self.tables(bound, n), member_start, offset, count)
        new_count = self.zeros(n_new, np.int32)
        self.each(agg.scatter_counts, n, fill, new_id, com_size, new_count, n)
        new_ptr, entries = exclusive_scan(dev, new_count, n_new, self.launch)
        out_adj, out_w = self.zeros(entries, np.int32), self.zeros(entries, np.float64)
        self.each_warp(agg.compact_edges, n, fill, edge_pos, new_id, com_size, new_ptr, new_adj, new_w, out_adj, out_w,
                       n)
        return new_ptr, out_adj, out_w, n_new, entries, new_id
