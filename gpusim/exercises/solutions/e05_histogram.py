"""Exercise 5, a histogram with atomics: a solution."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:]")
def histogram(values, bins):
    """bins[values[i]] += 1, as one indivisible atomic_add."""
    i = T.gtid()
    T.atomic_add(bins, values[i], 1)
