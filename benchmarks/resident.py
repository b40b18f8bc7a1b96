"""Every GPU algorithm with its input already on the device: the whole call against its device phases.

The goal: with device-resident input, the whole call within 1.2x of the device phases for every GPU
algorithm.  This area times each registered GPU algorithm — G-PR, APFB and APsB (maximum bipartite matching),
Suitor, Locally-Dominant, b-Suitor (b = 2) and ROMA 2 (weighted matching), McVitie-Wilson and round-based
Gale-Shapley (stable marriage), and the GPU Louvain method — on a large and a small input built on the device
once (its one check on the device paid by an untimed first call), its result left there (``output="device"``)
where the algorithm offers it:

- ``whole``: the call timed from Python, the device synchronised after it (the last repeat's result is released
  before the clock starts, so no call pays for freeing an earlier one's arrays);
- ``device``: the sum of the call's own timed phases (``result.stats["seconds"]``: the kernels and the flags read
  between them, what the papers time);
- ``ratio``: whole over device, the median of the repeats' ratios (each repeat's own pair).

Every result is checked after the timing against an independent answer: the size of SciPy's maximum bipartite
matching, the greedy (b-)matching of the sequential reference, sequential Gale-Shapley's wives, a perfect
matching of the complete graph no lighter than its start for ROMA, and for Louvain the modularity of its labels
recomputed on the host (``gpusim.algorithms.louvain.modularity``, a NumPy formula) and equal to the result's.

Usage, on the GPU machine::

    python -m benchmarks resident [--quick] [--backends cupy,numba] [--repeats N] [--out DIR]

``python -m benchmarks.resident --backends sim --quick`` runs the same cases, tiny, on the simulator (a check that
the area works).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_matching
from tqdm import tqdm

from benchmarks.louvain import planted_partition
from benchmarks.weighted import random_graph
from gpusim import Device
from gpusim.algorithms import stable, weighted
from gpusim.algorithms.bipartite import maximum_bipartite_matching
from gpusim.algorithms.louvain import gpu_louvain, modularity
from gpusim.algorithms.stable import gale_shapley
from gpusim.algorithms.weighted import b_suitor, reference_b_suitor, reference_greedy
from gpusim.backends import GPU_BACKENDS, gpu_status
from gpusim.runtime.resident_graphs import to_device
from gpusim.types.device_graphs import DeviceWeightedGraph
from gpusim.types.device_preferences import DevicePreferenceInstance
from gpusim.types.generators import uniform_random
from gpusim.types.preference_generators import easy_instance, hard_instance

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Case:
    """One algorithm on one input: ``prepare(dev)`` puts the input on the device and returns what ``call`` takes;
    ``call(input, dev)`` runs the algorithm; ``check(result)`` says whether the result is right."""

    family: str
    algorithm: str
    input: str
    size: int
    prepare: Callable
    call: Callable
    check: Callable


#: Each family's input sizes: (large, small) for the GPU, then (large, small) for ``--quick``.
SIZES = {
    "bipartite": (((1 << 20, 8_000_000), (200, 800)), ((300, 1200), (40, 120))),  # rows = columns, edges
    "weighted": (((1 << 20, 10_000_000), (2000, 8000)), ((200, 800), (40, 100))),  # vertices, edges
    "roma": ((4096, 256), (16, 8)),  # vertices of the complete graph
    "stable": (((5000, 1_000_000), (200, 2000)), ((50, 1000), (8, 20))),  # hard n, easy n
    "louvain": ((1 << 20, 2000), (100, 60)),  # vertices of the planted partition, degree 16
}


def size_of(family: str, large: bool, quick: bool):
    return SIZES[family][quick][0 if large else 1]


def bipartite_cases(large: bool, quick: bool) -> list[Case]:
    rows, edges = size_of("bipartite", large, quick)
    graph = uniform_random(rows, rows, edges, seed=1)
    name = f"uniform {rows} x {rows}, {graph.n_edges:,} edges"
    expected = int(np.count_nonzero(scipy_matching(sp.csr_array(graph.to_scipy()), perm_type="column") >= 0))

    def case(algorithm):
        return Case("bipartite", algorithm, name, graph.n_edges, lambda dev: to_device(dev, graph),
                    lambda g, dev: maximum_bipartite_matching(g, algorithm, device=dev, output="device"),
                    lambda r: r.size == expected and r.valid)
    return [case(a) for a in ("apfb", "apsb", "gpr")]


def weighted_cases(large: bool, quick: bool) -> list[Case]:
    n, m = size_of("weighted", large, quick)
    graph = random_graph(n, m, seed=1)
    name = f"random, {n:,} vertices, {graph.n_edges:,} edges"
    greedy = reference_greedy.greedy(graph).mate
    greedy_b = reference_b_suitor.greedy_b_matching(graph, 2).partners

    def same_mate(r):
        return r.valid and np.array_equal(r.to_host().mate, greedy)

    return [
        Case("weighted", "suitor", name, graph.n_edges, lambda dev: to_device(dev, graph),
             lambda g, dev: weighted.suitor(g, device=dev, output="device"), same_mate),
        Case("weighted", "ld", name, graph.n_edges, lambda dev: to_device(dev, graph),
             lambda g, dev: weighted.locally_dominant(g, device=dev, output="device"), same_mate),
        Case("weighted", "bsuitor", name, graph.n_edges, lambda dev: to_device(dev, graph),
             lambda g, dev: b_suitor(g, 2, device=dev, output="device"),
             lambda r: r.valid and np.array_equal(r.to_host().partners, greedy_b)),
    ]


def roma_cases(large: bool, quick: bool) -> list[Case]:
    n = size_of("roma", large, quick)
    rng = np.random.default_rng(1)
    upper = np.triu(rng.random((n, n)), 1)
    w = upper + upper.T
    start = np.arange(n) ^ 1  # the "i,i+1" start

    def check(r):
        mate = r.to_host().mate if hasattr(r, "to_host") else r.mate
        first = np.flatnonzero(np.arange(n) < mate)
        return (np.array_equal(mate[mate], np.arange(n)) and not (mate == np.arange(n)).any()
                and w[first, mate[first]].sum() >= w[np.arange(0, n, 2), start[::2]].sum() - 1e-9)

    return [Case("weighted", "roma", f"complete, uniform weights, n = {n:,}", n * n,
                 lambda dev: dev.array(w.ravel()), lambda a, dev: weighted.roma(a, device=dev, output="device"), check)]


def stable_cases(large: bool, quick: bool) -> list[Case]:
    cases = []
    for family, make, n in (("hard", hard_instance, 5000 if large else 200), ("easy", easy_instance,
                                                                             1_000_000 if large else 2000)):
        n = max(n // 100, 8) if quick else n
        instance = make(n, seed=1)
        wives = gale_shapley(instance).wife
        for algorithm in ("mw-gpu", "gs-rounds"):
            cases.append(Case(
                "stable", algorithm, f"{family}, n = {n:,}", int(instance.men_list.size),
                lambda dev, i=instance: DevicePreferenceInstance.from_instance(i, dev),
                lambda d, dev, a=algorithm: stable.stable_marriage(d, a, device=dev, output="device"),
                lambda r, w=wives: np.array_equal(r.to_host().wife, w)))
    return cases


def louvain_cases(large: bool, quick: bool) -> list[Case]:
    n = (1 << 20 if large else 2000) if not quick else (300 if large else 100)
    graph, _ = planted_partition(n, 16, seed=1)

    def prepare(dev):
        return DeviceWeightedGraph(graph.n, dev.array(graph.ptr), dev.array(graph.adj), dev.array(graph.weights))

    def check(r):
        return len(r.labels) == graph.n and abs(modularity(graph, r.labels) - r.modularity) < 1e-6

    return [Case("louvain", "louvain", f"planted partition, n = {n:,}, {graph.n_entries // 2:,} edges",
                 graph.n_entries // 2, prepare, lambda g, dev: gpu_louvain(g, device=dev), check)]


def case_named(family_algorithm: str, large: bool, quick: bool = False) -> Case:
    """The case ``"family:algorithm"`` (e.g. ``"weighted:ld"``), on the large or the small input; the profiler
    (``benchmarks/profile.py``) takes its cases so."""
    family, algorithm = family_algorithm.split(":")
    maker = roma_cases if algorithm == "roma" else globals()[f"{family}_cases"]
    return next(c for c in maker(large, quick) if c.algorithm == algorithm)


def measure(case: Case, dev: Device, repeats: int) -> dict:
    """The case on ``dev``: one untimed call (compiles, checks the input once on the device), then ``repeats``."""
    row = {"family": case.family, "algorithm": case.algorithm, "input": case.input, "size": case.size,
           "backend": dev.backend}
    try:
        data = case.prepare(dev)
        case.call(data, dev)
        dev.synchronize()
        pairs = []
        for _ in range(repeats):
            result = None  # the last call's result is released here, not charged to the next call
            start = time.perf_counter()
            result = case.call(data, dev)
            dev.synchronize()
            pairs.append((time.perf_counter() - start, float(sum(result.stats["seconds"].values()))))
        row.update(whole_seconds=min(p[0] for p in pairs), device_seconds=min(p[1] for p in pairs),
                   ratio=statistics.median(w / d for w, d in pairs),
                   output="device" if type(result).__name__.startswith("Device") else "host",
                   ok=bool(case.check(result)))
    except Exception as exc:  # noqa: BLE001 - recorded, the run goes on
        row["error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
    return row


def report(rows: list[dict]) -> None:
    print(f"\n{'family':<10} {'algorithm':<10} {'backend':<6} {'input':<44} {'whole ms':>10} {'device ms':>10} "
          f"{'ratio':>6}  ok")
    for r in rows:
        if "error" in r:
            print(f"{r['family']:<10} {r['algorithm']:<10} {r['backend']:<6} {r['input']:<44} {r['error']}")
            continue
        print(f"{r['family']:<10} {r['algorithm']:<10} {r['backend']:<6} {r['input']:<44} "
              f"{r['whole_seconds'] * 1e3:>10.3f} {r['device_seconds'] * 1e3:>10.3f} {r['ratio']:>6.2f}  "
              f"{'ok' if r['ok'] else 'WRONG'}")


def picture(rows: list[dict], path) -> None:
    """Whole call over device phases per algorithm and backend, one group per input size (the goal: 1.2)."""
    from benchmarks.plots import bars

    timed = [r for r in rows if "ratio" in r]
    groups = list(dict.fromkeys(f"{r['family']} {r['algorithm']}" for r in timed))
    series = {f"{backend}, {size} input": [next((r["ratio"] for r in timed if f"{r['family']} {r['algorithm']}" == g
                                                 and r["backend"] == backend and r["input_size"] == size), None)
                                           for g in groups]
              for backend, size in dict.fromkeys((r["backend"], r["input_size"]) for r in timed)}
    bars(path, "device-resident input: whole call / device phases (median of the repeats)", groups, series,
         "whole / device", log=False, line=1.2)


def main(argv: list[str] | None = None) -> int:
    """The ``resident`` area: rows in ``DIR/resident.json`` (after every row), ratios in ``DIR/resident.png``."""
    from benchmarks import machine

    parser = argparse.ArgumentParser(prog="python -m benchmarks resident", description=__doc__.split("\n\n")[0])
    machine.add_out(parser)
    parser.add_argument("--backends", help="comma-separated (default: every working GPU backend)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", default="large,small", help="large, small or both")
    parser.add_argument("--families", default="bipartite,weighted,roma,stable,louvain")
    options = parser.parse_args(argv)
    backends = options.backends.split(",") if options.backends else [b for b in GPU_BACKENDS if gpu_status(b)[0]]
    if not backends:
        print("no working GPU backend (pass --backends sim for the simulator)", file=sys.stderr)
        return 1
    makers = {"bipartite": bipartite_cases, "weighted": weighted_cases, "roma": roma_cases,
              "stable": stable_cases, "louvain": louvain_cases}
    families = options.families.split(",")
    rows = []
    path, png_path = machine.outputs(options, "resident")
    meta = {**machine.stamp("resident", argv), "quick": options.quick}
    for size in options.sizes.split(","):
        cases = [c for f in families for c in makers[f](size == "large", options.quick)]
        for case in tqdm(cases, desc=f"{size} inputs", file=sys.stderr):
            for backend in backends:
                dev = Device(backend, seed=0, trace=False) if backend == "sim" else Device(backend)
                rows.append(dict(measure(case, dev, options.repeats), input_size=size))
                # after every row: a cut run keeps its figures
                path.write_text(json.dumps({**meta, "rows": rows}, indent=1) + "\n")
    report(rows)
    picture(rows, png_path)
    timed = [r for r in rows if "ratio" in r]
    within = [r for r in timed if r["ratio"] <= 1.2]
    print(f"\nwithin 1.2x of the device phases: {len(within)} of {len(timed)} rows; "
          f"wrong: {sum(not r['ok'] for r in timed)}; errors: {sum('error' in r for r in rows)}")
    return 0 if all(r["ok"] for r in timed) and not any("error" in r for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
