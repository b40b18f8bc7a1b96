"""Broken twin of Suitor: the proposal a plain load and store instead of a CAS.

The twin is a variant of the real kernel, not a copy of it: ``suitor(..., kernels=suitor_without_cas)``
runs :func:`~gpusim.algorithms.weighted.kernels_suitor.suitor_thread_per_vertex` (or GPU-Suitor) with
:func:`propose_without_cas` in place of :func:`~gpusim.algorithms.weighted.kernels_suitor.propose`.

>>> sorted(suitor_without_cas)
['propose']
"""

from __future__ import annotations

from gpusim import device
from gpusim.algorithms.weighted.offers import offer_beats

__all__ = ["propose_without_cas", "suitor_without_cas"]


@device
def propose_without_cas(ws, weights, src, partner, entry, current):
    """Suitor's proposal (Naim et al., HiPC 2015, Alg. 3 lines 19–29) with the lock (our CAS) removed: it reads
    ``ws[partner]``, compares, and stores with plain memory operations, so two proposers that both read
    the old offer both believe they won, and one of them is lost.  Returns as
    :func:`~gpusim.algorithms.weighted.kernels_suitor.propose` does."""
    outcome = -2
    held = ws[partner]
    if offer_beats(weights, src, held, weights[entry], current) == 1:
        ws[partner] = entry
        if held < 0:
            outcome = -1
        else:
            outcome = src[held]
    return outcome


#: Suitor without the CAS: pass as ``suitor(..., kernels=suitor_without_cas)``.
suitor_without_cas = {"propose": propose_without_cas}
