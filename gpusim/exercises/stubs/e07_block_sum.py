"""Exercise 7, a block reduction in shared memory: fill in the kernel's body, then run ``gpusim exercise 7 FILE.py``."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:]")
def block_sum(values, total):
    """total[0] = sum of the block's 8 values, by a tree in shared memory."""
    cache = T.shared_array(8, T.i32)
    t = T.thread_id()
    cache[t] = values[t]
    # your code here: halve a stride until 0, adding cache[t + stride] into cache[t]; thread 0 writes total[0]
