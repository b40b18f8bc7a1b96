"""b-Suitor over several GPUs in the processes of a Dask cluster: a part per worker, NCCL between them.

Dask starts and watches the processes: a ``dask_cuda.LocalCUDACluster`` (a worker per GPU of the host, the
default) or the cluster of a ``client`` given (several hosts).  Each worker holds one part as a Dask *actor*
(:class:`PartActor`: its arrays stay on that worker's GPU between rounds); the client asks every actor for a
round at once and waits for all of them.  On GPUs the exchange is NCCL (:class:`~gpusim.runtime.collectives.Nccl`,
its unique id made by part 0 and handed round by Dask); on the simulator (``backend="sim"``, any Dask cluster:
how the tests run it on a CPU) the client carries the messages between the workers
(:func:`~gpusim.runtime.collectives.outgoing`, :func:`~gpusim.runtime.collectives.deliver`).  A worker lost
mid-run is a :class:`~gpusim.errors.WorkerLost` naming it, raised as soon as Dask reports it: the cluster gpusim
started is closed, and in a cluster given the workers that held the other parts (perhaps waiting in NCCL for
the lost one) are restarted (on the simulator their parts are let go), so nothing of the run is left running.

Example
-------
>>> from distributed import Client, LocalCluster
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
>>> with LocalCluster(n_workers=2, processes=False, dashboard_address=None) as cluster, Client(cluster) as client:
...     on_cluster(g, 1, 2, client, "sim").partners.tolist()
[[-1], [2], [1], [-1]]
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from gpusim.errors import BackendUnavailable, InvalidArgument, WorkerLost
from gpusim.language.variants import kernel_table
from gpusim.runtime.collectives import Nccl, deliver, multicast_off, outgoing
from gpusim.runtime.device import Device

from .b_suitor_parts import PART_KERNELS, Part, PartInput, b_matching_of, make_rooms, parts_of, phases, table_width

__all__ = ["PartActor", "on_cluster", "start_cuda_cluster"]

#: How often the client looks at the rounds in flight (seconds).
POLL = 0.005


class PartActor:
    """One part on a Dask worker: made there, its arrays on the worker's device, a round per call."""

    def __init__(self, backend: str, data: PartInput, rank: int, bounds: np.ndarray, room_out: np.ndarray,
                 room_in: int, kernels: Any = None):
        multicast_off()
        self.part = Part(Device(backend), data, rank, bounds, room_out, room_in, kernel_table(PART_KERNELS, kernels))
        self.exchange: Nccl | None = None

    def unique_id(self) -> Any:
        """A new NCCL unique id (made on this worker's GPU host), for every part's communicator."""
        from cupy.cuda import nccl

        return nccl.get_unique_id()

    def join(self, unique_id: Any, k: int) -> int:
        """Make this part's NCCL communicator (every part at once)."""
        self.exchange = Nccl(unique_id, self.part.rank, k)
        return self.part.rank

    def step(self) -> int:
        """One round, exchanged with NCCL: the messages sent by every part this round."""
        part, exchange = self.part, self.exchange
        total = exchange.all_reduce(int(part.round().sum()))
        if total:
            exchange.all_to_all([part])
        return total

    def step_host(self) -> list[tuple[np.ndarray, ...]]:
        """One round; the outbox, per destination part, on the host (for the client to carry)."""
        self.part.round()
        return [outgoing(self.part, d) for d in range(self.part.k)]

    def deliver(self, pieces: list[tuple[np.ndarray, ...]]) -> int:
        deliver(self.part, pieces)
        return self.part.received

    def rows(self, width: int) -> tuple[np.ndarray, float, int]:
        """This part's rows of the partners table, its weight and pairs (:meth:`Part.rows`); the exchange closed."""
        if self.exchange is not None:
            self.exchange.close()
            self.exchange = None
        return self.part.rows(width)


def start_cuda_cluster(ids: list[int] | None) -> tuple[Any, Any]:
    """A ``dask_cuda.LocalCUDACluster`` of a worker per GPU of ``ids`` (None: every GPU), NVLink multicast off in
    every process, and its client."""
    multicast_off()
    try:
        from dask_cuda import LocalCUDACluster
        from distributed import Client
    except ImportError:
        raise BackendUnavailable("b-Suitor on several GPUs needs dask-cuda and distributed: "
                                 "pip install dask-cuda distributed") from None
    visible = None if ids is None else ",".join(str(i) for i in ids)
    # the workers inherit this process's environment (multicast off, above); each sets it again before NCCL starts
    cluster = LocalCUDACluster(CUDA_VISIBLE_DEVICES=visible, threads_per_worker=1, dashboard_address=None)
    return cluster, Client(cluster)


def _wait(futures: list[Any], holders: list[str]) -> list[Any]:
    """The results of one call per part, waited for together; a part whose worker is gone raises
    :class:`~gpusim.errors.WorkerLost` at once, whatever the others are doing."""
    while True:
        for p, future in enumerate(futures):
            lost = None
            if future.done():
                try:
                    future.result()
                except OSError as error:   # raised below, outside this block: no chain keeps the parts alive
                    lost = str(error)
                except RuntimeError as error:
                    if "Worker holding Actor was lost" not in str(error):
                        raise
                    lost = str(error)
            if lost is not None:
                raise WorkerLost(f"the Dask worker {holders[p]} holding part {p} of {len(futures)} was lost "
                                 f"mid-run ({lost}); no partial answer")
        if all(future.done() for future in futures):
            return [future.result() for future in futures]
        time.sleep(POLL)


def on_cluster(graph: Any, b: Any, wanted: Any, client: Any, backend: str, max_memory: int | None = None,
               kernels: Any = None, progress: bool = False) -> Any:
    """b-Suitor with a part per worker of ``client``'s cluster (None: a ``LocalCUDACluster`` started for the GPU
    ids or count ``wanted``, closed at the end); see
    :func:`~gpusim.algorithms.weighted.driver_b_suitor_multi.b_suitor_multi`."""
    own = client is None
    cluster = None
    if own:
        ids = None if wanted == "all" else list(range(wanted)) if isinstance(wanted, int) else wanted
        cluster, client = start_cuda_cluster(ids)
    actors: list[Any] = []
    futures: list[Any] = []
    holders: list[str] = []
    name = "sim" if backend == "sim" else "nccl"
    try:
        workers = sorted(client.scheduler_info()["workers"])
        if isinstance(wanted, list) and not own:
            raise InvalidArgument(f"devices={wanted!r} names GPUs of this host; with client= give a count or 'all'")
        k = len(workers) if wanted == "all" or own else wanted
        if k > len(workers):
            raise InvalidArgument(f"devices={k}: the Dask cluster has {len(workers)} workers")
        start = time.perf_counter()
        inputs, value = parts_of(graph, b, k, max_memory)
        bounds, rooms, room_in = make_rooms(inputs)
        holders = workers[:k]
        # each part's rows go to its worker alone (scattered there), not through the scheduler
        rows = [client.scatter(inputs[p], workers=[holders[p]], hash=False) for p in range(k)]
        futures = [client.submit(PartActor, backend, rows[p], p, bounds, rooms[p], room_in[p], kernels, actor=True,
                                 workers=[holders[p]], allow_other_workers=False, pure=False) for p in range(k)]
        actors = [future.result() for future in futures]
        del rows   # the parts hold their rows now: the scattered copies are let go
        if name == "nccl":
            unique_id = _wait([actors[0].unique_id()], holders)[0]
            _wait([actor.join(unique_id, k) for actor in actors], holders)
        made = time.perf_counter()
        bar = tqdm(desc=f"b-Suitor on {k} workers", unit="round", leave=False) if progress else None
        rounds = 0
        try:
            while True:
                rounds += 1
                if name == "nccl":
                    total = _wait([actor.step() for actor in actors], holders)[0]
                else:
                    outboxes = _wait([actor.step_host() for actor in actors], holders)
                    total = sum(int(piece[0].size) for out in outboxes for piece in out)
                    if total:
                        _wait([actor.deliver([out[d] for out in outboxes]) for d, actor in enumerate(actors)],
                              holders)
                if bar is not None:
                    bar.update(1)
                    bar.set_postfix(messages=total, refresh=False)
                if total == 0:
                    break
        finally:
            if bar is not None:
                bar.close()
        ended = time.perf_counter()
        width = table_width(inputs)
        found = _wait([actor.rows(width) for actor in actors], holders)
        stats = {"algorithm": "b_suitor", "backend": backend, "devices": k, "rounds": rounds,
                 "exchange": name, "workers": holders}
        result = b_matching_of(graph, value, found, stats)
        result.stats["seconds"] = phases(start, made, ended)
        return result
    except WorkerLost:
        if not own and name == "nccl":  # the other parts may wait in NCCL for the lost one: restart their workers
            alive = [w for w in holders if w in client.scheduler_info()["workers"]]
            if alive:
                client.restart_workers(alive)
        raise
    finally:
        del actors
        if futures:   # the parts let go at once (a round still in flight holds its part): nothing of the run stays
            client.cancel(futures, force=True)
        if own:
            client.close()
            cluster.close()
