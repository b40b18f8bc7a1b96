"""Schedules per second of one fixed campaign on 1, 2, 4, 8 and 16 Dask workers, in one run.

The campaign: the fixed twins of the zoo's hardest entries (the longest schedules: Louvain's hash claim
and singleton swap, Suitor, McVitie-Wilson, the intra-warp spin lock, ROMA's fenced flip under PCT) and
two full algorithms on 50-vertex graphs (G-PR on a 25 x 25 bipartite graph, Suitor on a 50-vertex
weighted graph), each checked against an independent oracle (SciPy's maximum matching size, the
greedy matching).  The fixed twins pass, so every campaign runs its whole budget.  For each number of
workers the script starts a local Dask cluster (processes, one thread each; nothing else needed, no
network), warms every worker up (imports, one schedule of each scenario), then times the campaign: the
scenarios' campaigns all at once on the one client (threads that only wait on Dask), so that their chunks
form one pool of work.  It checks that every worker count gives the same answer, and writes JSON and a
plot of the speed-up against the ideal line.  Each run also records the CPU time of this process (the client
and, in a ``LocalCluster``, the scheduler too: about 5 ms a chunk), a core's worth of work the workers share
the machine with.

The machine's own ceiling is measured beside it: before each campaign every worker runs the same pure-Python
loop at once (:func:`spin`), timed inside the task.  On cores that slow each other down (a shared clock
budget, hyper-threads presented as cores by a virtual machine) that loop takes longer with more workers, and
``ceiling`` — workers × the fastest loop time of the run ÷ this loop time, at most the workers — is the speed-up
a campaign as CPU-bound as the loop could reach there.  The fastest loop of the run stands for a core alone: the
clock of the GPU machine's host varies from one minute to the next, and a slow one-worker loop would otherwise
put the ceiling above the ideal line.

The ``explore`` area runs it (``benchmarks/explore.py``)::

    python -m benchmarks explore [--parts scaling] [--workers 1,2,4,8,16] [--scale 1.0] [--out DIR]

``--scale`` multiplies every budget.  The five worker counts take about twice the one-worker time: at
``--scale 1.0`` one worker of the GPU machine's host took 112 s and the five campaigns 221 s, start-ups not
counted (2026-11-27, commit 459743c), so choose the scale for the time you have (a device command may run
10 minutes).
"""

from __future__ import annotations

import datetime
import json
import logging
import os
import platform
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from gpusim.explore import Scenario, campaign
from gpusim.explore.journal import read_journal

ROOT = Path(__file__).resolve().parents[1]

#: (scenario, policy, schedules at --scale 1)
ZOO_PART = [("louvain_hash_claim_without_cas.fixed", "random", 3000), ("louvain_singleton_swap.fixed", "random", 1600),
            ("suitor_no_cas.fixed", "random", 2400), ("mcvitie_wilson_no_cas.fixed", "random", 3000),
            ("intra_warp_spin_lock.fixed", "random", 2400), ("atomic_flip_no_fence.fixed", "pct", 4000)]
ALGORITHM_PART = [("gpr-50", "random", 240), ("suitor-50", "random", 1000)]


def gpr_scenario() -> Scenario:
    """G-PR (Deveci et al., ICPP 2013, Alg. 2) on a 25 x 25 random bipartite graph of 80 edges; oracle: SciPy's
    matching size."""
    from scipy.sparse.csgraph import maximum_bipartite_matching

    from gpusim.algorithms.bipartite import gpr
    from gpusim.types.generators import uniform_random

    graph = uniform_random(25, 25, 80, seed=3)
    expected = int((maximum_bipartite_matching(graph.to_scipy(), perm_type="column") >= 0).sum())

    def run(dev) -> str | None:
        size = int(gpr(graph, device=dev).size)
        return None if size == expected else f"G-PR matched {size} rows, SciPy {expected}"

    return Scenario("bench.gpr-50", run, threads=64, description="G-PR on a 25 x 25 bipartite graph")


def suitor_scenario() -> Scenario:
    """Suitor (Naim et al., HiPC 2015, Alg. 3) on a 50-vertex graph of 150 edges; oracle: the sequential greedy
    matching."""
    from gpusim.algorithms.weighted import suitor
    from gpusim.algorithms.weighted.reference_greedy import greedy
    from gpusim.types.graphs import WeightedGraph

    rng = np.random.default_rng(7)
    pairs = sorted({(min(u, v), max(u, v)) for u, v in rng.integers(0, 50, (400, 2)).tolist() if u != v})[:150]
    graph = WeightedGraph.from_edges([u for u, _ in pairs], [v for _, v in pairs], rng.random(len(pairs)).tolist())
    expected = greedy(graph).mate.tolist()

    def run(dev) -> str | None:
        mate = suitor(graph, device=dev, layout="thread").mate.tolist()
        return None if mate == expected else "Suitor's matching differs from the greedy one"

    return Scenario("bench.suitor-50", run, threads=64, description="Suitor on a 50-vertex weighted graph")


def the_campaign(scale: float) -> list[tuple[str | Scenario, str, int]]:
    """The scenarios (zoo entries by name: a worker finds them in its own registry), policies and budgets."""
    algorithms = {"gpr-50": gpr_scenario(), "suitor-50": suitor_scenario()}
    parts = [(name, policy, budget) for name, policy, budget in ZOO_PART]
    parts += [(algorithms[name], policy, budget) for name, policy, budget in ALGORITHM_PART]
    return [(scenario, policy, max(1, round(budget * scale))) for scenario, policy, budget in parts]


def _warm(parts) -> int:
    """On a worker: import everything and run one schedule of each scenario (compiles, caches)."""
    for scenario, policy, _ in parts:
        campaign(scenario, policy, budget=1, shrink=False)
    return os.getpid()


def spin(iterations: int = 12_000_000) -> float:
    """On a worker: a fixed pure-Python loop (no memory traffic to speak of); its seconds."""
    start = time.perf_counter()
    total = 0
    for i in range(iterations):
        total += i & 7
    return time.perf_counter() - start


def ceiling_loop(client, workers: int) -> float:
    """The mean seconds of :func:`spin` when all ``workers`` run it at once (the best of three rounds)."""
    rounds = []
    for round_ in range(3):
        futures = [client.submit(spin, pure=False, key=f"spin-{round_}-{w}") for w in range(workers)]
        rounds.append(float(np.mean(client.gather(futures))))
    return min(rounds)


def timed_campaign(client, scenario, policy: str, budget: int, journal: str):
    begin = time.perf_counter()
    result = campaign(scenario, policy, budget=budget, client=client, save=journal)
    return result, time.perf_counter() - begin, budget


def worker_seconds(journal: str) -> tuple[float, int]:
    """The seconds the workers spent running the chunks of one campaign (each chunk times itself), and the chunks."""
    _, records = read_journal(journal)
    chunks = [record for record in records if record.get("record") == "chunk"]
    return sum(record["seconds"] for record in chunks), len(chunks)


def measure(workers: int, parts) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        return _measure(workers, parts, folder)


def _measure(workers: int, parts, folder: str) -> dict:
    import distributed

    started = time.perf_counter()
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", silence_logs=logging.ERROR)
    with distributed.Client(cluster) as client:
        client.wait_for_workers(workers)
        startup = time.perf_counter() - started
        client.run(_warm, parts)
        loop = ceiling_loop(client, workers)
        client_cpu = time.process_time()  # a LocalCluster's scheduler runs in this process, beside the client
        start = time.perf_counter()
        journals = [os.path.join(folder, f"part-{i}.jsonl") for i in range(len(parts))]
        with ThreadPoolExecutor(len(parts)) as threads:  # every part at once: one pool of chunks, no idle tail
            done = list(threads.map(lambda part, journal: timed_campaign(client, *part, journal), parts, journals))
        seconds = time.perf_counter() - start
        # the CPU the scheduler and the client took meanwhile (about 5 ms a chunk): a core the workers did not have
        client_cpu = time.process_time() - client_cpu
        rows, total, busy, chunks = [], 0, 0.0, 0
        for (result, part_seconds, budget), journal in zip(done, journals, strict=True):
            total += result.schedules_run
            part_busy, part_chunks = worker_seconds(journal)
            busy, chunks = busy + part_busy, chunks + part_chunks
            rows.append({"scenario": result.scenario, "policy": result.policy, "budget": budget,
                         "schedules": result.schedules_run, "seconds": part_seconds, "found": result.found,
                         "replay": result.failure.replay_token if result.failure else None,
                         "worker_seconds": part_busy, "chunks": part_chunks})
            print(f"  {workers:>2} worker(s)  {result.scenario:<40} {result.schedules_run:>6} schedules "
                  f"done after {part_seconds:7.2f} s", file=sys.stderr)
    cluster.close()
    # busy: the share of the workers' wall time spent in chunks (the rest: Dask, waiting, the tail);
    # compute_per_schedule: a schedule's own time on a worker, which rises when the cores slow each other down
    return {"workers": workers, "startup_seconds": startup, "loop_seconds": loop, "seconds": seconds,
            "schedules": total, "schedules_per_second": total / seconds, "worker_seconds": busy, "chunks": chunks,
            "client_cpu_seconds": client_cpu,
            "busy": busy / (workers * seconds), "compute_per_schedule": busy / max(total, 1), "scenarios": rows}


def add_ceilings(runs: list[dict]) -> None:
    """Each run's ``ceiling``: workers × the fastest loop of all the runs ÷ its own loop, at most its workers."""
    alone = min(run["loop_seconds"] for run in runs)
    for run in runs:
        run["ceiling"] = min(run["workers"], run["workers"] * alone / run["loop_seconds"])


def plot(runs: list[dict], path: str, cores: int | None = None) -> None:
    """The speed-up of each run beside the ideal line and the machine ceiling, for a machine of ``cores`` cores
    (this one's by default; a saved run's ``machine["cpus"]`` when plotting it again)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    base = runs[0]["schedules_per_second"] / runs[0]["workers"]
    workers = [run["workers"] for run in runs]
    speedup = [run["schedules_per_second"] / base for run in runs]
    figure, axes = plt.subplots(figsize=(5.5, 4))
    axes.plot(workers, workers, "--", color="grey", label="ideal")
    axes.plot(workers, [run["ceiling"] for run in runs], ":", color="black", label="machine ceiling (a pure loop)")
    axes.plot(workers, speedup, "o-", label="campaign (schedules/s)")
    for w, s in zip(workers, speedup, strict=True):
        axes.annotate(f"{s:.1f}x", (w, s), textcoords="offset points", xytext=(4, -12), fontsize=8)
    axes.set_xlabel("Dask workers (processes, one thread each)")
    axes.set_ylabel(f"speed-up over {runs[0]['workers']} worker(s)")
    axes.set_title(f"gpusim explore campaign, {cores or os.cpu_count()} cores")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def run(counts: list[int], scale: float) -> dict:
    """The campaign on each number of workers in ``counts`` at ``scale``: the report the ``explore`` area keeps."""
    parts = the_campaign(scale)
    runs = []
    for workers in counts:
        runs.append(measure(workers, parts))
        print(f"{workers:>2} worker(s): {runs[-1]['schedules']} schedules in {runs[-1]['seconds']:.1f} s, "
              f"{runs[-1]['schedules_per_second']:.1f} schedules/s, workers busy {runs[-1]['busy']:.1%}, "
              f"{1e3 * runs[-1]['compute_per_schedule']:.2f} ms a schedule, the pure loop "
              f"{runs[-1]['loop_seconds']:.3f} s", file=sys.stderr)
    answers = {run["workers"]: [(row["found"], row["replay"]) for row in run["scenarios"]] for run in runs}
    same = len({json.dumps(answer) for answer in answers.values()}) == 1
    base = runs[0]["schedules_per_second"] / runs[0]["workers"]
    add_ceilings(runs)
    report = {"benchmark": "explore_scaling", "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
              "machine": {"platform": platform.platform(), "processor": platform.processor(),
                          "cpus": os.cpu_count(), "python": platform.python_version()},
              "scale": scale, "same_answer_for_every_worker_count": same, "runs": runs,
              "speedup": {run["workers"]: run["schedules_per_second"] / base for run in runs}}
    for run in runs:
        print(f"{run['workers']:>2} worker(s): {run['schedules_per_second']:9.1f} schedules/s  "
              f"speed-up {run['schedules_per_second'] / base:5.2f}x  workers busy {run['busy']:6.1%}  "
              f"{1e3 * run['compute_per_schedule']:6.2f} ms a schedule ({run['chunks']} chunks)  "
              f"machine ceiling {run['ceiling']:5.2f}x  scheduler and client CPU "
              f"{run['client_cpu_seconds']:.1f} s")
    print(f"same answer for every worker count: {same}")
    return report
