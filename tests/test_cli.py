"""The command line: --version, demo (find, show, replay), bench sim."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gpusim import __version__
from gpusim.cli import main


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"gpusim {__version__}"


def test_demo_finds_a_lost_update_and_its_replay_reproduces_it(capsys, tmp_path):
    picture = tmp_path / "lanes.png"
    assert main(["demo", "--threads", "8", "--block", "8", "--json", "--png", str(picture)]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["counter"] < 8
    assert found["lost_updates"] == 8 - found["counter"]
    first, second = found["collision"][:2]
    assert first["value"] == second["value"] and first["op"] == second["op"] == "load"
    assert picture.stat().st_size > 10_000
    assert main(["demo", "--threads", "8", "--block", "8", "--json", "--replay", found["token"]]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["counter"] == found["counter"]
    assert replayed["collision"] == found["collision"]


def test_demo_text_shows_the_collision_and_the_replay_command(capsys):
    assert main(["demo", "--threads", "4", "--block", "4"]) == 0
    text = capsys.readouterr().out
    assert "both loaded" in text
    assert "gpusim demo --threads 4 --block 4 --replay gs1-" in text


def test_bad_usage_is_a_clear_error_not_a_traceback(capsys):
    assert main(["demo", "--threads", "1"]) == 2
    assert "threads=1" in capsys.readouterr().err
    assert main(["demo", "--replay", "nonsense"]) == 2
    assert "not a gpusim replay token" in capsys.readouterr().err


def test_python_dash_m_gpusim_runs():
    done = subprocess.run([sys.executable, "-m", "gpusim", "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == f"gpusim {__version__}"


def test_bench_sim_reports_points_per_second(capsys):
    assert main(["bench", "sim", "--threads", "64", "--ops", "10", "--no-cudasim", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {(row["workload"], row["policy"]) for row in rows} == {
        ("memory", "sequential"), ("memory", "pct"), ("memory", "random"), ("memory", "round_robin"),
        ("barrier", "sequential"), ("barrier", "random")}
    assert all(row["points"] == 640 and row["points_per_second"] > 0 for row in rows)
    # the race detector's cost: the reference engine's random schedules with it (Device("sim")'s default) and without
    for workload in ("memory", "barrier"):
        assert {row["races"] for row in rows if row["workload"] == workload and row["simulator"] == "gpusim"
                and row["policy"] == "random" and not row["trace"]} == {"off", "report"}


@pytest.mark.parametrize("algorithm, backend", [("gpr", "sim"), ("apfb", "sim"), ("apsb", "auto"), ("hk", "cpu"),
                                                ("pfp", "auto"), ("pr", "cpu")])
def test_match_json_has_the_contract_fields(capsys, algorithm, backend):
    from scipy.io import mmread
    from scipy.sparse.csgraph import maximum_bipartite_matching

    from gpusim.runtime.device import choose_backend
    from gpusim.runtime.registry import lookup
    from gpusim.types.graphs import example_path

    assert main(["match", "--example", "west0067", "--algorithm", algorithm, "--backend", backend, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"algorithm", "backend", "size", "valid", "certified", "seconds", "matching"} <= set(out)
    pattern = mmread(example_path("west0067")).tocsr()
    chosen = choose_backend(backend, pattern.nnz)[0]  # auto: cpu for this small input (never the simulator)
    assert out["backend"] == chosen
    gpu_only = chosen == "cpu" and algorithm in ("gpr", "apfb", "apsb")
    ran = lookup("bipartite", algorithm).on_cpu if gpu_only else algorithm
    assert out["algorithm"] == ran and out["valid"] and out["certified"]
    expected = int((maximum_bipartite_matching(pattern, perm_type="column") >= 0).sum())
    assert out["size"] == expected == sum(c >= 0 for c in out["matching"]) == 67


def test_match_a_file_with_a_picture(capsys, tmp_path):
    matrix = tmp_path / "tiny.mtx"
    matrix.write_text("%%MatrixMarket matrix coordinate pattern general\n3 2 3\n1 1\n2 1\n3 2\n")
    picture = tmp_path / "m.png"
    assert main(["match", str(matrix), "--algorithm", "apfb", "--backend", "sim", "--png", str(picture)]) == 0
    text = capsys.readouterr().out
    assert "matching of size 2, valid; certified maximum" in text
    assert picture.stat().st_size > 5_000


@pytest.mark.parametrize("argv, fragment", [
    (["match"], "give either a FILE or --example"),
    (["match", "--example", "nope"], "nope"),
    (["match", "--example", "karate", "--algorithm", "dfs"], "'dfs' is not one of"),
    (["match", "--example", "karate", "--algorithm", "hk", "--backend", "sim"], "runs on the cpu backend"),
    (["match", "--example", "karate", "--backend", "tpu"], "backend='tpu'"),
])
def test_match_bad_usage(capsys, argv, fragment):
    assert main(argv) == 2
    assert fragment in capsys.readouterr().err


def test_match_gpu_algorithm_on_cpu_runs_its_sequential_counterpart(capsys):
    # The dispatcher's rule: a GPU algorithm asked for the cpu backend runs its registered
    # sequential counterpart (gpr -> pr) and says so, where it used to be refused.
    assert main(["match", "--example", "karate", "--algorithm", "gpr", "--backend", "cpu", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["algorithm"] == "pr" and out["backend"] == "cpu"
    assert out["chosen"] == "asked for: ran its sequential counterpart pr"
    assert out["valid"] and out["certified"]


@pytest.mark.parametrize("algorithm", ["suitor", "ld", "roma", "greedy", "pga", "gpa", "bsuitor", "rama"])
def test_match_weighted_json(capsys, algorithm):
    from gpusim.algorithms.weighted.reference_greedy import greedy as greedy_matching
    from gpusim.types.graphs import WeightedGraph, example_path

    assert main(["match", "--example", "karate", "--algorithm", algorithm, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"algorithm", "backend", "weight", "valid", "certified", "seconds", "matching"} <= set(out)
    assert out["valid"] and out["certified"]
    if algorithm in ("suitor", "ld", "greedy"):
        greedy = greedy_matching(WeightedGraph.from_matrix_market(example_path("karate")))
        assert out["matching"] == greedy.mate.tolist() and out["weight"] == pytest.approx(greedy.weight)


def test_the_simulator_progress_hook_counts_every_point_and_every_launch():
    import numpy as np

    from gpusim.runtime.device import Device
    from gpusim.teaching.bench import memory_bound

    calls = []
    dev = Device("sim", policy="random", seed=1, trace=False,
                 progress=lambda points, done: calls.append((points, done)))
    a = dev.zeros(600, np.int32)
    for _ in range(2):
        dev.launch(memory_bound, grid=3, block=200, args=(a, 600, 5))
    assert sum(points for points, _ in calls) == 2 * 600 * 2 * 5  # a load and a store per round and thread
    assert [done for _, done in calls].count(True) == 2 and calls[-1][1]
    assert len(calls) > 2  # updated during the launches too, not only at their ends
