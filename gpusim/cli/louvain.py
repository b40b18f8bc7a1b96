"""``gpusim louvain FILE``: communities of an undirected graph by the GPU Louvain method (Naim et al., IPDPS 2017).

``--algorithm blondel`` runs the original sequential method instead (on ``cpu``).
``--example NAME`` takes a bundled graph (``karate``).  A Matrix Market file that is not symmetric is
refused unless ``--symmetrise sum|max|mean`` names how to combine the two directions.  The result is
checked against the input graph (a partition of every vertex, the modularity recomputed from the input);
``--png`` draws the graph coloured by community (small graphs) or the community sizes and the modularity
of each level (large ones).
"""

from __future__ import annotations

import argparse

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

__all__ = ["register_louvain"]


def register_louvain(commands, common: argparse.ArgumentParser) -> None:
    """Add the ``louvain`` subcommand to the ``gpusim`` parser's ``commands`` (``common``: the shared options)."""
    louvain = commands.add_parser("louvain", parents=[common],
                                  help="community detection by GPU Louvain (Naim et al., IPDPS 2017)")
    louvain.add_argument("file", nargs="?", help="a Matrix Market file (symmetric: an undirected graph)")
    louvain.add_argument("--example", metavar="NAME", help="a bundled graph instead: karate")
    louvain.add_argument("--algorithm", default="louvain", action=AlgorithmOption, problems={"communities": ""})
    louvain.add_argument("--backend", default="auto", help="auto, sim, numba, cupy or cpu (default auto)")
    louvain.add_argument("--resolution", type=float, default=1.0, help="gamma of the modularity (default 1)")
    louvain.add_argument("--threshold", type=float, default=None, help="t_final (default 1e-6)")
    louvain.add_argument("--layout", default="buckets", help="louvain: buckets (the paper's, default) or thread")
    louvain.add_argument("--kernels", default="shuffles",
                         help="louvain on a GPU or the simulator: shuffles (degrees up to 32 summed by warp "
                              "shuffles, no table; the default) or paper (hash tables for every degree)")
    louvain.add_argument("--dip-rule", default="early",
                         help="louvain, after a sweep that lowers modularity: early (the default: conflict-free "
                              "sweeps after a dip in a phase's first two sweeps, or after any on an input of at "
                              "most 100,000 vertices with an edge), independent (conflict-free sweeps after any dip) "
                              "or paper (stop the phase)")
    louvain.add_argument("--cpu-method", default=None, metavar="METHOD",
                         help="louvain on cpu: asynchronous (every core, PLM-style; the default) or buckets (the GPU "
                              "method's own decisions; also chosen by --layout, --dip-rule or --paper-rules)")
    louvain.add_argument("--no-refine", dest="refine", action="store_false",
                         help="louvain: the paper's method, without the final refinement on the input graph")
    louvain.add_argument("--paper-rules", action="store_true",
                         help="louvain: the paper's stopping rules and every vertex in every sweep, without "
                              "GVE-Louvain's tolerance drop, pruning and aggregation tolerance (the defaults)")
    louvain.add_argument("--host-levels", type=int, default=None, metavar="N",
                         help="louvain on a GPU or the simulator: a level of at most N vertices and entries, and those "
                              "after it, decided on the host (default 32768 on a GPU, 0 on the simulator)")
    louvain.add_argument("--symmetrise", default=None, metavar="RULE",
                         help="combine the two directions of an unsymmetric file: sum, max or mean")
    louvain.add_argument("--policy", default="random", help="the simulator's scheduling policy (default random)")
    louvain.add_argument("--seed", type=int, default=0, help="the simulator's seed (default 0)")
    add_max_memory(louvain)
    louvain.add_argument("--png", metavar="FILE", help="also draw the communities (PNG, SVG or PDF)")
    louvain.add_argument("--json", action="store_true", help="print one JSON object")
    louvain.set_defaults(run=_louvain)


def _louvain(options: argparse.Namespace) -> int:
    source = example_or_file(options, ".mtx")
    check_header_memory(options, source, "louvain", options.algorithm)  # before the algorithms are imported

    import time

    from gpusim.algorithms.louvain import DIP_RULES, LAYOUTS, SYMMETRISE_RULES, T_FINAL, LouvainGraph, louvain
    from gpusim.algorithms.louvain.driver import CPU_METHODS, PAPER_RULES
    from gpusim.algorithms.louvain.variants import TABLES
    from gpusim.errors import InvalidArgument
    from gpusim.runtime.device import Device, choose_backend
    from gpusim.runtime.registry import lookup

    check_algorithm(options.algorithm, "communities")
    gpu = lookup("communities", options.algorithm).gpu
    check_picture_option(options)
    if options.layout not in LAYOUTS:
        raise InvalidArgument(f"--layout {options.layout!r} is not one of {', '.join(LAYOUTS)}")
    if options.kernels not in TABLES:
        raise InvalidArgument(f"--kernels {options.kernels!r} is not one of {', '.join(TABLES)}")
    if options.dip_rule not in DIP_RULES:
        raise InvalidArgument(f"--dip-rule {options.dip_rule!r} is not one of {', '.join(DIP_RULES)}")
    if options.cpu_method is not None and options.cpu_method not in CPU_METHODS:
        raise InvalidArgument(f"--cpu-method {options.cpu_method!r} is not one of {', '.join(CPU_METHODS)}")
    if options.symmetrise is not None and options.symmetrise not in SYMMETRISE_RULES:
        raise InvalidArgument(f"--symmetrise {options.symmetrise!r} is not one of {', '.join(SYMMETRISE_RULES)}")
    if options.backend != "auto":
        choose_backend(options.backend, 0)  # an unknown backend, refused before the file is read
    graph = LouvainGraph.from_matrix_market(source, symmetrise=options.symmetrise)
    extra: dict = {"resolution": options.resolution,
                   "threshold": T_FINAL if options.threshold is None else options.threshold}
    reason, bar, backend = None, None, options.backend
    if gpu:  # a sequential algorithm runs on cpu, where the dispatcher says why (or refuses another backend)
        extra["layout"], extra["dip_rule"], extra["refine"] = options.layout, options.dip_rule, options.refine
        extra["cpu_method"], extra["kernels"] = options.cpu_method, options.kernels
        if options.host_levels is not None:
            extra["host_levels"] = options.host_levels
        if options.paper_rules:
            extra.update(PAPER_RULES)
        chosen, reason = choose_backend(options.backend, graph.n_entries)
        if chosen == "sim":
            bar, on_launch = simulator_progress(options, f"{options.algorithm} on the simulator")
            extra["device"] = Device("sim", policy=options.policy, seed=options.seed, trace=False,
                                     progress=on_launch)
        else:
            extra["progress"] = progress_wanted(options)
    start = time.perf_counter()
    try:
        result = louvain(graph, algorithm=options.algorithm, backend=backend, **extra)
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - start  # the algorithm alone; the checks below run after
    if gpu:
        result.stats["chosen"] = reason
    reason = result.stats["chosen"]
    certified = result.certified
    certificate = "a partition of every vertex; modularity recomputed from the input graph"
    options.record.update({
        "file": source, "algorithm": options.algorithm, "backend": result.backend, "chosen": reason,
        "n_vertices": graph.n, "n_edges": int(graph.edges()[0].size), "size": result.n_communities,
        "modularity": result.modularity, "resolution": options.resolution,
        "layout": options.layout if gpu else None, "kernels": options.kernels if gpu else None,
        "valid": result.valid, "problem": result.problem, "certified": certified, "certificate": certificate,
        "seconds": seconds, "communities": result.labels, "level_modularity": result.level_modularity,
        "picture": None, "stats": {k: v for k, v in result.stats.items() if k != "chosen"},
    })

    def show_text() -> None:
        print(f"{source}: {graph.n} vertices, {int(graph.edges()[0].size)} edges, total weight "
              f"{graph.total_weight:g}")
        how = result.stats.get("engine") if result.backend == "cpu" else ", ".join(
            [options.layout] + ([f"kernels {options.kernels}"] if options.kernels != "paper" else []))
        print(f"{options.algorithm}{f' ({how})' if gpu and how else ''} on {result.backend} ({reason})")
        print(f"{result.n_communities} communities, modularity {result.modularity:.6f} after "
              f"{len(result.levels)} level(s); " + (f"certified: {certificate}" if certified
                                                    else f"NOT certified: {result.problem}") + f"; {seconds:.3f} s")
        print("modularity per level: " + " ".join(f"{q:.6f}" for q in result.level_modularity))
        shown = result.labels[:40].tolist()
        print("community of each vertex: " + " ".join(map(str, shown))
              + (f" ... ({result.labels.size - 40} more)" if result.labels.size > 40 else ""))

    def draw() -> str:
        from gpusim.teaching.community_picture import community_picture

        return community_picture(result, options.png)

    return emit(options, 0 if certified else 1, show_text, draw if options.png else None)
