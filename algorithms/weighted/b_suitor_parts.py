"""The parts of a graph for b-Suitor over several devices, and one part's host loop (Naim and Manne, "Scalable
b-matching on GPUs", 2017).

:func:`split_by_edges` cuts the vertices into ``k`` contiguous ranges holding about as many adjacency entries
each; :class:`PartInput` is one range's rows (built from a whole graph by :meth:`PartInput.of`, or given part by
part); :class:`Part` holds one part on one :class:`~gpusim.runtime.device.Device` and runs its half of each
round (:mod:`~gpusim.algorithms.weighted.kernels_b_suitor_multi`), leaving its outbox, batched per destination,
for the exchange (:mod:`gpusim.runtime.collectives`).

The outbox to part ``d`` has room for every message one round can send there: at most
``min(cross, S_p)`` proposals (each of the part's ``S_p`` slots' owners has at most that many offers out),
``min(cross, S_p)`` notices of offers pushed out of its slots and ``min(cross, S_d)`` of offers turned down,
and never more than ``2 cross`` (each entry of the ``cross`` between the two parts carries at most one
proposal and one notice, ever).

Example
-------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
>>> split_by_edges(g.ptr, 2).tolist()
[0, 2, 4]
>>> PartInput.of(g, 1, split_by_edges(g.ptr, 2), 2).adj.tolist()
[1, 3, 2]

References
----------
M. Naim and F. Manne, "Scalable b-matching on GPUs", in M. Naim's PhD thesis, University of Bergen, 2017
(multi-GPU b-matching; its summary only), and Manne et al. (CSC 2016) §3;
A. Khan et al., "Efficient approximation algorithms for weighted b-matching", SIAM J. Sci. Comput. 38(5), 2016.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpusim.errors import GpusimInternalError, InvalidArgument, InvalidArgumentType
from gpusim.runtime.collectives import copy_range, copy_range_f64
from gpusim.runtime.device import Device
from gpusim.runtime.launcher import Launcher
from gpusim.types.graphs import WeightedGraph
from gpusim.types.partitioned_graphs import Block, PartitionedGraph

from .assembly import reduce_pairs
from .kernels_b_suitor_multi import part_rows, propose_round, take_messages
from .result import BMatchingResult, check_b, check_partners_memory

__all__ = ["PART_KERNELS", "Part", "PartInput", "b_matching_of", "make_parts", "make_rooms", "message_room", "parts_of",
           "phases", "split_by_edges", "table_width"]

#: The kernels a part launches, and the exchange's copies between parts of one device, by name: what ``kernels=``
#: may replace (or any ``@device`` step they call).
PART_KERNELS = {"take_messages": take_messages, "propose_round": propose_round, "part_rows": part_rows,
                "copy_range": copy_range, "copy_range_f64": copy_range_f64}


def split_by_edges(ptr: np.ndarray, k: int) -> np.ndarray:
    """``k + 1`` bounds of ``k`` contiguous vertex ranges with about as many adjacency entries each (a range may
    be empty); ``ptr`` the CSR offsets of the whole graph."""
    ptr = np.asarray(ptr, np.int64)
    n, entries = ptr.size - 1, int(ptr[-1])
    targets = (np.arange(1, k, dtype=np.int64) * entries) // max(k, 1)
    inner = np.searchsorted(ptr, targets, side="left") if entries else np.arange(1, k) * n // max(k, 1)
    return np.concatenate([[0], np.minimum(inner, n), [n]]).astype(np.int64)


@dataclass
class PartInput:
    """The rows of the vertices ``first <= v < last`` on the host: ``ptr`` (offsets from 0), ``adj`` (global
    vertex ids), ``weights``, and ``caps[v - first] = min(b(v), degree(v))``."""

    first: int
    last: int
    ptr: np.ndarray
    adj: np.ndarray
    weights: np.ndarray
    caps: np.ndarray

    @classmethod
    def of(cls, graph: Any, p: int, bounds: np.ndarray, b: int | np.ndarray) -> PartInput:
        """Part ``p`` of ``graph`` (a :class:`~gpusim.types.graphs.WeightedGraph`) cut at ``bounds``; ``b`` checked."""
        first, last = int(bounds[p]), int(bounds[p + 1])
        start, stop = int(graph.ptr[first]), int(graph.ptr[last])
        ptr = (np.asarray(graph.ptr[first:last + 1], np.int64) - start).astype(np.int32)
        degrees = np.diff(ptr).astype(np.int64)
        wanted = b if isinstance(b, int) else np.asarray(b)[first:last]
        caps = np.minimum(wanted, degrees).astype(np.int32)
        return cls(first, last, ptr, np.ascontiguousarray(graph.adj[start:stop], np.int32),
                   np.ascontiguousarray(graph.weights[start:stop], np.float64), caps)

    @classmethod
    def of_block(cls, block: Block, b: int | np.ndarray) -> PartInput:
        """A block of a :class:`~gpusim.types.partitioned_graphs.PartitionedGraph` (its arrays, not copies)."""
        degrees = np.diff(block.ptr).astype(np.int64)
        wanted = b if isinstance(b, int) else np.asarray(b)[block.first:block.last]
        return cls(block.first, block.last, block.ptr, block.adj, block.weights,
                   np.minimum(wanted, degrees).astype(np.int32))

    def cross(self, bounds: np.ndarray) -> np.ndarray:
        """How many of this part's entries point into each part (``k`` counts)."""
        below = [np.count_nonzero(self.adj < bound) for bound in np.asarray(bounds)]  # a pass per bound: k is small
        return np.diff(below).astype(np.int64)

    @property
    def slots(self) -> int:
        return int(self.caps.sum(dtype=np.int64))


def message_room(cross: np.ndarray, mine: int, slots: np.ndarray) -> np.ndarray:
    """Room for one round's messages from a part with ``mine`` slots to each part (``slots[d]`` theirs),
    ``cross[d]`` entries between the two (see the module notes)."""
    cross = np.asarray(cross, np.int64)
    return np.minimum(2 * cross, 2 * np.minimum(cross, mine) + np.minimum(cross, slots))


class Part:
    """Part ``rank`` of ``k`` on device ``dev``: its rows, slots, queue, outbox and inbox on the device.

    ``room_out[d]`` and ``room_in`` size the outbox to each part and the inbox (:func:`message_room`).  After
    :meth:`round`, ``sent[d]`` messages for part ``d`` lie in the outbox from ``start[d]``; the exchange
    writes the messages for this part into the inbox and sets ``received``.
    """

    def __init__(self, dev: Device, data: PartInput, rank: int, bounds: np.ndarray, room_out: np.ndarray,
                 room_in: int, kernels: dict, launch: Launcher | None = None):
        self.dev, self.rank, self.data = dev, rank, data
        self.launch = launch if launch is not None else Launcher(dev)
        self.kernels = kernels
        self.first, self.last = data.first, data.last
        self.n, self.k = data.last - data.first, len(bounds) - 1
        n, entries = self.n, max(int(data.ptr[-1]), 1)
        self.block = 32 if dev.backend == "sim" else 128
        # the rows (16 bytes an entry with tried), seven arrays a vertex, the slots, the outbox and the inbox
        needed = 16 * entries + 28 * (n + 1) + 4 * data.slots + 16 * (int(np.sum(room_out)) + room_in)
        dev.check_fits(needed, f"part {rank} of b-Suitor over {self.k} devices", "more devices (a smaller part each)")
        array = dev.array
        self.ptr = array(data.ptr)
        self.adj = array(data.adj if data.adj.size else np.zeros(1, np.int32))
        self.weights = array(data.weights if data.weights.size else np.zeros(1, np.float64))
        slot_ptr = np.zeros(n + 1, np.int32)
        np.cumsum(data.caps, out=slot_ptr[1:])
        self.b, self.slot_ptr = array(np.append(data.caps, np.int32(0))), array(slot_ptr)
        # slots[s]: the entry of the owner's own list that points at the suitor held in slot s; -1 empty
        self.slots = dev.full(max(int(slot_ptr[-1]), 1), -1, np.int32)
        self.locks, self.made = dev.zeros(max(n, 1), np.int32), dev.zeros(max(n, 1), np.int32)
        self.tried = dev.zeros(entries, np.int32)    # tried[j]: entry j's neighbour was proposed to (or passed over)
        self.in_next = dev.zeros(max(n, 1), np.int32)  # 1 while the vertex waits in the queue
        self.queue = array(np.arange(max(n, 1), dtype=np.int32))  # the vertices that propose this round
        self.queue_length = array(np.array([n], np.int32))
        self.bounds = array(np.asarray(bounds, np.int32))
        starts = np.zeros(self.k + 1, np.int64)
        np.cumsum(room_out, out=starts[1:])
        self.start = starts[:-1]
        self.out_start = array(self.start.astype(np.int32))
        self.out_count = dev.zeros(self.k, np.int32)
        total = max(int(starts[-1]), 1)
        # the outbox: message i for part d at start[d] + i; (target, other, weight), see kernels_b_suitor_multi
        self.out = (dev.zeros(total, np.int32), dev.zeros(total, np.int32), dev.zeros(total, np.float64))
        self.inbox = (dev.zeros(max(room_in, 1), np.int32), dev.zeros(max(room_in, 1), np.int32),
                      dev.zeros(max(room_in, 1), np.float64))
        self.received, self.rounds = 0, 0
        self.sent = np.zeros(self.k, np.int64)

    def round(self) -> np.ndarray:
        """Take the inbox, then propose; returns ``sent`` (messages per destination part, read back)."""
        dev, launch, block = self.dev, self.launch, self.block
        dev.fill(self.out_count, 0)
        if self.rounds:
            dev.fill(self.queue_length, 0)
        with launch.phase("rounds"):
            if self.received:
                launch(self.kernels["take_messages"], Device.grid_for(self.received, block), block, self.ptr,
                       self.adj, self.weights, self.slot_ptr, self.slots, self.locks, self.made, self.in_next,
                       self.queue, self.queue_length, *self.inbox, self.received, self.first, self.bounds, self.k,
                       *self.out, self.out_start, self.out_count)
            launch(self.kernels["propose_round"], Device.grid_for(max(self.n, 1), block), block, self.ptr, self.adj,
                   self.weights, self.b, self.slot_ptr, self.slots, self.tried, self.made, self.in_next, self.queue,
                   self.queue_length, self.first, self.last, self.bounds, self.k, *self.out, self.out_start,
                   self.out_count)
            self.sent = dev.to_host(self.out_count).astype(np.int64)
        self.rounds += 1
        return self.sent

    def rows(self, width: int) -> tuple[np.ndarray, float, int]:
        """After the rounds: this part's rows of the partners table, ``(n, width)`` on the host (made on the device
        by :func:`~gpusim.algorithms.weighted.kernels_b_suitor_multi.part_rows`), and the weight and number of the
        pairs whose larger end it owns."""
        table = self.dev.empty(max(self.n * width, 1), np.int32)
        weight, pairs = reduce_pairs(self.launch, self.kernels["part_rows"], self.n, self.adj, self.weights,
                                     self.slot_ptr, self.slots, self.n, self.first, width, table,
                                     fills=((table, -1),))
        return self.dev.to_host(table)[:self.n * width].reshape(self.n, width), weight, pairs


def parts_of(graph: WeightedGraph | PartitionedGraph, b: Any, k: int, max_memory: int | None = None
             ) -> tuple[list[PartInput], Any]:
    """``graph`` cut into ``k`` parts by edges (a :class:`~gpusim.types.partitioned_graphs.PartitionedGraph`: its
    blocks), ``b`` checked; each part's partners table checked against
    ``max_memory`` (per device).  Returns the parts and the checked ``b``."""
    if not isinstance(graph, (WeightedGraph, PartitionedGraph)):
        raise InvalidArgumentType(f"graph must be a WeightedGraph or a PartitionedGraph, got {type(graph).__name__}")
    value = check_b(graph, b)
    if isinstance(graph, PartitionedGraph):
        if graph.k != k:
            raise InvalidArgument(f"the graph is held in {graph.k} blocks, a device each: not on {k} devices")
        parts = [PartInput.of_block(block, value) for block in graph.blocks]
    else:
        bounds = split_by_edges(graph.ptr, k)
        parts = [PartInput.of(graph, p, bounds, value) for p in range(k)]
    for part in parts:
        check_partners_memory(part.last - part.first, int(part.caps.max()) if part.caps.size else 0, max_memory)
    return parts, value


def make_rooms(inputs: list[PartInput]) -> tuple[np.ndarray, list[np.ndarray], list[int]]:
    """The parts' bounds, each part's outbox room per destination and its inbox room (:func:`message_room`)."""
    bounds = np.array([inputs[0].first] + [part.last for part in inputs], np.int64)
    slots = np.array([part.slots for part in inputs], np.int64)
    cross = np.array([part.cross(bounds) for part in inputs])   # cross[p, d]: entries of p pointing into d
    rooms = [message_room(cross[p], int(slots[p]), slots) for p in range(len(inputs))]
    room_in = [int(sum(rooms[s][d] for s in range(len(inputs)))) for d in range(len(inputs))]
    return bounds, rooms, room_in


def make_parts(inputs: list[PartInput], devices: list[Device], kernels: dict) -> list[Part]:
    """One :class:`Part` per input, each on its device, its outbox and inbox sized for one round."""
    bounds, rooms, room_in = make_rooms(inputs)
    return [Part(dev, part, p, bounds, rooms[p], room_in[p], kernels) for p, (dev, part) in
            enumerate(zip(devices, inputs, strict=True))]


def phases(start: float, made: float, ended: float) -> dict[str, float]:
    """A call's seconds from its ``time.perf_counter()`` readings: ``parts`` (cut and placed on their devices),
    ``rounds`` (to the last exchange), ``table`` (the parts' rows made, read back and joined: until now), ``call``."""
    now = time.perf_counter()
    return {"parts": made - start, "rounds": ended - made, "table": now - ended, "call": now - start}


def table_width(inputs: list[PartInput]) -> int:
    """The partners table's width, as one-device b-Suitor's: the most partners a vertex can have,
    ``max over v of min(b(v), degree(v))`` (0 for no vertex)."""
    return max((int(part.caps.max()) for part in inputs if part.caps.size), default=0)


def b_matching_of(graph: WeightedGraph | PartitionedGraph, b: Any, blocks: list[tuple[np.ndarray, float, int]],
                  stats: dict) -> BMatchingResult:
    """The b-matching in the parts' rows of the partners table (``blocks``: each part's ``(rows, weight, pairs)``
    from :meth:`Part.rows`, in rank order), checked: rows increasing, -1 padded, within ``b``, mirrored (``x``
    in row ``v`` exactly when ``v`` is in row ``x``) and as many pairs as the parts counted.  As one-device
    b-Suitor's, the table is validated against a :class:`~gpusim.types.graphs.WeightedGraph` on demand (by the
    :class:`~gpusim.algorithms.weighted.result.WeightedMatching` made of it); against a graph held in blocks, here,
    block by block."""
    n = graph.n
    partners = np.concatenate([rows for rows, _, _ in blocks]) if blocks else np.zeros((n, 0), np.int32)
    width = partners.shape[1]
    flat = partners.ravel()
    held = np.flatnonzero(flat >= 0)
    v, x = held // max(width, 1), flat[held].astype(np.int64)
    caps = np.full(n, b, np.int64) if isinstance(b, int) else np.asarray(b, np.int64)
    if isinstance(graph, PartitionedGraph):
        degrees = np.concatenate([np.diff(block.ptr) for block in graph.blocks]).astype(np.int64)
        try:
            graph.edge_weights(v, x)
        except InvalidArgument as fault:
            raise GpusimInternalError(f"b-Suitor on {stats['devices']} devices returned a pair of {graph!r} that is "
                                      f"not an edge: {fault}") from None
    else:
        degrees = np.diff(graph.ptr).astype(np.int64)
    if np.any(np.bincount(v, minlength=n) > np.minimum(caps, degrees)):
        raise GpusimInternalError(f"b-Suitor on {stats['devices']} devices gave a vertex more than b partners")
    before, after = partners[:, :-1], partners[:, 1:]
    if np.any((after >= 0) & ((before < 0) | (before >= after))):
        raise GpusimInternalError(f"b-Suitor on {stats['devices']} devices gave a row of partners out of order "
                                  f"(or a partner twice) on {graph!r}")
    held_back = np.zeros(v.size, bool)
    for column in partners.T:      # a gather per column: faster than one of whole rows
        held_back |= column[x] == v
    if not np.all(held_back) or 2 * sum(pairs for _, _, pairs in blocks) != v.size:
        raise GpusimInternalError(f"b-Suitor on {stats['devices']} devices ended with asymmetric suitor sets on "
                                  f"{graph!r}")
    stats = {"algorithm": stats["algorithm"], "size": int(v.size) // 2, **stats}
    return BMatchingResult(partners, math.fsum(weight for _, weight, _ in blocks), stats)
