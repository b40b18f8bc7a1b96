"""Exercise 7, a block reduction in shared memory: a solution (Harris, Optimizing Parallel Reduction, #1)."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:]")
def block_sum(values, total):
    """total[0] = sum of values by a tree in shared memory, a barrier after every level."""
    cache = T.shared_array(8, T.i32)
    t = T.thread_id()
    cache[t] = values[t]
    T.syncthreads()
    stride = T.block_size() // 2
    while stride > 0:
        if t < stride:
            cache[t] = cache[t] + cache[t + stride]
        T.syncthreads()
        stride = stride // 2
    if t == 0:
        total[0] = cache[0]
