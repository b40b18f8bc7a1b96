"""Exercise 10, a spin lock: a solution (Sanders and Kandrot, CUDA by Example, appendix A.2, made warp-safe)."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:], int32[:], int32[:]")
def locked_add(values, lock, total, count):
    """Add values[i] to total[0] and 1 to count[0] inside a critical section guarded by lock[0]."""
    i = T.gtid()
    done = 0
    while done == 0:
        if T.atomic_cas(lock, 0, 0, 1) == 0:
            T.threadfence()
            total[0] = total[0] + values[i]
            count[0] = count[0] + 1
            T.threadfence()
            T.atomic_exch(lock, 0, 0)
            done = 1
