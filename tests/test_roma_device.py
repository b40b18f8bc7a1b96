"""Parallel ROMA (seed 002, Alg. 6–9) with its dense matrix already on the device, its matching left there, and the
weight of every phase added on the device.

On the CPU everything runs on the simulator, whose flat arrays are device arrays too.  Under the sequential
schedule a run is deterministic, so a device matrix must give exactly the host matrix's matching and phase weights;
every phase weight must be the ``math.fsum`` of the matching after that phase (the run stopped there with
``max_phases``), and the errors must be the host path's, word for word.  The ``gpu`` cases do the same with CuPy
arrays, numba device arrays and a bare ``__cuda_array_interface__``.
"""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
from device_copies import watch

from gpusim import Device
from gpusim.algorithms.weighted import maximum_weight_matching, roma
from gpusim.algorithms.weighted.device_result import DeviceWeightedMatching
from gpusim.algorithms.weighted.start_matchings import start_matching
from gpusim.errors import InsufficientDeviceMemory, InvalidArgument, InvalidArgumentType
from gpusim.types.complete_graphs import exponential, geometric, uniform
from gpusim.types.graphs import WeightedGraph

GENERATORS = {"uniform": uniform, "exponential": exponential, "geometric": geometric}
CASES = [("uniform", 8, 0, "i,i+1"), ("exponential", 10, 1, "i,i+n/2"), ("geometric", 12, 2, "shuffled"),
         ("uniform", 6, 3, "array")]


def sequential() -> Device:
    return Device("sim", policy="sequential", trace=False)


def flat(dev: Device, w: np.ndarray):
    """The matrix on the simulator: its n * n entries, row after row (the simulator's arrays are 1-D)."""
    return dev.array(np.ascontiguousarray(w, np.float64).ravel())


def fsum_weight(w: np.ndarray, mate: np.ndarray) -> float:
    """The weight of a matching, on the host, exactly rounded (independent of gpusim)."""
    return math.fsum(float(w[u, v]) for u, v in enumerate(mate.tolist()) if u < v)


def assert_perfect(mate: np.ndarray, n: int) -> None:
    assert sorted(mate.tolist()) == list(range(n)) and all(mate[mate[v]] == v != mate[v] for v in range(n))


def positive_gain_swaps(w: np.ndarray, mate: np.ndarray, threshold: float) -> list:
    """Every swap of two matching edges gaining more than ``threshold`` (and float rounding), by brute force."""
    edges = [(u, int(mate[u])) for u in range(len(mate)) if u < mate[u]]
    return [(a, b) for (a, b) in itertools.combinations(edges, 2)
            if max(w[a[0], b[0]] + w[a[1], b[1]], w[a[0], b[1]] + w[a[1], b[0]]) - w[a] - w[b] > threshold + 1e-12]


def close(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all(math.isclose(x, y, rel_tol=1e-12) for x, y in zip(a, b, strict=True))


def start_of(kind: str, n: int):
    return np.random.default_rng(n).permutation(n).reshape(-1, 2) if kind == "array" else kind


def as_mate(start, n: int):
    """A start given as pairs becomes a mate array (the 'array' case)."""
    if isinstance(start, str):
        return start
    mate = np.empty(n, np.int64)
    mate[start[:, 0]], mate[start[:, 1]] = start[:, 1], start[:, 0]
    return mate


# -- the host input's matching and phase weights ------------------------------------------------------------


@pytest.mark.parametrize("variant", ["block", "thread"])
@pytest.mark.parametrize("kind, n, seed, start", CASES, ids=[f"{c[0]}-{c[1]}-{c[3]}" for c in CASES])
def test_a_device_matrix_gives_the_host_matrix_matching_and_phase_weights(kind, n, seed, start, variant):
    w = GENERATORS[kind](n, seed)
    mate = as_mate(start_of(start, n), n)
    host = roma(w, mate, variant=variant, threshold=0.0, seed=seed, device=sequential())
    dev = sequential()
    resident = roma(flat(dev, w), mate, variant=variant, threshold=0.0, seed=seed, device=dev)
    assert np.array_equal(resident.mate, host.mate) and resident.backend == "sim"
    assert close(resident.stats["phase_weights"], host.stats["phase_weights"])   # the host sums the start's: fsum
    if host.stats["phase_flips"][0]:  # then both add every later weight on the device, from the same matchings
        assert resident.stats["phase_weights"][1:] == host.stats["phase_weights"][1:]
    assert resident.stats["phase_flips"] == host.stats["phase_flips"] and math.isclose(resident.weight, host.weight,
                                                                                          rel_tol=1e-12)
    assert_perfect(resident.mate, n)
    assert positive_gain_swaps(w, resident.mate, 0.0) == []
    assert resident.valid and resident.graph is not None
    assert resident.stats["launches"]["weight_matrix_check"] == 1
    assert resident.stats["launches"]["phase_weight"] == resident.stats["phases"] + 1


@pytest.mark.parametrize("on_device", [False, True], ids=["host matrix", "device matrix"])
@pytest.mark.parametrize("kind, n, seed", [("uniform", 10, 4), ("geometric", 8, 5)])
def test_every_phase_weight_is_the_fsum_of_the_matching_after_that_phase(kind, n, seed, on_device):
    w = GENERATORS[kind](n, seed)

    def run(**options):
        dev = sequential()
        return roma(flat(dev, w) if on_device else w, "i,i+n/2", threshold=0.0, device=dev, **options)

    full = run()
    weights = full.stats["phase_weights"]
    start = start_matching(n, "i,i+n/2")
    assert math.isclose(weights[0], fsum_weight(w, start), rel_tol=1e-12)
    assert len(weights) == full.stats["phases"] + 1 >= 3
    for k in range(1, full.stats["phases"] + 1):
        prefix = run(max_phases=k)  # the sequential schedule: the same first k phases
        assert prefix.stats["phase_weights"] == weights[:k + 1]
        assert math.isclose(weights[k], fsum_weight(w, prefix.mate), rel_tol=1e-12, abs_tol=0.0)
    assert math.isclose(full.weight, fsum_weight(w, full.mate), rel_tol=1e-12)


def test_a_host_matrix_keeps_its_launch_numbers_and_its_start_fsum():
    # one launch before each phase, as before the weights moved to the device: the simulator seeds each launch's
    # schedule with its number, so the runs of a host matrix (those the tutorials show) do not change
    w = uniform(10, 6)
    dev = Device("sim", policy="random", seed=3, trace=False)
    launched: list[str] = []
    launch = dev.launch
    dev.launch = lambda kernel, grid, block, args=(): launched.append(kernel.name) or launch(kernel, grid, block, args)
    found = roma(w, "i,i+1", threshold=0.0, device=dev)
    phases = found.stats["phases"]
    assert launched == ["fill", "roma_block_phase"] + ["phase_weight", "roma_block_phase"] * (phases - 1) + [
        "phase_weight"]
    assert found.stats["phase_weights"][0] == math.fsum(w[v, v + 1] for v in range(0, 10, 2))


@pytest.mark.parametrize("seed", range(3))
def test_under_random_schedules_the_weights_are_still_the_matchings(seed):
    w = exponential(12, seed)
    dev = Device("sim", policy="random", seed=seed, trace=False)
    found = roma(flat(dev, w), "i,i+1", threshold=0.0, device=dev, check_invariants=True)
    assert_perfect(found.mate, 12)
    weights = found.stats["phase_weights"]
    assert all(b >= a - 1e-12 for a, b in zip(weights, weights[1:], strict=False))
    assert math.isclose(weights[0], math.fsum(w[v, v + 1] for v in range(0, 12, 2)), rel_tol=1e-12)
    assert math.isclose(weights[-1], fsum_weight(w, found.mate), rel_tol=1e-12)
    assert positive_gain_swaps(w, found.mate, 0.0) == []


# -- output="device" ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("on_device", [False, True], ids=["host matrix", "device matrix"])
def test_device_output_is_the_host_output_left_on_the_device(on_device):
    w = uniform(10, 7)
    host = roma(w, "i,i+n/2", device=sequential())
    dev = sequential()
    m = roma(flat(dev, w) if on_device else w, "i,i+n/2", device=dev, output="device")
    assert isinstance(m, DeviceWeightedMatching) and type(m.mate).__name__ == "SimArray"
    assert np.array_equal(dev.to_host(m.mate), host.mate)
    assert math.isclose(m.weight, host.weight, rel_tol=1e-12) and m.size == 5 and m.algorithm == "roma"
    assert close(m.stats["phase_weights"], host.stats["phase_weights"]) and m.backend == "sim"
    assert m.valid and m.problem is None and np.array_equal(m.to_host().mate, host.mate)
    assert math.isclose(m.weight, fsum_weight(w, host.mate), rel_tol=1e-12)


def test_a_resident_call_copies_in_only_the_start_and_out_only_two_numbers_a_phase():
    w = uniform(10, 8)
    dev = sequential()
    weights = flat(dev, w)
    copies = watch(dev)
    m = roma(weights, "i,i+1", device=dev, output="device")
    assert [c for c in copies if c[0] == "in"] == [("in", 10)]         # the start matching
    outs = [entries for way, entries in copies if way == "out"]
    assert outs[0] == 3 and all(entries == 2 for entries in outs[1:])    # the check's minima, then [weight, flips]
    assert len(outs) == 1 + 1 + m.stats["phases"]
    assert m.valid                                                      # validation copies back, on demand
    assert ("out", 10) in copies and ("out", 100) in copies


def test_odd_n_is_padded_on_the_device():
    w = geometric(9, 3)
    host = roma(w, pad=True, threshold=0.0, device=sequential())
    dev = sequential()
    m = roma(flat(dev, w), pad=True, threshold=0.0, device=dev, output="device")
    mate = dev.to_host(m.mate)
    assert mate.size == 9 and np.array_equal(mate, host.mate) and (mate == -1).sum() == 1
    assert m.size == 4 == host.size and math.isclose(m.weight, host.weight, rel_tol=1e-12) and m.valid
    assert m.stats["launches"]["pad_matrix"] == 1 and m.stats["launches"]["unpadded_mate"] == 1
    resident = roma(flat(dev, w), pad=True, threshold=0.0, device=sequential())
    assert np.array_equal(resident.mate, host.mate) and resident.valid
    assert math.isclose(m.weight, fsum_weight(w, mate), rel_tol=1e-12)   # the dummy's edge weighs 0


@pytest.mark.parametrize("n", [0, 2])
def test_empty_and_tiny_device_matrices(n):
    dev = sequential()
    w = np.full((n, n), 3.0) - 3.0 * np.eye(n)
    m = roma(flat(dev, w), device=dev, output="device")
    assert dev.to_host(m.mate).tolist() == ([] if n == 0 else [1, 0]) and m.size == n // 2
    assert m.weight == 3.0 * (n // 2) and m.valid
    assert roma(flat(dev, w), device=dev).mate.tolist() == ([] if n == 0 else [1, 0])


def test_a_start_given_as_a_device_array_and_check_invariants():
    w = uniform(8, 9)
    dev = sequential()
    start = dev.array(np.array([7, 6, 5, 4, 3, 2, 1, 0], np.int32))
    found = roma(flat(dev, w), start, device=dev, threshold=0.0, check_invariants=True)
    expected = roma(w, [7, 6, 5, 4, 3, 2, 1, 0], threshold=0.0, device=sequential())
    assert np.array_equal(found.mate, expected.mate)
    assert math.isclose(found.stats["phase_weights"][0], fsum_weight(w, np.arange(8)[::-1]), rel_tol=1e-12)


def test_a_device_result_with_a_broken_mate_is_not_valid():
    w = uniform(6, 2)
    dev = sequential()
    m = roma(flat(dev, w), device=dev, output="device")
    m.mate.data[:2] = [2, 2]
    assert not m.valid and m.problem


def test_maximum_weight_matching_refuses_device_output_for_roma_and_still_runs_it_on_the_host():
    g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
    with pytest.raises(InvalidArgument, match=r"output='device' is offered by suitor, ld, bsuitor; 'roma' builds"):
        maximum_weight_matching(g, "roma", "sim", output="device")
    found = maximum_weight_matching(g, "roma", "sim", output="host")
    assert found.mate.tolist() == [-1, 2, 1, -1] and found.weight == 3.0 and found.valid


# -- bad input: one line each, the host path's words ------------------------------------------------------------


def host_message(w) -> str:
    with pytest.raises(InvalidArgument) as caught:
        roma(np.asarray(w), backend="sim")
    return str(caught.value)


BAD_MATRICES = {
    "asymmetric": ([[0, 1, 2, 3], [1, 0, 4, 5], [2, 4, 0, 6], [3, 7, 6, 0]],
                   "weights is not symmetric: weights[1, 3]=5.0 but weights[3, 1]=7.0"),
    "negative": ([[0, 1, 2, 3], [1, 0, -4, 5], [2, -4, 0, 6], [3, 5, 6, 0]],
                 "weights[1, 2]=-4.0 is negative: weights must be finite and >= 0"),
    "NaN": ([[0, 1, 2, 3], [1, 0, 4, 5], [2, 4, -1, np.nan], [3, 5, np.nan, 0]],
            "weights[2, 3]=nan is not finite: weights must be finite and >= 0"),
    "infinite diagonal": ([[0, 1, 2, 3], [1, np.inf, 4, -5], [2, 4, 0, 6], [3, -5, 6, 0]],
                          "weights[1, 1]=inf is not finite: weights must be finite and >= 0"),
}


@pytest.mark.parametrize("name", sorted(BAD_MATRICES))
def test_a_bad_entry_is_named_on_the_device_as_on_the_host(name):
    w, message = BAD_MATRICES[name]
    w = np.array(w, float)
    assert host_message(w) == message
    dev = sequential()
    with pytest.raises(InvalidArgument) as caught:
        roma(flat(dev, w), device=dev)
    assert str(caught.value) == message and "\n" not in message


BAD_CALLS = [
    ("not square", lambda d: roma(d.array(np.zeros(12)), device=d), InvalidArgument,
     "weights must be a square n x n matrix, or on a device its n * n entries flat; got 12 entries flat, "
     "which is no square"),
    ("float32", lambda d: roma(d.array(np.zeros(16, np.float32)), device=d), InvalidArgument,
     "weights has dtype float32; ROMA's kernels read float64 weights (convert on the device, e.g. "
     "weights.astype('float64'), or pass a host array)"),
    ("int32", lambda d: roma(d.array(np.zeros(4, np.int32)), device=d), InvalidArgument, "weights has dtype int32"),
    ("odd n without pad", lambda d: roma(flat(d, uniform(5, 0)), device=d), InvalidArgument,
     "weights is 5 x 5 with n odd: a complete graph has a perfect matching only for even n; pass pad=True to add "
     "a dummy vertex whose edges all weigh 0 (Hovland, MSc thesis 2020, §5.1)"),
    ("cpu backend", lambda d: roma(flat(d, uniform(4, 0)), backend="cpu"), InvalidArgument,
     "weights lives in sim memory, and backend='cpu' runs on the host: run roma on the device that holds the "
     "matrix (backend='auto'), or copy the matrix to the host first"),
    ("greedy start", lambda d: roma(flat(d, uniform(4, 0)), "greedy", device=d), InvalidArgument,
     "mate='greedy' builds the complete graph's edge list on the host, and the weights live on the device: start "
     "from 'i,i+1', 'i,i+n/2', 'shuffled' or a mate array"),
    ("gpa start", lambda d: roma(flat(d, uniform(4, 0)), "gpa", device=d), InvalidArgument, "mate='gpa' builds"),
    ("unknown start", lambda d: roma(flat(d, uniform(4, 0)), "best", device=d), InvalidArgument,
     "mate='best' is neither a matching array nor one of"),
    ("bad output", lambda d: roma(flat(d, uniform(4, 0)), device=d, output="disk"), InvalidArgument,
     "output='disk' is not one of ('host', 'device')"),
    ("negative threshold", lambda d: roma(flat(d, uniform(4, 0)), device=d, threshold=-1), InvalidArgument,
     "threshold=-1.0 must be finite and >= 0"),
    ("pad not a bool", lambda d: roma(flat(d, uniform(4, 0)), device=d, pad="yes"), InvalidArgumentType,
     "pad must be a bool"),
]


@pytest.mark.parametrize("what, call, error, message", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_bad_calls_are_refused_in_one_line(what, call, error, message):
    with pytest.raises(error) as caught:
        call(sequential())
    text = str(caught.value)
    assert text.startswith(message) and "\n" not in text


def test_the_memory_check_counts_only_what_a_device_matrix_needs_anew(monkeypatch):
    dev = sequential()
    even, odd = flat(dev, uniform(6, 1)), flat(dev, uniform(5, 1))
    monkeypatch.setattr(Device, "free_memory", lambda self: 200)
    with pytest.raises(InsufficientDeviceMemory, match=r"roma on sim needs 384 bytes .* only 200 bytes are free"):
        roma(uniform(6, 1), device=dev)                     # a host matrix: its device copy, 8 * 36 bytes, and more
    assert roma(even, device=dev).valid                      # already there: 16 bytes a vertex
    with pytest.raises(InsufficientDeviceMemory, match=r"roma on sim needs 384 bytes"):
        roma(odd, device=dev, pad=True)                      # the padded copy is new


# -- on a GPU (the device machine) ------------------------------------------------------------------------


class CudaArrayOnly:
    """Nothing but ``__cuda_array_interface__`` (as a third library's array would offer), holding its owner."""

    def __init__(self, owner):
        self.owner = owner
        self.__cuda_array_interface__ = owner.__cuda_array_interface__


def _gpu_inputs(gpu_backend: str, w: np.ndarray) -> dict:
    import cupy
    from numba import cuda

    return {"cupy 2-D": cupy.asarray(w), "cupy flat": cupy.asarray(w.ravel()), "numba 2-D": cuda.to_device(w),
            "interface only": CudaArrayOnly(cupy.asarray(w))}


@pytest.mark.gpu
@pytest.mark.parametrize("variant", ["block", "thread"])
@pytest.mark.parametrize("form", ["cupy 2-D", "cupy flat", "numba 2-D", "interface only"])
def test_gpu_arrays_are_taken_without_a_copy(gpu_backend, form, variant):
    w = exponential(64, 3)
    weights = _gpu_inputs(gpu_backend, w)[form]
    for output in ("host", "device"):
        found = roma(weights, "i,i+n/2", backend=gpu_backend, variant=variant, threshold=0.0, output=output)
        assert found.backend == gpu_backend
        mate = found.to_host().mate if output == "device" else found.mate
        if output == "device":
            assert type(found.mate).__module__.startswith("cupy" if gpu_backend == "cupy" else "numba")
        assert_perfect(mate, 64)
        assert positive_gain_swaps(w, mate, 0.0) == []
        weights_seen = found.stats["phase_weights"]
        assert math.isclose(weights_seen[0], fsum_weight(w, start_matching(64, "i,i+n/2")), rel_tol=1e-12)
        assert math.isclose(found.weight, fsum_weight(w, mate), rel_tol=1e-12) and found.valid
        assert all(b >= a - 1e-9 for a, b in zip(weights_seen, weights_seen[1:], strict=False))


@pytest.mark.gpu
def test_auto_runs_where_the_gpu_matrix_lives(gpu_backend):
    import cupy
    from numba import cuda

    w = uniform(16, 2)
    made = cupy.asarray(w) if gpu_backend == "cupy" else cuda.to_device(w)
    assert roma(made).backend == gpu_backend
    assert roma(CudaArrayOnly(cupy.asarray(w))).backend == "cupy"


@pytest.mark.gpu
def test_odd_gpu_matrices_are_padded_on_the_gpu(gpu_backend):
    import cupy

    w = geometric(33, 1)
    m = roma(cupy.asarray(w), pad=True, backend=gpu_backend, threshold=0.0, output="device")
    mate = m.to_host().mate
    assert mate.size == 33 and (mate == -1).sum() == 1 and m.size == 16 and m.valid
    assert math.isclose(m.weight, fsum_weight(w, mate), rel_tol=1e-12)


@pytest.mark.gpu
def test_bad_gpu_matrices_are_refused_on_the_gpu(gpu_backend):
    import cupy

    for w, message in BAD_MATRICES.values():
        with pytest.raises(InvalidArgument, match=re.escape(message)):
            roma(cupy.asarray(np.array(w, float)), backend=gpu_backend)
    big = uniform(300, 4)
    big[123, 201] += 1.0
    with pytest.raises(InvalidArgument, match=re.escape("weights is not symmetric: weights[123, 201]=")):
        roma(cupy.asarray(big), backend=gpu_backend)
    with pytest.raises(InvalidArgument, match=r"must be a square n x n matrix, got shape \(4, 5\)"):
        roma(cupy.zeros((4, 5)), backend=gpu_backend)
    with pytest.raises(InvalidArgument, match="weights has dtype float32"):
        roma(cupy.zeros((4, 4), cupy.float32), backend=gpu_backend)
    with pytest.raises(InvalidArgument, match=r"must be C-contiguous on the device .* strides \(8, 64\)"):
        roma(cupy.asfortranarray(cupy.asarray(uniform(8, 1))), backend=gpu_backend)
    with pytest.raises(InvalidArgument, match=r"weights lives in cupy memory, which backend 'sim' cannot use"):
        roma(cupy.asarray(uniform(4, 1)), backend="sim")
    with pytest.raises(InvalidArgument, match="backend='cpu' runs on the host"):
        roma(cupy.asarray(uniform(4, 1)), backend="cpu")
