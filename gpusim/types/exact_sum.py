"""An exactly rounded sum of many float64 values in one compiled pass (:func:`gpusim.types.numeric.weight_sum`'s
large inputs): ``math.fsum`` needs a Python float per value, a minute and 8 GB for the 2.6·10^8 weights of an R-MAT
graph of 2^24 vertices.

Each finite value is an integer ``q`` (``|q| < 2^53``) times ``2^(e - 53)``.  One loop adds the ``q`` of each
exponent ``e`` in two int64 halves of at most 27 bits, exact for fewer than 2^36 values; the halves meet in one Python
integer, and one division rounds it (``int / int`` is correctly rounded).

>>> import math, numpy as np
>>> values = np.array([0.1] * 10 + [1e-20, -3.0])
>>> exact_sum(values) == math.fsum(values.tolist())
True
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["MOST_VALUES", "exact_sum"]

#: The halves stay exact in int64 below this many values.
MOST_VALUES = 1 << 36
#: ``e + _BIAS`` indexes the exponents of ``frexp`` (-1073 for the smallest subnormal to 1024).
_BIAS = 1074
_HALF = 27


@numba.njit(cache=True)
def _by_exponent(values, high, low):  # pragma: no cover - compiled
    for x in values:
        if x != 0.0:
            m, e = math.frexp(x)
            q = np.int64(m * 9007199254740992.0)  # m 2^53: an integer, exactly
            high[e + _BIAS] += q >> _HALF
            low[e + _BIAS] += q & ((1 << _HALF) - 1)


def exact_sum(values: np.ndarray) -> float:
    """The sum of finite float64 ``values`` (fewer than :data:`MOST_VALUES`), exactly rounded; ``±inf`` when it is
    above the largest double."""
    high = np.zeros(_BIAS + 1025, np.int64)
    low = np.zeros_like(high)
    _by_exponent(np.ascontiguousarray(values, np.float64), high, low)
    total = 0
    for b in np.flatnonzero(high | low).tolist():
        total += ((int(high[b]) << _HALF) + int(low[b])) << b
    try:
        return total / (1 << (_BIAS + 53))
    except OverflowError:
        return math.inf if total > 0 else -math.inf
