"""Exercise 11, publish with a fence: a solution (CUDA C Programming Guide, §7.5, the __threadfence example)."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:], int32[:]")
def publish(data, flag, seen):
    """Thread 0 writes data and raises the flag; thread 1 waits for the flag and copies data to seen."""
    if T.gtid() == 0:
        data[0] = 42
        data[1] = 7
        T.threadfence()
        T.atomic_exch(flag, 0, 1)
    elif T.gtid() == 1:
        while T.atomic_load(flag, 0) == 0:
            pass
        T.threadfence()
        seen[0] = data[0]
        seen[1] = data[1]
