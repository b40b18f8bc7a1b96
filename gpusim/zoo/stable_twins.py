"""Broken twin of GPU McVitie-Wilson: proposals written with a plain load and store instead of a CAS."""

from __future__ import annotations

from gpusim import T, kernel
from gpusim.algorithms.stable import next_candidate


@kernel(signature="int32[:], int32[:], int32[:], int32[:], int64[:], int32[:], int32, int64, int64")
def mcvitie_wilson_no_cas(men_ptr, men_list, men_rank, slot_ptr, held, man_next, n_men, low, empty):
    """McVitie-Wilson (seed 003, Paper IV §4) with the CAS on the woman's suitor replaced by a load and a store.

    Two men who read the same suitor both store themselves: the first is overwritten without
    being displaced (a man is lost), or a man displaced twice ends with two threads (and a woman
    with two husbands in the result).  Capacity 1 only.
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
                s = slot_ptr[men_list[j]]
                offer = (T.i64(men_rank[j]) << 32) | T.i64(current)
                suitor = held[s]
                if offer < suitor:
                    held[s] = offer
                    if suitor == empty:
                        current = -1
                    else:
                        current = T.i32(suitor & low)
                        j = man_next[current]
                else:
                    j += 1
        u += T.num_threads()
