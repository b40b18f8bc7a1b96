"""b-Suitor on a GPU: each vertex keeps its ``b(v)`` best offers (Manne et al., CSC 2016 §3).

The b-matching form of Suitor (Khan et al. 2016), which Manne et al. (CSC 2016) §3.1 relates to many-to-many
stable assignment: "a vertex v will accept the b(v) best offers at any given time".  A vertex
``u`` proposes to its best neighbours until ``b(u)`` of its offers are held; a full vertex ``v``
replaces its weakest suitor by a better offer, and the displaced vertex proposes again.  The
result is the greedy b-matching (:func:`gpusim.algorithms.weighted.reference_b_suitor.greedy_b_matching`),
whatever the order — and so whatever the schedule.

The GPU version runs in rounds, a thread per queued vertex
(:func:`~gpusim.algorithms.weighted.kernels_b_suitor.b_suitor_round`); displaced vertices go to the
next round's queue, once each.  The queue's length stays on the device: each round is launched over
``n`` entries, the queue padded with an idle vertex
(:func:`~gpusim.algorithms.weighted.kernels_rounds.open_queue`), and the host reads the length once per
batch of rounds (:func:`~gpusim.algorithms.weighted.assembly.in_batches`; ``stats["reads"]``).
The partners table, its weight and size are built from the suitor sets on the device
(:func:`~gpusim.algorithms.weighted.kernels_result.b_partners`), which also checks that every set is mirrored.
For a graph that lives on the device (a :class:`~gpusim.types.device_graphs.DeviceWeightedGraph`) the
capacities, slot offsets and first queue are built there too
(:mod:`~gpusim.algorithms.weighted.kernels_slots`): the host reads back two numbers, not the offsets.
With ``output="device"`` the partners table stays on the device
(:class:`~gpusim.algorithms.weighted.device_result.DeviceWeightedMatching`).

References
----------
A. Khan, A. Pothen, M. M. A. Patwary, N. Satish, N. Sundaram, F. Manne, M. Halappanavar,
P. Dubey, "Efficient approximation algorithms for weighted b-matching", SIAM J. Sci. Comput.
38(5), 2016.  Manne et al. (CSC 2016) §3.

Example
-------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 0, 0, 1], [1, 2, 3, 2], [4.0, 3.0, 2.0, 1.0])
>>> b_suitor(g, 2, backend="sim").partners.tolist()
[[1, 2], [0, 2], [0, 1], [-1, -1]]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from gpusim.errors import GpusimInternalError, InvalidArgument
from gpusim.language.variants import kernel_table
from gpusim.runtime.device import Device
from gpusim.runtime.device_scan import exclusive_scan_in_one_block
from gpusim.runtime.launcher import Launcher, count_up, fill
from gpusim.runtime.registry import register
from gpusim.runtime.resident_graphs import check_output
from gpusim.runtime.workspace import Workspace, workspace
from gpusim.types.device_graphs import DeviceWeightedGraph
from gpusim.types.graphs import WeightedGraph

from .assembly import host_only_output, in_batches, reduce_pairs, upload_weighted_graph
from .device_result import DeviceWeightedMatching, exactly
from .driver_b_suitor_multi import b_suitor_multi
from .kernels_b_suitor import b_suitor_round
from .kernels_result import b_partners
from .kernels_rounds import open_queue
from .kernels_slots import vertex_capacities
from .parallel_b import parallel_b_matching
from .result import BMatchingResult, WeightedMatching, b_capacities, check_b, check_partners_memory

__all__ = ["b_suitor", "run_b_suitor"]

#: The largest capacity an int32 holds; a larger ``b`` is the same (no vertex has more neighbours).
INT32_MAX = 2**31 - 1


def b_suitor(graph: WeightedGraph | DeviceWeightedGraph, b: Any, *, backend: str = "auto",
             device: Device | None = None, max_memory: int | None = None, kernels: Mapping[str, Any] | None = None,
             output: str = "host", devices: Any = None, client: Any = None
             ) -> BMatchingResult | DeviceWeightedMatching:
    """b-Suitor on a GPU backend: the greedy b-matching (Manne et al., CSC 2016 §3; Khan et al. 2016).

    Parameters
    ----------
    graph : WeightedGraph or DeviceWeightedGraph
        Non-negative weights; zero-weight edges are never chosen.  A device-resident graph is used where it
        lies, its slots laid out there (:mod:`~gpusim.algorithms.weighted.kernels_slots`).
    b : int or array_like of int
        The capacity of every vertex, or of each (length n); non-negative.
    backend, device
        Where to run (``device`` wins).
    max_memory : int, optional
        Refuse (``InvalidArgument``) when the partners table would take more bytes (default
        half the memory available).
    kernels : dict, optional
        ``{"b_suitor_round": variant}`` or a ``@device`` step it calls, replaced
        (:func:`~gpusim.language.variants.kernel_table`): the seam a bug hunt plants mutations through.
    output : str
        ``"host"`` (default) or ``"device"``: where the partners table goes.
    devices, client
        Split the graph over several devices (``2``, ``[0, 1]``, ``"all"``), on a Dask cluster (``client``) or one
        gpusim starts: :func:`~gpusim.algorithms.weighted.driver_b_suitor_multi.b_suitor_multi` (not with
        ``device``).

    Returns
    -------
    BMatchingResult
        ``partners`` (each row sorted, -1 padded), ``weight``, and ``stats`` with ``rounds``,
        ``launches`` and the device ``seconds``, as
        :func:`~gpusim.algorithms.weighted.reference_b_suitor.greedy_b_matching` returns them.
    DeviceWeightedMatching
        For ``output="device"``: ``partners`` a device array of ``n * width`` entries (row ``v`` at
        ``v * width``), ``weight`` and ``size`` added on the device, the same ``stats``; validated on demand,
        and :meth:`~gpusim.algorithms.weighted.device_result.DeviceWeightedMatching.to_host` gives the
        table as a ``(n, width)`` array.

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
    >>> b_suitor(g, [1, 2, 2, 1], backend="sim").partners.tolist()
    [[1, -1], [0, 2], [1, 3], [2, -1]]
    >>> m = b_suitor(g, 2, backend="sim", output="device")
    >>> m.width, m.size, m.weight, m.valid, m.to_host().partners.tolist()
    (2, 3, 5.0, True, [[1, -1], [0, 2], [1, 3], [2, -1]])
    """
    if devices is not None or client is not None:
        if device is not None:
            raise InvalidArgument("give device= (one device) or devices= (several), not both")
        return b_suitor_multi(graph, b, devices="all" if devices is None else devices, client=client, backend=backend,
                              max_memory=max_memory, kernels=kernels, output=output)
    check_output(output)
    round_kernel = kernel_table({"b_suitor_round": b_suitor_round}, kernels)["b_suitor_round"]
    dev, launch, ptr, adj, weights, src_dev = upload_weighted_graph(graph, backend, device)
    n = graph.n
    size = max(n, 1)
    scratch = workspace(dev, graph, "bsuitor")  # the slots, queues and counters: kept by a device graph between calls
    # vertex n is idle (capacity 0): it pads the queues, so a round is launched over n entries unread
    if isinstance(graph, DeviceWeightedGraph):
        b_dev, slot_ptr_dev, queue, slot_count, width = _slots_on_device(launch, n, ptr, check_b(graph, b),
                                                                         max_memory, scratch)
    else:
        degrees = np.diff(graph.ptr)
        caps = np.minimum(b_capacities(graph, b, max_memory, degrees), degrees).astype(np.int32)
        slot_ptr = np.zeros(n + 1, np.int32)
        np.cumsum(caps, out=slot_ptr[1:])
        slot_count, width = int(slot_ptr[-1]), int(caps.max()) if n else 0
        b_dev, slot_ptr_dev = dev.array(np.append(caps, np.int32(0))), dev.array(slot_ptr)
        queue = dev.array(np.arange(size, dtype=np.int32))
    slots = scratch.empty("slots", max(slot_count, 1), np.int32)
    locks, made = scratch.empty("locks", size, np.int32), scratch.empty("made", n + 1, np.int32)
    rounds, length, faults = (scratch.empty(name, 1, np.int32) for name in ("rounds", "length", "faults"))
    # each round fills in_next, and open_queue empties the next queue and pads the queue before anything reads them
    in_next, next_queue = scratch.empty("in_next", size, np.int32), scratch.empty("next_queue", size, np.int32)
    next_length = scratch.empty("next_length", 1, np.int32)
    block = 32 if dev.backend == "sim" else 128
    grid = Device.grid_for(n, block)

    def one_round() -> None:
        nonlocal queue, next_queue, length, next_length
        launch(fill, grid, block, in_next, 0, n)
        launch(open_queue, grid, block, queue, length, next_length, rounds, n)
        launch(round_kernel, grid, block, ptr, adj, weights, src_dev, b_dev, slot_ptr_dev, slots, locks, made,
               queue, n, next_queue, next_length, in_next)
        queue, next_queue, length, next_length = next_queue, queue, next_length, length

    reads = 0
    with launch.phase("rounds"):
        for array, value in ((slots, -1), (locks, 0), (made, 0), (rounds, 0), (length, n)):
            dev.fill(array, value)
        if n:
            reads = in_batches(one_round, lambda: launch.flag(length) == 0) + 1
    partners = dev.empty(max(n * width, 1), np.int32)  # the result, new each call: -1 where no partner
    weight, pairs, counted_rounds, counted_faults = reduce_pairs(
        launch, b_partners, n, src_dev, weights, slot_ptr_dev, slots, n, width, partners, faults, scratch=scratch,
        fills=((partners, -1), (faults, 0)), also=(rounds, faults))
    if counted_faults[0]:
        raise GpusimInternalError(f"GPU b-Suitor ended with asymmetric suitor sets on {graph!r}")
    stats = {"algorithm": "b_suitor", "size": pairs, "backend": dev.backend, "rounds": int(counted_rounds[0]),
             "reads": reads, "launches": dict(launch.launches), "seconds": dict(launch.seconds)}
    if output == "device":
        table = exactly(dev, partners, n * width)
        return DeviceWeightedMatching(graph, dev, table if width == 1 else None, weight, pairs, "bsuitor", stats,
                                      partners=table, width=width, b=b)
    return BMatchingResult(dev.to_host(partners)[:n * width].reshape(n, width), weight, stats)


def _slots_on_device(launch: Launcher, n: int, ptr: Any, b: int | np.ndarray, max_memory: int | None,
                     scratch: Workspace) -> tuple[Any, Any, Any, int, int]:
    """For a device-resident graph (offsets ``ptr`` on the device): the capacities ``min(b(v), degree(v))``
    (and 0 for the idle vertex ``n``), the slot offsets and the first queue (every vertex), computed on the
    device; only the slot count and the partners table's width are read back, and the width checked against
    ``max_memory``.  Returns ``(caps, slot_ptr, queue, slot_count, width)``, the first three on the device, the
    capacities and the queue work arrays of ``scratch``."""
    dev = launch.device
    if isinstance(b, int):
        each, scalar = scratch.empty("each", 1, np.int32), min(b, INT32_MAX)  # unread: one capacity for all
    else:   # one per vertex: given on the host, copied in (clipped to int32: no vertex has more neighbours)
        each, scalar = dev.array(np.minimum(b, INT32_MAX).astype(np.int32)) if n else dev.zeros(1, np.int32), -1
    caps = scratch.empty("caps", n + 1, np.int32)
    queue = scratch.empty("queue", max(n, 1), np.int32)
    block = 32 if dev.backend == "sim" else 256
    with launch.phase("slots"):
        launch(vertex_capacities, Device.grid_for(n + 1, block), block, ptr, each, scalar, n, caps)
        slot_ptr, totals = exclusive_scan_in_one_block(dev, caps, n, launch)
        launch(count_up, Device.grid_for(max(n, 1), block), block, queue, max(n, 1))
        slot_count, width = (int(x) for x in dev.to_host(totals))
    check_partners_memory(n, width, max_memory)
    return caps, slot_ptr, queue, slot_count, width


@register("weighted", "bsuitor", backends=("sim", "numba", "cupy", "cpu"), title="b-Suitor",
          paper=("khan2016bsuitor", "manne2016stable"),
          where="Alg. 2, as Manne et al. §3 relate it to stable marriage",
          guarantees="the greedy b-matching (a 1/2-approximation)", kernels=(b_suitor_round,))
def run_b_suitor(graph: WeightedGraph | DeviceWeightedGraph, backend: str, b: Any = 1,
                 max_memory: int | None = None, **options) -> WeightedMatching | DeviceWeightedMatching:
    """b-Suitor for :func:`~gpusim.algorithms.weighted.maximum_weight_matching` (``b`` defaults to 1): on a GPU
    backend, or with ``backend="cpu"`` the CPU engine's locally-dominant rounds on every core, which give the
    same b-matching (:func:`~gpusim.algorithms.weighted.parallel_b.parallel_b_matching`).  The b-matching is in
    ``partners``; for ``b = 1`` also in ``mate``.  With ``output="device"`` (GPU backends) both stay on the device."""
    if options.get("devices") is not None or options.get("client") is not None:
        # several devices; with device= (an exploration) every part on that one device
        devices = options.pop("devices", None)
        found = b_suitor_multi(graph, b, devices="all" if devices is None else devices, backend=backend,
                               max_memory=max_memory, **options)
    elif backend == "cpu":
        found = parallel_b_matching(graph, b, max_memory=max_memory, **host_only_output(options))
    else:
        found = b_suitor(graph, b, backend=backend, max_memory=max_memory, **options)
        if isinstance(found, DeviceWeightedMatching):
            found.stats["b"] = b
            return found
    partners = found.partners
    single = partners.ndim == 2 and partners.shape[1] == 1
    mate = partners[:, 0] if single else np.full(graph.n, -1, np.int32)
    stats = dict(found.stats, b=b)   # the partners are the result's array, not a list in stats (O(n b) on the host)
    return WeightedMatching(mate, found.weight, "bsuitor", backend, stats, graph, partners, b)
