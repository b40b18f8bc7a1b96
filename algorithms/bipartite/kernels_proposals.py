"""A better start than the cheap matching: rounds of proposals to the lightest free row, then the cheap pass.

The cheap matching (:mod:`~gpusim.algorithms.bipartite.kernels_cheap`; Deveci et al., Euro-Par 2013 §4) gives each
column its first free row.  On graphs with skewed degrees that start leaves many columns for the BFS phases: 86 % of
the maximum on a Graph500 Kronecker graph, 90 % on a power-law bipartite graph.  Choosing, for each column, the free
row of least degree is the min-degree rule of the greedy matching heuristics (Langguth, Manne and Sanders,
"Heuristic initialization for bipartite matching problems", ACM JEA 15, 2010; the one-sided rule of Karp and
Sipser's degree-1 reductions): a row of low degree has few other chances.  Run in parallel as rounds
(``initial="proposals"``):

1. every free column proposes to its free row of least degree (:func:`propose_to_lightest_row`; among its first
   :data:`LOOK_AHEAD` rows), an atomic minimum of the column ids on ``offer[row]``;
2. every row with an offer takes the lowest proposer (:func:`accept_lowest_offer`): a column proposes to one row,
   so no column is taken twice;

:data:`PROPOSAL_ROUNDS` times, then one cheap pass (:func:`~gpusim.algorithms.bipartite.kernels_cheap.cheap_claim`)
makes the matching maximal.  In a sequential emulation of one round (a look-ahead of 32) and the cheap pass, the start
holds 95.4 % of the maximum on a scale-20 Kronecker graph (86.5 % from the cheap pass alone), 96.6 % on an R-MAT graph
of scale 19 (87.6 %), 97.1 % on a power-law bipartite graph (90.3 %), 93.2 % on a uniform random one (91.0 %), and a
little less on the permuted grid (91.3 %, 91.7 %) and random geometric graph (94.8 %, 95.4 %), whose lists hold rows
of equal degree; more rounds lose more there.  No race: a round's reads of ``row_match`` and its writes are in
different launches, and ``offer`` is written by atomics only in the first.

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> from gpusim.types.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0])  # row 0 has degree 2, row 1 degree 1
>>> dev = Device("sim", seed=0)
>>> col_ptr, col_adj = dev.array(g.col_ptr), dev.array(g.col_adj)
>>> degree, offer = dev.zeros(2, np.int32), dev.full(2, NO_OFFER, np.int32)
>>> rm, cm = dev.full(2, -1, np.int32), dev.full(2, -1, np.int32)
>>> _ = dev.launch(count_row_degrees, 1, 32, (col_adj, degree, 3))
>>> _ = dev.launch(propose_to_lightest_row, 1, 32, (col_ptr, col_adj, degree, rm, cm, offer, 2))
>>> _ = dev.launch(accept_lowest_offer, 1, 32, (offer, rm, cm, 2))
>>> dev.to_host(rm).tolist(), dev.to_host(cm).tolist()  # column 0 takes row 1, its lighter row
([1, 0], [1, 0])
"""

from __future__ import annotations

from gpusim import T, kernel

__all__ = ["LOOK_AHEAD", "NO_OFFER", "PROPOSAL_ROUNDS", "accept_lowest_offer", "count_row_degrees",
           "propose_to_lightest_row", "row_degrees"]

#: ``offer[row]`` when no column proposed to the row (above every column id).
NO_OFFER = 2**31 - 1
#: Rounds of proposals before the cheap pass.
PROPOSAL_ROUNDS = 1
#: A column looks for its lightest row among its first this many rows: a hub column's thread would otherwise scan its
#: whole list alone (measured on an H200: 39 ms for the start of a power-law graph whose cheap pass takes 0.2 ms).
LOOK_AHEAD = 32


@kernel(signature="int32[:], int32[:], int32")
def count_row_degrees(col_adj, row_degree, n_edges):
    """Each row's degree, from the column side's lists (``row_degree`` zeroed before): one atomic add per edge."""
    j = T.gtid()
    while j < n_edges:
        T.atomic_add(row_degree, col_adj[j], 1)
        j += T.num_threads()


@kernel(signature="int32[:], int32[:], int32")
def row_degrees(row_ptr, row_degree, nr):
    """Each row's degree, from the row side's pointers where the device has them: no atomic (on a Graph500 graph the
    atomic count of :func:`count_row_degrees` queues on its hub rows for most of the start's time)."""
    r = T.gtid()
    while r < nr:
        row_degree[r] = row_ptr[r + 1] - row_ptr[r]
        r += T.num_threads()


@kernel(signature="int32[:], int32[:], int32[:], int32[:], int32[:], int32[:], int32")
def propose_to_lightest_row(col_ptr, col_adj, row_degree, row_match, col_match, offer, nc):
    """Every free column proposes to the free row of least degree among its first :data:`LOOK_AHEAD` rows (the
    first such), keeping on ``offer[row]`` the lowest column id that proposed."""
    c = T.gtid()
    while c < nc:
        if col_match[c] == -1:
            best = -1
            best_degree = NO_OFFER
            end = col_ptr[c + 1]
            if end - col_ptr[c] > LOOK_AHEAD:
                end = col_ptr[c] + LOOK_AHEAD
            for j in range(col_ptr[c], end):
                row = col_adj[j]
                if row_match[row] == -1:
                    if row_degree[row] < best_degree:
                        best = row
                        best_degree = row_degree[row]
            if best > -1:
                T.atomic_min(offer, best, c)
        c += T.num_threads()


@kernel(signature="int32[:], int32[:], int32[:], int32")
def accept_lowest_offer(offer, row_match, col_match, nr):
    """Every row with an offer is matched to its lowest proposer, and its offer cleared for the next round."""
    r = T.gtid()
    while r < nr:
        c = offer[r]
        if c != NO_OFFER:
            row_match[r] = c
            col_match[c] = r
            offer[r] = NO_OFFER
        r += T.num_threads()
