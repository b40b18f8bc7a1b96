"""``backend="auto"`` computes on the fastest engine present and never on the simulator.

An input below ``CPU_BELOW`` edges goes to the compiled CPU engine without a GPU being probed.  With no GPU, every
registered algorithm of every problem, asked for through the one dispatcher, the public
entry points, the command line and NetworkX's dispatch with ``"auto"``, computes on ``cpu``; the simulator is
not even constructed (its constructor is made to fail here).  ``stats["chosen"]`` says why.  The simulator runs
when asked for by name.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import gpusim.algorithms  # noqa: F401  (the families register their algorithms)
import gpusim.backends
from gpusim.algorithms.louvain import LouvainGraph
from gpusim.runtime.device import Device, choose_backend, choose_device
from gpusim.runtime.dispatch import dispatch
from gpusim.runtime.registry import algorithms, problems
from gpusim.types.graphs import BipartiteGraph, WeightedGraph
from gpusim.types.preferences import PreferenceInstance


@pytest.fixture
def no_gpu_no_simulator(monkeypatch):
    """No GPU (whatever this machine has), and a simulator that fails if anything builds one."""
    from gpusim.backends.sim import SimBackend

    monkeypatch.setattr(gpusim.backends, "cuda_driver_missing", lambda: "no CUDA driver (made so by the test)")

    def refuse(*args, **kwargs):
        raise AssertionError("backend='auto' built the simulator to compute an answer")

    monkeypatch.setattr(SimBackend, "__init__", refuse)


def _data(problem: str):
    """A small input of ``problem`` and its size."""
    if problem == "bipartite":
        graph = BipartiteGraph.from_edges([0, 0, 1, 2, 2, 3], [0, 1, 0, 1, 2, 0], 4, 3)
        return graph, graph.n_edges, {}
    if problem == "weighted":
        graph = WeightedGraph.from_edges([0, 1, 2, 3, 0], [1, 2, 3, 4, 5], [3.0, 1.0, 4.0, 1.5, 2.0], n=6)
        return graph, graph.n_edges, {}
    if problem == "stable":
        instance = PreferenceInstance([[0, 1], [1, 0], [0]], [[1, 0, 2], [0, 1]])
        return instance, int(instance.men_list.size), {}
    if problem == "communities":
        graph = LouvainGraph.from_edges([0, 1, 2, 3, 4, 5, 2], [1, 2, 0, 4, 5, 3, 3], [1.0] * 7)
        return graph, graph.n_entries, {}
    raise AssertionError(f"a problem this test does not know: {problem!r}; give it an input here")


CASES = [pytest.param(entry.problem, entry.name, id=f"{entry.problem}-{entry.name}") for entry in algorithms()]


def test_every_problem_is_covered():
    assert {problem for problem, _ in (case.values for case in CASES)} == set(problems())
    assert len(CASES) >= 20


@pytest.mark.parametrize("stated", ["small", "large"])
@pytest.mark.parametrize("problem, name", CASES)
def test_auto_never_picks_the_simulator(no_gpu_no_simulator, problem, name, stated):
    data, size, options = _data(problem)
    size = size if stated == "small" else 10**6  # the size is the caller's hint: "large" makes auto look for a GPU
    result = dispatch(problem, data, name, "auto", size=size, **options)
    assert result.backend == "cpu"
    assert result.valid
    chosen = result.stats["chosen"]
    expected = "auto: no CUDA driver" if stated == "large" else f"auto: {size:,} edges or entries, fewer than 10,000"
    assert chosen.startswith((expected, "a sequential reference")) and "simulator" not in chosen, chosen


def test_a_small_input_goes_to_the_cpu_engine_without_a_gpu_probed(monkeypatch):
    import gpusim.runtime.device as device

    def probed():
        raise AssertionError("a GPU was probed for a small input")

    monkeypatch.setattr(device, "_working_gpu", probed)
    assert device.choose_backend("auto", device.CPU_BELOW - 1)[0] == "cpu"
    assert device.choose_backend("numba", 10)[0] == "numba"  # a backend asked for is kept, whatever the size
    with pytest.raises(AssertionError, match="probed"):
        device.choose_backend("auto", device.CPU_BELOW)
    with pytest.raises(AssertionError, match="probed"):
        device.choose_backend("auto", None)  # no size stated: a GPU if there is one


@pytest.mark.parametrize("options, stated", [({}, 6), ({"output": "device"}, None), ({"kernels": {}}, None)])
def test_options_that_need_a_device_skip_the_size_rule(monkeypatch, options, stated):
    import gpusim.runtime.dispatch as dispatching

    seen = []

    def record(backend, size):
        seen.append(size)
        return "cpu", "recorded"

    monkeypatch.setattr(dispatching, "choose_backend", record)
    graph, size, _ = _data("bipartite")
    try:
        dispatching.dispatch("bipartite", graph, "gpr", "auto", size=size, **options)
    except Exception:  # noqa: BLE001  (the cpu engine may refuse the option; the choice was made before)
        pass
    assert seen == [stated]


def test_the_public_entry_points_and_a_large_input(no_gpu_no_simulator):
    from gpusim.algorithms.bipartite import maximum_bipartite_matching
    from gpusim.algorithms.louvain import louvain
    from gpusim.algorithms.stable import stable_marriage
    from gpusim.algorithms.weighted import maximum_weight_matching

    assert maximum_bipartite_matching(_data("bipartite")[0]).backend == "cpu"
    assert maximum_weight_matching(_data("weighted")[0], "suitor").backend == "cpu"
    assert stable_marriage(_data("stable")[0], "mw-gpu").backend == "cpu"
    assert louvain(_data("communities")[0]).backend == "cpu"
    for size in (0, 10, 10**4, 10**8, None):  # no size sends an answer to the simulator
        assert choose_backend("auto", size)[0] == "cpu"


def test_the_command_line_says_why(no_gpu_no_simulator, capsys):
    from gpusim.cli import main

    for command in (["match", "--example", "karate"], ["match", "--example", "karate", "--algorithm", "suitor"],
                    ["louvain", "--example", "karate"], ["stable", "--example", "marriage"]):
        assert main([*command, "--json", "--quiet"]) == 0, command
        out = json.loads(capsys.readouterr().out)
        small = "edges or entries, fewer than 10,000; the compiled CPU engine answers before a GPU has started"
        assert out["backend"] == "cpu" and out["chosen"].startswith("auto: ") and small in out["chosen"], out
        assert main([*command, "--quiet"]) == 0
        second_line = capsys.readouterr().out.splitlines()[1]
        assert " on cpu (auto: " in second_line and small in second_line, second_line


def test_networkx_dispatch_computes_on_cpu(no_gpu_no_simulator):
    nx = pytest.importorskip("networkx")
    from gpusim.interop.networkx_backend import backend_interface

    G = nx.karate_club_graph()
    communities = backend_interface.louvain_communities(backend_interface.convert_from_nx(G), weight=None)
    assert sorted(map(len, communities)) and set().union(*communities) == set(G)


def test_the_simulator_runs_when_asked_for_and_is_the_device_without_a_gpu(monkeypatch):
    monkeypatch.setattr(gpusim.backends, "cuda_driver_missing", lambda: "no CUDA driver (made so by the test)")
    graph, size, _ = _data("bipartite")
    result = dispatch("bipartite", graph, "gpr", "sim", size=size)
    assert result.backend == "sim" and result.stats["chosen"] == "asked for" and result.certified
    assert choose_device("auto") == ("sim", "auto: no CUDA driver (made so by the test); the simulator, the one "
                                            "device without a GPU")
    assert Device("auto").backend == "sim"
    with pytest.raises(Exception, match="cpu"):
        choose_device("cpu")
    assert np.array_equal(Device("sim").to_host(Device("sim").zeros(2)), [0, 0])
