"""Stable marriage on GPUs (seed 003, Paper IV §4): McVitie-Wilson with CAS, Gale-Shapley in rounds.

Written once in ``T`` ([003]_).  Men propose down their mutual lists (the woman's rank of each man stored
beside her in his list, seed 003 Paper IV §2).  Woman ``w`` has ``b(w)`` slots
``held[slot_ptr[w]:slot_ptr[w + 1]]`` (``b(w) = 1`` for a marriage; more for the
hospitals/residents generalisation of §2.1), each holding an offer packed ``rank << 32 | man``
(smaller is better) or ``EMPTY``.  A proposal replaces the worst offer she holds by
compare-and-swap; offers held only ever get better, so a woman a man cannot beat now he can
never beat (the doomed proposals of Alg. 1 are skipped).  Every order of proposals gives the
man-optimal stable matching, so the result equals sequential Gale-Shapley's on every schedule.

References
----------
.. [003] M. Naim, "GPU algorithms for matching and clustering", PhD thesis, Bergen 2017,
   Paper IV: F. Manne, M. Naim, H. Lerring, M. Halappanavar, "On stable marriages and greedy
   matchings", CSC 2016 (seed 003).

Example
-------
>>> from gpusim.types.preferences import PreferenceInstance
>>> inst = PreferenceInstance([[0, 1], [0]], [[1, 0], [0]])
>>> stable_marriage(inst, "mw-gpu", backend="sim").wife.tolist()
[1, 0]
"""

from __future__ import annotations

import numpy as np

from gpusim import T, device, kernel
from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.runtime.device import Device, choose_backend
from gpusim.runtime.launcher import Launcher, fill
from gpusim.types.preferences import PreferenceInstance

from .stable_cpu import EMPTY, LOW, capacity_array, gale_shapley, mcvitie_wilson, slot_offsets, wives_from_slots
from .stable_result import StableMatching

__all__ = [
    "STABLE_ALGORITHMS", "gale_shapley_round", "mcvitie_wilson_gpu", "next_candidate", "propose_to",
    "stable_marriage",
]

#: Every stable marriage algorithm by its CLI name.
STABLE_ALGORITHMS = ("gs", "mw", "gs-rounds", "mw-gpu")


#: A man reads a woman's held proposal unlocked to skip hopeless proposals; the CAS that proposes
#: fails if it changed, and he reads again (seed 003, Paper IV §4).
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
    """McVitie-Wilson, a thread per man, CAS on each woman's suitor (seed 003, Paper IV §4, the CUDA version).

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
    """One round of Gale-Shapley (seed 003, Paper IV §2): every free man proposes until a woman holds him.

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


def _nonempty(host: np.ndarray) -> np.ndarray:
    return host if host.size else np.zeros(1, host.dtype)


def _run_gpu(instance: PreferenceInstance, b: np.ndarray, algorithm: str, dev: Device, progress: bool
             ) -> StableMatching:
    n_men = instance.n_men
    slot_ptr_host = slot_offsets(b)
    launch = Launcher(dev, progress=progress, description=f"{algorithm} rounds")
    with launch.phase("copy in"):
        men_ptr = dev.array(instance.men_ptr)
        men_list = dev.array(_nonempty(instance.men_list))
        men_rank = dev.array(_nonempty(instance.men_rank_by_woman))
        slot_ptr = dev.array(slot_ptr_host)
        # held[s]: the offer in slot s, rank << 32 | man (smaller is better); EMPTY when free.
        held = dev.full(max(int(slot_ptr_host[-1]), 1), EMPTY, np.int64)
        # man_next[m]: the next position of man m's list he will consider.
        man_next = dev.array(_nonempty(instance.men_ptr[:-1].copy()))
    block = 32 if dev.backend == "sim" else 256
    rounds = 0
    if n_men and algorithm == "mw-gpu":
        with launch.phase("proposals"):
            launch(mcvitie_wilson_gpu, Device.grid_for(n_men, block), block, men_ptr, men_list, men_rank, slot_ptr,
                   held, man_next, n_men, LOW, EMPTY)
        rounds = 1
    elif n_men:
        # free: the men proposing this round; rejected: those displaced in it (the next round's free men).
        free = dev.array(np.arange(n_men, dtype=np.int32))
        rejected = dev.zeros(n_men, np.int32)
        counter = dev.zeros(1, np.int32)
        n_free = n_men
        with launch.phase("proposals"):
            while n_free:
                rounds += 1
                launch(fill, 1, 32, counter, 0, 1)
                launch(gale_shapley_round, Device.grid_for(n_free, block), block, men_ptr, men_list, men_rank, slot_ptr,
                       held, man_next, free, n_free, rejected, counter, LOW, EMPTY)
                n_free = launch.flag(counter)
                free, rejected = rejected, free
                launch.tick(free=n_free)
    launch.close()
    with launch.phase("copy out"):
        held_host = dev.to_host(held)[: int(slot_ptr_host[-1])]
        next_host = dev.to_host(man_next)[:n_men]
    wife = wives_from_slots(held_host, slot_ptr_host, n_men)
    stats = {"rounds": rounds, "launches": dict(launch.launches), "seconds": dict(launch.seconds),
             "proposals": int((next_host.astype(np.int64) - instance.men_ptr[:-1]).sum())}
    return StableMatching(instance, wife, algorithm, dev.backend, stats, b)


def stable_marriage(instance: PreferenceInstance, algorithm: str = "mw-gpu", backend: str = "auto", *,
                    capacities=None, device: Device | None = None, progress: bool = False) -> StableMatching:
    """The man-optimal stable matching of ``instance`` by ``algorithm`` on ``backend``.

    Parameters
    ----------
    instance:
        Preference lists, complete (SM) or incomplete (SMI).
    algorithm:
        ``"gs"`` (Gale-Shapley with a queue, Alg. 1) and ``"mw"`` (McVitie-Wilson with a
        stack) run sequentially on ``cpu``; ``"mw-gpu"`` (a thread per man, CAS) and
        ``"gs-rounds"`` (a kernel per round) run on ``sim``, ``numba`` or ``cupy``, or with
        ``backend="cpu"`` as their sequential counterparts (``mw``, ``gs``).
    backend, device:
        Where to run (``device`` wins); ``"auto"`` as :func:`gpusim.runtime.device.choose_backend`.
    capacities:
        ``b(w)``, how many men each woman may take: ``None`` (1), an int, or one per woman.
    progress:
        A tqdm bar over the rounds of ``gs-rounds``.

    Returns
    -------
    StableMatching
        ``wife[m]``: man ``m``'s woman or -1; ``stats["chosen"]`` says which backend ran and why.

    Raises
    ------
    InvalidArgumentType
        ``instance`` not a :class:`PreferenceInstance`, ``device`` not a Device, bad ``capacities``.
    InvalidArgument
        An unknown algorithm or backend; a sequential algorithm asked to run on a GPU backend.

    Notes
    -----
    Threads write ``held`` only by ``atomic_cas`` (a woman never loses an offer to a race) and
    ``man_next[m]`` only while they hold man ``m`` (he is no woman's suitor then).  The
    plain reads of ``held`` in :func:`next_candidate` race with the CAS on purpose.

    Examples
    --------
    >>> from gpusim.types.preferences import PreferenceInstance
    >>> inst = PreferenceInstance([[0, 1], [0, 1], [1]], [[1, 0], [2, 0, 1]])
    >>> stable_marriage(inst, "gs-rounds", backend="sim").wife.tolist()
    [-1, 0, 1]
    >>> stable_marriage(inst, "mw-gpu", backend="sim", capacities=[1, 2]).wife.tolist()
    [1, 0, 1]
    >>> stable_marriage(PreferenceInstance([], []), "gs", backend="cpu").wife.tolist()
    []
    """
    if not isinstance(instance, PreferenceInstance):
        raise InvalidArgumentType(f"instance must be a PreferenceInstance, got {type(instance).__name__}")
    if algorithm not in STABLE_ALGORITHMS:
        raise InvalidArgument(f"algorithm={algorithm!r} is not one of {STABLE_ALGORITHMS}")
    if device is not None and not isinstance(device, Device):
        raise InvalidArgumentType(f"device must be a gpusim.Device, got {device!r}")
    b = capacity_array(instance, capacities)
    size = int(instance.men_list.size)
    if device is not None:
        chosen, reason = device.backend, "the device given"
    elif algorithm in ("gs", "mw"):
        if backend not in ("auto", "cpu"):
            choose_backend(backend, size)  # an unknown name gets the usual message
            raise InvalidArgument(f"{algorithm!r} is sequential: it runs on the cpu backend, not {backend!r}")
        chosen, reason = "cpu", "a sequential algorithm runs on cpu"
    else:
        chosen, reason = choose_backend(backend, size)
    if chosen == "cpu" or algorithm in ("gs", "mw"):
        run = gale_shapley if algorithm in ("gs", "gs-rounds") else mcvitie_wilson
        result = run(instance, b)
        result.algorithm = algorithm
    else:
        result = _run_gpu(instance, b, algorithm, device if device is not None else Device(chosen), progress)
    result.stats["chosen"] = reason
    return result
