"""G-PR (Deveci et al., ICPP 2013, Alg. 3 and 7): push-relabel matching on the GPU — the host loop, written once
against
:class:`~gpusim.Device`.

The kernels are in :mod:`gpusim.algorithms.bipartite.kernels_push_relabel`; ``kernels=`` launches a
variant in the place of one of them (the bug zoo's broken twins).

Example
-------
>>> from gpusim.types.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0, 0, 1, 2], [0, 1, 0, 2])
>>> gpr(g, backend="sim").size
3
"""

from __future__ import annotations

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.language.variants import kernel_table
from gpusim.runtime.device import Device
from gpusim.runtime.launcher import Launcher, fill
from gpusim.runtime.plans import kept_plan
from gpusim.runtime.registry import register
from gpusim.runtime.resident_graphs import bipartite_bytes, bipartite_result, check_fits, check_output, resident
from gpusim.runtime.workspace import workspace
from gpusim.types.arguments import check_int
from gpusim.types.graphs import BipartiteGraph
from gpusim.types.results import BipartiteMatching

from .host import (
    COMPACT_BLOCK,
    LEVELS_PER_READ,
    MAX_LEVELS_PER_READ,
    MT_BLOCK,
    ROW_SIDE_START_KERNELS,
    SHRINK_THRESHOLD,
    check_choice,
    device_start,
    first_batch,
    nonempty,
    prepare,
    violation,
)
from .kernels_bfs import fix_columns
from .kernels_push_relabel import (
    COMPACT_TILE,
    compact_active,
    count_tiles,
    global_relabel_level,
    init_active,
    init_relabel,
    list_free_columns,
    offset_tiles,
    push_active,
    push_relabel_all,
)

__all__ = ["gpr"]

#: The kernels G-PR launches, by name; ``kernels=`` replaces any of them.
KERNELS = {k.name: k for k in (init_relabel, global_relabel_level, push_relabel_all, count_tiles, offset_tiles,
                               list_free_columns, init_active, push_active, compact_active, fix_columns)}
#: The most blocks a compaction pass launches (each takes tiles of ``COMPACT_TILE`` entries in turn).
COMPACT_GRID = 4096
#: The threads of a compaction pass's block: four warps, eight entries each a tile.
COMPACT_THREADS = COMPACT_TILE // 8


@register("bipartite", "gpr", backends=("sim", "numba", "cupy"), on_cpu="pr",
          title="G-PR: push-relabel with global relabelling, active lists and compaction",
          paper="deveci2013gpr", where="Alg. 3-9", guarantees="maximum",
          kernels=(*KERNELS.values(), *ROW_SIDE_START_KERNELS))
def gpr(graph: BipartiteGraph, *, backend: str = "auto", variant: str = "active", shrink: bool = True,
        relabel: tuple[str, float] = ("adaptive", 0.7), initial=None, device: Device | None = None,
        check_invariants: bool = False, progress: bool = False, kernels: dict | None = None,
        shrink_at: int = SHRINK_THRESHOLD, levels_per_read: int = LEVELS_PER_READ,
        output: str = "host") -> BipartiteMatching:
    """G-PR (Deveci et al., ICPP 2013, Alg. 7; Alg. 3 with ``variant="first"``): push-relabel matching on the GPU.

    Parameters
    ----------
    variant:
        ``"active"``: the active-column lists of Alg. 7–9 (INITKRNL, PUSHKRNL with the ``iA``
        guard); ``"first"``: G-PR-KRNL over every column (Alg. 6).
    shrink:
        Compact the active lists by prefix sum after each global relabel when at least 512
        columns are listed (SHRKRNL, §III-C2).
    shrink_at:
        The number of listed columns from which compaction runs (default 512, the paper's); a test or
        a bug hunt lowers it so that a small graph reaches SHRKRNL.
    relabel:
        ``("adaptive", k)``: the next global relabel after ``k × maxLevel`` loops (k = 0.7 was
        the paper's best with shrinking; 0.3 the other good value); ``("fixed", k)``: every
        ``k`` loops.
    backend, initial, device, progress, output:
        As :func:`apfb`; the default start is made on the device (the proposals from 10^6 edges, the cheap
        matching below: :func:`~gpusim.algorithms.bipartite.host.default_start`), and the initial active lists (the
        free columns, Alg. 7 and §III-C) are listed there too
        (:func:`~gpusim.algorithms.bipartite.kernels_push_relabel.list_free_columns`): no copy from the host.
    check_invariants:
        After every INITKRNL (and compaction), copy the active list back and check no column is
        listed twice — the duplicate the ``iA`` guard exists to prevent; raise
        :class:`~gpusim.errors.InvariantViolation` if one is.
    kernels:
        Kernels to launch in the place of the paper's, by name (``{"push_active": twin}``), as
        :func:`~gpusim.algorithms.bipartite.augmenting.apfb`.
    levels_per_read:
        The most G-GR levels (Alg. 4 lines 4–8), and the most push-relabel loops (Alg. 7 lines 10–22, up
        to the next global relabel), launched before the host reads their flags (*uAdded*, *actExists*)
        back; default 16, batches of 1, 2, 4, ...  A level after one that labelled no row, or a loop after
        one with no active column, returns at once
        (:func:`~gpusim.algorithms.bipartite.kernels_push_relabel.loop_over`), so labels, ``maxLevel``,
        loops and matching are those of the one-at-a-time host (``levels_per_read=1``).  A loop where
        SHRKRNL may run, or with ``check_invariants``, runs alone (the host decides within it).
        ``stats["reads_back"]`` counts the synchronising copies (flags, list lengths, the result).

    Notes
    -----
    ψ is a lower bound on the alternating distance to a free row; G-GR (Alg. 4–5) makes it
    exact by a BFS from the free rows, and every column it cannot reach is left unreachable.
    Rows stay consistent throughout; at the end FIXMATCHING clears the columns whose row
    moved on (Alg. 3 line 11).

    Examples
    --------
    >>> from gpusim.types.graphs import BipartiteGraph
    >>> g = BipartiteGraph.from_edges([0, 1, 1, 2], [0, 0, 1, 1])
    >>> gpr(g, backend="sim").size, gpr(g, backend="sim", variant="first").size
    (2, 2)
    """
    options = (backend, variant, shrink, relabel, initial, device, check_invariants, progress, kernels, shrink_at,
               levels_per_read, output)
    launch, run = kept_plan(graph, "gpr", options, lambda: _plan(graph, *options))
    return run(launch)


def _plan(graph: BipartiteGraph, backend: str, variant: str, shrink: bool, relabel: tuple[str, float], initial,
          device: Device | None, check_invariants: bool, progress: bool, kernels: dict | None, shrink_at: int,
          levels_per_read: int, output: str) -> tuple:
    """:func:`gpr`'s options checked, the device chosen, the graph adopted and the work arrays found:
    ``(launch, run)``, where ``run(launch)`` runs Alg. 7 (or Alg. 3) and returns the matching
    (:mod:`gpusim.runtime.plans`)."""
    check_choice("variant", variant, ("active", "first"))
    if not isinstance(shrink, bool):
        raise InvalidArgumentType(f"shrink must be True or False, got {shrink!r}")
    if (not isinstance(relabel, tuple) or len(relabel) != 2 or relabel[0] not in ("adaptive", "fixed")
            or isinstance(relabel[1], bool) or not isinstance(relabel[1], (int, float)) or not relabel[1] > 0):
        raise InvalidArgument(f"relabel must be ('adaptive', k) or ('fixed', k) with k > 0, got {relabel!r}")
    check_int("shrink_at", shrink_at, 1, None)
    check_int("levels_per_read", levels_per_read, 1, MAX_LEVELS_PER_READ)
    kernels = kernel_table(KERNELS, kernels)
    dev, launch, start = prepare(graph, backend, device, initial, progress, "gpr")
    check_output(output)
    check_fits(dev, graph, lambda: bipartite_bytes(graph, ("row", "col"), 6), "gpr",
                   'backend="cpu" (the sequential pr) or algorithm="apfb" (fewer device arrays)')
    graph = resident(dev, graph)
    nr, nc = graph.n_rows, graph.n_cols
    infinity = nr + nc
    block = MT_BLOCK[dev.backend]
    row_grid, col_grid = Device.grid_for(nr, block), Device.grid_for(nc, block)
    # rmatch[u], cmatch[v]: the paper's μ on rows and columns; cmatch[v] = -2 marks a column
    # that cannot reach a free row.  psi_r, psi_c: the labels ψ.
    row_ptr, row_adj = dev.array(graph.row_ptr), dev.array(nonempty(graph.row_adj))
    col_ptr, col_adj = dev.array(graph.col_ptr), dev.array(nonempty(graph.col_adj))
    # work arrays, kept by a device graph between calls (gpusim.runtime.workspace): the labels, set in full by every
    # global relabel (init_relabel) before any is read, the first at loop 0; the flags of a batch, set by a fill
    # launch before it
    scratch = workspace(dev, graph, "gpr")
    psi_r, psi_c = scratch.empty("psi_r", max(nr, 1)), scratch.empty("psi_c", max(nc, 1))
    added = scratch.empty("added", levels_per_read)   # uAdded of each level of a batch (Alg. 4 lines 4-6)
    flags = scratch.empty("flags", levels_per_read)   # actExists of each loop of a batch (Alg. 7 lines 5, 10)
    active_lists = variant == "active" and nr > 0 and nc > 0
    if active_lists:
        # the current and previous active-column lists (Alg. 7), both the free columns at first (§III-C), listed on
        # the device; i_a[v] = loop when v is active.
        lists, i_a = (scratch.empty("a_c", nc), scratch.empty("a_p", nc)), scratch.empty("i_a", nc)
        new_length = scratch.empty("new_length", 1)
        tile_counts = scratch.empty("tile_counts", nc // COMPACT_TILE + 1)   # then the tiles' offsets

    def run(launch: Launcher) -> BipartiteMatching:
        rmatch, cmatch = device_start(launch, graph, start, col_ptr, col_adj, row_ptr)
        reads = 0
        relabel_levels = 1  # the levels the last global relabel ran, where the next starts its batches (first_batch)

        def read_flag(array) -> int:
            nonlocal reads
            reads += 1
            return launch.flag(array)

        def read_flags(array, n: int) -> np.ndarray:
            nonlocal reads
            reads += 1
            return dev.to_host(array)[:n]

        def global_relabel() -> int:
            nonlocal relabel_levels
            launch(kernels["init_relabel"], max(row_grid, col_grid), block, rmatch, psi_r, psi_c, nr, nc, infinity)
            level, batch = 0, first_batch(relabel_levels, levels_per_read)
            while True:
                # Alg. 4 lines 4-8, `batch` levels at a time: a level after one that added no row returns at once
                launch(fill, 1, 32, added, 0, batch)
                for slot in range(batch):
                    launch(kernels["global_relabel_level"], row_grid, block, row_ptr, row_adj, psi_r, psi_c, rmatch,
                           cmatch, nr, level + 2 * slot, infinity, added, slot)
                flags = read_flags(added, batch)
                if not flags.all():
                    relabel_levels = level // 2 + int(np.argmin(flags)) + 1
                    return 2 * relabel_levels
                level += 2 * batch
                batch = min(2 * batch, levels_per_read)

        def compacted(source, n: int, free_columns: int, writer: str, *targets) -> int:
            """Compact ``source[:n]`` to ``targets`` in three passes over every block (count each tile's kept
            entries, their prefix sums, write), the paper's prefix-sum compaction (§III-C2); the new length."""
            tiles = -(-n // COMPACT_TILE)
            grid = max(1, min(tiles, COMPACT_GRID))
            launch(kernels["count_tiles"], grid, COMPACT_THREADS, source, n, free_columns, tile_counts)
            launch(kernels["offset_tiles"], 1, COMPACT_BLOCK[dev.backend], tile_counts, tiles, new_length)
            launch(kernels[writer], grid, COMPACT_THREADS, source, *targets, n, tile_counts)
            return read_flag(new_length)

        def next_relabel(max_level: int, loop: int) -> int:
            kind, k = relabel
            return loop + max(1, int(k * max_level if kind == "adaptive" else k))

        loop, relabels, next_gr = 0, 0, 0
        n_active = 0
        if active_lists:
            a_c, a_p = lists  # swapped as the loops run (Alg. 7 line 21)
            with launch.phase("active_lists"):
                for array, value in ((a_c, 0), (a_p, 0), (new_length, 0), (i_a, -1)):
                    dev.fill(array, value)
                n_active = compacted(cmatch, nc, 1, "list_free_columns", a_c, a_p)
        shrink_now, batch = False, 1
        while nr > 0 and nc > 0 and (variant == "first" or n_active > 0):
            if loop == next_gr:
                with launch.phase("global_relabel"):
                    next_gr = next_relabel(global_relabel(), loop)
                relabels += 1
                shrink_now = True
            # Alg. 7 lines 10-22: one loop at a time where the host decides within it (SHRKRNL may run, or the
            # list is checked), else a batch up to the next global relabel, read back once (loop_over)
            may_shrink = variant == "active" and shrink and shrink_now and n_active >= shrink_at
            loops = 1 if (may_shrink or check_invariants) else min(batch, next_gr - loop)
            with launch.phase("push_relabel"):
                launch(fill, 1, 32, flags, 0, loops)
                known = None   # actExists, when the host read it within the loop
                for slot in range(loops):
                    if variant == "first":
                        launch(kernels["push_relabel_all"], col_grid, block, col_ptr, col_adj, rmatch, cmatch, psi_r,
                               psi_c, nc, infinity, flags, slot)
                        continue
                    grid = Device.grid_for(n_active, block)
                    launch(kernels["init_active"], grid, block, cmatch, rmatch, loop + slot, a_c, a_p, i_a, n_active,
                           flags, slot)
                    if loops == 1 and (may_shrink or check_invariants):
                        known = read_flag(flags)
                    if known:
                        if may_shrink:
                            with launch.phase("shrink"):
                                n_active = compacted(a_c, n_active, 0, "compact_active", a_p)
                                a_c, a_p = a_p, a_c
                                grid = Device.grid_for(n_active, block)
                            shrink_now = False
                        if check_invariants:
                            _check_distinct(dev, a_c, n_active, loop)
                    if known != 0:
                        launch(kernels["push_active"], grid, block, col_ptr, col_adj, rmatch, cmatch, psi_r, psi_c,
                               loop + slot, a_c, a_p, i_a, n_active, infinity, flags, slot)
                    a_c, a_p = a_p, a_c
                ran, active = (1, bool(known)) if known is not None else loops_run(read_flags(flags, loops))
                if variant == "active" and (loops - ran) % 2:
                    a_c, a_p = a_p, a_c   # Alg. 7 line 21 swaps once per loop run, not per loop launched
            for _ in range(ran):
                launch.tick(active=n_active if variant == "active" else "?", relabels=relabels)
            loop += ran
            if not active:
                break
            batch = min(2 * batch, levels_per_read)
        launch.close()
        with launch.phase("fix_matching"):  # Alg. 3 line 11
            launch(kernels["fix_columns"], col_grid, block, cmatch, rmatch, nc)
        stats = {"loops": loop, "global_relabels": relabels, "reads_back": reads + 2, "variant": variant,
                 "shrink": shrink, "relabel": relabel}
        return bipartite_result(launch, graph, col_ptr, col_adj, rmatch, cmatch, "gpr", stats, output)

    return launch, run


def loops_run(flags: np.ndarray) -> tuple[int, bool]:
    """How many loops of a batch ran, from their *actExists* flags read back, and whether the last one found
    an active column (Alg. 7 line 5): the loops up to the first without one, that one included.

    >>> loops_run(np.array([1, 1, 0, 0])), loops_run(np.array([1, 1]))
    ((3, False), (2, True))
    """
    stopped = np.flatnonzero(flags == 0)
    if stopped.size:
        return int(stopped[0]) + 1, False
    return int(flags.size), True


def _check_distinct(dev: Device, a_c, n_active: int, loop: int) -> None:
    listed = dev.to_host(a_c)[:n_active]
    listed = listed[listed != -1]
    values, counts = np.unique(listed, return_counts=True)
    if (counts > 1).any():
        twice = values[counts > 1][:5].tolist()
        raise violation(dev, f"InvariantViolation: in loop {loop} the active list holds column(s) {twice} twice: "
                              f"two threads would push for one column (Deveci et al., ICPP 2013, Alg. 9 line 13)")

