"""The kernels of ``test_headless_compile``, launched on every backend and checked against NumPy.

Each case runs on the ``backend`` fixture (the simulator everywhere; numba and CuPy, marked
``gpu``, where a GPU works).  On the GPU backends the deterministic kernels must also give
results identical, bit for bit, to the simulator's; the racing atomics are checked by their
invariants instead.  Then: compiled kernels are cached, ``Device("auto")`` picks a GPU, and bad
launches fail clearly.  ``scripts/gpu-check`` runs the ``gpu`` tests on the device machine.
"""

from __future__ import annotations

import gc
import importlib.util
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from gpusim import Device, T, kernel
from gpusim.errors import InvalidArgument, InvalidArgumentType, KernelSyntaxError
from gpusim.runtime.launcher import fill


def _kernels_module():
    try:
        import test_headless_compile as module  # pytest's default import mode puts tests/ on sys.path
    except ImportError:
        path = Path(__file__).with_name("test_headless_compile.py")
        spec = importlib.util.spec_from_file_location("test_headless_compile", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["test_headless_compile"] = module
        spec.loader.exec_module(module)
    return module


K = _kernels_module()
BLOCK = K.BLOCK


# -- the cases: each launches on a Device and returns its outputs as NumPy arrays -----------------


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(sum(map(ord, name)))


def run_indices(dev):
    grid, block = 3, 64
    n = grid * block
    out = dev.full(9 * n, -1, np.int32)
    dev.launch(K.k_indices, grid, block, (out, np.int32(n)))
    return (dev.to_host(out),)


def expect_indices():
    grid, block = 3, 64
    g = np.arange(grid * block)
    t, b = g % block, g // block
    rows = [t, b, np.full_like(g, block), np.full_like(g, grid), g, np.full_like(g, grid * block), t % 32,
            t // 32, np.full_like(g, 32)]
    return (np.stack(rows, axis=1).ravel().astype(np.int32),)


def _six_arrays(rng: np.random.Generator, n: int, small: bool):
    if small:  # sums of four stay exact and in range everywhere
        return [
            rng.integers(-10**8, 10**8, n).astype(np.int32),
            rng.integers(-2**60, 2**60, n, dtype=np.int64),
            rng.integers(0, 10**9, n).astype(np.uint32),
            rng.integers(0, 2**60, n, dtype=np.uint64),
            (rng.integers(-4000, 4000, n) / 4).astype(np.float32),
            rng.integers(-2**40, 2**40, n) / 4.0,
        ]
    return [
        rng.integers(-2**31, 2**31, n).astype(np.int32),
        rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64),
        rng.integers(0, 2**32, n).astype(np.uint32),
        rng.integers(0, 2**64 - 1, n, dtype=np.uint64),
        rng.standard_normal(n).astype(np.float32),
        rng.standard_normal(n),
    ]


def run_shared_reverse(dev):
    xs = [dev.array(x) for x in _six_arrays(_rng("shared"), 3 * BLOCK, small=False)]
    dev.launch(K.k_shared_reverse, 3, BLOCK, tuple(xs))
    return tuple(dev.to_host(x) for x in xs)


def expect_shared_reverse():
    return tuple(x.reshape(3, BLOCK)[:, ::-1].ravel() for x in _six_arrays(_rng("shared"), 3 * BLOCK, small=False))


def run_local_sums(dev):
    xs = [dev.array(x) for x in _six_arrays(_rng("local"), 100, small=True)]
    dev.launch(K.k_local_sums, 2, 64, (*xs, np.int32(100)))
    return tuple(dev.to_host(x) for x in xs)


def expect_local_sums():
    return tuple((4 * x + x.dtype.type(6)).astype(x.dtype) for x in _six_arrays(_rng("local"), 100, small=True))


def _shuffle_inputs():
    rng = _rng("shuffles")
    n = 128
    return [
        rng.integers(-2**31, 2**31, n).astype(np.int32),
        rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64),
        rng.standard_normal(n).astype(np.float32),
        rng.standard_normal(n),
    ]


def run_shuffles(dev):
    xs = [dev.array(x) for x in _shuffle_inputs()]
    outs = [dev.zeros(4 * 128, x.dtype) for x in _shuffle_inputs()]
    dev.launch(K.k_shuffles, 2, 64, (*xs, *outs))
    return tuple(dev.to_host(o) for o in outs)


def expect_shuffles():
    lane = np.arange(32)
    sources = [np.where(lane + 1 < 32, lane + 1, lane), np.where(lane >= 3, lane - 3, lane), lane ^ 5, lane * 7 % 32]
    results = []
    for x in _shuffle_inputs():
        warps = x.reshape(-1, 32)
        results.append(np.stack([warps[:, s] for s in sources], axis=2).ravel())
    return tuple(results)


def _reduction_inputs():
    """Integers whose sums do not wrap; float32 values whose sums are exact (the simulator keeps registers as
    Python floats, float32 rounds on stores only); float64 values whose sum depends on the order of additions."""
    rng = _rng("reductions")
    n = 128
    return [
        rng.integers(-2**24, 2**24, n).astype(np.int32),
        rng.integers(-2**56, 2**56, n, dtype=np.int64),
        (rng.integers(-2**12, 2**12, n) / 8).astype(np.float32),
        rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n),
    ]


def run_reductions(dev):
    xs = [dev.array(x) for x in _reduction_inputs()]
    outs = [dev.zeros(6 * 128, x.dtype) for x in _reduction_inputs()]
    dev.launch(K.k_reductions, 2, 64, (*xs, *outs))
    return tuple(dev.to_host(o) for o in outs)


def expect_reductions():
    """The butterfly in NumPy, in the operand's type: floats added in the order of shfl_xor 16, 8, 4, 2, 1."""
    lane = np.arange(32)
    results = []
    for x in _reduction_inputs():
        columns = []
        for combine in (np.add, np.maximum, np.minimum):
            warps = x.reshape(-1, 32)
            for offset in (16, 8, 4, 2, 1):
                warps = combine(warps, warps[:, lane ^ offset])
            columns.append(warps.ravel())
        results.append(np.stack(columns * 2, axis=1).ravel())
    return tuple(results)


def _vote_inputs():
    rng = _rng("votes")
    return np.concatenate([
        rng.integers(1, 5, 32), rng.integers(-3, 1, 32), rng.integers(-1, 2, 32), np.r_[2, np.ones(31, int)],
    ]).astype(np.int32)


def run_votes(dev):
    x = dev.array(_vote_inputs())
    ballots, flags = dev.zeros(128, np.uint32), dev.zeros(256, np.int32)
    dev.launch(K.k_votes, 2, 64, (x, ballots, flags))
    return dev.to_host(ballots), dev.to_host(flags)


def expect_votes():
    warps = _vote_inputs().reshape(-1, 32)
    bits = ((warps > 0).astype(np.uint64) << np.arange(32, dtype=np.uint64)).sum(axis=1).astype(np.uint32)
    ballots = np.repeat(bits, 32)
    flags = np.stack([np.repeat((warps > 1).any(axis=1), 32), np.repeat((warps > 0).all(axis=1), 32)], axis=1)
    return ballots, flags.ravel().astype(np.int32)


def _cast_inputs():
    rng = _rng("casts")
    n = 64
    xi64 = rng.integers(-2**52, 2**52, n, dtype=np.int64)
    xi64[:8] = [0, -1, 2**31, 2**32 + 5, -2**31 - 1, 2**40 + 3, -(2**33), 123456789]
    xf64 = rng.uniform(-1000, 1000, n)
    xf64[:6] = [0.0, -0.5, 0.5, -1.75, 999.999, -999.999]
    return xi64, xf64


def run_casts(dev):
    xi64, xf64 = _cast_inputs()
    outs = [dev.zeros(3 * 64, d) for d in (np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64)]
    dev.launch(K.k_casts, 1, 64, (dev.array(xi64), dev.array(xf64), *outs, np.int32(64)))
    return tuple(dev.to_host(o) for o in outs)


def expect_casts():
    xi64, xf64 = _cast_inputs()
    n = len(xi64)

    def rows(a, b, constant, dtype):
        return np.stack([a, b, np.full(n, constant, dtype=dtype)], axis=1).ravel()

    return (
        rows(xi64.astype(np.int32), xf64.astype(np.int32), -1, np.int32),
        rows(xf64.astype(np.int64), xi64.astype(np.uint32).astype(np.int64), 1, np.int64),
        rows(xi64.astype(np.uint32), xf64.astype(np.int32).astype(np.uint32), 2**32 - 1, np.uint32),
        rows(xi64.astype(np.uint64), xf64.astype(np.int64).astype(np.uint64), 2**64 - 2, np.uint64),
        rows(xf64.astype(np.float32), xi64.astype(np.float32), np.float32(0.1), np.float32),
        rows(xi64.astype(np.float64), xf64.astype(np.float32).astype(np.float64), -7.0, np.float64),
    )


def _loop_inputs():
    return _rng("loops").integers(1, 1000, 100).astype(np.int32)


def run_helpers_loops(dev):
    x = dev.array(_loop_inputs())
    out = dev.full(200, -1, np.int64)
    dev.launch(K.k_helpers_loops, 2, 64, (x, out, np.int32(100)))
    return (dev.to_host(out),)


def expect_helpers_loops():
    def collatz(v):
        steps = 0
        while v != 1 and steps < 1000:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            steps += 1
        return steps

    out = []
    for v in _loop_inputs().tolist():
        out += [sum(v * v + k * k for k in range(8) if k != 3), collatz(v + 1)]
    return (np.array(out, dtype=np.int64),)


def run_message(dev):
    data, flag, out = dev.zeros(1, np.int32), dev.zeros(1, np.int32), dev.full(1, -1, np.int32)
    dev.launch(K.k_message, 2, 32, (data, flag, out))
    return dev.to_host(out), dev.to_host(flag)


def expect_message():
    return np.array([42], np.int32), np.array([1], np.int32)


#: name -> (run on a Device, NumPy's expected outputs); all deterministic on every backend.
DETERMINISTIC = {
    "indices": (run_indices, expect_indices),
    "shared_reverse": (run_shared_reverse, expect_shared_reverse),
    "local_sums": (run_local_sums, expect_local_sums),
    "shuffles": (run_shuffles, expect_shuffles),
    "reductions": (run_reductions, expect_reductions),
    "votes": (run_votes, expect_votes),
    "casts": (run_casts, expect_casts),
    "helpers_loops": (run_helpers_loops, expect_helpers_loops),
    "message": (run_message, expect_message),
}


def _device(backend: str) -> Device:
    return Device("sim", seed=0) if backend == "sim" else Device(backend)


def _assert_same(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e, strict=True)


@pytest.mark.parametrize("case", sorted(DETERMINISTIC))
def test_kernel_matches_numpy(backend, case):
    run, expect = DETERMINISTIC[case]
    _assert_same(run(_device(backend)), expect())


# -- atomics race: check what every interleaving guarantees ------------------------------------------


@pytest.mark.parametrize("dtype", K.INT_ATOMIC_DTYPES)
def test_integer_atomics(backend, dtype):
    dev = _device(backend)
    n = 256 if backend != "sim" else 64
    a = dev.array(np.array([0, 1000, 0, 0, 0, 77, 0, 0], dtype=dtype))
    olds = dev.full(6 * n, 12345, dtype)
    dev.launch(K.k_atomics_int, n // 64, 64, (a, olds, np.int32(n)))
    a, olds = dev.to_host(a).astype(np.int64), dev.to_host(olds).astype(np.int64).reshape(6, n)
    added, mins, maxs, swapped, cased, loaded = olds
    assert a[0] == n and sorted(added) == list(range(n))
    assert a[1] == 5 and (mins >= 5).all() and (mins == 1000).sum() == 1
    assert a[2] == n - 1 and (maxs <= n - 1).all() and (maxs == 0).sum() >= 1
    assert sorted([*swapped, a[3]]) == list(range(n + 1))
    winner = np.flatnonzero(cased == 0)
    assert len(winner) == 1 and a[4] == winner[0] + 1 and (np.delete(cased, winner) == a[4]).all()
    assert a[5] == 77 and (loaded == 77).all()


@pytest.mark.parametrize("dtype", K.FLOAT_ATOMIC_DTYPES)
def test_float_atomics(backend, dtype):
    dev = _device(backend)
    n = 256 if backend != "sim" else 64
    a = dev.array(np.array([0.0, 1e9, -1e9], dtype=dtype))
    olds = dev.zeros(3 * n, dtype)
    dev.launch(K.k_atomics_float, n // 64, 64, (a, olds, np.int32(n)))
    a, olds = dev.to_host(a), dev.to_host(olds).reshape(3, n)
    assert a[0] == n and sorted(olds[0]) == list(range(n))
    assert a[1] == 0.0 and (olds[1] == 1e9).sum() == 1 and (olds[1] >= 0).all()
    assert a[2] == (n - 1) / 4 and (olds[2] == -1e9).sum() == 1 and (olds[2] <= (n - 1) / 4).all()


# -- the GPU backends against the simulator ------------------------------------------------------------


@pytest.fixture(params=[pytest.param("numba", marks=pytest.mark.gpu), pytest.param("cupy", marks=pytest.mark.gpu)])
def gpu(request) -> str:
    """A GPU backend that works here; skips otherwise."""
    from gpusim.backends import gpu_status

    ok, why = gpu_status(request.param)
    if not ok:
        pytest.skip(f"{request.param} unavailable: {why}")
    return request.param


_SIM_RESULTS: dict[str, tuple] = {}


@pytest.mark.parametrize("case", sorted(DETERMINISTIC))
def test_deterministic_kernels_equal_the_simulator(gpu, case):
    run, _ = DETERMINISTIC[case]
    if case not in _SIM_RESULTS:
        _SIM_RESULTS[case] = run(Device("sim", seed=0))
    _assert_same(run(Device(gpu)), _SIM_RESULTS[case])


@kernel
def k_cache_probe(out, n):
    """Launched by the caching test only, so its first launch on each backend compiles it."""
    i = T.gtid()
    if i < n:
        out[i] = out[i] + 1


def test_compiled_kernels_are_cached(gpu):
    dev = Device(gpu)
    backend = dev._impl
    out = dev.zeros(64, np.int32)
    before = backend.compile_count
    dev.launch(k_cache_probe, 1, 64, (out, np.int32(64)))
    assert backend.compile_count == before + 1
    for grid in (1, 2):  # same argument types, other launch shapes: no recompilation
        dev.launch(k_cache_probe, grid, 64, (out, np.int32(64)))
    assert Device(gpu)._impl.compile_count == before + 1  # the cache is the process's, not the Device's
    Device(gpu).launch(k_cache_probe, 1, 64, (out, np.int32(64)))
    assert backend.compile_count == before + 1
    np.testing.assert_array_equal(dev.to_host(out), np.full(64, 4, np.int32))
    wide = dev.zeros(64, np.int64)
    dev.launch(k_cache_probe, 1, 64, (wide, np.int32(64)))  # new argument types: compiled once more
    dev.launch(k_cache_probe, 1, 64, (wide, np.int32(64)))
    assert backend.compile_count == before + 2
    assert dev.to_host(wide).tolist() == [2] * 64


def test_auto_picks_a_gpu_backend(gpu):
    dev = Device("auto")
    assert dev.backend in ("numba", "cupy")
    assert dev.reason.startswith(f"auto: {dev.backend} works")


def test_device_arrays_round_trip(gpu):
    dev = Device(gpu)
    for dtype in (np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64):
        host = np.arange(5, dtype=dtype)
        np.testing.assert_array_equal(dev.to_host(dev.array(host)), host, strict=True)
        np.testing.assert_array_equal(dev.to_host(dev.full(3, 7, dtype)), np.full(3, 7, dtype), strict=True)
    assert dev.to_host(dev.zeros(0, np.int32)).shape == (0,)


@pytest.mark.parametrize("dtype, value", [
    (np.int32, 0), (np.int32, -1), (np.int32, 7), (np.int32, -123456), (np.uint32, 2**32 - 1), (np.float32, 2.5),
    (np.int64, 5), (np.int64, -1), (np.uint64, 2**40 + 3), (np.float64, 1.5), (np.float64, 0.0)])
def test_full_fills_every_item_by_whatever_path(backend, dtype, value):
    """One repeated byte (a byte memset), a 4-byte item (the driver's 32-bit memset on a GPU), any other 8-byte
    value (a fill kernel): every item set, on every backend, at lengths around the memsets' granularity."""
    dev = Device(backend)
    for n in (1, 3, 1000, 4099):
        np.testing.assert_array_equal(dev.to_host(dev.full(n, value, dtype)), np.full(n, value, dtype), strict=True)


@pytest.mark.parametrize(("dtype", "value"), [(np.int32, -1), (np.int32, 7), (np.float64, 2.5),
                                              (np.int64, np.iinfo(np.int64).max), (np.uint32, 0)])
def test_fill_sets_every_item_in_place(backend, dtype, value):
    """``Device.fill``: the same array, every item set (a memset or a fill kernel, as ``full``); one-line refusals."""
    dev = Device(backend)
    for n in (1, 3, 4099):
        array = dev.full(n, 5, dtype)
        dev.fill(array, value)
        np.testing.assert_array_equal(dev.to_host(array), np.full(n, value, dtype), strict=True)
    with pytest.raises(InvalidArgumentType, match="fill expects an array of this"):
        dev.fill(np.zeros(3, np.int32), 1)
    with pytest.raises(InvalidArgumentType, match="value must be a real number"):
        dev.fill(dev.zeros(3, np.int32), 1j)


def test_empty_gives_arrays_a_kernel_can_fill(backend):
    dev = Device(backend)
    for dtype in (np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64):
        a = dev.empty(5, dtype)
        assert a.shape == (5,) and np.dtype(a.dtype) == np.dtype(dtype)
    a = dev.empty(70, np.int32)
    dev.launch(fill, 3, 32, (a, 4, 70))
    assert dev.to_host(a).tolist() == [4] * 70 and dev.to_host(dev.empty(0, np.float64)).shape == (0,)


def test_empty_is_poison_on_the_simulator():
    """So that a kernel reading an item of an ``empty`` array before writing it goes wrong in the tests."""
    dev = Device("sim")
    assert dev.to_host(dev.empty(2, np.int64)).tolist() == [np.iinfo(np.int64).min] * 2
    assert dev.to_host(dev.empty(2, np.uint32)).tolist() == [np.iinfo(np.uint32).max] * 2
    assert np.isnan(dev.to_host(dev.empty(3, np.float32))).all()


def test_large_copies_through_registered_pages(gpu):
    """Arrays of REGISTER_BYTES or more are copied from page-locked pages, which stay locked for the next copy of
    the same array: the values arrive whole (read-only and strided arrays too), a second copy locks nothing, the
    pages are unlocked once the array is collected or KEPT_ARRAYS newer ones push it out, and memory the caller
    registered is copied as it is."""
    from gpusim.backends.gpu import KEPT_PAGES, REGISTER_BYTES
    from gpusim.backends.kept_pages import KEPT_ARRAYS

    dev = Device(gpu)
    rng = np.random.default_rng(3)
    host = rng.integers(-(2**31), 2**31 - 1, REGISTER_BYTES // 4 + 12345, dtype=np.int32)
    frozen = host.copy()
    frozen.flags.writeable = False
    for given in (host, frozen, rng.random(REGISTER_BYTES // 4), host[::2]):
        np.testing.assert_array_equal(dev.to_host(dev.array(given)), given, strict=True)
    assert dev._impl.register(host) is None, "host's pages were unlocked after its copy"
    np.testing.assert_array_equal(dev.to_host(dev.array(host)), host, strict=True)
    temp = rng.random(REGISTER_BYTES // 8)
    dev.array(temp)
    key = (temp.ctypes.data, temp.nbytes)
    assert key in KEPT_PAGES._kept
    del temp
    gc.collect()
    assert key in [gone for gone, _ in KEPT_PAGES._gone], "its finaliser did not run (so its pages stay locked)"
    newer = [np.full(REGISTER_BYTES // 4, q, np.int32) for q in range(KEPT_ARRAYS)]
    for array in newer:
        dev.array(array)
    unlock = dev._impl.register(host)
    assert unlock is not None, "host's pages stayed locked after newer arrays pushed them out"
    try:
        assert dev._impl.register(host) is None  # already registered: refused, and the copy is made as it is
        np.testing.assert_array_equal(dev.to_host(dev.array(host)), host, strict=True)
    finally:
        unlock()


def test_kept_pages_push_out_the_oldest_and_unlock_what_they_do_not_keep(monkeypatch):
    """The registrations kept (no GPU: a stand-in driver): the oldest pushed out past KEPT_ARRAYS, an array above
    KEPT_BYTES unlocked right after its copy, a copy that fails unlocks, a refused registration copies pageable."""
    from gpusim.backends import kept_pages

    locked, copies = set(), []

    def register(host):
        address = host.ctypes.data  # the unlocking function must not hold the array
        if address in locked:
            return None
        locked.add(address)
        return lambda: locked.discard(address)

    def copy_in(host, registered):
        copies.append(registered)
        if host.size == 3:
            raise RuntimeError("copy failed")
        return host.copy()

    monkeypatch.setattr(kept_pages, "KEPT_ARRAYS", 2)
    monkeypatch.setattr(kept_pages, "KEPT_BYTES", 1000)
    pages = kept_pages.KeptPages()
    arrays = [np.zeros(10) for _ in range(3)]
    for array in arrays:
        pages.copy(array, register, copy_in)
    assert locked == {arrays[1].ctypes.data, arrays[2].ctypes.data}
    big = np.zeros(200)  # 1600 bytes
    pages.copy(big, register, copy_in)
    assert big.ctypes.data not in locked and copies[-1] is True
    with pytest.raises(RuntimeError, match="copy failed"):
        pages.copy(np.zeros(3), register, copy_in)
    assert len(locked) == 2
    locked.add(arrays[0].ctypes.data)  # registered by the caller: the driver refuses
    pages.copy(arrays[0], register, copy_in)
    assert copies[-1] is False
    temp = np.ones(10)
    pages.copy(temp, register, copy_in)
    address = temp.ctypes.data
    del temp
    gc.collect()
    assert address not in locked  # unlocked when collected, and forgotten by the next copy
    pages.copy(arrays[1], register, copy_in)
    assert [key[0] for key in pages._kept] == [arrays[2].ctypes.data, arrays[1].ctypes.data]  # temp forgotten
    assert pages._bytes == 160


@pytest.mark.gpu
def test_numba_arrays_come_from_gpusims_pool():
    """The numba backend makes its arrays in gpusim's stream-ordered pool, without changing numba's memory manager:
    values are right, memory freed is reused (the pool does not grow over repeated calls), the pool's unused bytes
    count as free, and the results of an algorithm are those of SciPy."""
    from numba import cuda
    from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_matching

    from gpusim.algorithms.bipartite import maximum_bipartite_matching
    from gpusim.backends import gpu_status
    from gpusim.backends.numba_memory import DevicePool
    from gpusim.types.generators import uniform_random

    ok, why = gpu_status("numba")
    if not ok:
        pytest.skip(f"numba unavailable: {why}")
    dev = Device("numba")
    pool = dev._impl.pool()
    assert isinstance(pool, DevicePool), "an H100 or H200 has stream-ordered pools"
    assert type(cuda.current_context().memory_manager).__name__ != "StreamOrderedMemoryManager"
    a = dev.full(1000, 7, np.int64)
    assert a.gpu_data.device_pointer is not None and a.gpu_data.size == 8000
    np.testing.assert_array_equal(dev.to_host(a), np.full(1000, 7, np.int64), strict=True)
    host = np.arange(12345, dtype=np.float64)
    np.testing.assert_array_equal(dev.to_host(dev.array(host)), host, strict=True)
    graph = uniform_random(300, 300, 1500, seed=1)
    expected = int((scipy_matching(graph.to_scipy().tocsr(), perm_type="column") >= 0).sum())
    sizes = []
    for _ in range(5):
        result = maximum_bipartite_matching(graph, "apfb", device=dev)
        assert result.valid and result.certified
        sizes.append(result.size)
    dev.synchronize()
    reserved = pool.reserved_bytes
    for _ in range(20):
        sizes.append(maximum_bipartite_matching(graph, "apfb", device=dev).size)
    dev.synchronize()
    assert sizes == [expected] * 25
    assert pool.reserved_bytes == reserved, "20 more calls took new memory instead of reusing what was freed"
    assert 0 < pool.free_bytes <= pool.reserved_bytes <= dev.free_memory() + pool.reserved_bytes
    del a, result
    gc.collect()
    dev.synchronize()
    pool.trim()  # nothing in use: what the pool kept goes back to the device
    assert pool.reserved_bytes < reserved
    np.testing.assert_array_equal(dev.to_host(dev.full(1000, 7, np.int64)), np.full(1000, 7, np.int64), strict=True)


@pytest.mark.gpu
def test_numba_on_the_stream_ordered_allocator(tmp_path):
    """``NUMBA_CUDA_MEMORY_MANAGER=gpusim.backends.numba_memory`` (a process of its own: numba's memory manager is
    the process's) runs APFB on numba from the driver's pool, with SciPy's matching size and a certified result,
    many allocations and frees over."""
    import subprocess

    from gpusim.backends import gpu_status

    ok, why = gpu_status("numba")
    if not ok:
        pytest.skip(f"numba unavailable: {why}")
    script = (
        "from numba import cuda\n"
        "from gpusim.algorithms.bipartite import maximum_bipartite_matching\n"
        "from gpusim.types.generators import uniform_random\n"
        "g = uniform_random(300, 300, 1500, seed=1)\n"
        "sizes = {maximum_bipartite_matching(g, 'apfb', 'numba').size for _ in range(20)}\n"
        "r = maximum_bipartite_matching(g, 'apfb', 'numba')\n"
        "print(type(cuda.current_context().memory_manager).__name__, sizes, r.valid, r.certified)\n")
    env = {**os.environ, "NUMBA_CUDA_MEMORY_MANAGER": "gpusim.backends.numba_memory"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)  # not the checkout: gpusim imported as installed
    assert done.returncode == 0, done.stderr[-2000:]
    from scipy.sparse.csgraph import maximum_bipartite_matching

    from gpusim.types.generators import uniform_random

    expected = int((maximum_bipartite_matching(uniform_random(300, 300, 1500, seed=1).to_scipy().tocsr(),
                                               perm_type="column") >= 0).sum())
    assert done.stdout.split() == ["StreamOrderedMemoryManager", f"{{{expected}}}", "True", "True"]


def test_bad_launches_fail_clearly(gpu):
    dev = Device(gpu)
    out = dev.zeros(9 * 64, np.int32)
    with pytest.raises(InvalidArgumentType, match="array of int64, but the signature says int32"):
        dev.launch(K.k_indices, 1, 64, (dev.zeros(4, np.int64), np.int32(4)))
    with pytest.raises(InvalidArgumentType, match="copy it to the device first"):
        dev.launch(K.k_indices, 1, 64, (np.zeros(4, np.int32), np.int32(4)))
    with pytest.raises(InvalidArgument, match="exceeds the 1024 threads"):
        dev.launch(K.k_indices, 1, 2048, (out, np.int32(64)))
    with pytest.raises(InvalidArgument, match=f"launching kernel 'k_indices' on {gpu} with grid=2147483648"):
        dev.launch(K.k_indices, 2**31, 32, (out, np.int32(64)))
    # shuffles carry i32/i64/f32/f64 only: the compiler's refusal names the kernel and its file
    with pytest.raises(KernelSyntaxError, match=r"kernel 'k_unsigned' \(.*test_headless_compile.py:\d+\)"):
        dev.launch(K.k_unsigned, 1, 32, (dev.zeros(32, np.uint32), np.int32(32)))
    # the device still works after those
    dev.launch(K.k_indices, 1, 64, (out, np.int32(64)))
    assert dev.to_host(out)[9 * 33: 9 * 34].tolist() == [33, 0, 64, 1, 33, 64, 1, 1, 32]
    with pytest.raises(InvalidArgumentType, match="expects an array of this"):
        dev.to_host(np.zeros(3))
