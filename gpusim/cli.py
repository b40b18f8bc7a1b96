"""The ``gpusim`` command line (also ``python -m gpusim``).

``gpusim match FILE`` computes a maximum bipartite matching of a Matrix Market file (rows one
side, columns the other) with one of the papers' algorithms, certifies it, and prints it as text
or ``--json``; ``--example NAME`` takes a bundled matrix instead of a file.
``gpusim demo`` finds a lost update in a racy counter on the simulator and shows the
interleaving, its replay token and (``--png``) a swimlane picture; ``gpusim demo --replay TOKEN``
replays it.  ``gpusim bench sim`` measures the simulator against numba's CUDA simulator.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

import numpy as np

from gpusim import __version__
from gpusim.cli_stable import register_stable
from gpusim.errors import GpusimError

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 success, 1 a failure found, 2 bad usage)."""
    parser = _parser()
    options = parser.parse_args(argv)
    if not hasattr(options, "run"):
        parser.print_help()
        return 2
    try:
        return options.run(options)
    except GpusimError as error:
        print(f"gpusim: error: {error}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gpusim", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"gpusim {__version__}")
    commands = parser.add_subparsers(title="commands")

    match = commands.add_parser("match", help="maximum bipartite matching of a Matrix Market file")
    match.add_argument("file", nargs="?", help="a Matrix Market file (rows one side, columns the other)")
    match.add_argument("--example", metavar="NAME", help="a bundled matrix instead: karate, west0067, ash219")
    match.add_argument("--algorithm", default="gpr",
                       help="cardinality: gpr, apfb, apsb (GPU), hk, pfp, pr (cpu); weight: suitor, ld, bsuitor, roma "
                            "(GPU), greedy, pga, gpa, rama (cpu); default gpr")
    match.add_argument("--b", type=int, default=1, help="bsuitor: how many partners each vertex may have (default 1)")
    match.add_argument("--backend", default="auto", help="auto, sim, numba, cupy or cpu (default auto)")
    match.add_argument("--policy", default="random", help="the simulator's scheduling policy (default random)")
    match.add_argument("--seed", type=int, default=0, help="the simulator's seed (default 0)")
    match.add_argument("--png", metavar="FILE", help="also draw the matching (PNG or SVG)")
    match.add_argument("--json", action="store_true", help="print one JSON object")
    match.add_argument("--no-progress", action="store_true", help="no progress bar")
    match.set_defaults(run=_match)

    demo = commands.add_parser("demo", help="find, show and replay a lost update on the simulator")
    demo.add_argument("--threads", type=int, default=64, help="threads incrementing the counter (default 64)")
    demo.add_argument("--block", type=int, default=32, help="threads per block (default 32)")
    demo.add_argument("--seed", type=int, default=0, help="first seed of the random schedules (default 0)")
    demo.add_argument("--policy", default="random", help="random, round_robin, pct or sequential")
    demo.add_argument("--replay", metavar="TOKEN", help="replay a token printed by an earlier demo")
    demo.add_argument("--png", metavar="FILE", help="also draw the interleaving as swimlanes (PNG or SVG)")
    demo.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    demo.set_defaults(run=_demo)

    bench = commands.add_parser("bench", help="benchmarks; 'gpusim bench sim' times the simulator")
    bench.add_argument("target", choices=["sim"], help="what to measure")
    bench.add_argument("--threads", type=int, default=1024)
    bench.add_argument("--ops", type=int, default=100, help="scheduling points per thread (default 100)")
    bench.add_argument("--no-cudasim", action="store_true", help="skip numba's simulator")
    bench.add_argument("--json", action="store_true")
    bench.set_defaults(run=_bench)
    from gpusim.cli_explore import register_explore

    register_explore(commands)
    register_stable(commands)
    return parser


def _match(options: argparse.Namespace) -> int:
    import time

    from gpusim.algorithms.bipartite import ALGORITHMS, maximum_bipartite_matching
    from gpusim.algorithms.common import resolve_backend
    from gpusim.device import Device
    from gpusim.errors import InvalidArgument
    from gpusim.graphs import BipartiteGraph, example_path

    if (options.file is None) == (options.example is None):
        raise InvalidArgument("give either a FILE or --example NAME (one of karate, west0067, ash219)")
    from gpusim.algorithms.weighted import WEIGHTED_ALGORITHMS

    if options.algorithm not in ALGORITHMS + WEIGHTED_ALGORITHMS:
        raise InvalidArgument(f"--algorithm {options.algorithm!r} is not one of "
                              f"{', '.join(ALGORITHMS + WEIGHTED_ALGORITHMS)}")
    source = options.file or str(example_path(options.example))
    if options.algorithm in WEIGHTED_ALGORITHMS:
        return _match_weighted(options, source)
    graph = BipartiteGraph.from_matrix_market(source)
    extra = {}
    if options.algorithm in ("gpr", "apfb", "apsb"):
        chosen, _ = resolve_backend(options.backend, graph.n_edges)
        if chosen == "sim":
            extra["device"] = Device("sim", policy=options.policy, seed=options.seed, trace=False)
        if chosen != "cpu":
            extra["progress"] = not options.no_progress and not options.json and sys.stderr.isatty()
    start = time.perf_counter()
    result = maximum_bipartite_matching(graph, options.algorithm, options.backend, **extra)
    seconds = time.perf_counter() - start  # the algorithm alone; the checks below run after
    result.validate()  # against the input graph; raises naming the first fault
    picture = None
    if options.png:
        from gpusim.plots import bipartite_matching_picture

        picture = bipartite_matching_picture(
            graph, result.row_match, options.png,
            title=f"{result.algorithm} on {result.backend}: {result.size} of {graph.n_rows} rows matched")
    if options.json:
        print(json.dumps({
            "file": source, "algorithm": result.algorithm, "backend": result.backend,
            "chosen": result.stats.get("chosen"), "n_rows": graph.n_rows, "n_cols": graph.n_cols,
            "n_edges": graph.n_edges, "size": result.size, "valid": result.valid, "certified": result.certified,
            "seconds": seconds, "matching": result.row_match.tolist(), "picture": picture,
            "stats": {k: v for k, v in result.stats.items() if k != "chosen"},
        }, default=str))
        return 0 if result.certified else 1
    print(f"{source}: {graph.n_rows} rows x {graph.n_cols} columns, {graph.n_edges} edges")
    print(f"{result.algorithm} on {result.backend} ({result.stats.get('chosen')})")
    print(f"matching of size {result.size}, valid; "
          + ("certified maximum by a König vertex cover of the same size" if result.certified
             else "NOT certified: the cover is larger than the matching")
          + f"; {seconds:.3f} s")
    shown = [f"{r}-{c}" for r, c in enumerate(result.row_match.tolist()) if c >= 0]
    print("row-column pairs: " + " ".join(shown[:20]) + (f" ... ({len(shown) - 20} more)" if len(shown) > 20 else ""))
    if picture:
        print(f"drawn to {picture}")
    return 0 if result.certified else 1


def _match_weighted(options: argparse.Namespace, source: str) -> int:
    """``gpusim match`` for the weighted algorithms: the file is read as an undirected weighted graph."""
    import time

    from gpusim.algorithms import weighted_cpu
    from gpusim.algorithms.common import resolve_backend
    from gpusim.algorithms.weighted import maximum_weight_matching
    from gpusim.device import Device
    from gpusim.graphs import WeightedGraph

    graph = WeightedGraph.from_matrix_market(source)
    extra = {}
    gpu = ("suitor", "ld", "bsuitor", "roma")
    if options.algorithm in gpu and resolve_backend(options.backend, graph.n_edges)[0] == "sim":
        extra["device"] = Device("sim", policy=options.policy, seed=options.seed, trace=False)
    if options.algorithm in ("roma", "rama") and graph.n % 2:
        extra["pad"] = True
    if options.algorithm == "bsuitor":
        extra["b"] = options.b
    start = time.perf_counter()
    result = maximum_weight_matching(graph, options.algorithm, options.backend, **extra)
    seconds = time.perf_counter() - start
    mate = result.mate
    size = result.size  # pairs; a b-matching's are in result.partners
    valid = result.valid  # every pair an edge of the input, each vertex at most once (b times), weight recomputed
    # The independent check: Suitor and LD must equal the sequential Greedy matching exactly; the other
    # half-approximations must reach half the optimum (NetworkX's exact matching, small graphs only).
    if options.algorithm in ("suitor", "ld"):
        certificate = "equal to the sequential Greedy matching"
        certified = mate.tolist() == weighted_cpu.greedy(graph).mate.tolist()
    elif options.algorithm == "bsuitor":
        certificate = f"equal to the sequential greedy b-matching (b = {options.b})"
        certified = result.stats["partners"] == weighted_cpu.greedy_b_matching(graph, options.b).partners.tolist()
    elif graph.n_edges <= 3000:
        optimum = weighted_cpu.exact_maximum_weight(graph).weight
        certificate = f"at least half the optimum {optimum:.6g} (NetworkX)"
        certified = result.weight >= optimum / 2 - 1e-9
    else:
        certificate, certified = "none (the exact oracle is too slow for this size)", False
    certified = valid and certified
    if options.json:
        print(json.dumps({
            "file": source, "algorithm": options.algorithm, "backend": result.backend,
            "chosen": result.stats.get("chosen"), "n": graph.n, "n_edges": graph.n_edges,
            "size": size,
            "weight": result.weight, "valid": valid, "certified": certified, "certificate": certificate,
            "seconds": seconds, "matching": mate.tolist(),
            "stats": {k: v for k, v in result.stats.items() if k != "chosen"},
        }, default=str))
        return 0 if valid else 1
    print(f"{source}: {graph.n} vertices, {graph.n_edges} edges")
    print(f"{options.algorithm} on {result.backend} ({result.stats.get('chosen')})")
    print(f"matching of {size} edges, weight {result.weight:.6g}, "
          + ("valid" if valid else "INVALID") + f"; certified: {certified} ({certificate}); {seconds:.3f} s")
    return 0 if valid else 1


def _demo(options: argparse.Namespace) -> int:
    from gpusim.demo import _collision, find_lost_update, racy_count
    from gpusim.device import Device

    if options.replay:
        dev = Device("sim", schedule=options.replay)
        counter = dev.zeros(1, np.int32)
        run = dev.launch(racy_count, grid=-(-options.threads // options.block), block=options.block,
                         args=(counter, options.threads))
        found_counter, trace, token, seed, tried = int(dev.to_host(counter)[0]), run.trace, dev.token, None, 1
        collision = _collision(trace)
    else:
        found = find_lost_update(options.threads, options.block, options.seed, options.policy)
        found_counter, trace, token = found.counter, found.run.trace, found.token
        seed, tried, collision = found.seed, found.schedules_tried, found.collision
    picture = None
    if options.png:
        from gpusim.plots import swimlanes

        picture = swimlanes(trace, options.png, highlight=collision,
                            title=f"lost update: {options.threads} increments, counter = {found_counter}")
    if options.json:
        print(json.dumps({
            "kernel": "racy_count", "backend": "sim", "threads": options.threads, "counter": found_counter,
            "lost_updates": options.threads - found_counter, "seed": seed, "schedules_tried": tried,
            "token": token, "collision": [event._asdict() for event in collision], "picture": picture,
        }))
        return 0
    print(f"racy counter: {options.threads} threads each did counter[0] = counter[0] + 1")
    print(f"counter = {found_counter}: {options.threads - found_counter} update(s) lost"
          + (f" (seed {seed}, after {tried} schedule(s))" if seed is not None else " (replayed)"))
    if collision:
        from gpusim.backends.sim import format_events

        first, second = collision[0], collision[1]
        print(f"\nthe collision: threads ({first.block},{first.thread}) and ({second.block},{second.thread}) "
              f"both loaded {first.value} before either stored, so one increment overwrote the other:")
        print(format_events(collision, None))
    print(f"\nreplay it exactly:\n  gpusim demo --threads {options.threads} --block {options.block} "
          f"--replay {token}")
    if picture:
        print(f"\nswimlanes drawn to {picture}")
    return 0


def _bench(options: argparse.Namespace) -> int:
    from tqdm import tqdm

    from gpusim.bench import numba_cudasim_throughput, sim_throughput

    plan = [("memory", ("sequential", "pct", "random", "round_robin"), (False, True)),
            ("barrier", ("sequential", "random"), (False,))]
    rows = []
    for workload, policies, traces in tqdm(plan, desc="gpusim bench sim", unit="workload", disable=options.json):
        mine = sim_throughput(threads=options.threads, ops=options.ops, policies=policies, traces=traces,
                              workload=workload)
        reference = None if options.no_cudasim else numba_cudasim_throughput(
            threads=options.threads, ops=options.ops, workload=workload)
        for row in mine + ([reference] if reference else []):
            row["vs_numba_cudasim"] = row["points_per_second"] / reference["points_per_second"] if reference else None
            rows.append(row)
    if options.json:
        print(json.dumps(rows))
        return 0
    print(f"{'workload':<8} {'simulator':<14} {'policy':<12} {'trace':<6} {'points':>8} {'seconds':>8} "
          f"{'points/s':>12} {'× cudasim':>10}")
    for row in rows:
        ratio = f"{row['vs_numba_cudasim']:.1f}" if row["vs_numba_cudasim"] else "-"
        print(f"{row['workload']:<8} {row['simulator']:<14} {row['policy']:<12} {row['trace']!s:<6} "
              f"{row['points']:>8} {row['seconds']:>8.3f} {row['points_per_second']:>12,.0f} {ratio:>10}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
