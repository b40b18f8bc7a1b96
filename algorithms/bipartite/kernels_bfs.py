"""The kernels of APFB and APsB (Deveci et al., Euro-Par 2013 [000]_, Alg. 1–4): BFS levels from the free columns,
then ALTERNATE.

Written once in ``T``; the host loop is :mod:`gpusim.algorithms.bipartite.augmenting`.  Rows are one
side and columns the other; ``rmatch[r]`` is the column matched to row ``r`` and ``cmatch[c]`` the row
matched to column ``c``, -1 when free.  Each thread strides over the vertices
(``getProcessCount`` of the paper: vertex ``i * tot_thread_num + tid``).

References
----------
.. [000] M. Deveci, K. Kaya, B. Uçar, Ü. V. Çatalyürek, "GPU accelerated maximum cardinality
   matching algorithms for bipartite graphs", Euro-Par 2013.

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> dev = Device("sim", seed=0)
>>> bfs_array, root = dev.zeros(3, np.int32), dev.zeros(3, np.int32)
>>> cmatch = dev.array(np.array([-1, 0, -1], np.int32))
>>> _ = dev.launch(init_bfs_array, 1, 32, (bfs_array, cmatch, root, 3, 2))
>>> dev.to_host(bfs_array).tolist(), dev.to_host(root).tolist()
([2, 1, 2], [0, -1, 2])
"""

from __future__ import annotations

from gpusim import T, device, kernel

__all__ = ["alternate", "alternate_paths", "end_path", "expand_level", "fix_column_side", "fix_columns",
           "fix_row_side", "fix_rows", "gpubfs", "gpubfs_wr", "init_bfs_array", "search_over", "start_columns",
           "taken_by_another_path", "visit_row"]

_I = "int32"
_A = "int32[:]"


def _sig(*types: str) -> str:
    return ", ".join(types)


#: The races the BFS kernels intend (Deveci et al., Euro-Par 2013, §3: "the race conditions are benign").
_BFS_RACES = {
    "bfs_array": "several columns may visit one column in a level, all writing the same level",
    "predecessor": "several columns may reach one row; any of them is a valid predecessor",
    "rmatch": "a free row may be marked -2 by several columns (the same value) while others read it",
    "flags": "flags: every writer writes 1",
}
@kernel(signature=_sig(_A, _A, _A, _I, _I))
def init_bfs_array(bfs_array, cmatch, root, nc, start_level):
    """INITBFSARRAY (Deveci et al., Euro-Par 2013, Alg. 1 line 4 and §3): free columns start the BFS at level L0,
    matched
    ones wait at L0 - 1 (:func:`start_columns`)."""
    start_columns(bfs_array, cmatch, root, nc, start_level)


@device
def start_columns(bfs_array, cmatch, root, nc, start_level):
    """INITBFSARRAY's body, each thread striding over the columns: ``bfs_array[c]`` is L0 for a free column and
    L0 - 1 for a matched one; ``root[c]`` (for GPUBFS-WR, Alg. 4) is ``c`` for a free column and -1 (no root
    yet) otherwise."""
    c = T.gtid()
    while c < nc:
        if cmatch[c] > -1:
            bfs_array[c] = start_level - 1
            root[c] = -1
        else:
            bfs_array[c] = start_level
            root[c] = c
        c += T.num_threads()


@device
def search_over(flags, slot, stop_on_found):
    """The host loop's test (Deveci et al., Euro-Par 2013, Alg. 1 lines 6 and 9–10), read on the device: 1 when the
    level of
    the slot before ``slot`` inserted no column (line 6: the BFS is complete) or, with ``stop_on_found``
    (APsB), found an augmenting path (lines 9–10); 0 to go on, and always 0 for the first slot of a batch.

    ``flags[2 s]`` is *vertex_inserted* and ``flags[2 s + 1]`` *augmenting_path_found* of the batch's level
    ``s``: the host launches several levels and reads their flags back once, and a level after the end
    returns at once, so the batch does what the one-level-at-a-time loop does.
    """
    over = 0
    if slot > 0:
        if flags[2 * slot - 2] == 0:
            over = 1
        elif stop_on_found == 1 and flags[2 * slot - 1] == 1:
            over = 1
    return over


@kernel(signature=_sig(_I, _A, _A, _A, _I, _A, _A, _A, _I, _I, _I), intended_races=_BFS_RACES)
def gpubfs(bfs_level, bfs_array, col_ptr, col_adj, nc, rmatch, predecessor, flags, start_level, slot,
           stop_on_found):
    """GPUBFS (Deveci et al., Euro-Par 2013, Alg. 2 lines 1–17): expand one BFS level from every column at
    ``bfs_level``.

    ``flags[2 slot]`` is *vertex_inserted* (line 10), ``flags[2 slot + 1]`` *augmenting_path_found* (line 17)
    of this level; it returns at once when the previous level ended the search (:func:`search_over`).
    A free row ends an augmenting path: it is marked ``rmatch = -2`` for ALTERNATE (line 15).
    Intended races: many threads may write the same ``bfs_array`` entry (same value) or
    ``predecessor`` entry (any writer's column is a valid predecessor).
    """
    if search_over(flags, slot, stop_on_found) == 1:
        return
    c = T.gtid()
    while c < nc:
        if bfs_array[c] == bfs_level:
            for j in range(col_ptr[c], col_ptr[c + 1]):
                row = col_adj[j]
                col_match = rmatch[row]
                if col_match > -1:
                    if bfs_array[col_match] == start_level - 1:
                        flags[2 * slot] = 1
                        bfs_array[col_match] = bfs_level + 1
                        predecessor[row] = c
                elif col_match == -1:
                    rmatch[row] = -2
                    predecessor[row] = c
                    flags[2 * slot + 1] = 1
        c += T.num_threads()


@device
def visit_row(row, c, my_root, bfs_level, bfs_array, rmatch, predecessor, root, flags, start_level, mark_end,
              slot):
    """GPUBFS-WR's step for one row ``row`` of column ``c`` (Deveci et al., Euro-Par 2013, Alg. 4 lines 9–21): a
    matched row's
    unvisited column joins the next level in ``my_root``'s tree; a free row ends ``my_root``'s path."""
    col_match = rmatch[row]
    if col_match > -1:
        if bfs_array[col_match] == start_level - 1:
            flags[2 * slot] = 1
            bfs_array[col_match] = bfs_level + 1
            root[col_match] = my_root
            predecessor[row] = c
    elif col_match == -1:
        end_path(row, c, my_root, bfs_array, rmatch, predecessor, flags, start_level, mark_end, slot)
    return 0


@device
def end_path(row, c, my_root, bfs_array, rmatch, predecessor, flags, start_level, mark_end, slot):
    """GPUBFS-WR's free row (Deveci et al., Euro-Par 2013, Alg. 4 lines 14–21): ``row``, reached from column ``c``,
    ends an augmenting path of ``my_root``'s tree.  The root stops expanding (L0 - 2, or with ``mark_end`` the row
    as ``-(row + 1)``), the row is marked -2 for ALTERNATE and ``flags[2 slot + 1]`` says a path was found."""
    if mark_end == 1:
        bfs_array[my_root] = -row - 1
    else:
        bfs_array[my_root] = start_level - 2
    rmatch[row] = -2
    predecessor[row] = c
    flags[2 * slot + 1] = 1


@kernel(signature=_sig(_I, _A, _A, _A, _I, _A, _A, _A, _A, _I, _I, _I, _I), intended_races={
    **_BFS_RACES, "root": "several columns may claim one column for their roots; any one is a valid root"})
def gpubfs_wr(bfs_level, bfs_array, col_ptr, col_adj, nc, rmatch, predecessor, root, flags, start_level,
              mark_end, slot, stop_on_found):
    """GPUBFS-WR (Deveci et al., Euro-Par 2013, Alg. 4 lines 1–22): GPUBFS with the root array and early exit.

    A column stops expanding once its root has an augmenting path (lines 6–7: ``bfs_array[root] <
    L0 - 1``).  With ``mark_end`` (the APsB improvement after Alg. 4, L0 = 2) line 19 records
    *which* row ends the root's path, as ``-(row + 1)``, so ALTERNATE alternates one path per root.
    Flags and the early return as :func:`gpubfs`.
    """
    if search_over(flags, slot, stop_on_found) == 1:
        return
    expand_level(bfs_level, bfs_array, col_ptr, col_adj, nc, rmatch, predecessor, root, flags, start_level, mark_end,
                 slot)


@device
def expand_level(bfs_level, bfs_array, col_ptr, col_adj, nc, rmatch, predecessor, root, flags, start_level, mark_end,
                 slot):
    """GPUBFS-WR's body (Deveci et al., Euro-Par 2013, Alg. 4 lines 3–21), each thread striding over the columns:
    every column at
    ``bfs_level`` whose root has no path yet visits its rows (:func:`visit_row`), setting ``flags[2 slot]`` and
    ``flags[2 slot + 1]``."""
    c = T.gtid()
    while c < nc:
        if bfs_array[c] == bfs_level:
            my_root = root[c]
            if bfs_array[my_root] >= start_level - 1:
                for j in range(col_ptr[c], col_ptr[c + 1]):
                    visit_row(col_adj[j], c, my_root, bfs_level, bfs_array, rmatch, predecessor, root, flags,
                              start_level, mark_end, slot)
        c += T.num_threads()


@device
def taken_by_another_path(predecessor, matched_row, matched_col):
    """The predecessor check (Deveci et al., Euro-Par 2013, Alg. 3 line 8): 1 when the row now matched to
    ``matched_col`` has
    ``matched_col`` as its predecessor — another thread's path was alternated through this column — else 0.

    ``matched_row == -1`` is the path's root column, free before this phase: nothing to check there,
    where the paper's line 8 would read ``predecessor[-1]``.
    """
    taken = 0
    if matched_row != -1:
        if predecessor[matched_row] == matched_col:
            taken = 1
    return taken


@kernel(signature=_sig(_A, _A, _I, _A, _A, _A, _I), intended_races={
    "cmatch": "two paths may re-match one column; the predecessor check stops most, FIXMATCHING repairs the rest "
              "(Deveci et al., Euro-Par 2013, Alg. 3 and §3)",
    "rmatch": "a row read as -2 (path end) while another path re-matches it; FIXMATCHING repairs it"})
def alternate(cmatch, rmatch, nr, predecessor, bfs_array, root, use_marks):
    """ALTERNATE (Deveci et al., Euro-Par 2013, Alg. 3 lines 1–12): flip the edges of the augmenting paths found,
    from their
    free rows.

    The predecessor check (lines 8–9, :func:`taken_by_another_path`) stops a thread at a column
    another thread has already re-matched along a different path; without it two paths through one
    column can chase each other forever (Fig. 1).  Threads in one warp may still both write
    ``cmatch`` of a column; FIXMATCHING repairs that.  The body is :func:`alternate_paths`.
    """
    alternate_paths(cmatch, rmatch, nr, predecessor, bfs_array, root, use_marks)


@device
def alternate_paths(cmatch, rmatch, nr, predecessor, bfs_array, root, use_marks):
    """ALTERNATE's body (Deveci et al., Euro-Par 2013, Alg. 3 lines 2–12), each thread striding over the rows: from
    every row marked
    -2 (a path's free end; with ``use_marks``, only the row its root recorded), flip the path's edges back to
    its root column, stopping at a column another path has taken (:func:`taken_by_another_path`)."""
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
                if taken_by_another_path(predecessor, matched_row, matched_col) == 1:
                    break
                cmatch[matched_col] = row
                rmatch[row] = matched_col
                row = matched_row
        r += T.num_threads()


@kernel(signature=_sig(_A, _A, _I))
def fix_rows(cmatch, rmatch, nr):
    """FIXMATCHING, row side (Deveci et al., Euro-Par 2013, Alg. 1 line 13 and §3): ``rmatch[r] = -1`` unless
    ``cmatch[rmatch[r]] == r``; -2 becomes -1 (:func:`fix_row_side`)."""
    fix_row_side(cmatch, rmatch, nr)


@device
def fix_row_side(cmatch, rmatch, nr):
    """FIXMATCHING's row side, each thread striding over the rows (:func:`fix_rows`)."""
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
    """FIXMATCHING, column side (Deveci et al., Euro-Par 2013, Alg. 1 line 13): ``cmatch[c] = -1`` unless
    ``rmatch[cmatch[c]] == c``.

    The papers state the row side only; after racing alternations a column can also keep a row
    that moved on, and a column that believes itself matched would never start a BFS again.
    For G-PR (Deveci et al., ICPP 2013, Alg. 3 line 11) this is the whole fix, -2 (unreachable) included.  The body is
    :func:`fix_column_side`.
    """
    fix_column_side(cmatch, rmatch, nc)


@device
def fix_column_side(cmatch, rmatch, nc):
    """FIXMATCHING's column side, each thread striding over the columns (:func:`fix_columns`)."""
    c = T.gtid()
    while c < nc:
        r = cmatch[c]
        if r < 0:
            cmatch[c] = -1
        elif rmatch[r] != c:
            cmatch[c] = -1
        c += T.num_threads()
