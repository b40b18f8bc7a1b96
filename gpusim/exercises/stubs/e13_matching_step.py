"""Exercise 13, a lock-free matching step: fill in the kernel's body, then run ``gpusim exercise 13 FILE.py``."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:], int32[:]")
def match_edges(eu, ev, mate):
    """Match the endpoints of edge e to each other if both are free, with compare-and-swap only."""
    e = T.gtid()
    u = eu[e]
    v = ev[e]
    # your code here: claim u, then v; give u back if v was taken
