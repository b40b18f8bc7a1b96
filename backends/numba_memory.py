"""Stream-ordered device memory for numba: gpusim's own pool, and an External Memory Management (EMM) plugin on it.

numba allocates every device array with ``cuMemAlloc`` (and frees it with ``cuMemFree``, which waits for the
device), CuPy from its own pool, so a call on numba used to pay for its allocations what one on CuPy does not.
:class:`DevicePool` is a stream-ordered pool of gpusim's own (``cuMemPoolCreate``, CUDA 11.2 and later):
allocations by ``cuMemAllocFromPoolAsync`` and frees by ``cuMemFreeAsync`` on the default stream, in order with
the kernels gpusim launches there, and the pool keeps what is freed for reuse (its release threshold raised to
the maximum) rather than hand it back at every synchronisation.  The numba backend makes every array of its own
there (:meth:`DevicePool.array`), so nothing process-wide changes: numba's memory manager stays the user's.

Everything else numba allocates in the process can come from the same pool too, opt-in because numba's memory
manager is the whole process's: choose :class:`StreamOrderedMemoryManager` before numba makes its first CUDA
context, either by the environment (numba's own mechanism) ::

    NUMBA_CUDA_MEMORY_MANAGER=gpusim.backends.numba_memory python my_script.py

or by :func:`use_stream_ordered_allocator` at the top of a program.  Frees are ordered on the default stream,
as gpusim's launches are; code that runs numba kernels on its own non-blocking streams should keep numba's
default manager.  The figures are in ``benchmarks/RESULTS.md``.

>>> StreamOrderedMemoryManager(context=None).interface_version
1
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import cuda
from numba.cuda import GetIpcHandleMixin, HostOnlyCUDAMemoryManager, MemoryInfo, MemoryPointer
from numba.cuda.cudadrv.devicearray import DeviceNDArray

from gpusim.backends.gpu import driver_bindings

__all__ = ["DevicePool", "StreamOrderedMemoryManager", "device_pool", "use_stream_ordered_allocator"]


def _checked(answer: Any) -> Any:
    """The value of a ``cuda.bindings.driver`` call, raising on an error code.  (The bindings come with numba-cuda,
    an optional dependency, so they are imported on first use, :func:`~gpusim.backends.gpu.driver_bindings`: this
    module imports without them.)"""
    error, *values = answer
    if error != 0:  # the bindings' CUresult is an int enum: CUDA_SUCCESS is 0, the one compare on the usual path
        if error == driver_bindings().CUresult.CUDA_ERROR_OUT_OF_MEMORY:
            raise MemoryError("the GPU is out of memory (the CUDA driver's stream-ordered pool)")
        raise RuntimeError(f"CUDA driver error {error!r}")
    return values[0] if len(values) == 1 else tuple(values)


class DevicePool:
    """A stream-ordered memory pool of gpusim's own on ``context``'s device, keeping what is freed for reuse.

    ``allocate(size)`` gives a numba ``MemoryPointer`` freed in stream order (on the default stream) when it
    dies; ``array(n, dtype)`` a 1-D numba device array on one; ``reserved_bytes`` what the pool has taken from
    the device, ``free_bytes`` what of it is unused; ``trim()`` hands that back to the device.
    """

    def __init__(self, context: Any):
        binding = driver_bindings()
        properties = binding.CUmemPoolProps()
        properties.allocType = binding.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
        properties.handleTypes = binding.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_NONE
        properties.location.type = binding.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        properties.location.id = context.device.id
        self.context = context
        self.handle = _checked(binding.cuMemPoolCreate(properties))
        keep_all = binding.cuuint64_t(2**64 - 1)  # never give memory back at a synchronisation: reuse it
        _checked(binding.cuMemPoolSetAttribute(self.handle,
                                               binding.CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, keep_all))
        self._stream = binding.CUstream(0)
        self._allocate, self._free = binding.cuMemAllocFromPoolAsync, binding.cuMemFreeAsync

    def allocate(self, size: int) -> MemoryPointer:
        """``size`` bytes (at least one) from the pool; when the device is out of memory, numba's own pending
        frees are made and the allocation tried once more, then :class:`MemoryError`."""
        size = max(int(size), 1)
        try:
            pointer = _checked(self._allocate(size, self.handle, self._stream))
        except MemoryError:
            self.context.deallocations.clear()
            pointer = _checked(self._allocate(size, self.handle, self._stream))
        free, stream = self._free, self._stream

        def release() -> None:
            free(pointer, stream)  # no error to act on: at interpreter exit the context may already be gone

        return MemoryPointer(self.context, pointer, size, finalizer=release)

    def array(self, n: int, dtype: np.dtype) -> DeviceNDArray:
        """A 1-D numba device array of ``n`` (uninitialised) items of ``dtype`` on the pool's memory."""
        return DeviceNDArray((n,), (dtype.itemsize,), dtype, gpu_data=self.allocate(n * dtype.itemsize))

    def _attribute(self, name: str) -> int:
        binding = driver_bindings()
        return int(_checked(binding.cuMemPoolGetAttribute(self.handle, getattr(binding.CUmemPool_attribute, name))))

    @property
    def reserved_bytes(self) -> int:
        """Bytes the pool has taken from the device (in use or kept for reuse)."""
        return self._attribute("CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT")

    @property
    def free_bytes(self) -> int:
        """Bytes the pool holds for reuse (reserved, not in use)."""
        return self.reserved_bytes - self._attribute("CU_MEMPOOL_ATTR_USED_MEM_CURRENT")

    def device_free_bytes(self) -> int:
        """Bytes free on the device now, counting those the pool holds for reuse."""
        binding = driver_bindings()
        free, _ = _checked(binding.cuMemGetInfo())
        return int(free) + self.free_bytes

    def trim(self) -> None:
        """Hand every byte the pool holds unused back to the device (after a synchronisation)."""
        binding = driver_bindings()
        _checked(binding.cuMemPoolTrimTo(self.handle, 0))


#: Each device's pool (or None where it cannot have one), by device id, made on first use.
_POOLS: dict[int, DevicePool | None] = {}


def device_pool(context: Any) -> DevicePool | None:
    """The :class:`DevicePool` of numba context ``context``'s device (numba's primary context of that device),
    made on first use; None when the device has no stream-ordered pools (before CUDA 11.2, or a driver that
    refuses), in which case numba's own allocator is what is left."""
    device_id = context.device.id
    if device_id not in _POOLS:
        try:
            binding = driver_bindings()
            supported = _checked(binding.cuDeviceGetAttribute(
                binding.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, binding.CUdevice(device_id)))
            _POOLS[device_id] = DevicePool(context) if supported else None
        except Exception:  # noqa: BLE001 - the pool is a speed-up: without one, numba's own allocator works
            _POOLS[device_id] = None
    return _POOLS[device_id]


class StreamOrderedMemoryManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
    """Every numba device allocation from gpusim's :class:`DevicePool` of the context, freed in stream order."""

    def initialize(self) -> None:
        self._pool = device_pool(self.context)
        if self._pool is None:
            raise RuntimeError("this device has no stream-ordered memory pools (CUDA 11.2 or later is needed)")

    def memalloc(self, size: int) -> MemoryPointer:
        """A numba ``MemoryPointer`` to ``size`` bytes from the pool, given back to it in stream order when freed."""
        return self._pool.allocate(size)

    def get_memory_info(self) -> MemoryInfo:
        """numba's ``MemoryInfo(free, total)`` of the device, from the driver, the pool's unused bytes counted free."""
        binding = driver_bindings()
        _, total = _checked(binding.cuMemGetInfo())
        return MemoryInfo(free=self._pool.device_free_bytes(), total=int(total))

    @property
    def interface_version(self) -> int:
        return 1


def use_stream_ordered_allocator() -> None:
    """Make numba allocate everything from gpusim's pool (:class:`StreamOrderedMemoryManager`); call it before
    numba's first CUDA context (before the first ``Device("numba")``)."""
    cuda.set_memory_manager(StreamOrderedMemoryManager)


#: What ``NUMBA_CUDA_MEMORY_MANAGER=gpusim.backends.numba_memory`` makes numba use.
_numba_memory_manager = StreamOrderedMemoryManager
