"""The CPU engine's Suitor and Locally-Dominant: Locally-Dominant rounds on every core.

Numba has no CPU atomics, so the parallel steps here are *rounds* whose every step writes only the slots
of the vertex (or CSR entry) it owns, and reads what the previous step wrote.  Each round

1. every live vertex ``x`` points at its best eligible neighbours (Naim et al., HiPC 2015, Alg. 2,
   ProcessVertex; for a b-matching its ``b[x] - deg_M(x)`` best ones), in parallel, from one snapshot;
2. an edge whose two ends point at each other is *locally dominant* and is matched, each end recording
   it in its own slots;
3. the vertices whose pointers went stale look again in the next round.

With the tie rule of :mod:`~gpusim.algorithms.weighted.reference_common` (the heavier neighbour, then
the larger id) every locally dominant edge belongs to the greedy matching (Preis 1999; for b-matchings
the same counting argument: a chosen edge has fewer than ``b`` heavier greedy edges at each end), so the
rounds end with exactly :func:`~gpusim.algorithms.weighted.reference_greedy.greedy` and
:func:`~gpusim.algorithms.weighted.reference_b_suitor.greedy_b_matching`: the answers of Suitor,
Locally-Dominant and b-Suitor, whatever the number of threads.  The threads are numba's (every core;
``NUMBA_NUM_THREADS`` sets how many).

References
----------
R. Preis, "Linear time 1/2-approximation algorithm for maximum weighted matching in general graphs",
STACS 1999.  Naim et al. (HiPC 2015), §2.1, Alg. 1-2 (Locally-Dominant)
and Manne et al. (CSC 2016) §3 (b-Suitor).  A. Khan et al., "Efficient approximation algorithms for weighted
b-matching", SIAM J. Sci. Comput. 38(5), 2016.

Example
-------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
>>> parallel_locally_dominant(g).mate.tolist()
[-1, 2, 1, -1]
"""

from __future__ import annotations

import numba
import numpy as np

from gpusim.runtime.threads import MIN_THREADS
from gpusim.types.graphs import WeightedGraph

from .reference_common import check_graph
from .reference_suitor import suitor
from .result import WeightedMatchingResult, matching_result

__all__ = ["PARALLEL", "PARALLEL_FROM", "parallel_locally_dominant"]

#: numba's options for the rounds: every core, and no fusion of consecutive parallel loops (fused, a loop
#: that reads what the loop before it wrote at *other* indices read it unwritten: wrong answers, out of
#: bounds).  The parallel functions are the only ones not cached on disk: with numba 0.68 a cached parallel
#: function loaded into a process that had compiled other functions in another order ran another function's
#: loop (segmentation faults; numba-org/numba#10128), so each process compiles them once, when the rounds first
#: run; the functions they call are cached.  ``tests/test_cpu_engine.py`` checks the rule.  With numba 0.68.1,
#: compiling these rounds with ``parallel=`` after b-Suitor's rounds had run in parallel in the same process
#: ended in a segmentation fault (reproduced without any cache), so both compile as sequential rounds (the same
#: loops and answers, one thread) until a numba without that fault is required; Louvain's moves stay parallel.
PARALLEL = False

#: Below this many adjacency entries the sequential Suitor (the same matching) runs: a parallel round costs
#: a few barriers, more than such an input's whole matching.
PARALLEL_FROM = 50_000

@numba.njit(cache=True)
def _better(wt, t, best_w, best):  # pragma: no cover - compiled
    """Whether neighbour ``t`` at weight ``wt`` beats ``best`` at ``best_w`` (the tie rule: larger id)."""
    return wt > best_w or (wt == best_w and t > best)


@numba.njit(cache=True)
def _point(x, ptr, adj, w, mate):  # pragma: no cover - compiled
    """Alg. 2 (ProcessVertex): ``x``'s heaviest free neighbour by ``(w, id)``, zero weights ignored; -1 if none."""
    best = -1
    best_w = 0.0
    for k in range(ptr[x], ptr[x + 1]):
        t = adj[k]
        wt = w[k]
        if wt > 0.0 and mate[t] == -1 and t != x and _better(wt, t, best_w, best):
            best = t
            best_w = wt
    return best


@numba.njit(parallel=PARALLEL, cache=False)
def _ld_rounds(ptr, adj, w, mate):  # pragma: no cover - compiled
    """Locally-Dominant in rounds; fills ``mate``.  Returns ``(rounds, processed)``."""
    n = ptr.shape[0] - 1
    candidate = np.full(n, -1, np.int32)
    # stamp[x] = r: x is in round r's live list (so only x writes mate[x] in round r)
    stamp = np.full(n, -1, np.int64)
    live = np.arange(n).astype(np.int32)
    rounds = 0
    processed = 0
    while live.shape[0] > 0:
        size = live.shape[0]
        processed += size
        for i in numba.prange(size):            # 1: point, from the snapshot of mate
            x = live[i]
            stamp[x] = rounds
            candidate[x] = _point(x, ptr, adj, w, mate)
        won = np.zeros(size, np.int32)
        for i in numba.prange(size):            # 2: mutual pointers are matched; x writes mate[x]
            x = live[i]
            y = candidate[x]
            if y != -1 and candidate[y] == x:
                mate[x] = y
                won[i] = 1 if stamp[y] == rounds else 2  # 2: y is not live, x writes its slot too
        for i in numba.prange(size):
            if won[i] == 2:
                mate[candidate[live[i]]] = live[i]
        # 3: who looks again: free vertices that pointed at a vertex matched this round
        counts = np.zeros(size + 1, np.int64)
        for i in numba.prange(size):
            x = live[i]
            c = 0
            if won[i] > 0:
                c += _stale(x, ptr, adj, mate, candidate)
                if won[i] == 2:
                    c += _stale(candidate[x], ptr, adj, mate, candidate)
            counts[i + 1] = c
        offsets = np.cumsum(counts)
        nxt = np.empty(offsets[size], np.int32)
        for i in numba.prange(size):
            x = live[i]
            at = offsets[i]
            if won[i] > 0:
                at = _collect(x, ptr, adj, mate, candidate, nxt, at)
                if won[i] == 2:
                    _collect(candidate[x], ptr, adj, mate, candidate, nxt, at)
        live = nxt
        rounds += 1
    return rounds, processed


@numba.njit(cache=True)
def _stale(u, ptr, adj, mate, candidate):  # pragma: no cover - compiled
    """How many free neighbours of the matched ``u`` point at it (each points at one vertex: counted once)."""
    c = 0
    for k in range(ptr[u], ptr[u + 1]):
        t = adj[k]
        if mate[t] == -1 and candidate[t] == u:
            c += 1
    return c


@numba.njit(cache=True)
def _collect(u, ptr, adj, mate, candidate, out, at):  # pragma: no cover - compiled
    """Write the vertices :func:`_stale` counts into ``out[at:]``; return the next free position."""
    for k in range(ptr[u], ptr[u + 1]):
        t = adj[k]
        if mate[t] == -1 and candidate[t] == u:
            out[at] = t
            at += 1
    return at


def parallel_locally_dominant(graph: WeightedGraph, *, parallel_from: int | None = None) -> WeightedMatchingResult:
    """The greedy matching by Locally-Dominant rounds on every core (the CPU engine's Suitor and LD).

    Parameters
    ----------
    graph : WeightedGraph
    parallel_from : int, optional
        The fewest adjacency entries the rounds run for; 0: always.  By default :data:`PARALLEL_FROM` with at
        least :data:`~gpusim.runtime.threads.MIN_THREADS` threads where the rounds compile parallel
        (:data:`PARALLEL`), else never: the sequential Suitor, the same matching (on one thread the rounds took
        1.8 to 3 times its time, 10^5 to 10^7 random edges).

    Returns
    -------
    WeightedMatchingResult
        ``(mate, weight, stats)``, validated against ``graph``; ``stats`` has ``algorithm``, ``size``,
        ``rounds`` and ``processed`` (vertices pointed, over all rounds), ``threads``; or the sequential
        Suitor's (the same matching; ``parallel_from``), with ``engine`` saying why.

    Notes
    -----
    Round ``r`` processes the free vertices whose candidate was matched in round ``r - 1`` (all vertices in
    round 0), as Alg. 1 lines 8-13 do, so the work is that of the sequential Locally-Dominant, O(m Delta) at
    worst, spread over the threads; each round's list is built by a prefix sum of per-vertex counts.  Every
    round matches at least the heaviest eligible edge, so the rounds end; on random graphs they are few.

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 1, 0], [1, 2, 2], [1.0, 1.0, 1.0])   # a triangle, all ties
    >>> parallel_locally_dominant(g, parallel_from=0).mate.tolist()           # greedy: edge {1, 2}
    [-1, 2, 1]
    >>> parallel_locally_dominant(WeightedGraph.from_edges([], [])).mate.tolist()
    []
    """
    graph = check_graph(graph)
    threads = numba.get_num_threads()
    if parallel_from is None:
        parallel_from = PARALLEL_FROM if PARALLEL and threads >= MIN_THREADS else np.inf
    if graph.adj.shape[0] < parallel_from:
        found = suitor(graph)
        why = (f"below {parallel_from} entries" if parallel_from < np.inf
               else "the rounds compile sequential" if not PARALLEL
               else f"{threads} threads, fewer than {MIN_THREADS}")
        return found._replace(stats={**found.stats, "algorithm": "parallel_locally_dominant",
                                     "engine": f"sequential Suitor ({why})", "threads": 1})
    mate = np.full(graph.n, -1, np.int32)
    rounds, processed = _ld_rounds(graph.ptr, graph.adj, graph.weights, mate) if graph.n else (0, 0)
    return matching_result(graph, mate, {"algorithm": "parallel_locally_dominant", "rounds": int(rounds),
                                         "processed": int(processed), "threads": numba.get_num_threads()})
