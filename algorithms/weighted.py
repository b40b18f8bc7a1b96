"""Half-approximate weighted matching on GPUs: Suitor and Locally-Dominant (seed 003, Paper I).

Both ([003]_) compute exactly the greedy matching: edges by decreasing weight, ties to the larger
``(max(u, v), min(u, v))`` (see :func:`gpusim.algorithms.weighted_cpu.greedy`).  To compare
(weight, vertex) pairs with one integer comparison, the host replaces each weight by its dense
rank ``key`` (1 for the lightest positive weight; 0 for weight 0, never matched) and stores
``key << 32`` per edge; a vertex's offer to a neighbour is then ``key << 32 | vertex`` and its
preference for a neighbour ``key << 32 | neighbour`` — one ``int64`` each, compared exactly as
the float64 weights and ids would be.  ``ws[v]`` holds the best offer ``v`` has received (0:
none) and is only ever raised by ``atomic_cas``.

References
----------
.. [003] M. Naim, "GPU algorithms for matching and clustering", PhD thesis, Bergen 2017,
   Paper I: M. Naim, F. Manne, M. Halappanavar, A. Tumeo, J. Langguth, "Optimizing approximate
   weighted matching on Nvidia Kepler K40", HiPC 2015 (seed 003).

Example
-------
>>> from gpusim.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
>>> suitor(g, backend="sim").mate.tolist()
[-1, 2, 1, -1]
>>> locally_dominant(g, backend="sim").mate.tolist()
[-1, 2, 1, -1]
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from gpusim import T, device, kernel
from gpusim.device import Device
from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.graphs import WeightedGraph
from gpusim.reductions import warp_reduce_max

from .common import Launcher, fill, grid_for

__all__ = [
    "WEIGHTED_ALGORITHMS", "WeightedMatching", "best_offer", "ld_candidates", "ld_match", "locally_dominant",
    "maximum_weight_matching", "propose", "suitor", "suitor_thread_per_vertex", "suitor_warp_per_vertex",
]

LOW = 0xFFFFFFFF  # the vertex half of a packed offer


@device
def best_offer(ptr, adj, edge_key, ws, current):
    """The neighbour ``current`` should propose to, packed ``key << 32 | neighbour``; 0 for none.

    A neighbour qualifies when ``current``'s offer beats the best it holds (Alg. 3 line 14).
    ``ws`` is read without an atomic: the proposal re-checks it by compare-and-swap.
    """
    best = T.i64(0)
    for j in range(ptr[current], ptr[current + 1]):
        if edge_key[j] > 0:
            if (edge_key[j] | T.i64(current)) > ws[adj[j]]:
                best = max(best, edge_key[j] | T.i64(adj[j]))
    return best


@device
def propose(ws, partner, offer, low):
    """Make ``offer`` to ``partner`` by CAS (Alg. 3 lines 19–29, the lock replaced by a CAS loop).

    Returns the suitor it displaced, -1 when ``partner`` had none, or -2 when ``partner`` already
    holds a better offer (the proposer must search again).
    """
    outcome = -3
    while outcome == -3:
        held = T.atomic_load(ws, partner)
        if offer <= held:
            outcome = -2
        elif T.atomic_cas(ws, partner, held, offer) == held:
            if held == 0:
                outcome = -1
            else:
                outcome = T.i32(held & low)
    return outcome


@kernel(signature="int32[:], int32[:], int64[:], int64[:], int32, int64")
def suitor_thread_per_vertex(ptr, adj, edge_key, ws, n, low):
    """Suitor with a thread per vertex (seed 003, Paper I, Alg. 3): propose, and carry on for whoever was displaced."""
    u = T.gtid()
    while u < n:
        current = u
        while current >= 0:
            best = best_offer(ptr, adj, edge_key, ws, current)
            if best == 0:
                current = -1
            else:
                partner = T.i32(best & low)
                outcome = propose(ws, partner, (best - T.i64(partner)) | T.i64(current), low)
                if outcome != -2:
                    current = outcome
        u += T.num_threads()


@kernel(signature="int32[:], int32[:], int64[:], int64[:], int32, int32, int64")
def suitor_warp_per_vertex(ptr, adj, edge_key, ws, n, per_warp, low):
    """GPU-Suitor, NoSync (seed 003, Paper I, Alg. 4): a warp per vertex, ``per_warp`` vertices per warp.

    The 32 lanes split the neighbour list, a butterfly ``shfl_xor`` reduction gives every lane
    the best candidate (line 7), lane 0 proposes by CAS (line 8) and broadcasts the outcome with
    ``shfl_idx``; a displaced vertex is processed next by the same warp (line 9).  Warps never
    synchronise (NoSync).
    """
    lane = T.lane_id()
    warps = T.num_threads() // 32
    chunk = T.gtid() // 32
    while chunk * per_warp < n:
        for k in range(per_warp):
            current = chunk * per_warp + k
            if current >= n:
                current = -1
            while current >= 0:
                best = T.i64(0)
                j = ptr[current] + lane
                while j < ptr[current + 1]:
                    if edge_key[j] > 0:
                        if (edge_key[j] | T.i64(current)) > ws[adj[j]]:
                            best = max(best, edge_key[j] | T.i64(adj[j]))
                    j += 32
                best = warp_reduce_max(best)
                if best == 0:
                    current = -1
                else:
                    partner = T.i32(best & low)
                    outcome = -3
                    if lane == 0:
                        outcome = propose(ws, partner, (best - T.i64(partner)) | T.i64(current), low)
                    outcome = T.shfl_idx(outcome, 0)
                    if outcome != -2:
                        current = outcome
        chunk += warps


@kernel(signature="int32[:], int32[:], int64[:], int32[:], int32[:], int32")
def ld_candidates(ptr, adj, edge_key, mate, candidate, n):
    """ProcessVertex, first half (seed 003, Paper I, Alg. 2 lines 2–8): each free vertex points at its
    heaviest free neighbour (ties to the larger id); -1 when it has none."""
    s = T.gtid()
    while s < n:
        if mate[s] == -1:
            best = T.i64(0)
            for j in range(ptr[s], ptr[s + 1]):
                if edge_key[j] > 0:
                    if mate[adj[j]] == -1:
                        best = max(best, edge_key[j] | T.i64(adj[j]))
            if best == 0:
                candidate[s] = -1
            else:
                candidate[s] = T.i32(best & T.i64(4294967295))
        s += T.num_threads()


@kernel(signature="int32[:], int32[:], int32, int32[:]")
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


class WeightedMatching(NamedTuple):
    """A weighted matching: ``mate[v]`` is the mate of ``v`` or -1; ``weight`` the total; statistics."""

    mate: np.ndarray
    weight: float
    algorithm: str
    backend: str
    stats: dict


def _edge_keys(graph: WeightedGraph) -> np.ndarray:
    """``key << 32`` per CSR entry, ``key`` the dense rank of the weight: 1 for the lightest
    positive weight, 0 for weight 0 (never matched)."""
    weights = graph.weights
    order = np.argsort(weights, kind="stable")
    ordered = weights[order]
    rank = np.zeros(weights.size, np.int64)
    if weights.size:
        distinct = np.concatenate([[ordered[0] > 0], np.diff(ordered) > 0])
        rank[order] = np.cumsum(distinct)
    return rank << 32


def _prepare(graph, backend, device):
    if not isinstance(graph, WeightedGraph):
        raise InvalidArgumentType(f"graph must be a WeightedGraph, got {type(graph).__name__}")
    if device is not None and not isinstance(device, Device):
        raise InvalidArgumentType(f"device must be a gpusim.Device, got {device!r}")
    dev = device if device is not None else Device(backend)
    ptr = dev.array(graph.ptr)
    adj = dev.array(graph.adj if graph.adj.size else np.zeros(1, np.int32))
    keys = _edge_keys(graph)
    edge_key = dev.array(keys if keys.size else np.zeros(1, np.int64))
    return dev, Launcher(dev), ptr, adj, edge_key


def _result(graph: WeightedGraph, mate: np.ndarray, algorithm: str, backend: str, stats: dict) -> WeightedMatching:
    mate = np.asarray(mate, np.int32)
    matched = np.flatnonzero(mate > np.arange(mate.size))
    # The CSR is sorted by (row, column): find each matched pair by one search over row * n + column.
    entries = np.repeat(np.arange(graph.n, dtype=np.int64), np.diff(graph.ptr)) * graph.n + graph.adj
    found = np.searchsorted(entries, matched.astype(np.int64) * graph.n + mate[matched])
    weight = math.fsum(graph.weights[found].tolist())
    return WeightedMatching(mate, weight, algorithm, backend, stats)


def suitor(graph: WeightedGraph, *, backend: str = "auto", layout: str = "warp", vertices_per_warp: int = 4,
           device: Device | None = None) -> WeightedMatching:
    """The Suitor matching on a GPU backend: equal to the greedy matching (seed 003, Paper I, Alg. 3–4).

    Parameters
    ----------
    graph:
        An undirected graph with non-negative weights; zero-weight edges are never matched.
    backend, device:
        Where to run (``device`` wins), as :func:`gpusim.algorithms.bipartite.apfb`.
    layout:
        ``"warp"``: GPU-Suitor, a warp per vertex, NoSync (Alg. 4); ``"thread"``: a thread per
        vertex (Alg. 3 with a CAS in place of the lock).
    vertices_per_warp:
        How many consecutive vertices each warp owns (the paper's vertices-per-warp).

    Notes
    -----
    A proposal raises ``ws[partner]`` by compare-and-swap on the packed ``(key, vertex)`` word;
    the thread whose offer is displaced continues for the displaced vertex.  Offers only ever
    increase, so the CAS loop ends; the result is the greedy matching whatever the schedule.

    Examples
    --------
    >>> from gpusim.graphs import WeightedGraph
    >>> suitor(WeightedGraph.from_edges([], [], [], n=0), backend="sim").mate.tolist()
    []
    """
    if layout not in ("warp", "thread"):
        raise InvalidArgument(f"layout={layout!r} is not one of ('warp', 'thread')")
    if isinstance(vertices_per_warp, bool) or not isinstance(vertices_per_warp, int) or vertices_per_warp < 1:
        raise InvalidArgument(f"vertices_per_warp must be a positive integer, got {vertices_per_warp!r}")
    dev, launch, ptr, adj, edge_key = _prepare(graph, backend, device)
    n = graph.n
    # ws[v]: the best offer v holds, packed key << 32 | suitor; 0: no offer yet.
    ws = dev.zeros(max(n, 1), np.int64)
    if n:
        block = 32 if dev.backend == "sim" else 256
        with launch.phase("suitor"):
            if layout == "thread":
                launch(suitor_thread_per_vertex, grid_for(n, block), block, ptr, adj, edge_key, ws, n, LOW)
            else:
                warps = -(-n // vertices_per_warp)
                launch(suitor_warp_per_vertex, grid_for(32 * warps, block), block, ptr, adj, edge_key, ws, n,
                       vertices_per_warp, LOW)
    offers = dev.to_host(ws)[:n]
    mate = np.where(offers > 0, offers & LOW, -1).astype(np.int32)
    stats = {"layout": layout, "vertices_per_warp": vertices_per_warp, "launches": dict(launch.launches),
             "seconds": dict(launch.seconds)}
    return _result(graph, mate, "suitor", dev.backend, stats)


def locally_dominant(graph: WeightedGraph, *, backend: str = "auto", device: Device | None = None
                     ) -> WeightedMatching:
    """Locally-Dominant matching on a GPU backend (seed 003, Paper I, Alg. 1–2): equal to the greedy matching.

    Each round, every free vertex points at its heaviest free neighbour, and mutual pointers
    match; rounds repeat until none matches.  A thread per vertex; the host reads one flag per
    round.

    Examples
    --------
    >>> from gpusim.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 0, 1], [1, 2, 2], [2.0, 2.0, 5.0])
    >>> locally_dominant(g, backend="sim").mate.tolist()
    [-1, 2, 1]
    """
    dev, launch, ptr, adj, edge_key = _prepare(graph, backend, device)
    n = graph.n
    mate = dev.full(max(n, 1), -1, np.int32)
    candidate = dev.full(max(n, 1), -1, np.int32)
    matched = dev.zeros(1, np.int32)
    rounds = 0
    block = 32 if dev.backend == "sim" else 256
    grid = grid_for(n, block)
    while n:
        rounds += 1
        with launch.phase("rounds"):
            launch(fill, 1, 32, matched, 0, 1)
            launch(ld_candidates, grid, block, ptr, adj, edge_key, mate, candidate, n)
            launch(ld_match, grid, block, mate, candidate, n, matched)
            if not launch.flag(matched):
                break
    stats = {"rounds": rounds, "launches": dict(launch.launches), "seconds": dict(launch.seconds)}
    return _result(graph, dev.to_host(mate)[:n], "ld", dev.backend, stats)


#: Every weighted-matching algorithm by its CLI name.
WEIGHTED_ALGORITHMS = ("suitor", "ld", "greedy", "pga", "gpa", "bsuitor", "roma", "rama")
_GPU_WEIGHTED = ("suitor", "ld", "roma")


def maximum_weight_matching(graph: WeightedGraph, algorithm: str = "suitor", backend: str = "auto",
                            **options) -> WeightedMatching:
    """A half-approximate maximum-weight matching of ``graph`` by ``algorithm`` on ``backend``.

    ``suitor``, ``ld`` and ``roma`` run on the GPU backends (``sim``, ``numba``, ``cupy``) or,
    with ``backend="cpu"``, as their sequential references; ``greedy``, ``pga``, ``gpa``,
    ``bsuitor`` (option ``b``, default 1) and ``rama`` run on ``cpu``.  ``roma`` and ``rama``
    treat the graph as the complete graph of its dense weight matrix (missing edges weigh 0),
    start from ``mate="i,i+1"`` unless told, and need an even ``n`` (or ``pad=True``).
    ``stats["chosen"]`` says which backend ran and why.

    Examples
    --------
    >>> from gpusim.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
    >>> maximum_weight_matching(g, "greedy", backend="cpu").weight
    3.0
    """
    from . import weighted_cpu
    from .common import resolve_backend
    from .roma import roma

    if not isinstance(graph, WeightedGraph):
        raise InvalidArgumentType(f"graph must be a WeightedGraph, got {type(graph).__name__}")
    if algorithm not in WEIGHTED_ALGORITHMS:
        raise InvalidArgument(f"algorithm={algorithm!r} is not one of {WEIGHTED_ALGORITHMS}")
    if algorithm in _GPU_WEIGHTED:
        chosen, reason = resolve_backend(backend, graph.n_edges)
    elif backend in ("auto", "cpu"):
        chosen, reason = "cpu", "a sequential reference runs on cpu"
    else:
        raise InvalidArgument(f"{algorithm!r} is a sequential reference: it runs on the cpu backend, not {backend!r}")
    dense = algorithm in ("roma", "rama")
    if dense:
        weights = graph.to_scipy().toarray()
        options.setdefault("mate", "i,i+1")
    if chosen != "cpu":
        function = {"suitor": suitor, "ld": locally_dominant}.get(algorithm)
        result = roma(weights, backend=chosen, **options) if dense else function(graph, backend=chosen, **options)
    else:
        if dense:
            mate = options.pop("mate")
            reference = getattr(weighted_cpu, algorithm)(weights, mate, **options)
        elif algorithm == "bsuitor":
            b = options.pop("b", 1)
            reference = weighted_cpu.b_suitor(graph, b, **options)
            partners = reference.partners
            mate = partners[:, 0] if partners.ndim == 2 and partners.shape[1] == 1 else None
            stats = dict(reference.stats, partners=partners.tolist(), b=b)
            return WeightedMatching(mate if mate is not None else np.full(graph.n, -1, np.int32), reference.weight,
                                    algorithm, "cpu", dict(stats, chosen=reason))
        else:
            name = {"ld": "locally_dominant", "pga": "path_growing"}.get(algorithm, algorithm)
            reference = getattr(weighted_cpu, name)(graph, **options)
        result = WeightedMatching(np.asarray(reference.mate, np.int32), reference.weight, algorithm, "cpu",
                                  dict(reference.stats))
    result.stats["chosen"] = reason
    return result
