"""The host-side checks that every weighted result passes, and Louvain's host contraction, against plain oracles.

``edge_positions`` and ``check_b_matching`` search each sorted adjacency list (no pass over every entry); the
oracles here are Python sets and dictionaries built from the input's edge list.  ``contract`` is compared with
SciPy's sparse sum of the same community-by-community matrix.  And the registry imports a problem's family only
when asked about that problem (a fresh interpreter shows which modules were loaded).
"""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from gpusim.algorithms.louvain.reference import contract
from gpusim.errors import InvalidArgument
from gpusim.testing.strategies import weighted_graphs
from gpusim.types.check import check_b_matching, edge_positions


@settings(max_examples=60, deadline=None)
@given(weighted_graphs(min_vertices=1, max_vertices=12), st.data())
def test_edge_positions_finds_exactly_the_edges(graph, data):
    n = graph.n
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=30))
    u = np.array([a for a, _ in pairs], np.int64)
    v = np.array([b for _, b in pairs], np.int64)
    where = {(x, int(graph.adj[k])): k for x in range(n) for k in range(graph.ptr[x], graph.ptr[x + 1])}
    expected = [where.get((a, b), -1) for a, b in pairs]
    assert edge_positions(graph, u, v).tolist() == expected


def _path(n: int):
    from gpusim.types.graphs import WeightedGraph

    return WeightedGraph.from_edges(np.arange(n - 1), np.arange(1, n), np.arange(1.0, n))


@pytest.mark.parametrize("partners, b, message", [
    ([[1, 1], [0, -1], [-1, -1], [-1, -1]], 2, "vertex 0 lists partner 1 twice"),
    ([[1, -1], [-1, -1], [-1, -1], [-1, -1]], 1, "vertex 0 lists partner 1, who does not list it back"),
    ([[2, -1], [-1, -1], [0, -1], [-1, -1]], 1, "(0, 2) is not an edge of the input graph"),
    ([[1, -1], [0, 2], [1, 3], [2, -1]], 1, "vertex 1 has 2 partners but b[1]=1"),
])
def test_a_b_matching_that_breaks_a_rule_is_named(partners, b, message):
    with pytest.raises(InvalidArgument, match=re.escape(message)):
        check_b_matching(_path(4), partners, b)


def test_a_b_matching_that_keeps_every_rule_has_its_weight():
    assert check_b_matching(_path(4), [[1, -1], [0, 2], [1, 3], [2, -1]], 2) == 1.0 + 2.0 + 3.0


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 30), st.data())
def test_contract_sums_the_community_matrix(n, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    dense = np.triu(rng.integers(0, 3, (n, n)) * (rng.random((n, n)) < 0.3), 1).astype(float)
    dense = dense + dense.T
    matrix = sp.csr_array(dense)
    C = rng.integers(0, n, n)
    ptr, adj, w, new_id = contract(matrix.indptr.astype(np.int64), matrix.indices.astype(np.int64), matrix.data, C)
    used = np.unique(C)
    assert new_id[used].tolist() == list(range(used.size))
    member = np.zeros((n, used.size))
    member[np.arange(n), np.searchsorted(used, C)] = 1.0
    expected = sp.csr_array(member.T @ dense @ member)
    expected.sort_indices()
    assert ptr.tolist() == expected.indptr.tolist()
    assert adj.tolist() == expected.indices.tolist()
    assert np.allclose(w, expected.data)


@pytest.mark.parametrize("problem, family, others", [
    ("stable", "stable", ("bipartite", "weighted", "louvain")),
    ("communities", "louvain", ("bipartite", "weighted", "stable")),
])
def test_the_registry_imports_only_the_family_asked_about(problem, family, others):
    code = ("import sys\nfrom gpusim.runtime.registry import names\nimport gpusim.algorithms\n"
            f"assert names({problem!r})\n"
            "print(sorted({m.split('.')[2] for m in sys.modules if m.startswith('gpusim.algorithms.')}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = eval(done.stdout)  # noqa: S307 - a list of names this test printed
    assert family in loaded and not set(others) & set(loaded), loaded
