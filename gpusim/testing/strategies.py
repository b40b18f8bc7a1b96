"""Hypothesis strategies for gpusim's inputs: graphs, preference instances, and schedules.

Every strategy checks its arguments when it is *created* and raises
:class:`gpusim.errors.InvalidArgument` (or :class:`~gpusim.errors.InvalidArgumentType`) naming the
argument, so a mistake shows at the test's definition, not inside a draw.  Each docstring says
how the examples shrink.

Examples
--------
>>> from hypothesis import given
>>> from gpusim.testing.strategies import bipartite_graphs
>>> @given(bipartite_graphs(max_rows=4, max_cols=4))
... def test_edges_fit(g):
...     assert g.n_edges <= g.n_rows * g.n_cols
>>> test_edges_fit()
"""

from __future__ import annotations

import functools
from typing import Any, Literal

import numpy as np
import scipy.io
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from gpusim.backends.sim import PCT, Policy, Preemptions
from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.types.arguments import check_bool, check_int
from gpusim.types.graphs import BipartiteGraph, WeightedGraph, example_path, examples_dir
from gpusim.types.preferences import PreferenceInstance

__all__ = [
    "EXTREME_SCALES", "bipartite_graphs", "bundled_matrices", "extreme_weights", "preference_instances", "schedules",
    "weighted_graphs",
]

# ----------------------------------------------------------------------------------------------
# Argument checks of the strategies' own (the rest: gpusim.types.arguments)


def _check_order(lower_name: str, lower: int, upper_name: str, upper: int) -> None:
    if upper < lower:
        raise InvalidArgument(f"Cannot have {upper_name}={upper!r} < {lower_name}={lower!r}")


def _check_strategy(name: str, value: Any) -> None:
    if not isinstance(value, SearchStrategy):
        raise InvalidArgumentType(f"{name}={value!r} must be a SearchStrategy, not {type(value).__name__}")


# ----------------------------------------------------------------------------------------------
# Edge sets as sets of pair indices: shrinking removes edges and moves them toward vertex 0


def _pair_indices(draw: Any, total: int, max_edges: int | None, density: float | None) -> list[int]:
    """Distinct indices in ``range(total)``: a Hypothesis set, or one draw per pair for a density."""
    if total == 0:
        return []
    if density is None:
        cap = total if max_edges is None else min(total, max_edges)
        return sorted(draw(st.sets(st.integers(0, total - 1), max_size=cap)))
    threshold = round((1.0 - density) * 1000)
    return [k for k in range(total) if draw(st.integers(0, 999)) >= threshold] if density > 0 else []


def bipartite_graphs(
    min_rows: int = 0,
    max_rows: int = 12,
    min_cols: int = 0,
    max_cols: int = 12,
    max_edges: int | None = None,
    density: float | None = None,
) -> SearchStrategy[BipartiteGraph]:
    """Bipartite graphs with ``min_rows..max_rows`` rows and ``min_cols..max_cols`` columns.

    By default the edge set is a Hypothesis set of (row, column) pairs, at most ``max_edges``
    of them (usually sparse: empty rows and columns are common).  With ``density`` instead,
    every pair is present with probability about ``density`` (one draw per pair), which makes
    dense graphs and perfect matchings common.

    Shrinking: toward fewer rows and columns, then fewer edges, then edges between low ids
    (row 0, column 0); the minimal example is the empty graph of the minimum size.

    Parameters
    ----------
    min_rows, max_rows, min_cols, max_cols : int
        Inclusive bounds on the side sizes.
    max_edges : int, optional
        At most this many edges.  Not together with ``density``.
    density : float, optional
        Approximate edge probability, in [0, 1].

    Returns
    -------
    SearchStrategy[BipartiteGraph]

    Raises
    ------
    InvalidArgument
        A negative bound, a minimum above its maximum, a density outside [0, 1], or both
        ``max_edges`` and ``density``.

    Examples
    --------
    >>> from hypothesis import find
    >>> find(bipartite_graphs(), lambda g: g.n_edges >= 2)   # shrunk: the smallest such graph
    BipartiteGraph(n_rows=1, n_cols=2, n_edges=2)
    >>> find(bipartite_graphs(max_rows=0, max_cols=0), lambda g: True)
    BipartiteGraph(n_rows=0, n_cols=0, n_edges=0)
    """
    for name, value in (("min_rows", min_rows), ("max_rows", max_rows), ("min_cols", min_cols),
                        ("max_cols", max_cols)):
        check_int(name, value)
    if max_edges is not None:
        check_int("max_edges", max_edges, 0, None)
    _check_order("min_rows", min_rows, "max_rows", max_rows)
    _check_order("min_cols", min_cols, "max_cols", max_cols)
    _check_density(density, max_edges)

    @st.composite
    def graphs(draw: Any) -> BipartiteGraph:
        n_rows = draw(st.integers(min_rows, max_rows))
        n_cols = draw(st.integers(min_cols, max_cols))
        keys = np.array(_pair_indices(draw, n_rows * n_cols, max_edges, density), np.int64)
        rows, cols = np.divmod(keys, max(n_cols, 1))
        return BipartiteGraph.from_edges(rows, cols, n_rows, n_cols)

    return graphs()


def _check_density(density: Any, max_edges: int | None) -> None:
    if density is None:
        return
    if isinstance(density, bool) or not isinstance(density, (int, float, np.integer, np.floating)):
        raise InvalidArgumentType(f"density={density!r} must be a number, got {type(density).__name__}")
    if not 0.0 <= density <= 1.0:
        raise InvalidArgument(f"density={density!r} must lie in [0, 1]")
    if max_edges is not None:
        raise InvalidArgument(f"give max_edges={max_edges!r} or density={density!r}, not both")


def weighted_graphs(
    min_vertices: int = 0,
    max_vertices: int = 12,
    weights: SearchStrategy[float] | None = None,
    allow_ties: bool = True,
    max_edges: int | None = None,
) -> SearchStrategy[WeightedGraph]:
    """Undirected weighted graphs with ``min_vertices..max_vertices`` vertices.

    The edge set is a Hypothesis set of vertex pairs (no self loops), so isolated vertices are
    common.  By default weights are integer-valued floats in 1..5, so equal weights (ties, which
    Suitor and Locally-Dominant break by vertex id) are frequent.  With ``allow_ties=False``
    every edge gets a distinct weight (by default integers in 1..2^31).

    Shrinking: toward fewer vertices, then fewer edges, then edges between low ids, then
    smaller weights (toward 1.0 with the default weights).

    Parameters
    ----------
    min_vertices, max_vertices : int
        Inclusive bounds on the number of vertices.
    weights : hypothesis.strategies.SearchStrategy, optional
        Draws the weight (a float) of each edge; its values must be finite and non-negative.
    allow_ties : bool
        ``False`` draws pairwise distinct weights.
    max_edges : int, optional
        At most this many edges.

    Returns
    -------
    SearchStrategy[WeightedGraph]

    Raises
    ------
    InvalidArgument
        A negative bound or a minimum above its maximum.
    InvalidArgumentType
        ``weights`` is not a strategy; ``allow_ties`` is not a bool.

    Examples
    --------
    >>> from hypothesis import find
    >>> g = find(weighted_graphs(), lambda g: g.n_edges >= 2)   # shrunk: a path 1 - 0 - 2
    >>> [x.tolist() for x in g.edges()]
    [[0, 0], [1, 2], [1.0, 1.0]]
    >>> find(weighted_graphs(max_vertices=0), lambda g: True)
    WeightedGraph(n=0, n_edges=0)
    """
    check_int("min_vertices", min_vertices)
    check_int("max_vertices", max_vertices)
    if max_edges is not None:
        check_int("max_edges", max_edges, 0, None)
    _check_order("min_vertices", min_vertices, "max_vertices", max_vertices)
    check_bool("allow_ties", allow_ties)
    if weights is None:
        weights = st.integers(1, 5 if allow_ties else 2**31).map(float)
    _check_strategy("weights", weights)

    @st.composite
    def graphs(draw: Any) -> WeightedGraph:
        n = draw(st.integers(min_vertices, max_vertices))
        iu, iv = np.triu_indices(n, 1)
        keys = _pair_indices(draw, iu.shape[0], max_edges, None)
        m = len(keys)
        w = draw(st.lists(weights, min_size=m, max_size=m, unique=not allow_ties))
        return WeightedGraph.from_edges(iu[keys], iv[keys], np.array(w, np.float64), n)

    return graphs()


#: The scales at the edges of float64: the largest weights whose matchings still fit, the smallest normal and
#: subnormal numbers, and 1 for comparison.
EXTREME_SCALES = (1.0, 1e300, 2.0**1000, 1e-300, 2.0**-1022, 5e-324 * 2**20, 5e-324)


def extreme_weights(max_vertices: int = 12) -> SearchStrategy[tuple[float, SearchStrategy[float]]]:
    """A scale at the edge of float64 and a strategy of weights at that scale: ties and zeros common.

    Draws ``(scale, weights)``: ``scale`` is one of :data:`EXTREME_SCALES` or a float between the smallest
    subnormal and the largest scale whose matchings on ``max_vertices`` vertices still fit in a double
    (``1.79e308 / (4 * max_vertices)``); ``weights`` draws ``k * scale`` for ``k`` in 0..4 (zeros and ties) or
    a float in ``[0, 4 * scale]`` (subnormals allowed).  Give ``weights`` to :func:`weighted_graphs`.

    Shrinking: toward scale 1 and weights 0, 1, 2 ... times it.

    >>> from hypothesis import find
    >>> scale, weights = find(extreme_weights(), lambda pair: pair[0] < 1e-300)
    >>> scale < 1e-300, find(weights, lambda w: w > 0) / scale in (1.0, 2.0, 3.0, 4.0) or 0 < scale
    (True, True)
    """
    check_int("max_vertices", max_vertices, 1, None)
    top = float(np.finfo(np.float64).max) / (8.0 * max_vertices)
    scales = st.one_of(st.sampled_from([s if s <= top else top for s in EXTREME_SCALES]),
                       st.floats(5e-324, top, allow_subnormal=True))

    def at(scale: float) -> tuple[float, SearchStrategy[float]]:
        tied = st.integers(0, 4).map(lambda k: k * scale)
        spread = st.floats(0.0, 4.0 * scale, allow_subnormal=True, allow_nan=False, allow_infinity=False)
        return scale, st.one_of(tied, spread)

    return scales.map(at)


def preference_instances(min_n: int = 0, max_n: int = 8, complete: bool = False
                         ) -> SearchStrategy[PreferenceInstance]:
    """Stable marriage instances with ``min_n..max_n`` men and ``min_n..max_n`` women.

    With ``complete=True``: SM, equal sides, every list a permutation of the other side.
    Otherwise SMI: the sides may differ in size; a set of mutually acceptable pairs is drawn
    (each appears in both lists), plus one-sided entries (in a man's list only, or a woman's
    only), which :meth:`PreferenceInstance.mutual` purges; each list is then a random order of
    its entries.  Empty lists and people who stay unmatched are common.

    Shrinking: toward fewer people, then fewer pairs and one-sided entries, then every list
    in increasing id order.

    Parameters
    ----------
    min_n, max_n : int
        Inclusive bounds on the number of men and of women.
    complete : bool
        SM (complete lists) instead of SMI.

    Returns
    -------
    SearchStrategy[PreferenceInstance]

    Raises
    ------
    InvalidArgument
        A negative bound or ``min_n > max_n``.

    Examples
    --------
    >>> from hypothesis import find
    >>> find(preference_instances(complete=True), lambda p: p.n_men >= 2)
    PreferenceInstance(men=[[0, 1], [0, 1]], women=[[0, 1], [0, 1]])
    >>> small = find(preference_instances(), lambda p: p.mutual().men_list.size >= 2)
    >>> small.mutual().men_list.size, small.n_men + small.n_women   # shrunk: two mutual pairs, few people
    (2, ...)
    >>> find(preference_instances(max_n=0), lambda p: True)
    PreferenceInstance(men=[], women=[])
    """
    check_int("min_n", min_n)
    check_int("max_n", max_n)
    _check_order("min_n", min_n, "max_n", max_n)
    check_bool("complete", complete)
    return _complete_instances(min_n, max_n) if complete else _incomplete_instances(min_n, max_n)


@st.composite
def _complete_instances(draw: Any, min_n: int, max_n: int) -> PreferenceInstance:
    n = draw(st.integers(min_n, max_n))
    men = [draw(st.permutations(range(n))) for _ in range(n)]
    women = [draw(st.permutations(range(n))) for _ in range(n)]
    return PreferenceInstance(men, women, complete=True)


@st.composite
def _incomplete_instances(draw: Any, min_n: int, max_n: int) -> PreferenceInstance:
    n_men = draw(st.integers(min_n, max_n))
    n_women = draw(st.integers(min_n, max_n))
    total = n_men * n_women
    mutual = set(_pair_indices(draw, total, None, None))
    one_sided = [k for k in _pair_indices(draw, total, None, None) if k not in mutual]
    men_side = draw(st.lists(st.booleans(), min_size=len(one_sided), max_size=len(one_sided)))
    men: list[list[int]] = [[] for _ in range(n_men)]
    women: list[list[int]] = [[] for _ in range(n_women)]
    for k in sorted(mutual):
        men[k // n_women].append(k % n_women)
        women[k % n_women].append(k // n_women)
    for k, to_man in zip(one_sided, men_side, strict=True):
        if to_man:
            men[k // n_women].append(k % n_women)
        else:
            women[k % n_women].append(k // n_women)
    men = [draw(st.permutations(sorted(x))) for x in men]
    women = [draw(st.permutations(sorted(x))) for x in women]
    return PreferenceInstance(men, women)


# ----------------------------------------------------------------------------------------------
# The bundled Matrix Market files


@functools.cache
def _bundled(kind: str) -> tuple[Any, ...]:
    """Bundled examples, smallest file first (so shrinking goes to the smallest)."""
    root = examples_dir()
    names = sorted((p.name for p in root.iterdir() if p.name.endswith(".mtx")),
                   key=lambda name: (example_path(name).stat().st_size, name))
    paths = [example_path(name) for name in names]
    if kind == "path":
        return tuple(paths)
    if kind == "bipartite":
        return tuple(BipartiteGraph.from_matrix_market(p) for p in paths)
    square = [p for p in paths if (info := scipy.io.mminfo(p))[0] == info[1]]
    return tuple(WeightedGraph.from_matrix_market(p) for p in square)


def bundled_matrices(kind: Literal["bipartite", "weighted", "path"] = "bipartite") -> SearchStrategy[Any]:
    """One of the Matrix Market files bundled in ``gpusim/examples`` (``karate``, ``west0067``, ``ash219``).

    Parameters
    ----------
    kind : str
        ``"bipartite"``: a :class:`BipartiteGraph` of each file; ``"weighted"``: a
        :class:`WeightedGraph` of each *square* file (read as
        :meth:`WeightedGraph.from_matrix_market` does); ``"path"``: the file's ``pathlib.Path``.

    Returns
    -------
    SearchStrategy

    Raises
    ------
    InvalidArgument
        An unknown ``kind``.

    Notes
    -----
    Shrinking: toward the smallest file (files are ordered by size).  Each file is read once
    per process and the graph shared between examples (graphs are immutable).

    Examples
    --------
    >>> from hypothesis import find
    >>> find(bundled_matrices("path"), lambda p: True).name   # shrunk: the smallest file
    'karate.mtx'
    >>> find(bundled_matrices(), lambda g: g.n_rows != g.n_cols)
    BipartiteGraph(n_rows=219, n_cols=85, n_edges=438)
    """
    if kind not in ("bipartite", "weighted", "path"):
        raise InvalidArgument(f"kind={kind!r} must be one of 'bipartite', 'weighted', 'path'")
    return st.sampled_from(_bundled(kind))


# ----------------------------------------------------------------------------------------------
# Schedules for the simulator
#
# A schedule is drawn as a *few* choices — a short list of preemptions, or the seed and depth of a PCT
# run — never one draw per step, so that Hypothesis shrinks a failing schedule to the fewest preemptions
# at the earliest steps.


def schedules(max_preemptions: int = 3, max_step: int = 4096, max_threads: int = 64,
              pct: bool = True) -> st.SearchStrategy[Policy]:
    """Draw a scheduling policy to pass as ``Device("sim", policy=...)``.

    Parameters
    ----------
    max_preemptions:
        At most this many preemptions in a drawn :class:`~gpusim.backends.sim.policies.Preemptions`.
    max_step:
        Preemption steps are drawn from ``[0, max_step]`` (global steps, across launches).
    max_threads:
        Thread choices are drawn from ``[0, max_threads)`` (taken modulo the runnable threads).
    pct:
        Also draw :class:`~gpusim.backends.sim.policies.PCT` policies (seed, depth 1–3).

    Notes
    -----
    Shrinking: toward ``Preemptions([])`` (the sequential schedule), then fewer preemptions,
    earlier steps, and lower-numbered threads; PCT draws shrink toward seed 0 and depth 1.

    Example
    -------
    >>> from hypothesis import given
    >>> @given(schedule=schedules(max_preemptions=1, pct=False))
    ... def at_most_one(schedule):
    ...     assert len(schedule.preemptions) <= 1
    >>> at_most_one()
    """
    for name, value, low in (("max_preemptions", max_preemptions, 0), ("max_step", max_step, 0),
                             ("max_threads", max_threads, 1)):
        check_int(name, value, low, None)
    preemption = st.tuples(st.integers(0, max_step), st.integers(0, max_threads - 1))
    lists = st.lists(preemption, max_size=max_preemptions).map(Preemptions)
    if not pct:
        return lists
    return lists | st.builds(PCT, seed=st.integers(0, 2**32 - 1), depth=st.integers(1, 3))
