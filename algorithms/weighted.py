"""Half-approximate weighted matching on GPUs: Suitor and Locally-Dominant (seed 003, Paper I).

Both ([003]_) compute exactly the greedy matching: edges by decreasing weight, ties to the larger
``(max(u, v), min(u, v))`` (see :func:`gpusim.algorithms.weighted_cpu.greedy`).  An offer is
named by the CSR entry ``j`` it travels along: its proposer is the entry's owner ``src[j]`` and
its weight ``weights[j]``, so one ``int32`` word says who offers how much, and comparing two
offers compares the float64 weights and then the ids, exactly — with no sorting on the host.
``ws[v]`` holds the best offer ``v`` has received (-1: none) and only ``atomic_cas`` changes it.

References
----------
.. [003] M. Naim, "GPU algorithms for matching and clustering", PhD thesis, Bergen 2017,
   Paper I: M. Naim, F. Manne, M. Halappanavar, A. Tumeo, J. Langguth, "Optimizing approximate
   weighted matching on Nvidia Kepler K40", HiPC 2015 (seed 003).

Example
-------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
>>> suitor(g, backend="sim").mate.tolist()
[-1, 2, 1, -1]
>>> locally_dominant(g, backend="sim").mate.tolist()
[-1, 2, 1, -1]
"""

from __future__ import annotations

import math

import numpy as np

from gpusim import T, device, kernel
from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.runtime.device import Device, choose_backend
from gpusim.runtime.launcher import fill
from gpusim.types.check import edge_positions
from gpusim.types.complete_graphs import check_memory
from gpusim.types.graphs import WeightedGraph

from . import weighted_cpu
from .b_suitor import b_suitor
from .roma import roma
from .weighted_offers import offer_beats, upload_weighted_graph
from .weighted_result import WeightedMatching

__all__ = [
    "SUITOR_VARIANTS", "WEIGHTED_ALGORITHMS", "WeightedMatching", "best_entry", "gpu_suitor", "ld_candidates",
    "ld_match", "locally_dominant", "maximum_weight_matching", "offer_beats", "propose", "suitor",
    "suitor_thread_per_vertex", "warp_best_entry",
]

#: Suitor reads a neighbour's best offer without a lock and proposes with a CAS that fails if it
#: changed (Paper I, Alg. 4): a stale read costs a retry.
_SUITOR_RACES = {"ws": "offers are read unlocked; the CAS that proposes fails on a stale read and the thread retries"}


@device
def best_entry(ptr, adj, weights, src, ws, current, first, step):
    """The entry ``j`` of ``current``'s list, among ``first, first + step, ...``, that ``current``
    should propose along: the heaviest (ties to the larger neighbour) whose neighbour would take
    the offer; -1 for none.  ``ws`` is read without an atomic: the proposal re-checks by CAS."""
    best = -1
    best_w = -1.0
    best_a = -1
    j = ptr[current] + first
    while j < ptr[current + 1]:
        w = weights[j]
        a = adj[j]
        if w > 0.0:
            if offer_beats(weights, src, ws[a], w, current) == 1:
                if w > best_w or (w == best_w and a > best_a):
                    best = j
                    best_w = w
                    best_a = a
        j += step
    return best


@device
def warp_best_entry(adj, weights, entry):
    """The best of the 32 lanes' entries (heaviest, ties to the larger neighbour; -1 loses), in
    every lane: the butterfly reduction of GPU-Suitor (seed 003, Paper I, Alg. 4 line 7)."""
    best_w = -1.0
    best_a = -1
    if entry >= 0:
        best_w = weights[entry]
        best_a = adj[entry]
    offset = 16
    while offset > 0:
        other = T.shfl_xor(entry, offset)
        other_w = T.shfl_xor(best_w, offset)
        other_a = T.shfl_xor(best_a, offset)
        if other_w > best_w or (other_w == best_w and other_a > best_a):
            entry = other
            best_w = other_w
            best_a = other_a
        offset = offset // 2
    return entry


@device
def propose(ws, weights, src, partner, entry, current):
    """Make ``current``'s offer along ``entry`` to ``partner`` by CAS (Alg. 3 lines 19–29, the
    lock replaced by a CAS loop on ``ws[partner]``).

    Returns the suitor it displaced, -1 when ``partner`` had none, or -2 when ``partner`` already
    holds a better offer (the proposer must search again).  The loop holds no lock: a lane whose
    CAS fails retries against the offer that beat it, so lockstep warps cannot deadlock here.
    """
    outcome = -3
    w = weights[entry]
    while outcome == -3:
        held = T.atomic_load(ws, partner)
        if offer_beats(weights, src, held, w, current) == 0:
            outcome = -2
        elif T.atomic_cas(ws, partner, held, entry) == held:
            if held < 0:
                outcome = -1
            else:
                outcome = src[held]
    return outcome

#: GPU-Suitor's variants (seed 003, Paper I, §4.3) and their codes in :func:`gpu_suitor`.
SUITOR_VARIANTS = {"nosync": 0, "syncnolb": 1, "synclb": 2, "hybrid": 3}
#: The most threads per block :func:`gpu_suitor`'s shared queues hold (8 warps).
SUITOR_MAX_BLOCK = 256


@kernel(signature="int32[:], int32[:], float64[:], int32[:], int32[:], int32", intended_races=_SUITOR_RACES)
def suitor_thread_per_vertex(ptr, adj, weights, src, ws, n):
    """Suitor with a thread per vertex (seed 003, Paper I, Alg. 3): propose, and carry on for whoever was displaced."""
    u = T.gtid()
    while u < n:
        current = u
        while current >= 0:
            entry = best_entry(ptr, adj, weights, src, ws, current, 0, 1)
            if entry < 0:
                current = -1
            else:
                outcome = propose(ws, weights, src, adj[entry], entry, current)
                if outcome != -2:
                    current = outcome
        u += T.num_threads()


@kernel(signature="int32[:], int32[:], float64[:], int32[:], int32[:], int32, int32, int32, int32",
        intended_races=_SUITOR_RACES)
def gpu_suitor(ptr, adj, weights, src, ws, n, per_warp, variant, balance_rounds):
    """GPU-Suitor (seed 003, Paper I, Alg. 4): a warp per chunk of ``per_warp`` vertices (at most 32).

    Each round the warp finds, one queued vertex after the other, the best candidate with all
    32 lanes and a butterfly reduction (lines 6–7); then lane ``k`` proposes for the ``k``-th
    vertex by CAS (line 8); the vertices that must try again — refused, or displaced by the
    proposal — are compacted into the warp's shared-memory queue by a prefix sum (line 9).
    ``variant`` (line 10): 0 NoSync, warps never wait for each other; 1 SyncNoLB, the warps of a
    block synchronise every round; 2 SyncLB, they synchronise and, for the first
    ``balance_rounds`` rounds, spread the block's queued vertices evenly over its warps; 3
    Hybrid, load-balanced rounds first, then NoSync.
    """
    queue = T.shared_array(256, T.i32)
    pool = T.shared_array(256, T.i32)
    counts = T.shared_array(8, T.i32)
    lane = T.lane_id()
    wid = T.warp_id()
    warps = T.block_size() // 32
    base = 32 * wid
    chunk = T.block_id() * warps * per_warp
    while chunk < n:
        first = chunk + wid * per_warp
        count = max(0, min(per_warp, n - first))
        if lane < count:
            queue[base + lane] = first + lane
        T.syncwarp()
        rounds = 0
        going = 1
        while going == 1:
            mine = -1
            mine_entry = -1
            for k in range(count):
                current = queue[base + k]
                entry = warp_best_entry(adj, weights, best_entry(ptr, adj, weights, src, ws, current, lane, 32))
                if lane == k:
                    mine = current
                    mine_entry = entry
            T.syncwarp()
            again = -1
            if mine_entry >= 0:
                outcome = propose(ws, weights, src, adj[mine_entry], mine_entry, mine)
                if outcome == -2:
                    again = mine
                else:
                    again = outcome
            # inclusive prefix sum of "holds a vertex" over the lanes: the compacted positions
            scan = 0
            if again >= 0:
                scan = 1
            offset = 1
            while offset < 32:
                below = T.shfl_up(scan, offset)
                if lane >= offset:
                    scan += below
                offset = offset * 2
            count = T.shfl_idx(scan, 31)
            if again >= 0:
                queue[base + scan - 1] = again
            T.syncwarp()
            rounds += 1
            synced = 0
            if variant == 1 or variant == 2:
                synced = 1
            elif variant == 3 and rounds <= balance_rounds:
                synced = 1
            if synced == 1:
                if lane == 0:
                    counts[wid] = count
                T.syncthreads()
                total = 0
                before = 0
                for other in range(warps):
                    if other < wid:
                        before += counts[other]
                    total += counts[other]
                if variant >= 2 and rounds <= balance_rounds and total > 0:
                    if lane < count:
                        pool[before + lane] = queue[base + lane]
                    T.syncthreads()
                    share = (total + warps - 1) // warps
                    count = max(0, min(share, total - wid * share))
                    if lane < count:
                        queue[base + lane] = pool[wid * share + lane]
                    T.syncwarp()
                T.syncthreads()
                if total == 0:
                    going = 0
            elif count == 0:
                going = 0
        chunk += T.grid_size() * warps * per_warp


@kernel(signature="int32[:], int32[:], float64[:], int32[:], int32[:], int32")
def ld_candidates(ptr, adj, weights, mate, candidate, n):
    """ProcessVertex, first half (seed 003, Paper I, Alg. 2 lines 2–8): each free vertex points at its
    heaviest free neighbour (ties to the larger id); -1 when it has none."""
    s = T.gtid()
    while s < n:
        if mate[s] == -1:
            best_w = 0.0
            best = -1
            for j in range(ptr[s], ptr[s + 1]):
                w = weights[j]
                a = adj[j]
                if w > 0.0 and mate[a] == -1:
                    if w > best_w or (w == best_w and a > best):
                        best_w = w
                        best = a
            candidate[s] = best
        s += T.num_threads()


@kernel(signature="int32[:], int32[:], int32, int32[:]", intended_races={"matched": "a flag: every writer writes 1"})
def ld_match(mate, candidate, n, matched):
    """ProcessVertex, second half (Alg. 2 lines 9–12): two vertices pointing at each other form a
    locally-dominant edge and match.  Each vertex writes only its own ``mate``: no race."""
    s = T.gtid()
    while s < n:
        if mate[s] == -1:
            c = candidate[s]
            if c >= 0:
                if candidate[c] == s:
                    mate[s] = c
                    matched[0] = 1
        s += T.num_threads()


def _from_offers(graph: WeightedGraph, held: np.ndarray, src: np.ndarray, algorithm: str, backend: str,
                 stats: dict) -> WeightedMatching:
    """The matching from the offers each vertex holds: ``held[v]`` is the entry ``j`` of its suitor's
    list along which the offer came (-1: none), so the suitor is ``src[j]`` and the weight ``weights[j]``."""
    held = np.asarray(held[:graph.n], np.int64)
    mate = np.where(held >= 0, src[np.maximum(held, 0)] if src.size else -1, -1).astype(np.int32)
    first = np.flatnonzero(mate > np.arange(graph.n))
    return WeightedMatching(mate, math.fsum(graph.weights[held[first]].tolist()), algorithm, backend, stats, graph)


def suitor(graph: WeightedGraph, *, backend: str = "auto", layout: str = "warp", variant: str = "nosync",
           vertices_per_warp: int = 4, balance_rounds: int = 2, block: int | None = None,
           device: Device | None = None) -> WeightedMatching:
    """The Suitor matching on a GPU backend: equal to the greedy matching (seed 003, Paper I, Alg. 3–4).

    Parameters
    ----------
    graph:
        An undirected graph with non-negative weights; zero-weight edges are never matched.
    backend, device:
        Where to run (``device`` wins), as :func:`gpusim.algorithms.bipartite.apfb`.
    layout:
        ``"warp"``: GPU-Suitor (Alg. 4), a warp per chunk of vertices; ``"thread"``: a thread
        per vertex (Alg. 3 with a CAS in place of the lock).
    variant:
        For the warp layout, the paper's synchronisation variants: ``"nosync"``, ``"syncnolb"``,
        ``"synclb"`` or ``"hybrid"`` (see :func:`gpu_suitor`).
    vertices_per_warp:
        How many consecutive vertices each warp owns (the paper's vertices-per-warp), 1 to 32.
    balance_rounds:
        The first rounds in which SyncLB and Hybrid balance the load (the paper's ``k``).
    block:
        Threads per block (a multiple of 32, at most 256); by default 64 on the simulator (two
        warps, so the variants differ) and 128 on a GPU.

    Notes
    -----
    ``ws[v]`` holds the offer ``v`` has accepted as the CSR entry ``j`` it came along (-1:
    none): the suitor is the entry's owner ``src[j]`` and the weight ``weights[j]``, so one
    ``int32`` compare-and-swap replaces the paper's lock, and offers compare exactly as the
    float64 weights and ids do.  Offers only ever improve, so the CAS loop ends; the result is
    the greedy matching whatever the schedule.

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
    >>> suitor(g, backend="sim", variant="synclb").mate.tolist()
    [-1, 2, 1, -1]
    >>> suitor(WeightedGraph.from_edges([], [], [], n=0), backend="sim").mate.tolist()
    []
    """
    if layout not in ("warp", "thread"):
        raise InvalidArgument(f"layout={layout!r} is not one of ('warp', 'thread')")
    if variant not in SUITOR_VARIANTS:
        raise InvalidArgument(f"variant={variant!r} is not one of {tuple(SUITOR_VARIANTS)}")
    for name, value, high in (("vertices_per_warp", vertices_per_warp, 32), ("balance_rounds", balance_rounds, None),
                              ("block", block, SUITOR_MAX_BLOCK)):
        if value is None and name == "block":
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise InvalidArgumentType(f"{name} must be an integer, got {value!r}")
        if value < (0 if name == "balance_rounds" else 1) or (high is not None and value > high):
            raise InvalidArgument(f"{name}={value!r} is out of range"
                                  + (f" (1 to {high})" if high is not None else " (>= 0)"))
    if block is not None and block % 32:
        raise InvalidArgument(f"block={block!r} must be a multiple of 32 (whole warps)")
    dev, launch, src, ptr, adj, weights, src_dev = upload_weighted_graph(graph, backend, device)
    n = graph.n
    ws = dev.full(max(n, 1), -1, np.int32)
    block = block or (64 if dev.backend == "sim" else 128)
    if n:
        with launch.phase("suitor"):
            if layout == "thread":
                launch(suitor_thread_per_vertex, Device.grid_for(n, block), block, ptr, adj, weights, src_dev, ws, n)
            else:
                chunks = -(-n // vertices_per_warp)
                launch(gpu_suitor, Device.grid_for(32 * chunks, block), block, ptr, adj, weights, src_dev, ws, n,
                       vertices_per_warp, SUITOR_VARIANTS[variant], balance_rounds)
    stats = {"layout": layout, "variant": variant if layout == "warp" else None, "vertices_per_warp": vertices_per_warp,
             "launches": dict(launch.launches), "seconds": dict(launch.seconds)}
    return _from_offers(graph, dev.to_host(ws), src, "suitor", dev.backend, stats)


def locally_dominant(graph: WeightedGraph, *, backend: str = "auto", device: Device | None = None
                     ) -> WeightedMatching:
    """Locally-Dominant matching on a GPU backend (seed 003, Paper I, Alg. 1–2): equal to the greedy matching.

    Each round, every free vertex points at its heaviest free neighbour, and mutual pointers
    match; rounds repeat until none matches.  A thread per vertex; the host reads one flag per
    round.

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 0, 1], [1, 2, 2], [2.0, 2.0, 5.0])
    >>> locally_dominant(g, backend="sim").mate.tolist()
    [-1, 2, 1]
    """
    dev, launch, _, ptr, adj, weights, _ = upload_weighted_graph(graph, backend, device)
    n = graph.n
    mate = dev.full(max(n, 1), -1, np.int32)
    candidate = dev.full(max(n, 1), -1, np.int32)
    matched = dev.zeros(1, np.int32)
    rounds = 0
    block = 32 if dev.backend == "sim" else 256
    grid = Device.grid_for(n, block)
    while n:
        rounds += 1
        with launch.phase("rounds"):
            launch(fill, 1, 32, matched, 0, 1)
            launch(ld_candidates, grid, block, ptr, adj, weights, mate, candidate, n)
            launch(ld_match, grid, block, mate, candidate, n, matched)
            if not launch.flag(matched):
                break
    stats = {"rounds": rounds, "launches": dict(launch.launches), "seconds": dict(launch.seconds)}
    found = dev.to_host(mate)[:n].astype(np.int32)
    first = np.flatnonzero(found > np.arange(n))
    # the CSR is sorted by (row, column): find each matched edge's weight by one search
    entries = np.repeat(np.arange(n, dtype=np.int64), np.diff(graph.ptr)) * n + graph.adj
    weight = math.fsum(graph.weights[np.searchsorted(entries, first * n + found[first])].tolist())
    return WeightedMatching(found, weight, "ld", dev.backend, stats, graph)


#: Every weighted-matching algorithm by its CLI name.
WEIGHTED_ALGORITHMS = ("suitor", "ld", "greedy", "pga", "gpa", "bsuitor", "roma", "rama")
_GPU_WEIGHTED = ("suitor", "ld", "bsuitor", "roma")


def maximum_weight_matching(graph: WeightedGraph, algorithm: str = "suitor", backend: str = "auto", *,
                            max_memory: int | None = None, **options) -> WeightedMatching:
    """A half-approximate maximum-weight matching of ``graph`` by ``algorithm`` on ``backend``.

    ``suitor``, ``ld``, ``bsuitor`` (option ``b``, default 1) and ``roma`` run on the GPU
    backends (``sim``, ``numba``, ``cupy``) or, with ``backend="cpu"``, as their sequential
    references; ``greedy``, ``pga``, ``gpa`` and ``rama`` run on ``cpu``.  ``bsuitor`` puts its
    b-matching in ``partners`` (and ``stats["partners"]``; for ``b = 1`` also in ``mate``).
    ``stats["chosen"]`` says which backend ran and why.  The result validates itself against
    ``graph`` on first use of ``valid`` (:class:`WeightedMatching`).

    ``roma`` and ``rama`` are defined on complete graphs (seed 002): they run on the complete
    graph of ``graph``'s dense weight matrix, where non-edges weigh 0, start from
    ``mate="i,i+1"`` unless told, and need an even ``n`` (or ``pad=True``).  The pairs of that
    perfect matching that are not edges of ``graph`` are then dropped (``stats["dropped"]``
    counts them): they weigh 0, so the result is a matching of ``graph`` with the same weight.
    The dense matrix takes ``8 n^2`` bytes; above ``max_memory`` bytes in all (default half the
    memory available) the call refuses with ``InvalidArgument`` before allocating, as
    ``bsuitor`` does for its partners table (a row of ``min(b, degree)`` entries per vertex).

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
    >>> maximum_weight_matching(g, "greedy", backend="cpu").weight
    3.0
    >>> r = maximum_weight_matching(g, "roma", backend="cpu", mate="i,i+n/2")   # 0-2 and 1-3 are no edges
    >>> r.mate.tolist(), r.weight, r.stats["dropped"], r.valid
    ([-1, 2, 1, -1], 3.0, 1, True)
    """
    if not isinstance(graph, WeightedGraph):
        raise InvalidArgumentType(f"graph must be a WeightedGraph, got {type(graph).__name__}")
    if algorithm not in WEIGHTED_ALGORITHMS:
        raise InvalidArgument(f"algorithm={algorithm!r} is not one of {WEIGHTED_ALGORITHMS}")
    if algorithm in _GPU_WEIGHTED:
        chosen, reason = choose_backend(backend, graph.n_edges)
    elif backend in ("auto", "cpu"):
        chosen, reason = "cpu", "a sequential reference runs on cpu"
    else:
        raise InvalidArgument(f"{algorithm!r} is a sequential reference: it runs on the cpu backend, not {backend!r}")
    if algorithm in ("roma", "rama"):
        result = _complete_graph_matching(graph, algorithm, chosen, max_memory, options)
    elif algorithm == "bsuitor":
        b = options.pop("b", 1)
        found = (weighted_cpu.b_suitor(graph, b, max_memory=max_memory, **options) if chosen == "cpu"
                 else b_suitor(graph, b, backend=chosen, max_memory=max_memory, **options))
        partners = found.partners
        single = partners.ndim == 2 and partners.shape[1] == 1
        mate = partners[:, 0] if single else np.full(graph.n, -1, np.int32)
        result = WeightedMatching(mate, found.weight, algorithm, chosen, dict(found.stats, partners=partners.tolist(),
                                  b=b), graph, partners, b)
    elif chosen != "cpu":
        function = {"suitor": suitor, "ld": locally_dominant}[algorithm]
        result = function(graph, backend=chosen, **options)
    else:
        name = {"ld": "locally_dominant", "pga": "path_growing"}.get(algorithm, algorithm)
        reference = getattr(weighted_cpu, name)(graph, **options)
        result = WeightedMatching(reference.mate, reference.weight, algorithm, "cpu", dict(reference.stats), graph)
    result.stats["chosen"] = reason
    return result


def _complete_graph_matching(graph: WeightedGraph, algorithm: str, chosen: str, max_memory: int | None,
                             options: dict) -> WeightedMatching:
    """ROMA or RAMA on the complete graph of ``graph``'s dense matrix, then only the pairs that are edges."""
    mate = options.pop("mate", "i,i+1")
    n = graph.n
    check_memory(weighted_cpu.augmentation_bytes(n, mate, chosen != "cpu"), max_memory,
                 f"{algorithm} on {n} vertices: a dense {n} x {n} weight matrix (complete graphs only)")
    weights = graph.to_scipy().toarray()
    if chosen != "cpu":
        found = roma(weights, mate, backend=chosen, max_memory=max_memory, **options)
    else:
        found = getattr(weighted_cpu, algorithm)(weights, mate, max_memory=max_memory, **options)
    del weights
    complete = np.asarray(found.mate, np.int32)
    kept = _edges_only(graph, complete)
    stats = dict(found.stats, dropped=int(np.count_nonzero(kept != complete)) // 2)
    return WeightedMatching(kept, found.weight, algorithm, chosen, stats, graph)


def _edges_only(graph: WeightedGraph, mate: np.ndarray) -> np.ndarray:
    """``mate`` without the pairs that are not edges of ``graph`` (their vertices become unmatched)."""
    kept = mate.copy()
    first = np.flatnonzero(mate > np.arange(mate.size))
    gone = first[edge_positions(graph, first, mate[first]) < 0]
    kept[gone] = -1
    kept[mate[gone]] = -1
    return kept
