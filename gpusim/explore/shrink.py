"""Shrink a failing schedule to few preemptions by delta debugging (Zeller and Hildebrandt, TSE 2002).

The failing run's thread switches are replayed with :class:`~gpusim.explore.switches.Switches`;
``ddmin`` removes preemptions while the scenario still fails (with the *same kind* of failure), then
drops the forced hand-overs that do not matter.  The result is 1-minimal: removing any single
remaining preemption makes the failure go away.

>>> ddmin(list(range(10)), lambda kept: {3, 7} <= set(kept))
[3, 7]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["ddmin"]

Item = TypeVar("Item")


def ddmin(items: Sequence[Item], fails: Callable[[list[Item]], bool], budget: int = 2000) -> list[Item]:
    """A 1-minimal sub-list of ``items`` for which ``fails`` still holds (``fails(items)`` must hold).

    ``budget`` caps the calls of ``fails``; when it runs out, the smallest failing list found so far
    is returned.
    """
    current = list(items)
    calls = 0
    if not current:
        return current
    if fails([]):
        return []
    granularity = 2
    while len(current) >= 2 and calls < budget:
        size = len(current)
        chunks = [current[size * k // granularity: size * (k + 1) // granularity] for k in range(granularity)]
        reduced = False
        for chunk in chunks:  # try a chunk alone, then everything but a chunk
            calls += 1
            if chunk and fails(chunk):
                current, granularity, reduced = chunk, 2, True
                break
        if not reduced:
            for k in range(len(chunks)):
                complement = [item for j, chunk in enumerate(chunks) if j != k for item in chunk]
                calls += 1
                if len(complement) < size and fails(complement):
                    current, granularity, reduced = complement, max(granularity - 1, 2), True
                    break
                if calls >= budget:
                    break
        if not reduced:
            if granularity >= size:
                break
            granularity = min(size, 2 * granularity)
    if len(current) == 1 and calls < budget and fails([]):
        return []
    return current
