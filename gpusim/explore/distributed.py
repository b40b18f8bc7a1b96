"""Dask for campaigns: a local cluster or an existing scheduler, and the pool a campaign submits chunks to.

``dask.distributed`` does all the distribution: a :class:`~dask.distributed.LocalCluster` of worker
processes (one thread each) for ``--workers N``, an existing scheduler for ``--scheduler ADDRESS``; a
worker lost mid-chunk has its chunk re-run by Dask elsewhere.  Dask is imported only here, only when a
campaign runs on more than one process.

>>> pool = InProcess()
>>> future = pool.submit(sum, [1, 2, 3])
>>> pool.first_done([future])[0].result(), pool.workers
(6, 1)
"""

from __future__ import annotations

import logging
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from gpusim.errors import BackendUnavailable, InvalidArgument

__all__ = ["DaskPool", "InProcess", "dask_client", "require_distributed"]

#: How long to wait for a scheduler that ``--scheduler`` names before saying it does not answer.
CONNECT_TIMEOUT = 5.0


def require_distributed():
    """The ``distributed`` module, or a one-line error saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise BackendUnavailable("parallel exploration needs dask.distributed: pip install 'gpusim[dask]' "
                                 "(or pip install distributed)") from None
    return distributed


@contextmanager
def dask_client(workers: int | None = None, scheduler: str | None = None,
                timeout: float = CONNECT_TIMEOUT) -> Iterator[Any]:
    """A ``dask.distributed.Client``: of a new local cluster of ``workers`` processes (one thread each, the
    dashboard on a free port), or of the scheduler at ``scheduler``; closed (the local cluster shut down) at the end."""
    if (workers is None) == (scheduler is None):
        raise InvalidArgument("give workers=N for a local cluster or scheduler=ADDRESS, one of them")
    distributed = require_distributed()
    if scheduler is not None:
        if not isinstance(scheduler, str) or not scheduler.strip():
            raise InvalidArgument(f"--scheduler {scheduler!r}: give a Dask scheduler address such as "
                                  f"tcp://host:8786")
        try:
            distributed.comm.get_address_host_port(scheduler)
        except ValueError as error:
            raise InvalidArgument(f"--scheduler {scheduler!r}: not a scheduler address ({error})") from None
        try:
            client = distributed.Client(scheduler, timeout=timeout)
        except Exception as error:  # noqa: BLE001 - refused, timed out, or something else answered
            reason = " ".join(str(error).split())[:160] or type(error).__name__
            raise BackendUnavailable(f"--scheduler {scheduler}: could not connect to a Dask scheduler there "
                                     f"within {timeout:g} s ({reason})") from None
        try:
            yield client
        finally:
            client.close()
        return
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise InvalidArgument(f"workers must be an integer >= 1, got workers={workers!r}")
    with _ctrl_c_for_this_process_only():
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                           dashboard_address=":0", silence_logs=logging.ERROR)
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


@contextmanager
def _ctrl_c_for_this_process_only() -> Iterator[None]:
    """Start worker processes that ignore Ctrl-C (an ignored signal stays ignored in a child): the terminal
    sends it to every process of the group, and this one stops the campaign and shuts the cluster down."""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals are not ours to set
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class InProcess:
    """Chunks run here, one at a time, as they are submitted (``--workers 1``, or no client)."""

    workers = 1

    def submit(self, fn: Callable, *args: Any, **kwargs: Any) -> _Done:
        return _Done(fn(*args, **kwargs))

    def first_done(self, futures, timeout: float | None = None) -> list:
        return list(futures)[:1]

    def cancel(self, future) -> None:
        """Nothing runs in the background."""


class _Done:
    def __init__(self, value: Any):
        self.value = value

    def result(self) -> Any:
        return self.value


class DaskPool:
    """Chunks submitted to a ``dask.distributed.Client``'s workers; Dask re-runs a chunk whose worker died."""

    def __init__(self, client):
        self.client = client
        self.workers = max(1, sum(client.nthreads().values()))  # threads: the chunks that can run at once

    def submit(self, fn: Callable, *args: Any, **kwargs: Any):
        return self.client.submit(fn, *args, pure=False, **kwargs)

    def first_done(self, futures, timeout: float | None = None) -> list:
        from distributed import wait

        try:
            return list(wait(list(futures), timeout=timeout, return_when="FIRST_COMPLETED").done)
        except TimeoutError:
            return []

    def cancel(self, future) -> None:
        future.cancel()
