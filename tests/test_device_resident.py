"""Device-resident input and output, and the memory check.

On the CPU everything runs on the simulator, whose arrays are device arrays too: a graph built from them
is device-resident, the drivers take it without a copy, ``output="device"`` leaves the mates there and
the checking kernels validate them against an independent host oracle.  The cases marked ``gpu`` do the
same with CuPy arrays, ``cupyx.scipy.sparse`` matrices and numba device arrays.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_matching

from gpusim import Device
from gpusim.algorithms.bipartite.augmenting import apfb
from gpusim.algorithms.bipartite.gpu_push_relabel import gpr
from gpusim.algorithms.bipartite.matching import maximum_bipartite_matching
from gpusim.algorithms.weighted.driver_suitor import suitor
from gpusim.cli import main
from gpusim.errors import InsufficientDeviceMemory, InvalidArgument, InvalidArgumentType
from gpusim.runtime.device import memory_shortfall
from gpusim.runtime.device_checks import csr_problem, matched_count, matching_problem
from gpusim.runtime.resident_graphs import resident
from gpusim.types.device_graphs import DeviceBipartiteGraph, DeviceWeightedGraph
from gpusim.types.device_results import DeviceBipartiteMatching
from gpusim.types.generators import uniform_random
from gpusim.types.graphs import BipartiteGraph, WeightedGraph, load_graph


def _on(dev: Device, g: BipartiteGraph) -> DeviceBipartiteGraph:
    return DeviceBipartiteGraph(g.n_rows, g.n_cols, *(dev.array(a) for a in (g.row_ptr, g.row_adj, g.col_ptr,
                                                                             g.col_adj)))


def _graph(seed: int) -> BipartiteGraph:
    rng = np.random.default_rng(seed)
    rows, cols = rng.integers(0, 9, 30), rng.integers(0, 7, 30)
    keys = np.unique(rows * 7 + cols)
    return BipartiteGraph.from_edges(keys // 7, keys % 7, n_rows=10, n_cols=7)


# -- Device.array on device arrays, free memory --------------------------------------------------------


def test_device_array_adopts_its_own_arrays_without_a_copy_and_copies_host_input():
    dev = Device("sim")
    a = dev.array(np.arange(4, dtype=np.int32))
    assert dev.array(a) is a and dev.holds(a) and not dev.holds(np.arange(4))
    assert dev.to_host(dev.array([1, 2])).tolist() == [1, 2]
    with pytest.raises(InvalidArgument, match=r"dtype='int8' is not supported"):
        dev.array(np.zeros(2, np.int8))
    assert dev.free_memory() is None


def test_the_memory_message_names_bytes_needed_free_and_the_alternative():
    message = memory_shortfall(5 * 2**20, 2**20, "gpr on cupy", 'backend="cpu"')
    assert "\n" not in message
    for fragment in ("gpr on cupy", "5.00 MiB (5242880 bytes)", "1.00 MiB (1048576 bytes)", 'backend="cpu"'):
        assert fragment in message
    assert memory_shortfall(2**20, 2**20, "x", "y") is None
    assert memory_shortfall(2**40, None, "x", "y") is None


@pytest.mark.parametrize("run, alternative", [
    (lambda g: gpr(g, backend="sim"), 'algorithm="apfb"'),
    (lambda g: apfb(g, backend="sim"), "hk"),
])
def test_a_graph_too_large_for_free_memory_is_refused_before_any_launch(monkeypatch, run, alternative):
    launches = []
    monkeypatch.setattr(Device, "free_memory", lambda self: 100)
    monkeypatch.setattr(Device, "launch", lambda self, *a, **k: launches.append(a))
    expected = r"on sim needs \d+ bytes of GPU memory .* only 100 bytes are free"
    with pytest.raises(InsufficientDeviceMemory, match=expected) as info:
        run(_graph(1))
    assert alternative in str(info.value) and launches == []


def test_weighted_drivers_check_memory_too(monkeypatch):
    monkeypatch.setattr(Device, "free_memory", lambda self: 10)
    with pytest.raises(InsufficientDeviceMemory, match="weighted matching on sim needs"):
        suitor(WeightedGraph.from_edges([0, 1], [1, 2], [1.0, 2.0]), backend="sim")


def test_a_device_graph_is_not_measured_against_free_memory_again_once_taken(monkeypatch):
    """The first call on a device graph checks that its arrays fit; the later ones copy nothing in and ask the
    device nothing (an allocation it refuses would still be one line); a host graph is checked every call."""
    g = WeightedGraph.from_edges([0, 1], [1, 2], [1.0, 2.0])
    dev = Device("sim")
    on_device = DeviceWeightedGraph(g.n, dev.array(g.ptr), dev.array(g.adj), dev.array(g.weights))
    asked = []
    monkeypatch.setattr(Device, "free_memory", lambda self: asked.append(1) or 10)
    with pytest.raises(InsufficientDeviceMemory):
        suitor(on_device, device=dev)
    monkeypatch.undo()
    assert suitor(on_device, device=dev).mate.tolist() == [-1, 2, 1]
    monkeypatch.setattr(Device, "free_memory", lambda self: asked.append(1) or 10)
    asked.clear()
    assert suitor(on_device, device=dev).mate.tolist() == [-1, 2, 1] and asked == []
    bipartite = _graph(3)
    d = _on(dev, bipartite)
    monkeypatch.undo()
    apfb(d, backend="sim")
    monkeypatch.setattr(Device, "free_memory", lambda self: asked.append(1) or 10)
    expected = int(np.count_nonzero(scipy_matching(sp.csr_array(bipartite.to_scipy()), perm_type="column") >= 0))
    assert apfb(d, backend="sim").size == expected and asked == []
    with pytest.raises(InsufficientDeviceMemory):
        suitor(g, device=dev)
    assert asked == [1]


@pytest.mark.parametrize("argv", [
    ["match", "--example", "ash219", "--algorithm", "gpr", "--backend", "sim"],
    ["match", "--example", "karate", "--algorithm", "suitor", "--backend", "sim"],
])
def test_the_cli_prints_the_memory_error_as_one_line_exit_2(monkeypatch, capsys, argv):
    monkeypatch.setattr(Device, "free_memory", lambda self: 1000)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("gpusim: error:") and "only 1000 bytes are free" in err


# -- the checking kernels against an independent oracle --------------------------------------------------


def _oracle(g: BipartiteGraph, rmatch: np.ndarray, cmatch: np.ndarray) -> bool:
    edges = set(zip(*(a.tolist() for a in g.edges()), strict=True))
    for r, c in enumerate(rmatch.tolist()):
        if c != -1 and not (0 <= c < g.n_cols and cmatch[c] == r and (r, c) in edges):
            return False
    return all(r == -1 or (0 <= r < g.n_rows and rmatch[r] == c) for c, r in enumerate(cmatch.tolist()))


@pytest.mark.parametrize("seed", range(6))
def test_the_matching_kernel_agrees_with_a_host_oracle(seed):
    g = _graph(seed)
    dev, rng = Device("sim", seed=seed), np.random.default_rng(seed)
    good = gpr(g, backend="sim")
    for trial in range(8):
        rmatch, cmatch = good.row_match.copy(), good.col_match.copy()
        r = int(rng.integers(g.n_rows))
        if trial % 2:   # rematch a row to a random column, keeping both sides consistent: often a non-edge
            c = int(rng.integers(g.n_cols))
            for row in np.flatnonzero(rmatch == c):
                rmatch[row] = -1
            if rmatch[r] >= 0:
                cmatch[rmatch[r]] = -1
            if cmatch[c] >= 0:
                rmatch[cmatch[c]] = -1
            rmatch[r], cmatch[c] = c, r
        else:           # break one side
            rmatch[r] = int(rng.integers(-1, g.n_cols))
        problem = matching_problem(dev, dev.array(g.col_ptr), dev.array(g.col_adj), dev.array(cmatch),
                                   dev.array(rmatch), g.n_cols, g.n_rows, "column", "row")
        assert (problem is None) == _oracle(g, rmatch, cmatch), (rmatch, cmatch, problem)
        assert matched_count(dev, dev.array(rmatch), g.n_rows) == int((rmatch >= 0).sum())


def test_a_device_result_reports_a_pair_that_is_not_an_edge():
    g = BipartiteGraph.from_edges([0, 1], [0, 1])
    m = gpr(g, backend="sim", output="device")
    assert isinstance(m, DeviceBipartiteMatching) and m.size == 2 and type(m.row_match).__name__ == "SimArray"
    m.row_match.data[:] = [1, 0]    # rows 0 and 1 swap columns: consistent, but (0, 1) is no edge
    m.col_match.data[:] = [1, 0]
    assert not m.valid
    assert m.problem in ("column 0 is matched to row 1, but (column 0, row 1) is not an edge",
                         "column 1 is matched to row 0, but (column 1, row 0) is not an edge")
    assert not m.certified


# -- device-resident graphs on the simulator ------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ["gpr", "apfb", "apsb"])
@pytest.mark.parametrize("output", ["host", "device"])
def test_device_graphs_match_as_scipy_with_no_copy_in(algorithm, output):
    g = uniform_random(40, 30, 120, seed=5)
    dev = Device("sim", seed=2)
    d = _on(dev, g)
    m = maximum_bipartite_matching(d, algorithm, device=dev, output=output, check_invariants=True)
    assert m.size == int((scipy_matching(g.to_scipy()) >= 0).sum())
    assert m.valid and m.certified and m.backend == "sim"
    assert isinstance(m.row_match, np.ndarray) == (output == "host")
    host = m.to_host()
    assert host.size == m.size and host.graph == g


def test_a_device_graph_is_checked_once_on_the_device_naming_the_offending_value():
    dev = Device("sim")
    a = lambda *x: dev.array(np.array(x, np.int32))  # noqa: E731
    cases = [
        (DeviceBipartiteGraph(2, 2, a(0, 3, 2), a(0, 1, 0), a(0, 2, 3), a(0, 1, 0)), "row_ptr[1]=3 > row_ptr[2]=2"),
        (DeviceBipartiteGraph(2, 2, a(0, 2, 3), a(0, 5, 0), a(0, 2, 3), a(0, 1, 0)), "row_adj[1]=5 is not in [0, 2)"),
        (DeviceBipartiteGraph(2, 2, a(0, 2, 3), a(1, 0, 0), a(0, 2, 3), a(0, 1, 0)),
         "row_adj[1]=0 is not above row_adj[0]=1 in list 0"),
        (DeviceBipartiteGraph(2, 2, a(0, 2, 3), a(0, 1, 1), a(0, 2, 3), a(0, 1, 0)),
         "lists edge (1, 1) at position 2, but col_adj does not"),
    ]
    for graph, fragment in cases:
        with pytest.raises(InvalidArgument, match=fragment.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
            resident(dev, graph)
        with pytest.raises(InvalidArgument):
            maximum_bipartite_matching(graph, "apfb", device=dev)
    good = DeviceBipartiteGraph(2, 2, a(0, 2, 3), a(0, 1, 0), a(0, 2, 3), a(0, 1, 0))
    assert not good.checked and resident(dev, good).checked and good.checked
    assert csr_problem(dev, a(0, 1), a(0), 1, 1, "p", "a") is None


def test_device_graph_construction_refuses_host_arrays_and_wrong_dtypes():
    dev = Device("sim")
    with pytest.raises(InvalidArgumentType, match="row_ptr must be a device array"):
        DeviceBipartiteGraph(1, 1, np.array([0, 1], np.int32), np.array([0], np.int32))
    with pytest.raises(InvalidArgument, match="row_adj has dtype int64; device graphs hold int32"):
        DeviceBipartiteGraph(1, 1, dev.array(np.array([0, 1], np.int32)), dev.array(np.array([0])))
    with pytest.raises(InvalidArgument, match="row_ptr must have 3 entries, got 2"):
        DeviceBipartiteGraph(2, 1, dev.array(np.array([0, 1], np.int32)), dev.array(np.array([0], np.int32)))
    with pytest.raises(InvalidArgument, match="the simulator cannot build the column side"):
        DeviceBipartiteGraph(1, 1, dev.array(np.array([0, 1], np.int32)), dev.array(np.array([0], np.int32)))
    with pytest.raises(InvalidArgument, match="give both col_ptr and col_adj"):
        DeviceBipartiteGraph(1, 1, dev.array(np.array([0, 1], np.int32)), dev.array(np.array([0], np.int32)),
                             dev.array(np.array([0, 1], np.int32)))


def test_device_graphs_refuse_cpu_algorithms_other_backends_and_bad_output():
    g = _graph(3)
    d = _on(Device("sim"), g)
    assert load_graph(d) is d
    with pytest.raises(InvalidArgument, match="sequential algorithms .* need a host graph"):
        maximum_bipartite_matching(d, "hk")
    with pytest.raises(InvalidArgument, match="sequential algorithms"):
        maximum_bipartite_matching(d, "gpr", backend="cpu")
    with pytest.raises(InvalidArgument, match="output='disk' is not one of"):
        gpr(g, backend="sim", output="disk")
    with pytest.raises(InvalidArgument,
                       match=r"initial must be one of \('cheap', 'proposals', 'empty'\) for a device-resident graph"):
        gpr(d, backend="sim", initial=(np.zeros(10, np.int32), np.zeros(7, np.int32)))


def test_device_weighted_graphs_are_checked_on_the_device():
    dev = Device("sim")
    g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0])
    arrays = [dev.array(a) for a in (g.ptr, g.adj, g.weights)]
    assert resident(dev, DeviceWeightedGraph(3, *arrays)).checked
    w = g.weights.copy()
    w[0] = 9.0
    with pytest.raises(InvalidArgument, match=r"entry \(0, 1\) of weight 9.0 has no mirror \(1, 0\)"):
        resident(dev, DeviceWeightedGraph(3, arrays[0], arrays[1], dev.array(w)))
    w[0] = np.nan
    with pytest.raises(InvalidArgument, match=r"weights\[0\]=nan is not finite"):
        resident(dev, DeviceWeightedGraph(3, arrays[0], arrays[1], dev.array(w)))


def _host_problems(ptr: np.ndarray, adj: np.ndarray, w: np.ndarray, n: int) -> list[int]:
    """The smallest offending entry of each kind, found on the host, list by list (:data:`NONE` for none): id out of
    range, unsorted, self loop, bad weight, no mirror of the same weight."""
    from gpusim.runtime.device_checks import NONE

    found = [NONE] * 5
    for u in range(n):
        for k in range(ptr[u], ptr[u + 1]):
            v = int(adj[k])
            kinds = [not 0 <= v < n, k > ptr[u] and adj[k - 1] >= v, v == u, not (np.isfinite(w[k]) and w[k] >= 0)]
            if 0 <= v < n:
                mirror = [q for q in range(ptr[v], ptr[v + 1]) if adj[q] == u]
                kinds.append(not mirror or w[mirror[0]] != w[k])
            else:
                kinds.append(True)
            found = [min(f, k) if bad else f for f, bad in zip(found, kinds, strict=True)]
    return found


@pytest.mark.parametrize("seed", range(12))
def test_the_entry_parallel_checks_find_the_host_oracles_first_offenders(seed):
    """A thread an entry, its list found by binary search over the offsets: on graphs with empty lists and a hub,
    one entry corrupted (or none), each smallest offending position is the host's, list boundaries included."""
    from gpusim.runtime.device_checks import NONE, lists_check, smallest_offenders, symmetry_check

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 14))
    hub = {(0, v) for v in range(1, n)}
    pairs = sorted(hub | {(int(min(a, b)), int(max(a, b))) for a, b in rng.integers(0, n, (int(rng.integers(0, 12)), 2))
                          if a != b})
    g = WeightedGraph.from_edges([a for a, _ in pairs], [b for _, b in pairs], rng.integers(1, 4, len(pairs)) * 1.0,
                                 n=n + int(rng.integers(0, 3)))  # isolated vertices: empty lists at the end
    ptr, adj, w = g.ptr.copy(), g.adj.copy(), g.weights.astype(np.float64)
    k = int(rng.integers(0, adj.size))
    kind = seed % 4
    if kind == 1:
        adj[k] = adj[k - 1] if k > 0 else g.n  # a duplicate (or an id out of range)
    elif kind == 2:
        w[k] = -1.0 if seed % 8 == 2 else w[k] + 1.0  # negative, or no mirror of the same weight
    elif kind == 3:
        adj[k] = k % g.n  # maybe a self loop, maybe unsorted, maybe no mirror
    dev = Device("sim", seed=seed)
    m, n_all = int(adj.size), g.n
    args = [dev.array(ptr), dev.array(adj)]
    range_, unsorted = smallest_offenders(dev, lists_check, m, 2, *args, n_all, n_all, m)
    expected = _host_problems(ptr, adj, w, n_all)
    assert [range_, unsorted] == expected[:2]
    if range_ == NONE:
        assert smallest_offenders(dev, symmetry_check, m, 3, *args, dev.array(w), n_all, m) == expected[2:]


# -- on a GPU (an H100 run) ------------------------------------------------------------------------------


def _gpu(name: str) -> None:
    from gpusim.backends import gpu_status

    ok, why = gpu_status(name)
    if not ok:
        pytest.skip(f"{name} unavailable: {why}")


@pytest.mark.gpu
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("algorithm", ["gpr", "apfb", "apsb"])
def test_cupyx_matrices_match_on_the_gpu_with_no_copies(fmt, algorithm):
    _gpu("cupy")
    import cupy
    import cupyx.scipy.sparse as csp

    g = uniform_random(3000, 2500, 20000, seed=7)
    host = g.to_scipy()
    matrix = getattr(csp, f"{fmt}_matrix")(getattr(sp, f"{fmt}_matrix")(host))
    m = maximum_bipartite_matching(matrix, algorithm, output="device")
    assert m.backend == "cupy" and isinstance(m.row_match, cupy.ndarray)
    assert m.size == int((scipy_matching(host) >= 0).sum()) and m.valid
    assert m.to_host().graph == g and m.certified


@pytest.mark.gpu
def test_cupy_and_numba_devices_adopt_cuda_arrays_without_a_copy():
    _gpu("cupy")
    _gpu("numba")
    import cupy

    x = cupy.arange(10, dtype=cupy.int32)
    cu, nb = Device("cupy"), Device("numba")
    assert cu.array(x) is x
    y = nb.array(x)
    assert y.__cuda_array_interface__["data"][0] == x.data.ptr and nb.to_host(y).tolist() == list(range(10))
    assert cu.array(y).data.ptr == x.data.ptr
    with pytest.raises(InvalidArgument, match="dtype='int8'"):
        cu.array(cupy.zeros(3, cupy.int8))
    for value, dtype in ((0, np.int32), (-1, np.int32), (7, np.int32), (2.5, np.float64), (-3, np.int64)):
        assert nb.to_host(nb.full(5, value, dtype)).tolist() == [value] * 5
    assert nb.to_host(nb.zeros(0)).size == 0
    assert cu.free_memory() > 0 and nb.free_memory() > 0


@pytest.mark.gpu
def test_numba_runs_a_device_graph_of_cupy_arrays():
    _gpu("cupy")
    _gpu("numba")
    import cupy

    g = uniform_random(2000, 2000, 12000, seed=3)
    arrays = [cupy.asarray(a) for a in (g.row_ptr, g.row_adj)]
    d = DeviceBipartiteGraph(g.n_rows, g.n_cols, *arrays)   # the column side built by cupyx
    m = maximum_bipartite_matching(d, "apfb", "numba", output="device")
    assert m.size == int((scipy_matching(g.to_scipy()) >= 0).sum()) and m.valid
    assert type(m.row_match).__module__.startswith("numba")


@pytest.mark.gpu
def test_a_cupyx_weighted_graph_is_checked_on_the_gpu():
    _gpu("cupy")
    import cupyx.scipy.sparse as csp

    g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0])
    d = load_graph(csp.csr_matrix(g.to_scipy()), kind="weighted")
    assert resident(Device("cupy"), d).checked and d.n_edges == 3
    with pytest.raises(InvalidArgument, match="not symmetric"):
        resident(Device("cupy"), DeviceWeightedGraph.from_cupyx(csp.csr_matrix(sp.csr_array([[0, 1.0], [0, 0]]))))


@pytest.mark.gpu
@pytest.mark.parametrize("form", ["canonical", "unsorted", "duplicates", "diagonal and zeros", "coo"])
def test_a_cupyx_weighted_graph_is_the_host_graph_of_the_same_matrix(form):
    """A canonical CSR skips the sorts (``canonical_rows``); every other form is canonicalised: same graph."""
    _gpu("cupy")
    import cupy
    import cupyx.scipy.sparse as csp

    from gpusim.types.device_graphs import canonical_rows

    rng = np.random.default_rng(7)
    dense = np.triu(rng.integers(-3, 4, (60, 60)) * (rng.random((60, 60)) < 0.1), 1).astype(np.float64)
    dense = dense + dense.T
    if form == "diagonal and zeros":
        dense[5, 5] = 2.0
    host = sp.csr_matrix(dense)
    if form == "diagonal and zeros":  # an explicit zero both ways: no edge, the matrix still symmetric
        rows, cols = host.nonzero()
        k = int(np.flatnonzero(rows != cols)[0])
        host[rows[k], cols[k]] = host[cols[k], rows[k]] = 0.0
        assert host.nnz == np.count_nonzero(dense)
    if form == "unsorted":  # each row's list reversed
        for lo, hi in zip(host.indptr[:-1], host.indptr[1:], strict=True):
            host.indices[lo:hi], host.data[lo:hi] = host.indices[lo:hi][::-1].copy(), host.data[lo:hi][::-1].copy()
        host.has_sorted_indices = False
    matrix = csp.coo_matrix(host.tocoo()) if form == "coo" else csp.csr_matrix(host)
    if form == "duplicates":
        coo = host.tocoo()
        matrix = csp.csr_matrix(csp.coo_matrix((cupy.asarray(np.r_[coo.data / 2, coo.data / 2]),
                                                (cupy.asarray(np.r_[coo.row, coo.row]),
                                                 cupy.asarray(np.r_[coo.col, coo.col]))), shape=host.shape))
    if form in ("canonical", "unsorted", "coo"):  # cupyx may canonicalise the other two while building them
        assert (canonical_rows(matrix) is not None) == (form == "canonical")
    built = DeviceWeightedGraph.from_cupyx(matrix)
    expected = WeightedGraph.from_scipy(host)
    for got, want in ((built.ptr, expected.ptr), (built.adj, expected.adj), (built.weights, expected.weights)):
        assert np.array_equal(cupy.asnumpy(got), want)
    if form == "canonical":  # copies: the caller's matrix is not shared
        assert built.adj.data.ptr != matrix.indices.data.ptr and built.ptr.data.ptr != matrix.indptr.data.ptr


def test_roma_checks_memory_for_its_dense_matrix(monkeypatch):
    from gpusim.algorithms.weighted import roma

    monkeypatch.setattr(Device, "free_memory", lambda self: 64)
    with pytest.raises(InsufficientDeviceMemory, match=r"roma on sim needs 192 bytes .* only 64 bytes are free"):
        roma(np.ones((4, 4)), backend="sim")


def test_the_simulator_refuses_a_gpu_array_in_one_line():
    class FakeCudaArray:
        __cuda_array_interface__ = {"shape": (2,), "typestr": "<i4", "data": (0, False), "version": 3}

    with pytest.raises(InvalidArgumentType, match="cannot be used on the 'sim' device without a copy"):
        Device("sim").array(FakeCudaArray())


@pytest.mark.parametrize("graph", [BipartiteGraph.from_edges([], [], n_rows=0, n_cols=0),
                                   BipartiteGraph.from_edges([], [], n_rows=3, n_cols=2),
                                   BipartiteGraph.from_edges([0], [0], n_rows=1, n_cols=4)])
@pytest.mark.parametrize("algorithm", ["gpr", "apfb"])
def test_empty_and_tiny_device_graphs(graph, algorithm):
    from gpusim.runtime.resident_graphs import to_device

    dev = Device("sim", seed=1)
    d = to_device(dev, graph)
    assert d.checked and d.n_edges == graph.n_edges
    m = maximum_bipartite_matching(d, algorithm, device=dev, output="device")
    assert m.size == graph.n_edges and m.valid and m.certified
    assert dev.to_host(m.row_match).tolist() == m.to_host().row_match.tolist()
    assert len(m.to_host().row_match) == graph.n_rows and len(m.to_host().col_match) == graph.n_cols


def test_an_out_of_memory_error_of_the_backend_becomes_one_line(monkeypatch):
    dev = Device("sim")

    def refuse(*args):
        raise MemoryError("Out of memory allocating 4,096 bytes (allocated so far: 0 bytes).")

    monkeypatch.setattr(dev._impl, "full", refuse)
    monkeypatch.setattr(dev._impl, "array", lambda host: refuse())
    for allocate in (lambda: dev.zeros(1024), lambda: dev.full(1024, 7), lambda: dev.array(np.zeros(1024, np.int32))):
        with pytest.raises(InsufficientDeviceMemory, match=r"allocating 4.00 KiB \(4096 bytes\) on sim failed"):
            allocate()


def _weighted_graph(seed: int = 0, n: int = 40) -> WeightedGraph:
    rng = np.random.default_rng(seed)
    u, v = rng.integers(0, n, 3 * n), rng.integers(0, n, 3 * n)
    pairs = sorted({(min(a, b), max(a, b)) for a, b in zip(u.tolist(), v.tolist(), strict=True) if a != b})
    return WeightedGraph.from_edges([a for a, _ in pairs], [b for _, b in pairs], rng.random(len(pairs)), n=n)


@pytest.mark.parametrize("seed", range(3))
def test_weighted_drivers_take_a_device_graph_and_give_the_host_graphs_answer(seed):
    from gpusim.algorithms.weighted import b_suitor, locally_dominant
    from gpusim.algorithms.weighted.reference_greedy import greedy
    from gpusim.runtime.resident_graphs import to_device

    graph, dev = _weighted_graph(seed), Device("sim")
    on_device = to_device(dev, graph)
    expected = greedy(graph).mate   # Suitor and LD find the greedy matching (seed 003, Paper I)
    for run in (suitor, locally_dominant):
        result = run(on_device, device=dev)
        assert result.mate.tolist() == expected.tolist()
        assert result.valid and result.certified       # checked against the input, copied back on demand
    host, resident_ = b_suitor(graph, 2, backend="sim"), b_suitor(on_device, 2, device=dev)
    assert np.array_equal(host.partners, resident_.partners)
    assert resident_.weight == pytest.approx(host.weight)


def test_a_device_weighted_graph_that_is_not_symmetric_is_refused_by_the_driver():
    dev = Device("sim")
    bad = DeviceWeightedGraph(3, dev.array(np.array([0, 1, 1, 1], np.int32)), dev.array(np.array([1], np.int32)),
                              dev.array(np.array([1.0])))
    with pytest.raises(InvalidArgument, match=r"not symmetric: entry \(0, 1\)"):
        suitor(bad, device=dev)


@pytest.mark.gpu
@pytest.mark.parametrize("backend", ["cupy", "numba"])
def test_weighted_drivers_take_a_cupyx_graph_on_the_gpu(backend):
    _gpu("cupy")
    _gpu(backend)
    import cupyx.scipy.sparse as csp

    from gpusim.algorithms.weighted.reference_greedy import greedy

    graph = _weighted_graph(5, 300)
    matrix = csp.csr_matrix(sp.csr_matrix((graph.weights, graph.adj, graph.ptr), shape=(graph.n, graph.n)))
    result = suitor(DeviceWeightedGraph.from_cupyx(matrix), backend=backend)
    assert result.mate.tolist() == greedy(graph).mate.tolist()
    assert result.valid
