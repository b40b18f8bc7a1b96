"""The kernels of stable marriage on GPUs (Manne et al., CSC 2016 §4): McVitie-Wilson with CAS, Gale-Shapley
in rounds.

Written once in ``T`` ([003]_).  Men propose down their mutual lists (the woman's rank of each man
stored beside her in his list, Manne et al. (CSC 2016) §2).  A proposal replaces the worst offer the woman holds
(:mod:`gpusim.algorithms.stable.slots`) by compare-and-swap; offers held only ever get better, so
a woman a man cannot beat now he can never beat (the doomed proposals of Alg. 1 are skipped).
The host loops are in :mod:`gpusim.algorithms.stable.gpu`.

References
----------
.. [003] M. Naim, "GPU algorithms for matching and clustering", PhD thesis, Bergen 2017,
   Manne et al. (CSC 2016): F. Manne, M. Naim, H. Lerring, M. Halappanavar, "On stable marriages and greedy
   matchings", CSC 2016 (reprinted in Naim's PhD thesis, 2017).

Example
-------
>>> mcvitie_wilson_gpu.name, sorted(gale_shapley_round.intended_races)
('mcvitie_wilson_gpu', ['held'])
"""

from __future__ import annotations

from gpusim import T, device, kernel

__all__ = ["gale_shapley_round", "mcvitie_wilson_gpu", "next_candidate", "propose_to"]


#: A man reads a woman's held proposal unlocked to skip hopeless proposals; the CAS that proposes
#: fails if it changed, and he reads again (Manne et al., CSC 2016 §4).
_PROPOSAL_RACES = {"held": "read unlocked to skip a hopeless proposal; the proposing CAS fails on a stale read"}


@device
def next_candidate(men_ptr, men_list, men_rank, slot_ptr, held, man, j):
    """The first position ``>= j`` in ``man``'s list whose woman would take him now (nextCandidate,
    Alg. 1 lines 4–6); the end of his list when none would.

    ``held`` is read without atomics: a stale value is never better than the true one, so a
    woman skipped here would reject him anyway; the proposal re-checks by CAS.
    """
    while j < men_ptr[man + 1]:
        w = men_list[j]
        worst = held[slot_ptr[w]]
        for s in range(slot_ptr[w] + 1, slot_ptr[w + 1]):
            worst = max(worst, held[s])
        if ((T.i64(men_rank[j]) << 32) | T.i64(man)) < worst:
            break
        j += 1
    return j


@device
def propose_to(held, slot_ptr, w, offer, low, empty):
    """Put ``offer`` in place of the worst offer woman ``w`` holds, by CAS (Alg. 1 lines 7–9).

    Returns the man displaced, -1 when a slot was free, or -2 when every offer she holds is
    better (the proposer moves on).  The worst slot is found from atomic loads and the CAS
    expects exactly the value seen: it succeeds only if that slot still holds it, and then every
    other slot holds an offer at least as good (offers only improve).  The loop holds no lock: a
    lane whose CAS fails retries against the offer that beat it, so lockstep warps cannot deadlock here.
    """
    outcome = -3
    while outcome == -3:
        s = slot_ptr[w]
        worst = T.atomic_load(held, s)
        for t in range(slot_ptr[w] + 1, slot_ptr[w + 1]):
            value = T.atomic_load(held, t)
            if value > worst:
                worst = value
                s = t
        if offer > worst:
            outcome = -2
        elif T.atomic_cas(held, s, worst, offer) == worst:
            if worst == empty:
                outcome = -1
            else:
                outcome = T.i32(worst & low)
    return outcome


@kernel(signature="int32[:], int32[:], int32[:], int32[:], int64[:], int32[:], int32, int64, int64",
        intended_races=_PROPOSAL_RACES)
def mcvitie_wilson_gpu(men_ptr, men_list, men_rank, slot_ptr, held, man_next, n_men, low, empty):
    """McVitie-Wilson, a thread per man, CAS on each woman's suitor (Manne et al., CSC 2016 §4, the CUDA version
    of Alg. 1 lines 2–9 with a stack).

    The thread proposes for its man; when he displaces a suitor it carries on for the displaced
    man at once (the stack of the sequential version).  A man's next position is published
    before the CAS that makes him a suitor (with a fence), and whoever displaces him later reads
    it atomically: only the thread holding a man touches his ``man_next``.
    """
    u = T.gtid()
    while u < n_men:
        current = u
        j = man_next[current]
        while current >= 0:
            j = next_candidate(men_ptr, men_list, men_rank, slot_ptr, held, current, j)
            if j == men_ptr[current + 1]:
                man_next[current] = j
                current = -1
            else:
                man_next[current] = j + 1
                # equivalent fence-removed: the fence only spares work. Whoever displaces him later may read a
                # stale man_next without it, an earlier position of his list: he then proposes again to women who
                # refused or displaced him, who refuse him again (a woman's offers only improve), up to where he
                # was; the wives, and man_next at the end, are the same.
                T.threadfence()
                outcome = propose_to(held, slot_ptr, men_list[j], (T.i64(men_rank[j]) << 32) | T.i64(current),
                                     low, empty)
                if outcome == -2:
                    j += 1
                else:
                    current = outcome
                    if current >= 0:
                        j = T.atomic_load(man_next, current)
        u += T.num_threads()


@kernel(signature="int32[:], int32[:], int32[:], int32[:], int64[:], int32[:], int32[:], int32, int32[:], "
                  "int32[:], int64, int64", intended_races=_PROPOSAL_RACES)
def gale_shapley_round(men_ptr, men_list, men_rank, slot_ptr, held, man_next, free, n_free, rejected, n_rejected,
                       low, empty):
    """One round of Gale-Shapley (Manne et al., CSC 2016 §2, Alg. 1 lines 3–9 for every free man at once):
    every free man proposes until a woman holds him.

    A thread per free man.  A man displaced during the round is appended to ``rejected`` (an
    atomic counter compacts the next round's list) and proposes in the next round, as in
    Gale and Shapley's rounds; the launch boundary orders his ``man_next``.
    """
    i = T.gtid()
    while i < n_free:
        current = free[i]
        j = man_next[current]
        while current >= 0:
            j = next_candidate(men_ptr, men_list, men_rank, slot_ptr, held, current, j)
            if j == men_ptr[current + 1]:
                man_next[current] = j
                current = -1
            else:
                man_next[current] = j + 1
                outcome = propose_to(held, slot_ptr, men_list[j], (T.i64(men_rank[j]) << 32) | T.i64(current),
                                     low, empty)
                if outcome == -2:
                    j += 1
                else:
                    if outcome >= 0:
                        rejected[T.atomic_add(n_rejected, 0, 1)] = outcome
                    current = -1
        i += T.num_threads()
