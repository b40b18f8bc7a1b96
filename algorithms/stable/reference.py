"""Sequential stable marriage (Manne et al., CSC 2016 §2): Gale-Shapley with a queue, McVitie-Wilson with a stack.

Both run on the mutual lists of :class:`~gpusim.types.preferences.PreferenceInstance`, where the rank
a woman gives a man is stored beside him in his list, and both skip proposals that are doomed:
a man proposes only to a woman who would accept him now (Alg. 1 lines 4–6).  Woman ``w`` may
hold up to ``b(w)`` men (the capacity generalisation of Manne et al. (CSC 2016) §2.1; 1 for a marriage).  Each
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

from gpusim.errors import InvalidArgumentType
from gpusim.runtime.registry import register
from gpusim.types.preferences import PreferenceInstance

from .result import StableMatching
from .slots import EMPTY, LOW, capacity_array, slot_offsets, wives_from_slots

__all__ = ["gale_shapley", "gs", "mcvitie_wilson", "mw"]


@numba.njit(cache=True)
def _worst_slot(held, slot_ptr, w):  # pragma: no cover - compiled
    worst = slot_ptr[w]
    for s in range(slot_ptr[w] + 1, slot_ptr[w + 1]):
        if held[s] > held[worst]:
            worst = s
    return worst


@numba.njit(cache=True)
def _gale_shapley_type(men_ptr, men_list, men_rank, slot_ptr, held, man_next, lifo, empty, low):  # pragma: no cover
    """Alg. 1 of Manne et al. (CSC 2016) with a queue (``lifo=False``) or a stack (McVitie-Wilson).

    ``empty`` and ``low`` are :data:`~.slots.EMPTY` and :data:`~.slots.LOW`, passed in: a compiled function cached
    on disk reads only its own module's globals (numba's cache is invalidated by its own file only)."""
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
        if held[s] != empty:  # lines 7-8: the displaced suitor waits again
            if lifo:
                waiting[count] = held[s] & low
            else:
                waiting[(head + count) % (n + 1)] = held[s] & low
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
    _gale_shapley_type(men_ptr, instance.men_list, instance.men_rank_by_woman, slot_ptr, held, man_next, lifo,
                       EMPTY, LOW)
    seconds = time.perf_counter() - start
    wife = wives_from_slots(held, slot_ptr, instance.n_men)
    stats = {"seconds": {name: seconds}, "proposals": int((man_next - men_ptr[:-1]).sum())}
    return StableMatching(instance, wife, name, "cpu", stats, b)


def gale_shapley(instance: PreferenceInstance, capacities=None) -> StableMatching:
    """The man-optimal stable matching by Gale-Shapley with a queue (Manne et al., CSC 2016, Alg. 1).

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
    """The man-optimal stable matching by McVitie-Wilson: Alg. 1 with a stack for the queue (Manne et al., CSC 2016
    §2).

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


@register("stable", "gs", backends=("cpu",), title="Gale-Shapley with a queue (sequential)",
          paper="manne2016stable", where="Alg. 1", guarantees="man-optimal stable")
def gs(instance: PreferenceInstance, backend: str = "cpu", *, capacities=None, device=None, progress: bool = False,
       kernels=None) -> StableMatching:
    """:func:`gale_shapley` as a registered algorithm.

    ``device``, ``progress`` and ``kernels`` are accepted so that every stable algorithm takes the same
    options (the GPU ones run their sequential counterpart on ``cpu``); they are unused here.

    >>> from gpusim.types.preferences import PreferenceInstance
    >>> gs(PreferenceInstance([[0, 1], [0]], [[1, 0], [0]])).wife.tolist()
    [1, 0]
    """
    return gale_shapley(instance, capacities)


@register("stable", "mw", backends=("cpu",), title="McVitie-Wilson with a stack (sequential)",
          paper="manne2016stable", where="Alg. 1 with a stack (§2)", guarantees="man-optimal stable")
def mw(instance: PreferenceInstance, backend: str = "cpu", *, capacities=None, device=None, progress: bool = False,
       kernels=None) -> StableMatching:
    """:func:`mcvitie_wilson` as a registered algorithm; options as :func:`gs`.

    >>> from gpusim.types.preferences import PreferenceInstance
    >>> mw(PreferenceInstance([[0, 1], [0]], [[1, 0], [0]]), capacities=2).wife.tolist()
    [0, 0]
    """
    return mcvitie_wilson(instance, capacities)
