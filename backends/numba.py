"""The Numba CUDA backend: kernels compiled by ``numba.cuda.jit``, arrays are numba device arrays.

Nothing here imports numba at module level: :func:`availability` says whether numba-cuda, a
CUDA driver and a GPU are there, and :func:`create_backend` builds the backend object that
:class:`gpusim.Device` drives.  The language ``T`` for numba lives in
:mod:`gpusim.backends.numba_language`.

A kernel is bound to numba's ``T`` once (:func:`gpusim.language.kernels.bind`; its ``@device`` helpers
become inlined numba device functions) and compiled once per tuple of argument types; a second
launch with the same types reuses the compiled kernel (:attr:`NumbaBackend.compile_count` does
not move).

Example
-------
>>> import numpy as np
>>> from gpusim import Device, T, kernel
>>> @kernel(signature="int32[:], int32")
... def iota(out, n):
...     i = T.gtid()
...     if i < n:
...         out[i] = i
>>> dev = Device("numba")                                   # doctest: +SKIP
>>> out = dev.zeros(4, np.int32)                            # doctest: +SKIP
>>> dev.launch(iota, grid=1, block=32, args=(out, 4))       # doctest: +SKIP
>>> dev.to_host(out)                                        # doctest: +SKIP
array([0, 1, 2, 3], dtype=int32)
"""

from __future__ import annotations

import ctypes
import importlib.metadata
import struct
import threading
import warnings
from typing import Any

import numpy as np

from gpusim.backends.gpu import GpuBackend, driver_bindings, kept_once_working, memset
from gpusim.errors import BackendUnavailable, InvalidArgument, KernelSyntaxError

__all__ = ["NumbaBackend", "NumbaLaunch", "availability", "create_backend", "numba_signature", "probe"]

_INSTALL = "pip install 'gpusim[cuda]'"
_NEEDS = f"Device('numba') needs an NVIDIA GPU, its driver, and {_INSTALL}"


def probe() -> tuple[bool, str]:
    """Whether kernels can run on Numba CUDA here, and why (one line).

    Never raises: a missing numba-cuda, a numba-cuda that fails to import (for instance next to
    an incompatible NumPy), a missing driver and a machine without a GPU each give
    ``(False, reason)``, the reason naming what is missing and the extra to install.

    Examples
    --------
    >>> ok, why = probe()
    >>> isinstance(ok, bool) and isinstance(why, str)
    True
    """
    try:
        version = importlib.metadata.version("numba-cuda")
    except importlib.metadata.PackageNotFoundError:
        return False, f"numba-cuda is not installed; {_INSTALL}"
    try:
        from numba import cuda
    except Exception as exc:  # an ImportError, or numba-cuda broken by its neighbours (NumPy 2.5)
        return False, (
            f"numba-cuda {version} is installed but failed to import ({type(exc).__name__}: {exc}); "
            f"{_INSTALL} installs compatible versions (numpy<2.5)"
        )
    try:
        from numba.cuda.cudadrv.driver import driver

        count = driver.get_device_count()
    except Exception as exc:
        message = " ".join(str(exc).split()).rstrip(" :") or type(exc).__name__
        return False, f"numba-cuda {version} finds no usable CUDA driver ({message}); {_NEEDS}"
    if count < 1:
        return False, f"the CUDA driver sees no GPU (numba-cuda {version}); {_NEEDS}"
    try:
        name = cuda.get_current_device().name
        name = name.decode() if isinstance(name, bytes) else str(name)
    except Exception as exc:
        return False, f"numba-cuda {version} cannot open the GPU ({type(exc).__name__}: {exc})"
    return True, f"numba-cuda {version} on {name}"


#: :func:`probe`, asked again only until it finds a working GPU (see :func:`~gpusim.backends.gpu.kept_once_working`).
availability = kept_once_working(probe)


def create_backend() -> NumbaBackend:
    """A new :class:`NumbaBackend`; raises :class:`~gpusim.errors.BackendUnavailable` if it cannot run."""
    ok, why = availability()
    if not ok:
        raise BackendUnavailable(f"backend 'numba' cannot run here: {why}")
    return NumbaBackend()


def numba_signature(types_: tuple[tuple[np.dtype, bool], ...]):
    """The numba argument types for ``(dtype, is_array)`` pairs: C-contiguous 1-D arrays and scalars.

    Examples
    --------
    >>> numba_signature(((np.dtype("int32"), True), (np.dtype("float64"), False)))
    (Array(int32, 1, 'C', False, aligned=True), float64)
    """
    from numba import types as nbtypes
    from numba.np.numpy_support import from_dtype

    out = []
    for dtype, is_array in types_:
        scalar = from_dtype(np.dtype(dtype))
        out.append(nbtypes.Array(scalar, 1, "C") if is_array else scalar)
    return tuple(out)


def cached_jit(clone, signature: tuple, kernel) -> Any:
    """``numba.cuda.jit(signature)(clone)`` whose compiled kernel numba keeps on disk, keyed also by ``kernel``'s
    fingerprint (:func:`gpusim.backends.kernel_cache.numba_kernel_cache`): loaded, not compiled, where this machine
    compiled the same kernel before; without a usable cache directory, compiled as ``numba.cuda.jit`` does.  Either
    way its indices are used as given and it fits a block of 1024 threads (:mod:`gpusim.backends.numba_shims`)."""
    from numba import cuda

    from gpusim.backends.kernel_cache import language_stamp, numba_kernel_cache
    from gpusim.backends.numba_shims import MAX_REGISTERS, indices_as_given
    from gpusim.language.fingerprint import fingerprint

    cache = numba_kernel_cache(clone, fingerprint(kernel, language_stamp("numba")))
    with indices_as_given():
        if cache is None:
            return cuda.jit(signature, max_registers=MAX_REGISTERS)(clone)
        dispatcher = cuda.jit(clone, max_registers=MAX_REGISTERS)
        dispatcher._cache = cache
        dispatcher.compile(signature)
    dispatcher._specialized = True  # as numba.cuda.jit(signature) leaves it: one overload, no more compiling
    dispatcher.disable_compile()
    return dispatcher


def bind_kernel(kernel):
    """``kernel`` bound to numba's ``T``; its ``@device`` helpers become inlined device functions."""
    from gpusim.backends.numba_language import T, inline_device
    from gpusim.language.kernels import bind

    return bind(kernel, T, wrap_device=inline_device)


class NumbaBackend(GpuBackend):
    """Device arrays and launches through numba-cuda: a kernel is compiled by ``numba.cuda.jit``
    once per tuple of argument types (see :class:`~gpusim.backends.gpu.GpuBackend`)."""

    name = "numba"

    def __init__(self) -> None:
        from numba import cuda
        from numba.cuda.core.errors import NumbaPerformanceWarning
        from numba.cuda.cudadrv.devicearray import DeviceNDArray

        self._cuda = cuda
        self._device_array = DeviceNDArray
        self._pool: Any = False  # the context's DevicePool (None: none), found on the first allocation
        # gpusim launches small grids on purpose (tests, teaching); numba warns on each one
        # (the message starts with a terminal escape code, hence the leading .*)
        warnings.filterwarnings(
            "ignore", message=r".*Grid size \d+ will likely result in GPU under-utilization",
            category=NumbaPerformanceWarning,
        )

    # -- memory --------------------------------------------------------------------------------
    _fill_kernel: Any = None  # a numba kernel ``out[i] = value``, compiled on first use (per dtype)

    def empty(self, n: int, dtype: np.dtype):
        """A new device array of ``n`` items, uninitialised: from gpusim's stream-ordered pool
        (:class:`~gpusim.backends.numba_memory.DevicePool`) where the device has one, else numba's ``cuMemAlloc``."""
        pool = self.pool()
        return self._cuda.device_array(n, dtype=dtype) if pool is None else pool.array(n, dtype)

    def pool(self):
        """The :class:`~gpusim.backends.numba_memory.DevicePool` this backend allocates from (None: numba's own
        allocator), found on first use."""
        if self._pool is False:
            from gpusim.backends.numba_memory import device_pool

            self._pool = device_pool(self._cuda.current_context())
        return self._pool

    def full(self, n: int, value: Any, dtype: np.dtype):
        """Allocated (:meth:`empty`) and set by :meth:`fill`; no host array is built or copied."""
        out = self.empty(n, dtype)
        self.fill(out, value, dtype, n)
        return out

    def fill(self, out: Any, value: Any, dtype: np.dtype, n: int) -> None:
        """Set the ``n`` items of ``out`` to ``value`` on the device, in order on the default stream: a driver memset
        (:func:`~gpusim.backends.gpu.memset`: one repeated byte, or a 4-byte item), else a one-line fill kernel."""
        if n and not memset(int(out.gpu_data.device_pointer), value, dtype, n):
            self.fill_kernel()[-(-n // 256), 256](out, dtype.type(value))

    def fill_kernel(self):
        """The numba kernel ``out[i] = value`` (compiled lazily, once per dtype, shared by every instance)."""
        if NumbaBackend._fill_kernel is None:
            cuda = self._cuda

            @cuda.jit
            def fill(out, value):  # pragma: no cover - runs on the GPU
                i = cuda.grid(1)
                if i < out.shape[0]:
                    out[i] = value

            NumbaBackend._fill_kernel = fill
        return NumbaBackend._fill_kernel

    def copy_in(self, host: np.ndarray, registered: bool):
        out = self.empty(host.shape[0], host.dtype)
        out.copy_to_device(host)  # synchronous either way
        return out

    def register(self, host: np.ndarray):
        """numba's own page-locking (``Context.mempin``, as ``cuda.pinned`` does): the pages are unlocked as soon
        as the handle it returns is released (its finalizer bypasses numba's deferred deallocation queue)."""
        from numba.cuda.cudadrv.driver import CudaAPIError

        try:
            handle = [self._cuda.current_context().mempin(None, host.ctypes.data, host.nbytes)]  # host not held
        except CudaAPIError:
            return None
        return handle.clear

    def adopt(self, value: Any):
        """``value`` as a numba device array without a copy (a numba device array, or any object with
        ``__cuda_array_interface__``, CuPy's included), or None for host data."""
        if isinstance(value, self._device_array):
            found = value
        elif self._cuda.is_cuda_array(value):
            found = self._cuda.as_cuda_array(value)
        else:
            return None
        if len(found.shape) == 1 and not found.is_c_contiguous():
            raise InvalidArgument(
                f"a device array given to numba must be contiguous; got a strided view (strides {found.strides})"
            )
        return found

    def free_memory(self) -> int:
        """Free bytes on the device, counting those gpusim's pool holds for reuse."""
        pool = self.pool()
        if pool is not None:
            return pool.device_free_bytes()
        return int(self._cuda.current_context().get_memory_info()[0])

    def to_host(self, array: Any) -> np.ndarray:
        """A new host copy: one synchronous ``cuMemcpyDtoH`` through the driver's bindings (numba's ``copy_to_host``
        first looks its context up, several microseconds on each read back, and a loop reads a flag per batch).
        numba's own copy for an empty or strided array, without the bindings, or when the driver reports an error
        (numba's copy then raises it)."""
        binding = driver_bindings()
        contiguous = len(array.shape) == 1 and array.shape[0] and array.strides[0] == array.dtype.itemsize
        if binding is not None and contiguous:
            out = np.empty(array.shape, array.dtype)
            copied = binding.cuMemcpyDtoH(out.ctypes.data, array.device_ctypes_pointer.value, out.nbytes)
            if copied[0] == binding.CUresult.CUDA_SUCCESS:
                return out
        return array.copy_to_host()

    def is_device_array(self, value: Any) -> bool:
        return isinstance(value, self._device_array)

    def device_synchronize(self) -> None:
        """Wait for the current context: one ``cuCtxSynchronize`` through the driver's bindings (numba's
        ``cuda.synchronize()`` first looks its context up, several microseconds a call, paid at the end of every phase
        and every call).  Without the bindings, without a current context, or when the wait reports an error, numba's
        own call, which raises numba's error."""
        binding = driver_bindings()
        if binding is None or binding.cuCtxSynchronize()[0] != binding.CUresult.CUDA_SUCCESS:
            self._cuda.synchronize()

    # -- compiling and launching ---------------------------------------------------------------
    def signature(self, args: tuple) -> tuple:
        """``((dtype, is_array), ...)`` of the launch's arguments."""
        return tuple((a.dtype, isinstance(a, self._device_array)) for a in args)

    def compile(self, kernel, signature: tuple) -> NumbaLaunch:
        clone = bind_kernel(kernel)
        try:
            dispatcher = cached_jit(clone, numba_signature(signature), kernel)
        except Exception as exc:
            described = ", ".join(f"{d.name}[:]" if a else d.name for d, a in signature)
            raise KernelSyntaxError(
                f"kernel {kernel.name!r} ({kernel.filename}:{kernel.lineno}) does not compile for numba "
                f"with argument types ({described}):\n{exc}"
            ) from exc
        return NumbaLaunch(dispatcher)

    def run(self, compiled: NumbaLaunch, grid: int, block: int, args: tuple) -> None:
        compiled(grid, block, args)


class NumbaLaunch:
    """A kernel compiled for one signature, launched without the dispatcher's per-launch work.

    ``dispatcher[grid, block](*args)`` makes a launch configuration each launch (dimensions normalised, a
    stream object, an occupancy check that warns below 128 blocks), then ``CUDADispatcher.call`` records the
    arguments for launch-configuration-sensitive compilation, picks the dispatcher for the configuration and
    its overload, and runs the pre-launch callbacks; the overload's ``launch`` then converts every argument
    (``_Kernel._prepare_args``: each array wrapped, viewed and its layout worked out again, about two thirds
    of a launch's host time on an H100) and hands them to ``cuda.core.launch``, which converts each value again.
    ``numba.cuda.jit(signature)`` compiles exactly one overload (``dispatcher.overloads``, one ``_Kernel``) and no
    gpusim kernel is configuration-sensitive or has callbacks, so that kernel and the stream of one configuration
    are taken once.  Where its arguments are all 1-D arrays and the scalars gpusim's kernels take (and it is
    neither a debug nor a cooperative kernel, and no argument extension is registered), each launch writes them
    as numba's kernel ABI lays them out — an array as ``(meminfo 0, parent 0, items, itemsize, pointer, shape,
    stride)``, a scalar as its value, exactly what ``_prepare_args`` gives for them — into one buffer kept per
    kernel (:class:`PackedParameters`) and calls the driver's ``cuLaunchKernel`` with the loaded kernel kept per
    CUDA context (:meth:`_function`).  Otherwise each launch is the kernel's own ``launch(args, griddim, blockdim,
    stream, sharedmem)``; should a dispatcher hold other than one overload, the ordinary
    ``dispatcher[grid, block](*args)`` runs.
    """

    __slots__ = ("dispatcher", "functions", "kernel", "kinds", "packed", "stream", "stream_handle")

    def __init__(self, dispatcher: Any):
        self.dispatcher = dispatcher
        overloads = list(getattr(dispatcher, "overloads", {}).values())
        self.kernel = overloads[0] if len(overloads) == 1 and hasattr(overloads[0], "launch") else None
        self.stream = dispatcher.configure(1, 1).stream if self.kernel is not None else None
        self.kinds, self.functions, self.packed, self.stream_handle = _argument_kinds(self.kernel), {}, None, None
        binding = driver_bindings() if self.kinds is not None else None
        if binding is None:  # without NVIDIA's CUDA Python: numba's own launch
            self.kinds = None
        else:
            self.packed = PackedParameters(self.kinds)
            self.stream_handle = _stream_handle(binding, self.stream)

    def __getitem__(self, configuration: tuple) -> Any:
        """``launch[grid, block](*args)``: numba's own configured launch, through the dispatcher."""
        return self.dispatcher[configuration]

    def __call__(self, grid: int, block: int, args: tuple) -> None:
        if self.kinds is not None:
            values = []
            for kind, value in zip(self.kinds, args, strict=True):
                if kind is None:
                    values += _array_slots(value)
                else:
                    values.append(value)
            self.packed.launch(self._function(), grid, block, self.stream_handle, values)
        elif self.kernel is None:
            self.dispatcher[grid, block](*args)
        else:
            self.kernel.launch(args, (grid, 1, 1), (block, 1, 1), self.stream, 0)

    def _function(self) -> Any:
        """The kernel loaded in the calling thread's current CUDA context (a ``CUfunction`` handle), found once per
        context: numba's ``get_cufunc`` finds the context anew at every launch (a lock, driver queries, a check),
        where ``cuCtxGetCurrent`` is one driver call.  Without a current context numba's lookup makes one current."""
        binding = driver_bindings()
        error, context = binding.cuCtxGetCurrent()
        key = int(context) if error == binding.CUresult.CUDA_SUCCESS else 0
        function = self.functions.get(key) if key else None
        if function is None:
            function = binding.CUfunction(int(self.kernel._codelibrary.get_cufunc().handle))
            if key:
                self.functions[key] = function
        return function


def _array_slots(array: Any) -> tuple:
    """A 1-D device array's seven kernel-ABI slots, ``(meminfo 0, parent 0, items, itemsize, pointer, shape,
    stride)``, worked out once per array and kept on it: an array's memory and shape never change, and a
    Louvain call passes its few dozen arrays some four thousand times, each of which would otherwise read the
    pointer and the shape through numba's properties again.  An array that takes no attribute has its slots
    worked out at every launch.

    >>> class Array:  # the attributes of a numba DeviceNDArray that the slots read
    ...     shape, strides, dtype = (5,), (4,), np.dtype(np.int32)
    ...     device_ctypes_pointer = ctypes.c_void_p(4096)
    >>> _array_slots(Array())
    (0, 0, 5, 4, 4096, 5, 4)
    """
    slots = getattr(array, "_gpusim_slots", None)
    if slots is None:
        items = array.shape[0]
        slots = (0, 0, items, array.dtype.itemsize, array.device_ctypes_pointer.value or 0, items, array.strides[0])
        try:
            array._gpusim_slots = slots
        except AttributeError:
            pass
    return slots


class PackedParameters:
    """One kernel's parameters in one buffer, a slot of 8 bytes each, and the array of the slots' addresses that
    ``cuLaunchKernel`` reads.

    ``kinds`` are :func:`_argument_kinds`' (None for a 1-D array, which takes seven slots, else a scalar's
    :mod:`struct` code).  The driver copies the values when the launch is made, so the buffer serves the next
    launch at once; a lock keeps two threads' launches of one kernel from writing it together.

    >>> packed = PackedParameters((None, "i", "d"))
    >>> packed.layout.size // 8, len(packed.addresses)
    (9, 9)
    """

    __slots__ = ("addresses", "buffer", "layout", "lock", "pointer")

    def __init__(self, kinds: tuple):
        codes = "".join(_ARRAY_SLOTS if kind is None else kind + "x" * (8 - struct.calcsize(kind)) for kind in kinds)
        self.layout = struct.Struct("=" + codes)
        slots = self.layout.size // 8
        self.buffer = ctypes.create_string_buffer(max(self.layout.size, 8))
        base = ctypes.addressof(self.buffer)
        self.addresses = (ctypes.c_void_p * max(slots, 1))(*(base + 8 * slot for slot in range(slots)))
        self.pointer = ctypes.addressof(self.addresses) if slots else 0
        self.lock = threading.Lock()

    def launch(self, function: Any, grid: int, block: int, stream: Any, values: list) -> None:
        """``function`` on ``grid`` blocks of ``block`` threads on ``stream``, with ``values`` (numba's kernel ABI)."""
        binding = driver_bindings()
        with self.lock:
            self.layout.pack_into(self.buffer, 0, *values)
            (error,) = binding.cuLaunchKernel(function, grid, 1, 1, block, 1, 1, 0, stream, self.pointer, 0)
        if error != binding.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuLaunchKernel answered {binding.cuGetErrorName(error)[1]!r}")


def _stream_handle(binding: Any, stream: Any) -> Any:
    """The driver's handle of numba's stream (a ``cuda.core`` or numba ``Stream``: the CUDA stream protocol's), the
    default stream's for none."""
    if hasattr(stream, "__cuda_stream__"):
        stream = stream.__cuda_stream__()[1]
    return binding.CUstream(int(stream or 0))


#: An array argument's seven slots (meminfo, parent, items, itemsize, data pointer, shape, stride).
_ARRAY_SLOTS = "qqqqQqq"
#: The :mod:`struct` code numba's kernel ABI passes a scalar argument of each type as (``_Kernel._prepare_args``).
_SCALARS = {"int32": "i", "int64": "q", "uint32": "I", "uint64": "Q", "float32": "f", "float64": "d"}


def _argument_kinds(kernel: Any) -> tuple | None:
    """How each argument of a compiled numba ``_Kernel`` is passed: None for a 1-D array, else the scalar's
    :mod:`struct` code; None for the whole when some argument is of another kind, or the kernel is a debug or
    cooperative one, or argument extensions are registered (each launch then goes through numba's own ``launch``)."""
    types_ = getattr(kernel, "argument_types", None)
    if (types_ is None or getattr(kernel, "debug", True) or getattr(kernel, "cooperative", True)
            or getattr(kernel, "extensions", True) or not hasattr(kernel, "_codelibrary")):
        return None
    kinds = []
    for numba_type in types_:
        if getattr(numba_type, "ndim", None) == 1 and hasattr(numba_type, "dtype"):
            kinds.append(None)
        elif str(numba_type) in _SCALARS:
            kinds.append(_SCALARS[str(numba_type)])
        else:
            return None
    return tuple(kinds)
