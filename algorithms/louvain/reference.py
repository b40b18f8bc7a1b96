"""Two sequential Louvain references, compiled with numba for the CPU.

:func:`blondel_louvain` is the original method (Blondel, Guillaume, Lambiotte, Lefebvre 2008): vertices
move one at a time, each seeing every move before it; the paper's baseline for quality and speed.

:func:`bucket_louvain` emulates the GPU algorithm of Naim et al. (IPDPS 2017) step for step, sequentially:
vertex following at each phase's start (a vertex with one neighbour starts in its community, [16]); the
degree buckets of §4.1 in order, every vertex of a bucket choosing from the same state (Algorithm 2, with
the move rules of §4: best score, ties to the lowest community id, and a singleton whose best community
is a singleton of higher id stays, as in [16]); moves applied and ``a_c`` recomputed after each bucket;
the best partition of a phase kept; and Algorithm 3's numbering of the new vertices (by increasing
community id).  It makes the decisions the kernels make, so its labels equal the simulator's whenever
the sums of weights are exact (integer weights, say); with other weights, sums taken in another order
may round differently and break an exact tie another way.

>>> from gpusim.algorithms.louvain.graph import karate
>>> r = bucket_louvain(karate())
>>> r.n_communities, round(r.modularity, 4)
(4, 0.4198)
>>> round(blondel_louvain(karate()).modularity, 4) >= 0.41
True
"""

from __future__ import annotations

import time

import numba
import numpy as np

from gpusim.errors import InvalidArgument
from gpusim.runtime.registry import register
from gpusim.types.arguments import check_int

from .graph import LouvainGraph, list_sums
from .parallel import PARALLEL_ENTRIES, PARALLEL_FROM, bucket_moves, scratch
from .parallel_modularity import inside_weights, inside_weights_sequential
from .result import CommunityResult

__all__ = ["DEGREE_BOUNDS", "EARLY_SWEEPS", "blondel_louvain", "bucket_bounds", "bucket_louvain", "bucket_optimiser",
           "by_levels", "climb", "contract", "dip_rule_for", "enough", "goes_conflict_free", "host_arrays",
           "partition_modularity", "phase_limit"]

#: The degree buckets of §4.1, as in :data:`gpusim.algorithms.louvain.kernels_move.DEGREE_BUCKETS`.
DEGREE_BOUNDS = (4, 8, 16, 32, 84, 319)


def bucket_bounds(name: str, value, paper: tuple[int, ...]) -> tuple[int, ...]:
    """The GPU method's ``degree_buckets`` or ``community_buckets`` checked: up to as many ascending bounds as the
    paper's, each at most the paper's (so the hash tables fit their groups' slots), the bounds not given the paper's
    (a comma-separated string read as integers)."""
    if isinstance(value, str):
        try:
            value = tuple(int(part) for part in value.split(","))
        except ValueError:
            raise InvalidArgument(f"{name}={value!r} must be up to {len(paper)} comma-separated integers") from None
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or not 1 <= len(value) <= len(paper):
        raise InvalidArgument(f"{name}={value!r} must be 1 to {len(paper)} ascending bounds (the paper's: {paper})")
    bounds = tuple(check_int(name, bound, 1, None) for bound in value) + tuple(paper[len(value):])
    if any(b > c for b, c in zip(bounds, bounds[1:], strict=False)) or any(b > p for b, p in zip(bounds, paper,
                                                                                               strict=True)):
        raise InvalidArgument(f"{name}={bounds} must be ascending, each at most the paper's {paper} (the hash tables "
                              f"fit their groups' slots up to those degrees)")
    return bounds


@numba.njit(cache=True)
def _score(e, ki, a_c, m, gamma):
    """:func:`~gpusim.algorithms.louvain.hashing.score`: Eq. (2)'s terms for the target community, times ``2 m^2``."""
    return 2.0 * m * e - gamma * ki * a_c


@numba.njit(cache=True)
def _neighbour_communities(v, ptr, adj, w, C, acc, touched):
    """``acc[c]``: the weight from ``v`` to each neighbouring community ``c`` (-1: none), the communities listed in
    ``touched``; returns how many.  The caller resets ``acc`` at them."""
    n_touched = 0
    for e in range(ptr[v], ptr[v + 1]):
        j = adj[e]
        if j != v:
            c = C[j]
            if acc[c] < 0.0:
                acc[c] = 0.0
                touched[n_touched] = c
                n_touched += 1
            acc[c] += w[e]
    return n_touched


@numba.njit(cache=True)
def _bucket_moves(ptr, adj, w, C, k, a, csize, vset, m, gamma, new_comm, acc, touched):
    """Algorithm 2 for every vertex of ``vset`` from the same state; ``new_comm`` receives the choices."""
    for v in vset:
        own = C[v]
        n_touched = _neighbour_communities(v, ptr, adj, w, C, acc, touched)
        best = -1
        best_s = 0.0
        for t in range(n_touched):
            c = touched[t]
            if c != own:
                sc = _score(acc[c], k[v], a[c], m, gamma)
                if best < 0 or sc > best_s or (sc == best_s and c < best):
                    best, best_s = c, sc
        new_comm[v] = own
        if best >= 0 and not (csize[own] == 1 and csize[best] == 1 and best > own):
            e_own = acc[own] if acc[own] >= 0.0 else 0.0
            if _score(acc[best], k[v], a[best], m, gamma) > _score(e_own, k[v], a[own] - k[v], m, gamma):
                new_comm[v] = best
        for t in range(n_touched):
            acc[touched[t]] = -1.0


@numba.njit(cache=True)
def _priority(v, salt):
    """:func:`~gpusim.algorithms.louvain.kernels_apply.priority`."""
    return (v * 1103515245 + salt * 40503 + 12345) % 2147483648


@numba.njit(cache=True)
def _independent_moves(ptr, adj, C, new_comm, vset, moving, salt):
    """:func:`~gpusim.algorithms.louvain.kernels_apply.apply_independent_moves`: a mover of ``vset`` moves only if
    no neighbour that also moves has a higher priority."""
    for v in vset:
        moving[v] = new_comm[v] != C[v]
    for v in vset:
        if moving[v]:
            free = True
            for e in range(ptr[v], ptr[v + 1]):
                j = adj[e]
                if j != v and moving[j] and _priority(j, salt) > _priority(v, salt):
                    free = False
            if free:
                C[v] = new_comm[v]
    for v in vset:
        moving[v] = False


@numba.njit(cache=True)
def _wake_neighbours(ptr, adj, C, new_comm, vset, active, sweep):
    """:func:`~gpusim.algorithms.louvain.kernels_apply.wake_neighbours`: each neighbour of a vertex of ``vset`` that
    chose another community is looked at again from ``sweep``."""
    for v in vset:
        if new_comm[v] != C[v]:
            for e in range(ptr[v], ptr[v + 1]):
                if adj[e] != v:
                    active[adj[e]] = max(active[adj[e]], sweep)


@numba.njit(cache=True)
def _sequential_pass(ptr, adj, w, C, k, a, order, m, gamma, acc, touched):
    """One pass of Blondel et al.: each vertex in turn leaves its community and joins the best one."""
    moved = 0
    for v in order:
        own = C[v]
        n_touched = _neighbour_communities(v, ptr, adj, w, C, acc, touched)
        a[own] -= k[v]
        best = own
        best_s = _score(acc[own] if acc[own] >= 0.0 else 0.0, k[v], a[own], m, gamma)
        for t in range(n_touched):
            c = touched[t]
            sc = _score(acc[c], k[v], a[c], m, gamma)
            if sc > best_s:
                best, best_s = c, sc
        a[best] += k[v]
        if best != own:
            C[v] = best
            moved += 1
        for t in range(n_touched):
            acc[touched[t]] = -1.0
    return moved


def partition_modularity(ptr, adj, w, C, a, two_m, gamma, parallel: bool = False) -> float:
    """Q of the partition ``C`` (community totals ``a``): per-vertex sums (on every core with ``parallel`` from
    ``PARALLEL_FROM`` vertices: the same sums; the parallel loop compiles once per process), then one sum."""
    inside = np.empty(ptr.size - 1)
    on_threads = parallel and inside.size >= PARALLEL_FROM
    (inside_weights if on_threads else inside_weights_sequential)(ptr, adj, w, C, inside)
    return float(inside.sum()) / two_m - gamma * float((a * a).sum()) / (two_m * two_m)


def contract(ptr, adj, w, C) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Algorithm 3 on the host: ``(ptr, adj, w, new_id)`` of the community graph, ``A'[c, d] = sum A[i, j]``;
    the non-empty communities numbered by increasing id, each row's neighbours in increasing order.

    >>> ptr, adj, w = np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1]), np.ones(4)   # a path 0 - 1 - 2
    >>> [a.tolist() for a in contract(ptr, adj, w, np.array([0, 0, 2]))]
    [[0, 2, 3], [0, 1, 0], [2.0, 1.0, 1.0], [0, 0, 1]]
    """
    n = ptr.size - 1
    used = np.zeros(n, bool)
    used[C] = True
    new_id = np.cumsum(used) - 1
    n_new = int(used.sum())
    community = new_id[C]
    members_ptr = np.zeros(n_new + 1, np.int64)
    np.cumsum(np.bincount(community, minlength=n_new), out=members_ptr[1:])
    members = np.argsort(community, kind="stable")
    new_ptr, new_adj, new_w = _contract_rows(ptr, adj, w, community, members_ptr, members, n_new)
    return new_ptr.astype(np.int32), new_adj.astype(np.int32), new_w, new_id.astype(np.int32)


@numba.njit(cache=True)
def _contract_rows(ptr, adj, w, community, members_ptr, members, n_new):  # pragma: no cover - compiled
    """Each community's row: its members' entries summed by the other end's community (members in increasing
    id, entries in order), neighbours sorted."""
    acc = np.zeros(n_new, np.float64)
    seen = np.zeros(n_new, np.bool_)
    touched = np.empty(n_new, np.int64)
    out_ptr = np.zeros(n_new + 1, np.int64)
    out_adj = np.empty(adj.shape[0], np.int64)
    out_w = np.empty(adj.shape[0], np.float64)
    at = 0
    for c in range(n_new):
        count = 0
        for i in range(members_ptr[c], members_ptr[c + 1]):
            v = members[i]
            for e in range(ptr[v], ptr[v + 1]):
                d = community[adj[e]]
                if not seen[d]:
                    seen[d] = True
                    touched[count] = d
                    count += 1
                acc[d] += w[e]
        row = np.sort(touched[:count])
        for j in range(count):
            d = row[j]
            out_adj[at] = d
            out_w[at] = acc[d]
            at += 1
            acc[d] = 0.0
            seen[d] = False
        out_ptr[c + 1] = at
    return out_ptr, out_adj[:at].copy(), out_w[:at].copy()


def host_arrays(graph: LouvainGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``ptr``, ``adj`` (int64) and the weights (float64) of ``graph``, as the compiled loops take them."""
    return graph.ptr.astype(np.int64), graph.adj.astype(np.int64), graph.weights.astype(np.float64)


def phase_limit(level: int, vertices_with_edges: int, input_with_edges: int, threshold: float, bin_threshold: float,
                bin_vertices: int, tolerance_drop: float | None) -> float:
    """The gain below which a phase's sweeps stop at ``level`` (0 for the input graph and its refinement).

    ``tolerance_drop=None``: the paper's rule (§5), ``t_bin`` while more than ``bin_vertices`` vertices of the level
    have an edge, else ``t_final``.  A number ``d`` (GVE-Louvain's tolerance drop, Sahu 2025): when the *input* has
    more than ``bin_vertices`` vertices with an edge, ``max(t_final, t_bin / d^level)``, else ``t_final``.  The
    paper's rule gives a coarse level of a large graph (a few thousand vertices) ``t_final`` at once, where its
    sweeps gain little each (29 sweeps at the third level of a planted partition of 4 million vertices).

    >>> phase_limit(2, 5_000, 4_000_000, 1e-6, 1e-2, 100_000, None), phase_limit(2, 5_000, 4_000_000, 1e-6, 1e-2,
    ...                                                                      100_000, 10.0)
    (1e-06, 0.0001)
    """
    if tolerance_drop is None:
        return bin_threshold if vertices_with_edges > bin_vertices else threshold
    return max(threshold, bin_threshold / tolerance_drop**level) if input_with_edges > bin_vertices else threshold


def enough(before: int, after: int, aggregation_tolerance: float | None) -> bool:
    """Whether a level that took ``before`` vertices with an edge to ``after`` is the last (GVE-Louvain's aggregation
    tolerance, Sahu 2025): it kept more than ``aggregation_tolerance`` of them, so the next would merge little
    more at the cost of a whole phase (an R-MAT graph's levels after the second merged a few dozen of 1.2 million).
    ``None``: never (the paper's outer loop).

    >>> enough(1_000, 900, 0.8), enough(1_000, 500, 0.8), enough(1_000, 900, None)
    (True, False, False)
    """
    return aggregation_tolerance is not None and after > aggregation_tolerance * before


def by_levels(graph: LouvainGraph, optimise, threshold, bin_threshold, bin_vertices, gamma, algorithm,
              tolerance_drop=None, aggregation_tolerance=None):
    """The outer loop both references share: optimise, contract, until a level gains too little."""
    start = time.perf_counter()
    levels, level_q, sweeps, first_q = [], [], [], 0.0
    if graph.n and graph.total_weight > 0:
        limits = (threshold, bin_threshold, bin_vertices, tolerance_drop)
        levels, level_q, sweeps, first_q = climb(*host_arrays(graph), optimise, limits, aggregation_tolerance,
                                                 isolated=graph.n_isolated)
    final = levels[-1] if levels else np.arange(graph.n, dtype=np.int32)
    stats = {"levels": len(levels), "sweeps": sweeps, "communities": [int(lv.max()) + 1 for lv in levels],
             "seconds": {"total": time.perf_counter() - start}}
    return CommunityResult(graph, final, level_q[-1] if levels else first_q, levels, level_q, algorithm, "cpu",
                           stats, gamma)


def climb(ptr, adj, w, optimise, limits: tuple, aggregation_tolerance: float | None, *, isolated: int,
          first_level: int = 0, input_with_edges: int | None = None) -> tuple[list, list, list, float]:
    """Levels ``first_level``, ``first_level + 1``, ... of the graph ``ptr, adj, w`` (host arrays, int64
    indices, ``isolated`` of its vertices without an edge): optimise, contract, until a level gains less than
    ``limits[0]`` or keeps too many vertices.  ``limits`` are :func:`phase_limit`'s ``threshold, bin_threshold,
    bin_vertices, tolerance_drop``; ``input_with_edges`` the input graph's vertices with an edge (this graph's
    by default).  Returns ``(levels, level_q, sweeps, first_q)``: each level's community of every vertex of
    this graph, its best Q and sweeps, and the Q the first level started from."""
    n0 = ptr.size - 1
    input_with_edges = n0 - isolated if input_with_edges is None else input_with_edges
    labels = np.arange(n0, dtype=np.int32)
    levels, level_q, sweeps, first_q = [], [], [], 0.0
    while ptr.size > 1:
        n = ptr.size - 1
        limit = phase_limit(first_level + len(levels), n - isolated, input_with_edges, *limits)
        C, q0, q_best, level_sweeps = optimise(ptr, adj, w, limit)
        first_q = q0 if not levels else first_q
        if np.unique(C).size == n:
            break
        ptr, adj, w, new_id = contract(ptr, adj, w, C)
        ptr, adj = ptr.astype(np.int64), adj.astype(np.int64)
        labels = new_id[C[labels]].astype(np.int32)
        levels.append(labels)
        level_q.append(q_best)
        sweeps.append(level_sweeps)
        if q_best - q0 < limits[0] or enough(n - isolated, ptr.size - 1 - isolated, aggregation_tolerance):
            break   # t_bin ends phases early, not the outer loop (driver's docstring)
    return levels, level_q, sweeps, first_q


def _follow_leaves(ptr, adj) -> np.ndarray:
    """Vertex following (:func:`~gpusim.algorithms.louvain.kernels_move.follow_leaves`): ``C`` at a phase's start."""
    n = ptr.size - 1
    C = np.arange(n, dtype=np.int64)
    degree = np.diff(ptr)
    leaf = np.flatnonzero(degree == 1)
    j = adj[ptr[leaf]]
    follow = (j != leaf) & ((degree[j] > 1) | (j < leaf))
    C[leaf[follow]] = j[follow]
    return C


#: ``dip_rule="early"``, on an input of more than ``bin_vertices`` vertices with an edge: a dip after this many sweeps
#: of a phase ends the phase.
EARLY_SWEEPS = 2


def dip_rule_for(dip_rule: str, input_with_edges: int, bin_vertices: int) -> str:
    """The rule a run applies: ``"early"`` is ``"independent"`` on an input of at most ``bin_vertices`` vertices with
    an edge, where conflict-free sweeps after a late dip cost little and LFR graphs of mixing 0.3-0.4 need them.

    >>> dip_rule_for("early", 1_000, 100_000), dip_rule_for("early", 4_000_000, 100_000)
    ('independent', 'early')
    """
    return "independent" if dip_rule == "early" and input_with_edges <= bin_vertices else dip_rule


def goes_conflict_free(dip_rule: str, sweeps: int) -> bool:
    """Whether a phase whose sweep ``sweeps`` (counted from 1) lowered modularity goes back to its best partition and
    on with conflict-free sweeps, under the rule :func:`dip_rule_for` gives; else it stops with its best partition
    (Alg. 1 line 12).  ``"early"``: only after a dip in the first :data:`EARLY_SWEEPS` sweeps, where many vertices
    moved at once; a later dip is the sweeps swapping vertices about a partition already found (the random geometric
    graph of 2^20 vertices: 58 sweeps with conflict-free sweeps after every dip, 41 with ``"early"``, the modularity
    0.02 % lower).

    >>> [goes_conflict_free("early", sweeps) for sweeps in (1, 2, 3)], goes_conflict_free("paper", 1)
    ([True, True, False], False)
    """
    return dip_rule == "independent" or (dip_rule == "early" and sweeps <= EARLY_SWEEPS)


def bucket_optimiser(*, resolution: float, bounds: tuple[int, ...], dip_rule: str, follow_leaves: bool,
                     parallel: bool, prune: bool, conflict_free_from: list):
    """Algorithm 1 as the GPU method decides it, for :func:`climb`: ``optimise(ptr, adj, w, limit, start=None)``
    gives ``(best C, Q at the start, best Q, sweeps)`` of one phase, from ``start`` when given (the refinement)
    or singletons (after vertex following).  ``bounds``: the degree buckets' upper bounds (none: one bucket);
    each phase appends the sweep its conflict-free sweeps began at (or None) to ``conflict_free_from``."""
    bounds = np.array(bounds, np.int64)

    def optimise(ptr, adj, w, limit, start=None):
        n = ptr.size - 1
        k = list_sums(ptr, w)
        two_m = float(k.sum())
        if start is not None:
            C = start.astype(np.int64)
        else:
            C = _follow_leaves(ptr, adj) if follow_leaves else np.arange(n, dtype=np.int64)
        degree = np.diff(ptr)
        bucket = np.searchsorted(bounds, degree, side="left")
        vsets = [np.flatnonzero((bucket == b) & (degree > 0)) for b in range(bounds.size + 1)]
        # a bucket goes to the threads when it holds many vertices or many entries (a coarse level's few heavy rows)
        threaded = [parallel and (vset.size >= PARALLEL_FROM or int(degree[vset].sum()) >= PARALLEL_ENTRIES)
                    for vset in vsets]
        new_comm, moving = C.copy(), np.zeros(n, bool)
        active = np.zeros(n, np.int64)   # the sweep from which each vertex is looked at again (pruning)
        acc, touched = scratch(n) if parallel else (np.full(n, -1.0), np.zeros(n, np.int64))

        def totals():
            return np.bincount(C, k, minlength=n), np.bincount(C, minlength=n)

        a, csize = totals()
        q = q_start = best_q = partition_modularity(ptr, adj, w, C, a, two_m, resolution, parallel)
        best, sweeps, independent = C.copy(), 0, False
        conflict_free_from.append(None)
        while True:
            taken = active >= sweeps
            for vset, on_threads in zip(vsets, threaded, strict=True):
                if prune:
                    vset = vset[taken[vset]]
                    on_threads = parallel and (vset.size >= PARALLEL_FROM
                                               or int(degree[vset].sum()) >= PARALLEL_ENTRIES)
                if vset.size:
                    if on_threads:   # a small bucket: threads cost more than they save
                        bucket_moves(ptr, adj, w, C, k, a, csize, vset, two_m / 2.0, resolution, new_comm, acc, touched)
                    else:
                        _bucket_moves(ptr, adj, w, C, k, a, csize, vset, two_m / 2.0, resolution, new_comm,
                                      acc[0] if parallel else acc, touched[0] if parallel else touched)
                    if prune:
                        _wake_neighbours(ptr, adj, C, new_comm, vset, active, sweeps + 1)
                    if independent:
                        _independent_moves(ptr, adj, C, new_comm, vset, moving, sweeps)
                    else:
                        C[vset] = new_comm[vset]
                    a, csize = totals()
            sweeps += 1
            q_new = partition_modularity(ptr, adj, w, C, a, two_m, resolution, parallel)
            if q_new > best_q:
                best_q, best = q_new, C.copy()
            if q_new - q >= limit:
                q = q_new
            elif q_new < q and not independent and goes_conflict_free(dip_rule, sweeps):
                independent, q, C[:] = True, best_q, best
                conflict_free_from[-1] = sweeps
                active[:] = sweeps
                a, csize = totals()
            else:
                return best, q_start, best_q, sweeps

    return optimise


def bucket_louvain(graph: LouvainGraph, *, resolution: float = 1.0, threshold: float = 1e-6,
                   bin_threshold: float = 1e-2, bin_vertices: int = 100_000, layout: str = "buckets",
                   dip_rule: str = "early", follow_leaves: bool = True, refine: bool = True,
                   parallel: bool = False, degree_buckets: tuple[int, ...] = DEGREE_BOUNDS,
                   tolerance_drop: float | None = 10.0, prune: bool = True,
                   aggregation_tolerance: float | None = 0.8) -> CommunityResult:
    """The GPU algorithm's decisions, sequentially (see the module docstring); the simulator's oracle.

    ``layout="thread"`` puts every vertex in one bucket, as the one-thread-per-vertex kernel does;
    ``dip_rule``, ``follow_leaves``, ``refine``, ``degree_buckets`` (the buckets' upper bounds), ``tolerance_drop``
    (:func:`phase_limit`), ``prune`` and ``aggregation_tolerance`` (:func:`enough`) are
    :func:`~gpusim.algorithms.louvain.driver.gpu_louvain`'s.  With ``prune``, a sweep looks only at the vertices a
    neighbour's move woke in the sweep before (all of them in a phase's first sweep and after a dip), each bucket's
    movers waking their neighbours before they move.
    ``parallel=True``: each bucket's moves are decided on every core
    (:func:`~gpusim.algorithms.louvain.parallel.bucket_moves`, the same choices): the CPU engine.
    """
    bounds = tuple(degree_buckets) if layout == "buckets" else ()
    dip_rule = dip_rule_for(dip_rule, graph.n - graph.n_isolated, bin_vertices)
    conflict_free_from: list[int | None] = []
    optimise = bucket_optimiser(resolution=resolution, bounds=bounds, dip_rule=dip_rule, follow_leaves=follow_leaves,
                                parallel=parallel, prune=prune, conflict_free_from=conflict_free_from)
    result = by_levels(graph, optimise, threshold, bin_threshold, bin_vertices, resolution, "louvain-buckets-reference",
                       tolerance_drop, aggregation_tolerance)
    stats = {**result.stats, "conflict_free_from": conflict_free_from, "follow_leaves": follow_leaves,
             "refine_sweeps": None}
    if refine and result.levels:   # the driver's refinement: the input graph's vertices moved from the last level
        with_edges = graph.n - graph.n_isolated
        limit = phase_limit(0, with_edges, with_edges, threshold, bin_threshold, bin_vertices, tolerance_drop)
        C, _, q, stats["refine_sweeps"] = optimise(*host_arrays(graph), limit, start=result.labels)
        labels = np.unique(C, return_inverse=True)[1].astype(np.int32)   # numbered by increasing id, as Alg. 3
        return CommunityResult(graph, labels, q, result.levels, result.level_modularity, result.algorithm, "cpu",
                               stats, resolution)
    result.stats = stats
    return result


@register("communities", "blondel", backends=("cpu",),
          title="Louvain (Blondel et al. 2008): one vertex moved at a time, then contraction",
          paper=("blondel2008", "naim2017louvain"), where="",
          guarantees="a partition; no single move of a vertex gains modularity at the last level")
def blondel_louvain(graph: LouvainGraph, backend: str = "cpu", *, resolution: float = 1.0, threshold: float = 1e-6,
                    seed: int | None = None) -> CommunityResult:
    """The original sequential Louvain method; ``seed`` shuffles the order vertices are visited in (default: by id)."""
    rng = None if seed is None else np.random.default_rng(seed)

    def optimise(ptr, adj, w, limit):
        n = ptr.size - 1
        k = list_sums(ptr, w)
        two_m = float(k.sum())
        C = np.arange(n, dtype=np.int64)
        a = k.copy()
        order = np.arange(n) if rng is None else rng.permutation(n)
        acc, touched = np.full(n, -1.0), np.zeros(n, np.int64)
        q = q_start = partition_modularity(ptr, adj, w, C, a, two_m, resolution)
        sweeps = 0
        while True:
            moved = _sequential_pass(ptr, adj, w, C, k, a, order, two_m / 2.0, resolution, acc, touched)
            sweeps += 1
            q_new = partition_modularity(ptr, adj, w, C, np.bincount(C, k, minlength=n), two_m, resolution)
            if moved == 0 or q_new - q < limit:
                return C, q_start, q_new, sweeps
            q = q_new

    return by_levels(graph, optimise, threshold, threshold, 0, resolution, "louvain-blondel")
