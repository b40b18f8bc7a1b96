"""ROMA's gain test, written once: the best 4-cycle swap of a matching edge (Hovland, MSc thesis 2020, Alg. 5).

:func:`best_swap` is a ``@device`` function that the GPU phases call (a thread's whole scan in Alg. 6,
one thread's share in Alg. 8), and plain enough for Numba to compile for the CPU too:
:func:`best_swap_cpu` is the same source, which the sequential RAMA and ROMA
(:mod:`gpusim.algorithms.weighted.reference_augmentation`) and :func:`best_gain` use.  It returns the
swap in one word, so a thread's scan keeps it in a register.

The weights are the dense ``n × n`` matrix stored flat (``w[u * n + v]``), the matching ``mate``
perfect.  Swapping matched edges ``(u, M[u])`` and ``(x, M[x])`` gives ``(u, a), (M[u], b)`` with
``(a, b) = (x, M[x])`` or ``(M[x], x)``.

Example
-------
>>> w = np.array([[0, 1, 5, 0], [1, 0, 0, 5], [5, 0, 0, 1], [0, 5, 1, 0]], float)
>>> mate = np.array([1, 0, 3, 2], np.int32)
>>> best = best_swap_cpu(w.ravel(), mate, 4, 0, 1, 0, 1, 0.0)
>>> divmod(best, 4), swap_gain_cpu(w.ravel(), 4, 0, 1, 2, 3), best_gain(w, mate)
((2, 3), 8.0, 8.0)
"""

from __future__ import annotations

import numba
import numpy as np

from gpusim import device

__all__ = ["augment_phase", "best_gain", "best_swap", "best_swap_cpu", "swap_gain", "swap_gain_cpu"]


@device
def best_swap(w, mate, n, u, mate_u, first, step, threshold):
    """Alg. 5 (Alg. 8 lines 5–21 for one thread's share): among the matching edges ``(x, M[x])`` with
    ``x < M[x]``, for ``x = first, first + step, ...``, the swap with ``(u, mate_u)`` of largest gain above
    ``threshold`` (ties to the first found), as ``a * n + b`` — ``a`` becomes ``u``'s mate and ``b``
    ``mate_u``'s — or -1 for none.  ``mate`` is read without a lock: a swap found on a stale read fails
    atomicFlip's check, and an edge read as sharing an endpoint with ``(u, mate_u)`` (``M[x]`` read after
    a flip moved it there) is skipped — its four "endpoints" would be three, and atomicFlip's lock order
    would run off the end (``locks[-1]``).  (The gain of the swap found is :func:`swap_gain`.)"""
    gain = threshold
    best = -1
    x = first
    while x < n:
        mate_x = mate[x]
        if x != u and x != mate_u and x < mate_x and mate_x != mate_u and mate_x != u:
            current = w[u * n + mate_u] + w[x * n + mate_x]
            w1 = w[u * n + x] + w[mate_u * n + mate_x]
            w2 = w[u * n + mate_x] + w[mate_u * n + x]
            if w1 > w2:
                if w1 - current > gain:
                    gain = w1 - current
                    best = x * n + mate_x
            elif w2 - current > gain:
                gain = w2 - current
                best = mate_x * n + x
        x += step
    return best


@device
def swap_gain(w, n, u, mate_u, a, b):
    """The gain of the swap :func:`best_swap` found: ``(u, mate_u), (a, b)`` become ``(u, a), (mate_u, b)``
    (the same sums, so the same float, as the scan's ``w1 - current`` or ``w2 - current``)."""
    return (w[u * n + a] + w[mate_u * n + b]) - (w[u * n + mate_u] + w[a * n + b])


#: :func:`best_swap` and :func:`swap_gain` compiled by Numba for the CPU (the same sources).
best_swap_cpu = numba.njit(cache=True)(best_swap.fn)
swap_gain_cpu = numba.njit(cache=True)(swap_gain.fn)


@numba.njit(cache=True)
def _largest_gain(flat, mate, n):  # pragma: no cover - compiled
    largest = 0.0
    for u in range(n):
        if u < mate[u]:
            best = best_swap_cpu(flat, mate, n, u, mate[u], 0, 1, largest)
            if best >= 0:
                largest = swap_gain_cpu(flat, n, u, mate[u], best // n, best % n)
    return largest


@numba.njit(cache=True)
def augment_phase(flat, mate, order, threshold):  # pragma: no cover - compiled
    """One phase of RAMA/ROMA: Hovland (MSc thesis 2020), Alg. 5 (the best swap of ``u``'s edge) then Alg. 4 (flip)
    at each
    vertex ``u`` of ``order``."""
    n = mate.shape[0]
    flips = 0
    for i in range(order.shape[0]):
        u = order[i]
        v = mate[u]
        best = best_swap_cpu(flat, mate, n, u, v, 0, 1, threshold)
        if best != -1:
            a = best // n
            b = best % n
            mate[u] = a
            mate[a] = u
            mate[v] = b
            mate[b] = v
            flips += 1
    return flips


def best_gain(w: np.ndarray, mate: np.ndarray) -> float:
    """The largest gain of any 4-cycle swap of the perfect matching ``mate`` (0 when none gains), computed
    sequentially with :func:`best_swap`."""
    n = mate.size
    return float(_largest_gain(np.ascontiguousarray(w, np.float64).ravel(), np.asarray(mate, np.int32), n))
