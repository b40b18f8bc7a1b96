"""Simulator throughput, side by side with numba's own CUDA simulator (``gpusim bench sim``).

Two workloads: *memory*, where each of ``threads`` threads does ``ops`` scheduling points
(alternating loads and stores of its own element), and *barrier*, the same with a block
barrier after every load-store pair.  gpusim runs it under each policy, with tracing on and
off, on the reference simulator and on the compiled engine (``engine="compiled"``: the kernel
lowered to numba generators, its first launch compiled before timing); numba's simulator
(``NUMBA_ENABLE_CUDASIM=1``, one OS thread per CUDA thread) runs the same loop in a subprocess,
since the variable must be set before numba loads.  Numba's simulator has no ``T``, so its kernel
is the same loop written with ``numba.cuda`` directly.

Example
-------
>>> row = sim_throughput(threads=64, ops=10, policies=("sequential",), traces=(False,))[0]
>>> row["points"], row["simulator"]
(640, 'gpusim')
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterable

import numpy as np

from gpusim import T, kernel
from gpusim.backends.sim import Limits
from gpusim.errors import GpusimInternalError, InvalidArgument
from gpusim.runtime.device import Device, check_block
from gpusim.types.arguments import check_positive_int

__all__ = ["POLICIES", "WORKLOADS", "barrier_bound", "check_workload", "memory_bound", "numba_cudasim_throughput",
           "sim_throughput"]

POLICIES = ("sequential", "pct", "random", "round_robin")


@kernel(signature="int32[:], int32, int32")
def memory_bound(a, n, rounds):
    """``rounds`` load-store pairs on the thread's own element: 2 × rounds scheduling points."""
    i = T.gtid()
    if i < n:
        for _ in range(rounds):
            a[i] = a[i] + 1


@kernel(signature="int32[:], int32, int32")
def barrier_bound(a, n, rounds):
    """Like :func:`memory_bound`, with a ``syncthreads`` after every load-store pair."""
    i = T.gtid()
    for _ in range(rounds):
        if i < n:
            a[i] = a[i] + 1
        T.syncthreads()


WORKLOADS = {"memory": memory_bound, "barrier": barrier_bound}
_POINTS_PER_ROUND = {"memory": 2, "barrier": 3}  # a load and a store (and a barrier) per round and thread


def check_workload(threads: int, ops: int, block: int, workload: str) -> None:
    """Refuse a benchmark the simulator cannot run: a size that is not a positive integer, fewer than two
    ops (one load-store pair), a block beyond the device's limit, or more scheduling points than one
    launch may take (``Limits.max_steps``, the simulator's budget).

    >>> check_workload(100_000_000, 100, 256, "memory")
    Traceback (most recent call last):
    ...
    gpusim.errors.InvalidArgument: threads=100000000 × ops=100 is 10000000000 scheduling points, more than ...
    """
    if workload not in WORKLOADS:
        raise InvalidArgument(f"workload={workload!r} is not one of {sorted(WORKLOADS)}")
    threads, ops, block = check_positive_int("threads", threads), check_positive_int("ops", ops), check_block(block)
    if ops < 2:
        raise InvalidArgument(f"ops={ops}: a thread needs at least 2 ops (one load and one store)")
    steps = threads * _POINTS_PER_ROUND[workload] * (ops // 2)
    if steps > Limits.max_steps:
        raise InvalidArgument(f"threads={threads} × ops={ops} is {steps} scheduling points, more than one simulator "
                              f"launch may take (max_steps={Limits.max_steps}); lower --threads or --ops")


def sim_throughput(threads: int = 1024, ops: int = 100, block: int = 256,
                   policies: Iterable[str] = POLICIES,
                   traces: Iterable[bool] = (False, True), repeats: int = 3, workload: str = "memory",
                   engine: str = "reference", races: str = "off") -> list[dict]:
    """Scheduling points per second of the gpusim simulator, per policy and tracing mode (best of ``repeats``).

    Points are counted as loads and stores only (``2 × ops/2`` per thread), as for numba's simulator,
    although gpusim also counts each ``syncthreads`` as a scheduling point.  Sizes are checked by
    :func:`check_workload`.  ``engine="compiled"`` times the compiled engine (``trace`` must then be
    ``False``), after one untimed launch that compiles the kernel (or loads it from the disk cache).
    ``races`` is the race detector's mode (``"report"``, ``Device("sim")``'s default on the reference engine,
    against ``"off"``: what the detector costs).
    """
    check_workload(threads, ops, block, workload)
    if engine not in ("reference", "compiled"):
        raise InvalidArgument(f"engine={engine!r} is not one of ('reference', 'compiled')")
    rows = []
    grid = -(-threads // block)
    for policy in policies:
        for trace in traces:
            best = float("inf")
            if engine == "compiled":  # compile (or load from the cache) before timing
                warm = Device("sim", policy=policy, seed=1, trace=trace, engine=engine, races=races)
                warm.launch(WORKLOADS[workload], grid=grid, block=block,
                            args=(warm.zeros(threads, np.int32), threads, 1))
            for _ in range(repeats):
                dev = Device("sim", policy=policy, seed=1, trace=trace, engine=engine, races=races)
                a = dev.zeros(threads, np.int32)
                start = time.perf_counter()
                dev.launch(WORKLOADS[workload], grid=grid, block=block, args=(a, threads, ops // 2))
                best = min(best, time.perf_counter() - start)
                if not (dev.to_host(a) == ops // 2).all():
                    raise GpusimInternalError(f"the {workload} workload counted wrong: {dev.to_host(a)[:8]} ...")
            points = threads * 2 * (ops // 2)
            rows.append({"simulator": "gpusim" if engine == "reference" else "gpusim compiled", "workload": workload,
                         "policy": policy, "trace": trace, "races": races, "threads": threads, "points": points,
                         "seconds": best, "points_per_second": points / best})
    return rows


_CUDASIM_SCRIPT = r"""
import json, sys, time
import numpy as np
from numba import cuda

@cuda.jit
def memory(a, n, rounds):
    i = cuda.grid(1)
    if i < n:
        for _ in range(rounds):
            a[i] = a[i] + 1

@cuda.jit
def barrier(a, n, rounds):
    i = cuda.grid(1)
    for _ in range(rounds):
        if i < n:
            a[i] = a[i] + 1
        cuda.syncthreads()

threads, ops, block = (int(x) for x in sys.argv[1:4])
kernel = {"memory": memory, "barrier": barrier}[sys.argv[4]]
a = np.zeros(threads, np.int32)
start = time.perf_counter()
kernel[(threads + block - 1) // block, block](a, threads, ops // 2)
seconds = time.perf_counter() - start
assert (a == ops // 2).all()
print(json.dumps({"seconds": seconds, "points": threads * 2 * (ops // 2)}))
"""


def numba_cudasim_throughput(threads: int = 1024, ops: int = 100, block: int = 256,
                             workload: str = "memory") -> dict | None:
    """The same workload on numba's CUDA simulator; ``None`` when numba is not installed."""
    check_workload(threads, ops, block, workload)
    environment = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    try:
        done = subprocess.run([sys.executable, "-c", _CUDASIM_SCRIPT, str(threads), str(ops), str(block), workload],
                              capture_output=True, text=True, env=environment, timeout=1800, check=True)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as failure:
        if "No module named 'numba'" in getattr(failure, "stderr", "") or "":
            return None
        raise
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result.update(simulator="numba cudasim", workload=workload, policy="OS threads", trace=False, threads=threads,
                  points_per_second=result["points"] / result["seconds"])
    return result
