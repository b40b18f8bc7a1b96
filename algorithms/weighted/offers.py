"""What the weighted GPU kernels share: an offer is a CSR entry, and the order of two offers.

Suitor, Locally-Dominant and b-Suitor (:mod:`gpusim.algorithms.weighted`) name an offer by the CSR
entry ``j`` it travels along: its proposer is the entry's owner ``src[j]`` and its weight ``weights[j]``
(``src`` is built on the device: :mod:`gpusim.algorithms.weighted.assembly`).  :func:`offer_beats`
compares two offers.

Example
-------
>>> offer_beats.name
'offer_beats'
"""

from __future__ import annotations

from gpusim import device

__all__ = ["offer_beats"]


@device
def offer_beats(weights, src, held, w, u):
    """1 when the offer ``(w, u)`` beats the held offer ``held`` (a CSR entry, -1 for none), else 0.

    Offers compare by weight, ties to the larger proposer id: a fixed receiver's view of the
    greedy order ``(w, max, min)`` (Alg. 3 line 14).
    """
    better = 0
    if held < 0:
        better = 1
    elif w > weights[held]:
        better = 1
    elif w == weights[held]:
        if u > src[held]:
            better = 1
    return better
