"""Maximum bipartite matching on the GPU against SciPy and the sequential references, side by side.

For each graph — generated ones of 10^6–10^7+ edges (uniform random, R-MAT, road-like grid,
random geometric, and a random row/column permutation: the papers' RCP sets) and the bundled
matrices — one run times, on the same machine: SciPy's ``maximum_bipartite_matching``, the
``cpu`` references (Hopcroft-Karp, Pothen-Fan, push-relabel), and G-PR and APFB on every GPU
backend that works.  Every result is checked against SciPy's size and its König certificate
(where SciPy times out — scipy/scipy#26147 — against the first certified reference).

Times cover the algorithm alone: the cheap matching and the copies to and from the GPU included
(the papers exclude both), the certification excluded; the check of the result against its input graph
(lazy, never part of the call) is timed beside it as ``validate_seconds``, and ``seconds_validated`` is the
call with it.  Reported per run: seconds, edges per
second, and a *traffic model* in bytes per second: each global relabel / BFS level reads the
graph's CSR once (4 bytes per edge plus 4 per vertex), a lower bound on the bytes the kernels
move, compared with the device's copy bandwidth measured in the same run.

The ``bipartite`` area runs this comparison (``scipy``) and the one against ECL-MM (``ecl-mm``,
``benchmarks/e2e.py``) and writes both into one JSON.  Usage::

    python -m benchmarks bipartite [--quick] [--parts scipy,ecl-mm] [--matrices DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import sys
import time
from pathlib import Path

import numpy as np
from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_matching

from benchmarks.timing import validation_row
from gpusim import Device
from gpusim.algorithms import bipartite
from gpusim.backends import GPU_BACKENDS, gpu_status
from gpusim.errors import InvalidArgument
from gpusim.types.graphs import BipartiteGraph
from gpusim.types.results import BipartiteMatching

ROOT = Path(__file__).resolve().parents[1]


def generated_graphs(quick: bool):
    from gpusim.types import generators as gen

    if quick:
        yield "uniform 2^16, 10^6 edges", gen.uniform_random(1 << 16, 1 << 16, 1_000_000, seed=1)
        yield "rmat scale 16", gen.rmat(16, 16, seed=1)
        return
    n = 1 << 21
    uniform = gen.uniform_random(n, n, 16_000_000, seed=1)
    yield "uniform 2^21, 1.6e7 edges", uniform
    yield "uniform 2^21, RCP", gen.random_permutation(uniform, seed=2)
    yield "rmat scale 21, ef 8", gen.rmat(21, 8, seed=1)
    # With their diagonals the cheap matching alone is perfect: permute them, as the papers' RCP sets do.
    yield "grid 1500x1500 (road), RCP", gen.random_permutation(gen.grid(1500, 1500), seed=3)
    radius = math.sqrt(12 / (math.pi * (1 << 20)))
    yield "geometric 2^20 deg~12, RCP", gen.random_permutation(gen.random_geometric(1 << 20, radius, seed=1), seed=4)
    yield "uniform 2^18, 10^6 edges", gen.uniform_random(1 << 18, 1 << 18, 1_000_000, seed=3)


def bundled_graphs(directory: Path):
    for path in sorted(directory.glob("*.mtx"), key=lambda p: p.stat().st_size):
        yield path.stem, BipartiteGraph.from_matrix_market(path)


def _time(function, repeats: int = 1):
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def copy_bandwidth(backend: str) -> float:
    """Device-to-device copy, bytes read + written per second (median of 10, 256 MiB)."""
    if backend == "cupy":
        import cupy

        a = cupy.ones(1 << 26, cupy.float32)
        b = cupy.empty_like(a)
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        times = []
        for _ in range(12):
            start.record()
            b[...] = a
            end.record()
            end.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, end) / 1e3)
        return 2 * a.nbytes / float(np.median(times[2:]))
    from numba import cuda

    a = cuda.to_device(np.ones(1 << 26, np.float32))
    b = cuda.device_array_like(a)
    times = []
    for _ in range(12):
        start, end = cuda.event(), cuda.event()
        start.record()
        b.copy_to_device(a)
        end.record()
        end.synchronize()
        times.append(cuda.event_elapsed_time(start, end) / 1e3)
    return 2 * a.nbytes / float(np.median(times[2:]))


def passes(result: BipartiteMatching) -> int:
    stats = result.stats
    if result.algorithm == "gpr":
        return stats["launches"].get("global_relabel_level", 0) + stats["loops"]
    return stats["bfs_levels"]


def _scipy(graph: BipartiteGraph) -> tuple[np.ndarray, None]:
    return scipy_matching(graph.to_scipy(), perm_type="column"), None


def _timed(function, graph: BipartiteGraph, queue) -> None:
    start = time.perf_counter()
    row_match, col_match = function(graph)[:2]
    queue.put((time.perf_counter() - start, row_match, col_match))


def forked(function, graph: BipartiteGraph, timeout: float):
    """``(seconds, row_match, col_match)`` of ``function(graph)`` run in a forked process, or
    ``(timeout, None, None)`` when it runs past ``timeout`` seconds and is stopped.

    SciPy's Hopcroft-Karp can take exponential time on permuted grid-like graphs (its search does
    not mark dead ends: scipy/scipy#26147), and sequential references can take minutes there:
    a timed-out time is a lower bound.
    """
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    process = context.Process(target=_timed, args=(function, graph, queue))
    process.start()
    try:
        return queue.get(timeout=timeout)
    except Exception:  # noqa: BLE001 - queue.Empty: it ran out of time
        return timeout, None, None
    finally:
        process.kill()
        process.join()


def bench_graph(name: str, graph: BipartiteGraph, backends: list[str], bandwidth: dict,
                cpu_timeout: float) -> list[dict]:
    rows = []
    csr_bytes = 4 * graph.n_edges + 4 * (graph.n_rows + graph.n_cols)
    scipy_seconds, scipy_rows, _ = forked(_scipy, graph, cpu_timeout)
    expected = None if scipy_rows is None else int((scipy_rows >= 0).sum())
    base = {"graph": name, "n_rows": graph.n_rows, "n_cols": graph.n_cols, "edges": graph.n_edges}
    rows.append({**base, "program": "scipy", "backend": "cpu", "seconds": scipy_seconds, "ok": True,
                 "timed_out": expected is None})
    for label, function in (("hk", bipartite.hopcroft_karp), ("pfp", bipartite.pothen_fan),
                            ("pr", bipartite.push_relabel)):
        seconds, row_match, col_match = forked(function, graph, cpu_timeout)
        if row_match is None:
            rows.append({**base, "program": label, "backend": "cpu", "seconds": seconds, "ok": True,
                         "timed_out": True})
            continue
        result = BipartiteMatching(graph, row_match, col_match, label, "cpu")
        if expected is None:  # SciPy gave up: the first certified reference fixes the size
            expected = result.size if result.certified else None
        rows.append({**base, "program": label, "backend": "cpu", "seconds": seconds,
                     "ok": result.size == expected and result.certified})
    for backend in backends:
        device = Device(backend)
        for label, function in (("gpr", bipartite.gpr), ("apfb", bipartite.apfb)):
            seconds, result = _time(lambda f=function, d=device: f(graph, device=d), repeats=2)
            traffic = csr_bytes * passes(result) / seconds
            check = validation_row(result, seconds)
            rows.append({**base, "program": label, "backend": backend, "seconds": seconds, **check,
                         "ok": check["valid"] and result.size == expected and result.certified,
                         "passes": passes(result),
                         "seconds_per_phase": {k: round(v, 6) for k, v in result.stats["seconds"].items()},
                         "model_bytes_per_second": traffic,
                         "fraction_of_copy_bandwidth": traffic / bandwidth[backend]})
    for row in rows:
        row["max_matching"] = expected
        row["edges_per_second"] = graph.n_edges / row["seconds"] if row["seconds"] > 0 else None
        row["speedup_vs_scipy"] = scipy_seconds / row["seconds"] if row["seconds"] > 0 else None
    return rows


def warm_up(backends: list[str]) -> None:
    """Compile every kernel once on a small graph, so compile time stays out of the figures."""
    small = BipartiteGraph.from_edges(np.arange(600), np.arange(600))
    for backend in backends:
        for function in (bipartite.gpr, bipartite.apfb):
            function(small, device=Device(backend))
    bipartite.hopcroft_karp(small), bipartite.pothen_fan(small), bipartite.push_relabel(small)


def picture(rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    graphs = list(dict.fromkeys(row["graph"] for row in rows if row["edges"] >= 1_000_000))
    graphs = graphs or list(dict.fromkeys(row["graph"] for row in rows))  # --quick: every graph
    stopped = {row["graph"] for row in rows if row["program"] == "scipy" and row.get("timed_out")}
    programs = [p for p in dict.fromkeys((row["program"], row["backend"]) for row in rows) if p[0] != "scipy"]
    figure, axes = plt.subplots(figsize=(11, 4.5))
    width = 0.8 / max(1, len(programs))
    for k, (program, backend) in enumerate(programs):
        values = [next((r["speedup_vs_scipy"] for r in rows if r["graph"] == g and r["program"] == program
                        and r["backend"] == backend), np.nan) for g in graphs]
        axes.bar(np.arange(len(graphs)) + k * width, values, width, label=f"{program} ({backend})")
    axes.axhline(1, color="black", linewidth=0.8)
    axes.set_yscale("log")
    labels = [f"{g}\n(SciPy stopped: lower bounds)" if g in stopped else g for g in graphs]
    axes.set_xticks(np.arange(len(graphs)) + 0.4 - width / 2, labels, rotation=20, ha="right", fontsize=8)
    axes.set_ylabel("speedup over SciPy (log)")
    axes.set_title("maximum bipartite matching, ≥ 10^6-edge graphs, one run")
    axes.legend(fontsize=7, ncols=4)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def geomean_speedups(rows: list[dict]) -> dict:
    """Geometric mean of the speedup over SciPy per program, over the graphs of at least 10^7 edges."""
    big = [r for r in rows if r["edges"] >= 10_000_000]
    summary = {}
    for program, backend in dict.fromkeys((r["program"], r["backend"]) for r in big):
        speedups = [r["speedup_vs_scipy"] for r in big if r["program"] == program and r["backend"] == backend]
        summary[f"{program} ({backend})"] = float(np.exp(np.mean(np.log(speedups))))
    return summary


def default_matrices() -> Path:
    """The bundled matrices: the workspace's ``shared/data/matrices`` when present, else the tests' copy."""
    shared = ROOT.parent / "shared" / "data" / "matrices"
    return shared if shared.is_dir() else ROOT / "tests" / "data" / "matrices"


def main(argv: list[str] | None = None) -> int:
    """The ``bipartite`` area: SciPy and the references, then ECL-MM, into ``DIR/bipartite.json`` and ``.png``."""
    from benchmarks import e2e, machine

    parser = argparse.ArgumentParser(prog="python -m benchmarks bipartite", description=__doc__.split("\n\n")[0])
    machine.add_out(parser)
    parser.add_argument("--parts", default="scipy,ecl-mm", help="scipy, ecl-mm or both (default both)")
    parser.add_argument("--matrices", default=str(default_matrices()))
    parser.add_argument("--cpu-timeout", type=float, default=60.0,
                        help="seconds SciPy or a cpu reference may take per graph; past it the time is a lower "
                             "bound (default 60)")
    e2e.add_arguments(parser)
    options = parser.parse_args(argv)
    parts = set(options.parts.split(","))
    if parts - {"scipy", "ecl-mm"}:
        parser.error(f"--parts: unknown {sorted(parts - {'scipy', 'ecl-mm'})}; known: scipy, ecl-mm")
    json_path, png_path = machine.outputs(options, "bipartite")
    results = {**machine.stamp("bipartite", argv), "quick": options.quick}

    def save(part: str, figures: dict) -> None:  # after every graph: a run cut short still leaves its figures
        results[part] = figures
        json_path.write_text(json.dumps(results, indent=1) + "\n")

    rc = 0
    if "scipy" in parts:
        rows = scipy_comparison(options, lambda figures: save("scipy", figures))
        picture(rows, str(png_path))
        rc = 0 if all(r["ok"] for r in rows) else 1
    if "ecl-mm" in parts:
        try:
            figures, ecl_rc = e2e.compare(options, lambda figures: save("ecl_mm", figures))
        except InvalidArgument as exc:
            parser.error(str(exc))
        rc = rc or ecl_rc
        if figures and "scipy" not in parts:
            ecl_picture(figures, png_path)
    print(f"written: {json_path}")
    return rc


def ecl_picture(figures: dict, path: Path) -> None:
    """The geometric means of gpusim over ECL-MM per program (whole call, device phases, resident call)."""
    from benchmarks.plots import bars

    programs = sorted(figures["geomean"], key=lambda p: figures["geomean"][p]["whole_over_ecl"])
    series = {key.replace("_over_ecl", ""): [figures["geomean"][p].get(key) for p in programs]
              for key in ("whole_over_ecl", "device_over_ecl", "resident_over_ecl")}
    bars(path, "maximum bipartite matching: gpusim / ECL-MM, geometric mean over the graphs (lower is better)",
         programs, series, "time / ECL-MM's", line=1.0)


def scipy_comparison(options, save) -> list[dict]:
    """SciPy, the cpu references and every working GPU backend on each graph; ``save(figures)`` after each."""
    backends = [name for name in GPU_BACKENDS if gpu_status(name)[0]]
    bandwidth = {backend: copy_bandwidth(backend) for backend in backends}
    warm_up(backends)
    rows, summary = [], {}
    graphs = bundled_graphs(Path(options.matrices)) if Path(options.matrices).is_dir() else iter(())
    for name, graph in itertools.chain(graphs, generated_graphs(options.quick)):
        start = time.perf_counter()
        rows += bench_graph(name, graph, backends, bandwidth, options.cpu_timeout)
        print(f"done: {name} ({graph.n_edges} edges, {time.perf_counter() - start:.1f} s)", file=sys.stderr,
              flush=True)
        summary = geomean_speedups(rows)
        save({"copy_bandwidth": bandwidth, "rows": rows, "geomean_speedup_vs_scipy_1e7": summary})
    print(f"{'graph':<28} {'edges':>10} {'program':<6} {'backend':<6} {'seconds':>9} {'Medges/s':>9} "
          f"{'×scipy':>8} {'%copy':>6} ok")
    for r in rows:
        share = f"{100 * r['fraction_of_copy_bandwidth']:.1f}" if "fraction_of_copy_bandwidth" in r else "-"
        scipy_out = any(s.get("timed_out") for s in rows if s["graph"] == r["graph"] and s["program"] == "scipy")
        bound = "<" if r.get("timed_out") else (">" if scipy_out else " ")
        print(f"{r['graph'][:28]:<28} {r['edges']:>10} {r['program']:<6} {r['backend']:<6} {r['seconds']:>9.4f} "
              f"{r['edges_per_second'] / 1e6:>9.1f} {bound}{r['speedup_vs_scipy']:>7.2f} {share:>6} {r['ok']}")
    print("copy bandwidth (GB/s): " + ", ".join(f"{k} {v / 1e9:.0f}" for k, v in bandwidth.items()))
    print("geomean speedup vs SciPy over >= 1e7-edge graphs: "
          + ", ".join(f"{k} {v:.2f}" for k, v in summary.items()))
    return rows


if __name__ == "__main__":
    sys.exit(main())
