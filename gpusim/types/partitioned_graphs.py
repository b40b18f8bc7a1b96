"""A weighted graph held as row blocks, one per device: the input of b-Suitor over several devices when no one
device (or host array) is to hold it whole.

:class:`PartitionedGraph` is ``k`` consecutive blocks of rows of a symmetric CSR, each with its own offsets,
neighbour ids (global) and weights, as they are read or made part by part.  Each block is checked as
:class:`~gpusim.types.weighted_graph.WeightedGraph` checks its CSR (sorted, duplicate-free lists, no self loop,
finite non-negative weights), and the whole for symmetry on the host.  :meth:`PartitionedGraph.edge_weights`
looks edges up block by block: how a result is validated against it.

Example
-------
>>> g = PartitionedGraph(3, [([0, 1, 3], [1, 0, 2], [2.0, 2.0, 5.0]), ([0, 1], [1], [5.0])])
>>> g, g.bounds.tolist()
(PartitionedGraph(n=3, n_edges=2, parts=2), [0, 2, 3])
>>> g.edge_weights([1, 0], [2, 1]).tolist()
[5.0, 2.0]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.types.arguments import as_ids, as_weights, check_count
from gpusim.types.graph_inputs import check_csr, check_symmetric

__all__ = ["Block", "PartitionedGraph"]


@dataclass(frozen=True)
class Block:
    """Rows ``first .. last - 1``: ``ptr`` (from 0, int32), ``adj`` (global ids, int32), ``weights`` (float64)."""

    first: int
    last: int
    ptr: np.ndarray
    adj: np.ndarray
    weights: np.ndarray


class PartitionedGraph:
    """An undirected weighted graph on ``n`` vertices as consecutive row blocks ``(ptr, adj, weights)``.

    Parameters
    ----------
    n : int
        Vertices.
    blocks : list of tuple
        ``(ptr, adj, weights)`` of each block: block ``p`` holds the rows after those of blocks ``0 .. p - 1``,
        ``len(ptr) - 1`` of them.
    """

    def __init__(self, n: int, blocks: Any):
        n = check_count("n", n)
        if not isinstance(blocks, (list, tuple)) or not blocks:
            raise InvalidArgumentType(f"blocks must be a non-empty list of (ptr, adj, weights), got {blocks!r}")
        made, first, rows, cols, values = [], 0, [], [], []
        for p, block in enumerate(blocks):
            if not isinstance(block, (list, tuple)) or len(block) != 3:
                raise InvalidArgumentType(f"blocks[{p}] must be (ptr, adj, weights), got {type(block).__name__}")
            ptr = as_ids(f"blocks[{p}].ptr", block[0])
            last = first + ptr.shape[0] - 1
            if last > n or ptr.shape[0] == 0:
                raise InvalidArgument(f"blocks[{p}] has {ptr.shape[0] - 1} rows after row {first}; the graph has {n}")
            src = check_csr(f"blocks[{p}].ptr", ptr, f"blocks[{p}].adj", block[1], last - first, n) + first
            adj = as_ids(f"blocks[{p}].adj", block[1])
            w = as_weights(f"blocks[{p}].weights", block[2], adj.shape[0])
            loops = np.flatnonzero(src == adj)
            if loops.size:
                raise InvalidArgument(f"blocks[{p}].adj[{int(loops[0])}]={int(adj[loops[0]])} is a self loop")
            made.append(Block(first, last, ptr.astype(np.int32), adj.astype(np.int32), w.astype(np.float64)))
            rows.append(src)
            cols.append(adj)
            values.append(w)
            first = last
        if first != n:
            raise InvalidArgument(f"the blocks hold rows 0..{first - 1}; the graph has n={n}")
        check_symmetric("the graph held in blocks", np.concatenate(rows), np.concatenate(cols),
                        np.concatenate(values), n)
        self.n, self.blocks = n, made

    @classmethod
    def of(cls, graph: Any, k: int) -> PartitionedGraph:
        """A :class:`~gpusim.types.weighted_graph.WeightedGraph` cut into ``k`` blocks of about as many entries."""
        ptr = np.asarray(graph.ptr, np.int64)
        entries = int(ptr[-1])
        inner = np.searchsorted(ptr, np.arange(1, k) * entries // k) if entries else np.arange(1, k) * graph.n // k
        bounds = np.concatenate([[0], np.minimum(inner, graph.n), [graph.n]])
        blocks = [(ptr[a:b + 1] - ptr[a], graph.adj[ptr[a]:ptr[b]], graph.weights[ptr[a]:ptr[b]])
                  for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        return cls(graph.n, blocks)

    @property
    def k(self) -> int:
        return len(self.blocks)

    @property
    def bounds(self) -> np.ndarray:
        return np.array([0] + [block.last for block in self.blocks], np.int64)

    @property
    def n_edges(self) -> int:
        return sum(int(block.adj.size) for block in self.blocks) // 2

    def edge_weights(self, v: Any, x: Any) -> np.ndarray:
        """The weight of each edge ``(v[i], x[i])``; ``InvalidArgument`` naming the first pair that is not an edge."""
        v, x = np.asarray(v, np.int64), np.asarray(x, np.int64)
        found = np.full(v.size, np.nan)
        owner = np.searchsorted(self.bounds, v, side="right") - 1
        for p, block in enumerate(self.blocks):
            mine = np.flatnonzero(owner == p)
            if not mine.size:
                continue
            rows = np.repeat(np.arange(block.last - block.first, dtype=np.int64), np.diff(block.ptr))
            keys = rows * self.n + block.adj   # sorted: rows in order, each list increasing
            wanted = (v[mine] - block.first) * self.n + x[mine]
            at = np.minimum(np.searchsorted(keys, wanted), max(keys.size - 1, 0))
            hit = keys[at] == wanted if keys.size else np.zeros(mine.size, bool)
            found[mine[hit]] = block.weights[at[hit]]
        missing = np.flatnonzero(np.isnan(found))
        if missing.size:
            i = int(missing[0])
            raise InvalidArgument(f"({int(v[i])}, {int(x[i])}) is not an edge of the graph")
        return found

    def __repr__(self) -> str:
        return f"PartitionedGraph(n={self.n}, n_edges={self.n_edges}, parts={self.k})"
