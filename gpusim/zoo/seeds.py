"""The seed papers' entries of the zoo: each paper's race with its repair removed, on the paper's own kernel.

The set-up runs the real algorithm once, sequentially, up to the launch the race lives in and keeps
its inputs (:func:`captured_launch`); each explored schedule replays that one launch (the real kernel, or
its broken twin: the same kernel with one ``@device`` step replaced) on copies, so ten thousand
schedules take seconds.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable

import numpy as np

import gpusim.algorithms.bipartite as bipartite
import gpusim.algorithms.stable as stable
from gpusim.algorithms.stable import gale_shapley
from gpusim.algorithms.weighted import suitor
from gpusim.algorithms.weighted.kernels_roma import roma_thread_phase
from gpusim.algorithms.weighted.reference_greedy import greedy
from gpusim.explore.scenario import sim_supports
from gpusim.language.kernels import Kernel
from gpusim.language.variants import with_devices
from gpusim.runtime.device import Device
from gpusim.types.complete_graphs import uniform
from gpusim.types.graphs import BipartiteGraph, WeightedGraph
from gpusim.types.preferences import PreferenceInstance

from .bipartite_twins import alternate_without_predecessor_check, push_active_without_ia_guard
from .entry import add_entry
from .roma_twins import (
    atomic_flip_max_first,
    atomic_flip_own_vertex_first,
    atomic_flip_without_fence,
    atomic_flip_without_mates_check,
)
from .stable_twins import mcvitie_wilson_no_cas
from .weighted_twins import suitor_without_cas

__all__ = ["captured_launch"]


class _Captured(Exception):
    pass


class _Recorder(Device):
    """A sequential simulator that stops at the first launch of ``target`` and keeps its arguments."""

    def __init__(self, target: Kernel):
        super().__init__("sim", policy="sequential", trace=False)
        self.target = target
        self.captured: tuple | None = None

    def launch(self, kernel, grid, block, args=()):
        if kernel is self.target:
            host = tuple(self.to_host(a) if self._impl.is_device_array(a) else a for a in args)
            self.captured = (grid, block, host)
            raise _Captured
        return super().launch(kernel, grid, block, args)


def captured_launch(target: Kernel, algorithm: Callable[[Device], object]) -> tuple[int, int, tuple]:
    """``(grid, block, host arguments)`` of ``target``'s first launch when ``algorithm(device)`` runs sequentially."""
    recorder = _Recorder(target)
    with contextlib.suppress(_Captured):
        algorithm(recorder)
    if recorder.captured is None:
        raise RuntimeError(f"{target.name} was never launched")
    return recorder.captured


def _to_device(dev: Device, host: tuple) -> list:
    return [dev.array(a) if isinstance(a, np.ndarray) else a for a in host]


# -- Deveci et al. (Euro-Par 2013), Alg. 3: ALTERNATE without the predecessor check
# ------------------------------------------

_FIGURE_1 = BipartiteGraph.from_edges([0, 1, 1, 2], [0, 0, 1, 1])
_FIGURE_1_MATCHING = (np.array([-1, 1, -1], np.int32), np.array([-1, 1], np.int32))


@functools.cache
def _alternate_state():
    return captured_launch(bipartite.alternate, lambda dev: bipartite.apfb(
        _FIGURE_1, device=dev, initial=_FIGURE_1_MATCHING, bfs="plain", layout="mt"))


def _alternate(variant: dict):
    def run(dev: Device) -> str | None:
        grid, block, host = _alternate_state()
        args = _to_device(dev, host)
        dev.launch(with_devices(bipartite.alternate, variant), grid, block, args)
        cmatch, rmatch = args[0], args[1]
        nr, nc = _FIGURE_1.n_rows, _FIGURE_1.n_cols
        dev.launch(bipartite.fix_rows, 1, 32, (cmatch, rmatch, nr))
        dev.launch(bipartite.fix_columns, 1, 32, (cmatch, rmatch, nc))
        r, c = dev.to_host(rmatch)[:nr], dev.to_host(cmatch)[:nc]
        bad = [row for row in range(nr) if r[row] >= 0 and c[r[row]] != row]
        return f"rows {bad} are matched to columns not matched back" if bad else None
    return run


add_entry(
    "alternate_no_predecessor_check", _alternate(alternate_without_predecessor_check), _alternate({}),
    threads=32, options={"max_steps": 20_000},
    source="Deveci et al. (Euro-Par 2013), Alg. 3 ALTERNATE line 8 and Fig. 1",
    wrong="two augmenting paths through one column re-match it in turn and chase each other forever",
    fix="line 8: stop at a column whose matched row's predecessor is that column (another path took it)",
)


# -- Deveci et al. (ICPP 2013), Alg. 9: PUSHKRNL without the iA guard
# ---------------------------------------------------

_ONE_ROW_TWO_COLUMNS = BipartiteGraph.from_edges([0, 0], [0, 1])


@functools.cache
def _push_state():
    return captured_launch(bipartite.push_active, lambda dev: bipartite.gpr(
        _ONE_ROW_TWO_COLUMNS, device=dev, initial="empty"))


def _push(variant: dict):
    def run(dev: Device) -> str | None:
        grid, block, host = _push_state()
        args = _to_device(dev, host)
        (_, _, rmatch, cmatch, _, _, loop, a_c, a_p, i_a, n_active, _, _, _) = args
        dev.launch(with_devices(bipartite.push_active, variant), grid, block, args)
        flag = dev.zeros(1, np.int32)  # the next loop's INITKRNL, with the lists swapped as Alg. 7 does
        dev.launch(bipartite.init_active, grid, block, (cmatch, rmatch, loop + 1, a_p, a_c, i_a, n_active, flag, 0))
        listed = dev.to_host(a_p)[:n_active]
        listed = listed[listed != -1]
        values, counts = np.unique(listed, return_counts=True)
        twice = values[counts > 1].tolist()
        return f"the active list holds column(s) {twice} twice: two threads would push one column" if twice else None
    return run


add_entry(
    "pushkrnl_no_ia_guard", _push(push_active_without_ia_guard), _push({}), threads=32,
    source="Deveci et al. (ICPP 2013), Alg. 9 G-PR-PUSHKRNL line 13 (the iA guard)",
    wrong="a column pushes to a row whose mate is active in the same loop; after INITKRNL's roll-back the "
          "mate is listed twice",
    fix="line 13: refuse a row whose mate u has iA(u) = loop",
)


# -- Hovland (MSc thesis 2020), Alg. 7: atomicFlip's lock order and mates check
# ---------------------------------------------


def _roma_phase(variant: dict, n: int, seed: int):
    w = uniform(n, seed)
    flat = np.ascontiguousarray(w, np.float64).ravel()
    start = np.array([i + 1 if i % 2 == 0 else i - 1 for i in range(n)], np.int32)

    def positive_swap(mate: np.ndarray) -> bool:  # brute force over pairs of matching edges
        edges = [(u, int(mate[u])) for u in range(n) if u < mate[u]]
        return any(max(w[u, x] + w[v, y], w[u, y] + w[v, x]) > w[u, v] + w[x, y] + 1e-12
                   for i, (u, v) in enumerate(edges) for (x, y) in edges[i + 1:])

    def run(dev: Device) -> str | None:
        mate, locks = dev.array(start), dev.full(n, -1, np.int32)
        flips = dev.zeros(1, np.int32)
        dev.launch(with_devices(roma_thread_phase, variant), 1, n, (dev.array(flat), mate, locks, n, 0.0, flips))
        m = dev.to_host(mate)
        if not (np.array_equal(m[m], np.arange(n)) and (m != np.arange(n)).all()):
            return f"the matching is no longer perfect: mate = {m.tolist()}"
        if int(dev.to_host(flips)[0]) == 0 and positive_swap(start):
            return "the phase flipped nothing though a swap of positive gain exists (Lemma 4.1.1)"
        return None
    return run


_ALG7 = "Hovland (MSc thesis 2020), Alg. 6 (ROMA, thread per edge) with atomicFlip, Alg. 7"
add_entry(
    "atomic_flip_own_vertex_first", _roma_phase(atomic_flip_own_vertex_first, 4, 0),
    _roma_phase({}, 4, 0), threads=4,
    source=_ALG7 + ", and the example before Lemma 4.1.1",
    wrong="each thread locks its own vertex first; two threads that want each other's edge each hold one lock, "
          "both give up, and the phase flips nothing",
    fix="lock in one global order (increasing id), so some thread always gets every lock it needs",
)
add_entry(
    "atomic_flip_max_first", _roma_phase(atomic_flip_max_first, 6, 0), _roma_phase({}, 6, 0),
    threads=6, expect_found=False,
    source=_ALG7 + " and Lemma 4.1.1",
    wrong="none: one might expect locking max(u, x) first to break progress, but it is still one global lock "
          "order, and Lemma 4.1.1's argument is symmetric (a documented non-bug: expected not found)",
    fix="nothing to fix; min-first is the paper's choice",
)
add_entry(
    "atomic_flip_no_mates_check", _roma_phase(atomic_flip_without_mates_check, 6, 0),
    _roma_phase({}, 6, 0), threads=6,
    source=_ALG7 + ", the check that M[u] and M[x] are unchanged",
    wrong="a thread flips with the mates it read before locking; another flip changed them meanwhile, and the "
          "matching stops being perfect",
    fix="after taking both locks, check that the two edges are still matched as read; else give up",
)


# -- Naim et al. (HiPC 2015) Alg. 3: Suitor without the CAS ------------------------------------------------------

_STAR = WeightedGraph.from_edges([0, 0, 0], [1, 2, 3], [1.0, 2.0, 3.0])


@functools.cache
def _greedy_star() -> list[int]:
    return greedy(_STAR).mate.tolist()


def _suitor(variant: dict):
    def run(dev: Device) -> str | None:
        mate = suitor(_STAR, device=dev, layout="thread", kernels=variant).mate.tolist()
        expected = _greedy_star()
        return None if mate == expected else f"mate = {mate}, but the greedy matching is {expected}"
    return run


add_entry(
    "suitor_no_cas", _suitor(suitor_without_cas), _suitor({}), threads=32,
    source="Naim et al. (HiPC 2015), Alg. 3 (Suitor) and its GPU version's CAS on the suitor word",
    wrong="two proposals to one vertex read the same old suitor; the weaker overwrites the stronger, which is lost",
    fix="propose with a compare-and-swap on the (weight, id) word; retry when it changed",
)


# -- Manne et al. (CSC 2016) §4: McVitie-Wilson without the CAS ------------------------------------------------

#: Four men with the same two choices, and women who rank them in opposite orders.
_FOUR = PreferenceInstance([[0, 1], [0, 1], [0, 1], [0, 1]], [[3, 2, 1, 0], [0, 1, 2, 3]])


def _marriages(variant: dict):
    def run(dev: Device) -> str | None:
        expected = gale_shapley(_FOUR).wife.tolist()
        wife = stable.stable_marriage(_FOUR, "mw-gpu", device=dev, kernels=variant).wife.tolist()
        return None if wife == expected else f"wife = {wife}, but Gale-Shapley gives {expected}"
    return run


add_entry(
    "mcvitie_wilson_no_cas", _marriages(mcvitie_wilson_no_cas), _marriages({}), threads=4,
    source="Manne et al. (CSC 2016) §4: the CUDA McVitie-Wilson, a thread per man, CAS on the woman's suitor",
    wrong="two men read the same suitor and both store themselves; the first is overwritten without being told, "
          "nobody proposes for him again, and the result has a blocking pair",
    fix="replace the suitor with a compare-and-swap; when it fails, read the new suitor and compare again",
)


if sim_supports("memory", "weak"):
    add_entry(
        "atomic_flip_no_fence", _roma_phase(atomic_flip_without_fence, 6, 0),
        _roma_phase({}, 6, 0), threads=6, options={"memory": "weak"}, needs=("weak",),
        policy="pct",
            source=_ALG7 + " (the __threadfence before the unlock)",
        wrong="in weak memory the mate stores become visible after the locks are released; the next thread's "
              "mates check reads stale mates",
        fix="threadfence after the four mate stores, before unlocking",
    )
