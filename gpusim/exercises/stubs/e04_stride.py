"""Exercise 4, a loop over a grid stride: fill in the kernel's body, then run ``gpusim exercise 4 FILE.py``."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:], int32")
def double_all(a, out, n):
    """out[j] = 2 * a[j]; thread i takes j = i, i + T.num_threads(), ..."""
    j = T.gtid()
    # your code here: a while loop
