"""Maximum-cardinality bipartite matching on GPUs: augmenting paths (seed 000) and push-relabel (seed 001).

Kernels appear in the order of the papers' algorithms ([000]_, [001]_), written once in ``T``; the host
functions :func:`apfb`, :func:`apsb` and :func:`gpr` are the papers' outer loops, written once
against :class:`~gpusim.Device`.  Rows are one side and columns the other; ``rmatch[r]`` is the
column matched to row ``r`` and ``cmatch[c]`` the row matched to column ``c``, -1 when free.

References
----------
.. [000] M. Deveci, K. Kaya, B. Uçar, Ü. V. Çatalyürek, "GPU accelerated maximum cardinality
   matching algorithms for bipartite graphs", Euro-Par 2013 (seed 000).
.. [001] M. Deveci, K. Kaya, B. Uçar, Ü. V. Çatalyürek, "A push-relabel-based maximum
   cardinality bipartite matching algorithm on GPUs", ICPP 2013 (seed 001).

Example
-------
>>> from gpusim.types.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0, 0, 1, 2], [0, 1, 0, 2])
>>> apfb(g, backend="sim").size, gpr(g, backend="sim").size
(3, 3)
>>> apfb(BipartiteGraph.from_edges([], [], n_rows=0, n_cols=0), backend="sim").size
0
"""

from __future__ import annotations

import numpy as np

from gpusim import T, kernel
from gpusim.errors import InvalidArgument, InvalidArgumentType, InvariantViolation
from gpusim.runtime.device import Device, choose_backend
from gpusim.runtime.launcher import Launcher, fill
from gpusim.types.graphs import BipartiteGraph
from gpusim.types.results import BipartiteMatching

__all__ = [
    "ALGORITHMS", "alternate", "apfb", "apsb", "compact_active", "fix_columns", "fix_rows", "global_relabel_level",
    "gpr", "gpubfs", "gpubfs_wr", "init_active", "init_bfs_array", "init_relabel", "push_active", "push_relabel_all",
    "maximum_bipartite_matching",
]

_I = "int32"
_A = "int32[:]"


def _sig(*types: str) -> str:
    return ", ".join(types)


# ==============================================================================================
# Seed 000: augmenting paths (APsB / APFB, Alg. 1) and their kernels
# ==============================================================================================

#: The races the BFS kernels intend (seed 000, §3: "the race conditions are benign").
_BFS_RACES = {
    "bfs_array": "several columns may visit one column in a level, all writing the same level",
    "predecessor": "several columns may reach one row; any of them is a valid predecessor",
    "rmatch": "a free row may be marked -2 by several columns (the same value) while others read it",
    "flags": "flags: every writer writes 1",
}
#: The races the push-relabel kernels intend (seed 001, §III-B: concurrent pushes on one row leave one
#: winner; the losers stay active, or INITKRNL rolls them back).
_PUSH_RACES = {
    "rmatch": "concurrent pushes on one row: the last write wins, the losers' columns stay active",
    "psi_r": "a row relabelled by concurrent pushes; labels only grow and any winner's label is valid",
}


@kernel(signature=_sig(_A, _A, _A, _I, _I))
def init_bfs_array(bfs_array, cmatch, root, nc, start_level):
    """INITBFSARRAY (seed 000, §3): free columns start the BFS at level L0, matched ones wait at L0 - 1.

    ``root[c]`` (for GPUBFS-WR, Alg. 4) is ``c`` for a free column and -1 (no root yet) otherwise.
    """
    c = T.gtid()
    while c < nc:
        if cmatch[c] > -1:
            bfs_array[c] = start_level - 1
            root[c] = -1
        else:
            bfs_array[c] = start_level
            root[c] = c
        c += T.num_threads()


@kernel(signature=_sig(_I, _A, _A, _A, _I, _A, _A, _A, _I), intended_races=_BFS_RACES)
def gpubfs(bfs_level, bfs_array, col_ptr, col_adj, nc, rmatch, predecessor, flags, start_level):
    """GPUBFS (seed 000, Alg. 2): expand one BFS level from every column at ``bfs_level``.

    ``flags[0]`` is *vertex_inserted*, ``flags[1]`` *augmenting_path_found*.  A free row ends an
    augmenting path: it is marked ``rmatch = -2`` for ALTERNATE.  Intended races: many threads
    may write the same ``bfs_array`` entry (same value) or ``predecessor`` entry (any writer's
    column is a valid predecessor).
    """
    c = T.gtid()
    while c < nc:
        if bfs_array[c] == bfs_level:
            for j in range(col_ptr[c], col_ptr[c + 1]):
                row = col_adj[j]
                col_match = rmatch[row]
                if col_match > -1:
                    if bfs_array[col_match] == start_level - 1:
                        flags[0] = 1
                        bfs_array[col_match] = bfs_level + 1
                        predecessor[row] = c
                elif col_match == -1:
                    rmatch[row] = -2
                    predecessor[row] = c
                    flags[1] = 1
        c += T.num_threads()


@kernel(signature=_sig(_I, _A, _A, _A, _I, _A, _A, _A, _A, _I, _I), intended_races={
    **_BFS_RACES, "root": "several columns may claim one column for their roots; any one is a valid root"})
def gpubfs_wr(bfs_level, bfs_array, col_ptr, col_adj, nc, rmatch, predecessor, root, flags, start_level,
              mark_end):
    """GPUBFS-WR (seed 000, Alg. 4): GPUBFS with the root array and early exit.

    A column stops expanding once its root has an augmenting path (``bfs_array[root] <
    L0 - 1``).  With ``mark_end`` (the APsB improvement, L0 = 2) the root records *which* row
    ends its path, as ``-(row + 1)``, so ALTERNATE alternates one path per root.
    """
    c = T.gtid()
    while c < nc:
        if bfs_array[c] == bfs_level:
            my_root = root[c]
            if bfs_array[my_root] >= start_level - 1:
                for j in range(col_ptr[c], col_ptr[c + 1]):
                    row = col_adj[j]
                    col_match = rmatch[row]
                    if col_match > -1:
                        if bfs_array[col_match] == start_level - 1:
                            flags[0] = 1
                            bfs_array[col_match] = bfs_level + 1
                            root[col_match] = my_root
                            predecessor[row] = c
                    elif col_match == -1:
                        if mark_end == 1:
                            bfs_array[my_root] = -row - 1
                        else:
                            bfs_array[my_root] = start_level - 2
                        rmatch[row] = -2
                        predecessor[row] = c
                        flags[1] = 1
        c += T.num_threads()


@kernel(signature=_sig(_A, _A, _I, _A, _A, _A, _I), intended_races={
    "cmatch": "two paths may re-match one column; the predecessor check stops most, FIXMATCHING repairs the rest "
              "(seed 000, Alg. 3 and §3)",
    "rmatch": "a row read as -2 (path end) while another path re-matches it; FIXMATCHING repairs it"})
def alternate(cmatch, rmatch, nr, predecessor, bfs_array, root, use_marks):
    """ALTERNATE (seed 000, Alg. 3): flip the edges of the augmenting paths found, from their free rows.

    The predecessor check (line 8) stops a thread at a column another thread has already
    re-matched along a different path; without it two paths through one column can chase each
    other forever (Fig. 1).  Threads in one warp may still both write ``cmatch`` of a column;
    FIXMATCHING repairs that.  The check ``matched_row != -1`` guards the root column, where the
    paper's line 8 would read ``predecessor[-1]``.
    """
    r = T.gtid()
    while r < nr:
        if rmatch[r] == -2:
            start = 1
            if use_marks == 1:
                if bfs_array[root[predecessor[r]]] != -r - 1:
                    start = 0
            row = r
            while start == 1 and row != -1:
                matched_col = predecessor[row]
                matched_row = cmatch[matched_col]
                if matched_row != -1:
                    if predecessor[matched_row] == matched_col:
                        break
                cmatch[matched_col] = row
                rmatch[row] = matched_col
                row = matched_row
        r += T.num_threads()


@kernel(signature=_sig(_A, _A, _I))
def fix_rows(cmatch, rmatch, nr):
    """FIXMATCHING, row side (seed 000, §3): ``rmatch[r] = -1`` unless ``cmatch[rmatch[r]] == r``; -2 becomes -1."""
    r = T.gtid()
    while r < nr:
        c = rmatch[r]
        if c == -2:
            rmatch[r] = -1
        elif c > -1:
            if cmatch[c] != r:
                rmatch[r] = -1
        r += T.num_threads()


@kernel(signature=_sig(_A, _A, _I))
def fix_columns(cmatch, rmatch, nc):
    """FIXMATCHING, column side: ``cmatch[c] = -1`` unless ``rmatch[cmatch[c]] == c``.

    The papers state the row side only; after racing alternations a column can also keep a row
    that moved on, and a column that believes itself matched would never start a BFS again.
    For G-PR (seed 001, Alg. 3 line 11) this is the whole fix, -2 (unreachable) included.
    """
    c = T.gtid()
    while c < nc:
        r = cmatch[c]
        if r < 0:
            cmatch[c] = -1
        elif rmatch[r] != c:
            cmatch[c] = -1
        c += T.num_threads()


# ==============================================================================================
# Seed 001: push-relabel (G-PR, Alg. 3 and 7) and its kernels
# ==============================================================================================

@kernel(signature=_sig(_A, _A, _A, _I, _I, _I))
def init_relabel(rmatch, psi_r, psi_c, nr, nc, infinity):
    """INITRELABEL (seed 001, Alg. 4 line 1): ψ = 0 on free rows, m + n everywhere else."""
    i = T.gtid()
    while i < nr:
        if rmatch[i] == -1:
            psi_r[i] = 0
        else:
            psi_r[i] = infinity
        i += T.num_threads()
    i = T.gtid()
    while i < nc:
        psi_c[i] = infinity
        i += T.num_threads()


@kernel(signature=_sig(_A, _A, _A, _A, _A, _A, _I, _I, _I, _A), intended_races={
    "psi_c": "several rows label one column, always level + 1 (seed 001, Alg. 5)",
    "psi_r": "several columns label one mate, always level + 2",
    "added": "a flag: every writer writes 1"})
def global_relabel_level(row_ptr, row_adj, psi_r, psi_c, rmatch, cmatch, nr, level, infinity, added):
    """G-GR-KRNL (seed 001, Alg. 5): one BFS level from the rows labelled ``level``.

    Unvisited columns get ``level + 1`` and their (consistent) mates ``level + 2``.  Several
    threads may write one label, always the same value: an intended, benign race.
    """
    u = T.gtid()
    while u < nr:
        if psi_r[u] == level:
            for j in range(row_ptr[u], row_ptr[u + 1]):
                v = row_adj[j]
                if psi_c[v] == infinity:
                    psi_c[v] = level + 1
                    w = cmatch[v]
                    if w > -1:
                        if rmatch[w] == v:
                            psi_r[w] = level + 2
                            added[0] = 1
        u += T.num_threads()


@kernel(signature=_sig(_A, _A, _A, _A, _A, _A, _I, _I, _A),
        intended_races={**_PUSH_RACES, "active": "a flag: every writer writes 1"})
def push_relabel_all(col_ptr, col_adj, rmatch, cmatch, psi_r, psi_c, nc, infinity, active):
    """G-PR-KRNL (seed 001, Alg. 6): a thread per column; each active column pushes once.

    A column is active when free (-1) or when its row moved on (``rmatch[cmatch[v]] != v``).
    It takes the row of minimum ψ (stopping early at ψ(v) - 1), matches it (single or double
    push) and relabels both, or becomes unreachable (-2).  Concurrent pushes on one row leave
    one winner; the losers stay active (§III-B).
    """
    v = T.gtid()
    while v < nc:
        mate = cmatch[v]
        is_active = 0
        if mate == -1:
            is_active = 1
        elif mate > -1:
            if rmatch[mate] != v:
                is_active = 1
        if is_active == 1:
            active[0] = 1
            psi_min = infinity
            u = -1
            for j in range(col_ptr[v], col_ptr[v + 1]):
                label = psi_r[col_adj[j]]
                if label < psi_min:
                    psi_min = label
                    u = col_adj[j]
                    if psi_min == psi_c[v] - 1:
                        break
            if psi_min < infinity:
                rmatch[u] = v
                cmatch[v] = u
                psi_c[v] = psi_min + 1
                psi_r[u] = psi_min + 2
            else:
                cmatch[v] = -2
        v += T.num_threads()


@kernel(signature=_sig(_A, _A, _I, _A, _A, _A, _I, _A), intended_races={"active": "a flag: every writer writes 1"})
def init_active(cmatch, rmatch, loop, a_c, a_p, i_a, n_active, active):
    """G-PR-INITKRNL (seed 001, Alg. 8): fix the active list, rolling back pushes that lost a race.

    ``a_p[i]`` is the column processed at slot ``i`` last loop and ``a_c[i]`` the column its push
    freed.  If the processed column is still unmatched, its push lost: process it again.
    Every column processed this loop gets ``i_a[v] = loop``.
    """
    i = T.gtid()
    while i < n_active:
        v = a_p[i]
        if v != -1:
            mate = cmatch[v]
            lost = 0
            if mate == -1:
                lost = 1
            elif mate > -1:
                if rmatch[mate] != v:
                    lost = 1
            if lost == 1:
                a_c[i] = v
            else:
                v = a_c[i]
        if v != -1:
            i_a[v] = loop
            active[0] = 1
        i += T.num_threads()


@kernel(signature=_sig(_A, _A, _A, _A, _A, _A, _I, _A, _A, _A, _I, _I), intended_races=_PUSH_RACES)
def push_active(col_ptr, col_adj, rmatch, cmatch, psi_r, psi_c, loop, a_c, a_p, i_a, n_active, infinity):
    """G-PR-PUSHKRNL (seed 001, Alg. 9): push-relabel on the listed active columns only.

    The ``i_a`` guard (line 13) refuses a row whose mate is itself active this loop: pushing
    there would put that column in the list a second time, and after a roll-back two threads
    would process it.  ``a_p[i]`` receives the column the push freed (-1 for none).
    """
    i = T.gtid()
    while i < n_active:
        v = a_c[i]
        if v != -1:
            psi_min = infinity
            u = -1
            for j in range(col_ptr[v], col_ptr[v + 1]):
                label = psi_r[col_adj[j]]
                if label < psi_min:
                    psi_min = label
                    u = col_adj[j]
                    if psi_min == psi_c[v] - 1:
                        break
            if psi_min < infinity:
                w = rmatch[u]
                if w == -1 or i_a[w] != loop:
                    rmatch[u] = v
                    cmatch[v] = u
                    psi_c[v] = psi_min + 1
                    psi_r[u] = psi_min + 2
                    a_p[i] = w
            else:
                cmatch[v] = -2
                a_c[i] = -1
                a_p[i] = -1
        else:
            a_p[i] = -1
        i += T.num_threads()


@kernel(signature=_sig(_A, _A, _I, _A))
def compact_active(source, target, n, new_length):
    """G-PR-SHRKRNL's compaction (seed 001, §III-C2): one block packs the active columns by prefix sum.

    Each thread counts the active entries of its own contiguous chunk, a block-wide
    Hillis-Steele scan in shared memory turns the counts into private write offsets, and each
    thread copies its entries, in order, to ``target``.  ``new_length[0]`` gets the total.
    """
    counts = T.shared_array(1024, T.i32)
    tid = T.thread_id()
    threads = T.block_size()
    chunk = (n + threads - 1) // threads
    low = tid * chunk
    high = min(low + chunk, n)
    mine = 0
    for i in range(low, high):
        if source[i] != -1:
            mine += 1
    counts[tid] = mine
    T.syncthreads()
    offset = 1
    while offset < threads:
        before = 0
        if tid >= offset:
            before = counts[tid - offset]
        T.syncthreads()
        counts[tid] = counts[tid] + before
        T.syncthreads()
        offset *= 2
    write = counts[tid] - mine
    for i in range(low, high):
        if source[i] != -1:
            target[write] = source[i]
            write += 1
    if tid == threads - 1:
        new_length[0] = counts[tid]


# ==============================================================================================
# Host orchestration
# ==============================================================================================

#: Threads per block for one-thread-per-vertex (MT) launches, per backend.
MT_BLOCK = {"sim": 32, "numba": 256, "cupy": 256}
#: The fixed grid × block of constant-thread (CT) launches: the paper's 256 × 256 on a GPU.
CT_SHAPE = {"sim": (2, 32), "numba": (256, 256), "cupy": (256, 256)}
#: Threads of the single block that compacts active lists (at most 1024, the shared counts' size).
COMPACT_BLOCK = {"sim": 64, "numba": 1024, "cupy": 1024}
SHRINK_THRESHOLD = 512


def _prepare(graph, backend, device, initial, progress, name):
    if not isinstance(graph, BipartiteGraph):
        raise InvalidArgumentType(f"graph must be a BipartiteGraph, got {type(graph).__name__}")
    if device is not None and not isinstance(device, Device):
        raise InvalidArgumentType(f"device must be a gpusim.Device, got {device!r}")
    dev = device if device is not None else Device(backend)
    row_match, col_match = _initial_matching(graph, initial)
    if not isinstance(progress, bool):
        raise InvalidArgumentType(f"progress must be True or False, got {progress!r}")
    return dev, Launcher(dev, progress, name), row_match, col_match


def _initial_matching(graph: BipartiteGraph, initial) -> tuple[np.ndarray, np.ndarray]:
    if initial is None or (isinstance(initial, str) and initial == "cheap"):
        from .bipartite_cpu import cheap_matching

        row_match, col_match, _ = cheap_matching(graph)
    elif isinstance(initial, str) and initial == "empty":
        row_match, col_match = np.full(graph.n_rows, -1, np.int32), np.full(graph.n_cols, -1, np.int32)
    elif isinstance(initial, tuple) and len(initial) == 2:
        from gpusim.types.check import check_bipartite_matching

        row_match, col_match = (np.asarray(a, np.int32).copy() for a in initial)
        check_bipartite_matching(graph, row_match, col_match)
    else:
        raise InvalidArgument(f"initial must be 'cheap', 'empty' or a (row_match, col_match) pair, got {initial!r}")
    return np.asarray(row_match, np.int32), np.asarray(col_match, np.int32)


def _check_choice(name: str, value, choices: tuple) -> None:
    if value not in choices:
        raise InvalidArgument(f"{name}={value!r} is not one of {choices}")


def _augmenting_paths(graph: BipartiteGraph, shortest: bool, backend: str, bfs: str, layout: str,
                      initial, device: Device | None, check_invariants: bool, progress: bool) -> BipartiteMatching:
    _check_choice("bfs", bfs, ("wr", "plain"))
    _check_choice("layout", layout, ("ct", "mt"))
    name = "apsb" if shortest else "apfb"
    dev, launch, row_match, col_match = _prepare(graph, backend, device, initial, progress, name)
    nr, nc = graph.n_rows, graph.n_cols
    start_level = 2
    mark_end = 1 if (shortest and bfs == "wr") else 0
    if layout == "ct":
        col_grid, block = CT_SHAPE[dev.backend]
        row_grid = col_grid
    else:
        block = MT_BLOCK[dev.backend]
        col_grid, row_grid = Device.grid_for(nc, block), Device.grid_for(nr, block)
    # col_ptr/col_adj: the rows of each column; cmatch[c]: row matched to column c, -1 free;
    # rmatch[r]: column matched to row r, -1 free, -2 the free end of an augmenting path (Alg. 2).
    col_ptr, col_adj = dev.array(graph.col_ptr), dev.array(_nonempty(graph.col_adj))
    cmatch, rmatch = dev.array(_nonempty(col_match)), dev.array(_nonempty(row_match))
    bfs_array = dev.zeros(max(nc, 1), np.int32)     # BFS level of each column (Alg. 2)
    root = dev.zeros(max(nc, 1), np.int32)          # the free column each BFS tree grew from (Alg. 4)
    predecessor = dev.zeros(max(nr, 1), np.int32)   # the column that reached each row
    flags = dev.zeros(2, np.int32)                  # vertex_inserted, augmenting_path_found
    phases = levels = 0
    while nc > 0 and nr > 0:
        phases += 1
        with launch.phase("bfs"):
            launch(init_bfs_array, col_grid, block, bfs_array, cmatch, root, nc, start_level)
            launch(fill, 1, 32, flags, 0, 2)
            bfs_level = start_level
            while True:
                launch(fill, 1, 32, flags, 0, 1)
                levels += 1
                if bfs == "wr":
                    launch(gpubfs_wr, col_grid, block, bfs_level, bfs_array, col_ptr, col_adj, nc, rmatch,
                           predecessor, root, flags, start_level, mark_end)
                else:
                    launch(gpubfs, col_grid, block, bfs_level, bfs_array, col_ptr, col_adj, nc, rmatch,
                           predecessor, flags, start_level)
                inserted, found = dev.to_host(flags).tolist()
                if (shortest and found) or not inserted:
                    break
                bfs_level += 1
        if not found:
            break
        with launch.phase("alternate"):
            launch(alternate, row_grid, block, cmatch, rmatch, nr, predecessor, bfs_array, root, mark_end)
            launch(fix_rows, row_grid, block, cmatch, rmatch, nr)
            launch(fix_columns, col_grid, block, cmatch, rmatch, nc)
        if check_invariants:
            _check_consistent(dev, graph, rmatch, cmatch, f"after phase {phases} (ALTERNATE and FIXMATCHING)")
        launch.tick(bfs_levels=levels)
    launch.close()
    stats = {"phases": phases, "bfs_levels": levels, "launches": dict(launch.launches),
             "seconds": dict(launch.seconds), "bfs": bfs, "layout": layout}
    return BipartiteMatching(graph, dev.to_host(rmatch)[:nr], dev.to_host(cmatch)[:nc], name,
                                     dev.backend, stats)


def apfb(graph: BipartiteGraph, *, backend: str = "auto", bfs: str = "wr", layout: str = "ct",
         initial=None, device: Device | None = None, check_invariants: bool = False,
         progress: bool = False) -> BipartiteMatching:
    """APFB (seed 000, Alg. 1 without lines 9–10): BFS to the end, then alternate every path found.

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
        ``"cheap"`` (default: the greedy cheap matching), ``"empty"``, or ``(row_match, col_match)``.
    device:
        A :class:`~gpusim.Device` to run on (say, a simulator with a chosen policy).
    check_invariants:
        After every phase, copy the matching back and check both sides agree and every pair is
        an edge; raise :class:`~gpusim.errors.InvariantViolation` (with the replay token on the
        simulator) if not.  For teaching and bug hunting: it costs a copy per phase.
    progress:
        Show a progress bar (tqdm) of the host loop's iterations.

    Returns
    -------
    BipartiteMatching
        With its König cover certificate and statistics (phases, BFS levels, launches).

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
    return _augmenting_paths(graph, False, backend, bfs, layout, initial, device, check_invariants, progress)


def apsb(graph: BipartiteGraph, *, backend: str = "auto", bfs: str = "wr", layout: str = "ct",
         initial=None, device: Device | None = None, check_invariants: bool = False,
         progress: bool = False) -> BipartiteMatching:
    """APsB (seed 000, Alg. 1): like :func:`apfb`, but each phase stops at the shortest augmenting paths.

    With GPUBFS-WR it uses the paper's improvement (L0 = 2, ``bfs_array[root] = -(row + 1)``), so
    ALTERNATE starts from one row per root.  Parameters as :func:`apfb`.

    Examples
    --------
    >>> from gpusim.types.graphs import BipartiteGraph
    >>> apsb(BipartiteGraph.from_edges([0, 1, 1], [0, 0, 1]), backend="sim").size
    2
    """
    return _augmenting_paths(graph, True, backend, bfs, layout, initial, device, check_invariants, progress)


def gpr(graph: BipartiteGraph, *, backend: str = "auto", variant: str = "active", shrink: bool = True,
        relabel: tuple[str, float] = ("adaptive", 0.7), initial=None, device: Device | None = None,
        check_invariants: bool = False, progress: bool = False) -> BipartiteMatching:
    """G-PR (seed 001, Alg. 7; Alg. 3 with ``variant="first"``): push-relabel matching on the GPU.

    Parameters
    ----------
    variant:
        ``"active"``: the active-column lists of Alg. 7–9 (INITKRNL, PUSHKRNL with the ``iA``
        guard); ``"first"``: G-PR-KRNL over every column (Alg. 6).
    shrink:
        Compact the active lists by prefix sum after each global relabel when at least 512
        columns are listed (SHRKRNL, §III-C2).
    relabel:
        ``("adaptive", k)``: the next global relabel after ``k × maxLevel`` loops (k = 0.7 was
        the paper's best with shrinking; 0.3 the other good value); ``("fixed", k)``: every
        ``k`` loops.
    backend, initial, device, progress:
        As :func:`apfb`.
    check_invariants:
        After every INITKRNL (and compaction), copy the active list back and check no column is
        listed twice — the duplicate the ``iA`` guard exists to prevent; raise
        :class:`~gpusim.errors.InvariantViolation` if one is.

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
    _check_choice("variant", variant, ("active", "first"))
    if not isinstance(shrink, bool):
        raise InvalidArgumentType(f"shrink must be True or False, got {shrink!r}")
    if (not isinstance(relabel, tuple) or len(relabel) != 2 or relabel[0] not in ("adaptive", "fixed")
            or isinstance(relabel[1], bool) or not isinstance(relabel[1], (int, float)) or not relabel[1] > 0):
        raise InvalidArgument(f"relabel must be ('adaptive', k) or ('fixed', k) with k > 0, got {relabel!r}")
    dev, launch, row_match, col_match = _prepare(graph, backend, device, initial, progress, "gpr")
    nr, nc = graph.n_rows, graph.n_cols
    infinity = nr + nc
    block = MT_BLOCK[dev.backend]
    row_grid, col_grid = Device.grid_for(nr, block), Device.grid_for(nc, block)
    # rmatch[u], cmatch[v]: the paper's μ on rows and columns; cmatch[v] = -2 marks a column
    # that cannot reach a free row.  psi_r, psi_c: the labels ψ.
    row_ptr, row_adj = dev.array(graph.row_ptr), dev.array(_nonempty(graph.row_adj))
    col_ptr, col_adj = dev.array(graph.col_ptr), dev.array(_nonempty(graph.col_adj))
    rmatch, cmatch = dev.array(_nonempty(row_match)), dev.array(_nonempty(col_match))
    psi_r, psi_c = dev.zeros(max(nr, 1), np.int32), dev.zeros(max(nc, 1), np.int32)
    flag = dev.zeros(1, np.int32)

    def global_relabel() -> int:
        launch(init_relabel, max(row_grid, col_grid), block, rmatch, psi_r, psi_c, nr, nc, infinity)
        level = 0
        while True:
            launch(fill, 1, 32, flag, 0, 1)
            launch(global_relabel_level, row_grid, block, row_ptr, row_adj, psi_r, psi_c, rmatch, cmatch, nr,
                   level, infinity, flag)
            level += 2
            if not launch.flag(flag):
                return level

    def next_relabel(max_level: int, loop: int) -> int:
        kind, k = relabel
        return loop + max(1, int(k * max_level if kind == "adaptive" else k))

    loop, relabels, next_gr = 0, 0, 0
    free_columns = np.flatnonzero(col_match == -1).astype(np.int32)
    n_active = int(free_columns.size)
    if variant == "active" and n_active:
        # a_c, a_p: the current and previous active-column lists (Alg. 7); i_a[v] = loop when v is active.
        a_c, a_p = dev.array(free_columns), dev.array(free_columns)
        i_a = dev.full(nc, -1, np.int32)
        new_length = dev.zeros(1, np.int32)
    shrink_now = False
    while nr > 0 and nc > 0 and (variant == "first" or n_active > 0):
        if loop == next_gr:
            with launch.phase("global_relabel"):
                next_gr = next_relabel(global_relabel(), loop)
            relabels += 1
            shrink_now = True
        with launch.phase("push_relabel"):
            launch(fill, 1, 32, flag, 0, 1)
            if variant == "first":
                launch(push_relabel_all, col_grid, block, col_ptr, col_adj, rmatch, cmatch, psi_r, psi_c, nc,
                       infinity, flag)
                active = launch.flag(flag)
            else:
                grid = Device.grid_for(n_active, block)
                launch(init_active, grid, block, cmatch, rmatch, loop, a_c, a_p, i_a, n_active, flag)
                active = launch.flag(flag)
                if active and shrink and shrink_now and n_active >= SHRINK_THRESHOLD:
                    with launch.phase("shrink"):
                        launch(compact_active, 1, COMPACT_BLOCK[dev.backend], a_c, a_p, n_active, new_length)
                        a_c, a_p = a_p, a_c
                        n_active = launch.flag(new_length)
                        grid = Device.grid_for(n_active, block)
                    shrink_now = False
                if active and check_invariants:
                    _check_distinct(dev, a_c, n_active, loop)
                if active:
                    launch(push_active, grid, block, col_ptr, col_adj, rmatch, cmatch, psi_r, psi_c, loop, a_c, a_p,
                           i_a, n_active, infinity)
                a_c, a_p = a_p, a_c
        loop += 1
        launch.tick(active=n_active if variant == "active" else "?", relabels=relabels)
        if not active:
            break
    launch.close()
    launch(fix_columns, col_grid, block, cmatch, rmatch, nc)
    stats = {"loops": loop, "global_relabels": relabels, "launches": dict(launch.launches),
             "seconds": dict(launch.seconds), "variant": variant, "shrink": shrink, "relabel": relabel}
    return BipartiteMatching(graph, dev.to_host(rmatch)[:nr], dev.to_host(cmatch)[:nc], "gpr",
                                     dev.backend, stats)


#: Every maximum-matching algorithm by its CLI name: the GPU ones (seeds 000, 001) and the sequential references.
ALGORITHMS = ("gpr", "apfb", "apsb", "hk", "pfp", "pr")
_CPU_ANALOGUE = {"gpr": "pr", "apfb": "hk", "apsb": "hk"}


def maximum_bipartite_matching(graph: BipartiteGraph, algorithm: str = "gpr", backend: str = "auto",
                               **options) -> BipartiteMatching:
    """A maximum-cardinality matching of ``graph`` by ``algorithm`` on ``backend``, certified.

    Parameters
    ----------
    algorithm:
        ``"gpr"``, ``"apfb"``, ``"apsb"`` (GPU algorithms, on ``sim``, ``numba`` or ``cupy``) or
        ``"hk"``, ``"pfp"``, ``"pr"`` (sequential references, on ``cpu``).
    backend:
        ``"auto"`` takes a GPU when one works, else the simulator for small inputs and, for large
        ones, the sequential analogue on ``cpu`` (``gpr`` → ``pr``, ``apfb``/``apsb`` → ``hk``);
        ``stats["chosen"]`` says what ran and why.
    **options:
        Passed on to the algorithm (e.g. ``layout="mt"``, ``variant="first"``, ``k=0.5``).

    Examples
    --------
    >>> from gpusim.types.graphs import BipartiteGraph
    >>> g = BipartiteGraph.from_edges([0, 1, 1], [0, 0, 1])
    >>> m = maximum_bipartite_matching(g, "hk", backend="cpu")
    >>> m.size, m.certified, m.backend
    (2, True, 'cpu')
    """
    if not isinstance(graph, BipartiteGraph):
        raise InvalidArgumentType(f"graph must be a BipartiteGraph, got {type(graph).__name__}")
    if algorithm not in ALGORITHMS:
        raise InvalidArgument(f"algorithm={algorithm!r} is not one of {ALGORITHMS}")
    if algorithm not in _CPU_ANALOGUE and backend == "auto":
        chosen, reason = "cpu", "auto: a sequential reference runs on cpu"
    else:
        chosen, reason = choose_backend(backend, graph.n_edges)
    if algorithm in _CPU_ANALOGUE and chosen == "cpu":
        if backend == "cpu":
            raise InvalidArgument(f"{algorithm!r} is a GPU algorithm: run it on sim, numba or cupy (the cpu "
                                  f"backend runs hk, pfp and pr)")
        algorithm = _CPU_ANALOGUE[algorithm]
        reason = f"{reason}: ran its sequential analogue {algorithm}"
    if algorithm in _CPU_ANALOGUE:
        result = {"gpr": gpr, "apfb": apfb, "apsb": apsb}[algorithm](graph, backend=chosen, **options)
    else:
        if chosen != "cpu":
            raise InvalidArgument(
                f"{algorithm!r} is a sequential reference: it runs on the cpu backend, not {chosen!r}")
        from . import bipartite_cpu

        function = {"hk": bipartite_cpu.hopcroft_karp, "pfp": bipartite_cpu.pothen_fan,
                    "pr": bipartite_cpu.push_relabel}[algorithm]
        row_match, col_match, stats = function(graph, **options)
        result = BipartiteMatching(graph, row_match, col_match, algorithm, "cpu", stats)
    result.stats["chosen"] = reason
    return result


def _check_consistent(dev: Device, graph: BipartiteGraph, rmatch, cmatch, when: str) -> None:
    from gpusim.types.check import check_bipartite_matching

    try:
        check_bipartite_matching(graph, dev.to_host(rmatch)[:graph.n_rows], dev.to_host(cmatch)[:graph.n_cols])
    except InvalidArgument as problem:
        raise _violation(dev, f"InvariantViolation: the matching is inconsistent {when}: {problem}") from None


def _check_distinct(dev: Device, a_c, n_active: int, loop: int) -> None:
    listed = dev.to_host(a_c)[:n_active]
    listed = listed[listed != -1]
    values, counts = np.unique(listed, return_counts=True)
    if (counts > 1).any():
        twice = values[counts > 1][:5].tolist()
        raise _violation(dev, f"InvariantViolation: in loop {loop} the active list holds column(s) {twice} twice: "
                              f"two threads would push for one column (seed 001, Alg. 9 line 13)")


def _violation(dev: Device, message: str) -> InvariantViolation:
    return InvariantViolation(message, token=dev.token if dev.backend == "sim" else None)


def _nonempty(array: np.ndarray) -> np.ndarray:
    """Device arrays of length 0 are awkward on some backends: give empty arrays one unused element."""
    array = np.asarray(array, np.int32)
    return array if array.size else np.full(1, -1, np.int32)
