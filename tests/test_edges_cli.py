"""The command line at the edges: huge headers, full disks, unwritable places, values named in every message.

Each test runs ``gpusim`` in a subprocess (peak memory read with ``resource.getrusage`` in a wrapper) or
in process with a failing write simulated, and checks the exit status, the one line on stderr and that
nothing is left behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpusim.cli.app import main
from gpusim.types.graphs import WeightedGraph

HUGE = "%%MatrixMarket matrix coordinate real general\n100000000 100000000 3\n1 2 1\n2 3 1\n3 1 1\n"
#: Runs gpusim in a child and prints the child's peak resident memory (KiB) last, on stderr.
PEAK = ("import resource, subprocess, sys; p = subprocess.run([sys.executable, '-m', 'gpusim', *sys.argv[1:]]); "
        "print('PEAK', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
        "sys.exit(p.returncode)")


def gpusim(*args: str, stdout=subprocess.PIPE, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gpusim", *args], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, timeout=timeout)


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("command", [
    ["match", "--algorithm", "gpr"], ["match", "--algorithm", "hk", "--backend", "cpu"],
    ["match", "--algorithm", "apfb", "--backend", "numba"], ["match", "--algorithm", "suitor", "--backend", "sim"],
    ["match", "--algorithm", "roma", "--backend", "cupy"], ["match", "--algorithm", "bsuitor", "--b", "3"],
    ["match", "--algorithm", "greedy", "--backend", "cpu"], ["louvain", "--backend", "cpu"],
    ["louvain", "--backend", "sim"], ["louvain", "--algorithm", "blondel"],
])
def test_a_huge_header_is_refused_in_under_2_s_and_200_mb(tmp_path, command):
    source = write(tmp_path, "huge.mtx", HUGE)
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", PEAK, command[0], source, *command[1:], "--max-memory", "1G"],
                         capture_output=True, text=True, timeout=60)
    seconds = time.perf_counter() - start
    lines = run.stderr.strip().splitlines()
    peak_kib = int(lines[-1].split()[1])
    assert run.returncode == 2, run.stderr
    assert lines[0].startswith("gpusim: error: ") and "100000000 x 100000000 with 3 entries" in lines[0]
    assert "--max-memory 1 GiB" in lines[0] and len(lines) == 2
    assert peak_kib < 200 * 1024, peak_kib
    assert seconds < 2 * max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1)), seconds  # a loaded machine, slower


def test_within_the_limit_memory_follows_the_arrays(tmp_path):
    """10^6 x 10^6 declared, 3 entries: answered; the peak stays within the header's estimate plus the
    interpreter (about 130 MB), not gigabytes."""
    from gpusim.types.memory import matrix_market_header, run_bytes

    source = write(tmp_path, "wide.mtx", HUGE.replace("100000000", "1000000"))
    run = subprocess.run([sys.executable, "-c", PEAK, "match", source, "--algorithm", "hk", "--backend", "cpu",
                          "--quiet", "--json"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["size"] == 3
    peak = int(run.stderr.strip().splitlines()[-1].split()[1]) * 1024
    assert peak < 200 * 2**20 + run_bytes("match", "hk", matrix_market_header(source)), peak


def test_the_default_limit_is_the_process_s_own(monkeypatch):
    import resource

    from gpusim.types import memory

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    assert memory.memory_available() > 0
    monkeypatch.setattr(memory.resource, "getrlimit", lambda which: (3 * 2**20, hard))
    assert memory.memory_available() <= 3 * 2**20


def test_matrix_market_errors_name_the_value(tmp_path):
    cases = {
        "5 5 2\n1 2 1\n9 3 1\n": "line 4: row index 9 is out of bounds (rows 1..5)",
        "5 5 2\n1 2 1\n3 7 1\n": "line 4: column index 7 is out of bounds (columns 1..5)",
        "5 5 2\n1 2 1\n3 x 1\n": "line 4: column index 'x' is not an integer",
        "5 x 2\n": "line 2: columns 'x' is not an integer",
    }
    for body, expected in cases.items():
        source = write(tmp_path, "bad.mtx", "%%MatrixMarket matrix coordinate real general\n" + body)
        run = gpusim("match", source, "--quiet")
        assert run.returncode == 2 and expected in run.stderr and "bad.mtx" in run.stderr, run.stderr
        assert run.stderr.count("\n") == 1


def test_json_preference_errors_name_the_file(tmp_path):
    source = write(tmp_path, "prefs.json", '{"men": [[0]], "women": [[5]]}')
    run = gpusim("stable", source)
    assert run.returncode == 2 and "prefs.json" in run.stderr and "women[0][0]=5" in run.stderr


def test_stable_refuses_a_file_above_max_memory(tmp_path):
    source = write(tmp_path, "prefs.json", '{"men": [[0]], "women": [[0]]}')
    run = gpusim("stable", source, "--max-memory", "100")
    assert run.returncode == 2 and "prefs.json" in run.stderr and "--max-memory" in run.stderr


def test_replay_tokens_and_scenarios_are_named():
    run = gpusim("explore", "--replay", "nosuch@gs1-abc")
    assert run.returncode == 2 and "'nosuch'" in run.stderr and "'gs1-abc'" in run.stderr
    run = gpusim("demo", "--replay", "gs1-damaged")
    assert run.returncode == 2 and "'gs1-damaged'" in run.stderr


def test_a_weight_that_is_not_a_number_is_named():
    from gpusim.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match=r"w\[0\]='heavy' is not a real number"):
        WeightedGraph.from_edges([0], [1], ["heavy"])


def test_a_scheduler_that_does_not_answer_says_it_could_not_connect():
    run = gpusim("explore", "lost_update", "--scheduler", "tcp://127.0.0.1:1", "--quiet", timeout=60)
    assert run.returncode == 1 and "could not connect" in run.stderr and "MemoryError" not in run.stderr
    assert "Traceback" not in run.stderr


def test_b_beyond_int64_is_a_usage_error():
    run = gpusim("match", "--example", "karate", "--algorithm", "bsuitor", "--b", "100000000000000000000")
    assert run.returncode == 2 and "100000000000000000000 is out of range" in run.stderr
    assert "Traceback" not in run.stderr


def test_weights_past_the_largest_double_are_refused_naming_the_edge(tmp_path):
    source = write(tmp_path, "big.mtx", "%%MatrixMarket matrix coordinate real symmetric\n4 4 3\n"
                                        "2 1 1.5e308\n3 2 1.0\n4 3 1.5e308\n")
    for algorithm, backend in (("suitor", "cpu"), ("suitor", "sim"), ("roma", "cpu")):
        run = gpusim("match", source, "--algorithm", algorithm, "--backend", backend, "--quiet")
        assert run.returncode == 2 and "too large" in run.stderr and "1.5e+308" in run.stderr, run.stderr


@pytest.mark.parametrize("weight", ["1e300", "1e-300", "1e-200"])
def test_louvain_at_extreme_weights_is_certified(tmp_path, weight):
    source = write(tmp_path, "path.mtx", f"%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n"
                                         f"2 1 {weight}\n3 2 {weight}\n")
    run = gpusim("louvain", source, "--backend", "cpu", "--json", "--quiet")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["modularity"] == pytest.approx(0.0, abs=1e-12)


def test_a_path_refused_before_the_work_exits_2(tmp_path):
    run = gpusim("match", "--example", "karate", "--png", "/proc/x.png", "--quiet")
    assert run.returncode == 2 and "/proc/x.png" in run.stderr and "write" in run.stderr
    assert run.stdout == ""
    run = gpusim("demo", "--html", "/proc/x.html", "--quiet")
    assert run.returncode == 2 and "/proc/x.html" in run.stderr


def test_json_to_a_full_stdout_is_one_line_exit_1():
    with open("/dev/full", "w") as full:
        run = gpusim("match", "--example", "karate", "--json", "--quiet", stdout=full)
    assert run.returncode == 1
    assert run.stderr.strip().splitlines() == ["gpusim: error: cannot write the result to standard output: "
                                               "No space left on device"]


def _disk_fills(monkeypatch, module, name):
    """Make ``module.name`` (a writer) write a few bytes and then fail as a full disk does."""
    def full(*args, **kwargs):
        target = args[1] if name == "savefig" else args[0]
        Path(str(target)).write_bytes(b"partial")
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(module, name, full)


def test_a_picture_on_a_full_disk_exits_1_naming_the_path(tmp_path, monkeypatch, capsys):
    import matplotlib.figure

    _disk_fills(monkeypatch, matplotlib.figure.Figure, "savefig")
    target = tmp_path / "m.png"
    assert main(["match", "--example", "karate", "--png", str(target), "--quiet"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"gpusim: error: cannot write {str(target)!r}: No space left on device"]
    assert list(tmp_path.iterdir()) == []  # no picture, no .partial


def test_a_page_on_a_full_disk_exits_1_and_leaves_nothing(tmp_path, monkeypatch, capsys):
    _disk_fills(monkeypatch, Path, "write_text")
    target = tmp_path / "d.html"
    assert main(["demo", "--html", str(target), "--quiet"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == f"gpusim: error: cannot write {str(target)!r}: No space left on device"
    assert list(tmp_path.iterdir()) == []


def test_the_weighted_names_match_the_registry():
    from gpusim.cli.common import algorithm_names
    from gpusim.cli.match import WEIGHTED

    assert sorted(WEIGHTED) == sorted(algorithm_names("weighted"))


def test_auto_answers_a_wide_header_on_cpu(tmp_path):
    """A declared 30,000 x 30,000 with 3 entries: ``auto`` without a GPU answers on the CPU engine, not with a
    thread a vertex on the simulator."""
    source = write(tmp_path, "wide.mtx", HUGE.replace("100000000", "30000"))
    for command in (["match", source], ["match", source, "--algorithm", "suitor"],
                    ["louvain", source, "--symmetrise", "sum"]):
        run = gpusim(*command, "--json", "--quiet")
        assert run.returncode == 0, run.stderr
        record = json.loads(run.stdout)
        assert record["backend"] == "cpu" and record["chosen"].startswith("auto: "), record["chosen"]


def test_the_default_limit_follows_rlimit_as(tmp_path):
    """Under ``ulimit -v 3G`` a declared 10^7 x 10^7 (about 2.4 GiB of arrays) is refused by the default limit,
    half of 3 GiB, whatever ``MemTotal`` says."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))

    source = write(tmp_path, "wide.mtx", HUGE.replace("100000000", "10000000"))
    run = subprocess.run([sys.executable, "-m", "gpusim", "match", source, "--algorithm", "hk"],
                         preexec_fn=limit, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2, run.stderr
    assert "the default --max-memory, half the memory this process may use 1.5 GiB" in run.stderr


def test_a_campaign_file_on_a_full_disk_exits_1_naming_it():
    run = gpusim("explore", "lost_update", "--save", "/dev/full", "--budget", "2", "--quiet")
    assert run.returncode == 1
    assert run.stderr.strip() == "gpusim: error: cannot write '/dev/full': No space left on device"
