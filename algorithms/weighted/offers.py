"""What the weighted GPU algorithms share: the graph on the device, and the order of two offers.

Suitor, Locally-Dominant and b-Suitor (:mod:`gpusim.algorithms.weighted`) name an offer by the CSR
entry ``j`` it travels along: its proposer is the entry's owner ``src[j]`` and its weight ``weights[j]``.
:func:`upload_weighted_graph` copies the CSR, its weights and ``src`` to the device; :func:`offer_beats`
compares two offers.

Example
-------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1], [1, 2], [1.0, 3.0])
>>> dev, launch, src, ptr, adj, weights, src_dev = upload_weighted_graph(g, "sim", None)
>>> src.tolist(), dev.to_host(adj).tolist()
([0, 1, 1, 2], [1, 0, 2, 1])
"""

from __future__ import annotations

import numpy as np

from gpusim import device
from gpusim.errors import InvalidArgumentType
from gpusim.runtime.device import Device
from gpusim.runtime.device_graphs import weighted_bytes
from gpusim.runtime.launcher import Launcher
from gpusim.types.graphs import WeightedGraph

__all__ = ["offer_beats", "upload_weighted_graph"]


@device
def offer_beats(weights, src, held, w, u):
    """1 when the offer ``(w, u)`` beats the held offer ``held`` (a CSR entry, -1 for none), else 0.

    Offers compare by weight, ties to the larger proposer id: a fixed receiver's view of the
    greedy order ``(w, max, min)`` (Alg. 3 line 14).
    """
    better = 0
    if held < 0:
        better = 1
    elif w > weights[held]:
        better = 1
    elif w == weights[held]:
        if u > src[held]:
            better = 1
    return better


def upload_weighted_graph(graph: WeightedGraph, backend: str, device: Device | None) -> tuple:
    """Check the arguments; copy the CSR, its weights and each entry's owner (``src``) to the device."""
    if not isinstance(graph, WeightedGraph):
        raise InvalidArgumentType(f"graph must be a WeightedGraph, got {type(graph).__name__}")
    if device is not None and not isinstance(device, Device):
        raise InvalidArgumentType(f"device must be a gpusim.Device, got {device!r}")
    dev = device if device is not None else Device(backend)
    dev.check_fits(weighted_bytes(graph, 4), "weighted matching", 'backend="cpu" (the sequential reference)')
    src = np.repeat(np.arange(graph.n, dtype=np.int32), np.diff(graph.ptr))
    empty = graph.adj.size == 0
    arrays = [dev.array(graph.ptr)] + [dev.array(np.zeros(1, a.dtype) if empty else a)
                                       for a in (graph.adj, graph.weights, src)]
    return dev, Launcher(dev), src, *arrays
