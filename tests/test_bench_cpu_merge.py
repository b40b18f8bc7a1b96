"""``python -m benchmarks cpu --merge FILE``: a table measured in parts keeps the other problems' rows, each naming
its commit, and refuses a file of another machine or one it did not write, in one line."""

from __future__ import annotations

import json

from benchmark_scripts import load


def test_merge_keeps_the_rows_of_the_problems_not_rerun(tmp_path):
    cpu = load("cpu")
    earlier = tmp_path / "cpu.json"
    earlier.write_text(json.dumps({"device": "here", "commit": "abc1234", "date": "2026-11-29", "rows": [
        {"problem": "suitor", "edges": 1000, "gpusim_seconds": 0.1},
        {"problem": "louvain", "edges": 1000, "gpusim_seconds": 0.2}]}))
    kept = cpu._kept_rows(earlier, ["louvain"], "here")
    assert kept == [{"commit": "abc1234", "date": "2026-11-29", "problem": "suitor", "edges": 1000,
                     "gpusim_seconds": 0.1}]
    assert cpu._kept_rows(None, ["louvain"], "here") == []


def test_merge_refuses_another_machine_s_file_or_no_file(tmp_path, capsys):
    cpu = load("cpu")
    other = tmp_path / "cpu.json"
    other.write_text(json.dumps({"device": "a machine elsewhere", "rows": []}))
    assert cpu.main(["--quick", "--problems", "ld", "--merge", str(other), "--out", str(tmp_path)]) == 2
    assert "measured on 'a machine elsewhere', not on this machine" in capsys.readouterr().err
    assert cpu.main(["--quick", "--problems", "ld", "--merge", str(tmp_path / "none.json"), "--out",
                     str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "not a cpu.json this area wrote" in err and len(err.strip().splitlines()) == 1
