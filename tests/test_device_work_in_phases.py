"""Every GPU algorithm times all of its device work: with a device-resident input, no kernel launch, fill,
read back or new zeroed array happens outside the call's timed phases (``stats["seconds"]``).  The phases are what
a call is measured against (``benchmarks/resident.py``): device work left outside them is counted as host time, and
such work cannot be found from the figures.  Outside them a call only checks its options, looks up what it keeps and
allocates its result's arrays.

The calls run on the simulator under a GPU backend's name, so each takes its GPU path (kept plans and work arrays,
one block for small bipartite graphs) while every kernel runs on the simulator.  The first call on an input checks
it on the device once, outside the phases by design (the benchmarks leave that call untimed); the second is
watched, and its phases must add up to no more than the call (a phase opened inside another, as G-PR's shrink in
its loop, is not counted twice)."""

from __future__ import annotations

import time

import numpy as np
import pytest
from stand_ins import random_weighted_graph, stand_in_gpu

import gpusim.algorithms  # noqa: F401  (the families register their algorithms)
from gpusim import Device
from gpusim.algorithms import stable, weighted
from gpusim.algorithms.bipartite import maximum_bipartite_matching
from gpusim.algorithms.louvain import gpu_louvain
from gpusim.runtime import launcher
from gpusim.runtime.registry import algorithms
from gpusim.runtime.resident_graphs import to_device
from gpusim.types.device_graphs import DeviceWeightedGraph
from gpusim.types.device_preferences import DevicePreferenceInstance
from gpusim.types.generators import uniform_random
from gpusim.types.preference_generators import hard_instance

#: Device operations that are device work (a ``zeros`` of n > 0 items is a fill).
WORK = ("launch", "fill", "full", "to_host", "zeros")


def _calls(dev: Device) -> dict:
    """For each GPU algorithm, its call on a device-resident input (some in two ways)."""
    bipartite = to_device(dev, uniform_random(10, 12, 30, seed=2))
    graph = to_device(dev, random_weighted_graph(24, 60, seed=3))
    lists = DevicePreferenceInstance.from_instance(hard_instance(8, seed=1), dev)
    rng = np.random.default_rng(1)
    upper = np.triu(rng.random((8, 8)), 1)
    dense = dev.array((upper + upper.T).ravel())
    host = random_weighted_graph(30, 80, seed=5)
    louvain_graph = DeviceWeightedGraph(host.n, dev.array(host.ptr), dev.array(host.adj), dev.array(host.weights))

    def bipartite_call(name, **options):
        return lambda: maximum_bipartite_matching(bipartite, name, device=dev, output="device", **options)

    return {
        "gpr": [bipartite_call("gpr"), bipartite_call("gpr", variant="first"),
                bipartite_call("gpr", shrink_at=1)],  # its phase "shrink" opens inside "push_relabel"
        "apfb": [bipartite_call("apfb"), bipartite_call("apfb", launches="levels", layout="mt")],
        "apsb": [bipartite_call("apsb"), bipartite_call("apsb", launches="levels", layout="mt")],
        "suitor": [lambda: weighted.suitor(graph, device=dev, output="device")],
        "ld": [lambda: weighted.locally_dominant(graph, device=dev, output="device")],
        "bsuitor": [lambda: weighted.b_suitor(graph, 2, device=dev, output="device")],
        "roma": [lambda: weighted.roma(dense, device=dev, output="device", variant="thread")],
        "mw-gpu": [lambda: stable.stable_marriage(lists, "mw-gpu", device=dev, output="device")],
        "gs-rounds": [lambda: stable.stable_marriage(lists, "gs-rounds", device=dev, output="device")],
        "louvain": [lambda: gpu_louvain(louvain_graph, device=dev)],
    }


def _watch(monkeypatch, dev: Device) -> list:
    """Record each device operation of ``WORK`` made outside every phase (a phase's own end is not one)."""
    depth, outside = [0], []
    enter, leave = launcher._Phase.__enter__, launcher._Phase.__exit__

    def entered(phase):
        depth[0] += 1
        return enter(phase)

    def left(phase, *exc_info):
        try:
            return leave(phase, *exc_info)
        finally:
            depth[0] -= 1

    monkeypatch.setattr(launcher._Phase, "__enter__", entered)
    monkeypatch.setattr(launcher._Phase, "__exit__", left)
    for name in WORK:
        method = getattr(dev, name)

        def watched(*args, _name=name, _method=method, **kwargs):
            if depth[0] == 0 and not (_name == "zeros" and args and args[0] == 0):
                outside.append(_name)
            return _method(*args, **kwargs)

        monkeypatch.setattr(dev, name, watched)
    return outside


def test_every_gpu_algorithm_is_watched():
    names = {entry.name for entry in algorithms() if entry.gpu}
    assert names == set(_calls(Device("sim")))


@pytest.mark.parametrize("name", sorted(_calls(Device("sim"))))
def test_a_device_resident_call_does_its_device_work_inside_its_phases(monkeypatch, name):
    dev = stand_in_gpu()
    for call in _calls(dev)[name]:
        call()  # the input's one check on the device
        outside = _watch(monkeypatch, dev)
        start = time.perf_counter()
        result = call()
        whole = time.perf_counter() - start
        monkeypatch.undo()
        assert outside == [], f"{name}: {outside} outside the phases {sorted(result.stats['seconds'])}"
        seconds = result.stats["seconds"]
        # each phase's time is its own: a phase inside another is not counted twice
        assert seconds and min(seconds.values()) >= 0 and sum(seconds.values()) <= whole, (name, seconds, whole)
