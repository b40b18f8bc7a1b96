"""``output="device"`` for Suitor, Locally-Dominant and b-Suitor, and their device-resident path.

Oracles: the same call with ``output="host"`` (and on a host graph), the sequential greedy matching and greedy
b-matching, NumPy for the slot layout, and a counter of the copies between host and device.  On the CPU the
simulator's arrays are the device arrays; the ``gpu`` cases do the same on numba and CuPy.
"""

from __future__ import annotations

import numpy as np
import pytest
from device_copies import watch

from gpusim import Device, T, kernel
from gpusim.algorithms.weighted import b_suitor, locally_dominant, maximum_weight_matching, suitor
from gpusim.algorithms.weighted.device_result import DeviceWeightedMatching
from gpusim.algorithms.weighted.kernels_slots import vertex_capacities
from gpusim.algorithms.weighted.reference_b_suitor import greedy_b_matching
from gpusim.algorithms.weighted.reference_greedy import greedy
from gpusim.errors import InvalidArgument
from gpusim.runtime.device_scan import scan_in_one_block
from gpusim.runtime.launcher import count_up
from gpusim.runtime.resident_graphs import to_device
from gpusim.types.device_graphs import DeviceWeightedGraph, memory_of
from gpusim.types.graphs import WeightedGraph

N = 30  # vertices with edges; vertices N and N + 1 are isolated, so never matched and no edge of each other


def _graph(seed: int, n: int = N, degree: int = 3) -> WeightedGraph:
    rng = np.random.default_rng(seed)
    u, v = rng.integers(0, n, degree * n), rng.integers(0, n, degree * n)
    pairs = sorted({(min(a, b), max(a, b)) for a, b in zip(u.tolist(), v.tolist(), strict=True) if a != b})
    weights = rng.integers(1, 6, len(pairs)).astype(float)  # ties, broken by the ids as the greedy matching does
    return WeightedGraph.from_edges([a for a, _ in pairs], [b for _, b in pairs], weights, n=n + 2)


def _sim(seed: int = 0) -> Device:
    return Device("sim", policy="random", seed=seed, trace=False)


MATCHINGS = {
    "suitor warp": lambda g, d, **k: suitor(g, device=d, **k),
    "suitor thread": lambda g, d, **k: suitor(g, device=d, layout="thread", **k),
    "ld": lambda g, d, **k: locally_dominant(g, device=d, **k),
}
B_VALUES = {"b=1": 1, "b=2": 2, "b per vertex": np.random.default_rng(9).integers(1, 4, N + 2)}


@kernel(signature="int32[:], int32, int32")
def poke(values, index, value):
    """``values[index] = value``: corrupts a result on the device, on any backend."""
    if T.gtid() == 0:
        values[index] = value


# -- the same matching as output="host", on host and device-resident graphs ----------------------------------


@pytest.mark.parametrize("resident", [False, True], ids=["host graph", "resident graph"])
@pytest.mark.parametrize("program", list(MATCHINGS))
def test_device_output_is_the_host_output_left_on_the_device(program, resident):
    graph, dev = _graph(1), _sim(1)
    source = to_device(dev, graph) if resident else graph
    run = MATCHINGS[program]
    host, kept = run(graph, dev), run(source, dev, output="device")
    assert isinstance(kept, DeviceWeightedMatching) and memory_of(kept.mate) == "sim" and dev.holds(kept.mate)
    assert (kept.weight, kept.size) == (host.weight, host.size) and kept.size > 0
    assert kept.to_host().mate.tolist() == host.mate.tolist() == greedy(graph).mate.tolist()
    assert kept.to_host() is kept.to_host() and kept.to_host().weight == host.weight
    assert kept.valid and kept.problem is None and kept.certified and kept.certificate() == []
    assert kept.stats["launches"]["sum_partials"] == 1 and kept.backend == "sim"


@pytest.mark.parametrize("resident", [False, True], ids=["host graph", "resident graph"])
@pytest.mark.parametrize("b", list(B_VALUES))
def test_b_suitor_device_output_is_the_host_table_left_on_the_device(b, resident):
    graph, dev, value = _graph(2), _sim(2), B_VALUES[b]
    source = to_device(dev, graph) if resident else graph
    host, kept = b_suitor(graph, value, device=dev), b_suitor(source, value, device=dev, output="device")
    assert host.partners.tolist() == greedy_b_matching(graph, value).partners.tolist()
    assert isinstance(kept, DeviceWeightedMatching) and memory_of(kept.partners) == "sim"
    assert kept.width == host.partners.shape[1] and (kept.weight, kept.size) == (host.weight, host.stats["size"])
    back = kept.to_host()
    assert back.partners.tolist() == host.partners.tolist() and back.b is value
    assert (kept.mate is kept.partners) == (kept.width == 1)   # b = 1: the one-wide table is the mate array
    assert back.mate.tolist() == (host.partners[:, 0].tolist() if kept.width == 1 else [-1] * graph.n)
    assert kept.valid and kept.certified and kept.stats["rounds"] >= 1   # rounds depend on the schedule


@pytest.mark.parametrize("b", [0, 2**40, "zeros", "none"])
def test_resident_b_suitor_lays_out_the_same_slots_on_the_device(b):
    """Capacities, slot offsets and the first queue built on the device: the same b-matching as on the host,
    for b = 0, b above every degree (clipped to int32), a per-vertex b with zeros and a graph with no edges."""
    graph = _graph(4) if b != "none" else WeightedGraph.from_edges([], [], [], n=5)
    value = {"zeros": np.tile([0, 1, 3], graph.n)[:graph.n], "none": 2}.get(b, b)
    dev = _sim(4)
    host, kept = b_suitor(graph, value, device=dev), b_suitor(to_device(dev, graph), value, device=dev)
    assert kept.partners.tolist() == host.partners.tolist() == greedy_b_matching(graph, value).partners.tolist()
    assert (kept.weight, kept.stats["size"]) == (host.weight, host.stats["size"])
    assert "slots" in kept.stats["seconds"] and "slots" not in host.stats["seconds"]


@pytest.mark.parametrize("run", [lambda g, d: suitor(g, device=d, output="device"),
                                 lambda g, d: locally_dominant(g, device=d, output="device"),
                                 lambda g, d: b_suitor(g, 2, device=d, output="device")])
def test_empty_graphs_give_empty_device_arrays(run):
    for graph in (WeightedGraph.from_edges([], [], [], n=0), WeightedGraph.from_edges([], [], [], n=3)):
        dev = _sim()
        m = run(to_device(dev, graph), dev)
        assert (m.size, m.weight, m.valid) == (0, 0.0, True)
        assert len(dev.to_host(m.mate if m.partners is None else m.partners)) == (graph.n if m.partners is None
                                                                                  else 0)


@pytest.mark.parametrize("seed", range(3))
def test_the_slot_kernels_agree_with_numpy_over_several_passes(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 1400))
    degrees = rng.integers(0, 7, n)
    ptr = np.concatenate([[0], np.cumsum(degrees)]).astype(np.int32)
    each = rng.integers(0, 5, max(n, 1)).astype(np.int32)
    dev = _sim(seed)
    caps, slot_ptr, totals, queue = (dev.zeros(n + 1), dev.zeros(n + 1), dev.zeros(2), dev.zeros(max(n, 1)))
    dev.launch(vertex_capacities, grid=2, block=32, args=(dev.array(ptr), dev.array(each), -1, n, caps))
    dev.launch(scan_in_one_block, grid=1, block=32 * int(rng.integers(1, 4)), args=(caps, slot_ptr, totals, n))
    dev.launch(count_up, grid=2, block=32, args=(queue, max(n, 1)))
    expected = np.append(np.minimum(degrees, each[:n]), 0)
    assert dev.to_host(caps).tolist() == expected.tolist()
    assert dev.to_host(slot_ptr).tolist() == np.concatenate([[0], np.cumsum(expected[:n])]).tolist()
    assert dev.to_host(totals).tolist() == [int(expected.sum()), int(expected.max())]
    assert dev.to_host(queue).tolist() == list(range(max(n, 1)))


# -- no copies on the resident path; validation copies on demand ----------------------------------------------


@pytest.mark.parametrize("program", [*MATCHINGS, "b-suitor"])
def test_a_resident_call_copies_only_totals_and_flags_until_validated(program):
    graph, dev = _graph(5), _sim(5)
    on_device = to_device(dev, graph)
    copies = watch(dev)
    if program == "b-suitor":
        m = b_suitor(on_device, 2, device=dev, output="device")
    else:
        m = MATCHINGS[program](on_device, dev, output="device")
    assert copies and all(way == "out" and entries <= 2 for way, entries in copies), copies
    assert m.valid   # validation copies the result (and the graph) back now, on demand
    assert ("out", graph.n * max(m.width, 1)) in copies


def test_a_per_vertex_b_is_the_one_copy_in():
    graph, dev = _graph(6), _sim(6)
    on_device = to_device(dev, graph)
    copies = watch(dev)
    b_suitor(on_device, B_VALUES["b per vertex"], device=dev, output="device")
    assert [c for c in copies if c[0] == "in"] == [("in", graph.n)]
    assert all(entries <= 2 for way, entries in copies if way == "out")


@pytest.mark.parametrize("resident", [False, True], ids=["host graph", "resident graph"])
@pytest.mark.parametrize("program", list(MATCHINGS))
def test_validation_finds_a_pair_that_is_not_an_edge_on_the_device(program, resident):
    graph, dev = _graph(7), _sim(7)
    m = MATCHINGS[program](to_device(dev, graph) if resident else graph, dev, output="device")
    dev.launch(poke, grid=1, block=32, args=(m.mate, N, N + 1))      # N and N + 1 are isolated: no edge
    dev.launch(poke, grid=1, block=32, args=(m.mate, N + 1, N))
    assert not m.valid and not m.certified
    assert m.problem == f"mate[{N}]={N + 1}: ({N}, {N + 1}) is not an edge of the input graph"


@pytest.mark.parametrize("resident", [False, True], ids=["host graph", "resident graph"])
def test_validation_finds_a_b_matching_partner_that_is_not_an_edge(resident):
    graph, dev = _graph(8), _sim(8)
    m = b_suitor(to_device(dev, graph) if resident else graph, 2, device=dev, output="device")
    dev.launch(poke, grid=1, block=32, args=(m.partners, N * m.width, N + 1))
    dev.launch(poke, grid=1, block=32, args=(m.partners, (N + 1) * m.width, N))
    assert not m.valid
    assert m.problem == f"vertex {N} lists partner {N + 1}, but ({N}, {N + 1}) is not an edge of the input graph"


def test_a_weight_that_does_not_add_up_is_a_problem():
    graph = _graph(9)
    m = suitor(graph, backend="sim", output="device")
    m.weight += 1.0
    assert not m.valid and m.problem.startswith("the weight is reported as")


# -- arguments and the registry front ---------------------------------------------------------------------------


@pytest.mark.parametrize("run", [
    lambda g: suitor(g, backend="sim", output="bogus"),
    lambda g: locally_dominant(g, backend="sim", output="bogus"),
    lambda g: b_suitor(g, 2, backend="sim", output="bogus"),
    lambda g: maximum_weight_matching(g, "bsuitor", backend="sim", output="bogus"),
    lambda g: maximum_weight_matching(g, "suitor", backend="cpu", output="bogus"),
])
def test_a_bad_output_is_one_line_naming_it(run):
    with pytest.raises(InvalidArgument) as info:
        run(_graph(0))
    assert "\n" not in str(info.value) and "output='bogus' is not one of ('host', 'device')" in str(info.value)


@pytest.mark.parametrize("algorithm", ["suitor", "ld", "bsuitor"])
def test_the_front_takes_resident_graphs_and_passes_output_on(algorithm):
    graph, dev = _graph(10), Device("sim")
    on_device = to_device(dev, graph)
    host = maximum_weight_matching(graph, algorithm, backend="sim")
    kept = maximum_weight_matching(on_device, algorithm, output="device")   # "auto": the graph's device
    assert isinstance(kept, DeviceWeightedMatching) and kept.backend == "sim"
    assert kept.to_host().mate.tolist() == host.mate.tolist() and kept.weight == host.weight
    assert kept.valid and kept.stats["chosen"]
    assert maximum_weight_matching(graph, algorithm, backend="cpu", output="host").weight == host.weight
    with pytest.raises(InvalidArgument, match="output='device' needs a GPU backend"):
        maximum_weight_matching(graph, algorithm, backend="cpu", output="device")
    if algorithm == "bsuitor":
        assert kept.stats["b"] == 1 and kept.to_host().partners.tolist() == host.partners.tolist()


def test_the_front_refuses_a_resident_graph_for_host_algorithms():
    on_device = to_device(Device("sim"), _graph(11))
    with pytest.raises(InvalidArgument, match=r"'roma' needs a host graph .* runs suitor, ld, bsuitor"):
        maximum_weight_matching(on_device, "roma")
    with pytest.raises(InvalidArgument, match="sequential algorithms"):
        maximum_weight_matching(on_device, "suitor", backend="cpu")
    with pytest.raises(InvalidArgument, match="algorithm='nope' is not one of"):
        maximum_weight_matching(on_device, "nope")


def test_the_partners_table_limit_holds_on_the_resident_path():
    graph, dev = _graph(12), Device("sim")
    with pytest.raises(InvalidArgument, match=r"the partners table of a b-matching \(32 vertices x 3 partners\)"):
        b_suitor(to_device(dev, graph), 3, device=dev, max_memory=100)


# -- on a GPU ----------------------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_device_output_on_a_gpu(gpu_backend):
    graph, dev = _graph(13, n=3000, degree=4), Device(gpu_backend)
    on_device = to_device(dev, graph)
    expected = greedy(graph).mate.tolist()
    for program, run in MATCHINGS.items():
        host = run(graph, dev)
        for source in (graph, on_device):
            kept = run(source, dev, output="device")
            assert memory_of(kept.mate) == gpu_backend, program
            assert (kept.weight, kept.size) == (host.weight, host.size), program
            assert kept.to_host().mate.tolist() == host.mate.tolist() == expected, program
            assert kept.valid and kept.certified, program
        dev.launch(poke, grid=1, block=32, args=(kept.mate, 3000, 3001))
        dev.launch(poke, grid=1, block=32, args=(kept.mate, 3001, 3000))
        assert not DeviceWeightedMatching(on_device, dev, kept.mate, kept.weight, kept.size, "x", {}).valid


@pytest.mark.gpu
@pytest.mark.parametrize("b", list(B_VALUES))
def test_b_suitor_device_output_on_a_gpu(gpu_backend, b):
    graph, dev = _graph(14, n=3000, degree=4), Device(gpu_backend)
    value = B_VALUES[b] if b != "b per vertex" else np.random.default_rng(1).integers(0, 4, graph.n)
    on_device = to_device(dev, graph)
    expected = greedy_b_matching(graph, value)
    for source in (graph, on_device):
        kept = b_suitor(source, value, device=dev, output="device")
        assert memory_of(kept.partners) == gpu_backend
        assert kept.to_host().partners.tolist() == expected.partners.tolist()
        assert kept.size == expected.stats["size"] and kept.weight == pytest.approx(expected.weight, rel=1e-12)
        assert kept.valid
    resident = b_suitor(on_device, value, device=dev)
    assert resident.partners.tolist() == expected.partners.tolist()


@pytest.mark.gpu
def test_a_resident_call_on_a_gpu_copies_only_totals_and_flags(gpu_backend):
    graph, dev = _graph(15, n=20_000, degree=4), Device(gpu_backend)
    on_device = to_device(dev, graph)
    for run in (*MATCHINGS.values(), lambda g, d, **k: b_suitor(g, 2, device=d, **k)):
        copies = watch(dev)
        run(on_device, dev, output="device")
        assert all(way == "out" and entries <= 2 for way, entries in copies), copies
        del dev.to_host, dev.array


def test_device_weighted_graphs_stay_unchanged_by_a_call():
    graph, dev = _graph(16), Device("sim")
    on_device = to_device(dev, graph)
    b_suitor(on_device, 2, device=dev, output="device")
    suitor(on_device, device=dev, output="device")
    assert isinstance(on_device, DeviceWeightedGraph)
    assert [dev.to_host(a).tolist() for a in (on_device.ptr, on_device.adj)] == [graph.ptr.tolist(),
                                                                                  graph.adj.tolist()]


@pytest.mark.gpu
def test_a_device_graph_keeps_its_entry_owners_on_a_gpu(gpu_backend):
    """On a GPU, Suitor's and b-Suitor's first call on a device graph makes each entry's owner and keeps it with the
    graph; the calls after it launch no ``entry_owners`` and give the same (greedy) answer."""
    graph, dev = _graph(17, n=3000, degree=4), Device(gpu_backend)
    on_device = to_device(dev, graph)
    first = suitor(on_device, device=dev)
    assert first.stats["launches"].get("entry_owners") == 1 and first.stats["seconds"].get("owners") is not None
    kept = on_device.derived[("owners", gpu_backend)]
    starts = dev.to_host(on_device.ptr)
    assert dev.to_host(kept).tolist() == np.repeat(np.arange(graph.n), np.diff(starts)).tolist()
    expected = greedy(graph).mate.tolist()
    for run in (lambda g: suitor(g, device=dev), lambda g: suitor(g, device=dev, layout="thread")):
        again = run(on_device)
        assert "entry_owners" not in again.stats["launches"] and "owners" not in again.stats["seconds"]
        assert again.mate.tolist() == expected
    b_matching = b_suitor(on_device, 2, device=dev)
    assert "entry_owners" not in b_matching.stats["launches"]
    assert b_matching.partners.tolist() == greedy_b_matching(graph, 2).partners.tolist()
    assert on_device.derived[("owners", gpu_backend)] is kept


def test_the_simulator_makes_the_entry_owners_every_call():
    graph, dev = _graph(18), Device("sim")
    on_device = to_device(dev, graph)
    for _ in range(2):
        assert suitor(on_device, device=dev).stats["launches"]["entry_owners"] == 1
    assert ("owners", "sim") not in on_device.derived
