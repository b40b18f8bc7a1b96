"""Exercise 2, zip: fill in the kernel's body, then run ``gpusim exercise 2 FILE.py``."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:], int32[:]")
def add_pairs(a, b, out):
    """out[i] = a[i] + b[i]."""
    i = T.gtid()
    # your code here: one line
