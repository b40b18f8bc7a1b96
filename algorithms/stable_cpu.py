"""Sequential stable marriage (seed 003, Paper IV §2): Gale-Shapley with a queue, McVitie-Wilson with a stack.

Both run on the mutual lists of :class:`~gpusim.types.preferences.PreferenceInstance`, where the rank
a woman gives a man is stored beside him in his list, and both skip proposals that are doomed:
a man proposes only to a woman who would accept him now (Alg. 1 lines 4–6).  Woman ``w`` may
hold up to ``b(w)`` men (the capacity generalisation of Paper IV §2.1; 1 for a marriage).  Each
slot of a woman holds an offer packed ``rank << 32 | man`` (smaller is better) or ``EMPTY``.
Compiled with ``numba.njit``.

Example
-------
>>> from gpusim.types.preferences import PreferenceInstance
>>> inst = PreferenceInstance([[0, 1], [0, 1]], [[1, 0], [0, 1]])
>>> gale_shapley(inst).wife.tolist(), mcvitie_wilson(inst).wife.tolist()
([1, 0], [1, 0])
"""

from __future__ import annotations

import time

import numba
import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.types.preferences import PreferenceInstance

from .stable_result import StableMatching

__all__ = ["EMPTY", "LOW", "capacity_array", "gale_shapley", "mcvitie_wilson"]

#: A free slot: larger than every packed offer ``rank << 32 | man``.
EMPTY = np.iinfo(np.int64).max
#: The man half of a packed offer.
LOW = 0xFFFFFFFF


def capacity_array(instance: PreferenceInstance, capacities) -> np.ndarray:
    """``capacities`` checked and as one int32 per woman: ``None`` means 1 each, an int the same for all.

    >>> capacity_array(PreferenceInstance([], [[], []]), 2).tolist()
    [2, 2]
    """
    n = instance.n_women
    if capacities is None:
        return np.ones(n, np.int32)
    if isinstance(capacities, (bool, np.bool_)):
        raise InvalidArgumentType(f"capacities must be an int or one int per woman, got {capacities!r}")
    if isinstance(capacities, (int, np.integer)):
        capacities = np.full(n, int(capacities), np.int64)
    arr = np.asarray(capacities)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise InvalidArgumentType(f"capacities must be an int or a 1-D integer array, got {arr.dtype} {arr.shape}")
    if arr.shape[0] != n:
        raise InvalidArgument(f"capacities has {arr.shape[0]} entries but there are {n} women")
    bad = np.flatnonzero((arr < 1) | (arr > 2**20))
    if bad.size:
        raise InvalidArgument(f"capacities[{int(bad[0])}]={int(arr[bad[0]])}: each woman takes 1 to 2**20 men")
    return arr.astype(np.int32)


def slot_offsets(capacities: np.ndarray) -> np.ndarray:
    """``slot_ptr``: woman ``w``'s slots are ``slot_ptr[w]:slot_ptr[w + 1]`` (int32)."""
    ptr = np.zeros(capacities.shape[0] + 1, np.int64)
    np.cumsum(capacities, out=ptr[1:])
    if ptr[-1] > np.iinfo(np.int32).max:
        raise InvalidArgument(f"{int(ptr[-1])} places in total exceed int32")
    return ptr.astype(np.int32)


def wives_from_slots(held: np.ndarray, slot_ptr: np.ndarray, n_men: int) -> np.ndarray:
    """The woman of each man, read from the slots (-1 for single men)."""
    owner = np.repeat(np.arange(slot_ptr.shape[0] - 1, dtype=np.int32), np.diff(slot_ptr))
    taken = np.flatnonzero(held != EMPTY)
    wife = np.full(n_men, -1, np.int32)
    wife[(held[taken] & LOW).astype(np.int64)] = owner[taken]
    return wife


@numba.njit(cache=False)
def _worst_slot(held, slot_ptr, w):  # pragma: no cover - compiled
    worst = slot_ptr[w]
    for s in range(slot_ptr[w] + 1, slot_ptr[w + 1]):
        if held[s] > held[worst]:
            worst = s
    return worst


@numba.njit(cache=False)
def _gale_shapley_type(men_ptr, men_list, men_rank, slot_ptr, held, man_next, lifo):  # pragma: no cover
    """Alg. 1 of seed 003 Paper IV with a queue (``lifo=False``) or a stack (McVitie-Wilson)."""
    n = men_ptr.shape[0] - 1
    waiting = np.empty(n + 1, np.int64)  # a circular queue, or a stack; each man waits at most once
    head = 0
    count = n
    for i in range(n):
        waiting[i] = n - 1 - i if lifo else i
    while count > 0:
        if lifo:
            u = waiting[count - 1]
        else:
            u = waiting[head]
            head = head + 1 if head < n else 0
        count -= 1
        j = man_next[u]
        s = -1
        while j < men_ptr[u + 1]:  # nextCandidate, skipping doomed proposals (lines 4-6)
            s = _worst_slot(held, slot_ptr, men_list[j])
            if (np.int64(men_rank[j]) << 32 | u) < held[s]:
                break
            j += 1
        man_next[u] = j + 1 if j < men_ptr[u + 1] else j
        if j == men_ptr[u + 1]:
            continue  # u stays single
        if held[s] != EMPTY:  # lines 7-8: the displaced suitor waits again
            if lifo:
                waiting[count] = held[s] & LOW
            else:
                waiting[(head + count) % (n + 1)] = held[s] & LOW
            count += 1
        held[s] = np.int64(men_rank[j]) << 32 | u  # line 9


def _run_sequential(instance: PreferenceInstance, capacities, lifo: bool, name: str) -> StableMatching:
    if not isinstance(instance, PreferenceInstance):
        raise InvalidArgumentType(f"instance must be a PreferenceInstance, got {type(instance).__name__}")
    b = capacity_array(instance, capacities)
    slot_ptr = slot_offsets(b)
    men_ptr = instance.men_ptr
    held = np.full(int(slot_ptr[-1]), EMPTY, np.int64)
    man_next = men_ptr[:-1].copy()
    start = time.perf_counter()
    _gale_shapley_type(men_ptr, instance.men_list, instance.men_rank_by_woman, slot_ptr, held, man_next, lifo)
    seconds = time.perf_counter() - start
    wife = wives_from_slots(held, slot_ptr, instance.n_men)
    stats = {"seconds": {name: seconds}, "proposals": int((man_next - men_ptr[:-1]).sum())}
    return StableMatching(instance, wife, name, "cpu", stats, b)


def gale_shapley(instance: PreferenceInstance, capacities=None) -> StableMatching:
    """The man-optimal stable matching by Gale-Shapley with a queue (seed 003, Paper IV, Alg. 1).

    Parameters
    ----------
    instance:
        The preference lists (SM or SMI).
    capacities:
        ``b(w)``: how many men each woman may take; ``None`` (1 each), an int, or one per woman.

    Returns
    -------
    StableMatching
        ``stats["proposals"]``: women considered (doomed ones included), as the paper counts.

    Notes
    -----
    O(n + proposals · max b): each man waits in the queue at most once at a time; a woman's
    worst held offer is found by scanning her ``b(w)`` slots.

    Examples
    --------
    >>> from gpusim.types.preferences import PreferenceInstance
    >>> inst = PreferenceInstance([[0, 1], [0]], [[1, 0], [0]])
    >>> gale_shapley(inst).wife.tolist()
    [1, 0]
    >>> gale_shapley(inst, capacities=2).wife.tolist()
    [0, 0]
    >>> gale_shapley(PreferenceInstance([], [])).wife.tolist()
    []
    """
    return _run_sequential(instance, capacities, False, "gs")


def mcvitie_wilson(instance: PreferenceInstance, capacities=None) -> StableMatching:
    """The man-optimal stable matching by McVitie-Wilson: Alg. 1 with a stack for the queue (seed 003, Paper IV §2).

    A displaced man proposes again at once, as in McVitie and Wilson's recursion.  Same result
    as :func:`gale_shapley`; parameters likewise.

    Examples
    --------
    >>> from gpusim.types.preferences import PreferenceInstance
    >>> mcvitie_wilson(PreferenceInstance([[0, 1], [0]], [[1, 0], [0]])).wife.tolist()
    [1, 0]
    >>> mcvitie_wilson(PreferenceInstance([[]], [])).wife.tolist()
    [-1]
    """
    return _run_sequential(instance, capacities, True, "mw")
