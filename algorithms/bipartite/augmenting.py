"""APFB and APsB (Deveci et al., Euro-Par 2013, Alg. 1): BFS from every free column, then ALTERNATE and FIXMATCHING,
until no
augmenting path is left — the host loop, written once against :class:`~gpusim.Device`.

The kernels are in :mod:`gpusim.algorithms.bipartite.kernels_bfs`; ``kernels=`` launches a variant in
the place of one of them (the bug zoo's broken twins).

Example
-------
>>> from gpusim.types.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0, 0, 1, 2], [0, 1, 0, 2])
>>> apfb(g, backend="sim").size, apsb(g, backend="sim").size
(3, 3)
>>> apfb(BipartiteGraph.from_edges([], [], n_rows=0, n_cols=0), backend="sim").size
0
"""

from __future__ import annotations

import numpy as np

from gpusim.errors import InvalidArgument
from gpusim.language.variants import kernel_table
from gpusim.runtime.device import Device
from gpusim.runtime.device_checks import matching_problem
from gpusim.runtime.launcher import Launcher, fill
from gpusim.runtime.plans import kept_plan
from gpusim.runtime.registry import register
from gpusim.runtime.resident_graphs import (
    bipartite_bytes,
    bipartite_result,
    check_fits,
    check_output,
    is_device_graph,
    resident,
)
from gpusim.runtime.workspace import workspace
from gpusim.types.arguments import check_int
from gpusim.types.check import check_bipartite_matching
from gpusim.types.graphs import BipartiteGraph
from gpusim.types.results import BipartiteMatching

from .host import (
    CT_SHAPE,
    LEVELS_PER_READ,
    MAX_LEVELS_PER_READ,
    MT_BLOCK,
    START_KERNELS,
    cheap_start,
    check_choice,
    device_start,
    first_batch,
    graph_array,
    prepare,
    violation,
)
from .kernels_bfs import alternate, fix_columns, fix_rows, gpubfs, gpubfs_wr, init_bfs_array
from .kernels_bfs_block import augment_in_one_block
from .kernels_bfs_bottom_up import count_level, gpubfs_wr_bottom_up
from .kernels_bfs_queue import expand_hubs, gpubfs_wr_queue, init_bfs_queue
from .kernels_bfs_warp import gpubfs_wr_warp, has_hub

__all__ = ["apfb", "apsb", "levels_run"]

#: The kernels APFB and APsB launch, by name; ``kernels=`` replaces any of them.
KERNELS = {k.name: k for k in (init_bfs_array, gpubfs, gpubfs_wr, gpubfs_wr_warp, gpubfs_wr_bottom_up, count_level,
                                init_bfs_queue, gpubfs_wr_queue, expand_hubs, alternate, fix_rows, fix_columns,
                                augment_in_one_block, has_hub)}
#: The kernels of the host loop: replacing one of them (``kernels=``) makes a call run the loop, not one block.
_LOOP_KERNELS = frozenset(KERNELS) - {augment_in_one_block.name}

#: ``direction=``: every level from the columns (the paper's), every level from the rows, or chosen per batch.
DIRECTIONS = ("top-down", "bottom-up", "auto")
#: ``direction="auto"`` runs a batch bottom-up when its first level's frontier holds more than this share of
#: the columns (Beamer et al.'s switch, α = 14 and β = 24 on edges, simplified to one share of columns).
BOTTOM_UP_SHARE = 1 / 16
#: ``warp_degree="auto"`` scans columns of ``HUB_WARP_DEGREE`` rows or more by their warp when some column has
#: ``HUB_DEGREE`` rows or more: a hub whose one lane would scan for a thousand steps while 31 wait.  On the
#: issue-18 graphs only R-MAT has such hubs (its largest column: 36,495 rows; the others' at most 829), and only
#: there did the warp scan pay (``benchmarks/RESULTS.md``).
HUB_DEGREE, HUB_WARP_DEGREE = 1024, 32
#: ``frontier=``: each BFS level sweeps every column for its own (the paper's), reads its columns from a list that
#: the level before wrote (:mod:`~gpusim.algorithms.bipartite.kernels_bfs_queue`), or the list on a GPU.
FRONTIERS = ("sweep", "queue", "auto")
#: The sweep's kernels: replacing one (``kernels=``) makes ``frontier="auto"`` sweep.
_SWEEP_KERNELS = frozenset({init_bfs_array.name, gpubfs.name, gpubfs_wr.name, gpubfs_wr_warp.name})
#: Blocks of a listed level on a GPU (of the constant grid's 256 threads), on graphs of at least as many columns as
#: threads (fewer columns, a thread a column; never fewer than the constant grid's): enough warps to fill an H200's 132
#: multiprocessors, whose memory waits a level's scattered reads are; 4 times the paper's 256 blocks took APFB's and
#: APsB's device time down 4-13 % on the Graph500, R-MAT and uniform graphs of ``benchmarks/e2e.py`` (H200; APFB on
#: the power-law graph 5 % up).
LISTED_LEVEL_GRID = 1024
#: The queue's warp degree where no column is a hub (``warp_degree`` None): no column reaches its square.
_NO_WARP = 1 << 15
#: ``launches=``: a kernel launch per step of the host loop (the paper's), the whole loop in one block
#: (:func:`~gpusim.algorithms.bipartite.kernels_bfs_block.augment_in_one_block`), or chosen by the graph's size.
LAUNCHES = ("levels", "one-block", "auto")
#: ``launches="auto"`` runs one block on a GPU for graphs of at most this many edges, where launches cost more
#: than the work (``benchmarks/RESULTS.md``).
ONE_BLOCK_EDGES = 1 << 15
#: Threads of the one block, per backend.
ONE_BLOCK_THREADS = {"sim": 64, "numba": 1024, "cupy": 1024}


def levels_run(flags: np.ndarray, batch: int, shortest: bool, found: bool) -> tuple[int, bool, bool]:
    """What a batch of ``batch`` BFS levels did, from its flags read back (``flags[2 s]``: level ``s`` inserted a
    column, ``flags[2 s + 1]``: it found a path): how many levels ran, whether the phase found a path so far
    (``found`` before the batch), and whether the search is over (Deveci et al., Euro-Par 2013, Alg. 1 line 6; lines
    9–10 when
    ``shortest``).  The levels after the one that ended it returned at once.

    >>> levels_run(np.array([1, 0, 1, 1, 0, 0, 0, 0]), 4, False, False)
    (3, True, True)
    >>> levels_run(np.array([1, 0, 1, 1, 0, 0, 0, 0]), 4, True, False)
    (2, True, True)
    >>> levels_run(np.array([1, 0, 1, 0]), 2, True, False)
    (2, False, False)
    """
    for slot in range(batch):
        found = found or bool(flags[2 * slot + 1])
        if (shortest and found) or not flags[2 * slot]:
            return slot + 1, found, True
    return batch, found, False


def _augmenting_paths(graph: BipartiteGraph, *options) -> BipartiteMatching:
    """:func:`apfb` (``shortest=False``) or :func:`apsb` with ``options`` in :func:`_plan`'s order: planned, or run by
    the plan the last call on the same device-resident graph kept for these options (:mod:`gpusim.runtime.plans`)."""
    launch, run = kept_plan(graph, "apsb" if options[0] else "apfb", options, lambda: _plan(graph, *options))
    return run(launch)


def _plan(graph: BipartiteGraph, shortest: bool, backend: str, bfs: str, layout: str, initial,
          device: Device | None, check_invariants: bool, progress: bool, kernels,
          levels_per_read: int, warp_degree: int | str | None, output: str = "host",
          direction: str = "top-down", launches: str = "auto", frontier: str = "auto") -> tuple:
    """The options checked, the device chosen, the graph adopted and the work arrays found: ``(launch, run)``, where
    ``run(launch)`` runs Alg. 1 (its host loop, or that loop in one block) and returns the matching."""
    check_choice("bfs", bfs, ("wr", "plain"))
    check_choice("launches", launches, LAUNCHES)
    check_choice("direction", direction, DIRECTIONS)
    check_choice("frontier", frontier, FRONTIERS)
    if direction != "top-down" and bfs != "wr":
        raise InvalidArgument(f"direction={direction!r} needs bfs='wr' (GPUBFS-WR), got bfs={bfs!r}")
    if frontier == "queue" and (bfs != "wr" or direction != "top-down"):
        raise InvalidArgument(f"frontier='queue' lists the columns of GPUBFS-WR's top-down levels; bfs={bfs!r} "
                              f"direction={direction!r} sweeps (frontier='sweep')")
    hubs_decide = isinstance(warp_degree, str) and warp_degree == "auto"
    if hubs_decide:
        warp_degree = None
    elif isinstance(warp_degree, str):
        raise InvalidArgument(f"warp_degree={warp_degree!r} must be an int >= 1, None or 'auto'")
    elif warp_degree is not None:
        check_int("warp_degree", warp_degree, 1, None)
        if bfs != "wr":
            raise InvalidArgument(f"warp_degree={warp_degree} needs bfs='wr' (GPUBFS-WR), got bfs={bfs!r}")
    check_choice("layout", layout, ("ct", "mt"))
    check_int("levels_per_read", levels_per_read, 1, MAX_LEVELS_PER_READ)
    name = "apsb" if shortest else "apfb"
    stop_on_found = 1 if shortest else 0
    replaced = sorted(set(kernels) & _LOOP_KERNELS) if kernels else []
    kernels = kernel_table(KERNELS, kernels)
    dev, launch, start = prepare(graph, backend, device, initial, progress, name)
    one_block = _one_block(launches, graph, dev.backend, bfs, direction, warp_degree, check_invariants, replaced,
                           frontier)
    listed = frontier == "queue" or (frontier == "auto" and dev.backend != "sim" and bfs == "wr"
                                     and direction == "top-down" and not _SWEEP_KERNELS & set(replaced))
    check_output(output)
    sides = ("col",) if direction == "top-down" else ("col", "row")
    check_fits(dev, graph, lambda: bipartite_bytes(graph, sides, 4 if listed else 3), name,
               f'backend="cpu" (the sequential hk) for {name}')
    graph = resident(dev, graph)
    nr, nc = graph.n_rows, graph.n_cols
    start_level = 2
    mark_end = 1 if (shortest and bfs == "wr") else 0
    if layout == "ct":
        col_grid, block = CT_SHAPE[dev.backend]
        row_grid = col_grid
    else:
        block = MT_BLOCK[dev.backend]
        col_grid, row_grid = Device.grid_for(nc, block), Device.grid_for(nr, block)
    # with the listed frontier on a GPU, the steps that sweep every vertex (INITBFSARRAY, ALTERNATE, FIXMATCHING) run a
    # thread per vertex (on 4·10^6 columns, 256 x 256 threads striding left them waiting on memory for 2-3 times as
    # long), and the levels up to LISTED_LEVEL_GRID blocks
    col_sweep, row_sweep, level_grid = col_grid, row_grid, col_grid
    if listed and dev.backend != "sim":
        col_sweep, row_sweep = Device.grid_for(nc, block), Device.grid_for(nr, block)
        level_grid = max(col_grid, min(LISTED_LEVEL_GRID, Device.grid_for(nc, block)))  # at most a thread a column
    # col_ptr/col_adj: the rows of each column; cmatch[c]: row matched to column c, -1 free;
    # rmatch[r]: column matched to row r, -1 free, -2 the free end of an augmenting path (Alg. 2).
    col_ptr, col_adj = graph_array(dev, graph, graph.col_ptr), graph_array(dev, graph, graph.col_adj)
    row_ptr = row_adj = None
    if direction != "top-down":  # the row side's CSR, which bottom-up levels scan
        row_ptr, row_adj = graph_array(dev, graph, graph.row_ptr), graph_array(dev, graph, graph.row_adj)
    # the rows' pointers where the device has them, for the degrees a start of proposals reads (host.cheap_start)
    rows_here = row_ptr
    if rows_here is None and is_device_graph(graph):
        rows_here = graph.row_ptr
    # work arrays, kept by a device graph between calls (gpusim.runtime.workspace).  Not set here: each phase starts by
    # setting every column's level and root (init_bfs_array, start_columns), and a row's predecessor is read only
    # after the level that reached it wrote it
    scratch = workspace(dev, graph, name)
    bfs_array = scratch.empty("bfs_array", max(nc, 1))      # BFS level of each column (Alg. 2)
    root = scratch.empty("root", max(nc, 1))                # the free column each BFS tree grew from (Alg. 4)
    predecessor = scratch.empty("predecessor", max(nr, 1))  # the column that reached each row
    # vertex_inserted, augmenting_path_found of each level of a batch (kernels_bfs.search_over), each set by a fill
    # launch before its batch; with direction="auto", flags[2 * batch] counts the columns of the level after the
    # batch (count_level); in one block, the three slots of kernels_bfs_block, set to 0 in its phase
    flags = scratch.empty("flags", max(2 * levels_per_read + 1, 6))
    counts = scratch.empty("counts", 3) if one_block else None  # phases, levels and rows matched, by the one block
    if listed:  # each level's columns, where each level's list starts and its length, the hubs of a level
        queue = scratch.empty("queue", max(nc, 1))
        frontier_state = scratch.empty("frontier", 9)
        widest = warp_degree or HUB_WARP_DEGREE  # the warp degree a call may run with; its square makes a hub
        hubs = scratch.empty("hubs", graph.n_edges // (widest * widest) + 1)
    auto = direction == "auto"

    def run(launch: Launcher) -> BipartiteMatching:
        phases = levels = reads = 0
        phase_levels = 1  # the levels of the last phase, where the next starts its batches (first_batch)
        size = None  # counted on the device by the one-block kernel, else by bipartite_result
        if one_block and nc > 0 and nr > 0:
            if not isinstance(start, str):  # a start given is copied in, outside the phases as every copy
                rmatch, cmatch = device_start(launch, graph, start, col_ptr, col_adj, rows_here)
            with launch.phase("one block"):  # a device start too: the host waits for the device once, at the end
                if isinstance(start, str):
                    rmatch, cmatch = cheap_start(launch, graph, col_ptr, col_adj, start, rows_here)
                dev.fill(flags, 0)
                dev.fill(counts, 0)
                launch(kernels["augment_in_one_block"], 1, ONE_BLOCK_THREADS[dev.backend], col_ptr, col_adj, nc, nr,
                       rmatch, cmatch, bfs_array, root, predecessor, flags, counts, start_level,
                       mark_end, stop_on_found)
                phases, levels, size = (int(x) for x in dev.to_host(counts)[:3])
                reads = 1
        else:
            rmatch, cmatch = device_start(launch, graph, start, col_ptr, col_adj, rows_here)
        degree = warp_degree
        if hubs_decide and bfs == "wr" and not one_block and graph.n_edges >= HUB_DEGREE:
            with launch.phase("bfs"):
                degree = HUB_WARP_DEGREE if _has_hub(launch, col_ptr, nc) else None
        while not one_block and nc > 0 and nr > 0:
            phases += 1
            with launch.phase("bfs"):
                if listed:
                    launch(fill, 1, 32, frontier_state, 0, 9)
                    launch(kernels["init_bfs_queue"], col_sweep, block, bfs_array, cmatch, root, col_ptr, nc,
                           start_level, queue, frontier_state)
                else:
                    launch(kernels["init_bfs_array"], col_grid, block, bfs_array, cmatch, root, nc, start_level)
                # auto decides the direction after each batch: batches of 1, 2, 4, ... from each phase's first level
                bfs_level, found = start_level, False
                batch = 1 if auto else first_batch(phase_levels, levels_per_read)
                phase_levels = 0
                bottom_up = direction == "bottom-up"   # auto: a phase's first level, the free columns, top-down
                while True:
                    # Alg. 1 lines 6-11, `batch` levels at a time: a level after the end returns at once
                    launch(fill, 1, 32, flags, 0, 2 * batch + (1 if auto else 0))
                    for slot in range(batch):
                        if bottom_up:
                            launch(kernels["gpubfs_wr_bottom_up"], row_grid, block, bfs_level + slot, bfs_array,
                                   row_ptr, row_adj, nr, rmatch, predecessor, root, flags, start_level, mark_end,
                                   slot, stop_on_found)
                        elif listed:
                            launch(kernels["gpubfs_wr_queue"], level_grid, block, bfs_level + slot, bfs_array, col_ptr,
                                   col_adj, rmatch, predecessor, root, flags, start_level, mark_end, slot,
                                   stop_on_found, queue, frontier_state, hubs, degree or _NO_WARP)
                            if degree is not None:
                                launch(kernels["expand_hubs"], level_grid, block, bfs_level + slot, bfs_array, col_ptr,
                                       col_adj, rmatch, predecessor, root, flags, start_level, mark_end, slot,
                                       stop_on_found, queue, frontier_state, hubs)
                        elif degree is not None:
                            launch(kernels["gpubfs_wr_warp"], col_grid, block, bfs_level + slot, bfs_array, col_ptr,
                                   col_adj, nc, rmatch, predecessor, root, flags, start_level, mark_end, slot,
                                   stop_on_found, degree)
                        elif bfs == "wr":
                            launch(kernels["gpubfs_wr"], col_grid, block, bfs_level + slot, bfs_array, col_ptr, col_adj,
                                   nc, rmatch, predecessor, root, flags, start_level, mark_end, slot, stop_on_found)
                        else:
                            launch(kernels["gpubfs"], col_grid, block, bfs_level + slot, bfs_array, col_ptr,
                                   col_adj, nc, rmatch, predecessor, flags, start_level, slot, stop_on_found)
                    if auto:
                        launch(kernels["count_level"], col_grid, block, bfs_level + batch, bfs_array, nc, flags,
                               2 * batch)
                    reads += 1
                    read = dev.to_host(flags)
                    ran, found, over = levels_run(read, batch, shortest, found)
                    phase_levels += ran
                    if over:
                        break
                    if auto:
                        bottom_up = bool(read[2 * batch] > BOTTOM_UP_SHARE * nc)
                    bfs_level += batch
                    batch = min(2 * batch, levels_per_read)
            levels += phase_levels
            if not found:
                break
            with launch.phase("alternate"):
                launch(kernels["alternate"], row_sweep, block, cmatch, rmatch, nr, predecessor, bfs_array, root,
                       mark_end)
                launch(kernels["fix_rows"], row_sweep, block, cmatch, rmatch, nr)
                launch(kernels["fix_columns"], col_sweep, block, cmatch, rmatch, nc)
            if check_invariants:
                _check_consistent(dev, graph, rmatch, cmatch, f"after phase {phases} (ALTERNATE and FIXMATCHING)",
                                  (col_ptr, col_adj))
            launch.tick(bfs_levels=levels)
        launch.close()
        stats = {"phases": phases, "bfs_levels": levels, "reads_back": reads + 2,  # + 2: the matching itself
                 "bfs": bfs, "layout": layout, "warp_degree": degree, "direction": direction, "one_block": one_block,
                 "frontier": "queue" if listed else "sweep",
                 "rows_counted": size}  # the one block's count of matched rows (None: counted afterwards)
        return bipartite_result(launch, graph, col_ptr, col_adj, rmatch, cmatch, name, stats, output, size)

    return launch, run


@register("bipartite", "apfb", backends=("sim", "numba", "cupy"), on_cpu="hk",
          title="APFB: augmenting paths, full BFS (GPUBFS / GPUBFS-WR, ALTERNATE, FIXMATCHING)",
          paper="deveci2013apfb", where="Alg. 1 without lines 9-10, Alg. 2-4",
          guarantees="maximum", kernels=(*KERNELS.values(), *START_KERNELS))
def apfb(graph: BipartiteGraph, *, backend: str = "auto", bfs: str = "wr", layout: str = "ct",
         initial=None, device: Device | None = None, check_invariants: bool = False,
         progress: bool = False, kernels: dict | None = None,
         levels_per_read: int = LEVELS_PER_READ, warp_degree: int | str | None = "auto",
         output: str = "host", direction: str = "top-down", launches: str = "auto",
         frontier: str = "auto") -> BipartiteMatching:
    """APFB (Deveci et al., Euro-Par 2013, Alg. 1 without lines 9–10): BFS to the end, then alternate every path found.

    Parameters
    ----------
    graph:
        The bipartite graph.
    backend:
        ``"sim"``, ``"numba"``, ``"cupy"`` or ``"auto"`` (ignored when ``device`` is given).
    bfs:
        ``"wr"``: GPUBFS-WR (Alg. 4, the paper's best); ``"plain"``: GPUBFS (Alg. 2).
    layout:
        ``"ct"``: a constant grid (256 × 256 on a GPU), each thread striding over vertices;
        ``"mt"``: a thread per vertex.  CT was faster in every configuration of Table 1.
    initial:
        ``"cheap"`` (the cheap matching made on the device by one launch of
        :func:`~gpusim.algorithms.bipartite.kernels_cheap.cheap_claim`, a maximal matching that may differ
        from the seeds' sequential one), ``"proposals"`` (rounds of proposals to the lightest free row before
        it, :mod:`~gpusim.algorithms.bipartite.kernels_proposals`: fewer columns left to the BFS where degrees
        are skewed), ``None`` (the default: the proposals from 10^6 edges, the cheap matching below,
        :func:`~gpusim.algorithms.bipartite.host.default_start`), ``"cheap-host"`` (the seeds' sequential
        greedy, made on the host), ``"empty"``, or ``(row_match, col_match)``.
    device:
        A :class:`~gpusim.Device` to run on (say, a simulator with a chosen policy).
    check_invariants:
        After every phase, copy the matching back and check both sides agree and every pair is
        an edge; raise :class:`~gpusim.errors.InvariantViolation` (with the replay token on the
        simulator) if not.  For teaching and bug hunting: it costs a copy per phase.
    progress:
        Show a progress bar (tqdm) of the host loop's iterations.
    kernels:
        Kernels to launch in the place of the paper's, by name (``{"alternate": twin}``): the seam
        the bug zoo passes its broken twins through (:func:`gpusim.language.variants.kernel_table`).
    levels_per_read:
        The most BFS levels launched before the host reads their flags back (default 16): each phase
        launches batches of 1, 2, 4, ... levels up to this, and a level after the one that ended the
        search (Alg. 1 line 6, or lines 9–10 for APsB) returns at once
        (:func:`~gpusim.algorithms.bipartite.kernels_bfs.search_over`), so the levels run and the
        matching are those of the one-level-at-a-time loop (``levels_per_read=1``), with fewer
        synchronising copies (``stats["reads_back"]``: the flag reads and the two copies of the result).
    warp_degree:
        ``None``: a thread scans each column, as the paper's GPUBFS-WR.  An int ``d`` (with ``bfs="wr"``):
        columns of degree ≥ ``d`` are scanned by their whole warp
        (:func:`~gpusim.algorithms.bipartite.kernels_bfs_warp.gpubfs_wr_warp`, ECL-MM's thread/warp
        granularity by degree); 32 is a natural choice on a GPU.  With ``frontier="queue"`` every warp visits its
        columns' rows as one list whatever their degrees, and ``d`` sets the hubs: columns of ``d²`` rows or more,
        whose rows the whole grid shares.  ``"auto"`` (default): 32 when some column
        has ``HUB_DEGREE`` (1024) rows or more (tested on the device by
        :func:`~gpusim.algorithms.bipartite.kernels_bfs_warp.has_hub`), else ``None``; ``stats["warp_degree"]``
        says which ran.
    direction:
        ``"top-down"`` (default, the paper's): every BFS level from its frontier columns.  ``"bottom-up"``:
        every level from the rows still waiting to be reached, each stopping at the first frontier column it
        finds (:func:`~gpusim.algorithms.bipartite.kernels_bfs_bottom_up.gpubfs_wr_bottom_up`; needs
        ``bfs="wr"``; the row side's CSR is copied too).  ``"auto"``: direction-optimising BFS (Beamer et al.,
        SC 2012): a phase starts top-down, and after each batch the columns of the next level are counted on
        the device (read back with the flags); a batch whose frontier holds more than
        ``BOTTOM_UP_SHARE`` (1/16) of the columns runs bottom-up.  The matching is maximum in every direction;
        which maximum matching may differ.
    frontier:
        ``"sweep"`` (the paper's): each BFS level sweeps every column for those at its level.  ``"queue"``: each
        level reads its columns from a list that the level before wrote, claiming each column it adds by a CAS, a
        hub (degree ≥ ``warp_degree²``) scanned by the whole grid
        (:mod:`~gpusim.algorithms.bipartite.kernels_bfs_queue`; GPUBFS-WR top-down).  ``"auto"`` (default): the
        list on a GPU, the sweep on the simulator and wherever ``kernels=`` replaces a sweep's kernel.
        ``stats["frontier"]`` says which ran.
    launches:
        ``"levels"``: the host loop above, a launch for each step (INITBFSARRAY, each batch of BFS levels,
        ALTERNATE, FIXMATCHING).  ``"one-block"``: the whole loop in one launch of one block, ``syncthreads``
        where the loop has kernel boundaries
        (:func:`~gpusim.algorithms.bipartite.kernels_bfs_block.augment_in_one_block`; GPUBFS-WR top-down,
        ``check_invariants=False``).  ``"auto"`` (default): one block on a GPU for graphs of at most
        ``ONE_BLOCK_EDGES`` (2^15) edges, whose calls the launches dominated; the loop otherwise, on the
        simulator, and whenever an option or ``kernels=`` needs it.  ``stats["one_block"]`` says which ran.
    output:
        ``"host"`` (default): the mates copied back; ``"device"``: a
        :class:`~gpusim.types.device_results.DeviceBipartiteMatching` whose mates stay on the device,
        validated there.  ``graph`` may be device-resident
        (:class:`~gpusim.types.device_graphs.DeviceBipartiteGraph`: no copy in; the cheap matching is made
        on the device).

    Returns
    -------
    BipartiteMatching
        With its König cover certificate and statistics (phases, BFS levels run, reads back, launches).

    Notes
    -----
    Each phase: INITBFSARRAY, BFS levels until no column is inserted, ALTERNATE from every
    free row that ends a path, FIXMATCHING.  O(n·τ) sequential work in the worst case: the
    alternations are speculative and need not be a maximal set of disjoint paths.

    Examples
    --------
    >>> from gpusim.types.graphs import BipartiteGraph
    >>> apfb(BipartiteGraph.from_edges([0, 1, 1], [0, 0, 1]), backend="sim").row_match.tolist()
    [0, 1]
    """
    return _augmenting_paths(graph, False, backend, bfs, layout, initial, device, check_invariants, progress,
                             kernels, levels_per_read, warp_degree, output, direction, launches, frontier)


@register("bipartite", "apsb", backends=("sim", "numba", "cupy"), on_cpu="hk",
          title="APsB: shortest augmenting paths (GPUBFS / GPUBFS-WR, ALTERNATE, FIXMATCHING)",
          paper="deveci2013apfb", where="Alg. 1-4", guarantees="maximum",
          kernels=(*KERNELS.values(), *START_KERNELS))
def apsb(graph: BipartiteGraph, *, backend: str = "auto", bfs: str = "wr", layout: str = "ct",
         initial=None, device: Device | None = None, check_invariants: bool = False,
         progress: bool = False, kernels: dict | None = None,
         levels_per_read: int = LEVELS_PER_READ, warp_degree: int | str | None = "auto",
         output: str = "host", direction: str = "top-down", launches: str = "auto",
         frontier: str = "auto") -> BipartiteMatching:
    """APsB (Deveci et al., Euro-Par 2013, Alg. 1): like :func:`apfb`, but each phase stops at the shortest
    augmenting paths.

    With GPUBFS-WR it uses the paper's improvement (L0 = 2, ``bfs_array[root] = -(row + 1)``), so
    ALTERNATE starts from one row per root.  Parameters as :func:`apfb`.

    Examples
    --------
    >>> from gpusim.types.graphs import BipartiteGraph
    >>> apsb(BipartiteGraph.from_edges([0, 1, 1], [0, 0, 1]), backend="sim").size
    2
    """
    return _augmenting_paths(graph, True, backend, bfs, layout, initial, device, check_invariants, progress,
                             kernels, levels_per_read, warp_degree, output, direction, launches, frontier)


def _has_hub(launch, col_ptr, nc: int) -> bool:
    """Whether some column has ``HUB_DEGREE`` rows or more, found on the device (one launch, one read)."""
    dev = launch.device
    found = dev.zeros(1, np.int32)
    launch(has_hub, Device.grid_for(nc, MT_BLOCK[dev.backend]), MT_BLOCK[dev.backend], col_ptr, nc, HUB_DEGREE, found)
    return bool(dev.to_host(found)[0])


def _one_block(launches: str, graph, backend: str, bfs: str, direction: str, warp_degree: int | None,
               check_invariants: bool, replaced: list[str], frontier: str = "auto") -> bool:
    """Whether the host loop runs as one block (``launches=``): always for ``"one-block"``, whose limits it checks;
    for ``"auto"`` on a GPU, for a graph of at most ``ONE_BLOCK_EDGES`` edges, when nothing asks for the loop."""
    # what asks for the loop, each condition once; its words are made only to refuse (this runs on every call)
    asks = (bfs != "wr", direction != "top-down", warp_degree is not None, check_invariants, bool(replaced),
            frontier == "queue")
    needs_loop = any(asks)
    if launches == "one-block":
        if needs_loop:
            why = (f"bfs={bfs!r}", f"direction={direction!r}", f"warp_degree={warp_degree}", "check_invariants=True",
                   f"kernels= replacing {replaced}", "frontier='queue'")[asks.index(True)]
            raise InvalidArgument(f"launches='one-block' runs GPUBFS-WR top-down with no check between phases; "
                                  f"{why} needs launches='levels'")
        return True
    return launches == "auto" and not needs_loop and backend != "sim" and graph.n_edges <= ONE_BLOCK_EDGES


def _check_consistent(dev: Device, graph: BipartiteGraph, rmatch, cmatch, when: str, col_csr: tuple = ()) -> None:
    try:
        if is_device_graph(graph):  # checked on the device, against its column side: no host copy
            found = matching_problem(dev, *col_csr, cmatch, rmatch, graph.n_cols, graph.n_rows, "column", "row")
            if found is not None:
                raise InvalidArgument(found)
        else:
            check_bipartite_matching(graph, dev.to_host(rmatch)[:graph.n_rows], dev.to_host(cmatch)[:graph.n_cols])
    except InvalidArgument as problem:
        raise violation(dev, f"InvariantViolation: the matching is inconsistent {when}: {problem}") from None

