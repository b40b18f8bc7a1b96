"""``gpusim exercise``: list, show, check; bad input gets one line and exit status 2."""

from __future__ import annotations

import json

import pytest

from gpusim.cli import main
from gpusim.exercises import EXERCISES, get_exercise


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["exercise", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_list_and_show(capsys):
    status, out, _ = _run(capsys, "list")
    assert status == 0 and len(out.splitlines()) == len(EXERCISES) and "Histogram with atomics" in out
    status, out, _ = _run(capsys, "7")
    assert status == 0 and out.startswith("Exercise 7: ") and get_exercise(7).stub() in out
    status, out, _ = _run(capsys, "7", "--stub")
    assert status == 0 and out == get_exercise(7).stub()
    status, out, _ = _run(capsys, "3", "--json")
    assert status == 0 and json.loads(out)["stub"] == get_exercise(3).stub()


def test_a_solution_passes_and_a_stub_fails(capsys):
    status, out, _ = _run(capsys, "5", str(get_exercise(5).solution_path))
    assert status == 0 and "exercise 5: correct" in out and "correct under" in out
    status, out, _ = _run(capsys, "5", str(get_exercise(5).stub_path), "--json")
    record = json.loads(out)
    assert status == 1 and record["status"] == "wrong result" and not record["passed"]


def test_a_race_prints_the_interleaving_and_replays_and_draws(capsys, tmp_path):
    path = tmp_path / "hist.py"
    path.write_text("from gpusim import T, kernel\n\n\n@kernel(signature='int32[:], int32[:]')\n"
                    "def histogram(values, bins):\n    i = T.gtid()\n    bins[values[i]] += 1\n")
    page = tmp_path / "race.html"
    status, out, _ = _run(capsys, "5", str(path), "--html", str(page))
    assert status == 1 and "exercise 5: race" in out and "the interleaving that matters" in out
    assert page.is_file() and "bins[" in page.read_text()
    token = out.split("--replay ")[1].split()[0]
    status, again, _ = _run(capsys, "5", str(path), "--replay", token)
    assert status == 1 and "exercise 5: race" in again


@pytest.mark.parametrize("argv, fragment", [
    (["99"], "there is no exercise 99"),
    (["foo"], "N='foo' is neither an exercise number nor 'list'"),
    (["1", "{tmp}/missing.py"], "no such file"),
    (["1", "{tmp}/syntax.py"], "syntax error"),
    (["1", "{tmp}/nothing.py"], "defines no @kernel function"),
    (["1", "--replay", "exercise.1@gs1-x"], "--replay needs a FILE.py"),
    (["list", "{tmp}/nothing.py"], "takes no file"),
    (["1", "{tmp}/nothing.py", "--stub"], "--stub prints exercise 1's stub"),
    (["1", "{tmp}/nothing.py", "--html", "{tmp}/page.txt"], "name it .html"),
    (["1", "{tmp}/nothing.py", "--schedules", "0"], "--schedules must be at least 1"),
])
def test_bad_input_is_one_line_exit_2(capsys, tmp_path, argv, fragment):
    (tmp_path / "syntax.py").write_text("def f(:\n")
    (tmp_path / "nothing.py").write_text("x = 1\n")
    status, out, err = _run(capsys, *[a.replace("{tmp}", str(tmp_path)) for a in argv])
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and fragment in err and "Traceback" not in err
