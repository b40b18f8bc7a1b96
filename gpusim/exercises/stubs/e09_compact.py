"""Exercise 9, compaction with ballot: fill in the kernel's body, then run ``gpusim exercise 9 FILE.py``."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:], int32[:]")
def compact_positive(values, out, count):
    """The positive values, in lane order, to the front of out; how many to count[0]."""
    lane = T.lane_id()
    v = values[lane]
    # your code here: mask = T.i64(T.ballot(...)); count the bits below your lane; write
