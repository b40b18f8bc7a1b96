"""``gpusim stable FILE``: the man-optimal stable matching of a JSON preference file, checked.

``--example NAME`` takes a bundled instance (``marriage``, ``marriage-hard``) instead of a file.
The result is checked independently: no blocking pair (:func:`gpusim.types.check.blocking_pairs`, read
from the lists as given) and, for every algorithm but ``gs`` itself, equal to sequential
Gale-Shapley's (the man-optimal stable matching, Manne et al. (CSC 2016) §2).
"""

from __future__ import annotations

import argparse

from gpusim.cli.common import (
    AlgorithmOption,
    add_max_memory,
    check_algorithm,
    check_picture_option,
    emit,
    example_or_file,
    progress_wanted,
    simulator_progress,
)
from gpusim.runtime.device import choose_backend

__all__ = ["register_stable"]


def register_stable(commands, common: argparse.ArgumentParser) -> None:
    """Add the ``stable`` subcommand to the ``gpusim`` parser's ``commands`` (``common``: the shared options)."""
    stable = commands.add_parser("stable", parents=[common],
                                 help="stable marriage of a JSON preference file (Manne et al., CSC 2016)")
    stable.add_argument("file", nargs="?", help='JSON {"men": [[woman ids, best first], ...], "women": [...]}')
    stable.add_argument("--example", metavar="NAME", help="a bundled instance instead: marriage, marriage-hard")
    stable.add_argument("--algorithm", default="mw-gpu", action=AlgorithmOption, problems={"stable": ""})
    stable.add_argument("--backend", default="auto", help="auto, sim, numba, cupy or cpu (default auto)")
    stable.add_argument("--capacity", type=int, default=None, metavar="B",
                        help="each woman may take up to B men (hospitals/residents); default 1")
    stable.add_argument("--policy", default="random", help="the simulator's scheduling policy (default random)")
    stable.add_argument("--seed", type=int, default=0, help="the simulator's seed (default 0)")
    add_max_memory(stable)
    stable.add_argument("--png", metavar="FILE", help="also draw the matching, men and women (PNG, SVG or PDF)")
    stable.add_argument("--json", action="store_true", help="print one JSON object")
    stable.set_defaults(run=_stable)


#: Bytes of memory per byte of a preference file while it is parsed: Python's JSON reader builds an int object
#: (28 bytes) and a list slot (8) for every id, two bytes of text at the least ("0,").
JSON_BYTES_PER_BYTE = 20


def _check_json_memory(options: argparse.Namespace, source: str) -> None:
    """Refuse a preference file whose parsing would pass ``--max-memory`` (judged by its size, before reading)."""
    import os

    from gpusim.errors import InvalidArgument
    from gpusim.types.memory import memory_available, size_text

    size = os.path.getsize(source)
    limit, origin = options.max_memory, "--max-memory"
    if limit is None:
        limit, origin = memory_available() // 2, "the default --max-memory, half the memory this process may use"
    if JSON_BYTES_PER_BYTE * size > limit:
        raise InvalidArgument(f"{source!r} has {size} bytes: reading its preference lists needs about "
                              f"{size_text(JSON_BYTES_PER_BYTE * size)}, more than {origin} {size_text(limit)}")


def _stable(options: argparse.Namespace) -> int:
    import time

    from gpusim.algorithms.stable import capacity_array, gale_shapley, stable_marriage
    from gpusim.runtime.device import Device
    from gpusim.runtime.registry import lookup
    from gpusim.types.preferences import PreferenceInstance

    check_algorithm(options.algorithm, "stable")
    source = example_or_file(options, ".json")
    _check_json_memory(options, source)
    check_picture_option(options)
    if options.backend != "auto":
        choose_backend(options.backend, 0)  # an unknown backend, refused before the file is read
    instance = PreferenceInstance.from_json(source)
    capacity_array(instance, options.capacity)  # bad capacities refused before the GPU backends are probed
    extra = {"capacities": options.capacity}
    reason, bar = None, None
    if lookup("stable", options.algorithm).gpu:
        chosen, reason = choose_backend(options.backend, int(instance.men_list.size))
        if chosen == "sim":
            bar, on_launch = simulator_progress(options, f"{options.algorithm} on the simulator")
            extra["device"] = Device("sim", policy=options.policy, seed=options.seed, trace=False,
                                     progress=on_launch)
        else:
            extra["progress"] = progress_wanted(options)
    start = time.perf_counter()
    try:
        result = stable_marriage(instance, options.algorithm, options.backend, **extra)
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - start  # the algorithm alone; the checks below run after
    if "device" in extra:  # the simulator made here: say why it was chosen, not "the device given"
        result.stats["chosen"] = reason
    valid = result.valid
    blocking = result.blocking_pairs if valid else []
    same_as_gs = result.wife.tolist() == gale_shapley(instance, options.capacity).wife.tolist()
    certified = valid and not blocking and same_as_gs
    certificate = ("no blocking pair (checked from the lists as given)" + (
        "" if options.algorithm == "gs" else "; equal to sequential Gale-Shapley, the man-optimal stable matching"))
    options.record.update({
        "file": source, "algorithm": options.algorithm, "backend": result.backend,
        "chosen": result.stats.get("chosen"), "n_men": instance.n_men, "n_women": instance.n_women,
        "size": result.size, "valid": valid, "problem": result.problem,
        "certified": certified, "certificate": certificate,
        "blocking_pairs": blocking, "seconds": seconds, "matching": result.wife.tolist(),
        "proposals": result.proposals, "picture": None,
        "stats": {k: v for k, v in result.stats.items() if k != "chosen"},
    })

    def show_text() -> None:
        print(f"{source}: {instance.n_men} men, {instance.n_women} women, "
              f"{int(instance.men_list.size)} mutually acceptable pairs")
        print(f"{options.algorithm} on {result.backend} ({result.stats.get('chosen')})")
        print(f"{result.size} of {instance.n_men} men married, {result.proposals} proposals; "
              + (f"certified: {certificate}" if certified else f"NOT certified: {result.problem or 'valid'}, "
                 f"blocking pairs {blocking[:5]}, equal to Gale-Shapley: {same_as_gs}") + f"; {seconds:.3f} s")
        shown = [f"{m}-{w}" for m, w in enumerate(result.wife.tolist()) if w >= 0]
        print("man-woman pairs: " + " ".join(shown[:20])
              + (f" ... ({len(shown) - 20} more)" if len(shown) > 20 else ""))

    def draw() -> str:
        from gpusim.teaching.plots import bipartite_matching_picture

        return bipartite_matching_picture(
            instance.acceptable_graph(), result.wife, options.png, sides=("man", "woman"),
            title=f"{options.algorithm} on {result.backend}: {result.size} of {instance.n_men} men married")

    return emit(options, 0 if certified else 1, show_text, draw if options.png else None)
