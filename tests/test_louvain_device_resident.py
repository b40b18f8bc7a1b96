"""GPU Louvain on a graph already in device memory: no copy in, the host input's answer.

On the CPU the simulator's arrays stand in for the GPU's: a :class:`DeviceWeightedGraph` of them is taken
where it is, checked once on the device, and its facts (entries, isolated vertices, weight) counted there
by a kernel; the result keeps the device graph as its input and copies it back only to check itself.
The cases marked ``gpu`` do the same with CuPy arrays, numba device arrays and ``cupyx.scipy.sparse``.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import gpusim.runtime.resident_graphs as device_graphs
from gpusim import Device
from gpusim.algorithms.louvain import LouvainGraph, gpu_louvain, karate, load_louvain_graph, louvain
from gpusim.algorithms.louvain.device_input import device_facts, host_facts, louvain_input
from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.runtime.registry import lookup
from gpusim.runtime.resident_graphs import to_device
from gpusim.types.device_graphs import DeviceWeightedGraph
from gpusim.types.graphs import WeightedGraph


def _weighted(n: int, seed: int, isolated: int = 0, integer: bool = False) -> LouvainGraph:
    """A random graph without self-loops (and ``isolated`` vertices without an edge at the end)."""
    rng = np.random.default_rng(seed)
    u, v = rng.integers(0, n, 3 * n), rng.integers(0, n, 3 * n)
    pairs = sorted({(min(a, b), max(a, b)) for a, b in zip(u.tolist(), v.tolist(), strict=True) if a != b})
    w = rng.integers(1, 5, len(pairs)).astype(float) if integer else rng.random(len(pairs)) + 0.1
    return LouvainGraph.from_edges([a for a, _ in pairs], [b for _, b in pairs], w, n=n + isolated)


def _twin(graph: LouvainGraph) -> WeightedGraph:
    """The same graph as gpusim's weighted graph type (no self-loops)."""
    return WeightedGraph.from_edges(*graph.edges(), n=graph.n)


def _arrays(dev: Device, graph: LouvainGraph) -> DeviceWeightedGraph:
    """The graph built directly from device arrays: unchecked until a driver takes it."""
    return DeviceWeightedGraph(graph.n, *(dev.array(a) for a in (graph.ptr, graph.adj, graph.weights)))


def _canonical(labels: np.ndarray) -> list[int]:
    """The partition with its communities numbered in order of their first vertex."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    return np.argsort(np.argsort(first))[inverse].tolist()


def _same(result, expected, exact: bool = True) -> None:
    """The same communities at every level and the same modularities: exactly (ids too) where the weights' sums
    are exact (integer weights); else the same partitions and modularities to rounding, since the device input's
    check and facts kernels shift the simulator's launch numbers, hence the order of its atomic additions."""
    if exact:
        assert result.labels.tolist() == expected.labels.tolist()
        assert [level.tolist() for level in result.levels] == [level.tolist() for level in expected.levels]
        assert result.modularity == expected.modularity and result.level_modularity == expected.level_modularity
    else:   # the same partitions; a community may keep another member's id
        assert _canonical(result.labels) == _canonical(expected.labels)
        assert [_canonical(level) for level in result.levels] == [_canonical(level) for level in expected.levels]
        assert result.modularity == pytest.approx(expected.modularity, rel=1e-12)
        assert result.level_modularity == pytest.approx(expected.level_modularity, rel=1e-12)


karate_graph = karate()


@pytest.mark.parametrize("graph, exact, build", [
    (karate_graph, True, "to_device"),                                        # from gpusim's WeightedGraph
    (_weighted(16, 2, isolated=3, integer=True), True, "arrays"),         # from device arrays, checked here
    (_weighted(20, 3), False, "to_device"),
], ids=["karate", "isolated", "real-weights"])
def test_a_device_graph_gives_the_host_graphs_answer_with_no_copy_in(graph, exact, build):
    expected = louvain(graph, backend="sim", seed=3)
    dev = Device("sim", seed=3, trace=False)
    on_device = to_device(dev, _twin(graph)) if build == "to_device" else _arrays(dev, graph)
    result = louvain(on_device, seed=3)
    _same(result, expected, exact)
    assert result.backend == "sim" and result.graph is on_device and on_device.checked
    assert "copy in" not in result.stats["seconds"] and "input" in result.stats["seconds"]
    assert result.stats["launches"]["input_facts"] == 1
    # an unweighted input is found so on the device, and its weights are not read (the host graph's kernels)
    assert ("move_by_counts" in result.stats["launches"]) == graph.unit_weights == (graph is karate_graph)
    assert "input_graph" not in result.__dict__          # nothing copied back yet
    assert result.valid and result.certified
    assert result.input_graph.n == graph.n and np.array_equal(result.input_graph.adj, graph.adj)
    assert len(result.communities()) == expected.n_communities


def test_the_registry_entry_and_a_device_given_take_it_too():
    graph = _weighted(14, 4, integer=True)
    dev = Device("sim", seed=0, trace=False)
    on_device = to_device(dev, _twin(graph))
    expected = gpu_louvain(graph, backend="sim", seed=0, refine=False)
    through_registry = lookup("communities", "louvain").run(on_device, backend="auto", seed=0, refine=False)
    _same(through_registry, expected)
    assert through_registry.stats["chosen"] == "auto: the graph lives in sim memory"
    _same(gpu_louvain(on_device, device=dev, refine=False), expected)


@pytest.mark.parametrize("graph", [_weighted(25, 5, isolated=3), karate(), LouvainGraph.from_edges([], [], n=3),
                                   LouvainGraph.from_edges([], [], n=0)], ids=["random", "karate", "edgeless", "empty"])
def test_the_facts_are_counted_on_the_device(graph):
    dev = Device("sim", seed=1)
    facts = device_facts(dev, _arrays(dev, graph))
    assert facts[:3] == host_facts(graph)[:3]
    assert facts.total_weight == pytest.approx(graph.total_weight, rel=1e-12)


@pytest.mark.parametrize("graph", [LouvainGraph.from_edges([], [], n=0), LouvainGraph.from_edges([], [], n=3),
                                   LouvainGraph.from_edges([0], [1], [0.5], n=3)], ids=["empty", "edgeless", "one"])
def test_empty_and_tiny_device_graphs(graph):
    dev = Device("sim", seed=0)
    result = louvain(_arrays(dev, graph))
    _same(result, louvain(graph, backend="sim"))
    assert len(result.labels) == graph.n and result.valid


def test_bad_device_graphs_are_refused_in_one_line_by_the_device_checks():
    dev = Device("sim")
    ptr, adj = dev.array(np.array([0, 1, 2, 2], np.int32)), dev.array(np.array([1, 0], np.int32))
    asymmetric = DeviceWeightedGraph(3, ptr, adj, dev.array(np.array([1.0, 2.0])))
    out_of_range = DeviceWeightedGraph(3, ptr, dev.array(np.array([1, 7], np.int32)), dev.array(np.array([1.0, 1.0])))
    loop = DeviceWeightedGraph(2, dev.array(np.array([0, 1, 1], np.int32)), dev.array(np.array([0], np.int32)),
                               dev.array(np.array([1.0])))
    for graph, message in ((asymmetric, r"not symmetric: entry \(0, 1\) of weight 1.0 has no mirror \(1, 0\)"),
                           (out_of_range, r"adj\[1\]=7 is not in \[0, 3\)"),
                           (loop, r"adj\[0\]=0 is a self loop")):
        with pytest.raises(InvalidArgument, match=message) as info:
            louvain(graph, backend="sim")
        assert "\n" not in str(info.value) and not graph.checked


def test_a_device_graph_is_checked_once(monkeypatch):
    calls = []
    check = device_graphs.weighted_problem
    monkeypatch.setattr(device_graphs, "weighted_problem", lambda *args: calls.append(1) or check(*args))
    dev = Device("sim")
    graph = _arrays(dev, _weighted(12, 6, integer=True))
    first, second = louvain(graph), louvain(graph)
    assert calls == [1] and first.labels.tolist() == second.labels.tolist()


def test_a_graph_on_another_device_or_for_the_cpu_is_refused_in_one_line():
    class CudaArray:   # a CUDA array the simulator cannot see
        def __init__(self, dtype: str, length: int):
            self.dtype, self.shape = np.dtype(dtype), (length,)
            self.__cuda_array_interface__ = {"shape": (length,), "typestr": self.dtype.str, "data": (0, False),
                                             "version": 3}

    elsewhere = DeviceWeightedGraph(2, CudaArray("int32", 3), CudaArray("int32", 2), CudaArray("float64", 2))
    with pytest.raises(InvalidArgument, match="ptr lives in cuda memory, which backend 'sim' cannot use") as info:
        louvain(elsewhere, backend="sim")
    assert "\n" not in str(info.value)
    on_sim = _arrays(Device("sim"), karate())
    with pytest.raises(InvalidArgument, match=r"backend='cpu'\) need a host graph"):
        louvain(on_sim, backend="cpu")
    with pytest.raises(InvalidArgument, match="'blondel' needs a host graph .* sim memory"):
        louvain(on_sim, algorithm="blondel")
    with pytest.raises(InvalidArgumentType, match=r"LouvainGraph.from_device\(graph\) copies it"):
        load_louvain_graph(on_sim)
    assert louvain_input(on_sim) is on_sim


# -- on a GPU ----------------------------------------------------------------------------------------


def _gpu(name: str) -> None:
    from gpusim.backends import gpu_status

    ok, why = gpu_status(name)
    if not ok:
        pytest.skip(f"{name} unavailable: {why}")


def _on_gpu(backend: str, graph: LouvainGraph) -> DeviceWeightedGraph:
    """The graph as CuPy arrays or numba device arrays."""
    arrays = (graph.ptr, graph.adj, graph.weights)
    if backend == "cupy":
        import cupy

        return DeviceWeightedGraph(graph.n, *(cupy.asarray(a) for a in arrays))
    from numba import cuda

    return DeviceWeightedGraph(graph.n, *(cuda.to_device(np.ascontiguousarray(a)) for a in arrays))


@pytest.mark.parametrize("graph", [karate(), _weighted(400, 7, isolated=5, integer=True)], ids=["karate", "random"])
def test_gpu_arrays_give_the_host_graphs_answer(gpu_backend, graph):
    expected = louvain(graph, device=Device(gpu_backend))
    on_gpu = _on_gpu(gpu_backend, graph)
    result = louvain(on_gpu)                                  # "auto": the device that holds it
    assert result.backend == gpu_backend and result.graph is on_gpu and on_gpu.checked
    _same(result, expected)
    assert "copy in" not in result.stats["seconds"] and result.valid and result.certified


@pytest.mark.gpu
@pytest.mark.parametrize("fmt", ["csr", "coo"])
def test_a_cupyx_matrix_gives_the_scipy_matrixs_answer(fmt):
    _gpu("cupy")
    import cupyx.scipy.sparse as csp

    host = _weighted(300, 8, integer=True).to_scipy()
    matrix = getattr(csp, f"{fmt}_matrix")(getattr(sp, f"{fmt}_matrix")(host))
    result = louvain(matrix)
    assert result.backend == "cupy" and isinstance(result.graph, DeviceWeightedGraph)
    _same(result, louvain(host, backend="cupy"))
    assert result.valid and result.certified


@pytest.mark.gpu
def test_a_cupyx_matrix_with_stored_zeros_gives_the_scipy_matrixs_answer():
    """Stored zeros are no edge, on the diagonal too: a canonical CSR holding them is not taken as it is."""
    _gpu("cupy")
    import cupyx.scipy.sparse as csp

    coo = _weighted(300, 9, integer=True).to_scipy().tocoo()
    data = np.where(coo.data == 1.0, 0.0, coo.data)  # symmetric: every entry of weight 1, both directions
    diagonal = np.arange(300)
    host = sp.csr_matrix((np.r_[data, np.zeros(300)], (np.r_[coo.row, diagonal], np.r_[coo.col, diagonal])),
                         shape=(300, 300))
    host.sum_duplicates()  # canonical, the zeros kept
    matrix = csp.csr_matrix(host)
    assert matrix.has_canonical_format and int((matrix.data == 0).sum()) > 300
    _same(louvain(matrix), louvain(host, backend="cupy"))


@pytest.mark.gpu
def test_a_cupyx_matrix_with_a_self_loop_or_a_negative_weight_is_refused_in_one_line():
    _gpu("cupy")
    import cupyx.scipy.sparse as csp

    loop = csp.csr_matrix(sp.csr_matrix(np.array([[0, 1.0, 0], [1.0, 2.0, 0], [0, 0, 0]])))
    with pytest.raises(InvalidArgument, match=r"entry \(1, 1\) = 2.0 is a self-loop"):
        louvain(loop)
    negative = csp.csr_matrix(sp.csr_matrix(np.array([[0, -1.0], [-1.0, 0]])))
    with pytest.raises(InvalidArgument, match=r"entry \(0, 1\) = -1.0 is negative"):
        louvain(negative)
    asymmetric = csp.csr_matrix(sp.csr_matrix(np.array([[0, 1.0], [2.0, 0]])))
    with pytest.raises(InvalidArgument, match="not symmetric"):
        louvain(asymmetric)
