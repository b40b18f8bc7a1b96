"""One-line concurrency mutations of the real kernels, planted through the drivers' ``kernels=`` seam.

Each mutant is a ``@device`` step (or, where the step is the kernel's own line, a whole ``@kernel``) with one
change from the paper's, named after the step it replaces; ``MUTANTS`` says how a hunt finds each
(algorithm, start, driver options, race mode).  Nothing here edits the project's files.
"""

from __future__ import annotations

from gpusim import T, device, kernel
from gpusim.algorithms.bipartite.kernels_bfs import fix_columns as paper_fix_columns
from gpusim.algorithms.bipartite.kernels_bfs import fix_rows as paper_fix_rows
from gpusim.algorithms.weighted.kernels_b_suitor import b_suitor_round as paper_b_suitor_round
from gpusim.algorithms.weighted.kernels_b_suitor import (
    best_neighbour,
    holds_offer_of,
    offer_under_lock,
    slot_holding,
    weakest_offer,
)
from gpusim.algorithms.weighted.offers import offer_beats
from gpusim.language.reductions import warp_scan_sum


def _signature(compiled) -> str:
    """A kernel's signature as the string ``@kernel`` takes."""
    return ", ".join(f"{p.dtype.name}[:]" if p.is_array else p.dtype.name for p in compiled.signature)


# -- CAS -> exchange -----------------------------------------------------------------------------------------


@device
def propose(ws, weights, src, partner, entry, current):
    """Suitor's proposal (seed 003, Paper I, Alg. 3) with its CAS turned into an exchange: the offer is stored
    whatever ``ws[partner]`` holds by then, and a better offer that arrived meanwhile is lost."""
    outcome = -3
    w = weights[entry]
    while outcome == -3:
        held = T.atomic_load(ws, partner)
        if offer_beats(weights, src, held, w, current) == 0:
            outcome = -2
        elif T.atomic_exch(ws, partner, entry) == held:
            if held < 0:
                outcome = -1
            else:
                outcome = src[held]
    return outcome


@device
def propose_to(held, slot_ptr, w, offer, low, empty):
    """McVitie-Wilson's proposal (seed 003, Paper IV §4) with its CAS turned into an exchange."""
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
        elif T.atomic_exch(held, s, offer) == worst:
            if worst == empty:
                outcome = -1
            else:
                outcome = T.i32(worst & low)
    return outcome


# -- atomic -> plain read-modify-write -------------------------------------------------------------------------


@device
def offer_under_lock_plain_count(weights, src, slot_ptr, slots, made, next_queue, next_len, in_next, u, v, entry, w):
    """b-Suitor's offer under ``v``'s lock with ``atomicAdd(made[u], 1)`` a plain read-modify-write: the
    thread that displaces ``u`` (under another vertex's lock) decrements ``made[u]`` atomically meanwhile."""
    slot = slot_holding(slot_ptr, slots, v, weakest_offer(weights, src, slot_ptr, slots, v))
    held = slots[slot]
    if holds_offer_of(src, slot_ptr, slots, v, u) == 0:
        if offer_beats(weights, src, held, w, u) == 1:
            slots[slot] = entry
            made[u] = made[u] + 1
            if held >= 0:
                loser = src[held]
                T.atomic_add(made, loser, -1)
                if T.atomic_cas(in_next, loser, 0, 1) == 0:
                    next_queue[T.atomic_add(next_len, 0, 1)] = loser


# -- a barrier removed ----------------------------------------------------------------------------------------


@device
def block_best_swap(gains, swaps):
    """ROMA's block reduction (seed 002, Alg. 8 line 23) without its ``syncthreads``: a thread reads a slot
    its partner has not written yet."""
    tid = T.thread_id()
    stride = T.block_size() // 2
    while stride > 0:
        if tid < stride:
            if gains[tid + stride] > gains[tid]:
                gains[tid] = gains[tid + stride]
                swaps[tid] = swaps[tid + stride]
        stride = stride // 2


# -- a repair step removed ---------------------------------------------------------------------------------------


@kernel(signature=_signature(paper_fix_columns))
def fix_columns_skipped(cmatch, rmatch, nc):
    """FIXMATCHING's column side (seed 000, Alg. 1 line 13; seed 001, Alg. 3 line 11) removed: a column keeps a
    row that moved on."""
    c = T.gtid()
    while c < nc:
        c += T.num_threads()


@kernel(signature=_signature(paper_fix_rows))
def fix_rows_skipped(cmatch, rmatch, nr):
    """FIXMATCHING's row side (seed 000, Alg. 1 line 13) removed."""
    r = T.gtid()
    while r < nr:
        r += T.num_threads()


# -- a lock released early --------------------------------------------------------------------------------------


@kernel(signature=_signature(paper_b_suitor_round), intended_races=paper_b_suitor_round.intended_races)
def b_suitor_round_early_unlock(ptr, adj, weights, src, b, slot_ptr, slots, locks, made, queue, queued, next_queue,
                                next_len, in_next):
    """b-Suitor's round (seed 003, Paper IV §3) releasing ``v``'s lock before the offer is placed under it."""
    i = T.gtid()
    while i < queued:
        u = queue[i]
        searching = 1
        while searching == 1 and T.atomic_load(made, u) < b[u]:
            best = best_neighbour(ptr, adj, weights, src, slot_ptr, slots, u)
            if best < 0:
                searching = 0
            else:
                v = adj[best]
                done = 0
                while done == 0:
                    if T.atomic_cas(locks, v, 0, 1) == 0:
                        T.threadfence()
                        T.atomic_exch(locks, v, 0)
                        offer_under_lock(weights, src, slot_ptr, slots, made, next_queue, next_len, in_next, u, v,
                                         best, weights[best])
                        done = 1
        i += T.num_threads()


# -- a wrong shuffle lane ------------------------------------------------------------------------------------


@device
def store_unsuccessful(queue, again):
    """GPU-Suitor's compaction (seed 003, Paper I, Alg. 4 line 9) reading the count from lane 0, not 31."""
    keep = 0
    if again >= 0:
        keep = 1
    slot = warp_scan_sum(keep)
    count = T.shfl_idx(slot, 0)
    if again >= 0:
        queue[32 * T.warp_id() + slot - 1] = again
    T.syncwarp()
    return count


#: name -> (algorithm, kernels, hunt keywords): how a hunt finds each, on random inputs.  Whole-algorithm runs
#: switch threads thousands of times under random schedules; PCT's few priority changes keep the failures
#: it finds near their fewest preemptions, which makes shrinking quick.
MUTANTS = {
    "suitor_cas_to_exchange": ("suitor", {"propose": propose}, {"options": {"layout": "thread"}}),
    "suitor_wrong_shuffle_lane": ("suitor", {"store_unsuccessful": store_unsuccessful}, {}),
    "mw_cas_to_exchange": ("mw-gpu", {"propose_to": propose_to}, {}),
    "bsuitor_atomic_to_plain": ("bsuitor", {"offer_under_lock": offer_under_lock_plain_count},
                                {"races": "raise", "options": {"b": 2}, "policy": "pct", "depth": 2}),
    "bsuitor_lock_released_early": ("bsuitor", {"b_suitor_round": b_suitor_round_early_unlock}, {}),
    "roma_barrier_removed": ("roma", {"block_best_swap": block_best_swap}, {"races": "raise"}),
    "gpr_repair_removed": ("gpr", {"fix_columns": fix_columns_skipped}, {"start": "empty"}),
    "apfb_repair_removed": ("apfb", {"fix_rows": fix_rows_skipped}, {"start": "empty"}),
}

#: The same mutants as mappings a dotted path names (``gpusim explore --kernels hunt_mutants.APFB_REPAIR``).
APFB_REPAIR = MUTANTS["apfb_repair_removed"][1]
BSUITOR_EARLY_UNLOCK = MUTANTS["bsuitor_lock_released_early"][1]
SUITOR_CAS_TO_EXCHANGE = MUTANTS["suitor_cas_to_exchange"][1]


# -- fence removed ---------------------------------------------------------------------------------------------


@device
def make_flip_visible_without_fence():
    """atomicFlip (seed 002, Alg. 7) without line 7's ``__threadfence()``: the locks may open before the flip's
    stores are visible, so the next thread to lock reads the old mates (found under ``memory="weak"``)."""
    return


ROMA_NO_FENCE = {"make_flip_visible": make_flip_visible_without_fence}
