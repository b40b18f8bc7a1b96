"""Round bookkeeping on the device for Locally-Dominant and b-Suitor (Naim et al., HiPC 2015 and IV): the host
launches rounds in batches and reads back only whether they are over.

Locally-Dominant stops after a round that matches nothing (Naim et al., HiPC 2015, Alg. 1): :func:`ld_close_round`
counts the round and clears ``live`` then, and the round's kernels do nothing once ``live`` is clear.
b-Suitor's rounds take a queue of vertices whose length only the device knows: :func:`open_queue` counts
the round when the queue is not empty, empties the next queue and pads this one up to ``n`` with the
idle vertex ``n`` (capacity 0), so a round can be launched over ``n`` entries without reading the length.

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> dev = Device("sim", seed=0)
>>> queue, length, nxt, rounds = (dev.array(np.array(a, np.int32)) for a in ([2, 0, 0, 0], [1], [5], [0]))
>>> _ = dev.launch(open_queue, grid=1, block=32, args=(queue, length, nxt, rounds, 4))
>>> dev.to_host(queue).tolist(), dev.to_host(nxt).tolist(), dev.to_host(rounds).tolist()
([2, 4, 4, 4], [0], [1])
"""

from __future__ import annotations

from gpusim import T, kernel

__all__ = ["ld_close_round", "open_queue"]


@kernel(signature="int32[:], int32[:], int32[:]")
def ld_close_round(matched, live, rounds):
    """After a round of Locally-Dominant: count it while live; a round that matched nothing ends the rounds."""
    if T.gtid() == 0:
        if live[0] == 1:
            rounds[0] += 1
            if matched[0] == 0:
                live[0] = 0


@kernel(signature="int32[:], int32[:], int32[:], int32[:], int32")
def open_queue(queue, length, next_length, rounds, n):
    """Before a round of b-Suitor: count it if its queue (``length[0]`` vertices) is not empty, empty the next
    queue, and fill ``queue[length[0] .. n - 1]`` with the idle vertex ``n``."""
    i = T.gtid()
    if i == 0:
        next_length[0] = 0
        if length[0] > 0:
            rounds[0] += 1
    i += length[0]
    while i < n:
        queue[i] = n
        i += T.num_threads()
