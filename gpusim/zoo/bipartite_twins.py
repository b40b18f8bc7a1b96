"""Broken twins of the seed kernels: the races their papers describe, with the repair removed."""

from __future__ import annotations

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:], int32, int32[:], int32[:], int32[:], int32")
def alternate_without_predecessor_check(cmatch, rmatch, nr, predecessor, bfs_array, root, use_marks):
    """ALTERNATE (seed 000, Alg. 3) with line 8 removed: two paths through one column chase each other."""
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
                cmatch[matched_col] = row
                rmatch[row] = matched_col
                row = matched_row
        r += T.num_threads()


@kernel(signature="int32[:], int32[:], int32[:], int32[:], int32[:], int32[:], int32, int32[:], int32[:], "
                  "int32[:], int32, int32")
def push_active_without_ia_guard(col_ptr, col_adj, rmatch, cmatch, psi_r, psi_c, loop, a_c, a_p, i_a, n_active,
                                 infinity):
    """G-PR-PUSHKRNL (seed 001, Alg. 9) with line 13's ``iA(μ(u)) ≠ loop`` check removed."""
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
