"""What the two GPU backends share: one skeleton, two compilers.

:class:`GpuBackend` owns the cache of compiled kernels (one per kernel and signature, shared by
every ``Device`` of the process), the count of compilations, and the way a failure is reported: a
kernel that does not compile is a :class:`~gpusim.errors.KernelSyntaxError`, a launch the driver
refuses an :class:`~gpusim.errors.InvalidArgument`, a kernel that faults while running a
:class:`~gpusim.errors.KernelFault`.  A subclass says how to allocate, copy, compile and launch:
:class:`gpusim.backends.numba.NumbaBackend` and :class:`gpusim.backends.cupy.CupyBackend`.

>>> from gpusim.backends.gpu import GpuBackend
>>> sorted(GpuBackend.__abstractmethods__)[:4]
['adopt', 'compile', 'copy_in', 'device_synchronize']
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from gpusim.backends.kept_pages import KeptPages
from gpusim.errors import InvalidArgument, KernelFault

__all__ = ["REGISTER_BYTES", "GpuBackend", "driver_bindings", "kept_once_working", "memset"]

#: A host array of at least this many bytes is page-locked for its copy to the device: registered with the
#: driver and copied by DMA, its pages kept locked for its next copy (:meth:`GpuBackend.array`).  On an H100
#: (measured with a one-off script, since removed) a pageable copy ran at 5 to 9 GB/s (the driver stages it
#: through its own page-locked buffers) and a registered one, the registering included, at 12 to 14 GB/s from
#: 16 MiB up; at 4 MiB the two were equal, below it registering cost more than it saved.
REGISTER_BYTES = 16 << 20
#: The registrations kept between copies, shared by both backends (the driver's are the process's).
KEPT_PAGES = KeptPages()


def memset(pointer: int, value: Any, dtype: np.dtype, n: int, stream: int = 0) -> bool:
    """Set the ``n`` items of ``dtype`` at device address ``pointer`` to ``value`` by one driver call in order on
    ``stream`` (the default stream unless given): ``cuMemsetD8Async`` when ``value`` is one byte repeated (0, -1),
    ``cuMemsetD32Async`` for 4-byte items.  False, and nothing done, for other 8-byte values or where the CUDA
    Python bindings are missing: the caller fills with a kernel then.  Either memset costs the host a few
    microseconds; a kernel launched to fill costs several times that.

    >>> memset(0, 1.5, np.dtype(np.float64), 4)    # no 8-byte memset: the caller launches a fill kernel
    False
    """
    pattern = np.array([value], dtype=dtype)
    raw = pattern.tobytes()
    one_byte = len(set(raw)) == 1
    binding = driver_bindings()
    if binding is None or not (one_byte or dtype.itemsize == 4):
        return False
    where, on = binding.CUdeviceptr(pointer), binding.CUstream(stream)
    if one_byte:
        answer = binding.cuMemsetD8Async(where, raw[0], n * dtype.itemsize, on)
    else:
        answer = binding.cuMemsetD32Async(where, int(pattern.view(np.uint32)[0]), n, on)
    if answer[0] != binding.CUresult.CUDA_SUCCESS:
        raise InvalidArgument(f"setting {n} items of {dtype.name} on the device failed (driver error {answer[0]!r})")
    return True


_BINDINGS: list = []


def driver_bindings() -> Any:
    """``cuda.bindings.driver`` (NVIDIA's CUDA Python, which numba-cuda brings), imported once; None without it."""
    if not _BINDINGS:
        try:
            from cuda.bindings import driver
        except ImportError:
            driver = None
        _BINDINGS.append(driver)
    return _BINDINGS[0]


def kept_once_working(probe: Callable[[], tuple[bool, str]]) -> Callable[[], tuple[bool, str]]:
    """A backend's ``availability()``: ``probe()``'s answer, kept for the process once it says yes.

    A GPU that worked stays so, and a ``Device`` made per call then costs no metadata lookups and driver
    queries (about a millisecond each time otherwise); a no is asked again, the driver may come later.

    >>> answers = iter([(False, "no driver"), (True, "GPU"), (False, "never asked")])
    >>> available = kept_once_working(lambda: next(answers))
    >>> available(), available(), available()
    ((False, 'no driver'), (True, 'GPU'), (True, 'GPU'))
    """
    works: list[tuple[bool, str]] = []

    def availability() -> tuple[bool, str]:
        """Whether kernels can run here, and why (one line): the probe's answer, kept once it says yes."""
        if works:
            return works[0]
        answer = probe()
        if answer[0]:
            works.append(answer)
        return answer

    return availability


class GpuBackend(ABC):
    """A GPU backend: memory, compilation with a process-wide cache, and launches.

    Attributes
    ----------
    name:
        The backend's name (``"numba"``, ``"cupy"``).
    compile_count:
        How many kernels were compiled by this backend in this process: a launch that reuses a
        compiled kernel leaves it unchanged.
    """

    name: ClassVar[str]
    #: (kernel, signature) -> the compiled kernel, per subclass (set by ``__init_subclass__``); :meth:`launch_key` ->
    #: the same, for launches where the kernel's declared signature decides.
    _compiled: ClassVar[dict[tuple, Any]]
    _by_kernel: ClassVar[dict[Any, Any]]
    _compilations: ClassVar[list[int]]

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._compiled, cls._by_kernel, cls._compilations = {}, {}, [0]

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {len(self._compiled)} compiled kernels>"

    @property
    def compile_count(self) -> int:
        return self._compilations[0]

    # -- what a subclass provides --------------------------------------------------------------
    @abstractmethod
    def full(self, n: int, value: Any, dtype: np.dtype) -> Any: ...

    @abstractmethod
    def empty(self, n: int, dtype: np.dtype) -> Any:
        """A new device array of ``n`` items, not initialised."""

    @abstractmethod
    def fill(self, out: Any, value: Any, dtype: np.dtype, n: int) -> None:
        """Set the first ``n`` items of the device array ``out`` (of ``dtype``) to ``value``, in stream order."""

    @abstractmethod
    def copy_in(self, host: np.ndarray, registered: bool) -> Any:
        """A new device array holding contiguous ``host``; when ``registered`` (its pages are locked for this copy)
        the copy must be complete when this returns."""

    @abstractmethod
    def register(self, host: np.ndarray) -> Callable[[], None] | None:
        """Page-lock ``host``'s memory for a copy: the function that unlocks it (holding no reference to ``host``,
        whose collection unlocks it), or None when the driver refuses (memory already registered, or not
        registrable): the copy is then made from pageable memory."""

    @abstractmethod
    def adopt(self, value: Any) -> Any:
        """``value`` as a device array of this backend without a copy, or None when it is host data."""

    @abstractmethod
    def free_memory(self) -> int:
        """Bytes of device memory free now."""

    @abstractmethod
    def to_host(self, array: Any) -> np.ndarray: ...

    @abstractmethod
    def is_device_array(self, value: Any) -> bool: ...

    @abstractmethod
    def device_synchronize(self) -> None:
        """Wait for the device (the compiler's own call; errors are reported by :meth:`synchronize`)."""

    @abstractmethod
    def signature(self, args: tuple) -> tuple:
        """The hashable signature a kernel is compiled for, from the launch's arguments."""

    @abstractmethod
    def compile(self, kernel, signature: tuple) -> Any:
        """Compile ``kernel`` for ``signature`` (raising KernelSyntaxError when it does not compile)."""

    @abstractmethod
    def run(self, compiled: Any, grid: int, block: int, args: tuple) -> None:
        """Launch a compiled kernel."""

    # -- the skeleton ------------------------------------------------------------------------------
    def array(self, host: np.ndarray) -> Any:
        """``host`` copied to a new device array; from page-locked memory when it has :data:`REGISTER_BYTES` or
        more, whose pages stay locked for the next copy of the same array until it is collected or newer ones
        push it out (:mod:`gpusim.backends.kept_pages`)."""
        host = np.ascontiguousarray(host)
        if host.nbytes < REGISTER_BYTES:
            return self.copy_in(host, False)
        return KEPT_PAGES.copy(host, self.register, self.copy_in)

    def declared_signature(self, kernel) -> tuple:
        """The :meth:`signature` a launch with ``kernel``'s declared argument types has (``gpusim compile``)."""
        return tuple((p.dtype, p.is_array) for p in kernel.signature)

    def argument_types(self, signature: tuple) -> tuple:
        """``((dtype, is_array), ...)`` of a :meth:`signature` (what the machine's ledger of compiled kernels names)."""
        return signature

    def compiled(self, kernel, signature: tuple) -> Any:
        """The compiled kernel for ``kernel`` at ``signature``, compiled on first use (in this process; from the disk
        cache where this machine compiled it before).  A kernel never compiled on this machine shows the first
        compile's line and bar (:func:`~gpusim.backends.kernel_cache.compile_progress`)."""
        key = (kernel, signature)
        found = self._compiled.get(key)
        if found is None:
            from gpusim.backends.kernel_cache import (
                compile_progress,
                compiled_here,
                language_stamp,
                ledger_key,
                mark_compiled,
            )
            from gpusim.language.fingerprint import fingerprint

            noted = ledger_key(fingerprint(kernel, language_stamp(self.name)), self.argument_types(signature))
            first = not compiled_here(self.name, noted)
            bar = compile_progress(self.name) if first else None
            found = self._compiled[key] = self.compile(kernel, signature)
            self._compilations[0] += 1
            if first:
                mark_compiled(self.name, noted)
                bar.update(1)
        return found

    def launch_key(self, kernel, args: tuple) -> Any:
        """What finds the compiled form of a launch with no :meth:`signature` worked out from its arguments, or None:
        the kernel itself where it declares a signature, which then decides (:meth:`gpusim.Device.launch` converts
        every argument to it).  A small graph's call is mostly launches."""
        return kernel if kernel.signature else None

    def launch(self, kernel, grid: int, block: int, args: tuple) -> None:
        key = self.launch_key(kernel, args)
        compiled = None if key is None else self._by_kernel.get(key)
        if compiled is None:
            compiled = self.compiled(kernel, self.signature(args))
            if key is not None:
                self._by_kernel[key] = compiled
        try:
            self.run(compiled, grid, block, args)
        except Exception as exc:
            raise InvalidArgument(
                f"launching kernel {kernel.name!r} on {self.name} with grid={grid}, block={block} failed "
                f"({type(exc).__name__}: {exc})"
            ) from exc

    def synchronize(self) -> None:
        try:
            self.device_synchronize()
        except Exception as exc:
            raise KernelFault(
                f"a kernel launched on {self.name} failed while running ({type(exc).__name__}: {exc}); "
                "an out-of-bounds access is the usual cause: run it on Device('sim') to find it"
            ) from exc
