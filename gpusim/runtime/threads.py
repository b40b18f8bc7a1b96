"""How many of numba's threads the CPU engine's parallel loops use.

numba starts ``NUMBA_NUM_THREADS`` threads (every core by default).  With :data:`MIN_THREADS` or more the
CPU engine's parallel loops use them all; with fewer they run on one thread: on the project's shared 2-core
machine (load average 5 to 9) two threads took 14 times one thread's time for b-Suitor's rounds and 4 times
for Louvain's moves (10^5 edges), every round's barrier waiting for a core.  The answers do not depend on
the number of threads.

>>> with engine_threads() as threads:
...     threads >= 1
True
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["MIN_THREADS", "engine_threads"]

#: The fewest threads the CPU engine's parallel loops run on; below it they run on one thread.
MIN_THREADS = 4


@contextmanager
def engine_threads() -> Iterator[int]:
    """Within the block numba's parallel loops run on every thread, or on one when there are fewer than
    :data:`MIN_THREADS`; yields the number they run on."""
    import numba

    threads = numba.get_num_threads()
    if threads >= MIN_THREADS:
        yield threads
        return
    numba.set_num_threads(1)
    try:
        yield 1
    finally:
        numba.set_num_threads(threads)
