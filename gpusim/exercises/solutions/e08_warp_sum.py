"""Exercise 8, a warp reduction with shfl_down: a solution (CUDA C Programming Guide, §7.22)."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:]")
def warp_sum(values, total):
    """total[0] = sum of the warp's values, by shuffles down 16, 8, 4, 2, 1."""
    lane = T.lane_id()
    v = values[lane]
    offset = 16
    while offset > 0:
        v = v + T.shfl_down(v, offset)
        offset = offset // 2
    if lane == 0:
        total[0] = v
