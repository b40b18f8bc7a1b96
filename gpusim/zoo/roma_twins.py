"""Broken twins of atomicFlip (Hovland, MSc thesis 2020, Alg. 7): the lock order, the mates check and the fence, each
changed.

Each twin is one of atomicFlip's steps replaced
(:mod:`gpusim.algorithms.weighted.kernels_roma`: ``lock_order``, ``mates_unchanged``,
``make_flip_visible``), given to ROMA as ``roma(..., kernels=atomic_flip_own_vertex_first)``
(:func:`gpusim.language.variants.with_devices`): the real kernel runs, with that one step different.

>>> atomic_flip_without_fence
{'make_flip_visible': <device gpusim.zoo.roma_twins.no_fence at ...>}
"""

from __future__ import annotations

from gpusim import device
from gpusim.algorithms.weighted.kernels_roma import lock_order, smallest_above

__all__ = [
    "atomic_flip_max_first", "atomic_flip_own_vertex_first", "atomic_flip_without_fence",
    "atomic_flip_without_mates_check", "lock_max_first", "lock_own_vertex_first", "mates_not_checked", "no_fence",
]


@device
def lock_own_vertex_first(u, mate_u, x, y, k):
    """Locks its own vertex ``u`` first, then the others in increasing order: two threads that want each
    other's edge can each hold their own lock and both give up — a phase without progress (the thesis's
    example before Lemma 4.1.1)."""
    v = u
    if k > 0:
        v = -1
        for _ in range(k):
            v = smallest_above(mate_u, x, y, -1, v)
    return v


@device
def lock_max_first(u, mate_u, x, y, k):
    """Locks the largest vertex first: still one global order, so Lemma 4.1.1's argument still holds."""
    return lock_order(u, mate_u, x, y, 3 - k)


@device
def mates_not_checked(mate, u, mate_u, x, y):
    """Flips once the locks are held, without checking that the two edges are still matched as they were."""
    return 1


@device
def no_fence():
    """atomicFlip without its ``__threadfence`` (Hovland, MSc thesis 2020, Alg. 7 line 7): the locks open while the
    four stores
    to ``mate`` may still be on their way, so the next thread to take a lock can read the old mates, pass
    the check, and flip edges that no longer exist.  Only weak memory shows it."""
    pass


#: atomicFlip locking its own vertex first.
atomic_flip_own_vertex_first = {"lock_order": lock_own_vertex_first}
#: atomicFlip locking in decreasing order (a documented non-bug).
atomic_flip_max_first = {"lock_order": lock_max_first}
#: atomicFlip without the check that both edges are unchanged (Alg. 7 line 5).
atomic_flip_without_mates_check = {"mates_unchanged": mates_not_checked}
#: atomicFlip without the fence before the unlock (Alg. 7 line 7).
atomic_flip_without_fence = {"make_flip_visible": no_fence}
