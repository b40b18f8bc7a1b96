"""Broken twins of atomicFlip (seed 002, Alg. 7): the lock order, the mates check, and the fence, removed."""

from __future__ import annotations

from gpusim import T, device


@device
def atomic_flip_own_vertex_first(mate, locks, a, b, u, mate_u, flips):
    """Locks its own vertex u before the other edge's x: two threads that want each other's edge can each
    hold one lock and both give up — a phase without progress (the thesis's example before Lemma 4.1.1)."""
    x = min(a, b)
    if T.atomic_cas(locks, u, -1, u) == -1:
        if T.atomic_cas(locks, x, -1, u) == -1:
            if T.atomic_load(mate, u) == mate_u and T.atomic_load(mate, x) == max(a, b):
                mate[u] = a
                mate[a] = u
                mate[mate_u] = b
                mate[b] = mate_u
                T.threadfence()
                T.atomic_add(flips, 0, 1)
            T.atomic_exch(locks, x, -1)
        T.atomic_exch(locks, u, -1)


@device
def atomic_flip_max_first(mate, locks, a, b, u, mate_u, flips):
    """Locks max(u, x) before min(u, x): still one global order, so Lemma 4.1.1's argument still holds."""
    x = min(a, b)
    if T.atomic_cas(locks, max(u, x), -1, u) == -1:
        if T.atomic_cas(locks, min(u, x), -1, u) == -1:
            if T.atomic_load(mate, u) == mate_u and T.atomic_load(mate, x) == max(a, b):
                mate[u] = a
                mate[a] = u
                mate[mate_u] = b
                mate[b] = mate_u
                T.threadfence()
                T.atomic_add(flips, 0, 1)
            T.atomic_exch(locks, min(u, x), -1)
        T.atomic_exch(locks, max(u, x), -1)


@device
def atomic_flip_without_mates_check(mate, locks, a, b, u, mate_u, flips):
    """Flips once both locks are held, without checking that the two edges are still matched as they were."""
    x = min(a, b)
    if T.atomic_cas(locks, min(u, x), -1, u) == -1:
        if T.atomic_cas(locks, max(u, x), -1, u) == -1:
            mate[u] = a
            mate[a] = u
            mate[mate_u] = b
            mate[b] = mate_u
            T.threadfence()
            T.atomic_add(flips, 0, 1)
            T.atomic_exch(locks, max(u, x), -1)
        T.atomic_exch(locks, min(u, x), -1)


@device
def atomic_flip_without_fence(mate, locks, a, b, u, mate_u, flips):
    """atomicFlip without its ``__threadfence`` (seed 002, Alg. 7): the locks open while the four stores
    to ``mate`` may still be on their way, so the next thread to take a lock can read the old mates,
    pass the check, and flip edges that no longer exist.  Only weak memory shows it."""
    x = min(a, b)
    if T.atomic_cas(locks, min(u, x), -1, u) == -1:
        if T.atomic_cas(locks, max(u, x), -1, u) == -1:
            if T.atomic_load(mate, u) == mate_u and T.atomic_load(mate, x) == max(a, b):
                mate[u] = a
                mate[a] = u
                mate[mate_u] = b
                mate[b] = mate_u
                T.atomic_add(flips, 0, 1)
            T.atomic_exch(locks, max(u, x), -1)
        T.atomic_exch(locks, min(u, x), -1)
