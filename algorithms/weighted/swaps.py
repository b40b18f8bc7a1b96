"""ROMA's gain test, written once: the best 4-cycle swap of a matching edge (seed 002, Alg. 5).

:func:`best_swap` is a ``@device`` function that the GPU phases call (a thread's whole scan in Alg. 6,
one thread's share in Alg. 8), and plain enough for Numba to compile for the CPU too:
:func:`best_swap_cpu` is the same source, which the sequential RAMA and ROMA
(:mod:`gpusim.algorithms.weighted.reference_augmentation`) and :func:`best_gain` use.

The weights are the dense ``n × n`` matrix stored flat (``w[u * n + v]``), the matching ``mate``
perfect.  Swapping matched edges ``(u, M[u])`` and ``(x, M[x])`` gives ``(u, a), (M[u], b)`` with
``(a, b) = (x, M[x])`` or ``(M[x], x)``.

Example
-------
>>> w = np.array([[0, 1, 5, 0], [1, 0, 0, 5], [5, 0, 0, 1], [0, 5, 1, 0]], float)
>>> mate = np.array([1, 0, 3, 2], np.int32)
>>> news, others = np.zeros(1, np.int32), np.zeros(1, np.int32)
>>> gain = best_swap_cpu(w.ravel(), mate, 4, 0, 1, 0, 1, 0.0, news, others, 0)
>>> gain, int(news[0]), int(others[0]), best_gain(w, mate)
(8.0, 2, 3, 8.0)
"""

from __future__ import annotations

import numba
import numpy as np

from gpusim import device

__all__ = ["best_gain", "best_swap", "best_swap_cpu"]


@device
def best_swap(w, mate, n, u, mate_u, first, step, threshold, news, others, slot):
    """Alg. 5 (Alg. 8 lines 5–21 for one thread's share): among the matching edges ``(x, M[x])`` with
    ``x < M[x]``, for ``x = first, first + step, ...``, the swap with ``(u, mate_u)`` of largest gain above
    ``threshold`` (ties to the first found).  Puts ``u``'s new mate in ``news[slot]`` and ``mate_u``'s in
    ``others[slot]`` (-1, -1 for none) and returns the gain (``threshold`` for none).  ``mate`` is read
    without a lock: a swap found on a stale read fails atomicFlip's check."""
    gain = threshold
    a = -1
    b = -1
    x = first
    while x < n:
        mate_x = mate[x]
        if x != u and x != mate_u and x < mate_x:
            current = w[u * n + mate_u] + w[x * n + mate_x]
            w1 = w[u * n + x] + w[mate_u * n + mate_x]
            w2 = w[u * n + mate_x] + w[mate_u * n + x]
            if w1 > w2:
                if w1 - current > gain:
                    gain = w1 - current
                    a = x
                    b = mate_x
            elif w2 - current > gain:
                gain = w2 - current
                a = mate_x
                b = x
        x += step
    news[slot] = a
    others[slot] = b
    return gain


#: :func:`best_swap` compiled by Numba for the CPU (the same source).
best_swap_cpu = numba.njit(cache=False)(best_swap.fn)


@numba.njit(cache=False)
def _largest_gain(flat, mate, n):  # pragma: no cover - compiled
    news = np.zeros(1, np.int32)
    others = np.zeros(1, np.int32)
    largest = 0.0
    for u in range(n):
        if u < mate[u]:
            largest = max(largest, best_swap_cpu(flat, mate, n, u, mate[u], 0, 1, largest, news, others, 0))
    return largest


def best_gain(w: np.ndarray, mate: np.ndarray) -> float:
    """The largest gain of any 4-cycle swap of the perfect matching ``mate`` (0 when none gains), computed
    sequentially with :func:`best_swap`."""
    n = mate.size
    return float(_largest_gain(np.ascontiguousarray(w, np.float64).ravel(), np.asarray(mate, np.int32), n))
