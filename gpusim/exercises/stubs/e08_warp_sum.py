"""Exercise 8, a warp reduction with shfl_down: fill in the kernel's body, then run ``gpusim exercise 8 FILE.py``."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:]")
def warp_sum(values, total):
    """total[0] = sum of the warp's 32 values, with shuffles only."""
    lane = T.lane_id()
    v = values[lane]
    # your code here: shuffle down 16, 8, 4, 2, 1; lane 0 writes total[0]
