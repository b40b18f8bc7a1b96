"""Work arrays a device-resident input keeps between calls (gpusim.runtime.workspace): kept only for a device input
on a GPU backend, per backend, algorithm and thread; never the results; every driver that uses them still gives
its oracle's answer call after call on the same input."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_matching
from stand_ins import random_weighted_graph

from gpusim import Device
from gpusim.algorithms import stable, weighted
from gpusim.algorithms.bipartite import maximum_bipartite_matching
from gpusim.algorithms.stable.reference import gale_shapley
from gpusim.algorithms.weighted import b_suitor
from gpusim.algorithms.weighted.reference_b_suitor import greedy_b_matching
from gpusim.algorithms.weighted.reference_greedy import greedy
from gpusim.runtime.resident_graphs import to_device
from gpusim.runtime.workspace import workspace
from gpusim.types.device_preferences import DevicePreferenceInstance
from gpusim.types.generators import uniform_random
from gpusim.types.preference_generators import easy_instance


class _CountingDevice:
    """A GPU backend's device as the workspace sees it: its name, and ``empty`` (counted)."""

    backend = "cupy"

    def __init__(self):
        self.allocations = 0

    def empty(self, n, dtype):
        self.allocations += 1
        return np.empty(n, dtype)


def _device_graph():
    return to_device(Device("sim"), random_weighted_graph(20, 40, seed=3))


def test_a_device_input_keeps_its_work_arrays_per_backend_algorithm_and_thread():
    dev, graph = _CountingDevice(), _device_graph()
    offers = workspace(dev, graph, "suitor").empty("ws", 20, np.int32)
    assert workspace(dev, graph, "suitor").empty("ws", 20, np.int32) is offers and dev.allocations == 1
    assert workspace(dev, graph, "ld").empty("ws", 20, np.int32) is not offers          # another algorithm
    assert workspace(dev, graph, "suitor").empty("ws", 21, np.int32) is not offers      # another length
    assert workspace(dev, graph, "suitor").empty("ws", 21, np.int64).dtype == np.int64  # another dtype
    elsewhere = []
    thread = threading.Thread(target=lambda: elsewhere.append(workspace(dev, graph, "suitor").empty("ws", 21,
                                                                                                    np.int64)))
    thread.start()
    thread.join()
    assert elsewhere[0] is not workspace(dev, graph, "suitor").empty("ws", 21, np.int64)  # another thread
    assert dev.allocations == 5


def test_the_simulator_and_host_inputs_keep_nothing():
    """On the simulator every call's work arrays are new, so their items are poison each time: a kernel reading one
    before writing it fails there on every call, not only the first."""
    sim, graph = Device("sim"), _device_graph()
    first = workspace(sim, graph, "suitor").empty("ws", 4, np.int32)
    sim.fill(first, 1)
    again = workspace(sim, graph, "suitor").empty("ws", 4, np.int32)
    assert again is not first and sim.to_host(again).tolist() == [np.iinfo(np.int32).min] * 4
    dev = _CountingDevice()
    host_graph = random_weighted_graph(20, 40, seed=3)
    kept = workspace(dev, host_graph, "suitor").empty("ws", 4)
    assert workspace(dev, host_graph, "suitor").empty("ws", 4) is not kept
    assert not any(key[0] == "workspace" for key in graph.derived)


def _calls(dev, small: bool = False):
    """Each driver that keeps work arrays, on a device input made once: (name, input, call, its oracle's check, the
    result's device array)."""
    weighted_graph = random_weighted_graph(*((30, 60) if small else (300, 1200)), seed=5)
    matching, b_matching = greedy(weighted_graph).mate.tolist(), greedy_b_matching(weighted_graph, 2).partners.tolist()
    bipartite = uniform_random(*((15, 14, 40) if small else (150, 140, 600)), seed=2)
    maximum = int(np.count_nonzero(scipy_matching(sp.csr_array(bipartite.to_scipy()), perm_type="column") >= 0))
    instance = easy_instance(12 if small else 120, seed=4)
    wives = gale_shapley(instance).wife.tolist()
    on_device, bipartite_on_device = to_device(dev, weighted_graph), to_device(dev, bipartite)
    lists = DevicePreferenceInstance.from_instance(instance, dev)
    return [
        ("suitor", on_device, lambda g: weighted.suitor(g, device=dev, output="device"),
         lambda r: r.to_host().mate.tolist() == matching, lambda r: r.mate),
        ("ld", on_device, lambda g: weighted.locally_dominant(g, device=dev, output="device"),
         lambda r: r.to_host().mate.tolist() == matching, lambda r: r.mate),
        ("bsuitor", on_device, lambda g: b_suitor(g, 2, device=dev, output="device"),
         lambda r: r.to_host().partners.tolist() == b_matching, lambda r: r.partners),
        ("apfb", bipartite_on_device, lambda g: maximum_bipartite_matching(g, "apfb", device=dev, output="device"),
         lambda r: r.size == maximum and r.valid, lambda r: r.col_match),
        ("apsb", bipartite_on_device, lambda g: maximum_bipartite_matching(g, "apsb", device=dev, output="device"),
         lambda r: r.size == maximum and r.valid, lambda r: r.col_match),
        ("mw-gpu", lists, lambda d: stable.stable_marriage(d, "mw-gpu", device=dev, output="device"),
         lambda r: r.to_host().wife.tolist() == wives, lambda r: r.wife),
        ("gs-rounds", lists, lambda d: stable.stable_marriage(d, "gs-rounds", device=dev, output="device"),
         lambda r: r.to_host().wife.tolist() == wives, lambda r: r.wife),
    ]


def _work_arrays(data) -> dict:
    """``{(store key, name): id}`` of the work arrays ``data`` keeps (a bipartite graph: on its adopted copy)."""
    stores = [data.derived, *(kept.derived for key, kept in data.derived.items() if key[0] == "adopted")]
    return {(key, name): id(array) for store in stores for key, kept in store.items() if key[0] == "workspace"
            for name, array in kept.items()}


@pytest.mark.gpu
def test_calls_on_one_device_input_reuse_their_work_arrays_and_stay_right(gpu_backend):
    """Three calls of each driver on the same device input: the oracle's answer each time; the second and third
    allocate no work array (the kept ones are the same objects); a result is never a work array: the first call's
    answer is still on the device, unchanged, after the later calls."""
    dev = Device(gpu_backend)
    for name, data, call, right, answer_of in _calls(dev):
        first = call(data)
        kept = _work_arrays(data)
        answer = answer_of(first)
        before = dev.to_host(answer)
        assert kept and id(answer) not in kept.values(), name
        for _ in range(2):
            assert right(call(data)), name
            assert _work_arrays(data) == kept, f"{name} allocated its work arrays again"
        np.testing.assert_array_equal(dev.to_host(answer), before, err_msg=name)
        assert right(first), name


def test_on_the_simulator_the_same_calls_stay_right_and_keep_nothing():
    """The simulator keeps no work array (each call's are new, poison), and repeated calls give the same answers."""
    dev = Device("sim")
    for name, data, call, right, _ in _calls(dev, small=True):
        assert right(call(data)) and right(call(data)), name
        assert not _work_arrays(data), name
