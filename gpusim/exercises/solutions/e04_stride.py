"""Exercise 4, a loop over a grid stride: a solution."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:], int32")
def double_all(a, out, n):
    """out[j] = 2 * a[j]; thread i takes j = i, i + T.num_threads(), ..."""
    j = T.gtid()
    while j < n:
        out[j] = 2 * a[j]
        j += T.num_threads()
