"""b-Suitor on several devices: the vertices split over ``k`` parts, the offers between parts exchanged each round
(Naim and Manne, Scalable b-matching on GPUs, 2017; Khan et al. 2016).

Naim and Manne's "Scalable b-matching on GPUs" (2017) "extends the implementation to multiple GPUs to handle large
inputs"; only its summary is
in the seeds, so the design is gpusim's own, on its b-Suitor
(:mod:`~gpusim.algorithms.weighted.driver_b_suitor`):

* the vertices are cut into ``k`` contiguous ranges with about as many adjacency entries each
  (:func:`~gpusim.algorithms.weighted.b_suitor_parts.split_by_edges`), and each part — the rows of its
  vertices, their capacities and slots — goes to one device, part by part: no device ever holds the whole graph;
* a round on each part takes the messages sent to it and then proposes
  (:mod:`~gpusim.algorithms.weighted.kernels_b_suitor_multi`): offers to a vertex of another part, and the
  notices of offers turned down or pushed out, are batched per destination part;
* the outboxes are exchanged with an all-to-all, and the rounds end when no part sent anything (an all-reduce
  of the counts): :mod:`gpusim.runtime.collectives` does both, in one process (``k`` simulated devices, or
  several parts on one GPU, copied on the device) or across GPUs with NCCL in processes of a Dask cluster
  (:mod:`~gpusim.algorithms.weighted.b_suitor_dask`).

The result is the greedy b-matching, the one one-device b-Suitor finds: an offer turned down or pushed out is
never taken later (a vertex only becomes harder to please), so when no message is left each vertex holds the
best offers it can, whatever the order the messages were taken in.  It is validated against the input.

Example
-------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 0, 0, 1], [1, 2, 3, 2], [4.0, 3.0, 2.0, 1.0])
>>> found = b_suitor_multi(g, 2, devices=3, backend="sim")
>>> found.partners.tolist(), found.weight, found.stats["devices"]
([[1, 2], [0, 2], [0, 1], [-1, -1]], 8.0, 3)
>>> b_suitor_multi(WeightedGraph.from_edges([], [], [], 0), 1, devices=2, backend="sim").partners.shape
(0, 0)
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from gpusim.errors import BackendUnavailable, InvalidArgument, InvalidArgumentType
from gpusim.language.variants import kernel_table
from gpusim.runtime.collectives import InProcess
from gpusim.runtime.device import Device, choose_backend
from gpusim.types.graphs import WeightedGraph

from .b_suitor_parts import PART_KERNELS, Part, b_matching_of, make_parts, parts_of, phases, table_width
from .result import BMatchingResult

__all__ = ["b_suitor_multi", "check_devices", "run_rounds"]


def check_devices(devices: Any) -> int | list[int] | str:
    """``devices`` checked: a positive count, a non-empty list of GPU ids (repeats: several parts on one GPU), or
    ``"all"``.

    >>> check_devices(2), check_devices([0, 0]), check_devices("all")
    (2, [0, 0], 'all')
    """
    if isinstance(devices, str):
        if devices != "all":
            raise InvalidArgument(f"devices={devices!r}: give a number of devices, a list of GPU ids or 'all'")
        return devices
    if isinstance(devices, (int, np.integer)) and not isinstance(devices, (bool, np.bool_)):
        if devices < 1:
            raise InvalidArgument(f"devices={int(devices)} must be at least 1")
        return int(devices)
    if isinstance(devices, (list, tuple)) and devices and all(
            isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in devices):
        if min(devices) < 0:
            raise InvalidArgument(f"devices={list(devices)!r}: GPU ids are non-negative")
        return [int(d) for d in devices]
    raise InvalidArgumentType(f"devices must be a number, a list of GPU ids or 'all', got {devices!r}")


def run_rounds(parts: list[Part], exchange: Any, bar: Any = None) -> int:
    """The rounds of the parts this process holds, until no part anywhere sent a message; returns the rounds."""
    rounds = 0
    while True:
        sent = sum(int(part.round().sum()) for part in parts)
        total = exchange.all_reduce(sent)
        rounds += 1
        if bar is not None:
            bar.update(1)
            bar.set_postfix(messages=total, refresh=False)
        if total == 0:
            return rounds
        exchange.all_to_all(parts)


def b_suitor_multi(graph: WeightedGraph, b: Any, *, devices: Any, client: Any = None, backend: str = "auto",
                   device: Device | None = None, max_memory: int | None = None,
                   kernels: Mapping[str, Any] | None = None, output: str = "host",
                   progress: bool = False) -> BMatchingResult:
    """b-Suitor with the graph split over several devices: the greedy b-matching, as one-device
    :func:`~gpusim.algorithms.weighted.driver_b_suitor.b_suitor` finds it (Naim and Manne, Scalable b-matching on
    GPUs, 2017).

    Parameters
    ----------
    graph : WeightedGraph
        On the host; each device gets its part only.
    b : int or array_like of int
        The capacity of every vertex, or of each.
    devices : int, list of int or str
        On the simulator (``backend="sim"``): ``k`` simulated devices in this process.  On a GPU: GPU ids, one
        Dask-CUDA worker each (a count: the first ``k``; ``"all"``: every GPU of the host); an id repeated puts
        several parts on that one GPU, in this process.  With ``client``: a count of the cluster's workers, or
        ``"all"`` of them.
    client : dask.distributed.Client, optional
        A running Dask cluster to compute on, a part per worker; by default a ``LocalCUDACluster`` is started for
        GPU ids and closed at the end.
    device : Device, optional
        Every part on this one device (how an exploration runs the parts under one schedule).
    max_memory, kernels, output, progress
        ``max_memory`` bounds each device's partners table; ``kernels`` replaces
        :data:`~gpusim.algorithms.weighted.b_suitor_parts.PART_KERNELS` or their ``@device`` steps on every
        part; ``output`` is ``"host"`` (a table on the host); ``progress`` shows a bar of rounds.

    Returns
    -------
    BMatchingResult
        As one-device b-Suitor's, ``stats`` with ``rounds``, ``devices`` and ``seconds``
        (:func:`~gpusim.algorithms.weighted.b_suitor_parts.phases`: ``parts``, ``rounds``, ``table``, ``call``).

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
    >>> b_suitor_multi(g, [1, 2, 2, 1], devices=2, backend="sim").partners.tolist()
    [[1, -1], [0, 2], [1, 3], [2, -1]]
    >>> b_suitor_multi(g, 1, devices=[0, 0], device=Device("sim", seed=3)).partners.tolist()
    [[-1], [2], [1], [-1]]
    """
    if output != "host":
        raise InvalidArgument(f"output={output!r}: b-Suitor on several devices gives its table on the host "
                              f"(output='host')")
    wanted = check_devices(devices)
    table = kernel_table(PART_KERNELS, kernels)
    if client is not None:
        from .b_suitor_dask import on_cluster

        return on_cluster(graph, b, wanted, client, backend, max_memory, kernels, progress)
    name, reason = (device.backend, "given") if device is not None else choose_backend(backend, graph.n_edges)
    if name == "cpu":
        raise BackendUnavailable(f"devices={wanted!r} splits the graph over GPUs or simulated devices: backend "
                                 f"{backend!r} gives 'cpu' here ({reason}); use backend='sim' for simulated devices")
    if device is None and name != "sim" and (not isinstance(wanted, list) or len(set(wanted)) > 1):
        from .b_suitor_dask import on_cluster

        return on_cluster(graph, b, wanted, None, name, max_memory, kernels, progress)
    if wanted == "all":
        raise InvalidArgument(f"devices='all' names every GPU of the host: not on the {name!r} backend")
    k = wanted if isinstance(wanted, int) else len(wanted)
    inputs, value = parts_of(graph, b, k, max_memory)
    if device is not None:
        devs = [device] * k
    elif name == "sim":
        devs = [Device("sim", seed=p) for p in range(k)]
    else:
        devs = [Device(name)] * k
    start = time.perf_counter()
    parts = make_parts(inputs, devs, table)
    made = time.perf_counter()
    bar = tqdm(desc=f"b-Suitor on {k} devices", unit="round", leave=False) if progress else None
    try:
        rounds = run_rounds(parts, InProcess(parts, (table["copy_range"], table["copy_range_f64"])), bar)
    finally:
        if bar is not None:
            bar.close()
    ended = time.perf_counter()
    width = table_width(inputs)
    found = [part.rows(width) for part in parts]
    stats = {"algorithm": "b_suitor", "backend": devs[0].backend, "devices": k, "rounds": rounds,
             "launches": {name: sum(part.launch.launches[name] for part in parts)
                          for name in ("take_messages", "propose_round")}}
    result = b_matching_of(graph, value, found, stats)
    result.stats["seconds"] = phases(start, made, ended)
    return result
