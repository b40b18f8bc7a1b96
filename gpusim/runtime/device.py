"""``Device``: one host API over every backend.

Host code (the outer loops of the papers' pseudo-code) is written once against a ``Device``:
it allocates and copies arrays, launches kernels, and reads flags back, as on a real GPU.
``Device`` checks every argument and hands the work to a backend object
(:class:`gpusim.backends.Backend`): the simulator, Numba CUDA or CuPy.

Example
-------
>>> import numpy as np
>>> from gpusim import Device, T, kernel
>>> @kernel(signature="int32[:], int32")
... def fill(out, n):
...     i = T.gtid()
...     if i < n:
...         out[i] = 2 * i
>>> dev = Device("sim", seed=1)
>>> out = dev.zeros(5, np.int32)
>>> _ = dev.launch(fill, grid=1, block=8, args=(out, 5))
>>> dev.to_host(out)
array([0, 2, 4, 6, 8], dtype=int32)
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from gpusim.errors import InsufficientDeviceMemory, InvalidArgument, InvalidArgumentType
from gpusim.language.kernels import KERNEL_DTYPES, Kernel
from gpusim.language.variants import planting_now
from gpusim.types.arguments import check_positive_int

__all__ = ["BACKENDS", "BACKEND_CHOICES", "CPU_BELOW", "Device", "choose_backend", "choose_device", "memory_shortfall"]

#: Backend names ``Device`` accepts; ``"auto"`` picks the first GPU backend that works, else ``"sim"`` (the only
#: device without a GPU: :func:`choose_device`).
BACKENDS = ("auto", "sim", "numba", "cupy")
#: What ``backend=`` accepts for an algorithm: the devices, ``"auto"``, and ``"cpu"`` (the compiled CPU engine, a
#: choice of :func:`gpusim.runtime.dispatch.dispatch`, not of a ``Device``).
BACKEND_CHOICES = (*BACKENDS, "cpu")
MAX_BLOCK = 1024
#: ``"auto"`` answers an input of fewer edges (or preference-list entries) than this on the compiled CPU engine, even
#: with a GPU present: there every problem is answered in under 10 ms on the CPU (``benchmarks/RESULTS.md``, area
#: cpu), less than a process spends starting a GPU, and a small graph is answered as fast as NetworkX answers it.
CPU_BELOW = 10_000


def _working_gpu() -> tuple[str | None, str]:
    """The first GPU backend that works and why, or ``(None, why none does)``."""
    from gpusim.backends import GPU_BACKENDS, cuda_driver_missing, gpu_status  # only "auto" looks at the GPUs

    missing = cuda_driver_missing()
    if missing is not None:
        return None, f"auto: {missing}"
    reasons = []
    for candidate in GPU_BACKENDS:
        ok, why = gpu_status(candidate)
        if ok:
            return candidate, f"auto: {candidate} works ({why})"
        reasons.append(f"{candidate}: {why.split(' (')[0].split(';')[0]}")
    return None, f"auto: no GPU ({'; '.join(reasons)})"


def choose_backend(backend: str, size: int | None = None) -> tuple[str, str]:
    """The one backend chooser for an answer: ``backend`` made concrete, and why.

    ``"auto"`` computes on the fastest engine present for the input: the compiled CPU engine (``"cpu"``) for an
    input of ``size`` below :data:`CPU_BELOW` (edges or list entries; no GPU is probed or started for it), else the
    first GPU backend that works, else ``"cpu"``.  ``size=None`` (an input that must reach a device, such as
    ``output="device"``) skips the size rule.  ``"auto"`` never picks the simulator, which computes answers only
    when asked (``backend="sim"``).  Any other name is returned as asked for.

    >>> choose_backend("sim", 10)
    ('sim', 'asked for')
    >>> choose_backend("auto", 78)
    ('cpu', 'auto: 78 edges or entries, fewer than 10,000; the compiled CPU engine answers before a GPU has started')
    """
    if backend not in BACKEND_CHOICES:
        raise InvalidArgument(f"backend={backend!r} is not one of {BACKEND_CHOICES}")
    if backend != "auto":
        return backend, "asked for"
    if size is not None and size < CPU_BELOW:
        return "cpu", (f"auto: {size:,} edges or entries, fewer than {CPU_BELOW:,}; the compiled CPU engine answers "
                       f"before a GPU has started")
    gpu, why = _working_gpu()
    if gpu is not None:
        return gpu, why
    return "cpu", f"{why}; the compiled CPU engine"


def choose_device(backend: str) -> tuple[str, str]:
    """The backend of a :class:`Device` (one that launches kernels), and why: ``"auto"`` takes the first GPU
    backend that works, else the simulator, the one device there is without a GPU.

    >>> choose_device("numba")
    ('numba', 'asked for')
    """
    if backend not in BACKENDS:
        raise InvalidArgument(f"backend={backend!r} is not one of {BACKENDS}")
    if backend != "auto":
        return backend, "asked for"
    gpu, why = _working_gpu()
    return (gpu, why) if gpu is not None else ("sim", f"{why}; the simulator, the one device without a GPU")


def _size(n: int) -> str:
    """``n`` bytes for a person: ``"1.50 GiB (1610612736 bytes)"``."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.2f} {unit} ({n} bytes)"
    return f"{n} bytes"


def memory_shortfall(needed: int, free: int | None, what: str, alternative: str) -> str | None:
    """The one-line message when ``needed`` bytes of device memory exceed the ``free`` ones, else None.

    ``free=None`` is a device without a limit (the simulator).  ``alternative`` says what to run instead.

    >>> print(memory_shortfall(3 * 2**30, 2**30, "gpr on cupy", 'backend="cpu"'))  # doctest: +NORMALIZE_WHITESPACE
    gpr on cupy needs 3.00 GiB (3221225472 bytes) of GPU memory for this input,
    but only 1.00 GiB (1073741824 bytes) are free; use backend="cpu"
    >>> memory_shortfall(10, 100, "gpr on cupy", 'backend="cpu"') is None
    True
    """
    if free is None or needed <= free:
        return None
    return (f"{what} needs {_size(needed)} of GPU memory for this input, but only {_size(free)} are free; "
            f"use {alternative}")


class Device:
    """A device to allocate arrays on and launch kernels on.

    Parameters
    ----------
    backend:
        ``"sim"`` (the interleaving simulator), ``"numba"``, ``"cupy"``, or ``"auto"``.
    **options:
        Simulator options (``policy``, ``seed``, ``schedule``, ``trace``, ...; see
        :class:`gpusim.backends.sim.SimBackend`).  GPU backends take none.

    Attributes
    ----------
    backend:
        The backend's name (for ``"auto"``, the one chosen).
    reason:
        Why that backend was chosen (``"auto"``) or ``"asked for"``.
    """

    def __init__(self, backend: str = "sim", **options: Any):
        from gpusim.backends import load_backend

        if not isinstance(backend, str):
            raise InvalidArgumentType(f"backend must be a string, one of {BACKENDS}, got {backend!r}")
        if backend not in BACKENDS:
            raise InvalidArgument(f"backend={backend!r} is not one of {BACKENDS}")
        name, self.reason = choose_device(backend)
        self._impl = load_backend(name, options)
        self.backend: str = self._impl.name

    def __repr__(self) -> str:
        return f"Device({self.backend!r})"

    # -- the simulator's record ----------------------------------------------------------------
    @property
    def token(self) -> str:
        """The replay token of every launch so far: ``Device("sim", schedule=token)`` replays them."""
        return self._simulator("token").token

    @property
    def runs(self) -> list:
        """One :class:`gpusim.backends.sim.Run` per launch so far (trace, schedule, steps)."""
        return list(self._simulator("runs").runs)

    def _simulator(self, what: str):
        if self.backend != "sim":
            raise InvalidArgument(f"Device.{what} exists on the simulator only; this device is {self.backend!r}")
        return self._impl

    # -- memory ------------------------------------------------------------------------------
    def empty(self, n: int, dtype: Any = np.int32):
        """A new 1-D device array of ``n`` items that are not set: for an array a kernel writes in full before
        anything reads it (it saves the fill a :meth:`zeros` pays).  On the simulator its items are poison (the
        smallest signed or largest unsigned value, NaN for floats), so a kernel that reads one before writing it
        goes wrong there.

        >>> Device("sim").to_host(Device("sim").empty(2, np.int32)).tolist()
        [-2147483648, -2147483648]
        """
        n, dtype = _check_length(n), _check_dtype(dtype)
        return self._allocated(n * dtype.itemsize, self._impl.empty, n, dtype)

    def zeros(self, n: int, dtype: Any = np.int32):
        """A new 1-D device array of ``n`` zeros."""
        n, dtype = _check_length(n), _check_dtype(dtype)
        return self._allocated(n * dtype.itemsize, self._impl.full, n, 0, dtype)

    def full(self, n: int, value: Any, dtype: Any = np.int32):
        """A new 1-D device array of ``n`` copies of ``value``."""
        dtype = _check_dtype(dtype)
        _check_value(value)
        n = _check_length(n)
        return self._allocated(n * dtype.itemsize, self._impl.full, n, value, dtype)

    def fill(self, array: Any, value: Any) -> None:
        """Set every item of the device array ``array`` to ``value`` in place: one memset on a GPU (in stream order,
        like a launch), for arrays a call keeps between calls (:mod:`gpusim.runtime.workspace`).

        >>> dev = Device("sim")
        >>> a = dev.empty(3, np.int32)
        >>> dev.fill(a, -1)
        >>> dev.to_host(a).tolist()
        [-1, -1, -1]
        """
        if not self._impl.is_device_array(array):
            raise InvalidArgumentType(
                f"fill expects an array of this {self.backend!r} device, got {type(array).__name__}"
            )
        _check_value(value)
        self._impl.fill(array, value, np.dtype(array.dtype), array.size)

    def array(self, host: Any):
        """Copy a 1-D NumPy array (or anything ``np.asarray`` takes) to the device.

        An array already on this device is returned as it is, without a copy: on ``"cupy"`` a
        ``cupy.ndarray``, on ``"numba"`` a numba device array, on either GPU backend any object with
        ``__cuda_array_interface__`` (viewed in place), on ``"sim"`` a simulator array.

        >>> dev = Device("sim")
        >>> a = dev.array([1, 2, 3])
        >>> dev.array(a) is a
        True
        """
        adopted = self._impl.adopt(host)
        if adopted is not None:
            if len(adopted.shape) != 1:
                raise InvalidArgument(f"device arrays are 1-D; got an array of shape {tuple(adopted.shape)}")
            _check_dtype(adopted.dtype)
            return adopted
        if hasattr(host, "__cuda_array_interface__"):
            raise InvalidArgumentType(
                f"a GPU array ({type(host).__module__}.{type(host).__name__}) cannot be used on the {self.backend!r} "
                "device without a copy; run on backend 'cupy' or 'numba', or copy it to the host first"
            )
        host = np.asarray(host)
        if host.ndim != 1:
            raise InvalidArgument(f"device arrays are 1-D; got an array of shape {host.shape}")
        _check_dtype(host.dtype)
        return self._allocated(host.nbytes, self._impl.array, np.ascontiguousarray(host))

    def _allocated(self, nbytes: int, allocate, *args: Any):
        """``allocate(*args)``; the backend's out-of-memory error (CuPy's ``OutOfMemoryError``, numba's
        ``CUDA_ERROR_OUT_OF_MEMORY``) becomes one line: :class:`~gpusim.errors.InsufficientDeviceMemory`."""
        try:
            return allocate(*args)
        except Exception as exc:
            if not (isinstance(exc, MemoryError) or "OUT_OF_MEMORY" in str(exc)):
                raise
            free = self.free_memory()
            raise InsufficientDeviceMemory(
                f"allocating {_size(nbytes)} on {self.backend} failed: the GPU is out of memory"
                f"{'' if free is None else f' ({_size(free)} free)'}; use a smaller input or backend='cpu'"
            ) from None

    def holds(self, array: Any) -> bool:
        """Whether ``array`` is in memory this device uses without a copy (see :meth:`array`).

        >>> Device("sim").holds(np.zeros(3))
        False
        """
        return self._impl.adopt(array) is not None

    def free_memory(self) -> int | None:
        """Bytes of free device memory now, or None on the simulator (no limit)."""
        return self._impl.free_memory()

    def check_fits(self, needed: int, algorithm: str, alternative: str = 'backend="cpu"') -> None:
        """Refuse, before any copy, an input whose ``needed`` bytes exceed the device's free memory.

        Raises :class:`~gpusim.errors.InsufficientDeviceMemory` (one line: bytes needed, bytes free,
        ``alternative``) instead of the CUDA out-of-memory error a copy or allocation would raise.

        >>> Device("sim").check_fits(10**15, "gpr")     # the simulator has no limit
        """
        message = memory_shortfall(int(needed), self.free_memory(), f"{algorithm} on {self.backend}", alternative)
        if message is not None:
            raise InsufficientDeviceMemory(message)

    def to_host(self, array: Any) -> np.ndarray:
        """Copy a device array back into a new NumPy array."""
        if not self._impl.is_device_array(array):
            raise InvalidArgumentType(
                f"to_host expects an array of this {self.backend!r} device, got {type(array).__name__}"
            )
        return self._impl.to_host(array)

    def synchronize(self) -> None:
        """Wait for every launched kernel to finish (a no-op on the simulator)."""
        self._impl.synchronize()

    # -- launching ---------------------------------------------------------------------------
    @staticmethod
    def grid_for(n: int, block: int, max_grid: int | None = None) -> int:
        """Launch geometry: blocks of ``block`` threads to give each of ``n`` items a thread (at least
        one block; at most ``max_grid`` when given, for grid-stride loops).

        >>> Device.grid_for(100, 32), Device.grid_for(0, 32), Device.grid_for(10**6, 256, max_grid=80)
        (4, 1, 80)
        """
        blocks = max(1, -(-n // block))
        return blocks if max_grid is None else min(blocks, max_grid)

    def launch(self, kernel: Kernel, grid: int, block: int, args: tuple = ()):
        """Launch ``kernel`` on ``grid`` blocks of ``block`` threads.

        Returns the simulator's :class:`gpusim.backends.sim.Run` (trace, replay token, steps)
        on ``"sim"``, and ``None`` on the GPU backends.
        """
        if not isinstance(kernel, Kernel):
            raise InvalidArgumentType(f"kernel must be a function decorated with @kernel, got {kernel!r}")
        planting = planting_now()
        if planting is not None:  # a kernels= mapping in force (gpusim.language.variants.planted)
            kernel = planting.resolve(kernel)
        grid = check_positive_int("grid", grid)
        block = check_block(block)
        if not isinstance(args, (tuple, list)):
            raise InvalidArgumentType(f"args must be a tuple of the kernel's arguments, got {args!r}")
        if len(args) != len(kernel.params):
            raise InvalidArgument(
                f"kernel {kernel.name!r} takes {len(kernel.params)} arguments {kernel.params}, "
                f"got {len(args)}"
            )
        # the usual cases inline (a launch converts every argument, and a small graph's call is mostly launches): a
        # device array of the declared dtype, a Python int in range for an integer parameter, a finite Python float
        # for a floating one; the rest is checked
        is_device_array, converted = self._impl.is_device_array, []
        for value, (is_array, dtype, scalar_type, low, high) in zip(args, _argument_plan(kernel), strict=True):
            if is_array:
                if is_device_array(value) and value.dtype == dtype:
                    converted.append(value)
                    continue
            elif type(value) is scalar_type and low <= value <= high:
                converted.append(dtype.type(value))
                continue
            converted.append(self._checked_argument(kernel, len(converted), value))  # its position: those before it
        return self._impl.launch(kernel, grid, block, tuple(converted))

    def _checked_argument(self, kernel: Kernel, position: int, value: Any):
        """Every other argument, each refusal with a one-line reason."""
        name = kernel.params[position]
        expected = kernel.signature[position] if kernel.signature else None
        if self._impl.is_device_array(value):
            dtype = np.dtype(value.dtype)
            if expected is not None and (not expected.is_array or expected.dtype != dtype):
                raise InvalidArgumentType(
                    f"argument {name!r} of kernel {kernel.name!r} is an array of {dtype.name}, "
                    f"but the signature says {expected}"
                )
            return value
        if isinstance(value, np.ndarray):
            raise InvalidArgumentType(
                f"argument {name!r} of kernel {kernel.name!r} is a host NumPy array; copy it to the "
                f"device first with dev.array(...)"
            )
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)):
            raise InvalidArgumentType(
                f"argument {name!r} of kernel {kernel.name!r} must be a device array or a number, got {value!r}"
            )
        if expected is not None:
            if expected.is_array:
                raise InvalidArgumentType(
                    f"argument {name!r} of kernel {kernel.name!r} must be a device array of "
                    f"{expected.dtype.name}, got the scalar {value!r}"
                )
            return _scalar(value, expected.dtype, name)
        if isinstance(value, np.generic):
            return _scalar(value, value.dtype, name)
        if isinstance(value, numbers.Integral):
            fits = np.iinfo(np.int32).min <= value <= np.iinfo(np.int32).max
            return _scalar(value, np.dtype(np.int32 if fits else np.int64), name)
        return _scalar(value, np.dtype(np.float64), name)


def _argument_plan(kernel: Kernel) -> tuple:
    """Per parameter ``(is_array, dtype, scalar_type, low, high)`` from ``kernel``'s declared signature: a scalar
    parameter's fast path takes a Python ``int`` in its integer range or a finite Python ``float`` (``scalar_type``
    None: none, as for every parameter without a signature); what :meth:`Device.launch` checks each argument
    against.  Worked out on the first launch and kept on the kernel itself (so it lives as long as the kernel does),
    with the signature it was made from: a kernel given a new signature gets a new plan."""
    kept = kernel.__dict__.get("_argument_plan")
    if kept is not None and kept[0] is kernel.signature:
        return kept[1]
    if kernel.signature:
        plan = tuple((p.is_array, p.dtype, *_fast_scalars(p)) for p in kernel.signature)
    else:
        plan = ((False, None, None, 0, 0),) * len(kernel.params)
    kernel._argument_plan = (kernel.signature, plan)
    return plan


def _fast_scalars(parameter) -> tuple:
    """``(scalar_type, low, high)``: the Python type a scalar parameter takes on the fast path and its range."""
    if parameter.is_array or parameter.dtype.kind not in "iuf":
        return None, 0, 0
    if parameter.dtype.kind == "f":
        largest = float(np.finfo(parameter.dtype).max)
        return float, -largest, largest
    return int, *_int_range(parameter.dtype)


#: ``(min, max)`` of each integer dtype met so far (``np.iinfo`` is slow enough to show in a launch's cost).
_INT_RANGES: dict[np.dtype, tuple[int, int]] = {}


def _int_range(dtype: np.dtype) -> tuple[int, int]:
    found = _INT_RANGES.get(dtype)
    if found is None:
        info = np.iinfo(dtype)
        found = _INT_RANGES[dtype] = (int(info.min), int(info.max))
    return found


def _scalar(value: Any, dtype: np.dtype, name: str):
    if dtype.kind in "iu":
        if isinstance(value, (float, np.floating)) and not float(value).is_integer():
            raise InvalidArgumentType(f"argument {name!r} must be an integer ({dtype.name}), got {value!r}")
        low, high = _int_range(dtype)
        if not low <= int(value) <= high:
            raise InvalidArgument(f"argument {name!r}={value!r} does not fit in {dtype.name}")
        return dtype.type(int(value))
    if not np.isfinite(value):
        raise InvalidArgument(f"argument {name!r}={value!r} is not finite")
    if abs(float(value)) > float(np.finfo(dtype).max):  # compared in float64: no overflow warning
        raise InvalidArgument(f"argument {name!r}={value!r} does not fit in {dtype.name}")
    return dtype.type(value)


def _check_value(value: Any) -> None:
    """Refuse a fill value that is not a real number (``full``, ``fill``)."""
    if not isinstance(value, (numbers.Number, np.generic)) or isinstance(value, complex):
        raise InvalidArgumentType(f"value must be a real number, got {value!r}")


def _check_length(n: Any) -> int:
    if type(n) is not int and (isinstance(n, (bool, np.bool_)) or not isinstance(n, (numbers.Integral, np.integer))):
        raise InvalidArgumentType(f"n must be a non-negative integer, got {n!r}")
    if n < 0:
        raise InvalidArgument(f"n must be a non-negative integer, got n={n!r}")
    return int(n)


def check_block(block: Any) -> int:
    """``block`` as an int: a positive number of threads, at most :data:`MAX_BLOCK` (every backend's limit).

    >>> check_block(2000)
    Traceback (most recent call last):
    ...
    gpusim.errors.InvalidArgument: block=2000 exceeds the 1024 threads a block may have
    """
    block = check_positive_int("block", block)
    if block > MAX_BLOCK:
        raise InvalidArgument(f"block={block} exceeds the {MAX_BLOCK} threads a block may have")
    return block


def _check_dtype(dtype: Any) -> np.dtype:
    try:
        resolved = np.dtype(dtype)
    except TypeError:
        raise InvalidArgumentType(f"dtype={dtype!r} is not a NumPy dtype") from None
    if resolved not in KERNEL_DTYPES:
        allowed = ", ".join(d.name for d in KERNEL_DTYPES)
        raise InvalidArgument(f"dtype={resolved.name!r} is not supported on devices; use one of {allowed}")
    return resolved
