"""Maximum bipartite matching end to end: every gpusim GPU algorithm against ECL-MM, in one run on one GPU.

ECL-MM (Akathoott and Burtscher, IPDPS 2025: the fastest published GPU maximum-matching code) is built
with its own ``build.sh`` from ``--ecl-dir`` (else ``.anchors/ecl-mm`` in the repository, else
``../shared/anchors/ecl-mm``) and run on each graph, written in its ``.egr`` format by
``benchmarks/ecl_mm.py``.  Its figure is its own timer, ``totalRunTime``: the initial matching and the
augmenting-path phase, with the graph already on the device (the fastest of ``--ecl-repeats``
processes; ``process_seconds``, its whole process with file reading and CUDA context, is recorded beside).

Graphs: the five large families — uniform random 2^21 × 2^21 with 1.6·10^7 edges and its random
permutation, R-MAT scale 21 edge factor 8, a 1500 × 1500 grid permuted, a random geometric graph on
2^20 vertices permuted (``benchmarks/bipartite.py``'s generated graphs, with its 2^18 uniform one) —
and the bundled matrices of ``--matrices``. For each, every registered GPU bipartite algorithm (``apfb``, ``apsb``,
``gpr``, ...) and the options of :data:`VARIANTS` (APFB as the host loop of launches with a thread per column, the
defaults before one-block launches and hub detection; with a warp per high-degree column; with direction-optimising
BFS; with both; APFB, APsB and G-PR from either start) on numba and cupy, warm (one call first, then the best
of ``--repeats`` calls, or of more for a short call: until they add up to :data:`MIN_TIMED_SECONDS`, at most
:data:`MAX_CALLS`):

- ``whole_seconds``: ``maximum_bipartite_matching(graph, algorithm, backend)`` from host input, timed
  from Python to the device synchronised after it, as a user calls it;
- ``device_seconds``: the sum of the result's ``stats["seconds"]``, the device phases the driver times
  (``benchmarks/bipartite.py``'s ``seconds_per_phase``);
- ``resident_seconds``: the whole call with the graph's arrays already on the device (a
  ``DeviceBipartiteGraph``, copied there once before timing; its one-time check on the device runs in
  the warm-up call) and the result left there (``output="device"``) where the library offers it
  (``resident_output`` says which); skipped with the reason in ``resident_note`` where this gpusim has
  no device-resident graphs.

Every size must equal ECL-MM's (a mismatch is printed and recorded in ``errors``, and the exit status is
1).  Ratios over ECL-MM per graph and their geometric means per algorithm (``geomean``: ``whole_over_ecl``,
``device_over_ecl``, ``resident_over_ecl``; times below 1 µs, ECL-MM's resolution, count as 1 µs) are
printed and written under ``ecl_mm`` in the ``bipartite`` area's JSON.  Usage::

    python -m benchmarks bipartite [--quick] [--parts ecl-mm] [--ecl-dir DIR] [--matrices DIR] [--repeats N]
                                   [--variants NAME,...] [--more-families]
"""

from __future__ import annotations

import datetime
import math
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

import gpusim.algorithms  # noqa: F401 - the families register their algorithms
from benchmarks import ecl_mm
from benchmarks.bipartite import bundled_graphs, generated_graphs
from gpusim import Device
from gpusim.algorithms.bipartite import maximum_bipartite_matching
from gpusim.backends import GPU_BACKENDS, gpu_status
from gpusim.errors import InvalidArgument
from gpusim.runtime.registry import algorithms
from gpusim.types import generators as gen
from gpusim.types.graphs import BipartiteGraph

ROOT = Path(__file__).resolve().parents[1]
#: Every registered GPU maximum-matching algorithm.
GPU_BIPARTITE = tuple(entry.name for entry in algorithms("bipartite") if entry.gpu)
#: Options measured beside the defaults, as programs of their own: name -> (algorithm, options).
VARIANTS = {"apfb-levels": ("apfb", {"launches": "levels", "warp_degree": None}),
            "apfb-warp32": ("apfb", {"warp_degree": 32}), "apfb-auto": ("apfb", {"direction": "auto"}),
            "apfb-auto-warp32": ("apfb", {"direction": "auto", "warp_degree": 32}),
            "apfb-sweep": ("apfb", {"frontier": "sweep"}), "apsb-sweep": ("apsb", {"frontier": "sweep"}),
            **{f"{name}-{start}": (name, {"initial": start}) for name in ("apfb", "apsb", "gpr")
               for start in ("proposals", "cheap")}}
#: ECL-MM prints microseconds: shorter times count as this in the ratios.
FLOOR = 1e-6
#: A short call is timed until its calls add up to this many seconds, at most :data:`MAX_CALLS` times
#: (:func:`best_of`): the bundled matrices' calls last 0.1–0.3 ms.
MIN_TIMED_SECONDS = 0.01
MAX_CALLS = 50
#: The goals for the best algorithm's geometric means.
GOALS = {"whole_over_ecl": 2.0, "device_over_ecl": 1.25}


def quick_graphs():
    """The five families at smoke-test sizes (10^4–10^5 edges)."""
    uniform = gen.uniform_random(1 << 14, 1 << 14, 100_000, seed=1)
    yield "uniform 2^14, 1e5 edges", uniform
    yield "uniform 2^14, RCP", gen.random_permutation(uniform, seed=2)
    yield "rmat scale 14, ef 8", gen.rmat(14, 8, seed=1)
    yield "grid 100x100 (road), RCP", gen.random_permutation(gen.grid(100, 100), seed=3)
    radius = math.sqrt(12 / (math.pi * (1 << 13)))
    yield "geometric 2^13 deg~12, RCP", gen.random_permutation(gen.random_geometric(1 << 13, radius, seed=1), seed=4)


def more_graphs(quick: bool):
    """The larger families of ECL-MM's own evaluation (Akathoott and Burtscher, IPDPS 2025): a Graph500 Kronecker
    graph, a road network (junctions joined by long chains of degree-2 vertices), a random geometric graph at 2^22
    vertices, and a bipartite graph with heavy-tailed degrees on both sides; the road and geometric graphs permuted
    (RCP), as the papers do with graphs whose diagonal makes the cheap matching perfect."""
    scale, side, points, heavy = (12, 40, 1 << 13, 1 << 13) if quick else (22, 700, 1 << 22, 1 << 21)
    yield f"kronecker scale {scale}, ef 16 (Graph500)", gen.rmat(scale, 16, seed=5)
    yield f"road network {side}x{side}, chains of 7, RCP", gen.random_permutation(gen.road_network(side, side, 7),
                                                                                     seed=6)
    radius = math.sqrt(12 / (math.pi * points))
    yield (f"geometric 2^{points.bit_length() - 1} deg~12, RCP",
           gen.random_permutation(gen.random_geometric(points, radius, seed=7), seed=8))
    yield (f"power-law bipartite 2^{heavy.bit_length() - 1}, exponent 2.1",
           gen.power_law_bipartite(heavy, heavy, 8 * heavy, 2.1, seed=9))


def all_graphs(quick: bool, matrices: Path, more: bool = False):
    """The bundled matrices (the three smallest with ``quick``), then the generated families (and with ``more``,
    :func:`more_graphs`)."""
    bundled = list(bundled_graphs(matrices)) if matrices.is_dir() else []
    yield from bundled[:3] if quick else bundled
    yield from quick_graphs() if quick else generated_graphs(False)
    if more:
        yield from more_graphs(quick)


def device_resident(graph: BipartiteGraph, backend: str):
    """``(graph with its arrays on the device, "")``, or ``(None, why not)`` when this gpusim cannot: a
    ``gpusim.types.device_graphs.DeviceBipartiteGraph`` of the four CSR arrays copied to the device once."""
    device = Device(backend)
    try:
        from gpusim.types.device_graphs import DeviceBipartiteGraph
    except ImportError:
        return None, "no device-resident graphs in this gpusim (gpusim.types.device_graphs is missing)"
    try:
        arrays = (graph.row_ptr, graph.row_adj, graph.col_ptr, graph.col_adj)
        return DeviceBipartiteGraph(graph.n_rows, graph.n_cols, *(device.array(a) for a in arrays)), ""
    except Exception as exc:  # noqa: BLE001 - say why, go on
        return None, f"no device-resident graph here ({type(exc).__name__}: {str(exc)[:160]})"


def resident_call(resident, algorithm: str, backend: str, options: dict):
    """The call on a device-resident graph, its result left on the device (``output="device"``) where the
    library offers it, else returned to the host."""
    try:
        maximum_bipartite_matching(resident, algorithm, backend, output="device", **options)
    except (TypeError, InvalidArgument) as exc:
        if "output" not in str(exc):
            raise
        return lambda: maximum_bipartite_matching(resident, algorithm, backend, **options), "host"
    return lambda: maximum_bipartite_matching(resident, algorithm, backend, output="device", **options), "device"


def best_of(call, sync, repeats: int) -> tuple[float, float, object]:
    """``(whole seconds, device seconds, result)``: one warm-up call, then the fastest of ``repeats`` calls or more:
    a short call is repeated until the timed calls add up to :data:`MIN_TIMED_SECONDS` (at most :data:`MAX_CALLS`
    calls), as ``timeit``'s autorange does, so that the best of a 0.1 ms call is not the best of two samples."""
    call()
    sync()
    whole, device, result = math.inf, math.inf, None
    calls, timed = 0, 0.0
    while calls < repeats or (timed < MIN_TIMED_SECONDS and calls < MAX_CALLS):
        result = None  # the last call's result is released before the clock starts: no call pays for another's
        start = time.perf_counter()
        result = call()
        sync()
        seconds = time.perf_counter() - start
        calls, timed = calls + 1, timed + seconds
        whole = min(whole, seconds)
        device = min(device, float(sum(result.stats["seconds"].values())))
    return whole, device, result


def measure(graph: BipartiteGraph, algorithm: str, backend: str, repeats: int, resident, options: dict) -> dict:
    """One algorithm (with ``options``) on one backend: its size, whole-call and device seconds, and the
    resident whole call."""
    sync = Device(backend).synchronize
    whole, device, result = best_of(lambda: maximum_bipartite_matching(graph, algorithm, backend, **options), sync,
                                    repeats)
    row = {"size": int(result.size), "whole_seconds": whole, "device_seconds": device,
           "phases": {k: round(float(v), 6) for k, v in result.stats["seconds"].items()}}
    if resident is not None:
        try:
            call, output = resident_call(resident, algorithm, backend, options)
            seconds, on_device, result = best_of(call, sync, repeats)
            row.update(resident_seconds=seconds, resident_device_seconds=on_device, resident_output=output,
                       resident_size=int(result.size))
        except Exception as exc:  # noqa: BLE001 - recorded, the run goes on
            row["resident_note"] = f"{type(exc).__name__}: {str(exc)[:160]}"
    return row


def ratios(row: dict, ecl_seconds: float) -> dict:
    """The program's times over ECL-MM's (each floored at :data:`FLOOR`)."""
    out = {"whole_over_ecl": max(row["whole_seconds"], FLOOR) / max(ecl_seconds, FLOOR),
           "device_over_ecl": max(row["device_seconds"], FLOOR) / max(ecl_seconds, FLOOR)}
    if "resident_seconds" in row:
        out["resident_over_ecl"] = max(row["resident_seconds"], FLOOR) / max(ecl_seconds, FLOOR)
        out["resident_over_device"] = max(row["resident_seconds"], FLOOR) / max(row["resident_device_seconds"],
                                                                               FLOOR)
    return out


def geomeans(graphs: list[dict]) -> dict:
    """Per program, the geometric mean of each ratio over the graphs where it was measured."""
    summary: dict = {}
    for entry in graphs:
        for program, row in entry["programs"].items():
            for key, value in row.items():
                if key.endswith(("_over_ecl", "_over_device")):
                    summary.setdefault(program, {}).setdefault(key, []).append(value)
    return {program: {key: float(np.exp(np.mean(np.log(values)))) for key, values in keys.items()}
            | {"graphs": len(keys["whole_over_ecl"])} for program, keys in summary.items()}


def device_name() -> str:
    try:
        import cupy

        name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    except Exception:  # noqa: BLE001 - numba then
        from numba import cuda

        name = cuda.get_current_device().name
    return name.decode() if isinstance(name, bytes) else str(name)


def programs(variants: list[str]) -> list[tuple[str, str, dict]]:
    """``(name, algorithm, options)`` of every registered GPU algorithm and of the chosen :data:`VARIANTS`."""
    return [(name, name, {}) for name in GPU_BIPARTITE] + [(name, *VARIANTS[name]) for name in variants]


def bench_graph(name: str, graph: BipartiteGraph, ecl: dict, backends: list[str], options, errors: list) -> dict:
    """ECL-MM and every GPU algorithm on one graph, sizes checked against ECL-MM's."""
    entry = {"graph": name, "n_rows": graph.n_rows, "n_cols": graph.n_cols, "edges": graph.n_edges,
             "ecl": {**ecl, "whole_seconds": ecl["seconds"], "device_seconds": ecl["seconds"]}, "programs": {}}
    runs = programs(options.variants)
    steps = tqdm(total=len(backends) * len(runs), desc=name[:24], leave=False, unit="run")
    for backend in backends:
        resident, why = device_resident(graph, backend) if not options.no_resident else (None, "--no-resident")
        for label, algorithm, settings in runs:
            program = f"{label} {backend}"
            try:
                row = measure(graph, algorithm, backend, options.repeats, resident, settings)
            except Exception as exc:  # noqa: BLE001 - recorded, the run goes on
                errors.append(f"{name}: {program} failed: {type(exc).__name__}: {str(exc)[:200]}")
                tqdm.write(errors[-1])
                steps.update()
                continue
            if resident is None:
                row["resident_note"] = why
            for key in ("size", "resident_size"):
                if key in row and row[key] != ecl["size"]:
                    errors.append(f"{name}: {program} {key} {row[key]} != ECL-MM's {ecl['size']}")
                    tqdm.write(errors[-1])
            row["ok"] = row["size"] == ecl["size"] and row.get("resident_size", ecl["size"]) == ecl["size"]
            entry["programs"][program] = row | ratios(row, ecl["seconds"])
            steps.update()
    steps.close()
    return entry


def warm_up(backends: list[str], variants: list[str]) -> None:
    """Every program once on a small graph before anything is timed, so that compilation, first allocations and
    the GPU's clocks rising do not fall on the first graph measured (on 2026-11-27 the first, karate, took 2.5 ms
    a whole call of APFB on CuPy, the graphs after it about 0.5 ms)."""
    graph = gen.uniform_random(300, 300, 1200, seed=9)
    for backend in backends:
        for _, algorithm, settings in programs(variants):
            maximum_bipartite_matching(graph, algorithm, backend, **settings)
        Device(backend).synchronize()


def report(graphs: list[dict], summary: dict) -> None:
    print(f"\n{'graph':<28}{'edges':>10} {'program':<12}{'size':>9} {'whole s':>9} {'device s':>9} {'resid. s':>9}"
          f" {'whole/ecl':>9} {'dev/ecl':>8} {'res/ecl':>8}")
    for entry in graphs:
        ecl = entry["ecl"]
        print(f"{entry['graph'][:28]:<28}{entry['edges']:>10} {'ECL-MM':<12}{ecl['size']:>9} {ecl['seconds']:>9.5f}"
              f" {ecl['seconds']:>9.5f}")
        for program, r in entry["programs"].items():
            resident = f"{r['resident_seconds']:>9.5f}" if "resident_seconds" in r else f"{'-':>9}"
            over = f"{r['resident_over_ecl']:>8.2f}" if "resident_over_ecl" in r else f"{'-':>8}"
            print(f"{'':<38} {program:<12}{r['size']:>9} {r['whole_seconds']:>9.5f} {r['device_seconds']:>9.5f}"
                  f" {resident} {r['whole_over_ecl']:>9.2f} {r['device_over_ecl']:>8.2f} {over}"
                  f"{'' if r['ok'] else '  WRONG SIZE'}")
    print("\ngeometric mean over the graphs, gpusim / ECL-MM (lower is better; < 1: faster than ECL-MM):")
    for program, means in sorted(summary.items(), key=lambda item: item[1]["whole_over_ecl"]):
        figures = ", ".join(f"{key} {value:.2f}" for key, value in means.items() if key != "graphs")
        print(f"  {program:<12} {figures}  ({means['graphs']} graphs)")
    for key, goal in GOALS.items():
        best = min(summary.items(), key=lambda item: item[1][key], default=None)
        if best:
            verdict = "met" if best[1][key] <= goal else "not met"
            print(f"goal {key} <= {goal}: best {best[0]} {best[1][key]:.2f} ({verdict})")
    beaten = sorted({e["graph"] for e in graphs for r in e["programs"].values() if r.get("resident_over_ecl", 2) < 1})
    print(f"graphs where a device-resident call beats ECL-MM: {beaten or 'none (or not measured)'}")


def add_arguments(parser) -> None:
    """ECL-MM's options of the ``bipartite`` area (``--quick`` and ``--matrices`` are the area's own)."""
    parser.add_argument("--ecl-dir", help="ECL-MM's sources with build.sh (default .anchors/ecl-mm, then "
                                          "../shared/anchors/ecl-mm)")
    parser.add_argument("--ecl-build", default=str(Path(tempfile.gettempdir()) / "gpusim-ecl-mm-build"),
                        help="where ECL-MM is built (kept between runs)")
    parser.add_argument("--ecl-repeats", type=int, default=None, help="ECL-MM processes per graph (default 3, quick 1)")
    parser.add_argument("--repeats", type=int, default=2,
                        help="timed calls per algorithm after the warm-up (at least: short calls get more)")
    parser.add_argument("--no-resident", action="store_true", help="skip the device-resident calls")
    parser.add_argument("--more-families", action="store_true",
                        help="add ECL-MM's larger families: Graph500 Kronecker scale 22, a road network, a random "
                             "geometric graph on 2^22 points, a power-law bipartite graph")
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help=f"options measured beside the defaults, comma-separated, '' for none (default all: "
                             f"{', '.join(VARIANTS)})")


def compare(options, save) -> tuple[dict | None, int]:
    """Every GPU bipartite algorithm beside ECL-MM on each graph; ``save(results)`` after every graph (a cut run
    keeps its figures).  ``(None, 0)`` with one line when ECL-MM cannot be built here (no sources, no nvcc)."""
    variants = [name for name in options.variants.split(",") if name]
    if unknown := sorted(set(variants) - set(VARIANTS)):
        raise InvalidArgument(f"--variants: unknown {unknown}; known: {', '.join(VARIANTS)}")
    options.variants = variants
    try:
        binary = ecl_mm.build(ecl_mm.find_sources(options.ecl_dir), Path(options.ecl_build))
    except ecl_mm.EclError as exc:
        print(f"bipartite: ECL-MM skipped: {exc}", file=sys.stderr)
        return None, 0
    backends = [name for name in GPU_BACKENDS if gpu_status(name)[0]]
    if not backends:
        print("bipartite: ECL-MM comparison skipped, no GPU backend works here: "
              + "; ".join(f"{b}: {gpu_status(b)[1]}" for b in GPU_BACKENDS), file=sys.stderr)
        return None, 2
    ecl_repeats = options.ecl_repeats or (1 if options.quick else 3)
    gpu = device_name()
    results = {"device": gpu, "date": datetime.date.today().isoformat(),
               "command": " ".join([sys.executable, *sys.argv]), "ecl_mm": str(binary), "backends": backends,
               "algorithms": list(GPU_BIPARTITE), "variants": {name: VARIANTS[name] for name in options.variants},
               "graphs": [],
               "geomean": {}, "errors": []}
    scratch = Path(tempfile.mkdtemp(prefix="gpusim-e2e-"))
    warm_up(backends, options.variants)
    try:
        graphs = all_graphs(options.quick, Path(options.matrices), options.more_families)
        for name, graph in tqdm(graphs, desc="graphs", unit="graph"):
            try:
                ecl = ecl_mm.run(binary, ecl_mm.write_egr(graph, scratch / "graph.egr"), ecl_repeats)
            except ecl_mm.EclError as exc:
                results["errors"].append(f"{name}: {exc}")
                tqdm.write(results["errors"][-1])
                continue
            results["graphs"].append(bench_graph(name, graph, ecl, backends, options, results["errors"]))
            results["geomean"] = geomeans(results["graphs"])
            save(results)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report(results["graphs"], results["geomean"])
    print(f"{len(results['errors'])} errors" + "".join(f"\n  {e}" for e in results["errors"]))
    return results, 1 if results["errors"] else 0
