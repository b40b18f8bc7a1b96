"""Exercise 3, guard: fill in the kernel's body, then run ``gpusim exercise 3 FILE.py``."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:], int32")
def square_first_n(a, out, n):
    """out[i] = a[i] * a[i] for the first n threads; the others touch nothing."""
    i = T.gtid()
    # your code here: a guard, then one line
