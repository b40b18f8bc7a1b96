"""The host side the weighted GPU algorithms share: the graph onto the device, and totals back from it.

:func:`upload_weighted_graph` copies the CSR and its weights to the device and builds each entry's
owner ``src`` there (:func:`~gpusim.algorithms.weighted.kernels_result.entry_owners`; an offer along
entry ``j`` is made by ``src[j]``, :mod:`gpusim.algorithms.weighted.offers`).  :func:`reduce_pairs` runs
a result kernel of :mod:`~gpusim.algorithms.weighted.kernels_result` and reads back only its two
totals: the host does O(1) work per launch.

Example
-------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1], [1, 2], [1.0, 3.0])
>>> dev, launch, ptr, adj, weights, src = upload_weighted_graph(g, "sim", None)
>>> dev.to_host(src).tolist(), dev.to_host(adj).tolist()
([0, 1, 1, 2], [1, 0, 2, 1])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.runtime.device import Device
from gpusim.runtime.launcher import Launcher, own_device
from gpusim.runtime.resident_graphs import check_fits, check_output, device_backend, resident, weighted_bytes
from gpusim.runtime.workspace import Workspace
from gpusim.types.device_graphs import DeviceWeightedGraph
from gpusim.types.graphs import WeightedGraph

from .kernels_result import entry_owners, owner_width, sum_partials

__all__ = ["MAX_BATCH", "REDUCE_GRID", "PairSums", "host_only_output", "in_batches", "reduce_pairs",
           "upload_weighted_graph"]

#: The most blocks a result kernel runs (grid-stride): its warps' partial sums are added by one warp.
REDUCE_GRID = 1024
#: The most rounds launched between two reads of whether the rounds are over (:func:`in_batches`).
MAX_BATCH = 16


def upload_weighted_graph(graph: WeightedGraph | DeviceWeightedGraph, backend: str, device: Device | None,
                          owners: bool = True) -> tuple:
    """Check the arguments; copy the CSR and its weights to the device (a
    :class:`~gpusim.types.device_graphs.DeviceWeightedGraph` is used where it lies, checked there once) and,
    unless ``owners=False`` (``src`` is then None), build each entry's owner (``src``) there.  Returns
    ``(device, launcher, ptr, adj, weights, src)``, the arrays on the device.  A device-resident graph costs no
    copy and no wait here: the host does O(1) work (its first call also checks it on the device and, on a GPU,
    makes the owners it keeps for the next calls)."""
    if not isinstance(graph, (WeightedGraph, DeviceWeightedGraph)):
        raise InvalidArgumentType(f"graph must be a WeightedGraph, got {type(graph).__name__}")
    if device is not None and not isinstance(device, Device):
        raise InvalidArgumentType(f"device must be a gpusim.Device, got {device!r}")
    on_device = isinstance(graph, DeviceWeightedGraph)
    dev = device if device is not None else own_device(device_backend(graph, backend) if on_device else backend)
    check_fits(dev, graph, lambda: weighted_bytes(graph, 4), "weighted matching",
               'backend="cpu" (the sequential reference)')
    launch = Launcher(dev)
    entries = 2 * graph.n_edges
    if on_device:
        adopted = resident(dev, graph)
        ptr, adj, weights = adopted.ptr, adopted.adj, adopted.weights
        if not entries:
            adj, weights = dev.zeros(1, np.int32), dev.zeros(1, np.float64)
    else:
        ptr = dev.array(graph.ptr)
        adj, weights = (dev.array(np.zeros(1, a.dtype) if not entries else a) for a in (graph.adj, graph.weights))
        dev.synchronize()  # CuPy copies host arrays asynchronously: the copies are not the kernels' time
    src = None
    if owners:
        # a device graph keeps the owners made for it on a GPU (its arrays do not change after its first check,
        # :class:`~gpusim.types.device_graphs.DeviceWeightedGraph`); the simulator runs every kernel every call
        kept = on_device and dev.backend != "sim"
        src = graph.derived.get(("owners", dev.backend)) if kept else None
        if src is None:
            src = _entry_owners(launch, ptr, graph.n, entries)
            if kept:
                graph.derived[("owners", dev.backend)] = src
    return dev, launch, ptr, adj, weights, src


def _entry_owners(launch: Launcher, ptr: Any, n: int, entries: int) -> Any:
    """Each CSR entry's owner (``src[j]`` the vertex whose list holds entry ``j``), made on the device."""
    dev = launch.device
    src = dev.zeros(max(entries, 1), np.int32)
    if n and entries:
        block = 32 if dev.backend == "sim" else 256
        with launch.phase("owners"):
            width = owner_width(entries, n)
            launch(entry_owners, Device.grid_for(width * n, block), block, ptr, src, n, width)
    return src


def reduce_pairs(launch: Launcher, result_kernel, n: int, *args, scratch: Workspace | None = None,
                 fills: tuple = (), also: tuple = ()) -> tuple:
    """Launch ``result_kernel(*args, partial_w, partial_c)`` over ``n`` vertices (each warp stores its sums),
    add the warps' sums on the device (:func:`~gpusim.algorithms.weighted.kernels_result.sum_partials`) and
    read back only ``(weight, pairs)``.

    In the same phase: first the ``fills`` (``(array, value)`` pairs, e.g. a result table's -1s), and last a host
    copy of each small device array in ``also`` (counters the call kept), appended to the answer:
    ``(weight, pairs, *copies)``.  The sums' arrays are work arrays of ``scratch``
    (:mod:`gpusim.runtime.workspace`; by default this call's own): :class:`PairSums` finds them, once for a call
    that keeps its plan (:mod:`gpusim.runtime.plans`)."""
    return PairSums(launch.device, n, scratch)(launch, result_kernel, *args, fills=fills, also=also)


class PairSums:
    """:func:`reduce_pairs` over ``n`` vertices, its grid worked out and its work arrays found when it is made."""

    __slots__ = ("block", "grid", "warps", "partial_w", "partial_c", "totals")

    def __init__(self, dev: Device, n: int, scratch: Workspace | None = None):
        scratch = scratch or Workspace(dev)
        self.block = 32 if dev.backend == "sim" else 256
        self.grid = Device.grid_for(n, self.block, max_grid=REDUCE_GRID)
        self.warps = self.grid * self.block // 32
        # every warp of the grid stores its sums, and one warp the totals: nothing here is read before it is written
        self.partial_w = scratch.empty("partial_w", self.warps, np.float64)
        self.partial_c = scratch.empty("partial_c", self.warps, np.int32)
        self.totals = scratch.empty("totals", 2, np.float64)

    def __call__(self, launch: Launcher, result_kernel, *args, fills: tuple = (), also: tuple = ()) -> tuple:
        """:func:`reduce_pairs`' answer, in phase ``"result"``."""
        dev = launch.device
        with launch.phase("result"):  # the phase ends with its answer on the host, as a loop's ends with its flag read
            for array, value in fills:
                dev.fill(array, value)
            launch(result_kernel, self.grid, self.block, *args, self.partial_w, self.partial_c)
            launch(sum_partials, 1, 32, self.partial_w, self.partial_c, self.warps, self.totals)
            weight, pairs = dev.to_host(self.totals)
            copies = tuple(dev.to_host(array) for array in also)
        return (float(weight), int(pairs), *copies)


def in_batches(one_round: Callable[[], None], over: Callable[[], bool]) -> int:
    """Launch ``one_round()`` in batches of 1, 2, 4, ... :data:`MAX_BATCH` rounds, asking ``over()`` (a read back
    of a device flag) after each batch, until it is true; the rounds after the last one that did work must
    do nothing.  Returns how many times it asked.

    >>> done = []
    >>> in_batches(lambda: done.append(1), lambda: len(done) >= 5), len(done)
    (3, 7)
    """
    batch, reads = 1, 0
    while True:
        for _ in range(batch):
            one_round()
        reads += 1
        if over():
            return reads
        batch = min(2 * batch, MAX_BATCH)


def host_only_output(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` without ``output``, for a sequential reference (``backend="cpu"``): it computes on the host,
    so ``output="host"`` is all it gives.

    >>> host_only_output({"output": "host", "seed": 1})
    {'seed': 1}
    >>> host_only_output({"output": "device"})
    Traceback (most recent call last):
    ...
    gpusim.errors.InvalidArgument: output='device' needs a GPU backend (sim, numba or cupy); backend='cpu' runs ...
    """
    options = dict(options)
    if check_output(options.pop("output", "host")) == "device":
        raise InvalidArgument("output='device' needs a GPU backend (sim, numba or cupy); backend='cpu' runs the "
                              "sequential reference on the host")
    return options
