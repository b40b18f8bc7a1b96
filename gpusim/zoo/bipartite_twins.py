"""Broken twins of the bipartite seed kernels: the races their papers describe, with the repair removed.

Each twin is one step of the paper's kernel replaced, not a copy of the kernel: ALTERNATE's predecessor
check (:func:`~gpusim.algorithms.bipartite.kernels_bfs.taken_by_another_path`, Deveci et al. (Euro-Par 2013), Alg. 3
line 8)
and PUSHKRNL's ``iA`` guard (:func:`~gpusim.algorithms.bipartite.kernels_push_relabel.mate_not_active`,
Deveci et al. (ICPP 2013), Alg. 9 line 13).  Pass one to a driver, ``apfb(...,
kernels=alternate_without_predecessor_check)``,
or make the kernel variant with :func:`gpusim.language.variants.with_devices`.

>>> alternate_without_predecessor_check
{'taken_by_another_path': <device gpusim.zoo.bipartite_twins.no_predecessor_check at ...>}
"""

from __future__ import annotations

from gpusim import device

__all__ = ["alternate_without_predecessor_check", "no_ia_guard", "no_predecessor_check",
           "push_active_without_ia_guard"]


@device
def no_predecessor_check(predecessor, matched_row, matched_col):
    """ALTERNATE's line 8 removed (Deveci et al., Euro-Par 2013, Alg. 3): a column re-matched by another path is
    never seen as
    taken, so two paths through one column re-match it in turn and chase each other forever (Fig. 1)."""
    return 0


@device
def no_ia_guard(i_a, w, loop):
    """PUSHKRNL's line 13 check ``iA(μ(u)) ≠ loop`` removed (Deveci et al., ICPP 2013, Alg. 9): a column pushes to a
    row whose
    mate is active in the same loop, and after INITKRNL's roll-back that mate is listed twice."""
    return 1


#: ALTERNATE (Deveci et al., Euro-Par 2013, Alg. 3) without the predecessor check of line 8.
alternate_without_predecessor_check = {"taken_by_another_path": no_predecessor_check}
#: G-PR-PUSHKRNL (Deveci et al., ICPP 2013, Alg. 9) without the ``iA`` guard of line 13.
push_active_without_ia_guard = {"mate_not_active": no_ia_guard}
