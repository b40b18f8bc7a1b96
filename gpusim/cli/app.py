"""The ``gpusim`` command line (also ``python -m gpusim``).

``gpusim match FILE`` computes a maximum bipartite matching of a Matrix Market file (rows one
side, columns the other) with one of the papers' algorithms, certifies it, and prints it as text
or ``--json``; ``--example NAME`` takes a bundled matrix instead of a file.
``gpusim demo`` finds a lost update in a racy counter on the simulator and shows the
interleaving, its replay token and (``--png``) a swimlane picture; ``gpusim demo --replay TOKEN``
replays it.  ``gpusim bench sim`` measures the simulator against numba's CUDA simulator.
Errors are one line on stderr, exit status 2 for bad usage and 1 for a failed run
(:mod:`gpusim.cli.common`); ``--debug`` shows the traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

import numpy as np

from gpusim import __version__
from gpusim.cli.common import (
    Parser,
    check_picture_option,
    common_options,
    emit,
    example_or_file,
    memory_size,
    progress_disabled,
    progress_wanted,
    run_checked,
    simulator_progress,
)
from gpusim.cli.stable import register_stable
from gpusim.errors import InvalidArgument
from gpusim.runtime.device import choose_backend

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 success, 1 a failed run, 2 bad usage).

    Every error is one line on stderr naming the offending value; ``--debug`` (or ``GPUSIM_DEBUG=1``)
    adds its traceback.
    """
    parser = _parser()
    options = parser.parse_args(argv)
    if not hasattr(options, "run"):
        parser.print_help(sys.stderr)
        return 2
    return run_checked(options)


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="gpusim", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"gpusim {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error (for a bug report)")
    commands = parser.add_subparsers(title="commands")
    common = common_options()

    match = commands.add_parser("match", parents=[common], help="maximum bipartite matching of a Matrix Market file")
    match.add_argument("file", nargs="?", help="a Matrix Market file (rows one side, columns the other)")
    match.add_argument("--example", metavar="NAME", help="a bundled matrix instead: karate, west0067, ash219")
    match.add_argument("--algorithm", default="gpr",
                       help="cardinality: gpr, apfb, apsb (GPU), hk, pfp, pr (cpu); weight: suitor, ld, bsuitor, roma "
                            "(GPU), greedy, pga, gpa, rama (cpu); default gpr")
    match.add_argument("--b", type=int, default=None, help="bsuitor: how many partners each vertex may have "
                                                           "(default 1)")
    match.add_argument("--backend", default="auto", help="auto, sim, numba, cupy or cpu (default auto)")
    match.add_argument("--policy", default="random", help="the simulator's scheduling policy (default random)")
    match.add_argument("--seed", type=int, default=0, help="the simulator's seed (default 0)")
    match.add_argument("--max-memory", metavar="SIZE", type=memory_size, default=None,
                       help="refuse dense algorithms (roma, rama; bsuitor's partners table) needing more than SIZE "
                            "bytes (suffixes K, M, G, T; default half the memory available)")
    match.add_argument("--png", metavar="FILE", help="also draw the matching (PNG, SVG or PDF)")
    match.add_argument("--json", action="store_true", help="print one JSON object")
    match.set_defaults(run=_match)

    demo = commands.add_parser("demo", parents=[common], help="find, show and replay a lost update on the simulator")
    demo.add_argument("--threads", type=int, default=64, help="threads incrementing the counter (default 64)")
    demo.add_argument("--block", type=int, default=32, help="threads per block (default 32)")
    demo.add_argument("--seed", type=int, default=None, help="first seed of the random schedules (default 0)")
    demo.add_argument("--policy", default=None, help="random (default), round_robin, pct or sequential")
    demo.add_argument("--replay", metavar="TOKEN", help="replay a token printed by an earlier demo")
    demo.add_argument("--png", metavar="FILE", help="also draw the interleaving as swimlanes (PNG, SVG or PDF)")
    demo.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    demo.set_defaults(run=_demo)

    bench = commands.add_parser("bench", parents=[common], help="benchmarks; 'gpusim bench sim' times the simulator")
    bench.add_argument("target", choices=["sim"], help="what to measure")
    bench.add_argument("--threads", type=int, default=1024, help="threads (default 1024)")
    bench.add_argument("--ops", type=int, default=100, help="scheduling points per thread (default 100)")
    bench.add_argument("--block", type=int, default=256, help="threads per block (default 256)")
    bench.add_argument("--no-cudasim", action="store_true", help="skip numba's simulator")
    bench.add_argument("--json", action="store_true", help="print one JSON list")
    bench.set_defaults(run=_bench)
    from gpusim.cli.explore import register_explore

    register_explore(commands, common)
    register_stable(commands, common)
    return parser


def _match(options: argparse.Namespace) -> int:
    from gpusim.algorithms.bipartite import ALGORITHMS
    from gpusim.algorithms.weighted import WEIGHTED_ALGORITHMS

    if options.algorithm not in ALGORITHMS + WEIGHTED_ALGORITHMS:
        raise InvalidArgument(f"--algorithm {options.algorithm!r} is not one of "
                              f"{', '.join(ALGORITHMS + WEIGHTED_ALGORITHMS)}")
    if options.b is not None and options.algorithm != "bsuitor":
        raise InvalidArgument(f"--b {options.b} is for --algorithm bsuitor only, not {options.algorithm!r}")
    source = example_or_file(options, ".mtx")
    check_picture_option(options)
    if options.algorithm in WEIGHTED_ALGORITHMS:
        return _match_weighted(options, source)
    return _match_bipartite(options, source)


def _simulator(options: argparse.Namespace, chosen: str, extra: dict, description: str):
    """For the simulator, a ``Device("sim")`` with the CLI's policy and seed and a launch progress bar, put in
    ``extra``; the bar (to close) or ``None``."""
    if chosen != "sim":
        return None
    from gpusim.runtime.device import Device

    bar, on_launch = simulator_progress(options, description)
    try:
        extra["device"] = Device("sim", policy=options.policy, seed=options.seed, trace=False, progress=on_launch)
    except BaseException:
        bar.close()
        raise
    return bar


def _timed(bar, run):
    """``run()`` and its seconds; the progress ``bar`` (if any) closed after."""
    import time

    start = time.perf_counter()
    try:
        result = run()
    finally:
        if bar is not None:
            bar.close()
    return result, time.perf_counter() - start


def _match_bipartite(options: argparse.Namespace, source: str) -> int:
    from gpusim.algorithms.bipartite import maximum_bipartite_matching
    from gpusim.types.graphs import BipartiteGraph

    graph = BipartiteGraph.from_matrix_market(source)
    extra, bar = {}, None
    if options.algorithm in ("gpr", "apfb", "apsb"):
        chosen, _ = choose_backend(options.backend, graph.n_edges)
        bar = _simulator(options, chosen, extra, f"{options.algorithm} on the simulator")
        if chosen not in ("cpu", "sim"):
            extra["progress"] = progress_wanted(options)
    result, seconds = _timed(bar, lambda: maximum_bipartite_matching(graph, options.algorithm, options.backend,
                                                                        **extra))
    result.validate()  # against the input graph: raises naming the first fault
    options.record.update({
        "file": source, "algorithm": result.algorithm, "backend": result.backend,
        "chosen": result.stats.get("chosen"), "n_rows": graph.n_rows, "n_cols": graph.n_cols,
        "n_edges": graph.n_edges, "size": result.size, "valid": result.valid, "certified": result.certified,
        "seconds": seconds, "matching": result.row_match.tolist(), "picture": None,
        "stats": {k: v for k, v in result.stats.items() if k != "chosen"},
    })

    def show_text() -> None:
        print(f"{source}: {graph.n_rows} rows x {graph.n_cols} columns, {graph.n_edges} edges")
        print(f"{result.algorithm} on {result.backend} ({result.stats.get('chosen')})")
        print(f"matching of size {result.size}, valid; "
              + ("certified maximum by a König vertex cover of the same size" if result.certified
                 else "NOT certified: the cover is larger than the matching")
              + f"; {seconds:.3f} s")
        shown = [f"{r}-{c}" for r, c in enumerate(result.row_match.tolist()) if c >= 0]
        print("row-column pairs: " + " ".join(shown[:20])
              + (f" ... ({len(shown) - 20} more)" if len(shown) > 20 else ""))

    def draw() -> str:
        from gpusim.teaching.plots import bipartite_matching_picture

        return bipartite_matching_picture(
            graph, result.row_match, options.png,
            title=f"{result.algorithm} on {result.backend}: {result.size} of {graph.n_rows} rows matched")

    return emit(options, 0 if result.certified else 1, show_text, draw if options.png else None)


def _weighted_checks(options: argparse.Namespace, graph, result) -> tuple[int, bool, str, bool]:
    """The matching's size, whether it is valid, and its independent certificate (what, and whether it holds)."""
    from gpusim.algorithms.weighted.reference_b_suitor import greedy_b_matching
    from gpusim.algorithms.weighted.reference_exact import exact_maximum_weight
    from gpusim.algorithms.weighted.reference_greedy import greedy

    mate = result.mate
    size = result.size  # pairs; a b-matching's are in result.partners
    valid = result.valid  # every pair an edge of the input, each vertex at most once (b times), weight recomputed
    # The independent check: Suitor and LD must equal the sequential Greedy matching exactly; the other
    # half-approximations must reach half the optimum (NetworkX's exact matching, small graphs only).
    if options.algorithm in ("suitor", "ld"):
        certificate = "equal to the sequential Greedy matching"
        certified = mate.tolist() == greedy(graph).mate.tolist()
    elif options.algorithm == "bsuitor":
        certificate = f"equal to the sequential greedy b-matching (b = {options.b})"
        certified = result.partners.tolist() == greedy_b_matching(graph, options.b).partners.tolist()
    elif graph.n_edges <= 3000:
        optimum = exact_maximum_weight(graph).weight
        certificate = f"at least half the optimum {optimum:.6g} (NetworkX)"
        certified = result.weight >= optimum / 2 - 1e-9
    else:
        certificate, certified = "none (the exact oracle is too slow for this size)", False
    certified = valid and certified  # a certificate is only claimed for a valid matching
    return size, valid, certificate, certified


def _weighted_pairs(options: argparse.Namespace, graph, result) -> tuple[list, np.ndarray]:
    """The JSON ``"matching"`` (the mate of each vertex; for a b-matching the list of partners of each vertex)
    and the matched pairs ``u < v`` as a ``k × 2`` array."""
    if options.algorithm == "bsuitor":
        partners = result.partners.astype(np.int64)
        matching = [[int(p) for p in row if p >= 0] for row in partners]
        ends, slots = np.nonzero(partners >= 0)
        others = partners[ends, slots]
    else:
        matching = result.mate.tolist()
        ends = np.flatnonzero(result.mate >= 0)
        others = result.mate[ends]
    below = ends < others
    return matching, np.column_stack([ends[below], others[below]])


def _match_weighted(options: argparse.Namespace, source: str) -> int:
    """``gpusim match`` for the weighted algorithms: the file is read as an undirected weighted graph."""
    from gpusim.algorithms.weighted import maximum_weight_matching
    from gpusim.algorithms.weighted.result import b_capacities
    from gpusim.types.graphs import WeightedGraph

    graph = WeightedGraph.from_matrix_market(source)
    extra, bar = {}, None
    if options.algorithm == "bsuitor":
        options.b = extra["b"] = 1 if options.b is None else options.b
        b_capacities(graph, options.b)  # the API's check, before the GPU backends are probed
    if options.algorithm in ("suitor", "ld", "bsuitor", "roma"):
        bar = _simulator(options, choose_backend(options.backend, graph.n_edges)[0], extra,
                         f"{options.algorithm} on the simulator")
    if options.algorithm in ("roma", "rama") and graph.n % 2:
        extra["pad"] = True
    if options.max_memory is not None:
        extra["max_memory"] = options.max_memory
    result, seconds = _timed(bar, lambda: maximum_weight_matching(graph, options.algorithm, options.backend,
                                                                     **extra))
    size, valid, certificate, certified = _weighted_checks(options, graph, result)
    matching, pairs = _weighted_pairs(options, graph, result)
    options.record.update({
        "file": source, "algorithm": options.algorithm, "backend": result.backend,
        "chosen": result.stats.get("chosen"), "n": graph.n, "n_edges": graph.n_edges,
        "size": size, "weight": result.weight, "valid": valid, "problem": result.problem,
        "certified": certified, "certificate": certificate,
        "seconds": seconds, "matching": matching, "picture": None,
        "stats": {k: v for k, v in result.stats.items() if k != "chosen"},
    })

    def show_text() -> None:
        print(f"{source}: {graph.n} vertices, {graph.n_edges} edges")
        print(f"{options.algorithm} on {result.backend} ({result.stats.get('chosen')})")
        verdict = "valid" if valid else f"INVALID ({result.problem})"
        print(f"matching of {size} edges, weight {result.weight:.6g}, {verdict}; "
              f"certified: {certified} ({certificate}); {seconds:.3f} s")
        shown = [f"{u}-{v}" for u, v in pairs.tolist()]
        print("matched edges: " + " ".join(shown[:20]) + (f" ... ({len(shown) - 20} more)" if len(shown) > 20 else ""))

    def draw() -> str:
        from gpusim.teaching.plots import weighted_matching_picture

        return weighted_matching_picture(
            graph, pairs, options.png,
            title=f"{options.algorithm} on {result.backend}: {size} edges, weight {result.weight:.6g}")

    return emit(options, 0 if valid else 1, show_text, draw if options.png else None)


def _demo(options: argparse.Namespace) -> int:
    from gpusim.teaching.demo import check_demo_sizes

    check_demo_sizes(options.threads, options.block)
    if options.replay and (options.seed is not None or options.policy is not None):
        given = "--seed" if options.seed is not None else "--policy"
        raise InvalidArgument(f"{given} conflicts with --replay: the token fixes the schedule")
    check_picture_option(options)
    found = _replay_demo(options) if options.replay else _find_demo(options)
    found_counter, trace, token, seed, tried, collision = found
    options.record.update({
        "kernel": "racy_count", "backend": "sim", "threads": options.threads, "counter": found_counter,
        "lost_updates": options.threads - found_counter, "seed": seed, "schedules_tried": tried,
        "token": token, "collision": [event._asdict() for event in collision], "picture": None,
    })

    def show_text() -> None:
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
              f"--replay {token}\n")

    def draw() -> str:
        from gpusim.teaching.plots import swimlanes

        return swimlanes(trace, options.png, highlight=collision,
                         title=f"lost update: {options.threads} increments, counter = {found_counter}")

    return emit(options, 0, show_text, draw if options.png else None)


def _find_demo(options: argparse.Namespace) -> tuple:
    from gpusim.teaching.demo import find_lost_update

    bar, on_launch = simulator_progress(options, "demo: schedules on the simulator")
    try:
        found = find_lost_update(options.threads, options.block, 0 if options.seed is None else options.seed,
                                 options.policy or "random", progress=on_launch)
    finally:
        bar.close()
    return found.counter, found.run.trace, found.token, found.seed, found.schedules_tried, found.collision


def _replay_demo(options: argparse.Namespace) -> tuple:
    from gpusim.runtime.device import Device
    from gpusim.teaching.demo import collision, racy_count

    dev = Device("sim", schedule=options.replay)
    counter = dev.zeros(1, np.int32)
    run = dev.launch(racy_count, grid=-(-options.threads // options.block), block=options.block,
                     args=(counter, options.threads))
    return int(dev.to_host(counter)[0]), run.trace, dev.token, None, 1, collision(run.trace)


def _bench(options: argparse.Namespace) -> int:
    from tqdm import tqdm

    from gpusim.teaching.bench import POLICIES, check_workload, numba_cudasim_throughput, sim_throughput

    for workload in ("memory", "barrier"):
        check_workload(options.threads, options.ops, options.block, workload)
    plan = [("memory", POLICIES, (False, True)), ("barrier", ("sequential", "random"), (False,))]
    measurements = sum(len(policies) * len(traces) + (not options.no_cudasim) for _, policies, traces in plan)
    rows = []
    with tqdm(total=measurements, desc="gpusim bench sim", unit="measurement",
              disable=progress_disabled(options), leave=False) as bar:
        for workload, policies, traces in plan:
            mine = []
            for policy in policies:
                for trace in traces:
                    bar.set_postfix(workload=workload, policy=policy, trace=trace, refresh=True)
                    mine += sim_throughput(threads=options.threads, ops=options.ops, block=options.block,
                                           policies=(policy,), traces=(trace,), workload=workload)
                    bar.update(1)
            reference = None
            if not options.no_cudasim:
                bar.set_postfix(workload=workload, simulator="numba cudasim", refresh=True)
                reference = numba_cudasim_throughput(threads=options.threads, ops=options.ops, block=options.block,
                                                     workload=workload)
                bar.update(1)
            for row in mine + ([reference] if reference else []):
                row["vs_numba_cudasim"] = (row["points_per_second"] / reference["points_per_second"]
                                           if reference else None)
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
