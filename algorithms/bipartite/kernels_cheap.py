"""The cheap matching as a kernel (Deveci et al., Euro-Par 2013 §4 and ICPP 2013 §IV): every free column claims its
first free row.

The papers start every algorithm from the *cheap matching*, a sequential greedy pass (columns in id
order, each takes its first unmatched row; :func:`~gpusim.algorithms.bipartite.cheap.cheap_matching`).
Here each column is a thread and claims a row with a compare-and-swap on ``row_match`` (:func:`claim_row`):
when two columns want one row, one CAS wins and the other column goes on to its next row.

What holds after the one launch, on an empty start (every row and column free), under any schedule:

* it is a matching: a row is claimed once (its CAS from -1 succeeds once and nothing resets it), a
  column claims at most one row (it stops at its first win), and ``row_match[r] = c`` exactly when
  ``col_match[c] = r``;
* it is **maximal**: rows only go from free to matched, and a column that ends free saw each of its
  rows matched (a plain read of a matched row, or a lost CAS), so no edge joins two free vertices.
  One round suffices; no second round is needed.

It may differ from the sequential greedy: a column can lose its first free row to a higher column
that got there first, and take a later one.  Under the simulator's ``sequential`` policy (one thread
after another, in id order) it is the sequential greedy exactly.

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> from gpusim.types.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0])
>>> dev = Device("sim", policy="sequential")
>>> rm, cm = dev.full(2, -1, np.int32), dev.full(2, -1, np.int32)
>>> _ = dev.launch(cheap_claim, 1, 32, (dev.array(g.col_ptr), dev.array(g.col_adj), rm, cm, 2))
>>> dev.to_host(rm).tolist(), dev.to_host(cm).tolist()
([0, -1], [0, -1])
"""

from __future__ import annotations

from gpusim import T, device, kernel

__all__ = ["cheap_claim", "claim_row"]


@device
def claim_row(row_match, row, col):
    """Claim ``row`` for ``col``: ``row_match[row]`` from -1 to ``col`` by compare-and-swap; 1 when this
    column won the row, 0 when another column had it first (the race of two columns on one row)."""
    won = 0
    if T.atomic_cas(row_match, row, -1, col) == -1:
        won = 1
    return won


@kernel(signature="int32[:], int32[:], int32[:], int32[:], int32", intended_races={
    "row_match": "a column reads a row's mate plainly before its CAS: a stale -1 costs only a failed CAS, "
                 "and a row once claimed stays claimed"})
def cheap_claim(col_ptr, col_adj, row_match, col_match, nc):
    """The cheap matching (Deveci et al., Euro-Par 2013 §4, Deveci et al. (ICPP 2013) §IV), one thread per column:
    each free column scans its
    rows in order and claims the first free one (:func:`claim_row`), then stops.

    The sequential pass's "take the first unmatched row" becomes a read and a CAS; the loser of a race
    reads on.  The result is a maximal matching (module docstring), not always the sequential one.
    """
    c = T.gtid()
    while c < nc:
        if col_match[c] == -1:
            for j in range(col_ptr[c], col_ptr[c + 1]):
                row = col_adj[j]
                if row_match[row] == -1:
                    if claim_row(row_match, row, c) == 1:
                        col_match[c] = row
                        break
        c += T.num_threads()
