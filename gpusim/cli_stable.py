"""``gpusim stable FILE``: the man-optimal stable matching of a JSON preference file, checked.

``--example NAME`` takes a bundled instance (``marriage``, ``marriage-hard``) instead of a file.
The result is checked independently: no blocking pair (:func:`gpusim.check.blocking_pairs`, read
from the lists as given) and, for every algorithm but ``gs`` itself, equal to sequential
Gale-Shapley's (the man-optimal stable matching, seed 003 Paper IV §2).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

__all__ = ["register_stable"]


def register_stable(commands) -> None:
    """Add the ``stable`` subcommand to the ``gpusim`` parser's ``commands``."""
    stable = commands.add_parser("stable", help="stable marriage of a JSON preference file (seed 003, Paper IV)")
    stable.add_argument("file", nargs="?", help='JSON {"men": [[woman ids, best first], ...], "women": [...]}')
    stable.add_argument("--example", metavar="NAME", help="a bundled instance instead: marriage, marriage-hard")
    stable.add_argument("--algorithm", default="mw-gpu",
                        help="gs, mw (sequential, cpu), gs-rounds, mw-gpu (GPU backends); default mw-gpu")
    stable.add_argument("--backend", default="auto", help="auto, sim, numba, cupy or cpu (default auto)")
    stable.add_argument("--capacity", type=int, default=None, metavar="B",
                        help="each woman may take up to B men (hospitals/residents); default 1")
    stable.add_argument("--policy", default="random", help="the simulator's scheduling policy (default random)")
    stable.add_argument("--seed", type=int, default=0, help="the simulator's seed (default 0)")
    stable.add_argument("--png", metavar="FILE", help="also draw the matching (PNG or SVG)")
    stable.add_argument("--json", action="store_true", help="print one JSON object")
    stable.add_argument("--no-progress", action="store_true", help="no progress bar")
    stable.set_defaults(run=_stable)


def _stable(options: argparse.Namespace) -> int:
    from gpusim.algorithms.common import resolve_backend
    from gpusim.algorithms.stable import STABLE_ALGORITHMS, stable_marriage
    from gpusim.algorithms.stable_cpu import gale_shapley
    from gpusim.device import Device
    from gpusim.errors import InvalidArgument
    from gpusim.graphs import example_path
    from gpusim.preferences import PreferenceInstance

    if (options.file is None) == (options.example is None):
        raise InvalidArgument("give either a FILE or --example NAME (marriage or marriage-hard)")
    if options.algorithm not in STABLE_ALGORITHMS:
        raise InvalidArgument(f"--algorithm {options.algorithm!r} is not one of {', '.join(STABLE_ALGORITHMS)}")
    source = options.file or str(example_path(options.example))
    instance = PreferenceInstance.from_json(source)
    extra = {"capacities": options.capacity}
    reason = None
    if options.algorithm in ("gs-rounds", "mw-gpu"):
        chosen, reason = resolve_backend(options.backend, int(instance.men_list.size))
        if chosen == "sim":
            extra["device"] = Device("sim", policy=options.policy, seed=options.seed, trace=False)
        extra["progress"] = not options.no_progress and not options.json and sys.stderr.isatty()
    start = time.perf_counter()
    result = stable_marriage(instance, options.algorithm, options.backend, **extra)
    seconds = time.perf_counter() - start  # the algorithm alone; the checks below run after
    if reason is not None:
        result.stats["chosen"] = reason
    valid = result.valid
    blocking = result.blocking_pairs if valid else []
    same_as_gs = result.wife.tolist() == gale_shapley(instance, options.capacity).wife.tolist()
    certified = valid and not blocking and same_as_gs
    certificate = ("no blocking pair (checked from the lists as given)" + (
        "" if options.algorithm == "gs" else "; equal to sequential Gale-Shapley, the man-optimal stable matching"))
    picture = None
    if options.png:
        from gpusim.plots import bipartite_matching_picture

        picture = bipartite_matching_picture(
            instance.acceptable_graph(), result.wife, options.png,
            title=f"{options.algorithm} on {result.backend}: {result.size} of {instance.n_men} men married")
    if options.json:
        print(json.dumps({
            "file": source, "algorithm": options.algorithm, "backend": result.backend,
            "chosen": result.stats.get("chosen"), "n_men": instance.n_men, "n_women": instance.n_women,
            "size": result.size, "valid": valid, "certified": certified, "certificate": certificate,
            "blocking_pairs": blocking, "seconds": seconds, "matching": result.wife.tolist(),
            "proposals": result.proposals, "picture": picture,
            "stats": {k: v for k, v in result.stats.items() if k != "chosen"},
        }, default=str))
        return 0 if certified else 1
    print(f"{source}: {instance.n_men} men, {instance.n_women} women, "
          f"{int(instance.men_list.size)} mutually acceptable pairs")
    print(f"{options.algorithm} on {result.backend} ({result.stats.get('chosen')})")
    print(f"{result.size} of {instance.n_men} men married, {result.proposals} proposals; "
          + (f"certified: {certificate}" if certified else f"NOT certified: blocking pairs {blocking[:5]}, "
             f"equal to Gale-Shapley: {same_as_gs}") + f"; {seconds:.3f} s")
    shown = [f"{m}-{w}" for m, w in enumerate(result.wife.tolist()) if w >= 0]
    print("man-woman pairs: " + " ".join(shown[:20]) + (f" ... ({len(shown) - 20} more)" if len(shown) > 20 else ""))
    if picture:
        print(f"drawn to {picture}")
    return 0 if certified else 1
