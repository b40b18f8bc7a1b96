"""Lockstep warps: one path at a time per warp, reconvergence at the end of each statement, the
pre-Volta intra-warp spin-lock deadlock that independent thread scheduling does not have, and every kernel
of the project ending in lockstep with the answer it gives with independent warps."""

from __future__ import annotations

import importlib
import itertools
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np
import pytest
import sim_kernels as K
from scipy.sparse.csgraph import maximum_bipartite_matching

import gpusim
import gpusim.algorithms
import gpusim.algorithms.bipartite as bipartite
from gpusim import Device, T, device, kernel
from gpusim.algorithms.louvain import LouvainGraph, bucket_louvain, karate, louvain
from gpusim.algorithms.louvain.device_input import entry_problems
from gpusim.algorithms.louvain.kernels_scan import exclusive_scan
from gpusim.algorithms.louvain.variants import PAPER
from gpusim.algorithms.stable import gale_shapley, mw_gpu, stable_marriage
from gpusim.algorithms.weighted import SUITOR_VARIANTS, b_suitor, locally_dominant, roma, suitor
from gpusim.algorithms.weighted.driver_b_suitor_multi import b_suitor_multi
from gpusim.algorithms.weighted.reference_b_suitor import greedy_b_matching
from gpusim.algorithms.weighted.reference_greedy import greedy
from gpusim.algorithms.weighted.resident_matrix import matrix_problem
from gpusim.errors import Livelock
from gpusim.exercises import list_exercises
from gpusim.language.kernels import Kernel, registry
from gpusim.runtime.device_checks import (
    csr_problem,
    matched_count,
    matching_problem,
    smallest_offenders,
    weighted_problem,
)
from gpusim.runtime.device_preference_checks import preference_problem
from gpusim.runtime.resident_graphs import resident, to_device
from gpusim.teaching.bench import barrier_bound, memory_bound
from gpusim.teaching.demo import racy_count
from gpusim.types.complete_graphs import uniform
from gpusim.types.device_graphs import DeviceBipartiteGraph
from gpusim.types.device_preferences import DevicePreferenceInstance
from gpusim.types.generators import uniform_random
from gpusim.types.graphs import BipartiteGraph, WeightedGraph
from gpusim.types.preference_generators import easy_instance, hard_instance
from gpusim.zoo import ZOO


@kernel(signature="int32[:], int32[:]")
def spin_lock(lock, counter):
    while T.atomic_cas(lock, 0, 0, 1) != 0:
        pass
    counter[0] = counter[0] + 1
    T.atomic_exch(lock, 0, 0)


SPIN_LINE = spin_lock.lineno + 2  # the while


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("policy", ["random", "pct", "sequential"])
def test_a_warp_spinning_on_a_lock_one_lane_holds_livelocks_in_lockstep(policy, seed):
    dev = Device("sim", policy=policy, seed=seed, warps="lockstep", trace=False, livelock_steps=3_000)
    with pytest.raises(Livelock) as caught:
        dev.launch(spin_lock, grid=1, block=32, args=(dev.zeros(1), dev.zeros(1)))
    text = str(caught.value)
    assert "intra-warp livelock" in text and f"after the statement at test_lockstep.py:{SPIN_LINE}" in text
    waiting = text.split("lanes [", 1)[1].split("]", 1)[0]
    assert len(waiting.split(",")) == 1  # the one lane that holds the lock waits for the 31 spinning on it
    assert caught.value.token


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("policy", ["random", "pct", "sequential"])
def test_the_same_spin_lock_completes_with_independent_thread_scheduling(policy, seed):
    dev = Device("sim", policy=policy, seed=seed, trace=False)
    counter = dev.zeros(1)
    dev.launch(spin_lock, grid=1, block=32, args=(dev.zeros(1), counter))
    assert dev.to_host(counter)[0] == 32


def test_the_deadlock_is_found_through_a_device_helper_too():
    dev = Device("sim", seed=0, warps="lockstep", trace=False, livelock_steps=3_000)
    with pytest.raises(Livelock, match="intra-warp livelock"):
        dev.launch(K.locked_count, grid=1, block=32, args=(dev.zeros(1), dev.zeros(1), 32))


def test_one_lane_per_warp_taking_the_lock_is_fine_in_lockstep():
    dev = Device("sim", seed=0, warps="lockstep", trace=False)
    counter = dev.zeros(1)
    dev.launch(K.locked_count, grid=4, block=1, args=(dev.zeros(1), counter, 4))
    assert dev.to_host(counter)[0] == 4


@kernel(signature="int32[:], int32[:], int32[:]")
def two_sides(a, b, after):
    lane = T.lane_id()
    if lane < 16:
        a[lane] = 1
    else:
        b[lane] = 2
    after[lane] = 3


def store_order(warps: str, seed: int) -> list[str]:
    dev = Device("sim", seed=seed, warps=warps)
    run = dev.launch(two_sides, grid=1, block=32, args=(dev.zeros(32), dev.zeros(32), dev.zeros(32)))
    return [event.array for event in run.trace if event.op == "store"]


@pytest.mark.parametrize("seed", range(4))
def test_lockstep_runs_the_if_side_then_the_else_side_then_reconverges(seed):
    order = store_order("lockstep", seed)
    assert order == ["a"] * 16 + ["b"] * 16 + ["after"] * 32


def test_independent_lanes_interleave_both_sides():
    assert any(store_order("independent", seed) != ["a"] * 16 + ["b"] * 16 + ["after"] * 32 for seed in range(4))


@kernel(signature="int32[:], int32")
def loops_with_jumps(out, n):
    """for/while with continue, break and an early return inside divergent branches."""
    lane = T.lane_id()
    total = 0
    for k in range(lane % 5):
        if k == 1:
            continue
        total += k
    j = 0
    while j < 40:
        if j > lane:
            break
        j += 3
    if lane == 31:
        out[lane] = -1
        return
    out[lane] = total * 100 + j


@pytest.mark.parametrize("seed", range(3))
def test_break_continue_and_return_reconverge_and_compute_the_same_as_independent(seed):
    results = {}
    for warps in ("independent", "lockstep"):
        dev = Device("sim", seed=seed, warps=warps, trace=False)
        out = dev.zeros(32)
        dev.launch(loops_with_jumps, grid=1, block=32, args=(out, 32))
        results[warps] = dev.to_host(out).tolist()
    assert results["lockstep"] == results["independent"]
    assert results["lockstep"][31] == -1 and results["lockstep"][9] == (0 + 2 + 3) * 100 + 12


@device
def position(keys, key):
    """An early return from inside a loop, the loop inside an inlined helper (the shape of Louvain's lookup)."""
    it = 0
    while it < 8:
        if keys[it] == key:
            return it
        it += 1
    return -1


@device
def guarded_position(keys, key):
    if key < 0:
        return -2  # these lanes leave at once; the others go on into position's loop
    return position(keys, key)


@kernel(signature="int32[:], int32[:]")
def early_return_then_shuffle(keys, out):
    lane = T.lane_id()
    out[lane] = T.shfl_xor(guarded_position(keys, lane % 10 - 1), 1)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("policy", ["random", "pct", "sequential"])
def test_a_helper_returning_early_reconverges_at_its_exit_before_a_shuffle(policy, seed):
    # every lane reaches the one shfl_xor: the lanes that returned early wait at the helper's exit (its immediate
    # post-dominator, as when inlined) for those still in the loop; they used to run on to the shuffle and deadlock
    dev = Device("sim", policy=policy, seed=seed, warps="lockstep", trace=False)
    out = dev.zeros(32)
    dev.launch(early_return_then_shuffle, grid=1, block=32, args=(dev.array(np.arange(8, dtype=np.int32)), out))
    found = [-2 if lane % 10 == 0 else lane % 10 - 1 if lane % 10 <= 8 else -1 for lane in range(32)]
    assert dev.to_host(out).tolist() == [found[lane ^ 1] for lane in range(32)]


@pytest.mark.parametrize("seed", range(3))
def test_warp_shuffles_after_a_divergent_loop_still_work_in_lockstep(seed):
    rng = np.random.default_rng(seed)
    degrees = rng.integers(0, 70, 3)
    ptr = np.concatenate([[0], np.cumsum(degrees)]).astype(np.int32)
    adj = rng.integers(0, 1000, max(1, ptr[-1])).astype(np.int32)
    dev = Device("sim", seed=seed, warps="lockstep", trace=False)
    out = dev.full(3, -7, np.int32)
    dev.launch(K.neighbour_max, grid=3, block=32, args=(dev.array(ptr), dev.array(adj), out, 3))
    expected = [adj[ptr[v]:ptr[v + 1]].max() if degrees[v] else -1 for v in range(3)]
    assert dev.to_host(out).tolist() == expected


def test_a_lockstep_run_replays_from_its_token():
    dev = Device("sim", seed=5, warps="lockstep")
    run = dev.launch(two_sides, grid=1, block=32, args=(dev.zeros(32), dev.zeros(32), dev.zeros(32)))
    replay = Device("sim", schedule=dev.token)
    again = replay.launch(two_sides, grid=1, block=32, args=(replay.zeros(32), replay.zeros(32), replay.zeros(32)))
    assert again.trace == run.trace and again.warps == "lockstep"


# -- every kernel of the project under lockstep warps --------------------------------------------------
#
# The papers' GPUs (the K40 of seeds 000-003) ran warps in lockstep.  Each case below runs an algorithm (or
# a launch of the remaining kernels) with lockstep warps and with independent ones, on the same seed and
# policy, and asserts that both end with the same answer, and that it is the one an independent oracle
# gives.  ROMA's local optimum depends on the order of its flips, so its answer is the pair of what the
# thesis guarantees on any schedule and the exact result on an instance with one improving swap.


class RecordingDevice(Device):
    """A simulator that remembers the names of the kernels it launched."""

    def __init__(self, **options):
        super().__init__("sim", trace=False, **options)
        self.launched: set[str] = set()

    def launch(self, kernel, grid, block, args=()):
        self.launched.add(kernel.name)
        return super().launch(kernel, grid, block, args)


@dataclass(frozen=True)
class Case:
    """``run(device)`` gives the answer to compare; ``oracle()`` the answer it must be; ``kernels`` must launch."""

    run: Callable[[Device], Any]
    oracle: Callable[[], Any]
    kernels: frozenset[str]
    policies: tuple[str, ...] = ("random", "pct", "sequential")


def _tied_weighted_graph(n: int, m: int, seed: int) -> WeightedGraph:
    graph = nx.gnm_random_graph(n, m, seed=seed)
    rng = np.random.default_rng(seed)
    for u, v in graph.edges:
        graph[u][v]["weight"] = float(rng.integers(1, 4))  # few distinct weights: many ties
    return WeightedGraph.from_networkx(graph)


BIPARTITE = uniform_random(12, 12, 30, 1)
EVERY_COLUMN_FREE = BipartiteGraph.from_edges(np.arange(520), np.arange(520))  # >= 512 active: G-PR shrinks
HUB = BipartiteGraph.from_edges(np.arange(1030), np.r_[np.zeros(1024, int), np.arange(1, 7)])  # warp_degree="auto"
WEIGHTED = _tied_weighted_graph(12, 30, 2)
ISSUE_16_STAR = WeightedGraph.from_edges([0, 0], [1, 2], [1.0, 1.0])  # b-Suitor's lockstep deadlock
MEN_AND_WOMEN = hard_instance(8, 1)
HOSPITALS = easy_instance(8, 1)
COMPLETE = uniform(8, 3)
ONE_GOOD_SWAP = np.array([[0, 1, 5, 0], [1, 0, 0, 5], [5, 0, 0, 1], [0, 5, 1, 0]], float)  # roma.py's example


def _bipartite_answer(graph: BipartiteGraph):
    edge_rows, edge_cols = graph.edges()
    edges = set(zip(edge_rows.tolist(), edge_cols.tolist(), strict=True))

    def answer(result) -> tuple[int, bool]:
        rows, cols = result.row_match, result.col_match
        pairs = [(r, int(c)) for r, c in enumerate(rows) if c >= 0]
        consistent = all((r, c) in edges and cols[c] == r for r, c in pairs) and int((cols >= 0).sum()) == len(pairs)
        return len(pairs), consistent
    return answer


def _bipartite_oracle(graph: BipartiteGraph) -> Callable[[], tuple[int, bool]]:
    return lambda: (int((maximum_bipartite_matching(graph.to_scipy(), perm_type="column") >= 0).sum()), True)


def _bipartite_case(algorithm, graph: BipartiteGraph, kernels: str, **options) -> Case:
    answer = _bipartite_answer(graph)
    return Case(lambda dev: answer(algorithm(graph, device=dev, **options)), _bipartite_oracle(graph),
                frozenset(kernels.split()))


def _roma_guarantees(w: np.ndarray, result, threshold: float) -> tuple[bool, bool, bool]:
    """Perfect; no swap of two matching edges gains more than ``threshold`` (brute force); the weight is the
    weights' sum over the pairs and at least the start's (``i,i+1``)."""
    mate, n = result.mate, w.shape[0]
    perfect = sorted(mate.tolist()) == list(range(n)) and all(mate[mate[v]] == v != mate[v] for v in range(n))
    edges = [(u, int(mate[u])) for u in range(n) if u < mate[u]]
    best_gain = max((max(w[u, x] + w[v, y], w[u, y] + w[v, x]) - w[u, v] - w[x, y]
                     for (u, v), (x, y) in itertools.combinations(edges, 2)), default=0.0)
    weight = sum(w[u, v] for u, v in edges)
    start = sum(w[v, v + 1] for v in range(0, n, 2))
    return perfect, bool(best_gain <= threshold + 1e-9), bool(np.isclose(result.weight, weight) and weight >= start)


def _roma_case(variant: str, kernel: str) -> Case:
    def run(dev: Device):
        example = roma(ONE_GOOD_SWAP, device=dev, variant=variant).mate.tolist()
        return example, _roma_guarantees(COMPLETE, roma(COMPLETE, device=dev, variant=variant, threshold=1e-5), 1e-5)
    return Case(run, lambda: ([2, 3, 0, 1], (True, True, True)), frozenset({"fill", kernel}))


ODD_COMPLETE = uniform(7, 5)
#: Bad dense matrices for the device check, each with the host path's message (check_weight_matrix's wording).
_BAD_MATRICES = (([[0, 1], [1, -2]], "weights[1, 1]=-2.0 is negative: weights must be finite and >= 0"),
                 ([[0, 1, 2], [1, 0, 3], [2, 4, 0]],
                  "weights is not symmetric: weights[1, 2]=3.0 but weights[2, 1]=4.0"),
                 ([[0, np.nan], [np.nan, 0]], "weights[0, 1]=nan is not finite: weights must be finite and >= 0"))


def _roma_resident(dev: Device) -> tuple:
    """ROMA on a device matrix of odd n, padded there, its matching left there; and the device checks of bad
    matrices.  The matching is judged on the padded matrix, the dummy vertex 7 matched to the unmatched one."""
    flat = lambda w: dev.array(np.asarray(w, float).ravel())  # noqa: E731
    found = roma(flat(ODD_COMPLETE), device=dev, pad=True, threshold=1e-5, output="device")
    mate = found.to_host().mate
    alone = np.flatnonzero(mate == -1)
    full = np.r_[np.where(mate == -1, 7, mate), alone].astype(int)
    padded = np.pad(ODD_COMPLETE, ((0, 1), (0, 1)))
    judged = _roma_guarantees(padded, type("Found", (), {"mate": full, "weight": found.weight}), 1e-5)
    return len(alone), judged, [matrix_problem(dev, flat(w), len(w)) for w, _ in _BAD_MATRICES]


#: Two bad device instances (n_men, n_women, men_ptr, men_list, men_rank_by_woman): a woman listed twice, a rank
#: given twice.
_BAD_PREFERENCES = ((2, 2, (0, 1, 3), (1, 0, 0), (0, 0, 1)), (3, 2, (0, 1, 2, 3), (1, 0, 1), (0, 0, 0)))


def _stable_device_checks(dev):
    instance = easy_instance(40, seed=2)
    arrays = (dev.array(np.asarray(a, np.int32)) for a in (instance.men_ptr, instance.men_list,
                                                           instance.men_rank_by_woman))
    on_device = DevicePreferenceInstance(instance.n_men, instance.n_women, *arrays)
    problems = [preference_problem(dev, men, women, *(dev.array(np.array(a, np.int32)) for a in lists))
                for men, women, *lists in _BAD_PREFERENCES]
    return mw_gpu(on_device, device=dev).wife.tolist(), problems


def _stable_device_checks_oracle():
    return gale_shapley(easy_instance(40, seed=2)).wife.tolist(), [
        "men_list[2]=0 repeats men_list[1]: man 1 lists woman 0 twice "
        "(a preference list names each woman at most once)",
        "men_rank_by_woman[2]=0 repeats men_rank_by_woman[0]: woman 1 would rank both man 0 and man 2 at 0 "
        "(ranks must be distinct)"]


def _stable_case(algorithm: str, instance, kernels: str, capacities=None) -> Case:
    return Case(lambda dev: stable_marriage(instance, algorithm, device=dev, capacities=capacities).wife.tolist(),
                lambda: gale_shapley(instance, capacities).wife.tolist(),
                frozenset(kernels.split() + ["wives_from_held", "proposals_made", "sum_warps"]))


#: The kernels every weighted GPU algorithm launches to build its result on the device.
_WEIGHTED_RESULT = ("entry_owners", "sum_partials")


def _suitor_case(kernel: str, **options) -> Case:
    return Case(lambda dev: suitor(WEIGHTED, device=dev, **options).mate.tolist(),
                lambda: greedy(WEIGHTED).mate.tolist(), frozenset({kernel, *_WEIGHTED_RESULT, "mate_from_offers"}))


def _b_suitor_case(graph: WeightedGraph, b: int) -> Case:
    return Case(lambda dev: b_suitor(graph, b, device=dev).partners.tolist(),
                lambda: greedy_b_matching(graph, b).partners.tolist(),
                frozenset({"fill", "open_queue", "b_suitor_round", *_WEIGHTED_RESULT, "b_partners"}))


def _workload_case(kernel) -> Case:
    def run(dev: Device) -> list[int]:
        a = dev.zeros(64)
        dev.launch(kernel, grid=2, block=32, args=(a, 50, 3))
        return dev.to_host(a).tolist()
    return Case(run, lambda: [3] * 50 + [0] * 14, frozenset({kernel.name}))


def _louvain_hubs() -> LouvainGraph:
    """Hubs of degrees 85 and 320 over the same leaves, and a few edges among them: every degree bucket of
    §4.1 (subwarps, a block with a shared table, a block with a global one) and every community bucket of
    the contraction (a warp, a block, a block with a global table)."""
    rng = np.random.default_rng(0)
    u = np.r_[np.zeros(85, int), np.ones(320, int), rng.integers(2, 322, 12)]
    v = np.r_[np.arange(2, 87), np.arange(2, 322), rng.integers(2, 322, 12)]
    keep = u != v
    return LouvainGraph.from_edges(u[keep], v[keep], rng.integers(1, 3, keep.sum()).astype(float), n=322)


def _louvain_case(graph: LouvainGraph, kernels: str, **options) -> Case:
    return Case(lambda dev: louvain(graph, device=dev, **options).labels.tolist(),
                lambda: bucket_louvain(graph, **options).labels.tolist(), frozenset(kernels.split()))


SCANNED = np.arange(1100, dtype=np.int32) % 7  # two tiles: their totals scanned in turn and added back


def _cupyx_entry_problems(dev: Device) -> list[int]:
    """A self-loop at 1, a negative weight at 2, zeros at 3 and 4 (a zero on the diagonal is no self-loop)."""
    rows, cols = np.array([0, 1, 1, 2, 2], np.int32), np.array([1, 1, 2, 0, 2], np.int32)
    weights = np.array([1.0, 2.0, -1.0, 0.0, 0.0])
    return smallest_offenders(dev, entry_problems, 5, 3, dev.array(rows), dev.array(cols), dev.array(weights), 5)


def _scan(dev: Device) -> tuple[list[int], int]:
    out, total = exclusive_scan(dev, dev.array(SCANNED), SCANNED.size)
    return dev.to_host(out).tolist(), total


def _device_checks(dev: Device) -> tuple:
    """The checks of device-resident graphs and matchings on a good input and on broken ones."""
    g, w, a = BIPARTITE, WEIGHTED, dev.array
    resident(dev, DeviceBipartiteGraph(g.n_rows, g.n_cols, a(g.row_ptr), a(g.row_adj), a(g.col_ptr), a(g.col_adj)))
    rmatch = maximum_bipartite_matching(g.to_scipy(), perm_type="column").astype(np.int32)
    cmatch = np.full(g.n_cols, -1, np.int32)
    cmatch[rmatch[rmatch >= 0]] = np.flatnonzero(rmatch >= 0)
    broken = rmatch.copy()
    broken[np.flatnonzero(rmatch >= 0)[0]] = -1
    checks = [matching_problem(dev, a(g.col_ptr), a(g.col_adj), a(cmatch), a(r), g.n_cols, g.n_rows, "column", "row")
              for r in (rmatch, broken)]
    weights = w.weights.copy()
    weights[0] = -1.0
    return (*checks, csr_problem(dev, a(np.array([0, 2], np.int32)), a(np.array([1, 0], np.int32)), 1, 2, "p", "a"),
            weighted_problem(dev, w.n, a(w.ptr), a(w.adj), a(weights)), matched_count(dev, a(rmatch), g.n_rows))


def _device_checks_oracle() -> tuple:
    column_of_row = maximum_bipartite_matching(BIPARTITE.to_scipy(), perm_type="column")
    size, row = int((column_of_row >= 0).sum()), int(np.flatnonzero(column_of_row >= 0)[0])
    column = int(column_of_row[row])
    return (None, f"column {column} is matched to row {row}, which is out of range or not matched back to it",
            "a[1]=0 is not above a[0]=1 in list 0 (unsorted or duplicate)", "weights[0]=-1.0 is not finite and >= 0",
            size)


def _racy_count(dev: Device) -> int:
    counter = dev.zeros(1)
    dev.launch(racy_count, grid=2, block=32, args=(counter, 40))
    return int(dev.to_host(counter)[0])


def _exercise_case(exercise) -> Case:
    """An exercise's solution, judged by the exercise's own reference (``run_once`` gives ``None`` when right);
    its stub defines a kernel of the same name, unfinished by design."""
    module = importlib.import_module(f"gpusim.exercises.solutions.{exercise.filename.removesuffix('.py')}")
    solution = getattr(module, exercise.kernel)
    return Case(lambda dev: exercise.run_once(dev, solution), lambda: None, frozenset({exercise.kernel}))


_BFS = "fill init_bfs_array alternate fix_rows fix_columns "
CASES = {
    # the sequential cheap start leaves augmenting paths on BIPARTITE (the device's may not): ALTERNATE runs
    "apfb": _bipartite_case(bipartite.apfb, BIPARTITE, _BFS + "gpubfs_wr", initial="cheap-host"),
    "apfb-plain-bfs-mt": _bipartite_case(bipartite.apfb, BIPARTITE, _BFS + "gpubfs", bfs="plain", layout="mt",
                                         initial="cheap-host"),
    "apsb": _bipartite_case(bipartite.apsb, BIPARTITE, _BFS + "gpubfs_wr", initial="cheap-host"),
    "apfb-warp-bfs": _bipartite_case(bipartite.apfb, BIPARTITE, _BFS + "gpubfs_wr_warp", initial="cheap-host",
                                     warp_degree=2),
    "apsb-plain-bfs-mt": _bipartite_case(bipartite.apsb, BIPARTITE, _BFS + "gpubfs", bfs="plain", layout="mt",
                                         initial="cheap-host"),
    "apfb-one-block": _bipartite_case(bipartite.apfb, BIPARTITE, "augment_in_one_block", initial="cheap-host",
                                      launches="one-block"),
    "apsb-one-block": _bipartite_case(bipartite.apsb, BIPARTITE, "augment_in_one_block", initial="empty",
                                      launches="one-block"),
    "apfb-queue": _bipartite_case(bipartite.apfb, BIPARTITE, "fill init_bfs_queue gpubfs_wr_queue expand_hubs "
                                  "alternate fix_rows fix_columns", initial="cheap-host", frontier="queue",
                                  warp_degree=2),
    "apsb-queue": _bipartite_case(bipartite.apsb, BIPARTITE, "fill init_bfs_queue gpubfs_wr_queue alternate",
                                  initial="empty", frontier="queue"),
    "apfb-hub": _bipartite_case(bipartite.apfb, HUB, "has_hub gpubfs_wr_warp", initial="empty", launches="levels"),
    "apfb-bottom-up": _bipartite_case(bipartite.apfb, BIPARTITE, _BFS + "gpubfs_wr_bottom_up", initial="cheap-host",
                                      direction="bottom-up"),
    "apsb-auto": _bipartite_case(bipartite.apsb, BIPARTITE, _BFS + "gpubfs_wr gpubfs_wr_bottom_up count_level",
                                 initial="cheap-host", direction="auto"),
    "gpr": _bipartite_case(bipartite.gpr, BIPARTITE, "cheap_claim count_tiles offset_tiles list_free_columns fill "
                           "init_relabel "
                           "global_relabel_level init_active push_active fix_columns"),
    "gpr-proposals": _bipartite_case(bipartite.gpr, BIPARTITE, "row_degrees propose_to_lightest_row "
                                     "accept_lowest_offer cheap_claim", initial="proposals"),
    "apsb-proposals": _bipartite_case(bipartite.apsb, BIPARTITE, "count_row_degrees propose_to_lightest_row "
                                      "accept_lowest_offer cheap_claim", initial="proposals"),
    "gpr-first": _bipartite_case(bipartite.gpr, BIPARTITE, "fill init_relabel global_relabel_level push_relabel_all "
                                 "fix_columns", variant="first"),
    "gpr-shrink": _bipartite_case(bipartite.gpr, EVERY_COLUMN_FREE, "init_active count_tiles offset_tiles "
                                  "compact_active push_active",
                                  initial="empty"),
    "suitor-thread": _suitor_case("suitor_thread_per_vertex", layout="thread"),
    **{f"suitor-{variant}": _suitor_case("gpu_suitor", variant=variant) for variant in SUITOR_VARIANTS},
    "ld": Case(lambda dev: locally_dominant(WEIGHTED, device=dev).mate.tolist(),
               lambda: greedy(WEIGHTED).mate.tolist(),
               frozenset({"fill", "ld_candidates", "ld_match", "ld_close_round", "sum_partials", "pair_weights"})),
    "b-suitor-issue-16": _b_suitor_case(ISSUE_16_STAR, 1),
    "b-suitor-b2": _b_suitor_case(WEIGHTED, 2),
    "roma-thread": _roma_case("thread", "roma_thread_phase"),
    "roma-block": _roma_case("block", "roma_block_phase"),
    "mw-gpu": _stable_case("mw-gpu", MEN_AND_WOMEN, "mcvitie_wilson_gpu"),
    "mw-gpu-capacities": _stable_case("mw-gpu", HOSPITALS, "mcvitie_wilson_gpu", capacities=2),
    "gs-rounds": _stable_case("gs-rounds", MEN_AND_WOMEN, "fill gale_shapley_round"),
    "stable-device-checks": Case(_stable_device_checks, _stable_device_checks_oracle, frozenset(
        "women_counted repeated_women first_equal scan_in_one_block rank_places rank_repeats list_starts".split())),
    "roma-resident": Case(_roma_resident, lambda: (1, (True, True, True), [m for _, m in _BAD_MATRICES]), frozenset(
        "weight_matrix_check pad_matrix phase_weight unpadded_mate roma_block_phase peek_weight".split())),
    "b-suitor-parts": Case(lambda dev: b_suitor_multi(WEIGHTED, 2, devices=[0, 0], device=dev).partners.tolist(),
                           lambda: greedy_b_matching(WEIGHTED, 2).partners.tolist(),
                           frozenset({"propose_round", "take_messages", "part_rows", "copy_range", "copy_range_f64"})),
    "b-suitor-resident": Case(lambda dev: b_suitor(to_device(dev, WEIGHTED), 2, device=dev).partners.tolist(),
                              lambda: greedy_b_matching(WEIGHTED, 2).partners.tolist(),
                              frozenset({"vertex_capacities", "scan_in_one_block", "count_up", "b_suitor_round"})),
    "louvain-resident": Case(lambda dev: louvain(to_device(dev, WeightedGraph.from_edges(*karate().edges(), n=34)),
                                                 device=dev).labels.tolist(),
                             lambda: bucket_louvain(karate()).labels.tolist(), frozenset({"input_facts"})),
    "louvain-buckets": _louvain_case(
        _louvain_hubs(), "vertex_degrees init_communities follow_leaves clear_totals community_totals entry_counts "
        "count_buckets fill_buckets move_by_shuffles move_block_shared move_block_global apply_moves apply_wide_moves "
        "inside_change "
        "modularity_terms copy_labels community_sizes mark_nonempty scan_tiles read_entry place_vertices merge_warp "
        "merge_block_shared merge_block_global member_degrees scatter_counts compact_edges relabel "
        "entry_sources count_chunks"),
    "louvain-thread": _louvain_case(karate(), "move_thread", layout="thread"),
    # every weight 1: the first level and the refinement count keys where the weights would be added
    "louvain-unweighted": _louvain_case(karate(), "move_by_counts move_by_shuffles inside_change"),
    # the small degrees' weights summed in the paper's tables
    "louvain-paper": Case(lambda dev: louvain(karate(), device=dev, kernels=PAPER).labels.tolist(),
                          lambda: bucket_louvain(karate()).labels.tolist(), frozenset({"move_subwarp"})),
    # the communities above the last bound (8192 edges on a GPU), several blocks each: the hub's, from bound 24
    "louvain-chunks": Case(lambda dev: louvain(_louvain_hubs(), device=dev,
                                               community_buckets="4,12,24").labels.tolist(),
                           lambda: bucket_louvain(_louvain_hubs()).labels.tolist(),
                           frozenset({"count_chunks", "merge_chunks"})),
    # the first phase dips at its fifth sweep, then goes on with conflict-free sweeps (tests/test_louvain.py), the
    # degrees above 4 in the groups moved (and applied) by a warp or more a vertex
    "louvain-conflict-free": _louvain_case(
        LouvainGraph.from_networkx(nx.planted_partition_graph(4, 8, 0.5, 0.1, seed=17)),
        "mark_movers apply_independent_moves apply_wide_independent_moves", degree_buckets=(1, 2, 4, 8, 16, 32)),
    "louvain-cupyx-entries": Case(_cupyx_entry_problems, lambda: [1, 2, 3], frozenset({"entry_problems"})),
    "louvain-scan-tiles": Case(_scan, lambda: (np.r_[0, np.cumsum(SCANNED)].tolist(), int(SCANNED.sum())),
                               frozenset({"scan_tiles", "add_tile_offsets", "read_entry"})),
    "bench-memory": _workload_case(memory_bound),
    "bench-barrier": _workload_case(barrier_bound),
    **{f"exercise-{exercise.number:02d}-{exercise.slug}": _exercise_case(exercise) for exercise in list_exercises()},
    # a deliberate race: only the sequential policy gives one answer in either warp mode
    "device-checks": Case(_device_checks, _device_checks_oracle, frozenset(
        "csr_offsets_check lists_check transpose_check matching_check symmetry_check count_matched peek "
        "peek_weight".split())),
    "demo-racy-count": Case(_racy_count, lambda: 40, frozenset({"racy_count"}), policies=("sequential",)),
}

_HEAVY = {"suitor-nosync", "suitor-syncnolb", "suitor-synclb", "suitor-hybrid", "roma-block", "louvain-buckets",
          "louvain-thread", "louvain-paper", "louvain-conflict-free"}


def _runs():
    for name, case in CASES.items():
        first = case.policies[0]
        yield pytest.param(name, first, 0, id=f"{name}-{first}-0")
        for policy, seed in itertools.product(case.policies, range(3)):
            if (policy, seed) != (first, 0) and (seed < 2 or name not in _HEAVY):
                yield pytest.param(name, policy, seed, marks=pytest.mark.slow, id=f"{name}-{policy}-{seed}")


@pytest.mark.parametrize(("name", "policy", "seed"), list(_runs()))
def test_every_kernel_terminates_in_lockstep_with_the_independent_answer(name, policy, seed):
    case = CASES[name]
    answers = {}
    for warps in ("independent", "lockstep"):
        dev = RecordingDevice(policy=policy, seed=seed, warps=warps)
        answers[warps] = case.run(dev)
        assert case.kernels <= dev.launched, f"{warps}: {sorted(case.kernels - dev.launched)} never launched"
    assert answers["lockstep"] == answers["independent"] == case.oracle()


def test_the_cases_launch_every_kernel_of_the_project():
    for package in (gpusim, gpusim.algorithms):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name != "gpusim.__main__":
                importlib.import_module(info.name)
    project = {k.name for k in registry() if isinstance(k, Kernel) and k.fn.__module__.startswith("gpusim.")
               and not k.fn.__module__.startswith("gpusim.zoo.") and not k.filename.startswith("<")}
    covered = set().union(*(case.kernels for case in CASES.values()))
    assert project - covered == set()
    assert {"b_suitor_round", "roma_thread_phase", "roma_block_phase", "mcvitie_wilson_gpu"} <= project


@pytest.mark.parametrize("name", sorted(ZOO))
def test_every_fixed_twin_of_the_zoo_passes_in_lockstep(name):
    # the zoo's broken twins keep their bugs (test_zoo finds them); the fixed ones must hold on the papers' GPUs too
    for seed in range(3):
        assert ZOO[name].fixed.attempt(warps="lockstep", seed=seed) is None
