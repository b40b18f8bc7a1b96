"""``gpusim stable``: JSON keys per DESIGN, certified results, clear errors."""

from __future__ import annotations

import json

import pytest

from gpusim.cli import main
from gpusim.types.preference_generators import easy_instance


@pytest.mark.parametrize("algorithm, backend", [("gs", "cpu"), ("mw", "auto"), ("mw-gpu", "sim"),
                                                ("gs-rounds", "sim"), ("mw-gpu", "cpu")])
def test_json_output(algorithm, backend, capsys):
    assert main(["stable", "--example", "marriage", "--algorithm", algorithm, "--backend", backend, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("algorithm", "backend", "size", "valid", "certified", "seconds", "matching"):
        assert key in out
    assert out["matching"] == [1, -1, 0, 2] and out["size"] == 3  # man 1's women both prefer others
    assert out["valid"] and out["certified"] and out["blocking_pairs"] == []


def test_file_capacity_and_picture(tmp_path, capsys):
    path = tmp_path / "easy.json"
    easy_instance(30, seed=1).to_json(path)
    png = tmp_path / "m.png"
    assert main(["stable", str(path), "--algorithm", "mw-gpu", "--backend", "sim", "--capacity", "2",
                 "--png", str(png)]) == 0
    assert "certified" in capsys.readouterr().out and png.stat().st_size > 0


@pytest.mark.parametrize("argv, fragment", [
    (["stable"], "give either a FILE or --example"),
    (["stable", "--example", "marriage", "--algorithm", "irving"], "'irving' is not one of"),
    (["stable", "--example", "marriage", "--algorithm", "gs", "--backend", "cupy"], "cpu backend"),
    (["stable", "--example", "nope"], "no bundled example named 'nope'"),
])
def test_errors(argv, fragment, capsys):
    assert main(argv) == 2
    assert fragment in capsys.readouterr().err


def test_bad_json_file(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text('{"men": [[0, 0]], "women": [[0]]}')
    assert main(["stable", str(path)]) == 2
    assert "men[0] lists woman 0 twice" in capsys.readouterr().err
