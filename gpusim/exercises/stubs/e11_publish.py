"""Exercise 11, publish with a fence: fill in the kernel's body, then run ``gpusim exercise 11 FILE.py``."""

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:], int32[:]")
def publish(data, flag, seen):
    """Thread 0 writes data and raises the flag; thread 1 waits for the flag and copies data to seen."""
    if T.gtid() == 0:
        data[0] = 42
        data[1] = 7
        # your code here: publish (raise the flag)
    elif T.gtid() == 1:
        # your code here: wait for the flag, then copy data[0] and data[1] to seen
        pass
