"""The exchange of an algorithm split over several devices: an all-to-all of per-destination buffers and an
all-reduce of a count, three ways.

A *mailbox* (anything with the attributes below; :class:`~gpusim.algorithms.weighted.b_suitor_parts.Part` is
one) is one part of the work on one :class:`~gpusim.runtime.device.Device`:

``rank``, ``dev``
    its place among the ``k`` parts and its device;
``out``, ``start``, ``sent``
    the outbox: device arrays of the same length (the fields of a message), the messages for part ``d``
    at ``start[d] .. start[d] + sent[d] - 1``;
``inbox``, ``received``
    device arrays of the same fields, which :meth:`~Exchange.all_to_all` fills with the messages sent to it
    (from part 0's first), and their count.

:class:`InProcess` holds every part in one process: parts on one device copy on the device
(:func:`copy_range`, a kernel of ``T``, so the simulator runs and explores it too), parts on different devices
(``k`` simulated devices) through the host.  :class:`Nccl` is one part per process, the buffers moved between
GPUs by NCCL (CuPy's ``cupy.cuda.nccl``: ``allGather`` of the counts, grouped ``send``/``recv``, ``allReduce``).
:func:`outgoing` and :func:`deliver` are the two halves of the third way, through the host of a Dask client
(the simulator's parts in Dask workers).

Example
-------
>>> from types import SimpleNamespace
>>> import numpy as np
>>> from gpusim.runtime.device import Device
>>> dev = Device("sim")
>>> def box(rank, messages):   # its first message for part 0, its second for part 1
...     out = (dev.array(np.array(messages, np.int32)),)
...     return SimpleNamespace(rank=rank, dev=dev, out=out, start=np.array([0, 1]), sent=np.array([1, 1]),
...                            inbox=(dev.zeros(4, np.int32),), received=0)
>>> boxes = [box(0, [10, 11]), box(1, [20, 21])]
>>> exchange = InProcess(boxes)
>>> exchange.all_reduce(4), exchange.all_to_all(boxes)
(4, None)
>>> [(b.received, dev.to_host(b.inbox[0])[:b.received].tolist()) for b in boxes]
[(2, [10, 20]), (2, [11, 21])]
"""

from __future__ import annotations

import os
from typing import Any, Protocol

import numpy as np

from gpusim import T, kernel

__all__ = ["NVLINK_MULTICAST_OFF", "Exchange", "InProcess", "Nccl", "copy_range", "deliver", "outgoing"]

#: The environment every process gpusim starts for several GPUs gets: NVLink multicast off (with it on, a
#: program can put the host's shared GPUs out of service).
NVLINK_MULTICAST_OFF = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}


def multicast_off() -> None:
    """Set :data:`NVLINK_MULTICAST_OFF` in this process's environment (before NCCL reads it)."""
    os.environ.update(NVLINK_MULTICAST_OFF)


@kernel(signature="int32[:], int32, int32[:], int32, int32")
def copy_range(source, source_start, target, target_start, count):
    """``target[target_start + i] = source[source_start + i]`` for ``i < count``: a copy between two arrays of one
    device (a grid-stride loop)."""
    i = T.gtid()
    while i < count:
        target[target_start + i] = source[source_start + i]
        i += T.num_threads()


@kernel(signature="float64[:], int32, float64[:], int32, int32")
def copy_range_f64(source, source_start, target, target_start, count):
    """:func:`copy_range` for float64 arrays."""
    i = T.gtid()
    while i < count:
        target[target_start + i] = source[source_start + i]
        i += T.num_threads()


class Exchange(Protocol):
    """What the rounds of an algorithm over several devices need: both calls are collective (every process
    makes them, in the same order)."""

    def all_to_all(self, boxes: list[Any]) -> None:
        """Move the outboxes of ``boxes`` (the parts of this process) into the inboxes of their destinations."""

    def all_reduce(self, value: int) -> int:
        """The sum of ``value`` over every process."""


class InProcess:
    """Every part in this process: the exchange is a copy per pair of parts (on the device when both parts
    are on one device, through the host otherwise); the reduction is the value itself."""

    def __init__(self, boxes: list[Any], copies: tuple | None = None):
        self.k = len(boxes)
        # the copy kernels (int32, float64): replaceable, so that an exploration can plant a broken exchange
        self.copies = copies if copies is not None else (copy_range, copy_range_f64)

    def all_reduce(self, value: int) -> int:
        return int(value)

    def all_to_all(self, boxes: list[Any]) -> None:
        for target in boxes:
            if all(source.dev is target.dev for source in boxes):
                self._on_device(boxes, target)
            else:
                deliver(target, [outgoing(source, target.rank) for source in boxes])

    def _on_device(self, boxes: list[Any], target: Any) -> None:
        dev = target.dev
        block = 32 if dev.backend == "sim" else 256
        at = 0
        for source in boxes:
            count = int(source.sent[target.rank])
            start = int(source.start[target.rank])
            if count:
                grid = dev.grid_for(count, block, max_grid=1024)
                for a, b in zip(source.out, target.inbox, strict=True):
                    copy = self.copies[1] if np.dtype(a.dtype) == np.float64 else self.copies[0]
                    dev.launch(copy, grid, block, (a, start, b, at, count))
            at += count
        target.received = at


def outgoing(box: Any, to: int) -> tuple[np.ndarray, ...]:
    """The messages ``box`` sends to part ``to``, copied to the host (one array per field)."""
    start, count = int(box.start[to]), int(box.sent[to])
    if not count:
        return tuple(np.zeros(0, a.dtype) for a in box.out)
    return tuple(box.dev.to_host(a)[start:start + count] for a in box.out)


def deliver(box: Any, pieces: list[tuple[np.ndarray, ...]]) -> None:
    """Put the messages ``pieces`` (one tuple of host arrays per sending part, in rank order) in ``box``'s inbox."""
    fields = [np.concatenate([piece[f] for piece in pieces]) for f in range(len(box.inbox))]
    count = fields[0].size
    if count:
        box.inbox = tuple(box.dev.array(field) for field in fields)
    box.received = count


class Nccl:
    """One part per process, ``rank`` of ``k``, the buffers moved GPU to GPU by NCCL (CuPy's ``cupy.cuda.nccl``).

    ``unique_id`` is ``cupy.cuda.nccl.get_unique_id()`` made by one process and handed to every rank (by Dask);
    every rank makes the communicator at the same time (``ncclCommInitRank`` waits for all of them).
    """

    def __init__(self, unique_id: Any, rank: int, k: int):
        multicast_off()
        from cupy.cuda import nccl

        self.nccl, self.rank, self.k = nccl, rank, k
        self.comm = nccl.NcclCommunicator(k, unique_id, rank)

    def _type(self, dtype: np.dtype) -> int:
        nccl = self.nccl
        return {np.dtype(np.int32): nccl.NCCL_INT32, np.dtype(np.int64): nccl.NCCL_INT64,
                np.dtype(np.float64): nccl.NCCL_FLOAT64}[np.dtype(dtype)]

    def all_reduce(self, value: int) -> int:
        import cupy

        buffer = cupy.array([value], cupy.int64)
        stream = cupy.cuda.get_current_stream().ptr
        self.comm.allReduce(buffer.data.ptr, buffer.data.ptr, 1, self.nccl.NCCL_INT64, self.nccl.NCCL_SUM, stream)
        return int(buffer.get()[0])

    def all_to_all(self, boxes: list[Any]) -> None:
        import cupy

        (box,) = boxes
        out = [cupy.asarray(field) for field in box.out]     # views (numba arrays too), no copies
        inbox = [cupy.asarray(field) for field in box.inbox]
        stream = cupy.cuda.get_current_stream().ptr
        counts = cupy.zeros(self.k * self.k, cupy.int64)
        sent = cupy.asarray(np.asarray(box.sent, np.int64))
        self.comm.allGather(sent.data.ptr, counts.data.ptr, self.k, self.nccl.NCCL_INT64, stream)
        matrix = counts.get().reshape(self.k, self.k)  # matrix[s, d]: messages from part s to part d
        incoming = matrix[:, self.rank]
        at = np.concatenate([[0], np.cumsum(incoming)])
        self.nccl.groupStart()
        for d in range(self.k):
            for field, target in zip(out, inbox, strict=True):
                count, start = int(box.sent[d]), int(box.start[d])
                if d == self.rank:
                    continue
                if count:
                    self.comm.send(field[start:].data.ptr, count, self._type(field.dtype), d, stream)
                if incoming[d]:
                    self.comm.recv(target[int(at[d]):].data.ptr, int(incoming[d]), self._type(target.dtype), d,
                                   stream)
        self.nccl.groupEnd()
        mine, start = int(box.sent[self.rank]), int(box.start[self.rank])
        for field, target in zip(out, inbox, strict=True):
            target[int(at[self.rank]):int(at[self.rank]) + mine] = field[start:start + mine]
        cupy.cuda.get_current_stream().synchronize()
        box.received = int(at[-1])

    def close(self) -> None:
        self.comm.destroy()
