"""Every ``gpusim`` subcommand, fed bad input as a new user would: one line on stderr, never a traceback.

Each case runs ``python -m gpusim ...`` in a subprocess and asserts: exit status 1 or 2, no
``Traceback``, exactly one line on stderr that names the offending value, nothing on stdout but a
JSON document with an ``"error"`` (under ``--json``), and no file left behind in the case's folder.
Every case fails before any heavy work, so the table stays fast.  A few positive tests follow: the
pictures of weighted and stable matchings, and a ``--json`` document that survives a failing picture.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from gpusim.cli import main

_FILES = {
    "empty.mtx": b"",
    "garbage.mtx": b"this is not a matrix\n1 2 3\n",
    "binary.mtx": bytes(range(256)),
    "nan.mtx": b"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 nan\n2 1 1.0\n",
    "wide.mtx": b"%%MatrixMarket matrix coordinate real general\n2 3 1\n1 3 1.0\n",
    "good.mtx": b"%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 1\n2 2\n",
    "vast.mtx": b"%%MatrixMarket matrix coordinate real symmetric\n200000 200000 1\n2 1 1.0\n",
    "empty.json": b"",
    "garbage.json": b"[1, 2",
    "binary.json": b"\xff\xfe\x00 not text",
    "list.json": b"[1, 2, 3]",
    "twice.json": b'{"men": [[0, 0]], "women": [[0]]}',
    "good.json": b'{"men": [[0]], "women": [[0]]}',
}

# (argv with {tmp} for the case's folder, a fragment the one-line message must contain)
CASES = [
    # match: files
    (["match", "{tmp}/missing.mtx"], "missing.mtx"),
    (["match", "{tmp}/empty.mtx"], "empty.mtx"),
    (["match", "{tmp}/garbage.mtx"], "garbage.mtx"),
    (["match", "{tmp}/binary.mtx"], "binary.mtx"),
    (["match", "{tmp}"], "is a folder"),
    (["match", "{tmp}/nan.mtx", "--algorithm", "suitor"], "nan"),
    (["match", "{tmp}/wide.mtx", "--algorithm", "suitor"], "square"),
    (["match", "{tmp}/good.mtx", "--example", "karate"], "'karate'"),
    (["match"], "--example"),
    # match: examples, algorithms, backends, numbers
    (["match", "--example", "marriage"], "'marriage'"),
    (["match", "--example", "nope"], "'nope'"),
    (["match", "--example", "karate", "--algorithm", "dfs"], "'dfs'"),
    (["match", "--example", "karate", "--backend", "tpu"], "'tpu'"),
    (["match", "--example", "karate", "--algorithm", "hk", "--backend", "sim"], "'sim'"),
    (["match", "--example", "karate", "--algorithm", "pfp", "--backend", "cupy"], "cpu backend"),
    (["match", "--example", "karate", "--backend", "numba"], "numba"),
    (["match", "--example", "karate", "--algorithm", "bsuitor", "--b", "nan"], "'nan'"),
    (["match", "--example", "karate", "--algorithm", "bsuitor", "--b", "-3"], "-3"),
    (["match", "--example", "karate", "--algorithm", "suitor", "--b", "2"], "--b 2"),
    (["match", "--example", "karate", "--seed", "nan"], "'nan'"),
    (["match", "--example", "karate", "--backend", "sim", "--policy", "chaos"], "'chaos'"),
    (["match", "--example", "karate", "--frobnicate"], "--frobnicate"),
    # match: memory (ROMA and RAMA densify to n x n; 200,000 vertices would need 298 GiB)
    (["match", "{tmp}/vast.mtx", "--algorithm", "roma", "--backend", "cpu"], "--algorithm suitor"),
    (["match", "{tmp}/vast.mtx", "--algorithm", "rama"], "GiB"),
    (["match", "--example", "karate", "--algorithm", "roma", "--max-memory", "1K"], "1 KiB"),
    (["match", "--example", "karate", "--algorithm", "roma", "--max-memory", "12X"], "'12X'"),
    (["match", "--example", "karate", "--algorithm", "roma", "--max-memory", "-5"], "'-5'"),
    (["match", "--example", "karate", "--algorithm", "roma", "--max-memory", "nan"], "'nan'"),
    # match: pictures
    (["match", "--example", "west0067", "--png", "/nonexistent/x.png"], "/nonexistent/x.png"),
    (["match", "--example", "karate", "--algorithm", "suitor", "--png", "/nonexistent/w.png"], "/nonexistent"),
    (["match", "--example", "karate", "--png", "{tmp}/m.txt"], ".txt"),
    (["match", "--example", "karate", "--png", "{tmp}"], "is a folder"),
    (["match", "--example", "karate", "--json", "--png", "/nonexistent/j.png"], "/nonexistent/j.png"),
    # stable
    (["stable", "{tmp}/missing.json"], "missing.json"),
    (["stable", "{tmp}/empty.json"], "empty.json"),
    (["stable", "{tmp}/garbage.json"], "not valid JSON"),
    (["stable", "{tmp}/binary.json"], "binary.json"),
    (["stable", "{tmp}/list.json"], "men"),
    (["stable", "{tmp}/twice.json"], "woman 0 twice"),
    (["stable", "{tmp}"], "is a folder"),
    (["stable", "{tmp}/good.json", "--example", "marriage"], "'marriage'"),
    (["stable", "--example", "karate"], "marriage-hard"),
    (["stable", "--example", "nope"], "'nope'"),
    (["stable", "--example", "marriage", "--algorithm", "irving"], "'irving'"),
    (["stable", "--example", "marriage", "--algorithm", "gs", "--backend", "cupy"], "'cupy'"),
    (["stable", "--example", "marriage", "--backend", "tpu"], "'tpu'"),
    (["stable", "--example", "marriage", "--capacity", "-5"], "-5"),
    (["stable", "--example", "marriage", "--capacity", "nan"], "'nan'"),
    (["stable", "--example", "marriage", "--png", "/nonexistent/s.png"], "/nonexistent/s.png"),
    (["stable", "--example", "marriage", "--json", "--png", "{tmp}/s.jpeg"], ".jpeg"),
    # demo
    (["demo", "--threads", "1"], "threads=1"),
    (["demo", "--threads", "100000000"], "threads=100000000"),
    (["demo", "--threads", "nan"], "'nan'"),
    (["demo", "--block", "0"], "block=0"),
    (["demo", "--block", "5000"], "block=5000"),
    (["demo", "--replay", "nonsense"], "nonsense"),
    (["demo", "--replay", "gs1-abc", "--seed", "3"], "--seed"),
    (["demo", "--policy", "chaos"], "'chaos'"),
    (["demo", "--png", "/nonexistent/d.png"], "/nonexistent/d.png"),
    (["demo", "--json", "--threads", "0"], "threads=0"),
    # bench
    (["bench", "sim", "--ops", "-1"], "ops=-1"),
    (["bench", "sim", "--ops", "1"], "ops=1"),
    (["bench", "sim", "--threads", "100000000"], "threads=100000000"),
    (["bench", "sim", "--block", "2000"], "block=2000"),
    (["bench", "sim", "--ops", "nan"], "'nan'"),
    (["bench", "gpu"], "'gpu'"),
    # explore
    (["explore", "nosuch"], "'nosuch'"),
    (["explore", "lost_update", "--budget", "-1"], "budget=-1"),
    (["explore", "lost_update", "--seed", "-1"], "seed=-1"),
    (["explore", "lost_update", "--max-preemptions", "-1"], "max_preemptions=-1"),
    (["explore", "lost_update", "--policy", "chaos"], "'chaos'"),
    (["explore", "lost_update", "--engine", "turbo"], "'turbo'"),
    (["explore", "--replay", "garbage"], "garbage"),
    (["explore", "--zoo", "--list"], "--zoo and --list"),
    (["explore", "lost_update", "--zoo"], "SCENARIO and --zoo"),
    (["explore", "--zoo", "--png", "{tmp}/z.png"], "z.png"),
    (["explore", "--zoo", "--fixed-budget", "0"], "fixed_budget=0"),
    (["explore", "lost_update", "--png", "/nonexistent/e.png"], "/nonexistent/e.png"),
    (["explore"], "SCENARIO"),
    # louvain: the registry's algorithms of communities
    (["louvain", "--example", "karate", "--algorithm", "leiden"], "'leiden'"),
    (["louvain", "--example", "karate", "--algorithm", "blondel", "--backend", "sim"], "'sim'"),
    # algorithms: the registry's table
    (["algorithms", "--problem", "graphs"], "'graphs'"),
    (["algorithms", "--json", "--problem", "nope"], "'nope'"),
    (["algorithms", "--problem"], "--problem"),
    (["algorithms", "bipartite"], "unrecognized arguments: bipartite"),
    (["algorithms", "--frobnicate"], "--frobnicate"),
    # the top level
    (["frobnicate"], "'frobnicate'"),
    (["--frobnicate"], "--frobnicate"),
]


@pytest.fixture
def folder(tmp_path):
    for name, content in _FILES.items():
        (tmp_path / name).write_bytes(content)
    return tmp_path


def _gpusim(argv: list[str], **environment: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "GPUSIM_DEBUG"}
    return subprocess.run([sys.executable, "-m", "gpusim", *argv], capture_output=True, text=True, timeout=120,
                          env={**env, **environment})


def test_the_table_is_big_enough():
    assert len(CASES) >= 60
    assert {argv[0] for argv, _ in CASES} >= {"match", "stable", "demo", "bench", "explore", "louvain", "algorithms"}


@pytest.mark.parametrize("argv, fragment", CASES, ids=[" ".join(argv) for argv, _ in CASES])
def test_bad_input_is_one_line_naming_it(folder, argv, fragment):
    before = sorted(folder.iterdir())
    done = _gpusim([part.replace("{tmp}", str(folder)) for part in argv])
    assert done.returncode in (1, 2), done
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert fragment.replace("{tmp}", str(folder)) in lines[0]
    assert lines[0].startswith("gpusim")
    if "--json" in argv and done.returncode == 2 and done.stdout:
        assert "error" in json.loads(done.stdout)
    else:
        assert done.stdout == ""
    assert sorted(folder.iterdir()) == before  # no partial output
    assert not [path for path in argv if path.startswith("/nonexistent") and os.path.exists(path)]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads every file")
def test_an_unreadable_file_is_named(folder):
    target = folder / "good.mtx"
    target.chmod(0)
    done = _gpusim(["match", str(target)])
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        f"gpusim: error: cannot read {str(target)!r}: permission denied"]


def test_debug_shows_the_traceback(folder):
    for done in (_gpusim(["match", str(folder / "missing.mtx"), "--debug"]),
                 _gpusim(["match", str(folder / "missing.mtx")], GPUSIM_DEBUG="1")):
        assert done.returncode == 2
        assert "Traceback" in done.stderr and "InvalidArgument" in done.stderr
        assert done.stderr.strip().splitlines()[-1] == f"gpusim: error: no such file: {str(folder / 'missing.mtx')!r}"


def test_an_internal_error_is_called_a_gpusim_bug(monkeypatch, capsys):
    import gpusim.cli.stable

    def broken(options):
        raise TypeError("unsupported operand")

    monkeypatch.setattr(gpusim.cli.stable, "_stable", broken)
    assert main(["stable", "--example", "marriage"]) == 1
    error = capsys.readouterr().err.strip()
    assert error.splitlines() == [error]
    assert "TypeError: unsupported operand" in error and "gpusim bug" in error and "--debug" in error


# -- what comes out when the run succeeds, or fails late -------------------------------------------


@pytest.mark.parametrize("argv", [
    ["match", "--example", "karate", "--algorithm", "bsuitor", "--b", "2", "--backend", "cpu"],
    ["match", "--example", "karate", "--algorithm", "greedy", "--backend", "cpu"],
    ["stable", "--example", "marriage", "--algorithm", "gs"],
])
def test_png_of_weighted_and_stable_matchings(tmp_path, capsys, argv):
    picture = tmp_path / "picture.png"
    assert main([*argv, "--png", str(picture), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.strip().endswith(f"drawn to {picture}")
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and picture.stat().st_size > 10_000
    assert [path.name for path in tmp_path.iterdir()] == ["picture.png"]  # no temporary file left


def test_json_survives_a_failing_picture(tmp_path, capsys, monkeypatch):
    import gpusim.teaching.plots

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device", str(tmp_path / "w.png"))

    monkeypatch.setattr(gpusim.teaching.plots, "weighted_matching_picture", full_disk)
    assert main(["match", "--example", "karate", "--algorithm", "suitor", "--json", "--png",
                 str(tmp_path / "w.png")]) == 1
    captured = capsys.readouterr()
    out = json.loads(captured.out)  # one valid document
    assert "No space left on device" in out["error"] and out["exit_status"] == 1
    assert len(out["matching"]) == 34 and out["size"] == sum(mate >= 0 for mate in out["matching"]) // 2 > 0
    assert captured.err.strip().splitlines() == [f"gpusim: error: {out['error']}"]


def test_text_result_comes_before_a_failing_picture(tmp_path, capsys, monkeypatch):
    import gpusim.teaching.plots

    def broken(*args, **kwargs):
        raise OSError(5, "Input/output error", str(tmp_path / "s.png"))

    monkeypatch.setattr(gpusim.teaching.plots, "bipartite_matching_picture", broken)
    assert main(["stable", "--example", "marriage", "--png", str(tmp_path / "s.png")]) == 1
    captured = capsys.readouterr()
    assert "man-woman pairs: 0-1 2-0 3-2" in captured.out
    assert "Input/output error" in captured.err and not (tmp_path / "s.png").exists()


def test_b_matching_json_lists_the_partners_of_each_vertex(capsys):
    import networkx as nx
    from scipy.io import mmread

    from gpusim.types.graphs import example_path

    assert main(["match", "--example", "karate", "--algorithm", "bsuitor", "--b", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    karate = nx.from_scipy_sparse_array(mmread(example_path("karate")))
    partners = out["matching"]
    assert len(partners) == karate.number_of_nodes()
    assert all(len(mine) <= 2 for mine in partners)
    pairs = {frozenset((u, v)) for u, mine in enumerate(partners) for v in mine}
    assert all(u in partners[v] for u, mine in enumerate(partners) for v in mine)  # listed from both ends
    assert all(karate.has_edge(*pair) for pair in pairs)
    assert len(pairs) == out["size"] > 0


# -- progress bars ---------------------------------------------------------------------------------


@pytest.mark.parametrize("argv, unit", [
    (["match", "--example", "karate", "--algorithm", "suitor", "--backend", "sim"], "point"),
    (["bench", "sim", "--threads", "32", "--ops", "4", "--no-cudasim"], "measurement"),
])
def test_progress_appears_when_forced_and_quiet_silences_it(argv, unit):
    forced = _gpusim([*argv, "--progress"])
    assert forced.returncode == 0 and unit in forced.stderr
    quiet = _gpusim([*argv, "--progress", "--quiet"])
    assert quiet.returncode == 0 and quiet.stderr == ""


def test_no_progress_bar_when_stderr_is_not_a_terminal():
    plain = _gpusim(["explore", "lost_update.fixed", "--budget", "20"])  # stderr is a pipe here
    assert "no failure in 20 schedule(s)" in plain.stdout
    assert plain.returncode == 0 and plain.stderr == ""


@pytest.mark.parametrize("argv, fragment", CASES, ids=[" ".join(argv) for argv, _ in CASES])
def test_bad_input_in_process_is_one_line_naming_it(folder, argv, fragment, capsys, monkeypatch):
    """The same table through :func:`gpusim.cli.main` in this process: what ``pytest -m quick`` runs (a Python
    start per case costs a second of CPU; the test above runs the real command)."""
    from gpusim.cli import main

    monkeypatch.delenv("GPUSIM_DEBUG", raising=False)
    before = sorted(folder.iterdir())
    try:
        status = main([part.replace("{tmp}", str(folder)) for part in argv])
    except SystemExit as exit_:  # argparse's own usage errors
        status = exit_.code
    out, err = capsys.readouterr()
    assert status in (1, 2) and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and fragment.replace("{tmp}", str(folder)) in lines[0] and lines[0].startswith("gpusim")
    if "--json" in argv and status == 2 and out:
        assert "error" in json.loads(out)
    else:
        assert out == ""
    assert sorted(folder.iterdir()) == before
