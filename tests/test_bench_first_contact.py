"""``benchmarks/first_contact.py`` runs where there is no GPU (``cpu`` rows) and writes its figures and picture."""

from __future__ import annotations

import json

from benchmark_scripts import load


def test_first_contact_writes_rows_against_the_goals(tmp_path, monkeypatch, capsys):
    bench = load("first_contact")
    monkeypatch.setattr(bench, "_backends", lambda: ["cpu"])
    monkeypatch.setattr(bench, "COMMANDS", (("stable --help", ["stable", "--help"]),))
    monkeypatch.setattr(bench, "_NETWORKX", "import networkx")
    assert bench.main(["--quick", "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "first-contact.json").read_text())
    assert (tmp_path / "first-contact.png").stat().st_size > 1000
    assert [(row["command"], row["backend"]) for row in report["rows"]] == [
        ("gpusim --help", None), ("stable --help", "cpu"), ("networkx louvain karate", "cpu")]
    for row in report["rows"]:
        assert row["exit_status"] == 0 and 0 < row["first_s"] and 0 < row["warm_s"] == min(row["warm_runs"])
        assert row["warm_met"] == (row["warm_s"] <= row["goal_warm_s"])
    assert report["rows"][0]["goal_warm_s"] == 0.5 and report["rows"][1]["goal_first_s"] == 10.0
    assert "gpusim --help" in capsys.readouterr().out
