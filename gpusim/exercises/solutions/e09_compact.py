"""Exercise 9, compaction with ballot: a solution (warp-aggregated stream compaction)."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:], int32[:]")
def compact_positive(values, out, count):
    """The positive values, in lane order, to the front of out; how many to count[0]."""
    lane = T.lane_id()
    v = values[lane]
    mask = T.i64(T.ballot(v > 0))
    below = mask & ((1 << lane) - 1)
    place = 0
    while below != 0:
        place += below & 1
        below = below >> 1
    if v > 0:
        out[place] = v
    if lane == 0:
        kept = 0
        while mask != 0:
            kept += mask & 1
            mask = mask >> 1
        count[0] = kept
