"""A call given no device makes its own, and on the simulator with the race detector off: nobody reads the runs of
a device the call keeps to itself, and the detector's records cost memory and time (b-Suitor on 2·10^4 edges:
13 GB and 139 s with it, 0.48 GB and 10.5 s without, on cpu-2cores)."""

from __future__ import annotations

import pytest

from gpusim.algorithms.bipartite import apfb
from gpusim.algorithms.louvain import karate, louvain
from gpusim.algorithms.stable import stable_marriage
from gpusim.algorithms.weighted import b_suitor, locally_dominant, suitor
from gpusim.errors import BackendUnavailable
from gpusim.runtime.device import choose_backend
from gpusim.runtime.launcher import Launcher
from gpusim.types.graphs import BipartiteGraph, WeightedGraph
from gpusim.types.preference_generators import easy_instance

WEIGHTED = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])

CALLS = {
    "suitor": lambda: suitor(WEIGHTED, backend="sim"),
    "ld": lambda: locally_dominant(WEIGHTED, backend="sim"),
    "bsuitor": lambda: b_suitor(WEIGHTED, 2, backend="sim"),
    "apfb": lambda: apfb(BipartiteGraph.from_edges([0, 1, 1], [0, 0, 1]), backend="sim"),
    "mw-gpu": lambda: stable_marriage(easy_instance(6, 0), algorithm="mw-gpu", backend="sim"),
    "louvain": lambda: louvain(karate(), backend="sim"),
}


@pytest.mark.parametrize("name", CALLS)
def test_a_call_given_no_device_simulates_with_the_race_detector_off(monkeypatch, name):
    races = []
    original = Launcher.__init__

    def spy(self, device, *args, **kwargs):
        races.append(device._impl.races if device.backend == "sim" else None)
        original(self, device, *args, **kwargs)

    monkeypatch.setattr(Launcher, "__init__", spy)
    CALLS[name]()
    assert races and set(races) == {"off"}



@pytest.mark.parametrize("call", [lambda: suitor(WEIGHTED), lambda: b_suitor(WEIGHTED, 2),
                                  lambda: apfb(BipartiteGraph.from_edges([0, 1, 1], [0, 0, 1]))],
                         ids=["suitor", "bsuitor", "apfb"])
def test_auto_with_no_gpu_refuses_rather_than_simulate(call):
    """``backend="auto"`` is a GPU: the simulator runs only when asked, so without a GPU a kernel-level call is a
    one-line error that says what to call instead."""
    if choose_backend("auto")[0] != "cpu":
        pytest.skip("a GPU works here: 'auto' runs on it")
    with pytest.raises(BackendUnavailable, match="backend='sim'.*maximum_weight_matching") as caught:
        call()
    assert "\n" not in str(caught.value)
