"""Broken twins of atomicFlip (seed 002, Alg. 7): the lock order, the mates check and the fence, each changed.

Each twin is :func:`gpusim.algorithms.roma.flip_with` with one argument changed from the real
:func:`~gpusim.algorithms.roma.atomic_flip` (``first=-1, descending=0, check=1, fence=1``).
"""

from __future__ import annotations

from gpusim import device
from gpusim.algorithms.roma import flip_with


@device
def atomic_flip_own_vertex_first(mate, locks, a, b, u, mate_u, flips):
    """Locks its own vertex u before the others: two threads that want each other's edge can each
    hold their own lock and both give up — a phase without progress (the thesis's example before
    Lemma 4.1.1)."""
    flip_with(mate, locks, a, b, u, mate_u, flips, u, 0, 1, 1)


@device
def atomic_flip_max_first(mate, locks, a, b, u, mate_u, flips):
    """Locks the largest vertex first: still one global order, so Lemma 4.1.1's argument still holds."""
    flip_with(mate, locks, a, b, u, mate_u, flips, -1, 1, 1, 1)


@device
def atomic_flip_without_mates_check(mate, locks, a, b, u, mate_u, flips):
    """Flips once the locks are held, without checking that the two edges are still matched as they were."""
    flip_with(mate, locks, a, b, u, mate_u, flips, -1, 0, 0, 1)


@device
def atomic_flip_without_fence(mate, locks, a, b, u, mate_u, flips):
    """atomicFlip without its ``__threadfence`` (seed 002, Alg. 7): the locks open while the four stores
    to ``mate`` may still be on their way, so the next thread to take a lock can read the old mates,
    pass the check, and flip edges that no longer exist.  Only weak memory shows it."""
    flip_with(mate, locks, a, b, u, mate_u, flips, -1, 0, 1, 0)
