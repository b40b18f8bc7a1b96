"""The exercises, from "map" to "a lock-free matching step", each with an independent reference.

The references are plain Python over the inputs (no kernel, no simulator), so a kernel is judged
against what the statement asks, never against another kernel.  Sizes are small on purpose: a
handful of threads gives the checker room for many schedules in a second.

>>> [ex.slug for ex in EXERCISES][:4]
['map', 'zip', 'guard', 'stride']
>>> get_exercise(5).title
'Histogram with atomics'
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.errors import InvalidArgument

from .exercise import Exercise

__all__ = ["EXERCISES", "get_exercise"]

_I32 = np.int32
_INT_MIN = -(2**31)


def _a(*values: int) -> np.ndarray:
    return np.array(values, _I32)


def _compact(given: dict[str, Any]) -> dict[str, list]:
    kept = [int(v) for v in given["values"] if v > 0]
    return {"out": kept + [0] * (len(given["values"]) - len(kept)), "count": [len(kept)]}


def _proposals(given: dict[str, Any]) -> dict[str, list]:
    best = [-1] * len(given["offer"])
    for u, (v, w) in enumerate(zip(given["target"].tolist(), given["weight"].tolist(), strict=True)):
        if v >= 0:
            best[v] = max(best[v], w * 8 + u)
    return {"offer": best}


def _matching(given: dict[str, Any], got: dict[str, list]) -> str | None:
    """A valid matching of the given edges, with at least one pair."""
    edges = {frozenset(e) for e in zip(given["eu"].tolist(), given["ev"].tolist(), strict=True)}
    mate = got["mate"]
    shown = f"edges {sorted(tuple(sorted(e)) for e in edges)}"
    for u, v in enumerate(mate):
        if v == -1:
            continue
        if not 0 <= v < len(mate) or mate[v] != u:
            return f"wrong result: with {shown} the kernel left mate={mate}: mate[{u}] = {v} but mate[{v}] != {u}"
        if frozenset((u, v)) not in edges:
            return f"wrong result: with {shown} the kernel left mate={mate}: ({u}, {v}) is not an edge"
    if all(v == -1 for v in mate):
        return f"wrong result: with {shown} the kernel left mate={mate}: no vertex was matched"
    return None


EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        1, "map", "Map", "add_ten",
        "Thread i writes a[i] + 10 to out[i] (4 threads, 4 elements).",
        "One line: the thread's index is T.gtid().",
        grid=1, block=4, inputs=lambda: {"a": _a(3, 1, 4, 1), "out": np.zeros(4, _I32)}, outputs=("out",),
        expected=lambda g: {"out": [int(x) + 10 for x in g["a"]]}),
    Exercise(
        2, "zip", "Zip", "add_pairs",
        "Thread i writes a[i] + b[i] to out[i] (4 threads).",
        "Like map, with two inputs read at the same index.",
        grid=1, block=4, inputs=lambda: {"a": _a(1, 2, 3, 4), "b": _a(10, 20, 30, 40), "out": np.zeros(4, _I32)},
        outputs=("out",), expected=lambda g: {"out": (g["a"] + g["b"]).tolist()}),
    Exercise(
        3, "guard", "Guard", "square_first_n",
        "8 threads, n = 5 elements: thread i < n writes a[i] * a[i] to out[i]; the other threads touch nothing "
        "(the arrays have exactly n elements).",
        "if i < n: ... — a thread past the end must not even read.",
        grid=1, block=8, inputs=lambda: {"a": _a(1, 2, 3, 4, 5), "out": np.zeros(5, _I32), "n": 5},
        outputs=("out",), expected=lambda g: {"out": (g["a"] * g["a"]).tolist()}),
    Exercise(
        4, "stride", "A loop over a grid stride", "double_all",
        "4 threads, n = 10 elements: out[j] = 2 * a[j] for every j; thread i takes j = i, i + 4, i + 8, ...",
        "while j < n: ...; j += T.num_threads()",
        grid=1, block=4, inputs=lambda: {"a": np.arange(1, 11, dtype=_I32), "out": np.zeros(10, _I32), "n": 10},
        outputs=("out",), expected=lambda g: {"out": (2 * g["a"]).tolist()}),
    Exercise(
        5, "histogram", "Histogram with atomics", "histogram",
        "8 threads, each holding values[i] in 0..3: count them into bins (bins starts at 0).",
        "Several threads add to the same bin: bins[v] += 1 is a load and a store another thread can come "
        "between. T.atomic_add(bins, v, 1) is one indivisible step.",
        grid=1, block=8, inputs=lambda: {"values": _a(0, 1, 1, 2, 3, 3, 3, 0), "bins": np.zeros(4, _I32)},
        outputs=("bins",), expected=lambda g: {"bins": np.bincount(g["values"], minlength=4).tolist()}),
    Exercise(
        6, "cas_max", "Maximum with atomic_cas", "max_by_cas",
        "6 threads: best[0] (which starts at -2**31) must end as the largest of values. Use T.atomic_cas "
        "(not T.atomic_max: this exercise builds it).",
        "Read best[0] with T.atomic_load; while your value is larger, try T.atomic_cas(best, 0, seen, mine): "
        "it returns what it found, so a failed attempt hands you the newer value to compare with.",
        grid=1, block=6, inputs=lambda: {"values": _a(5, -3, 17, 2, 17, 9), "best": np.full(1, _INT_MIN, _I32)},
        outputs=("best",), expected=lambda g: {"best": [int(g["values"].max())]}, forbidden=("atomic_max",)),
    Exercise(
        7, "block_sum", "Block reduction in shared memory", "block_sum",
        "8 threads of one block: total[0] = sum of values, by a tree reduction in a shared array (no atomics).",
        "Each level halves the stride; a thread reads what another wrote at the level before, so every level "
        "ends at a T.syncthreads() that all threads reach (outside the if).",
        grid=1, block=8, inputs=lambda: {"values": _a(3, 1, 4, 1, 5, 9, 2, 6), "total": np.zeros(1, _I32)},
        outputs=("total",), expected=lambda g: {"total": [int(g["values"].sum())]},
        forbidden=("atomic_add",)),
    Exercise(
        8, "warp_sum", "Warp reduction with shfl_down", "warp_sum",
        "One warp of 32 lanes: total[0] = sum of values, with T.shfl_down only (no shared memory, no atomics).",
        "v += T.shfl_down(v, offset) for offset = 16, 8, 4, 2, 1; every lane takes part; lane 0 ends with the sum.",
        grid=1, block=32, inputs=lambda: {"values": np.arange(1, 33, dtype=_I32), "total": np.zeros(1, _I32)},
        outputs=("total",), expected=lambda g: {"total": [int(g["values"].sum())]},
        forbidden=("atomic_add", "shared_array"), schedules=20),
    Exercise(
        9, "compact", "Compaction with ballot", "compact_positive",
        "One warp of 32 lanes: copy the positive values, in order, to the front of out, and write how many "
        "there were to count[0]. No atomics: T.ballot tells each lane where its value goes.",
        "mask = T.i64(T.ballot(keep)) has bit j set for every lane j that keeps its value; a lane's place is the "
        "number of bits set below its own (count them in a loop over mask & ((1 << lane) - 1)).",
        grid=1, block=32,
        inputs=lambda: {"values": np.array([(7 * i) % 11 - 4 for i in range(32)], _I32),
                        "out": np.zeros(32, _I32), "count": np.zeros(1, _I32)},
        outputs=("out", "count"), expected=_compact, forbidden=("atomic_add",), schedules=20),
    Exercise(
        10, "spin_lock", "A spin lock", "locked_add",
        "4 threads: each adds values[i] to total[0] and 1 to count[0], with plain loads and stores, inside a "
        "critical section guarded by lock[0] (0 = free, 1 = taken). No atomic_add.",
        "Take the lock with T.atomic_cas(lock, 0, 0, 1) == 0, release it with T.atomic_exch(lock, 0, 0). Put "
        "the critical section inside the loop, under the successful CAS (a warp-safe lock), and fence before "
        "the release.",
        grid=1, block=4,
        inputs=lambda: {"values": _a(4, 8, 15, 16), "lock": np.zeros(1, _I32), "total": np.zeros(1, _I32),
                        "count": np.zeros(1, _I32)},
        outputs=("total", "count"), expected=lambda g: {"total": [int(g["values"].sum())], "count": [4]},
        forbidden=("atomic_add",)),
    Exercise(
        11, "publish", "Publish with a fence", "publish",
        "Thread 0 writes data[0] = 42 and data[1] = 7, then raises flag[0] = 1; thread 1 waits for the flag, "
        "then copies data into seen. Weak memory: a store may become visible late, unless a fence orders it.",
        "Producer: stores, T.threadfence(), T.atomic_exch(flag, 0, 1). Consumer: spin on T.atomic_load(flag, 0), "
        "then T.threadfence() before reading data.",
        grid=1, block=2,
        inputs=lambda: {"data": np.zeros(2, _I32), "flag": np.zeros(1, _I32), "seen": np.full(2, -1, _I32)},
        outputs=("seen",), expected=lambda g: {"seen": [42, 7]}, options={"memory": "weak"}, schedules=60),
    Exercise(
        12, "proposals", "A Suitor-style proposal step", "propose",
        "6 vertices, one thread each: vertex u proposes to target[u] (-1: to nobody) with weight[u]. offer[v] "
        "(starting at -1) must end as the best proposal v received, packed as weight * 8 + proposer, so a tie "
        "goes to the larger proposer (Manne and Halappanavar's Suitor keeps the heaviest suitor this way).",
        "Packing weight and proposer into one word makes 'keep the best (weight, proposer)' a single atomic: "
        "T.atomic_max(offer, v, weight * 8 + u).",
        grid=1, block=6,
        inputs=lambda: {"target": _a(1, 2, 1, 1, -1, 2), "weight": _a(5, 3, 5, 2, 9, 7),
                        "offer": np.full(6, -1, _I32)},
        outputs=("offer",), expected=_proposals),
    Exercise(
        13, "matching_step", "A lock-free matching step", "match_edges",
        "One thread per edge (eu[e], ev[e]); mate[] starts at -1 (free). Each thread tries to match its two "
        "endpoints to each other: in the end mate must be a valid matching of these edges (mate[u] = v exactly "
        "when mate[v] = u, every pair an edge) with at least one pair. No locks.",
        "Claim u with T.atomic_cas(mate, u, -1, v); if that worked, claim v the same way; if v was taken, give u "
        "back with T.atomic_exch(mate, u, -1). A plain 'if both free: write both' lets two threads claim one "
        "vertex.",
        grid=1, block=5,
        inputs=lambda: {"eu": _a(0, 1, 2, 0, 3), "ev": _a(1, 2, 3, 3, 4), "mate": np.full(5, -1, _I32)},
        outputs=("mate",), judge=_matching),
)


def get_exercise(number: int) -> Exercise:
    """Exercise ``number`` (1, 2, ...)."""
    if isinstance(number, bool) or not isinstance(number, int):
        raise InvalidArgument(f"an exercise number must be an integer, got {number!r}")
    for ex in EXERCISES:
        if ex.number == number:
            return ex
    raise InvalidArgument(f"there is no exercise {number}; they are numbered 1 to {len(EXERCISES)} "
                          f"('gpusim exercise list')")
