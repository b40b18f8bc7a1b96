"""Broken twin of GPU McVitie-Wilson: the proposal a plain load and store instead of a CAS.

The twin is a variant of the real kernel, not a copy of it: ``stable_marriage(..., "mw-gpu",
kernels=mcvitie_wilson_no_cas)`` runs :func:`~gpusim.algorithms.stable.kernels.mcvitie_wilson_gpu` with
:func:`propose_by_store` in place of :func:`~gpusim.algorithms.stable.kernels.propose_to`.

>>> sorted(mcvitie_wilson_no_cas)
['propose_to']
"""

from __future__ import annotations

from gpusim import T, device

__all__ = ["mcvitie_wilson_no_cas", "propose_by_store"]


@device
def propose_by_store(held, slot_ptr, w, offer, low, empty):
    """The proposal (Manne et al., CSC 2016 §4) with the CAS on the woman's suitor replaced by a load and a store.

    Two men who read the same suitor both store themselves: the first is overwritten without
    being displaced (a man is lost), or a man displaced twice ends with two threads (and a woman
    with two husbands in the result).  Capacity 1 only.  Returns as
    :func:`~gpusim.algorithms.stable.kernels.propose_to` does.
    """
    s = slot_ptr[w]
    suitor = held[s]
    outcome = -2
    if offer < suitor:
        held[s] = offer
        if suitor == empty:
            outcome = -1
        else:
            outcome = T.i32(suitor & low)
    return outcome


#: McVitie-Wilson without the CAS: pass as ``stable_marriage(..., "mw-gpu", kernels=mcvitie_wilson_no_cas)``.
mcvitie_wilson_no_cas = {"propose_to": propose_by_store}
