"""Exercise 6, a maximum with atomic_cas: a solution (the CAS loop of the CUDA C Programming Guide, §7.14)."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:]")
def max_by_cas(values, best):
    """best[0] = max(best[0], values[i]) by a compare-and-swap loop."""
    mine = values[T.gtid()]
    seen = T.atomic_load(best, 0)
    while seen < mine:
        seen = T.atomic_cas(best, 0, seen, mine)
