"""The numba backend's launch path (backends/numba.py, NumbaLaunch): the one overload of a signed kernel launched
directly, the dispatcher's own launch otherwise; on a GPU, the same results as ``dispatcher[grid, block](*args)``."""

from __future__ import annotations

import numpy as np
import pytest

from gpusim import Device, T, kernel
from gpusim.backends.numba import NumbaLaunch


class _Kernel:
    def __init__(self):
        self.calls = []

    def launch(self, args, griddim, blockdim, stream=0, sharedmem=0):
        self.calls.append((args, griddim, blockdim, stream, sharedmem))


class _Configured:
    def __init__(self, dispatcher, configuration):
        self.dispatcher, self.configuration, self.stream = dispatcher, configuration, "the stream"

    def __call__(self, *args):
        self.dispatcher.configured_calls.append((self.configuration, args))


class _Dispatcher:
    def __init__(self, n_overloads: int):
        self.overloads = {f"sig{i}": _Kernel() for i in range(n_overloads)}
        self.configured_calls = []

    def configure(self, grid, block):
        return _Configured(self, (grid, block))

    def __getitem__(self, configuration):
        return _Configured(self, configuration)


def test_the_one_overload_is_launched_directly_with_the_configured_stream():
    dispatcher = _Dispatcher(1)
    launch = NumbaLaunch(dispatcher)
    launch(3, 64, ("a", 5))
    launch(1, 32, ("b", 6))
    (only,) = dispatcher.overloads.values()
    assert only.calls == [(("a", 5), (3, 1, 1), (64, 1, 1), "the stream", 0),
                          (("b", 6), (1, 1, 1), (32, 1, 1), "the stream", 0)]
    assert dispatcher.configured_calls == []


@pytest.mark.parametrize("n_overloads", [0, 2])
def test_otherwise_the_dispatcher_launches(n_overloads):
    dispatcher = _Dispatcher(n_overloads)
    launch = NumbaLaunch(dispatcher)
    launch(2, 32, ("a",))
    assert dispatcher.configured_calls == [((2, 32), ("a",))]
    assert all(not k.calls for k in dispatcher.overloads.values())


def test_indexing_is_the_dispatchers_configured_launch():
    dispatcher = _Dispatcher(1)
    NumbaLaunch(dispatcher)[4, 128]("x")
    assert dispatcher.configured_calls == [((4, 128), ("x",))]


@kernel(signature="int32[:], float64[:], int32, float64")
def k_launch_probe(out, values, n, scale):
    i = T.gtid()
    while i < n:
        out[i] = out[i] + i
        values[i] = values[i] * scale
        i += T.num_threads()


@pytest.mark.gpu
def test_on_the_gpu_the_direct_launch_matches_the_dispatcher():
    from gpusim.backends import gpu_status

    available, why = gpu_status("numba")
    if not available:
        pytest.skip(f"numba unavailable: {why}")
    dev = Device("numba")
    n = 1000
    out, values = dev.zeros(n, np.int32), dev.array(np.linspace(0, 1, n))
    args = (out, values, np.int32(n), np.float64(2.5))
    compiled = dev._impl.compiled(k_launch_probe, dev._impl.signature(args))
    assert isinstance(compiled, NumbaLaunch) and compiled.kernel is not None
    dev.launch(k_launch_probe, 3, 128, args)          # direct
    compiled[3, 128](*args)                           # numba's dispatcher
    dev.synchronize()
    np.testing.assert_array_equal(dev.to_host(out), 2 * np.arange(n, dtype=np.int32))
    np.testing.assert_allclose(dev.to_host(values), np.linspace(0, 1, n) * 6.25)
