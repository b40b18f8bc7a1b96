"""The bipartite and louvain areas' CPU half: the ECL-MM input writer, its output parser, the run's bookkeeping, and
the ν-Louvain runner's parser (benchmarks/e2e.py, ecl_mm.py, nu_louvain.py).

The writer is checked byte for byte against ECL-MM's own converter ``mm2eclbp`` (compiled here with g++
from the anchors' copy; skipped without g++ or the sources), the parser on output made from
ECL-MM_10.cu's printf lines.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import benchmark_scripts
import numpy as np
import pytest

from gpusim.types import generators as gen
from gpusim.types.graphs import BipartiteGraph

BENCHMARKS = benchmark_scripts.BENCHMARKS
_load = benchmark_scripts.load

ecl_mm = _load("ecl_mm")


def _mtx(path: Path, n: int, rows, cols) -> None:
    lines = ["%%MatrixMarket matrix coordinate pattern general", "% written by test_bench_e2e",
             f"{n} {n} {len(rows)}"] + [f"{r + 1} {c + 1}" for r, c in zip(rows, cols, strict=True)]
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def mm2eclbp(tmp_path_factory) -> Path:
    sources = next((d for d in ecl_mm.ECL_DIRS if (d / "mm2eclbp.cpp").is_file()), None)
    if shutil.which("g++") is None or sources is None:
        pytest.skip("needs g++ and ECL-MM's mm2eclbp.cpp (../shared/anchors/ecl-mm)")
    out = tmp_path_factory.mktemp("mm2eclbp")
    for name in ("mm2eclbp.cpp", "ECLgraph.h"):
        shutil.copy(sources / name, out / name)
    subprocess.run(["g++", "-std=c++11", "-O1", str(out / "mm2eclbp.cpp"), "-o", str(out / "mm2eclbp")],
                   check=True, capture_output=True)
    return out / "mm2eclbp"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_egr_writer_equals_mm2eclbp_byte_for_byte(tmp_path, mm2eclbp, seed):
    rng = np.random.default_rng(seed)
    n = 9
    keys = rng.choice(n * n, 25, replace=False)
    keys = keys[(keys // n != 4) & (keys % n != 6)]  # an isolated row and an isolated column
    rows, cols = (keys // n).tolist(), (keys % n).tolist()
    mtx, theirs, ours = tmp_path / "g.mtx", tmp_path / "theirs.egr", tmp_path / "ours.egr"
    _mtx(mtx, n, rows, cols)
    subprocess.run([str(mm2eclbp), str(mtx), str(theirs)], check=True, capture_output=True)
    ecl_mm.write_egr(BipartiteGraph.from_matrix_market(mtx), ours)
    assert ours.read_bytes() == theirs.read_bytes()


def test_a_non_square_graph_is_padded_with_isolated_vertices(tmp_path):
    rows, cols = [0, 1, 1, 2], [3, 0, 4, 4]
    wide, square = BipartiteGraph.from_edges(rows, cols, 3, 5), BipartiteGraph.from_edges(rows, cols, 5, 5)
    tall = BipartiteGraph.from_edges(cols, rows, 5, 3)
    assert ecl_mm.write_egr(wide, tmp_path / "a").read_bytes() == ecl_mm.write_egr(square, tmp_path / "b").read_bytes()
    nindex, nlist = ecl_mm.egr_arrays(tall)
    header = np.fromfile(ecl_mm.write_egr(tall, tmp_path / "c"), "<i4")
    assert header[:2].tolist() == [10, 8] and header.size == 2 + 11 + 8
    # row r of the tall graph is column r of the wide one: the halves swap
    assert nlist[:4].tolist() == [5 + 1, 5 + 0, 5 + 1, 5 + 2] and nindex[5:].tolist() == [4, 5, 7, 8, 8, 8]


SAMPLE = """ECL-MM v1.0
Copyright (c) 2025, Anju Mongandampulath Akathoott and Martin Burtscher

input: /tmp/g.egr
|A|: 2097152
|B|: 2097152
|E|: 32000000
minDeg: 0
maxDeg: 24
avgDeg: 7.63

GPU: NVIDIA H100 80GB HBM3 with 132 SMs and 2048 mTpSM
     compute capability 9.0

init_iterations: 3
initRuntime: 0.001830 s
sizeof_initialMatching: 1703544 edges

apSearchTime: 0.011210 s
totalRunTime: 0.013040 s
apSearch_iterations: 14
sizeof_finalMatching: 1889031 edges
avgAPLength: 4.21 edges
overall_throughput: 2453987730.061 edges/s
apSearchPhase_throughput: 2854594112.400 edges/s
"""


def test_parser_reads_ecl_mm_output():
    figures = ecl_mm.parse_output(SAMPLE)
    assert figures == {"size": 1889031, "initial_size": 1703544, "seconds": 0.01304, "init_seconds": 0.00183,
                       "ap_seconds": 0.01121, "iterations": 14, "edges_directed": 32000000,
                       "gpu": "NVIDIA H100 80GB HBM3"}


def test_parser_refuses_output_without_a_size():
    with pytest.raises(ecl_mm.EclError, match="printed no size"):
        ecl_mm.parse_output(SAMPLE.replace("sizeof_finalMatching", "sizeof_final"))


def test_missing_sources_are_one_clear_line(tmp_path, monkeypatch):
    monkeypatch.setattr(ecl_mm, "ECL_DIRS", (tmp_path / "none",))
    with pytest.raises(ecl_mm.EclError, match="no ECL-MM sources with build.sh in") as error:
        ecl_mm.find_sources(str(tmp_path))
    assert "\n" not in str(error.value)


def test_generated_quick_graphs_round_trip_through_egr(tmp_path):
    graph = gen.random_permutation(gen.grid(12, 9), seed=3)
    data = np.fromfile(ecl_mm.write_egr(graph, tmp_path / "g.egr"), "<i4")
    nodes, edges = data[:2]
    nindex, nlist = data[2:3 + nodes], data[3 + nodes:]
    assert (nodes, edges, nlist.size) == (2 * max(graph.shape), 2 * graph.n_edges, 2 * graph.n_edges)
    k = nodes // 2
    pairs = {(a, b - k) for a in range(k) for b in nlist[nindex[a]:nindex[a + 1]]}
    back = {(b, a - k) for a in range(k, nodes) for b in nlist[nindex[a]:nindex[a + 1]]}
    rows, cols = graph.edges()
    assert pairs == back == set(zip(rows.tolist(), cols.tolist(), strict=True))


e2e = _load("e2e")


def test_the_larger_families_at_quick_size_are_what_they_say():
    graphs = dict(e2e.more_graphs(quick=True))
    assert [name.split()[0] for name in graphs] == ["kronecker", "road", "geometric", "power-law"]
    for name, graph in graphs.items():
        assert graph.n_edges > 10_000, name
        if name.startswith(("road", "geometric")):  # with their diagonals: a perfect matching, hidden by RCP
            assert _scipy_size(graph) == graph.n_rows == graph.n_cols, name
    heavy = graphs["power-law bipartite 2^13, exponent 2.1"]
    for degrees in (np.diff(heavy.row_ptr), np.diff(heavy.col_ptr)):
        assert degrees.max() > 30 * degrees.mean()


def _scipy_size(graph: BipartiteGraph) -> int:
    from scipy.sparse.csgraph import maximum_bipartite_matching

    return int((maximum_bipartite_matching(graph.to_scipy(), perm_type="column") >= 0).sum())


def test_every_gpu_algorithm_is_measured_and_checked_on_the_simulator():
    import argparse

    graph = gen.random_permutation(gen.grid(5, 6), seed=3)
    size, errors = _scipy_size(graph), []
    options = argparse.Namespace(repeats=1, no_resident=False, variants=["apfb-auto"])
    entry = e2e.bench_graph("grid", graph, {"size": size, "seconds": 0.002}, ["sim"], options, errors)
    assert errors == [] and set(entry["programs"]) == {f"{name} sim" for name in ("gpr", "apfb", "apsb", "apfb-auto")}
    for row in entry["programs"].values():
        assert row["ok"] and row["size"] == size and row["whole_seconds"] >= row["device_seconds"] > 0
        assert row["whole_over_ecl"] == pytest.approx(row["whole_seconds"] / 0.002)
    # a size unlike ECL-MM's is an error recorded per program, not a crash
    wrong = e2e.bench_graph("grid", graph, {"size": size + 1, "seconds": 0.002}, ["sim"], options, errors)
    # each program's size and its device-resident size (gpusim.types.device_graphs on the simulator) differ
    assert len(errors) == 8 and all("!= ECL-MM's" in error for error in errors)
    assert sum("resident_size" in error for error in errors) == 4
    assert not any(row["ok"] for row in wrong["programs"].values())
    means = e2e.geomeans([entry, entry])
    assert means["apfb sim"]["graphs"] == 2
    assert means["apfb sim"]["whole_over_ecl"] == pytest.approx(entry["programs"]["apfb sim"]["whole_over_ecl"])


def test_geomean_and_floor():
    rows = [{"programs": {"p": {"whole_over_ecl": 2.0, "device_over_ecl": 0.5}}},
            {"programs": {"p": {"whole_over_ecl": 8.0, "device_over_ecl": 2.0}}}]
    assert e2e.geomeans(rows) == {"p": {"whole_over_ecl": pytest.approx(4.0), "device_over_ecl": pytest.approx(1.0),
                                        "graphs": 2}}
    ratios = e2e.ratios({"whole_seconds": 1e-3, "device_seconds": 0.0}, 0.0)
    assert ratios == {"whole_over_ecl": pytest.approx(1000.0), "device_over_ecl": 1.0}


def test_device_names_become_folder_names():
    machine = _load("machine")
    assert [machine.slug(n) for n in ("NVIDIA H100 80GB HBM3", "NVIDIA H200", "Tesla V100-SXM2-16GB")] == \
        ["h100", "h200", "v100"]
    assert machine.cpu_slug(2) == "cpu-2cores"


def test_nu_louvain_output_is_parsed_and_its_input_written(tmp_path):
    nu_louvain = _load("nu_louvain")
    text = ("{004 threads} -> {0000012.5ms, 0000000.1ms mark, 0000000.2ms init, 0000005.0ms first, 0000008.0ms move,"
            " 0000003.0ms aggr, 0007 iters, 0003 passes, 0.412500000 modularity} louvainStaticOmp\n"
            "{004 threads} -> {0000002.0ms, 0000000.1ms mark, 0000000.2ms init, 0000001.0ms first, 0000001.5ms move,"
            " 0000000.4ms aggr, 0009 iters, 0002 passes, 0.410000000 modularity} louvainStaticCuda\n")
    found = nu_louvain.parse_output(text)
    assert found["GVE-Louvain"] == {"seconds": 0.0125, "modularity": 0.4125, "passes": 3, "iterations": 7,
                                    "threads": 4}
    assert found["nu-Louvain"]["seconds"] == pytest.approx(0.002) and found["nu-Louvain"]["modularity"] == 0.41
    path = nu_louvain.write_mtx(np.array([0, 1]), np.array([1, 2]), 3, tmp_path / "g.mtx")
    from scipy.io import mmread

    assert mmread(path).toarray().astype(int).tolist() == [[0, 1, 0], [0, 0, 1], [0, 0, 0]]
    with pytest.raises(nu_louvain.AnchorError, match="main.cxx"):
        nu_louvain.find_sources(str(tmp_path))


def test_the_area_table_names_every_area_and_its_module():
    areas = _load("__main__").AREAS
    assert set(areas) == {"bipartite", "weighted", "louvain", "stable", "sim", "explore", "gpu-basics", "resident",
                          "cpu", "first-contact", "multi-gpu"}
    for area in areas.values():
        assert callable(_load(area.module).main), area


def test_gpu_rows_get_their_speedup_over_the_fastest_networkit_matcher():
    weighted = _load("weighted")
    rows = [{"part": "suitor", "program": "greedy", "backend": "cpu", "seconds": 2.0},
            {"part": "suitor", "program": "networkit suitor", "backend": "cpu", "seconds": 0.4},
            {"part": "suitor", "program": "networkit sortsuitor", "backend": "cpu", "seconds": 0.5},
            {"part": "suitor", "program": "suitor Hybrid", "backend": "cupy", "seconds": 0.02},
            {"part": "bsuitor", "program": "greedy b=2", "backend": "cpu", "seconds": 3.0},
            {"part": "bsuitor", "program": "networkit b-suitor b=2", "backend": "cpu", "seconds": 0.6},
            {"part": "bsuitor", "program": "b-suitor b=2", "backend": "numba", "seconds": 0.2}]
    weighted.against_networkit(rows)
    assert rows[3]["speedup_vs_networkit"] == pytest.approx(20.0) and rows[3]["networkit_seconds"] == 0.4
    assert rows[6]["speedup_vs_networkit"] == pytest.approx(3.0)
    assert rows[1]["speedup_vs_greedy"] == pytest.approx(5.0) and "speedup_vs_networkit" not in rows[1]


def test_networkit_matchers_agree_with_the_greedy_weights():
    pytest.importorskip("networkit")
    weighted = _load("weighted")
    from gpusim.algorithms.weighted import reference_b_suitor, reference_greedy

    graph = weighted.random_graph(300, 1200, seed=4)
    base = {"part": "suitor", "graph": "g", "n": graph.n, "edges": graph.n_edges}
    rows = weighted.networkit_rows(graph, base, reference_greedy.greedy(graph).weight,
                                   reference_b_suitor.greedy_b_matching(graph, 2).weight)
    assert [r["program"] for r in rows] == ["networkit suitor", "networkit b-suitor b=2", "networkit sortsuitor"]
    assert all(r["ok"] for r in rows)


def test_device_resident_calls_are_timed_and_checked(monkeypatch):
    import argparse

    graph = gen.uniform_random(20, 24, 60, seed=5)
    size = _scipy_size(graph)
    # a stand-in for a device-resident graph: the host graph (the simulator has no separate memory to reside in)
    monkeypatch.setattr(e2e, "device_resident", lambda g, backend: (g, ""))
    options = argparse.Namespace(repeats=1, no_resident=False, variants=[])
    errors = []
    entry = e2e.bench_graph("uniform", graph, {"size": size, "seconds": 0.002}, ["sim"], options, errors)
    assert errors == []
    for row in entry["programs"].values():
        assert row["resident_size"] == size and row["resident_output"] in ("host", "device")
        assert row["resident_over_ecl"] == pytest.approx(row["resident_seconds"] / 0.002)
        assert row["resident_over_device"] == pytest.approx(row["resident_seconds"] / row["resident_device_seconds"])
    assert "resident_over_ecl" in e2e.geomeans([entry])["apsb sim"]


def test_best_of_releases_the_last_result_before_each_timed_call(monkeypatch):
    events: list[str] = []

    def call():
        events.append("called")
        return benchmark_scripts.Released(events)

    monkeypatch.setattr(e2e, "MAX_CALLS", 3)  # calls this short are timed MAX_CALLS times
    whole, device, result = e2e.best_of(call, lambda: None, 2)
    assert device == 1e-9 and whole > 0 and result is not None
    # the warm-up's result is dropped at once; each timed call's result is released before the next call starts
    assert events == ["called", "released"] + ["called", "released"] * 2 + ["called"]


def test_best_of_repeats_a_short_call_until_its_calls_add_up(monkeypatch):
    import types

    clock, calls = [0.0], []

    def call(seconds):  # a call that takes `seconds` of the script's clock
        calls.append(seconds)
        clock[0] += seconds
        return benchmark_scripts.Released([])

    monkeypatch.setattr(e2e, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))
    monkeypatch.setattr(e2e, "MIN_TIMED_SECONDS", 0.02)
    whole, _, _ = e2e.best_of(lambda: call(0.0001), lambda: None, 2)
    assert len(calls) == 1 + e2e.MAX_CALLS and whole == pytest.approx(0.0001)  # the warm-up, then MAX_CALLS calls
    calls.clear()
    e2e.best_of(lambda: call(0.006), lambda: None, 2)
    assert len(calls) == 1 + 4  # four calls of 0.006 s are the first to add up to 0.02 s
    calls.clear()
    e2e.best_of(lambda: call(0.025), lambda: None, 2)
    assert len(calls) == 1 + 2  # long calls: --repeats of them
