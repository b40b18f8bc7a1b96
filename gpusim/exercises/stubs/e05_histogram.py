"""Exercise 5, a histogram with atomics: fill in the kernel's body, then run ``gpusim exercise 5 FILE.py``."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:]")
def histogram(values, bins):
    """bins[values[i]] += 1, safely when threads share a bin."""
    i = T.gtid()
    # your code here: one line
