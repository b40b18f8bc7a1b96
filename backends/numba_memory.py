"""A stream-ordered allocator for numba: an External Memory Management (EMM) plugin on the driver's memory pool.

numba allocates every device array with ``cuMemAlloc`` and CuPy from its own pool, so a call on numba pays for
its allocations what one on CuPy does not.  This plugin takes them from the driver's stream-ordered pool instead
(``cuMemAllocAsync`` / ``cuMemFreeAsync`` on the default stream, CUDA 11.2 and later), with the pool told to keep
what is freed for reuse (its release threshold raised to the maximum) rather than hand it back at every
synchronisation.  On an
H100 (``benchmarks/RESULTS.md``, issue 18) it took Suitor's device-resident call on 10^7 edges from 3.26 to
2.29 ms and APFB's on a 200 x 200 graph from 1.43 to 0.86 ms.

It is opt-in, because numba's memory manager is the whole process's: choose it before numba makes its first
CUDA context, either by the environment (numba's own mechanism) ::

    NUMBA_CUDA_MEMORY_MANAGER=gpusim.backends.numba_memory python my_script.py

or by :func:`use_stream_ordered_allocator` at the top of a program.  Frees are ordered on the default stream,
as gpusim's launches are; code that runs numba kernels on its own non-blocking streams should keep numba's
default manager.

>>> StreamOrderedMemoryManager(context=None).interface_version
1
"""

from __future__ import annotations

from typing import Any

from numba import cuda
from numba.cuda import GetIpcHandleMixin, HostOnlyCUDAMemoryManager, MemoryInfo, MemoryPointer

__all__ = ["StreamOrderedMemoryManager", "use_stream_ordered_allocator"]


def _checked(answer: Any) -> Any:
    """The value of a ``cuda.bindings.driver`` call, raising on an error code.  (The bindings come with numba-cuda,
    an optional dependency, so this module imports them where they are used: it imports without them.)"""
    from cuda.bindings import driver as binding

    error, *values = answer
    if error == binding.CUresult.CUDA_ERROR_OUT_OF_MEMORY:
        raise MemoryError("the GPU is out of memory (the CUDA driver's stream-ordered pool)")
    if error != binding.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver error {error!r}")
    return values[0] if len(values) == 1 else tuple(values)


class StreamOrderedMemoryManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
    """numba's device allocations from the driver's default memory pool, freed in stream order."""

    def initialize(self) -> None:
        from cuda.bindings import driver as binding

        pool = _checked(binding.cuDeviceGetDefaultMemPool(binding.CUdevice(self.context.device.id)))
        keep_all = binding.cuuint64_t(2**64 - 1)  # never give memory back at a synchronisation: reuse it
        _checked(binding.cuMemPoolSetAttribute(pool, binding.CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                                               keep_all))

    def memalloc(self, size: int):
        """A numba ``MemoryPointer`` to ``size`` bytes from the pool, given back to it in stream order when freed."""
        from cuda.bindings import driver as binding

        stream = binding.CUstream(0)
        pointer = _checked(binding.cuMemAllocAsync(size, stream))

        def free() -> None:
            _checked(binding.cuMemFreeAsync(pointer, stream))

        return MemoryPointer(self.context, pointer, size, finalizer=free)

    def get_memory_info(self):
        """numba's ``MemoryInfo(free, total)`` of the device, from the driver."""
        from cuda.bindings import driver as binding

        free, total = _checked(binding.cuMemGetInfo())
        return MemoryInfo(free=free, total=total)

    @property
    def interface_version(self) -> int:
        return 1


def use_stream_ordered_allocator() -> None:
    """Make numba allocate from the driver's stream-ordered pool (:class:`StreamOrderedMemoryManager`); call it
    before numba's first CUDA context (before the first ``Device("numba")``)."""
    cuda.set_memory_manager(StreamOrderedMemoryManager)


#: What ``NUMBA_CUDA_MEMORY_MANAGER=gpusim.backends.numba_memory`` makes numba use.
_numba_memory_manager = StreamOrderedMemoryManager
