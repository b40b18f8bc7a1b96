"""Exercise 6, a maximum with atomic_cas: fill in the kernel's body, then run ``gpusim exercise 6 FILE.py``."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:]")
def max_by_cas(values, best):
    """best[0] = max(best[0], values[i]) by a compare-and-swap loop (no atomic_max)."""
    mine = values[T.gtid()]
    # your code here: read best[0] atomically, then loop while mine is larger
