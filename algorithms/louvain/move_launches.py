"""computeMove (Algorithm 2 of Naim et al., IPDPS 2017) from the host: the launches of a degree group's moves.

:class:`MoveLaunches` is the part of the driver's run (:func:`~gpusim.algorithms.louvain.driver.gpu_louvain`) that
launches the move kernel of each degree group of §4.1 with its threads per vertex: a lane an entry for the smallest
degrees (``kernels.move_small``, or ``move_small_unit`` where every weight is 1), sub-warps with a hash table each
(``kernels.move_subwarp``), a block with a table in shared memory (``kernels.move_block_shared``), and for the hubs
a block per chunk of a vertex's entries with tables in global memory (``kernels.move_block_global``, in steps).  It
uses the run's ``dev``, ``launch``, ``each``, ``zeros``, ``kernels``, ``layout``, ``degree_buckets``, ``max_grid`` and
``ones`` (the input's weights where they are all 1).

>>> MoveLaunches.move.__doc__.split(" (")[0]
'computeMove'
"""

from __future__ import annotations

import numpy as np

from . import kernels_aggregate as agg
from . import kernels_move as mv
from .kernels_scan import exclusive_scan

__all__ = ["MoveLaunches"]

#: Lanes per vertex and slots per table of §4.1's groups one to five.
_SUBWARP = ((4, 7), (8, 13), (16, 29), (32, 53), (32, 127))
_ENTRY_A_LANE = 4  # the groups below have a lane an entry (degree at most the lanes): kernels.move_small takes them


class MoveLaunches:
    """Algorithm 2's launches, as methods of the driver's run."""

    def tables(self, entries: int, n: int) -> tuple[object, object]:
        """Global-memory hash tables with room for every vertex's (or community's) at ``3 ptr[i] + 2 i``: allocated
        at the first level that needs them (the largest) and kept."""
        slots = 3 * entries + 2 * n
        if self.global_tables is None or self.global_tables[0].size < slots:
            self.global_tables = self.dev.zeros(slots, np.int32), self.dev.zeros(slots, np.float64)
        return self.global_tables

    def by_warps(self, b: int) -> bool:
        """Whether group ``b`` moves with a warp or more a vertex (degrees above 16 in §4.1's groups): its moves are
        then applied a warp a vertex too (:func:`~.kernels_apply.apply_wide_moves`)."""
        return self.layout == "buckets" and (b >= len(_SUBWARP) or _SUBWARP[b][0] == 32)

    def move(self, b: int, args: tuple, degree, entries: int, n: int) -> None:
        """computeMove (Algorithm 2) for bucket ``b`` with the layout's threads per vertex."""
        count, kernels = args[9], self.kernels
        if self.layout == "thread":
            self.each(kernels.move_thread, count, *args, *self.tables(entries, n))
        elif b < len(_SUBWARP):
            width, slots = _SUBWARP[b]
            blocks = -(-count // (mv.BLOCK // width))
            small = kernels.move_subwarp if b >= _ENTRY_A_LANE else \
                kernels.move_small_unit if args[2] is self.ones else kernels.move_small  # self.ones: weights all 1
            self.launch(small, min(blocks, self.max_grid), mv.BLOCK, *args, width, slots)
        elif b == len(_SUBWARP):
            self.launch(kernels.move_block_shared, min(count, self.max_grid), mv.BLOCK, *args)
        else:
            self.move_in_chunks(args, degree, entries, n)

    def move_in_chunks(self, args: tuple, degree, entries: int, n: int) -> None:
        """§4.1's last group (degree above the last bound): a block per ``chunk`` entries of a vertex
        (:data:`~.kernels_move.HUB_CHUNK` times the group's lower bound), in launches of
        :func:`~.kernels_move.move_block_global`: hash, best of each share (its slots freed), decide; in a phase's
        first sweep a clear of the tables before (they hold what the contraction or another level left there)."""
        vset, offset, count = args[7], args[8], args[9]
        chunk = mv.HUB_CHUNK * (self.degree_buckets[-1] + 1)
        chunks = self.zeros(count, np.int32)
        self.each(agg.count_chunks, count, degree, vset, offset, count, chunk, chunks)
        chunk_start, total = exclusive_scan(self.dev, chunks, count, self.launch)
        # step 2 writes each chunk's three before step 3 reads them
        chunk_best = self.dev.empty(total, np.int32)
        chunk_weight, chunk_own = self.dev.empty(total, np.float64), self.dev.empty(total, np.float64)
        for step in range(0 if self.hub_tables_dirty else 1, 4):
            self.launch(self.kernels.move_block_global, min(count if step == 3 else total, self.max_grid), mv.BLOCK,
                        *args, *self.tables(entries, n), chunk, chunk_start, total, chunk_best, chunk_weight,
                        chunk_own, step)
        self.hub_tables_dirty = False  # step 2 leaves each table it read empty
