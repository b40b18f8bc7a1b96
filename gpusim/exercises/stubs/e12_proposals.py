"""Exercise 12, a Suitor-style proposal step: fill in the kernel's body, then run ``gpusim exercise 12 FILE.py``."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:], int32[:]")
def propose(target, weight, offer):
    """offer[v] = the best (weight, proposer) v received, packed as weight * 8 + proposer."""
    u = T.gtid()
    v = target[u]
    # your code here: if u proposes, keep the best offer at v
