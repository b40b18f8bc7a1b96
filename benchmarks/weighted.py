"""Weighted matching on the GPU beside the sequential references, side by side in one run.

1. GPU-Suitor (Alg. 4: a warp per chunk, in the variants NoSync, SyncNoLB, SyncLB and Hybrid;
   and a thread per vertex), GPU Locally-Dominant and GPU b-Suitor (b = 2) on numba and cupy,
   against the compiled sequential Suitor, Greedy and greedy b-matching, on random sparse graphs
   of 3·10^3 to 10^7 edges with uniform weights; NetworkX's exact matching only on the smallest
   (its blossom algorithm took over 9 minutes on 10^4 edges).  Every GPU result must equal the
   greedy (b-)matching exactly.
2. Parallel ROMA 2 (a block per matching edge, Hovland 2020, Alg. 8) and ROMA 1 (a thread per edge,
   Alg. 6) against sequential ROMA on complete graphs with uniform weights, n = 4096 … 32768,
   from the ``i,i+1`` start, threshold 10^-5.  Every result must be a perfect matching.
3. The gap to optimality (Hovland 2020, Table 5.4) for n = 512 … 2048 on the three generators:
   Greedy, sequential ROMA from ``i,i+1`` and from GPA, and GPU ROMA 2.  NetworkX's exact
   matching is out of reach at these sizes, so the gap is measured against an upper bound on
   the optimum: half the maximum-weight assignment of the matrix (SciPy's
   ``linear_sum_assignment`` with the diagonal forbidden) — a perfect matching ``M`` gives an
   assignment of weight ``2 w(M)``.  The reported gap is therefore at least the true one.

Beside them, on the same graphs and in the same run, NetworKit 11's ``SuitorMatcher`` (Suitor, and
SortSuitor with its ``sortEdgesByWeight`` counted in) and ``BSuitorMatcher`` (b = 2) on all host cores
(``networkit.setNumberOfThreads(os.cpu_count())``), each timed as the call on a ``networkit.Graph``
already built (the build is ``networkit_graph_seconds``); every GPU row gets ``speedup_vs_networkit``,
the fastest NetworKit matcher's seconds over its whole call.  Without NetworKit those rows are skipped
with a note.

Two times per GPU run, after a warm-up that compiled every kernel: ``seconds``, the whole call
(host preparation — ranking the weights for Suitor's packed offers, checking and padding ROMA's
matrix —, copies, kernels, result); and ``device_seconds``, the kernel launches and the flags read
back between them (the host loop's synchronised phases), which is what the papers time.  Suitor, LD
and b-Suitor are timed a second time with the graph already on the device and ``output="device"``
(no copy in, none out): ``resident_seconds`` the whole call, ``resident_device_seconds`` its
phases, ``resident_output`` says where the result stayed; their results are copied back and checked
after the timing.  Usage::

    python -m benchmarks weighted [--quick] [--parts suitor,roma,gap] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment

from benchmarks.timing import timed, validation_row
from gpusim import Device
from gpusim.algorithms import weighted
from gpusim.algorithms.weighted import (
    b_suitor,
    reference_augmentation,
    reference_b_suitor,
    reference_exact,
    reference_greedy,
    reference_suitor,
)
from gpusim.backends import GPU_BACKENDS, gpu_status
from gpusim.runtime.resident_graphs import to_device
from gpusim.types.complete_graphs import exponential, geometric, uniform
from gpusim.types.graphs import WeightedGraph


def random_graph(n: int, m: int, seed: int) -> WeightedGraph:
    """``m`` distinct random edges on ``n`` vertices (drawn with replacement, deduplicated, then
    ``m`` of them chosen at random), uniform weights in [0, 1)."""
    rng = np.random.default_rng(seed)
    u = rng.integers(0, n, int(m * 2.4))
    v = rng.integers(0, n, u.size)
    keep = u != v
    keys = np.sort(np.minimum(u[keep], v[keep]).astype(np.int64) * n + np.maximum(u[keep], v[keep]))
    keys = keys[np.concatenate([[True], np.diff(keys) > 0])]
    keys = np.sort(keys[rng.permutation(keys.size)[:m]])
    return WeightedGraph.from_edges(keys // n, keys % n, rng.random(keys.size), n=n)


def suitor_rows(name, graph, backends, with_networkx):
    rows = []
    seconds, reference = timed(lambda: reference_greedy.greedy(graph))
    weight = reference.weight
    expected = reference.mate.tolist()
    base = {"part": "suitor", "graph": name, "n": graph.n, "edges": graph.n_edges}
    rows.append({**base, "program": "greedy", "backend": "cpu", "seconds": seconds, "ok": True})
    seconds, result = timed(lambda: reference_suitor.suitor(graph))
    rows.append({**base, "program": "suitor", "backend": "cpu", "seconds": seconds,
                 "ok": result.mate.tolist() == expected})
    if with_networkx:
        seconds, exact = timed(lambda: reference_exact.exact_maximum_weight(graph))
        rows.append({**base, "program": "networkx exact", "backend": "cpu", "seconds": seconds, "ok": True,
                     "greedy_over_optimum": reference.weight / exact.weight})
    gpu_programs = [(f"suitor {variant}", lambda g, d, v=variant, **k: weighted.suitor(g, device=d, variant=v, **k))
                    for variant in weighted.SUITOR_VARIANTS]
    gpu_programs += [("suitor thread", lambda g, d, **k: weighted.suitor(g, device=d, layout="thread", **k)),
                     ("ld", lambda g, d, **k: weighted.locally_dominant(g, device=d, **k))]
    for backend in backends:
        device = Device(backend)
        on_device = resident_graph(device, graph)
        for label, call in gpu_programs:
            seconds, result = best_of_two(lambda c=call, d=device: c(graph, d))
            check = validation_row(result, seconds)
            resident_seconds, kept = best_of_two(lambda c=call, d=device, g=on_device: c(g, d, output=RESIDENT_OUTPUT))
            rows.append({**base, "program": label, "backend": backend, "seconds": seconds,
                         "device_seconds": sum(result.stats["seconds"].values()), **check,
                         "resident_seconds": resident_seconds,
                         "resident_device_seconds": sum(kept.stats["seconds"].values()),
                         "resident_output": RESIDENT_OUTPUT,
                         "ok": check["valid"] and result.mate.tolist() == expected and kept.valid
                         and kept.to_host().mate.tolist() == expected})
    greedy_seconds = rows[0]["seconds"]
    for row in rows:
        row["speedup_vs_greedy"] = greedy_seconds / row["seconds"]
        if "device_seconds" in row:
            row["device_speedup_vs_greedy"] = greedy_seconds / row["device_seconds"]
    b_rows = b_suitor_rows(graph, base, backends)
    return against_networkit(rows + b_rows + networkit_rows(graph, base, weight, b_rows[0]["weight"]))


#: Where the device-resident runs leave their result: on the device, so the call pays no copy either way.
RESIDENT_OUTPUT = "device"


def best_of_two(call):
    """``(seconds, result)`` of the faster of two calls."""
    return min((timed(call) for _ in range(2)), key=lambda pair: pair[0])


def resident_graph(device, graph):
    """``graph`` copied to ``device`` once and checked there (a first call), for the device-resident timings."""
    on_device = to_device(device, graph)
    on_device.checked = False
    weighted.suitor(on_device, device=device)
    return on_device


def b_suitor_rows(graph, base, backends, b=2):
    """GPU b-Suitor beside the sequential greedy b-matching and b-Suitor (speedups over the greedy one)."""
    base = {**base, "part": "bsuitor"}
    seconds, reference = timed(lambda: reference_b_suitor.greedy_b_matching(graph, b))
    expected = reference.partners.tolist()
    rows = [{**base, "program": f"greedy b={b}", "backend": "cpu", "seconds": seconds, "ok": True,
             "weight": reference.weight}]
    seconds, result = timed(lambda: reference_b_suitor.b_suitor(graph, b))
    rows.append({**base, "program": f"b-suitor b={b}", "backend": "cpu", "seconds": seconds,
                 "ok": result.partners.tolist() == expected})
    for backend in backends:
        device = Device(backend)
        seconds, result = best_of_two(lambda d=device: b_suitor(graph, b, device=d))
        on_device = resident_graph(device, graph)
        b_suitor(on_device, b, device=device)  # its one check on the device, untimed
        resident_seconds, kept = best_of_two(lambda d=device, g=on_device: b_suitor(g, b, device=d,
                                                                                  output=RESIDENT_OUTPUT))
        rows.append({**base, "program": f"b-suitor b={b}", "backend": backend, "seconds": seconds,
                     "device_seconds": sum(result.stats["seconds"].values()), "rounds": result.stats["rounds"],
                     "resident_seconds": resident_seconds,
                     "resident_device_seconds": sum(kept.stats["seconds"].values()),
                     "resident_output": RESIDENT_OUTPUT,
                     "ok": result.partners.tolist() == expected and kept.valid
                     and kept.to_host().partners.tolist() == expected})
    for row in rows:
        row["speedup_vs_greedy"] = rows[0]["seconds"] / row["seconds"]
        if "device_seconds" in row:
            row["device_speedup_vs_greedy"] = rows[0]["seconds"] / row["device_seconds"]
    return rows


def networkit_rows(graph, base, weight, b_weight, b=2):
    """NetworKit's SuitorMatcher (Suitor; SortSuitor with its sort) and BSuitorMatcher on all host cores, each
    checked against the greedy (b-)matching's weight; ``[]`` with a note when NetworKit is missing or fails."""
    try:
        import networkit as nk
        from networkit.graph import GraphFromCoo
    except ImportError as exc:
        print(f"skipping NetworKit: {exc}", file=sys.stderr)
        return []
    threads = os.cpu_count() or 1
    nk.setNumberOfThreads(threads)
    u, v, w = graph.edges()
    rows = []
    try:
        build, G = timed(lambda: GraphFromCoo((np.ascontiguousarray(w, np.float64),
                                               (u.astype(np.uint64), v.astype(np.uint64))), n=graph.n, weighted=True))
        info = {"backend": "cpu", "threads": nk.getMaxNumberOfThreads(), "networkit_graph_seconds": build}

        def call(make, result):
            algorithm = make()
            algorithm.run()
            return result(algorithm)

        def matcher(make, result):
            return min((timed(lambda: call(make, result)) for _ in range(2)), key=lambda pair: pair[0])

        seconds, found = matcher(lambda: nk.matching.SuitorMatcher(G, False), lambda m: m.getMatching().weight(G))
        rows.append({**base, **info, "program": "networkit suitor", "seconds": seconds, "weight": found,
                     "ok": math.isclose(found, weight, rel_tol=1e-9)})
        seconds, found = matcher(lambda: nk.matching.BSuitorMatcher(G, int(b)), lambda m: m.getBMatching().weight())
        rows.append({**base, **info, "part": "bsuitor", "program": f"networkit b-suitor b={b}", "seconds": seconds,
                     "weight": found, "ok": math.isclose(found, b_weight, rel_tol=1e-9)})
        seconds, found = timed(lambda: (nk.graphtools.sortEdgesByWeight(G, True),
                                        call(lambda: nk.matching.SuitorMatcher(G, True),
                                             lambda m: m.getMatching().weight(G)))[1])
        rows.append({**base, **info, "program": "networkit sortsuitor", "seconds": seconds, "weight": found,
                     "ok": math.isclose(found, weight, rel_tol=1e-9)})
    except Exception as exc:  # noqa: BLE001 - another NetworKit's API: say so, keep the GPU figures
        print(f"NetworKit failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return rows
    return rows


def against_networkit(rows):
    """Every GPU row's ``speedup_vs_networkit``: the fastest NetworKit matcher of its part over the row's seconds."""
    for part in ("suitor", "bsuitor"):
        theirs = [r["seconds"] for r in rows if r["part"] == part and r["program"].startswith("networkit")]
        greedy = next(r["seconds"] for r in rows if r["part"] == part and r["program"].startswith("greedy"))
        for row in rows:
            if row["part"] == part and row["program"].startswith("networkit"):
                row["speedup_vs_greedy"] = greedy / row["seconds"]
            if theirs and row["part"] == part and row["backend"] != "cpu":
                row["networkit_seconds"] = min(theirs)
                row["speedup_vs_networkit"] = min(theirs) / row["seconds"]
    return rows


def assignment_bound(weights) -> float:
    """Half the maximum-weight assignment with the diagonal forbidden: at least the optimum matching."""
    cost = weights.copy()
    np.fill_diagonal(cost, -1e18)
    rows, cols = linear_sum_assignment(cost, maximize=True)
    return math.fsum(weights[rows, cols].tolist()) / 2


def gap_rows(n, backends):
    """Hovland (2020) Table 5.4's gap to optimality, against :func:`assignment_bound`."""
    rows = []
    for name, generate in (("uniform", uniform), ("exponential", exponential), ("geometric", geometric)):
        weights = generate(n, seed=1)
        seconds, bound = timed(lambda w=weights: assignment_bound(w))
        graph = WeightedGraph.from_scipy(sp.csr_array(weights))
        found = {"greedy": reference_greedy.greedy(graph).weight,
                 "roma i,i+1": reference_augmentation.roma(weights, "i,i+1", order="fixed").weight,
                 "roma gpa": reference_augmentation.roma(weights, "gpa", order="fixed").weight}
        if backends:
            found[f"roma block {backends[-1]}"] = weighted.roma(weights, "i,i+1", backend=backends[-1]).weight
        for program, weight in found.items():
            rows.append({"part": "gap", "graph": f"complete {name} n={n}", "n": n, "edges": n * (n - 1) // 2,
                         "program": program, "backend": "cpu" if "block" not in program else backends[-1],
                         "weight": weight, "bound": bound, "bound_seconds": seconds,
                         "gap_upper": (bound - weight) / bound, "ok": weight <= bound * (1 + 1e-12)})
    return rows


def roma_rows(n, backends):
    rows = []
    weights = uniform(n, seed=1)
    base = {"part": "roma", "graph": f"complete uniform n={n}", "n": n, "edges": n * (n - 1) // 2}
    seconds, reference = timed(lambda: reference_augmentation.roma(weights, "i,i+1", order="fixed"))
    rows.append({**base, "program": "roma", "backend": "cpu", "seconds": seconds, "ok": True,
                 "weight": reference.weight, "phases": reference.stats["phases"]})
    for backend in backends:
        device = Device(backend)
        for variant in ("block", "thread"):
            # CuPy compiles a kernel again for arrays of 2^31 bytes and more (64-bit indexing): one untimed
            # phase on these weights keeps that compilation out of the timed call
            weighted.roma(weights, "i,i+1", variant=variant, device=device, max_phases=1)
            seconds, result = timed(lambda v=variant, d=device: weighted.roma(weights, "i,i+1", variant=v, device=d))
            mate = result.mate
            perfect = bool((mate[mate] == np.arange(n)).all() and (mate != np.arange(n)).all())
            check = validation_row(result, seconds)
            rows.append({**base, "program": f"roma {variant}", "backend": backend, "seconds": seconds,
                         "device_seconds": sum(result.stats["seconds"].values()), **check,
                         "ok": perfect and check["valid"],
                         "weight": result.weight, "phases": result.stats["phases"],
                         "weight_vs_sequential": result.weight / reference.weight})
    for row in rows:
        row["speedup_vs_sequential"] = rows[0]["seconds"] / row["seconds"]
        if "device_seconds" in row:
            row["device_speedup_vs_sequential"] = rows[0]["seconds"] / row["device_seconds"]
    return rows


def warm_up(backends):
    graph = random_graph(2000, 8000, seed=9)
    weights = uniform(64, seed=9)
    reference_greedy.greedy(graph), reference_suitor.suitor(graph)
    reference_augmentation.roma(weights, "i,i+1", order="fixed")
    reference_b_suitor.greedy_b_matching(graph, 2), reference_b_suitor.b_suitor(graph, 2)
    for backend in backends:
        device = Device(backend)
        weighted.suitor(graph, device=device, layout="thread"), weighted.locally_dominant(graph, device=device)
        for variant in weighted.SUITOR_VARIANTS:
            weighted.suitor(graph, device=device, variant=variant)
        b_suitor(graph, 2, device=device)
        weighted.roma(weights, device=device), weighted.roma(weights, device=device, variant="thread")


def picture(rows: list[dict], path) -> None:
    """Each program's whole-call speedup over its sequential reference (Greedy, greedy b-matching, ROMA), per input."""
    from benchmarks.plots import bars

    timed = [r for r in rows if r["part"] != "gap"]
    groups = list(dict.fromkeys(r["graph"] for r in timed))
    programs = list(dict.fromkeys((r["program"], r["backend"]) for r in timed))
    series = {f"{p} ({b})": [next((r.get("speedup_vs_greedy", r.get("speedup_vs_sequential")) for r in timed
                                   if r["graph"] == g and (r["program"], r["backend"]) == (p, b)), None)
                             for g in groups] for p, b in programs}
    bars(path, "weighted matching: whole call, speedup over the sequential reference", groups, series,
         "speedup (log)", line=1.0)


def main(argv: list[str] | None = None) -> int:
    """The ``weighted`` area: its rows in ``DIR/weighted.json``, the speedups in ``DIR/weighted.png``."""
    from benchmarks import machine

    parser = argparse.ArgumentParser(prog="python -m benchmarks weighted", description=__doc__.split("\n\n")[0])
    machine.add_out(parser)
    parser.add_argument("--parts", default="suitor,roma,gap",
                        help="which parts to run, comma-separated: suitor (with LD, b-Suitor and NetworKit), roma, gap")
    options = parser.parse_args(argv)
    parts = set(options.parts.split(","))
    backends = [name for name in GPU_BACKENDS if gpu_status(name)[0]]
    warm_up(backends)
    sparse = [(2048, 3000, True), (1 << 17, 1_000_000, False)]
    sizes = [512, 1024]
    if not options.quick:
        sparse += [(1 << 20, 10_000_000, False)]
        sizes = [4096, 8192, 16384, 32768]
    rows = []
    json_path, png_path = machine.outputs(options, "weighted")
    meta = {**machine.stamp("weighted", argv), "quick": options.quick}

    def save():  # after every part: a run cut short still leaves its figures
        json_path.write_text(json.dumps({**meta, "rows": rows}, indent=1))

    for n, m, with_networkx in sparse if "suitor" in parts else []:
        graph = random_graph(n, m, seed=1)
        rows += suitor_rows(f"random n={n}", graph, backends, with_networkx)
        print(f"done: suitor on {graph.n_edges} edges", file=sys.stderr, flush=True)
        save()
    for n in sizes if "roma" in parts else []:
        rows += roma_rows(n, backends)
        print(f"done: roma n={n}", file=sys.stderr, flush=True)
        save()
    for n in ([] if "gap" not in parts else [256] if options.quick else [512, 1024, 2048]):
        rows += gap_rows(n, backends)
        print(f"done: gap to optimality n={n}", file=sys.stderr, flush=True)
        save()
    print(f"{'part':<8}{'graph':<26}{'edges':>11} {'program':<23}{'backend':<8}{'seconds':>10} {'speedup':>8} "
          f"{'device s':>10} {'speedup':>8} ok")
    for r in rows:
        if r["part"] == "gap":
            print(f"{r['part']:<8}{r['graph']:<26}{r['edges']:>11} {r['program']:<23}{r['backend']:<8}"
                  f" weight {r['weight']:.6g}, bound {r['bound']:.6g}, gap <= {100 * r['gap_upper']:.3f} %")
            continue
        speedup = r.get("speedup_vs_greedy", r.get("speedup_vs_sequential"))
        device = r.get("device_speedup_vs_greedy", r.get("device_speedup_vs_sequential"))
        device_text = f"{r['device_seconds']:>10.4f} {device:>8.2f}" if device else f"{'-':>10} {'-':>8}"
        versus = f"  x{r['speedup_vs_networkit']:.1f} vs NetworKit" if "speedup_vs_networkit" in r else ""
        print(f"{r['part']:<8}{r['graph']:<26}{r['edges']:>11} {r['program']:<23}{r['backend']:<8}"
              f"{r['seconds']:>10.4f} {speedup:>8.2f} {device_text} {r['ok']}{versus}")
    picture(rows, png_path)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
