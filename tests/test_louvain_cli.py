"""``gpusim louvain``: JSON keys per DESIGN, certified results, pictures, one-line errors with exit status 2."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from gpusim.cli import main


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_json_output(backend, capsys):
    assert main(["louvain", "--example", "karate", "--backend", backend, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("algorithm", "backend", "size", "valid", "certified", "seconds", "communities", "modularity"):
        assert key in out
    assert out["valid"] and out["certified"] and out["size"] == 4 and len(out["communities"]) == 34
    groups = {}
    for v, c in enumerate(out["communities"]):
        groups.setdefault(c, set()).add(v)
    G = nx.karate_club_graph()
    assert abs(nx.community.modularity(G, list(groups.values()), weight=None) - out["modularity"]) < 1e-12


def test_the_paper_s_method_without_the_refinement(capsys):
    assert main(["louvain", "--example", "karate", "--backend", "cpu", "--no-refine", "--json"]) == 0
    without = json.loads(capsys.readouterr().out)
    assert main(["louvain", "--example", "karate", "--backend", "cpu", "--json"]) == 0
    default = json.loads(capsys.readouterr().out)
    assert without["stats"]["refine_sweeps"] is None and default["stats"]["refine_sweeps"] >= 1
    assert without["certified"] and default["modularity"] >= without["modularity"]


def test_text_and_pictures(tmp_path, capsys):
    small, large = tmp_path / "k.png", tmp_path / "big.svg"
    assert main(["louvain", "--example", "karate", "--backend", "sim", "--png", str(small)]) == 0
    assert "certified" in capsys.readouterr().out and small.stat().st_size > 0
    G = nx.planted_partition_graph(8, 50, 0.2, 0.005, seed=2)
    path = tmp_path / "planted.mtx"
    import scipy.io

    scipy.io.mmwrite(path, nx.to_scipy_sparse_array(G), symmetry="symmetric")
    assert main(["louvain", str(path), "--backend", "cpu", "--png", str(large), "--layout", "thread"]) == 0
    assert large.stat().st_size > 0


def test_unsymmetric_file_and_its_rule(tmp_path, capsys):
    path = tmp_path / "d.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 2.0\n3 2 1.0\n")
    assert main(["louvain", str(path), "--backend", "cpu"]) == 2
    assert "not symmetric" in capsys.readouterr().err
    assert main(["louvain", str(path), "--backend", "cpu", "--symmetrise", "sum", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["certified"]


@pytest.mark.parametrize("argv, fragment", [
    (["louvain"], "give either a FILE or --example"),
    (["louvain", "--example", "nope"], "no bundled example named 'nope'"),
    (["louvain", "--example", "karate", "--resolution", "0"], "resolution=0.0 must be a finite number > 0"),
    (["louvain", "--example", "karate", "--resolution", "nan"], "resolution=nan"),
    (["louvain", "--example", "karate", "--layout", "warp"], "--layout 'warp' is not one of"),
    (["louvain", "--example", "karate", "--kernels", "fast"], "--kernels 'fast' is not one of paper, shuffles"),
    (["louvain", "--example", "karate", "--symmetrise", "min"], "--symmetrise 'min' is not one of"),
    (["louvain", "--example", "karate", "--dip-rule", "sometimes"], "--dip-rule 'sometimes' is not one of"),
    (["louvain", "--example", "karate", "--backend", "tpu"], "backend='tpu'"),
    (["louvain", "--example", "karate", "--threshold", "-1"], "threshold=-1.0"),
    (["louvain", "--example", "karate", "--backend", "sim", "--host-levels", "-5"], "host_levels=-5"),
    (["louvain", "--example", "ash219"], "must be square"),
    (["louvain", "--example", "west0067"], "is negative"),
    (["louvain", "--example", "karate", "--png", "/nonexistent/x.png"], "no folder"),
    (["louvain", "/nonexistent.mtx"], "no such file"),
])
def test_errors(argv, fragment, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1


def test_the_kernels_table_from_the_command_line(capsys):
    """``--kernels shuffles``: the small degrees summed by shuffles, the same communities as the paper's tables."""
    found = {}
    for table in ("paper", "shuffles"):
        assert main(["louvain", "--example", "karate", "--backend", "sim", "--kernels", table, "--json"]) == 0
        found[table] = json.loads(capsys.readouterr().out)
        assert found[table]["kernels"] == table and found[table]["certified"]
    assert found["paper"]["communities"] == found["shuffles"]["communities"]
    assert found["shuffles"]["stats"]["launches"]["move_by_shuffles"] > 0
    assert "move_by_shuffles" not in found["paper"]["stats"]["launches"]


def test_the_paper_s_rules_from_the_command_line(capsys):
    """``--paper-rules``: the stopping rules of §5 and every vertex in every sweep, the reference's decisions."""
    from gpusim.algorithms.louvain import bucket_louvain, karate
    from gpusim.algorithms.louvain.driver import PAPER_RULES

    assert main(["louvain", "--example", "karate", "--backend", "sim", "--paper-rules", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    reference = bucket_louvain(karate(), **PAPER_RULES)
    assert out["valid"] and out["communities"] == reference.labels.tolist()
    assert out["stats"]["sweeps"] == reference.stats["sweeps"]
    launches = out["stats"]["launches"]
    # no pruning: every vertex once a phase; the refinement fills the first level's groups again, counted once
    assert launches["fill_buckets"] == launches["count_buckets"] + 1
    assert main(["louvain", "--example", "karate", "--backend", "cpu", "--paper-rules", "--cpu-method",
                 "asynchronous"]) == 2
    assert "is an option of the GPU method's buckets" in capsys.readouterr().err


def test_the_cpu_method_from_the_command_line(capsys):
    assert main(["louvain", "--example", "karate", "--backend", "cpu"]) == 0
    assert "louvain (asynchronous local moving on every core, PLM-style" in capsys.readouterr().out
    assert main(["louvain", "--example", "karate", "--backend", "cpu", "--cpu-method", "buckets", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["stats"]["engine"].startswith("the GPU method's bucket decisions")
    assert main(["louvain", "--example", "karate", "--backend", "cpu", "--cpu-method", "fast"]) == 2
    assert "--cpu-method 'fast' is not one of asynchronous, buckets" in capsys.readouterr().err
    assert main(["louvain", "--example", "karate", "--backend", "cpu", "--cpu-method", "asynchronous",
                 "--layout", "thread"]) == 2
    assert "layout='thread' is an option of the GPU method's buckets" in capsys.readouterr().err


def test_the_last_levels_on_the_host_from_the_command_line(capsys):
    """``--host-levels``: karate's levels after the first decided on the host, the simulator's communities."""
    found = {}
    for host_levels in ("0", "100000"):
        assert main(["louvain", "--example", "karate", "--backend", "sim", "--host-levels", host_levels, "--json"]) == 0
        found[host_levels] = json.loads(capsys.readouterr().out)
        assert found[host_levels]["certified"]
    assert found["0"]["communities"] == found["100000"]["communities"]
    assert "host levels" in found["100000"]["stats"]["seconds"] and "host levels" not in found["0"]["stats"]["seconds"]
