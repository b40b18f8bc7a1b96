"""Locally-Dominant matching on a GPU backend (Naim et al., HiPC 2015, Alg. 1–2): exactly the greedy matching.

The kernels are in :mod:`gpusim.algorithms.weighted.kernels_ld`; rounds repeat until one matches
nothing, which the device notes (:func:`~gpusim.algorithms.weighted.kernels_rounds.ld_close_round`): the
host launches rounds in batches and reads the flag once per batch
(:func:`~gpusim.algorithms.weighted.assembly.in_batches`).

Example
-------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
>>> locally_dominant(g, backend="sim").mate.tolist()
[-1, 2, 1, -1]
"""

from __future__ import annotations

import numpy as np

from gpusim.runtime.device import Device
from gpusim.runtime.launcher import fill
from gpusim.runtime.registry import register
from gpusim.runtime.resident_graphs import check_output
from gpusim.runtime.workspace import workspace
from gpusim.types.device_graphs import DeviceWeightedGraph
from gpusim.types.graphs import WeightedGraph

from .assembly import host_only_output, in_batches, reduce_pairs, upload_weighted_graph
from .device_result import DeviceWeightedMatching, exactly
from .kernels_ld import ld_candidates, ld_match
from .kernels_result import pair_weights
from .kernels_rounds import ld_close_round
from .parallel_ld import parallel_locally_dominant
from .result import WeightedMatching, from_reference

__all__ = ["locally_dominant", "run_locally_dominant"]


def locally_dominant(graph: WeightedGraph | DeviceWeightedGraph, *, backend: str = "auto",
                     device: Device | None = None, output: str = "host") -> WeightedMatching | DeviceWeightedMatching:
    """Locally-Dominant matching on a GPU backend (Naim et al., HiPC 2015, Alg. 1–2): equal to the greedy matching.

    Each round, every free vertex points at its heaviest free neighbour, and mutual pointers
    match; rounds repeat until none matches.  A thread per vertex; the host reads one flag per
    batch of rounds (``stats["reads"]`` counts the reads back).  ``graph`` may be a
    :class:`~gpusim.types.device_graphs.DeviceWeightedGraph` (no copy in); ``output="device"`` leaves
    ``mate`` on the device (a :class:`~gpusim.algorithms.weighted.device_result.DeviceWeightedMatching`,
    weight and size added there, validated on demand).

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 0, 1], [1, 2, 2], [2.0, 2.0, 5.0])
    >>> locally_dominant(g, backend="sim").mate.tolist()
    [-1, 2, 1]
    >>> m = locally_dominant(g, backend="sim", output="device")
    >>> m.weight, m.size, m.valid
    (5.0, 1, True)
    """
    check_output(output)
    dev, launch, ptr, adj, weights, _ = upload_weighted_graph(graph, backend, device, owners=False)
    n = graph.n
    scratch = workspace(dev, graph, "ld")  # the candidates and counters: kept by a device graph between calls
    mate = dev.empty(max(n, 1), np.int32)  # the result, new each call: every vertex free before the first round
    candidate = scratch.empty("candidate", max(n, 1), np.int32)
    matched, live, rounds = (scratch.empty(name, 1, np.int32) for name in ("matched", "live", "rounds"))
    block = 32 if dev.backend == "sim" else 256
    grid = Device.grid_for(n, block)

    def one_round() -> None:
        launch(fill, 1, 32, matched, 0, 1)
        launch(ld_candidates, grid, block, ptr, adj, weights, mate, candidate, n, live)
        launch(ld_match, grid, block, mate, candidate, n, matched, live)
        launch(ld_close_round, 1, 32, matched, live, rounds)

    reads = 0
    with launch.phase("rounds"):
        for array, value in ((mate, -1), (candidate, -1), (live, 1), (rounds, 0)):
            dev.fill(array, value)
        if n:
            reads = in_batches(one_round, lambda: not launch.flag(live)) + 1
    weight, pairs, counted = reduce_pairs(launch, pair_weights, n, ptr, adj, weights, mate, n, scratch=scratch,
                                          also=(rounds,))
    stats = {"rounds": int(counted[0]), "reads": reads}
    stats.update(launches=dict(launch.launches), seconds=dict(launch.seconds))
    if output == "device":
        return DeviceWeightedMatching(graph, dev, exactly(dev, mate, n), weight, pairs, "ld", stats)
    return WeightedMatching(dev.to_host(mate)[:n], weight, "ld", dev.backend, stats, graph, pairs=pairs)


@register("weighted", "ld", backends=("sim", "numba", "cupy", "cpu"), title="Locally-Dominant",
          paper="naim2015suitor", where="Alg. 1-2", guarantees="the greedy matching (a 1/2-approximation)",
          kernels=(ld_candidates, ld_match))
def run_locally_dominant(graph: WeightedGraph | DeviceWeightedGraph, backend: str, max_memory: int | None = None,
                         **options) -> WeightedMatching | DeviceWeightedMatching:
    """Locally-Dominant for :func:`~gpusim.algorithms.weighted.maximum_weight_matching`: on a GPU backend, or
    with ``backend="cpu"`` the CPU engine's Locally-Dominant rounds on every core
    (:func:`~gpusim.algorithms.weighted.parallel_ld.parallel_locally_dominant`; ``max_memory`` does not concern
    it; ``output`` must be ``"host"`` there)."""
    if backend == "cpu":
        return from_reference(parallel_locally_dominant(graph, **host_only_output(options)), "ld", graph)
    return locally_dominant(graph, backend=backend, **options)
