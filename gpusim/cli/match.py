"""``gpusim match FILE``: a maximum (bipartite) or maximum-weight matching of a Matrix Market file, checked.

The cardinality algorithms read the file as a bipartite graph (rows one side, columns the other) and
certify the matching maximum by a König vertex cover of the same size; the weighted ones read it as an
undirected weighted graph and check it against an independent reference (sequential Greedy, or half
NetworkX's optimum).  ``--example NAME`` takes a bundled matrix instead of a file.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from gpusim.cli.common import (
    AlgorithmOption,
    add_max_memory,
    check_algorithm,
    check_header_memory,
    check_picture_option,
    emit,
    example_or_file,
    progress_wanted,
    simulator_progress,
)
from gpusim.errors import InvalidArgument
from gpusim.runtime.device import choose_backend
from gpusim.runtime.registry import lookup

__all__ = ["register_match"]

#: The weighted matching algorithms (the registry's ``"weighted"`` problem, named here so that a file's header
#: is judged before any algorithm is imported; a test keeps the two equal).
WEIGHTED = ("suitor", "ld", "bsuitor", "roma", "greedy", "pga", "gpa", "rama")

#: The largest ``--b``: a b this large already allows every vertex all its partners.
MAX_B = 2**62


def partner_count(text: str) -> int:
    """``--b``: an integer in 0..2^62 (a usage error naming the value otherwise).

    >>> partner_count("3")
    3
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= value <= MAX_B:
        raise argparse.ArgumentTypeError(f"{text} is out of range: b runs from 0 to 2^62 = {MAX_B} "
                                         "(a b above a vertex's degree already allows it every partner)")
    return value


def register_match(commands, common: argparse.ArgumentParser) -> None:
    """Add the ``match`` subcommand to ``gpusim``'s subparsers (``common``: the shared options)."""
    match = commands.add_parser("match", parents=[common], help="maximum bipartite matching of a Matrix Market file")
    match.add_argument("file", nargs="?", help="a Matrix Market file (rows one side, columns the other)")
    match.add_argument("--example", metavar="NAME", help="a bundled matrix instead: karate, west0067, ash219")
    match.add_argument("--algorithm", default="gpr", action=AlgorithmOption,
                       problems={"bipartite": "cardinality", "weighted": "weight"})
    match.add_argument("--b", type=partner_count, default=None, help="bsuitor: how many partners each vertex may have "
                                                           "(default 1)")
    match.add_argument("--backend", default="auto", help="auto, sim, numba, cupy or cpu (default auto)")
    match.add_argument("--policy", default="random", help="the simulator's scheduling policy (default random)")
    match.add_argument("--seed", type=int, default=0, help="the simulator's seed (default 0)")
    add_max_memory(match)
    match.add_argument("--devices", type=int, default=None, metavar="N",
                       help="bsuitor: split the graph over N devices (simulated ones with --backend sim; GPUs, a "
                            "Dask-CUDA worker each, otherwise)")
    match.add_argument("--scheduler", metavar="ADDRESS",
                       help="bsuitor --devices: compute on the workers of an existing Dask cluster, e.g. "
                            "tcp://host:8786")
    match.add_argument("--png", metavar="FILE", help="also draw the matching (PNG, SVG or PDF)")
    match.add_argument("--json", action="store_true", help="print one JSON object")
    match.set_defaults(run=_match)


def _match(options: argparse.Namespace) -> int:
    if options.b is not None and options.algorithm != "bsuitor":
        raise InvalidArgument(f"--b {options.b} is for --algorithm bsuitor only, not {options.algorithm!r}")
    check_devices_options(options)
    source = example_or_file(options, ".mtx")
    # The header first, before the algorithms are imported: a declared size too large is refused in a second.
    weighted = options.algorithm in WEIGHTED
    check_header_memory(options, source, "weighted" if weighted else "match", options.algorithm, options.b)
    check_algorithm(options.algorithm, "bipartite", "weighted")
    check_picture_option(options)
    if weighted:
        return _match_weighted(options, source)
    return _match_bipartite(options, source)


def check_devices_options(options: argparse.Namespace) -> None:
    """``--devices N`` and ``--scheduler``: b-Suitor only, N at least 1, a scheduler only with ``--devices``."""
    if options.devices is not None:
        if options.algorithm != "bsuitor":
            raise InvalidArgument(f"--devices {options.devices} is for --algorithm bsuitor only, not "
                                  f"{options.algorithm!r}")
        if options.devices < 1:
            raise InvalidArgument(f"--devices {options.devices} must be at least 1")
        if options.backend == "cpu":
            raise InvalidArgument("--devices splits the graph over simulated devices or GPUs: not with --backend cpu")
    elif options.scheduler is not None:
        raise InvalidArgument(f"--scheduler {options.scheduler} goes with --devices N (bsuitor on several devices)")


@contextmanager
def cluster_client(scheduler: str | None) -> Iterator[Any]:
    """A Dask client of the cluster at ``scheduler`` (one line if none answers there), or None."""
    if scheduler is None:
        yield None
        return
    from gpusim.explore.distributed import dask_client

    with dask_client(scheduler=scheduler) as client:
        yield client


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
    extra, bar, backend = {}, None, options.backend
    if lookup("bipartite", options.algorithm).gpu:
        chosen, _ = choose_backend(options.backend, graph.n_edges)
        bar = _simulator(options, chosen, extra, f"{options.algorithm} on the simulator")
        if chosen not in ("cpu", "sim"):
            extra["progress"] = progress_wanted(options)
    result, seconds = _timed(bar, lambda: maximum_bipartite_matching(graph, options.algorithm, backend, **extra))
    result.validate()  # against the input graph: raises naming the first fault
    options.record.update({
        "file": source, "algorithm": result.algorithm, "backend": result.backend,
        "chosen": result.stats.get("chosen"), "n_rows": graph.n_rows, "n_cols": graph.n_cols,
        "n_edges": graph.n_edges, "size": result.size, "valid": result.valid, "certified": result.certified,
        "seconds": seconds, "matching": result.row_match, "picture": None,
        "stats": {k: v for k, v in result.stats.items() if k != "chosen"},
    })

    def show_text() -> None:
        print(f"{source}: {graph.n_rows} rows x {graph.n_cols} columns, {graph.n_edges} edges")
        print(f"{result.algorithm} on {result.backend} ({result.stats.get('chosen')})")
        print(f"matching of size {result.size}, valid; "
              + ("certified maximum by a König vertex cover of the same size" if result.certified
                 else "NOT certified: the cover is larger than the matching")
              + f"; {seconds:.3f} s")
        rows = np.flatnonzero(result.row_match >= 0)  # no Python object per vertex: 10^8 rows stay arrays
        shown = [f"{r}-{c}" for r, c in zip(rows[:20].tolist(), result.row_match[rows[:20]].tolist(), strict=True)]
        print("row-column pairs: " + " ".join(shown)
              + (f" ... ({rows.size - 20} more)" if rows.size > 20 else ""))

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
        certified = np.array_equal(mate, greedy(graph).mate)
    elif options.algorithm == "bsuitor":
        certificate = f"equal to the sequential greedy b-matching (b = {options.b})"
        certified = np.array_equal(result.partners, greedy_b_matching(graph, options.b).partners)
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
        matching = result.mate
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
    if options.devices is not None:
        extra.update(devices=options.devices, progress=progress_wanted(options))
    elif lookup("weighted", options.algorithm).gpu:
        bar = _simulator(options, choose_backend(options.backend, graph.n_edges)[0], extra,
                         f"{options.algorithm} on the simulator")
    if options.algorithm in ("roma", "rama") and graph.n % 2:
        extra["pad"] = True
    if options.max_memory is not None:
        extra["max_memory"] = options.max_memory
    with cluster_client(options.scheduler) as client:
        if client is not None:
            extra["client"] = client
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
        several = f", {result.stats['devices']} devices" if "devices" in result.stats else ""
        print(f"{options.algorithm} on {result.backend}{several} ({result.stats.get('chosen')})")
        verdict = "valid" if valid else f"INVALID ({result.problem})"
        print(f"matching of {size} edges, weight {result.weight:.6g}, {verdict}; "
              f"certified: {certified} ({certificate}); {seconds:.3f} s")
        shown = [f"{u}-{v}" for u, v in pairs[:20].tolist()]
        print("matched edges: " + " ".join(shown) + (f" ... ({len(pairs) - 20} more)" if len(pairs) > 20 else ""))

    def draw() -> str:
        from gpusim.teaching.plots import weighted_matching_picture

        return weighted_matching_picture(
            graph, pairs, options.png,
            title=f"{options.algorithm} on {result.backend}: {size} edges, weight {result.weight:.6g}")

    return emit(options, 0 if valid else 1, show_text, draw if options.png else None)
