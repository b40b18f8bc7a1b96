"""Hypothesis strategies: every drawn example satisfies the CSR invariants (checked in plain Python),
the arguments are honoured, the interesting cases occur, and bad arguments are refused at once."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.io
from hypothesis import find, given
from hypothesis import strategies as st

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.testing.strategies import bipartite_graphs, bundled_matrices, preference_instances, weighted_graphs
from gpusim.types.graphs import BipartiteGraph, WeightedGraph, example_path
from gpusim.types.preferences import PreferenceInstance


def check_csr(ptr, adj, n_src: int, n_dst: int) -> list[list[int]]:
    """The lists of a CSR, after checking its invariants entry by entry; plain Python."""
    assert ptr.dtype == np.int32 and adj.dtype == np.int32
    assert not ptr.flags.writeable and not adj.flags.writeable
    ptr, adj = ptr.tolist(), adj.tolist()
    assert len(ptr) == n_src + 1 and ptr[0] == 0 and ptr[-1] == len(adj)
    lists = []
    for i in range(n_src):
        assert ptr[i] <= ptr[i + 1]
        row = adj[ptr[i]:ptr[i + 1]]
        assert all(0 <= x < n_dst for x in row)
        assert all(a < b for a, b in zip(row, row[1:], strict=False)), f"list {i} not strictly increasing"
        lists.append(row)
    return lists


def check_bipartite(g: BipartiteGraph) -> None:
    rows = check_csr(g.row_ptr, g.row_adj, g.n_rows, g.n_cols)
    cols = check_csr(g.col_ptr, g.col_adj, g.n_cols, g.n_rows)
    by_rows = {(r, c) for r, lst in enumerate(rows) for c in lst}
    assert by_rows == {(r, c) for c, lst in enumerate(cols) for r in lst}
    assert g.n_edges == sum(map(len, rows))


def check_weighted(g: WeightedGraph) -> None:
    lists = check_csr(g.ptr, g.adj, g.n, g.n)
    assert g.weights.dtype == np.float64 and not g.weights.flags.writeable
    w = g.weights.tolist()
    seen = {}
    k = 0
    for u, lst in enumerate(lists):
        for v in lst:
            assert u != v, "self loop"
            assert np.isfinite(w[k]) and w[k] >= 0
            seen[(u, v)] = w[k]
            k += 1
    assert all(seen[(v, u)] == x for (u, v), x in seen.items()), "not symmetric"
    assert g.n_edges * 2 == len(seen)


# ---------------------------------------------------------------------------------------------
# Every example is valid and within the bounds asked for


@given(bipartite_graphs(min_rows=1, max_rows=6, min_cols=2, max_cols=5, max_edges=7))
def test_bipartite_examples_are_valid_and_bounded(g):
    check_bipartite(g)
    assert 1 <= g.n_rows <= 6 and 2 <= g.n_cols <= 5 and g.n_edges <= 7


@given(bipartite_graphs())
def test_bipartite_default_examples_are_valid(g):
    check_bipartite(g)
    assert g.n_rows <= 12 and g.n_cols <= 12


@given(bipartite_graphs(min_rows=3, max_rows=3, min_cols=3, max_cols=3, density=1.0))
def test_density_one_is_complete(g):
    assert g.n_edges == 9


@given(bipartite_graphs(max_rows=5, max_cols=5, density=0.0))
def test_density_zero_is_empty(g):
    assert g.n_edges == 0


@given(bipartite_graphs(max_rows=6, max_cols=6, density=0.5))
def test_density_examples_are_valid(g):
    check_bipartite(g)


@given(weighted_graphs())
def test_weighted_examples_are_valid(g):
    check_weighted(g)
    assert g.n <= 12 and set(g.weights.tolist()) <= {1.0, 2.0, 3.0, 4.0, 5.0}


@given(weighted_graphs(min_vertices=2, max_vertices=7, allow_ties=False, max_edges=9))
def test_weighted_without_ties_has_distinct_weights(g):
    check_weighted(g)
    _, _, w = g.edges()
    assert len(set(w.tolist())) == w.size <= 9 and 2 <= g.n <= 7


@given(weighted_graphs(max_vertices=5, weights=st.floats(0, 1)))
def test_weighted_custom_weights(g):
    check_weighted(g)
    assert ((g.weights >= 0) & (g.weights <= 1)).all()


@given(preference_instances())
def test_preference_examples_are_valid(inst):
    assert isinstance(inst, PreferenceInstance) and inst.n_men <= 8 and inst.n_women <= 8
    sides = (("men", inst.men_prefs, inst.n_women), ("women", inst.women_prefs, inst.n_men))
    for side, lists, n_other in sides:
        for lst in lists:
            assert len(set(lst)) == len(lst) and all(0 <= x < n_other for x in lst), side
    check_csr_rank_consistency(inst)


@given(preference_instances(min_n=1, max_n=5, complete=True))
def test_complete_preference_examples_are_sm(inst):
    assert inst.is_complete and 1 <= inst.n_men <= 5
    assert all(sorted(lst) == list(range(inst.n_men)) for lst in inst.men_prefs + inst.women_prefs)
    check_csr_rank_consistency(inst)


def check_csr_rank_consistency(inst: PreferenceInstance) -> None:
    """men_rank_by_woman[k] is the position of the man in that woman's mutual list, and vice versa."""
    men = check_csr_plain(inst.men_ptr, inst.men_list, inst.n_men, inst.n_women)
    women = check_csr_plain(inst.women_ptr, inst.women_list, inst.n_women, inst.n_men)
    ranks_m, ranks_w = inst.men_rank_by_woman.tolist(), inst.women_rank_by_man.tolist()
    k = 0
    for m, lst in enumerate(men):
        for w in lst:
            assert women[w][ranks_m[k]] == m
            k += 1
    k = 0
    for w, lst in enumerate(women):
        for m in lst:
            assert men[m][ranks_w[k]] == w
            k += 1


def check_csr_plain(ptr, flat, n_src: int, n_dst: int) -> list[list[int]]:
    """Preference lists in CSR: offsets valid, ids in range, no repeats (order is free)."""
    ptr, flat = ptr.tolist(), flat.tolist()
    assert len(ptr) == n_src + 1 and ptr[0] == 0 and ptr[-1] == len(flat)
    lists = [flat[ptr[i]:ptr[i + 1]] for i in range(n_src)]
    assert all(len(set(x)) == len(x) and all(0 <= y < n_dst for y in x) for x in lists)
    return lists


@given(bundled_matrices())
def test_bundled_bipartite(g):
    check_bipartite(g)


@given(bundled_matrices("weighted"))
def test_bundled_weighted(g):
    check_weighted(g)


@given(bundled_matrices("path"))
def test_bundled_paths(path):
    assert path == example_path(path.name) and path.suffix == ".mtx"


def test_bundled_weighted_are_the_square_files():
    names = [p.name for p in (example_path(n) for n in ("karate", "west0067", "ash219"))
             if (info := scipy.io.mminfo(p))[0] == info[1]]
    assert names == ["karate.mtx", "west0067.mtx"]
    sizes = {find(bundled_matrices("weighted"), lambda g, n=n: g.n == n).n for n in (34, 67)}
    assert sizes == {34, 67}


# ---------------------------------------------------------------------------------------------
# The interesting cases occur (found by Hypothesis, so shrinking is exercised too)


def test_interesting_cases_occur():
    g = find(bipartite_graphs(), lambda g: g.n_edges > 0 and (np.diff(g.row_ptr) == 0).any())
    assert g.shape == (2, 1) and g.n_edges == 1  # minimal: one edge and an isolated row
    w = find(weighted_graphs(), lambda g: len(set(g.edges()[2].tolist())) < g.n_edges)
    assert w.n == 3 and w.n_edges == 2  # minimal tie: two edges of equal weight
    w = find(weighted_graphs(), lambda g: g.n_edges > 0 and (np.diff(g.ptr) == 0).any())
    assert w.n == 3 and w.n_edges == 1  # an isolated vertex beside an edge
    p = find(preference_instances(), lambda p: p.mutual() != p)
    assert p.mutual().men_list.size == 0  # minimal: one one-sided entry
    p = find(preference_instances(), lambda p: p.men_list.size > 0 and p.n_men != p.n_women)
    assert (p.n_men, p.n_women) in ((1, 2), (2, 1))


# ---------------------------------------------------------------------------------------------
# Bad arguments: one table, raised when the strategy is created


STRATEGIES_BAD = [
    (bipartite_graphs, {"min_rows": 3, "max_rows": 2}, InvalidArgument, "Cannot have max_rows=2 < min_rows"),
    (bipartite_graphs, {"min_cols": 13}, InvalidArgument, "Cannot have max_cols=12 < min_cols=13"),
    (bipartite_graphs, {"min_rows": -1}, InvalidArgument, "min_rows=-1 must be non-negative"),
    (bipartite_graphs, {"max_cols": 2.5}, InvalidArgumentType,
     "max_cols must be an integer, got max_cols=2.5 of type float"),
    (bipartite_graphs, {"max_rows": True}, InvalidArgumentType, "max_rows must be an integer, got max_rows=True"),
    (bipartite_graphs, {"max_edges": -2}, InvalidArgument, "max_edges=-2 must be non-negative"),
    (bipartite_graphs, {"density": 1.5}, InvalidArgument, "density=1.5 must lie in [0, 1]"),
    (bipartite_graphs, {"density": "dense"}, InvalidArgumentType, "density='dense' must be a number"),
    (bipartite_graphs, {"density": 0.5, "max_edges": 3}, InvalidArgument, "give max_edges=3 or density=0.5"),
    (weighted_graphs, {"min_vertices": 4, "max_vertices": 3}, InvalidArgument,
     "Cannot have max_vertices=3 < min_vertices=4"),
    (weighted_graphs, {"weights": [1.0]}, InvalidArgumentType, "weights=[1.0] must be a SearchStrategy"),
    (weighted_graphs, {"allow_ties": 0}, InvalidArgumentType, "allow_ties must be a bool, got allow_ties=0"),
    (weighted_graphs, {"max_edges": 1.0}, InvalidArgumentType, "max_edges must be an integer, got max_edges=1.0"),
    (preference_instances, {"min_n": 2, "max_n": 1}, InvalidArgument, "Cannot have max_n=1 < min_n=2"),
    (preference_instances, {"max_n": -3}, InvalidArgument, "max_n=-3 must be non-negative"),
    (preference_instances, {"complete": "yes"}, InvalidArgumentType, "complete must be a bool, got complete='yes'"),
    (bundled_matrices, {"kind": "directed"}, InvalidArgument, "kind='directed' must be one of"),
]


@pytest.mark.parametrize(
    "fn, kwargs, exc, fragment",
    [pytest.param(*row, id=f"{row[0].__name__}-{row[3][:40]}") for row in STRATEGIES_BAD],
)
def test_rejects_bad_arguments_at_creation(fn, kwargs, exc, fragment):
    with pytest.raises(exc, match=re.escape(fragment)) as info:
        fn(**kwargs)
    assert type(info.value) is exc, f"expected exactly {exc.__name__}, got {type(info.value).__name__}"
