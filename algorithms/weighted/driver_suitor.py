"""Suitor on a GPU backend (Naim et al., HiPC 2015, Alg. 3–4): exactly the greedy matching.

Suitor ([003]_) computes exactly the greedy matching: edges by decreasing weight, ties to the larger
``(max(u, v), min(u, v))`` (see :func:`gpusim.algorithms.weighted.reference_greedy.greedy`).  An offer is
named by the CSR entry ``j`` it travels along: its proposer is the entry's owner ``src[j]`` and its
weight ``weights[j]``, so one ``int32`` word says who offers how much, and comparing two offers compares
the float64 weights and then the ids, exactly — with no sorting on the host.  ``ws[v]`` holds the best
offer ``v`` has received (-1: none) and only ``atomic_cas`` changes it.  The kernels are in
:mod:`gpusim.algorithms.weighted.kernels_suitor`.

References
----------
.. [003] M. Naim, "GPU algorithms for matching and clustering", PhD thesis, Bergen 2017,
   Naim et al. (HiPC 2015): M. Naim, F. Manne, M. Halappanavar, A. Tumeo, J. Langguth, "Optimizing approximate
   weighted matching on Nvidia Kepler K40", HiPC 2015 (reprinted in Naim's PhD thesis, 2017).

With ``output="device"`` the mate array stays on the device and the result is a
:class:`~gpusim.algorithms.weighted.device_result.DeviceWeightedMatching` (weight and size added there).

Example
-------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
>>> suitor(g, backend="sim").mate.tolist()
[-1, 2, 1, -1]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from gpusim.errors import InvalidArgument
from gpusim.language.kernels import DeviceFunction
from gpusim.language.variants import with_devices
from gpusim.runtime.device import Device
from gpusim.runtime.launcher import Launcher
from gpusim.runtime.plans import kept_plan
from gpusim.runtime.registry import register
from gpusim.runtime.resident_graphs import check_output
from gpusim.runtime.workspace import workspace
from gpusim.types.arguments import check_int
from gpusim.types.device_graphs import DeviceWeightedGraph
from gpusim.types.graphs import WeightedGraph

from .assembly import PairSums, host_only_output, upload_weighted_graph
from .device_result import DeviceWeightedMatching, exactly
from .driver_b_suitor_multi import b_suitor_multi
from .kernels_result import mate_from_offers
from .kernels_suitor import GPU_SUITOR, SUITOR_VARIANTS, gpu_suitor, suitor_thread_per_vertex
from .parallel_ld import parallel_locally_dominant
from .result import WeightedMatching, from_reference

__all__ = ["SUITOR_MAX_BLOCK", "run_suitor", "suitor"]

#: The most threads per block :func:`gpu_suitor`'s shared queues hold (8 warps).
SUITOR_MAX_BLOCK = 256


def suitor(graph: WeightedGraph | DeviceWeightedGraph, *, backend: str = "auto", layout: str = "warp",
           variant: str = "nosync", vertices_per_warp: int = 4, balance_rounds: int = 2, block: int | None = None,
           device: Device | None = None, kernels: Mapping[str, DeviceFunction] | None = None,
           output: str = "host", devices: Any = None, client: Any = None
           ) -> WeightedMatching | DeviceWeightedMatching:
    """The Suitor matching on a GPU backend: equal to the greedy matching (Naim et al., HiPC 2015, Alg. 3–4).

    Parameters
    ----------
    graph:
        An undirected graph with non-negative weights; zero-weight edges are never matched.  A
        :class:`~gpusim.types.device_graphs.DeviceWeightedGraph` is used where it lies (no copy in).
    backend, device:
        Where to run (``device`` wins): ``"sim"``, ``"numba"``, ``"cupy"`` or ``"auto"``.
    layout:
        ``"warp"``: GPU-Suitor (Alg. 4), a warp per chunk of vertices; ``"thread"``: a thread
        per vertex (Alg. 3 with a CAS in place of the lock).
    variant:
        For the warp layout, the paper's synchronisation variants: ``"nosync"``, ``"syncnolb"``,
        ``"synclb"`` or ``"hybrid"``: the step at line 10 of
        :func:`~gpusim.algorithms.weighted.kernels_suitor.gpu_suitor` (:data:`SUITOR_VARIANTS`).
    vertices_per_warp:
        How many consecutive vertices each warp owns (the paper's vertices-per-warp), 1 to 32.
    balance_rounds:
        The first rounds in which SyncLB and Hybrid balance the load (the paper's ``k``).
    block:
        Threads per block (a multiple of 32, at most 256); by default 64 on the simulator (two
        warps, so the variants differ) and 128 on a GPU.
    kernels:
        Device functions to run in place of the kernel's own steps, by name (e.g. ``{"propose": ...}``;
        :func:`gpusim.language.variants.with_devices`): how the zoo's broken twins run.
    output:
        ``"host"`` (default): a :class:`~gpusim.algorithms.weighted.WeightedMatching` of host arrays;
        ``"device"``: a :class:`~gpusim.algorithms.weighted.device_result.DeviceWeightedMatching` whose
        ``mate`` is a device array (no copy back; validated on demand).
    devices, client:
        Split the graph over several devices (``2``, ``[0, 1]``, ``"all"``; a Dask ``client``), as b-Suitor with
        ``b = 1`` (:func:`~gpusim.algorithms.weighted.driver_b_suitor_multi.b_suitor_multi`): the same matching,
        returned as here (not with ``device``; ``layout``, ``variant`` and the warp options do not apply).

    Notes
    -----
    ``ws[v]`` holds the offer ``v`` has accepted as the CSR entry ``j`` it came along (-1:
    none): the suitor is the entry's owner ``src[j]`` and the weight ``weights[j]``, so one
    ``int32`` compare-and-swap replaces the paper's lock, and offers compare exactly as the
    float64 weights and ids do.  Offers only ever improve, so the CAS loop ends; the result is
    the greedy matching whatever the schedule.

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
    >>> suitor(g, backend="sim", variant="synclb").mate.tolist()
    [-1, 2, 1, -1]
    >>> suitor(WeightedGraph.from_edges([], [], [], n=0), backend="sim").mate.tolist()
    []
    >>> m = suitor(g, backend="sim", layout="thread", output="device")
    >>> m.size, m.weight, m.valid, m.to_host().mate.tolist()
    (1, 3.0, True, [-1, 2, 1, -1])
    """
    if devices is not None or client is not None:
        return _on_several(graph, backend, device, kernels, output, devices, client)
    options = (backend, layout, variant, vertices_per_warp, balance_rounds, block, device, kernels, output)
    launch, run = kept_plan(graph, "suitor", options, lambda: _plan(graph, *options))
    return run(launch)


def _on_several(graph: WeightedGraph, backend: str, device: Device | None, kernels: Any, output: str, devices: Any,
                client: Any) -> WeightedMatching:
    """:func:`suitor` over several devices: b-Suitor with ``b = 1`` split over them, as Suitor's result."""
    if device is not None:
        raise InvalidArgument("give device= (one device) or devices= (several), not both")
    found = b_suitor_multi(graph, 1, devices="all" if devices is None else devices, client=client, backend=backend,
                           kernels=kernels, output=output)
    mate = found.partners[:, 0] if found.partners.shape[1] else np.full(graph.n, -1, np.int32)
    return WeightedMatching(mate, found.weight, "suitor", found.stats["backend"], dict(found.stats), graph)


def _plan(graph: WeightedGraph | DeviceWeightedGraph, backend: str, layout: str, variant: str, vertices_per_warp: int,
          balance_rounds: int, block: int | None, device: Device | None,
          kernels: Mapping[str, DeviceFunction] | None, output: str) -> tuple:
    """:func:`suitor`'s options checked, the graph on the device and the work arrays found: ``(launch, run)``, where
    ``run(launch)`` makes the offers (Alg. 3 or 4) and the matching from them (:mod:`gpusim.runtime.plans`)."""
    check_output(output)
    if layout not in ("warp", "thread"):
        raise InvalidArgument(f"layout={layout!r} is not one of ('warp', 'thread')")
    if variant not in SUITOR_VARIANTS:
        raise InvalidArgument(f"variant={variant!r} is not one of {tuple(SUITOR_VARIANTS)}")
    check_int("vertices_per_warp", vertices_per_warp, 1, 32)
    check_int("balance_rounds", balance_rounds, 0, None)
    if block is not None and check_int("block", block, 1, SUITOR_MAX_BLOCK) % 32:
        raise InvalidArgument(f"block={block!r} must be a multiple of 32 (whole warps)")
    paper_kernel = suitor_thread_per_vertex if layout == "thread" else GPU_SUITOR[variant]
    launched = with_devices(paper_kernel, kernels or {})
    dev, launch, ptr, adj, weights, src_dev = upload_weighted_graph(graph, backend, device)
    n = graph.n
    scratch = workspace(dev, graph, "suitor")  # ws and the sums' arrays: kept by a device graph between calls
    ws = scratch.empty("ws", max(n, 1), np.int32)
    sums = PairSums(dev, n, scratch)
    block = block or (64 if dev.backend == "sim" else 128)
    if layout == "thread":
        grid, shape = Device.grid_for(n, block), ()
    else:
        grid, shape = Device.grid_for(32 * -(-n // vertices_per_warp), block), (vertices_per_warp, balance_rounds)
    stats = {"layout": layout, "variant": variant if layout == "warp" else None, "vertices_per_warp": vertices_per_warp}

    def run(launch: Launcher) -> WeightedMatching | DeviceWeightedMatching:
        if n:
            with launch.phase("suitor"):
                dev.fill(ws, -1)  # no offer yet
                launch(launched, grid, block, ptr, adj, weights, src_dev, ws, n, *shape)
                # the result's array, made by the host while the device makes the offers (its wait comes after)
                mate = dev.empty(n, np.int32)  # mate_from_offers writes every vertex's
        else:
            mate = dev.empty(1, np.int32)  # no vertex: one unused item, as every device array has
        weight, pairs = sums(launch, mate_from_offers, ws, src_dev, weights, n, mate)
        result_stats = {**stats, "launches": dict(launch.launches), "seconds": dict(launch.seconds)}
        if output == "device":
            return DeviceWeightedMatching(graph, dev, exactly(dev, mate, n), weight, pairs, "suitor", result_stats)
        return WeightedMatching(dev.to_host(mate)[:n], weight, "suitor", dev.backend, result_stats, graph, pairs=pairs)

    return launch, run


@register("weighted", "suitor", backends=("sim", "numba", "cupy", "cpu"),
          title="Suitor (GPU-Suitor, or a thread per vertex)",
          paper="naim2015suitor", where="Alg. 3-4", guarantees="the greedy matching (a 1/2-approximation)",
          kernels=(gpu_suitor, suitor_thread_per_vertex))
def run_suitor(graph: WeightedGraph | DeviceWeightedGraph, backend: str, max_memory: int | None = None, **options
               ) -> WeightedMatching | DeviceWeightedMatching:
    """Suitor for :func:`~gpusim.algorithms.weighted.maximum_weight_matching`: on a GPU backend, or with
    ``backend="cpu"`` the CPU engine's Locally-Dominant rounds on every core, which give the same matching
    (:func:`~gpusim.algorithms.weighted.parallel_ld.parallel_locally_dominant`; ``max_memory`` does not concern
    it; ``output`` must be ``"host"`` there)."""
    if backend == "cpu":
        return from_reference(parallel_locally_dominant(graph, **host_only_output(options)), "suitor", graph)
    return suitor(graph, backend=backend, **options)
