"""Exercise 13, a lock-free matching step: a solution (claim one endpoint, then the other, undo on failure)."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:], int32[:]")
def match_edges(eu, ev, mate):
    """Match the endpoints of edge e to each other if both are free, with compare-and-swap only."""
    e = T.gtid()
    u = eu[e]
    v = ev[e]
    if T.atomic_cas(mate, u, -1, v) == -1:
        if T.atomic_cas(mate, v, -1, u) != -1:
            T.atomic_exch(mate, u, -1)
