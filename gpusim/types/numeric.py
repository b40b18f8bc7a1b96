"""gpusim's numeric policy for weights: finite, summed without overflow or underflow, or refused up front.

* Every weight is a finite float64 (``WeightedGraph`` refuses NaN and infinities, naming the entry).
* A sum of weights (a matching's weight, a graph's total) is :func:`weight_sum`: the values are scaled by
  a power of two so the largest is below 1 (exact: only the exponent changes), summed with
  ``math.fsum`` (exactly rounded), and scaled back; from 65,536 values, as integers in one compiled pass
  (:mod:`gpusim.types.exact_sum`, exact too).  It never raises: it is ``inf`` only when the exact
  answer is above the largest double (1.797e308), and weights near the smallest subnormal add up exactly.
* A maximum-weight matching whose weight could pass the largest double is refused before the work by
  :func:`check_matching_weight_fits`, with one line naming the heaviest edge: the bound is half the sum,
  over the vertices, of each vertex's heaviest ``b`` incident weights (every matched edge is at most the
  mean of its two ends' heaviest weights).
* Modularity is a ratio of weights, so it is computed on weights divided by the largest one
  (:func:`normalised`): weights 1e300 or 1e-300 give the same modularity as weights 1.

Hovland (MSc thesis 2020) §5.4 and Naim et al. (IPDPS 2017) eq. (1) define the quantities summed here.

>>> weight_sum([1.5e308, 1.0])
1.5e+308
>>> weight_sum([1.5e308, 1.5e308])
inf
>>> weight_sum([5e-324] * 4)
2e-323
>>> normalised(np.array([1e-300, 2e-300])).tolist()
[0.5, 1.0]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gpusim.errors import InvalidArgument

__all__ = ["LARGEST", "check_matching_weight_fits", "normalised", "scale_exponent", "weight_sum"]

#: The largest finite float64.
LARGEST = float(np.finfo(np.float64).max)


def scale_exponent(values: np.ndarray) -> int:
    """The ``k`` with ``max |values| * 2^k`` in [0.5, 1) (0 for no nonzero value); ``np.ldexp(values, k)`` scales
    exactly (only exponents change) for every value not pushed below the subnormals, which are then negligible
    beside the largest.  ``k`` can pass 1023 (subnormal weights), where ``2.0 ** k`` itself would overflow.

    >>> scale_exponent(np.array([3.0, 1.0])), scale_exponent(np.array([0.0])), scale_exponent(np.array([5e-324]))
    (-2, 0, 1073)
    """
    values = np.asarray(values, np.float64)
    top = float(np.max(np.abs(values))) if values.size else 0.0
    if top == 0.0 or not math.isfinite(top):
        return 0
    return -math.frexp(top)[1]  # top = f * 2^e, 0.5 <= f < 1


def weight_sum(values: Any) -> float:
    """The sum of ``values`` exactly rounded, without intermediate overflow: ``inf`` only when the answer itself
    is above :data:`LARGEST` (``math.fsum`` would raise ``OverflowError`` on the way there).

    >>> weight_sum([1e308, 1e308, -1e308])
    1e+308
    """
    values = np.asarray(values, np.float64).ravel()
    if values.size == 0:
        return 0.0
    top = float(np.max(np.abs(values)))
    if top == 0.0 or not math.isfinite(top):
        return math.fsum(values.tolist()) if math.isfinite(top) else float(np.sum(values))
    if values.size >= _COMPILED_FROM:  # one compiled pass, where fsum needs a Python float per value
        from gpusim.types.exact_sum import MOST_VALUES, exact_sum

        if values.size < MOST_VALUES:
            return exact_sum(values)
    exponent = math.frexp(top)[1]
    with np.errstate(under="ignore", over="ignore"):
        scaled = np.ldexp(values, -exponent)           # exact but for parts below 2^-1074 of the largest
        total = math.fsum(scaled.tolist())             # at most the number of values: no overflow
        return float(np.ldexp(total, exponent))       # inf when the answer is not representable


#: From this many values :func:`weight_sum` sums in one compiled pass (:mod:`gpusim.types.exact_sum`).
_COMPILED_FROM = 1 << 16


def normalised(weights: np.ndarray) -> np.ndarray:
    """``weights`` divided by the largest one (unchanged when all are zero): for ratios such as modularity."""
    weights = np.asarray(weights, np.float64)
    top = float(np.max(np.abs(weights))) if weights.size else 0.0
    if top == 0.0:
        return weights
    with np.errstate(under="ignore"):
        return weights / top


def check_matching_weight_fits(ptr: np.ndarray, adj: np.ndarray, weights: np.ndarray, b: Any = 1,
                               what: str = "a matching") -> None:
    """Refuse (``InvalidArgument``) a graph whose (b-)matchings could weigh more than :data:`LARGEST`.

    ``ptr``, ``adj``, ``weights``: the symmetric CSR.  The bound is half the sum over the vertices of each
    one's heaviest ``min(b, degree)`` incident weights, summed with :func:`weight_sum`.

    >>> ptr, adj = np.array([0, 1, 3, 5, 6]), np.array([1, 0, 2, 1, 3, 2])
    >>> w = np.array([1.5e308, 1.5e308, 1.0, 1.0, 1.5e308, 1.5e308])
    >>> check_matching_weight_fits(ptr, adj, w)
    Traceback (most recent call last):
    ...
    gpusim.errors.InvalidArgument: the weights are too large: a matching could weigh more than the largest double ...
    >>> check_matching_weight_fits(ptr, adj, w / 2)
    """
    weights = np.asarray(weights, np.float64)
    if weights.size == 0:
        return
    top = float(np.max(weights))
    if top * weights.size <= LARGEST:  # even every weight at once fits: the usual case, one pass
        return
    ptr = np.asarray(ptr, np.int64)
    degrees = np.diff(ptr)
    owners = np.repeat(np.arange(degrees.size), degrees)
    caps = np.minimum(np.broadcast_to(np.minimum(np.asarray(b, np.float64), 2.0**62), degrees.shape), degrees)
    if np.all(caps <= 1):
        heaviest = np.zeros(degrees.size)
        listed = degrees > 0
        heaviest[listed] = np.maximum.reduceat(weights, ptr[:-1][listed])
        heaviest[caps == 0] = 0.0
    else:  # each vertex's heaviest caps[v] weights: sort within lists (by owner, then weight descending)
        order = np.lexsort((-weights, owners))
        rank = np.arange(weights.size) - ptr[owners[order]]
        heaviest = np.where(rank < caps[owners[order]], weights[order], 0.0)
    bound = weight_sum(heaviest * 0.5)
    if not bound <= LARGEST:
        k = int(np.argmax(weights))
        raise InvalidArgument(
            f"the weights are too large: {what} could weigh more than the largest double "
            f"{LARGEST:.6g}; the heaviest edge is {int(owners[k])}-{int(adj[k])} with weight {float(weights[k])!r}; "
            "divide the weights by a power of two (the matching is the same)")
