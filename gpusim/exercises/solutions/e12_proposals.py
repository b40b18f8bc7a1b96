"""Exercise 12, a Suitor-style proposal step: a solution (Manne and Halappanavar, IPDPS 2014, Algorithm 1)."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:], int32[:]")
def propose(target, weight, offer):
    """offer[v] = the best (weight, proposer) v received, packed as weight * 8 + proposer."""
    u = T.gtid()
    v = target[u]
    if v >= 0:
        T.atomic_max(offer, v, weight[u] * 8 + u)
