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
