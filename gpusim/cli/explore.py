"""``gpusim explore``: hunt a scenario's concurrency bug, or a registered algorithm's; run the zoo; replay a token.

``gpusim explore lost_update`` runs one scenario (``--policy random|pct|systematic|hypothesis``),
prints the failure's interleaving and its replay token; ``gpusim explore --replay NAME@TOKEN`` replays
it with the same trace; ``gpusim explore --zoo --json`` runs every zoo entry and its fixed twin.
``gpusim explore --algorithm gpr --random-inputs --start empty`` runs a real algorithm on the simulator
under explored schedules, judged by an independent oracle (:mod:`gpusim.explore.hunt`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from gpusim.cli.common import check_picture_option, emit, progress_disabled
from gpusim.errors import InvalidArgument

__all__ = ["register_explore"]


def register_explore(commands, common: argparse.ArgumentParser) -> None:
    """Add the ``explore`` subcommand to ``gpusim``'s subparsers (``common``: the shared options)."""
    explore = commands.add_parser("explore", parents=[common],
                                  help="find a concurrency bug by exploring schedules; --zoo runs them all")
    explore.add_argument("scenario", nargs="?", help="a scenario (zoo entry) name, e.g. lost_update; --list shows all")
    explore.add_argument("--policy", default="random", help="random, pct, systematic or hypothesis (default random)")
    explore.add_argument("--budget", type=int, default=1000, help="schedules to try (default 1000)")
    explore.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    explore.add_argument("--depth", type=int, default=2, help="PCT bug depth (default 2)")
    explore.add_argument("--max-preemptions", type=int, default=2, help="systematic bound (default 2)")
    explore.add_argument("--engine", default="reference", choices=("reference", "compiled", "auto"),
                         help="run random schedules on the reference simulator (default) or compiled with numba "
                              "(auto: where the kernel allows); failures are replayed on the reference")
    explore.add_argument("--replay", metavar="TOKEN", help="replay NAME@TOKEN (a failure's replay token)")
    explore.add_argument("--zoo", action="store_true", help="run every zoo entry and its fixed twin")
    explore.add_argument("--fixed-budget", type=int, default=1000, help="schedules per fixed twin with --zoo")
    explore.add_argument("--list", action="store_true", help="list the scenarios")
    explore.add_argument("--png", metavar="FILE", help="draw the failure as swimlanes (PNG or SVG)")
    explore.add_argument("--json", action="store_true", help="print one JSON object")
    _add_hunt_options(explore)
    explore.set_defaults(run=_explore)


def _add_hunt_options(explore: argparse.ArgumentParser) -> None:
    """``--algorithm`` and what goes with it; ``--races`` and ``--shrink-time`` for every exploration."""
    explore.add_argument("--algorithm", metavar="NAME",
                         help="hunt a registered GPU algorithm (gpr, apfb, suitor, bsuitor, roma, mw-gpu, ...) on "
                              "FILE, --example NAME or --random-inputs")
    explore.add_argument("--example", metavar="NAME", help="with --algorithm: a bundled example input")
    explore.add_argument("--random-inputs", type=int, nargs="?", const=8, metavar="N",
                         help="with --algorithm: N small inputs drawn from seeds (default 8), the budget shared")
    explore.add_argument("--start", choices=("cheap", "empty"),
                         help="with --algorithm: a bipartite driver's initial matching (default cheap)")
    explore.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                         help="with --algorithm: a driver keyword, e.g. shrink_at=1 (repeatable)")
    explore.add_argument("--kernels", metavar="MODULE.NAME",
                         help="with --algorithm: a mapping of kernels or @device steps to plant (a mutation), by "
                              "dotted path (the current folder is searched too); replay tokens name it")
    explore.add_argument("--races", choices=("off", "report", "raise"),
                         help="the race detector: report (default on the reference engine), raise or off")
    explore.add_argument("--shrink-time", type=float, default=30.0, metavar="SECONDS",
                         help="seconds the shrinker may take (default 30)")


def _driver_options(pairs: list[str]) -> dict:
    """``--option KEY=VALUE`` pairs as keywords (integers and numbers read as such)."""
    options = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key.isidentifier():
            raise InvalidArgument(f"--option {pair!r} is not KEY=VALUE")
        for kind in (int, float):
            try:
                options[key] = kind(text)
                break
            except ValueError:
                continue
        else:
            options[key] = text
    return options


def _hunt_input(options: argparse.Namespace) -> dict:
    """The input of ``--algorithm``: FILE, ``--example NAME`` or ``--random-inputs``, exactly one, checked."""
    from gpusim.cli.common import input_file
    from gpusim.types.graphs import example_path

    given = [label for label, value in (("FILE", options.scenario), ("--example", options.example),
                                        ("--random-inputs", options.random_inputs)) if value is not None]
    if len(given) != 1:
        raise InvalidArgument(f"--algorithm {options.algorithm}: give one of FILE, --example NAME or "
                              f"--random-inputs" + (f", not {' and '.join(given)}" if given else ""))
    if options.scenario is not None:
        return {"file": input_file(options.scenario)}
    if options.example is not None:
        try:
            example_path(options.example)
        except Exception as missing:  # noqa: BLE001 - its one line names the choices
            raise InvalidArgument(f"--example {options.example!r}: {missing}") from None
        return {"example": options.example}
    return {"random_inputs": options.random_inputs}


def _hunt(options: argparse.Namespace) -> int:
    """``--algorithm NAME``: the hunt, its failure (shrunk, with a replay token) or its coverage note."""
    from gpusim.explore import algorithm_names, hunt

    if options.algorithm not in algorithm_names():
        raise InvalidArgument(f"--algorithm {options.algorithm!r} is not a registered GPU algorithm; choose one of "
                              f"{', '.join(algorithm_names())}")
    if options.zoo or options.replay or options.list:
        raise InvalidArgument("--algorithm runs alone: not with --zoo, --replay or --list")
    check_picture_option(options)
    source = _hunt_input(options)
    if options.kernels and os.getcwd() not in sys.path:  # a module of the current folder, as `python -m` finds it
        sys.path.insert(0, os.getcwd())
    bar, tick = _bar(options.budget, f"explore --algorithm {options.algorithm}", options)
    try:
        result = hunt(options.algorithm, **source, budget=options.budget, seed=options.seed, policy=options.policy,
                      start=options.start, options=_driver_options(options.option), races=options.races,
                      kernels=options.kernels,
                      shrink_time=options.shrink_time, progress=tick, depth=options.depth,
                      max_preemptions=options.max_preemptions, engine=options.engine)
    finally:
        bar.close()
    return _show(options, result)


def _bar(total: int, label: str, options: argparse.Namespace):
    from tqdm import tqdm

    bar = tqdm(total=total, desc=label, unit="schedule", disable=progress_disabled(options), leave=False)
    return bar, (lambda done: bar.update(done - bar.n))


def _check_modes(options: argparse.Namespace) -> None:
    """One of SCENARIO, --zoo, --replay, --list; --png only where there is a run to draw, writable."""
    given = [name for name, value in (("SCENARIO", options.scenario), ("--zoo", options.zoo),
                                      ("--replay", options.replay), ("--list", options.list)) if value]
    if len(given) != 1:
        raise InvalidArgument("give one of SCENARIO, --zoo, --replay TOKEN or --list"
                              + (f", not {' and '.join(given)}" if given else ""))
    if options.png and (options.zoo or options.list):
        raise InvalidArgument(f"--png {options.png!r}: {given[0]} draws no picture (give a SCENARIO or --replay)")
    if options.zoo and options.fixed_budget < 1:  # explore() checks it too, but only after the first entry ran
        raise InvalidArgument(f"fixed_budget must be >= 1, got fixed_budget={options.fixed_budget}")
    check_picture_option(options)


def _explore(options: argparse.Namespace) -> int:
    from gpusim.explore import explore, replay, scenario_names

    if options.algorithm is not None:
        return _hunt(options)
    _check_modes(options)
    if options.list:
        from gpusim.explore import algorithm_names
        from gpusim.zoo import ZOO

        names = scenario_names()
        if options.json:
            print(json.dumps({"scenarios": names, "zoo": [entry.to_dict() for entry in ZOO.values()],
                              "algorithms": algorithm_names()}))
        else:
            print("\n".join(names))
            print(f"\nalgorithms (--algorithm NAME): {', '.join(algorithm_names())}")
        return 0
    if options.zoo:
        return _zoo(options)
    if options.replay:
        return _replay(options, replay(options.replay))
    bar, tick = _bar(options.budget, f"explore {options.scenario}", options)
    try:
        result = explore(options.scenario, options.policy, options.budget, options.seed, depth=options.depth,
                         max_preemptions=options.max_preemptions, engine=options.engine, progress=tick,
                         races=options.races, shrink_time=options.shrink_time)
    finally:
        bar.close()
    return _show(options, result)


def _show(options: argparse.Namespace, result) -> int:
    """An exploration's verdict, failure report (or swimlanes) and coverage note; exit status 1 on a failure."""
    failure = result.failure
    options.record.update({**result.to_dict(), "picture": None})

    def show_text() -> None:
        if failure is None:
            bound = (f"; PCT guarantee per run >= {result.probability_bound:.3g}" if result.probability_bound else "")
            print(f"{result.scenario}: {result.verdict}{bound}")
            if options.png:
                print(f"no failure, so nothing drawn to {options.png}")
        else:
            print(failure.report() + "\n")
        if result.coverage is not None:
            print(result.coverage.note())

    draw = (lambda: failure.picture(options.png)) if failure is not None and options.png else None
    return emit(options, 1 if failure else 0, show_text, draw)


def _replay(options: argparse.Namespace, again) -> int:
    """``--replay NAME@TOKEN``: the replayed run's outcome and interleaving (and swimlanes with ``--png``)."""
    options.record.update({"scenario": again.scenario, "kind": again.kind, "message": again.message,
                           "token": again.token, "events": len(again.trace), "picture": None})

    def show_text() -> None:
        from gpusim.backends.sim import format_events
        from gpusim.explore import interleaving

        print(f"{again.scenario}: {again.kind or 'passed'}" + (f"\n{again.message}" if again.message else ""))
        print(format_events(interleaving(again.trace), None))

    def draw() -> str:
        from gpusim.teaching.plots import swimlanes

        return swimlanes(again.trace, options.png, title=f"replay of {again.scenario}: {again.kind}")

    return emit(options, 1 if again.kind else 0, show_text, draw if options.png else None)


def _zoo_engine(engine: str, policy: str) -> str:
    """The zoo's engine for one entry: the compiled engine where it applies (random schedules, a kernel it
    lowers, the default memory and warp modes), when asked for."""
    return "reference" if engine == "reference" or policy != "random" else "auto"


def _zoo(options: argparse.Namespace) -> int:
    from tqdm import tqdm

    from gpusim.explore import explore
    from gpusim.zoo import ZOO

    rows = []
    bar = tqdm(list(ZOO.values()), desc="gpusim explore --zoo", unit="entry", disable=progress_disabled(options),
               leave=False)
    for entry in bar:
        start = time.perf_counter()
        broken = explore(entry.broken, entry.policy, options.budget, options.seed,
                         engine=_zoo_engine(options.engine, entry.policy),
                         progress=lambda done, name=entry.name: bar.set_postfix(entry=name, twin="broken",
                                                                                schedules=done))
        seconds = time.perf_counter() - start
        fixed = explore(entry.fixed, "random", options.fixed_budget, options.seed, shrink=False,
                        engine=_zoo_engine(options.engine, "random"),
                        progress=lambda done, name=entry.name: bar.set_postfix(entry=name, twin="fixed",
                                                                               schedules=done))
        rows.append({
            **entry.to_dict(), "found": broken.found, "schedules": broken.schedules if broken.found else None,
            "seconds": seconds, "preemptions": broken.failure.preemptions if broken.found else None,
            "kind": broken.failure.kind if broken.found else None,
            "replay": broken.failure.replay_token if broken.found else None,
            "fixed_schedules": fixed.schedules, "fixed_found": fixed.found,
            "as_expected": broken.found == entry.expect_found and not fixed.found,
        })
    if options.json:
        print(json.dumps({"entries": rows, "all_as_expected": all(row["as_expected"] for row in rows)}))
    else:
        print(f"{'entry':<32} {'found':<6} {'schedules':>9} {'seconds':>8} {'preempt.':>8}  {'fixed twin':<14}")
        for row in rows:
            fixed = "FAILS" if row["fixed_found"] else f"ok x{row['fixed_schedules']}"
            print(f"{row['name']:<32} {row['found']!s:<6} {row['schedules'] or '-':>9} {row['seconds']:>8.2f} "
                  f"{row['preemptions'] if row['preemptions'] is not None else '-':>8}  {fixed:<14}")
    return 0 if all(row["as_expected"] for row in rows) else 1
