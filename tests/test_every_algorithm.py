"""Every registered algorithm on every backend it claims, checked by oracles that share no code with it.

The cases are generated from the registry (:mod:`gpusim.runtime.registry`): an algorithm that registers
itself is tested here on each of its backends without a line added (GPU backends marked ``gpu`` and
skipped where none works).  Each runs through the one dispatcher on a few fixed inputs of its problem and
a small Hypothesis property, and is checked against independent oracles: SciPy's maximum bipartite
matching, NetworkX's maximum-weight matching and modularity, and brute-force loops written here (the
pairs of a matching and its weight recomputed from the input, blocking pairs, Gale-Shapley, the greedy
matching, 4-cycle gains).  What is checked beyond validity is what the algorithm's registry entry
claims in ``guarantees``.  Last, the command line's algorithm lists and the documentation's algorithm
index are checked to be the registry's (no list written twice).
"""

from __future__ import annotations

import ast
import itertools
import json
import re
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import maximum_bipartite_matching

import gpusim.algorithms  # noqa: F401  (the families register their algorithms)
from gpusim.algorithms.louvain import LouvainGraph
from gpusim.cli import main
from gpusim.runtime.dispatch import dispatch
from gpusim.runtime.registry import DEVICE_BACKENDS, algorithms, lookup, problems
from gpusim.testing.strategies import bipartite_graphs, preference_instances, weighted_graphs
from gpusim.types.graphs import BipartiteGraph, WeightedGraph, example_path
from gpusim.types.preferences import PreferenceInstance

ROOT = Path(__file__).resolve().parent.parent
#: Hypothesis examples a property draws: fewer where each run launches kernels.
EXAMPLES = {"cpu": 20, "sim": 8, "numba": 5, "cupy": 5}


def _case(entry, backend):
    marks = [pytest.mark.gpu] if backend in DEVICE_BACKENDS and backend != "sim" else []
    return pytest.param(entry.name, backend, marks=marks, id=f"{entry.name}-{backend}")


def cases(problem: str, keep=lambda entry: True) -> list:
    """``(name, backend)`` for every algorithm of ``problem`` (that ``keep`` keeps) and every backend it claims."""
    return [_case(entry, backend) for entry in algorithms(problem) if keep(entry) for backend in entry.backends]


def run(problem: str, data, name: str, backend: str, size: int, **options):
    """The algorithm on exactly ``backend`` through the dispatcher; a GPU backend that cannot run here skips."""
    if backend in ("numba", "cupy"):
        from gpusim.backends import gpu_status

        ok, why = gpu_status(backend)
        if not ok:
            pytest.skip(f"{backend} unavailable: {why}")
    result = dispatch(problem, data, name, backend, size=size, **options)
    assert result.backend == backend
    return result


# ------------------------------------------------------------------------------------------------
# Bipartite (cardinality) matching: valid, certified, and as large as SciPy's maximum matching


def _bipartite(rows, cols, n_rows, n_cols) -> BipartiteGraph:
    return BipartiteGraph.from_edges(np.array(rows, np.int64), np.array(cols, np.int64), n_rows, n_cols)


BIPARTITE_GRAPHS = {
    "karate": BipartiteGraph.from_matrix_market(str(example_path("karate"))),
    # row 0 takes column 0 first in a greedy pass; the maximum needs the augmenting path 3-0-1-...
    "augmenting": _bipartite([0, 0, 1, 2, 2, 3], [0, 1, 0, 1, 2, 0], 4, 3),
    "rectangular": _bipartite([0, 0, 2, 2, 2], [1, 4, 0, 1, 3], 3, 5),
    "no edges": _bipartite([], [], 2, 3),
}


def check_bipartite(graph: BipartiteGraph, result) -> None:
    rows, cols = (np.asarray(x) for x in graph.edges()[:2])
    edges = set(zip(rows.tolist(), cols.tolist(), strict=True))
    biadjacency = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(graph.n_rows, graph.n_cols))
    expected = int((maximum_bipartite_matching(biadjacency, perm_type="column") >= 0).sum())
    pairs = [(r, c) for r, c in enumerate(result.row_match.tolist()) if c >= 0]
    assert set(pairs) <= edges
    assert len({c for _, c in pairs}) == len(pairs)
    assert all(result.col_match[c] == r for r, c in pairs)
    assert int((np.asarray(result.col_match) >= 0).sum()) == len(pairs)
    assert result.valid and result.certified
    assert result.size == len(pairs) == expected


@pytest.mark.parametrize("name, backend", cases("bipartite"))
@pytest.mark.parametrize("graph", BIPARTITE_GRAPHS, ids=str)
def test_bipartite_fixed(name, backend, graph):
    graph = BIPARTITE_GRAPHS[graph]
    check_bipartite(graph, run("bipartite", graph, name, backend, graph.n_edges))


@pytest.mark.parametrize("name, backend", cases("bipartite"))
def test_bipartite_property(name, backend):
    @settings(max_examples=EXAMPLES[backend], deadline=None)
    @given(bipartite_graphs(max_rows=8, max_cols=8))
    def check(graph):
        check_bipartite(graph, run("bipartite", graph, name, backend, graph.n_edges))

    check()


# ------------------------------------------------------------------------------------------------
# Weighted matching: pairs are edges, weight recomputed; what ``guarantees`` claims, checked


def _weighted(edges: list[tuple[int, int, float]], n: int) -> WeightedGraph:
    u, v, w = zip(*edges, strict=True) if edges else ((), (), ())
    return WeightedGraph.from_edges(np.array(u, np.int64), np.array(v, np.int64), np.array(w, np.float64), n)


def _random_edges(n: int, p: float, seed: int) -> list[tuple[int, int, float]]:
    rng = np.random.default_rng(seed)
    pairs = [(u, v) for u, v in itertools.combinations(range(n), 2) if rng.random() < p]
    weights = rng.permutation(len(pairs)) + 1.0  # distinct
    return [(u, v, float(w)) for (u, v), w in zip(pairs, weights, strict=True)]


WEIGHTED_GRAPHS = {
    "karate": WeightedGraph.from_matrix_market(str(example_path("karate"))),  # every weight 1: ties
    "path": _weighted([(0, 1, 2.0), (1, 2, 3.0), (2, 3, 2.0)], 4),  # greedy 3, optimum 4
    "random odd": _weighted(_random_edges(9, 0.5, 3), 9),
    "no edges": _weighted([], 3),
}


def _edge_weights(graph: WeightedGraph) -> dict[tuple[int, int], float]:
    u, v, w = (x.tolist() for x in graph.edges())
    return {(min(a, b), max(a, b)): c for a, b, c in zip(u, v, w, strict=True)}


def _greedy_pairs(weights: dict[tuple[int, int], float]) -> set[tuple[int, int]]:
    """The greedy matching: heaviest edge first (unique when the weights are distinct)."""
    taken, pairs = set(), set()
    for (a, b), _ in sorted(weights.items(), key=lambda item: -item[1]):
        if a not in taken and b not in taken:
            taken |= {a, b}
            pairs.add((a, b))
    return pairs


def _options(entry, graph: WeightedGraph) -> dict:
    """ROMA and RAMA work on a complete graph of even order: an odd one is padded by a vertex."""
    return {"pad": True} if "complete graph" in entry.guarantees and graph.n % 2 else {}


def check_weighted(entry, graph: WeightedGraph, result) -> set[tuple[int, int]]:
    weights = _edge_weights(graph)
    mate = result.mate.tolist()
    assert len(mate) == graph.n
    pairs = {(v, m) for v, m in enumerate(mate) if m > v}
    assert all(m == -1 or (0 <= m < graph.n and m != v and mate[m] == v) for v, m in enumerate(mate))
    assert pairs <= set(weights)
    assert result.valid
    assert result.weight == pytest.approx(sum(weights[pair] for pair in pairs), rel=1e-9, abs=1e-12)
    if "1/2-approximation" in entry.guarantees:
        graph_nx = nx.Graph()
        graph_nx.add_weighted_edges_from((a, b, w) for (a, b), w in weights.items())
        optimum = sum(weights[min(a, b), max(a, b)] for a, b in nx.max_weight_matching(graph_nx))
        assert result.weight >= 0.5 * optimum - 1e-9
    if entry.guarantees.startswith("the greedy") and len(set(weights.values())) == len(weights):
        assert pairs == _greedy_pairs(weights)
    return pairs


@pytest.mark.parametrize("name, backend", cases("weighted"))
@pytest.mark.parametrize("graph", WEIGHTED_GRAPHS, ids=str)
def test_weighted_fixed(name, backend, graph):
    graph, entry = WEIGHTED_GRAPHS[graph], lookup("weighted", name)
    check_weighted(entry, graph, run("weighted", graph, name, backend, graph.n_edges, **_options(entry, graph)))


@pytest.mark.parametrize("name, backend", cases("weighted"))
def test_weighted_property(name, backend):
    entry = lookup("weighted", name)

    @settings(max_examples=EXAMPLES[backend], deadline=None)
    @given(st.one_of(weighted_graphs(max_vertices=8), weighted_graphs(max_vertices=8, allow_ties=False)))
    def check(graph):
        check_weighted(entry, graph, run("weighted", graph, name, backend, graph.n_edges, **_options(entry, graph)))

    check()


@pytest.mark.parametrize("name, backend", cases("weighted", lambda entry: "complete graph" in entry.guarantees))
@pytest.mark.parametrize("n, seed", [(4, 1), (6, 2), (8, 3)])
def test_complete_graph_matching_is_perfect_and_improves_its_start(name, backend, n, seed):
    """ROMA and RAMA: a perfect matching of the complete graph, at least as heavy as the start ``i,i+1``;
    ROMA's (which converges) has no swap of two matched edges gaining more than its threshold, 1e-5."""
    rng = np.random.default_rng(seed)
    edges = [(u, v, float(rng.uniform(0.1, 1.0))) for u, v in itertools.combinations(range(n), 2)]
    graph, entry = _weighted(edges, n), lookup("weighted", name)
    weights = _edge_weights(graph)
    pairs = check_weighted(entry, graph, run("weighted", graph, name, backend, graph.n_edges))
    assert sorted(itertools.chain.from_iterable(pairs)) == list(range(n))  # perfect
    start = sum(weights[v, v + 1] for v in range(0, n, 2))
    assert result_weight(weights, pairs) >= start - 1e-12
    if "no 4-cycle of gain above the threshold" in entry.guarantees:
        for (a, b), (c, d) in itertools.combinations(sorted(pairs), 2):
            now = weights[a, b] + weights[c, d]
            swapped = max(weights[min(a, c), max(a, c)] + weights[min(b, d), max(b, d)],
                          weights[min(a, d), max(a, d)] + weights[min(b, c), max(b, c)])
            assert swapped <= now + 1e-5 + 1e-12


def result_weight(weights: dict[tuple[int, int], float], pairs: set[tuple[int, int]]) -> float:
    return sum(weights[pair] for pair in pairs)


# ------------------------------------------------------------------------------------------------
# Stable marriage: valid, no blocking pair, and the man-optimal stable matching (brute force here)


def _mutual(instance: PreferenceInstance) -> tuple[list[list[int]], list[dict[int, int]]]:
    """Each man's mutually acceptable women, best first, and each woman's rank of the men she lists."""
    rank = [{m: r for r, m in enumerate(women)} for women in instance.women_prefs]
    return [[w for w in women if m in rank[w]] for m, women in enumerate(instance.men_prefs)], rank


def gale_shapley_here(instance: PreferenceInstance) -> list[int]:
    """Men propose in their order; a woman keeps the best proposer so far: the man-optimal stable matching."""
    lists, rank = _mutual(instance)
    husband, following, free = [-1] * instance.n_women, [0] * instance.n_men, list(range(instance.n_men))
    while free:
        m = free.pop()
        while following[m] < len(lists[m]):
            w = lists[m][following[m]]
            following[m] += 1
            if husband[w] == -1 or rank[w][m] < rank[w][husband[w]]:
                if husband[w] != -1:
                    free.append(husband[w])
                husband[w] = m
                break
    wife = [-1] * instance.n_men
    for w, m in enumerate(husband):
        if m != -1:
            wife[m] = w
    return wife


def check_stable(instance: PreferenceInstance, result) -> None:
    lists, rank = _mutual(instance)
    wife = result.wife.tolist()
    husband = {w: m for m, w in enumerate(wife) if w != -1}
    assert len(husband) == sum(w != -1 for w in wife)  # no woman married twice
    assert all(w == -1 or w in lists[m] for m, w in enumerate(wife))  # married pairs accept each other
    assert result.valid
    blocking = [(m, w) for m in range(instance.n_men) for w in lists[m]
                if (wife[m] == -1 or lists[m].index(w) < lists[m].index(wife[m]))
                and (w not in husband or rank[w][m] < rank[w][husband[w]])]
    assert blocking == []
    assert wife == gale_shapley_here(instance)  # man-optimal: what every registered stable algorithm claims


STABLE_INSTANCES = {
    "marriage": PreferenceInstance.from_json(str(example_path("marriage.json"))),
    "complete": PreferenceInstance([[1, 0, 2], [0, 1, 2], [0, 2, 1]], [[0, 1, 2], [2, 0, 1], [1, 2, 0]],
                                   complete=True),
    "unequal sides": PreferenceInstance([[0, 1], [1], [1, 0], []], [[2, 0], [0, 1, 2]]),
    "nobody": PreferenceInstance([], [[]]),
}


@pytest.mark.parametrize("name, backend", cases("stable"))
@pytest.mark.parametrize("instance", STABLE_INSTANCES, ids=str)
def test_stable_fixed(name, backend, instance):
    assert "man-optimal stable" in lookup("stable", name).guarantees
    instance = STABLE_INSTANCES[instance]
    check_stable(instance, run("stable", instance, name, backend, int(instance.men_list.size)))


@pytest.mark.parametrize("name, backend", cases("stable"))
def test_stable_property(name, backend):
    @settings(max_examples=EXAMPLES[backend], deadline=None)
    @given(st.one_of(preference_instances(max_n=5), preference_instances(max_n=4, complete=True)))
    def check(instance):
        check_stable(instance, run("stable", instance, name, backend, int(instance.men_list.size)))

    check()


# ------------------------------------------------------------------------------------------------
# Community detection: a partition of every vertex, its modularity NetworkX's


def _louvain_graph(edges: list[tuple[int, int, float]], n: int) -> tuple[LouvainGraph, nx.Graph]:
    graph_nx = nx.Graph()
    graph_nx.add_nodes_from(range(n))
    graph_nx.add_weighted_edges_from(edges)
    u, v, w = zip(*edges, strict=True)
    return LouvainGraph.from_edges(np.array(u), np.array(v), np.array(w, np.float64), n), graph_nx


def _two_cliques() -> list[tuple[int, int, float]]:
    left = [(u, v, 1.0) for u, v in itertools.combinations(range(5), 2)]
    return left + [(u + 5, v + 5, 2.0) for u, v, _ in left] + [(4, 5, 0.5)]


_KARATE = nx.karate_club_graph()
COMMUNITY_GRAPHS = {
    "karate": ([(u, v, 1.0) for u, v in _KARATE.edges()], 34),
    "two cliques": (_two_cliques(), 10),
    "isolated vertices": ([(0, 1, 1.0), (1, 2, 3.0), (4, 5, 1.0)], 7),
}


def check_communities(graph_nx: nx.Graph, result) -> None:
    labels = result.labels.tolist()
    assert len(labels) == graph_nx.number_of_nodes() and all(isinstance(c, int) and c >= 0 for c in labels)
    groups: dict[int, set[int]] = {}
    for v, c in enumerate(labels):
        groups.setdefault(c, set()).add(v)
    assert set().union(*groups.values()) == set(graph_nx) and sum(map(len, groups.values())) == len(labels)
    assert result.valid
    expected = nx.community.modularity(graph_nx, list(groups.values()), weight="weight")
    assert result.modularity == pytest.approx(expected, rel=1e-9, abs=1e-12)
    singletons = nx.community.modularity(graph_nx, [{v} for v in graph_nx], weight="weight")
    assert result.modularity >= singletons - 1e-12  # never worse than where every method starts


@pytest.mark.parametrize("name, backend", cases("communities"))
@pytest.mark.parametrize("graph", COMMUNITY_GRAPHS, ids=str)
def test_communities_fixed(name, backend, graph):
    graph, graph_nx = _louvain_graph(*COMMUNITY_GRAPHS[graph])
    check_communities(graph_nx, run("communities", graph, name, backend, graph.n_entries))


@pytest.mark.parametrize("name, backend", cases("communities"))
def test_communities_property(name, backend):
    @settings(max_examples=EXAMPLES[backend], deadline=None)
    @given(weighted_graphs(min_vertices=2, max_vertices=10))
    def check(drawn):
        assume(drawn.n_edges > 0)
        u, v, w = (x.tolist() for x in drawn.edges())
        graph, graph_nx = _louvain_graph(list(zip(u, v, w, strict=True)), drawn.n)
        check_communities(graph_nx, run("communities", graph, name, backend, graph.n_entries))

    check()


# ------------------------------------------------------------------------------------------------
# The registry is the one list: the command line's and the documentation's come from it


def _names(*family: str) -> set[str]:
    return {entry.name for problem in family for entry in algorithms(problem)}


def test_every_problem_has_cases():
    assert set(problems()) == {"bipartite", "weighted", "stable", "communities"}
    assert all(cases(problem) for problem in problems())


@pytest.mark.parametrize("command, family", [("match", ("bipartite", "weighted")), ("stable", ("stable",)),
                                             ("louvain", ("communities",))])
def test_the_command_line_lists_the_registry(command, family, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    listed = text.split("--algorithm ALGORITHM", 2)[2].split(" --")[0]  # after the usage line: the option's help
    assert set(re.findall(r"[\w-]+", listed)) >= _names(*family)
    example = {"match": "karate", "stable": "marriage", "louvain": "karate"}[command]
    assert main([command, "--example", example, "--algorithm", "nosuch"]) == 2
    refused = capsys.readouterr().err.strip()
    assert set(refused.split(" is not one of ")[1].split(", ")) == _names(*family)


def test_gpusim_algorithms_lists_the_registry(capsys):
    assert main(["algorithms", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [(row["problem"], row["name"]) for row in shown["algorithms"]] == [
        (entry.problem, entry.name) for entry in algorithms()]
    for row in shown["algorithms"]:
        entry = lookup(row["problem"], row["name"])
        assert (row["title"], row["paper"], row["guarantees"]) == (entry.title, entry.citation, entry.guarantees)
        assert [ref["citation"] for ref in row["references"]] == [ref.full for ref in entry.references]
        assert row["backends"] == list(entry.backends) and row["gpu"] == entry.gpu
        assert row["on_cpu"] == (entry.name if "cpu" in entry.backends else entry.on_cpu)
        assert lookup(row["problem"], row["on_cpu"])  # a registered sequential counterpart
    assert main(["algorithms", "--problem", "stable"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == "stable" and all(f"  {name} " in text for name in _names("stable"))


def test_the_documentation_index_is_the_registry():
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        from algorithm_index import index_rows
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    rows = index_rows()
    assert [(row["problem"], row["algorithm"]) for row in rows] == [(e.problem, e.name) for e in algorithms()]
    page = (ROOT / "docs" / "algorithms.rst").read_text()
    assert re.search(r"^\.\. algorithm-index::\n(?!\s+:problem:)", page, re.M)  # every problem's
    assert re.search(r"^\s+algorithms$", (ROOT / "docs" / "index.rst").read_text(), re.M)  # in the top toctree


def test_no_command_line_module_writes_an_algorithm_list():
    """A literal tuple, list or set naming three or more registered algorithms is a list written twice.

    One is allowed: ``match.py``'s ``WEIGHTED``, which judges a file's header before any algorithm is imported
    (importing them costs a second); ``tests/test_edges_cli.py`` keeps it equal to the registry."""
    from gpusim.cli.match import WEIGHTED

    registered = _names(*problems())
    for path in sorted((ROOT / "gpusim" / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                named = {item.value for item in node.elts if isinstance(item, ast.Constant)} & registered
                if path.name == "match.py" and named == set(WEIGHTED):
                    continue
                assert len(named) < 3, f"{path.name}:{node.lineno} lists {sorted(named)}: read the registry"
