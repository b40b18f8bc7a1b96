"""The numba backend's launch path (backends/numba.py, NumbaLaunch): the one overload of a signed kernel launched
with its arguments packed as numba's kernel ABI lays them out (or by the overload's own launch), the dispatcher's
own launch otherwise; on a GPU, the same results as ``dispatcher[grid, block](*args)``."""

from __future__ import annotations

import ctypes

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


class _DeviceArray:
    """What the packed launch reads of a numba device array."""

    def __init__(self, pointer: int, n: int, dtype):
        self.shape, self.dtype, self.strides = (n,), np.dtype(dtype), (np.dtype(dtype).itemsize,)
        self.device_ctypes_pointer = ctypes.c_void_p(pointer)


class _CompiledKernel:
    """A compiled numba ``_Kernel`` as the packed launch sees it: argument types, flags, the function to launch."""

    def __init__(self, argument_types, **flags):
        self.argument_types = argument_types
        self.debug, self.cooperative, self.extensions = flags.get("debug", False), False, flags.get("extensions", [])
        self._codelibrary = self
        self.handle = 0xF00
        self.lookups = 0

    def get_cufunc(self):
        self.lookups += 1
        return self

    def launch(self, *call):
        raise AssertionError("the packed launch should not call the kernel's own launch")


class _Driver:
    """``cuda.bindings.driver`` as the packed launch asks it: which context is current, handles, launches (each
    launch's parameters read back as the driver reads them: through the array of their addresses)."""

    class CUresult:
        CUDA_SUCCESS = 0

    CUstream = CUfunction = staticmethod(lambda handle: ("handle", handle))

    def __init__(self, answer: int = 0):
        self.context, self.answer, self.launches = 77, answer, []

    def cuCtxGetCurrent(self):
        return 0, self.context

    def cuGetErrorName(self, error):
        return 0, b"CUDA_ERROR_INVALID_VALUE"

    def cuLaunchKernel(self, function, gx, gy, gz, bx, by, bz, shared, stream, pointer, extra):
        slots = (ctypes.c_void_p * 17).from_address(pointer)
        raw = [ctypes.string_at(slots[i], 8) for i in range(17)]
        self.launches.append((function, (gx, gy, gz), (bx, by, bz), shared, stream, extra, raw))
        return (self.answer,)


def _kernel_of_five(monkeypatch, driver):
    types = pytest.importorskip("numba.cuda").types
    monkeypatch.setattr("gpusim.backends.numba.driver_bindings", lambda: driver)
    kernel_object = _CompiledKernel((types.Array(types.int32, 1, "C"), types.int32, types.Array(types.float64, 1, "C"),
                                     types.float64, types.uint64))
    dispatcher = _Dispatcher(0)
    dispatcher.overloads = {"sig": kernel_object}
    stream = type("Stream", (), {"__cuda_stream__": lambda self: (0, 0x5EA)})()
    dispatcher.configure = lambda grid, block: type("Configured", (), {"stream": stream})()
    args = (_DeviceArray(4096, 10, np.int32), np.int32(7), _DeviceArray(8192, 3, np.float64), np.float64(2.5),
            np.uint64(2**40))
    return NumbaLaunch(dispatcher), kernel_object, args


def test_signed_arguments_are_packed_as_numbas_kernel_abi_lays_them_out(monkeypatch):
    """An array as (meminfo 0, parent 0, items, itemsize, pointer, shape, stride); a scalar as its value
    (numba-cuda's ``_Kernel._prepare_args``), each where the driver reads it; the loaded kernel looked up once per
    CUDA context; the stream numba's configuration names."""
    driver = _Driver()
    launch, kernel_object, args = _kernel_of_five(monkeypatch, driver)
    launch(5, 64, args)
    launch(5, 64, args[:1] + (np.int32(-3),) + args[2:])
    function, grid, block, shared, stream, extra, raw = driver.launches[0]
    assert (function, grid, block, shared, stream, extra) == (("handle", 0xF00), (5, 1, 1), (64, 1, 1), 0,
                                                             ("handle", 0x5EA), 0)
    words = [int.from_bytes(r, "little", signed=True) for r in raw]
    assert words[:7] == [0, 0, 10, 4, 4096, 10, 4] and words[8:15] == [0, 0, 3, 8, 8192, 3, 8]
    assert int.from_bytes(raw[7][:4], "little", signed=True) == 7
    assert np.frombuffer(raw[15], np.float64)[0] == 2.5 and np.frombuffer(raw[16], np.uint64)[0] == 2**40
    assert int.from_bytes(driver.launches[1][-1][7][:4], "little", signed=True) == -3
    assert kernel_object.lookups == 1
    driver.context = 78
    launch(5, 64, args)
    assert kernel_object.lookups == 2 and len(driver.launches) == 3


def test_a_launch_the_driver_refuses_raises_its_error_name(monkeypatch):
    launch, _, args = _kernel_of_five(monkeypatch, _Driver(answer=1))
    with pytest.raises(RuntimeError, match="CUDA_ERROR_INVALID_VALUE"):
        launch(5, 64, args)


def test_without_the_cuda_bindings_the_kernels_own_launch_runs(monkeypatch):
    """Without NVIDIA's CUDA Python the packed launch is not taken, the overload's own launch is."""
    types = pytest.importorskip("numba.cuda").types
    monkeypatch.setattr("gpusim.backends.numba.driver_bindings", lambda: None)
    kernel_object = _CompiledKernel((types.int32,))
    calls = []
    kernel_object.launch = lambda *call: calls.append(call)
    dispatcher = _Dispatcher(0)
    dispatcher.overloads = {"sig": kernel_object}
    launch = NumbaLaunch(dispatcher)
    launch(2, 32, (np.int32(5),))
    assert launch.kinds is None and calls == [((np.int32(5),), (2, 1, 1), (32, 1, 1), "the stream", 0)]


@pytest.mark.parametrize("flags", [{"debug": True}, {"extensions": ["an extension"]}])
def test_a_debug_kernel_or_argument_extensions_take_numbas_own_launch(flags):
    types = pytest.importorskip("numba.cuda").types

    dispatcher = _Dispatcher(0)
    dispatcher.overloads = {"sig": _CompiledKernel((types.int32,), **flags)}
    assert NumbaLaunch(dispatcher).kinds is None


@pytest.mark.parametrize("bindings, answer, waits", [(True, 0, ["driver"]),
                                                     (True, 201, ["driver", "numba"]),  # no current context
                                                     (False, None, ["numba"])])
def test_synchronize_is_one_driver_call_and_numbas_own_where_that_does_not_serve(monkeypatch, bindings, answer, waits):
    """``cuCtxSynchronize`` through the bindings; numba's ``cuda.synchronize()`` (which looks its context up, and
    raises numba's error) without the bindings or when the driver's answer is not success."""
    pytest.importorskip("numba.cuda")
    from gpusim.backends.numba import NumbaBackend

    calls = []

    class Driver(_Driver):
        def cuCtxSynchronize(self):
            calls.append("driver")
            return (answer,)

    monkeypatch.setattr("gpusim.backends.numba.driver_bindings", lambda: Driver() if bindings else None)
    backend = object.__new__(NumbaBackend)
    backend._cuda = type("Cuda", (), {"synchronize": staticmethod(lambda: calls.append("numba"))})
    backend.device_synchronize()
    assert calls == waits


class _HostCopyDriver(_Driver):
    """``cuMemcpyDtoH`` as the bindings give it: an error code, the bytes written at the host address."""

    def __init__(self, answer: int, device_bytes: bytes):
        super().__init__()
        self.answer, self.device_bytes, self.copies = answer, device_bytes, []

    def cuMemcpyDtoH(self, host, device, nbytes):
        self.copies.append((device, nbytes))
        if self.answer == 0:
            ctypes.memmove(host, self.device_bytes, nbytes)
        return (self.answer,)


class _NumbaArray(_DeviceArray):
    def copy_to_host(self):
        return "numba's own copy"


@pytest.mark.parametrize("answer, strided, expected", [(0, False, [5, -1, 7]), (700, False, "numba's own copy"),
                                                       (0, True, "numba's own copy")])
def test_a_read_back_is_one_driver_copy_and_numbas_own_where_that_does_not_serve(monkeypatch, answer, strided,
                                                                                 expected):
    """One ``cuMemcpyDtoH`` of the array's bytes from its pointer into a new NumPy array; numba's ``copy_to_host``
    for a strided array or when the driver answers with an error (numba's copy raises it)."""
    pytest.importorskip("numba.cuda")
    from gpusim.backends.numba import NumbaBackend

    driver = _HostCopyDriver(answer, np.array([5, -1, 7], np.int32).tobytes())
    monkeypatch.setattr("gpusim.backends.numba.driver_bindings", lambda: driver)
    array = _NumbaArray(4096, 3, np.int32)
    if strided:
        array.strides = (8,)
    copied = object.__new__(NumbaBackend).to_host(array)
    assert (copied.tolist() if isinstance(copied, np.ndarray) else copied) == expected
    assert driver.copies == ([] if strided else [(4096, 12)])


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
    assert isinstance(compiled, NumbaLaunch) and compiled.kernel is not None and compiled.kinds is not None
    dev.launch(k_launch_probe, 3, 128, args)          # packed
    compiled[3, 128](*args)                           # numba's dispatcher
    dev.synchronize()
    np.testing.assert_array_equal(dev.to_host(out), 2 * np.arange(n, dtype=np.int32))
    np.testing.assert_allclose(dev.to_host(values), np.linspace(0, 1, n) * 6.25)
