"""A call's plan kept by a device-resident input (gpusim.runtime.plans): kept only for plain options of the same
types on a GPU backend, one per algorithm and thread; a kept plan's calls still give their oracle's answer, each its
own result; and options a kept plan did not check are still refused."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_matching
from stand_ins import random_weighted_graph, stand_in_gpu

from gpusim import Device
from gpusim.algorithms import weighted
from gpusim.algorithms.bipartite import augmenting, maximum_bipartite_matching
from gpusim.algorithms.weighted import driver_suitor
from gpusim.algorithms.weighted.reference_greedy import greedy
from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.runtime.launcher import Launcher
from gpusim.runtime.plans import kept_plan
from gpusim.runtime.resident_graphs import to_device
from gpusim.types.generators import uniform_random


class _Input:
    """A device-resident input as :func:`kept_plan` sees it: its ``derived`` store."""

    def __init__(self):
        self.derived = {}


def _counting(monkeypatch, module) -> list:
    """Count the calls of ``module._plan`` (what a call does when no plan is kept for it)."""
    made, plan = [], module._plan

    def counted(*args, **kwargs):
        made.append(args[1:])
        return plan(*args, **kwargs)

    monkeypatch.setattr(module, "_plan", counted)
    return made


def test_a_plan_is_kept_for_the_same_plain_options_of_the_same_types():
    gpu, graph, made = stand_in_gpu(), _Input(), []

    def plan():
        made.append(1)
        return Launcher(gpu), object()

    runs = [kept_plan(graph, "demo", (gpu, "warp", 4, None), plan)[1] for _ in range(3)]
    assert len(made) == 1 and runs[0] is runs[1] is runs[2]
    for options in ((gpu, "warp", 4.0, None), (gpu, "warp", True, None), (gpu, "warp", 5, None), (None, "warp", 4,
                                                                                                   None)):
        assert kept_plan(graph, "demo", options, plan)[1] is not runs[0]  # another type, value or device
    assert len(made) == 5
    kept_plan(graph, "demo", (gpu, "warp", 4, None), plan)  # one plan at a time: the first options are planned again
    assert len(made) == 6


def test_each_kept_call_gets_a_new_launcher_with_nothing_counted():
    gpu, graph = stand_in_gpu(), _Input()
    first, _ = kept_plan(graph, "demo", (1,), lambda: (Launcher(gpu, progress=False, description="demo"), None))
    first.launches["k"] += 1
    again, _ = kept_plan(graph, "demo", (1,), lambda: pytest.fail("planned again"))
    assert again is not first and not again.launches and not again.seconds
    assert (again.device, again.progress, again.description) == (gpu, False, "demo")


@pytest.mark.parametrize("case", ["object option", "host input", "simulator", "another thread"])
def test_what_is_planned_every_call(case):
    gpu, graph, made = stand_in_gpu(), _Input(), []
    options, device = (gpu, 1), gpu
    if case == "object option":
        options = (gpu, {"propose": None})  # kernels=: any object that is not a plain value
    elif case == "host input":
        graph = object()  # no ``derived`` store
    elif case == "simulator":
        device = Device("sim")  # its work arrays are new (poison) every call

    def plan():
        made.append(1)
        return Launcher(device), None

    def call():
        kept_plan(graph, "demo", options, plan)

    call()
    if case == "another thread":  # while this one is alive, so that the two never share an id
        thread = threading.Thread(target=call)
        thread.start()
        thread.join()
    else:
        call()
    assert len(made) == 2


def _scipy_size(graph) -> int:
    return int(np.count_nonzero(scipy_matching(sp.csr_array(graph.to_scipy()), perm_type="column") >= 0))


@pytest.mark.parametrize("algorithm", ["apfb", "apsb"])
def test_augmenting_paths_planned_once_stay_maximum_call_after_call(monkeypatch, algorithm):
    made = _counting(monkeypatch, augmenting)
    dev = stand_in_gpu()
    host = uniform_random(12, 14, 40, seed=2)
    graph, expected = to_device(dev, host), _scipy_size(host)
    results = [maximum_bipartite_matching(graph, algorithm, device=dev, output="device") for _ in range(3)]
    assert len(made) == 1
    for result in results:
        assert result.size == expected and result.valid and result.stats["one_block"]
        assert result.to_host().certified
    assert results[0].row_match is not results[1].row_match  # each call its own result
    again = maximum_bipartite_matching(graph, algorithm, device=dev, output="host", launches="levels",
                                       layout="mt")  # a thread per vertex: a few, on the simulator
    assert len(made) == 2 and again.size == expected and again.certified and not again.stats["one_block"]
    assert again.stats["seconds"] and again.stats["frontier"] == "queue"  # a GPU lists each level's columns
    assert again.stats["launches"]["gpubfs_wr_queue"] >= 1


def test_suitor_planned_once_is_the_greedy_matching_call_after_call(monkeypatch):
    made = _counting(monkeypatch, driver_suitor)
    dev = stand_in_gpu()
    host = random_weighted_graph(30, 80, seed=4)
    graph, expected = to_device(dev, host), greedy(host).mate
    first = weighted.suitor(graph, device=dev, output="device")
    kept = dev.to_host(first.mate).copy()
    later = [weighted.suitor(graph, device=dev, output="device") for _ in range(2)]
    assert len(made) == 1
    assert "owners" in first.stats["seconds"] and "owners" not in later[0].stats["seconds"]  # made once, kept
    for result in (first, *later):
        assert result.valid and np.array_equal(result.to_host().mate, expected)
    assert later[0].mate is not first.mate and np.array_equal(dev.to_host(first.mate), kept)  # results not reused
    thread = weighted.suitor(graph, device=dev, layout="thread")
    assert len(made) == 2 and np.array_equal(thread.mate, expected)


@pytest.mark.parametrize("options", [{"levels_per_read": 16.0}, {"warp_degree": True}, {"levels_per_read": 0}])
def test_options_a_kept_plan_never_checked_are_still_refused(monkeypatch, options):
    dev = stand_in_gpu()
    graph = to_device(dev, uniform_random(6, 6, 12, seed=1))
    maximum_bipartite_matching(graph, "apfb", device=dev, output="device", levels_per_read=16, warp_degree=1,
                               launches="levels", layout="mt")
    maximum_bipartite_matching(graph, "apfb", device=dev, output="device", levels_per_read=16, warp_degree=1,
                               launches="levels", layout="mt")
    with pytest.raises((InvalidArgument, InvalidArgumentType)):
        maximum_bipartite_matching(graph, "apfb", device=dev, output="device", launches="levels", layout="mt",
                                   **{"levels_per_read": 16, "warp_degree": 1, **options})


@pytest.mark.gpu
def test_on_a_gpu_calls_that_keep_or_replace_a_plan_stay_right(gpu_backend):
    """On a GPU, calls alternating between two option sets (each replacing the other's plan) and calls repeating one
    (each reusing it) all give their oracle's answer: G-PR, APFB, APsB and Suitor."""
    dev = Device(gpu_backend)
    bipartite = uniform_random(300, 280, 1500, seed=3)
    bipartite_on_device, maximum = to_device(dev, bipartite), _scipy_size(bipartite)
    weighted_graph = random_weighted_graph(400, 1600, seed=5)
    weighted_on_device, expected = to_device(dev, weighted_graph), greedy(weighted_graph).mate
    for options in ({}, {}, {"launches": "levels"}, {}, {"output": "host"}, {"output": "host"}):
        for algorithm in ("apfb", "apsb"):
            result = maximum_bipartite_matching(bipartite_on_device, algorithm, device=dev, **{"output": "device",
                                                                                               **options})
            assert result.size == maximum and result.valid, (algorithm, options)
    for options in ({}, {}, {"relabel": ("fixed", 2)}, {}, {"output": "host"}, {"variant": "first"}):
        result = maximum_bipartite_matching(bipartite_on_device, "gpr", device=dev, **{"output": "device", **options})
        assert result.size == maximum and result.valid, ("gpr", options)
    for options in ({}, {}, {"layout": "thread"}, {}, {"output": "host"}, {"variant": "synclb"}):
        result = weighted.suitor(weighted_on_device, device=dev, **{"output": "device", **options})
        assert result.valid and np.array_equal(result.to_host().mate if options.get("output") != "host"
                                               else result.mate, expected), options


def test_gpr_keeps_its_plan_with_its_tuple_option_and_refuses_what_it_never_checked(monkeypatch):
    """G-PR's ``relabel`` is a tuple: a plan is kept for it, looked up by its items' types too, so
    ``("fixed", True)`` is refused after ``("fixed", 1)`` was planned."""
    from gpusim.algorithms.bipartite import gpu_push_relabel

    made = _counting(monkeypatch, gpu_push_relabel)
    dev = stand_in_gpu()
    host = uniform_random(12, 14, 40, seed=5)
    graph, expected = to_device(dev, host), _scipy_size(host)
    for _ in range(3):
        result = maximum_bipartite_matching(graph, "gpr", device=dev, output="device", relabel=("fixed", 1))
        assert result.size == expected and result.valid
    assert len(made) == 1
    with pytest.raises(InvalidArgument):
        maximum_bipartite_matching(graph, "gpr", device=dev, output="device", relabel=("fixed", True))
