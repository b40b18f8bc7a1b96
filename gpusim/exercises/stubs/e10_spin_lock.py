"""Exercise 10, a spin lock: fill in the kernel's body, then run ``gpusim exercise 10 FILE.py``."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:], int32[:], int32[:]")
def locked_add(values, lock, total, count):
    """Add values[i] to total[0] and 1 to count[0] inside a critical section guarded by lock[0]."""
    i = T.gtid()
    # your code here: loop until you took the lock and did your update
