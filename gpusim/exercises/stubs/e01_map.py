"""Exercise 1, map: fill in the kernel's body, then run ``gpusim exercise 1 FILE.py``."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:]")
def add_ten(a, out):
    """out[i] = a[i] + 10."""
    i = T.gtid()
    # your code here: one line
