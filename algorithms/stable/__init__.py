"""Stable marriage on GPUs (Manne et al., CSC 2016): McVitie-Wilson with CAS, Gale-Shapley in rounds, and the
sequential Gale-Shapley and McVitie-Wilson.

Men propose down their mutual lists; woman ``w`` holds up to ``b(w)`` offers
(:mod:`~gpusim.algorithms.stable.slots`).  The kernels (:mod:`~gpusim.algorithms.stable.kernels`) are
written once in ``T``; the host loops (:mod:`~gpusim.algorithms.stable.gpu`) once against
:class:`~gpusim.Device`; the sequential references (:mod:`~gpusim.algorithms.stable.reference`) are
compiled with Numba.  Every algorithm registers itself; :func:`stable_marriage` dispatches to them.

Example
-------
>>> from gpusim.types.preferences import PreferenceInstance
>>> inst = PreferenceInstance([[0, 1], [0]], [[1, 0], [0]])
>>> stable_marriage(inst, "mw-gpu", backend="sim").wife.tolist(), gale_shapley(inst).wife.tolist()
([1, 0], [1, 0])
"""

# First: it imports the algorithms' modules in the order they register (the order of STABLE_ALGORITHMS).
from .marriage import STABLE_ALGORITHMS, stable_marriage

# isort: split
from .gpu import gs_rounds, mw_gpu
from .kernels import gale_shapley_round, mcvitie_wilson_gpu, next_candidate, propose_to
from .reference import gale_shapley, mcvitie_wilson
from .result import StableMatching
from .slots import EMPTY, LOW, capacity_array, slot_offsets, wives_from_slots

__all__ = [
    "EMPTY", "LOW", "STABLE_ALGORITHMS", "StableMatching", "capacity_array", "gale_shapley", "gale_shapley_round",
    "gs_rounds", "mcvitie_wilson", "mcvitie_wilson_gpu", "mw_gpu", "next_candidate", "propose_to", "slot_offsets",
    "stable_marriage", "wives_from_slots",
]
