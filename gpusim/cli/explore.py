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
                         help="run random and PCT schedules on the reference simulator (default) or compiled with "
                              "numba (auto: where the kernel allows); failures are replayed on the reference")
    explore.add_argument("--replay", metavar="TOKEN", help="replay NAME@TOKEN (a failure's replay token)")
    explore.add_argument("--zoo", action="store_true", help="run every zoo entry and its fixed twin")
    explore.add_argument("--fixed-budget", type=int, default=1000, help="schedules per fixed twin with --zoo")
    explore.add_argument("--list", action="store_true", help="list the scenarios")
    explore.add_argument("--png", metavar="FILE", help="draw the failure as swimlanes (PNG or SVG)")
    explore.add_argument("--html", metavar="PAGE",
                         help="write the failure's run as one self-contained HTML page to step through in a browser")
    explore.add_argument("--json", action="store_true", help="print one JSON object")
    _add_hunt_options(explore)
    _add_campaign_options(explore)
    explore.set_defaults(run=_explore)


def _add_hunt_options(explore: argparse.ArgumentParser) -> None:
    """``--algorithm`` and what goes with it; ``--races`` and ``--shrink-time`` for every exploration."""
    explore.add_argument("--algorithm", metavar="NAME",
                         help="hunt a registered GPU algorithm (gpr, apfb, suitor, bsuitor, roma, mw-gpu, ...) on "
                              "FILE, --example NAME or --random-inputs")
    explore.add_argument("--example", metavar="NAME", help="with --algorithm: a bundled example input")
    explore.add_argument("--random-inputs", type=int, nargs="?", const=8, metavar="N",
                         help="with --algorithm: N small inputs drawn from seeds (default 8), the budget shared")
    explore.add_argument("--start", choices=("cheap", "proposals", "empty"),
                         help="with --algorithm: a bipartite driver's initial matching (default cheap)")
    explore.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                         help="with --algorithm: a driver keyword, e.g. shrink_at=1 (repeatable)")
    explore.add_argument("--devices", type=int, metavar="N",
                         help="with --algorithm bsuitor: the graph split over N parts, their messages exchanged "
                              "each round, all under the explored schedule (as --option devices=N)")
    explore.add_argument("--kernels", metavar="MODULE.NAME",
                         help="with --algorithm: a mapping of kernels or @device steps to plant (a mutation), by "
                              "dotted path (the current folder is searched too); replay tokens name it")
    explore.add_argument("--memory", choices=("sc", "weak"),
                         help="with --algorithm: the simulator's memory model, sc (default: sequentially "
                              "consistent) or weak (a store waits in a buffer until a fence: finds missing fences)")
    explore.add_argument("--warps", choices=("independent", "lockstep"),
                         help="with --algorithm: independent threads (default) or lockstep warps (finds a spin "
                              "that waits on its own warp)")
    explore.add_argument("--models", choices=("all",),
                         help="with --algorithm: hunt under every memory and warp model in turn (sc and weak, "
                              "independent and lockstep), the budget (or --time) shared")
    explore.add_argument("--all-paths", action="store_true",
                         help="with --algorithm: hunt every launch path of the algorithm in turn (the driver "
                              "options that launch each of its kernels: repair steps, one-block, warp BFS, ...), "
                              "the budget (or --time) shared")
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
    if options.devices is not None:
        if options.algorithm != "bsuitor" or options.devices < 1:
            raise InvalidArgument(f"--devices {options.devices}: a positive count, for --algorithm bsuitor only")
        options.option.append(f"devices={options.devices}")
    source = _hunt_input(options)
    if options.models and (options.memory or options.warps):
        raise InvalidArgument(f"--models {options.models} explores every model: not with --memory or --warps")
    if options.kernels and os.getcwd() not in sys.path:  # a module of the current folder, as `python -m` finds it
        sys.path.insert(0, os.getcwd())
    if _campaign_wanted(options):
        return _hunt_campaign(options, source)
    bar, tick = _bar(options.budget, f"explore --algorithm {options.algorithm}", options)
    try:
        result = hunt(options.algorithm, **source, budget=options.budget, seed=options.seed, policy=options.policy,
                      start=options.start, options=_driver_options(options.option), races=options.races,
                      kernels=options.kernels, sim_options=_model(options), models=options.models,
                      paths=options.all_paths,
                      shrink_time=options.shrink_time, progress=tick, depth=options.depth,
                      max_preemptions=options.max_preemptions, engine=options.engine)
    finally:
        bar.close()
    return _show(options, result)


def _model(options: argparse.Namespace) -> dict | None:
    """``--memory`` and ``--warps`` as simulator options (``None`` when neither is given)."""
    model = {key: value for key, value in (("memory", options.memory), ("warps", options.warps)) if value}
    return model or None


def _add_campaign_options(explore: argparse.ArgumentParser) -> None:
    """The campaign options: workers, a time limit, a result file to save and resume."""
    campaign = explore.add_argument_group("campaigns (random, pct and systematic; the answer does not depend on "
                                          "--workers)")
    campaign.add_argument("--workers", type=int, default=1, metavar="N",
                          help="explore on N local worker processes (a Dask LocalCluster); default 1, in this process")
    campaign.add_argument("--scheduler", metavar="ADDRESS", help="explore on an existing Dask cluster, e.g. "
                                                                 "tcp://host:8786")
    campaign.add_argument("--time", type=float, metavar="SECONDS",
                          help="wall-time budget: stop after SECONDS (or --budget schedules, whichever comes first), "
                                "in this process or on the workers")
    campaign.add_argument("--save", metavar="FILE", help="write the campaign to FILE as it runs (JSON lines)")
    campaign.add_argument("--resume", metavar="FILE", help="continue the campaign saved in FILE (its scenario and "
                                                            "policy; --budget counts its schedules too)")
    campaign.add_argument("--chunk", type=int, metavar="N", help="schedules a chunk (default: about 0.5 s of work)")
    campaign.add_argument("--keep-going", action="store_true",
                          help="run the whole budget, saving every failing schedule (the first is reported)")


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
    if options.html and (options.zoo or options.list):
        raise InvalidArgument(f"--html {options.html!r}: {given[0]} writes no page (give a SCENARIO or --replay)")
    if options.zoo and options.fixed_budget < 1:  # explore() checks it too, but only after the first entry ran
        raise InvalidArgument(f"fixed_budget must be >= 1, got fixed_budget={options.fixed_budget}")
    check_picture_option(options)


def _check_page(options: argparse.Namespace) -> None:
    """``--html PAGE``: refused before any schedule runs when the page cannot be written."""
    if options.html:
        from gpusim.teaching.trace_page import check_page_path

        check_page_path(options.html)


def _write_page(options: argparse.Namespace, run) -> None:
    """``--html PAGE``: the run (a failure or a replay) as a page to step through; ``record["page"]``."""
    options.record["page"] = None
    if options.html and run is not None:
        from gpusim.teaching.trace_page import write_trace_html

        options.record["page"] = write_trace_html(run, options.html)


def _page_line(options: argparse.Namespace) -> None:
    if options.record.get("page"):
        print(f"step through it in a browser: {options.record['page']}")
    elif options.html:
        print(f"no failure, so no page written to {options.html}")


def _explore(options: argparse.Namespace) -> int:
    from gpusim.explore import explore, get_scenario, replay, scenario_names

    _check_page(options)
    if options.devices is not None and options.algorithm is None:
        raise InvalidArgument(f"--devices {options.devices} goes with --algorithm bsuitor")
    if options.algorithm is not None:
        return _hunt(options)
    for flag, value in (("--memory", options.memory), ("--warps", options.warps), ("--models", options.models)):
        if value:
            raise InvalidArgument(f"{flag} {value} goes with --algorithm NAME (a zoo scenario carries its own model)")
    if _campaign_wanted(options):
        return _campaign(options)
    _check_modes(options)
    if options.list:
        from gpusim.explore import algorithm_names
        from gpusim.zoo import ZOO

        names = scenario_names()
        described = [{"name": name, "description": _one_line(get_scenario(name).description)} for name in names]
        if options.json:
            print(json.dumps({"scenarios": names, "described": described,
                              "zoo": [entry.to_dict() for entry in ZOO.values()], "algorithms": algorithm_names()}))
        else:
            width = max(len(name) for name in names) + 2
            for row in described:
                text = row["description"]
                room = max(30, 118 - width)
                print(f"{row['name']:<{width}}{text if len(text) <= room else text[:room - 3] + '...'}")
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


def _hunt_campaign(options: argparse.Namespace, source: dict) -> int:
    """``--algorithm NAME`` with a campaign option: the campaign of its scenario on one input (by its name,
    which workers rebuild)."""
    from gpusim.explore import algorithm_scenario
    from gpusim.explore.hunt import model_pairs
    from gpusim.explore.paths import paths_of

    inputs = ([{"input_seed": options.seed + k} for k in range(source["random_inputs"])] if "random_inputs" in source
              else [source])
    if len(inputs) > 1 and (options.save or options.resume):
        raise InvalidArgument(f"--algorithm {options.algorithm} --random-inputs with --save or --resume: a saved "
                              f"campaign explores one input, FILE or --example NAME")
    paths = paths_of(options.algorithm) if options.all_paths else [{}]
    models = model_pairs(options.models) or [None]
    runs = [(given, path, model) for given in inputs for path in paths for model in models]
    time_limit, budget, status = options.time, options.budget, 0
    for given, path, model in runs:  # each in turn, an equal share of the time and budget, until one fails
        path = dict(path)
        sim = _model(options) if model is None else {"memory": model[0], "warps": model[1]}
        start = path.pop("initial", options.start)
        scenario = algorithm_scenario(options.algorithm, **given, kernels=options.kernels, start=start,
                                      options={**_driver_options(options.option), **path}, sim_options=sim)
        options.scenario = scenario.name
        options.time = None if time_limit is None else time_limit / len(runs)
        options.budget = max(1, budget // len(runs))
        status = _campaign(options)
        if status:
            return status
    return status


def _show(options: argparse.Namespace, result) -> int:
    """An exploration's verdict, failure report (or swimlanes) and coverage note; exit status 1 on a failure."""
    failure = result.failure
    options.record.update({**result.to_dict(), "picture": None})
    _write_page(options, failure)

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
        _page_line(options)

    draw = (lambda: failure.picture(options.png)) if failure is not None and options.png else None
    return emit(options, 1 if failure else 0, show_text, draw)


def _replay(options: argparse.Namespace, again) -> int:
    """``--replay NAME@TOKEN``: the replayed run's outcome and interleaving (and swimlanes with ``--png``)."""
    options.record.update({"scenario": again.scenario, "kind": again.kind, "message": again.message,
                           "token": again.token, "events": len(again.trace), "picture": None})
    _write_page(options, again)

    def show_text() -> None:
        from gpusim.backends.sim import format_events
        from gpusim.explore import interleaving

        print(f"{again.scenario}: {again.kind or 'passed'}" + (f"\n{again.message}" if again.message else ""))
        print(format_events(interleaving(again.trace), None))
        _page_line(options)

    def draw() -> str:
        from gpusim.teaching.plots import swimlanes

        return swimlanes(again.trace, options.png, title=f"replay of {again.scenario}: {again.kind}")

    return emit(options, 1 if again.kind else 0, show_text, draw if options.png else None)


def _zoo_engine(engine: str, policy: str) -> str:
    """The zoo's engine for one entry: the compiled engine where it applies (random and PCT schedules, a kernel
    it lowers, the default memory and warp modes), when asked for."""
    from gpusim.explore.search import COMPILED_POLICIES

    return "reference" if engine == "reference" or policy not in COMPILED_POLICIES else "auto"


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


# -- campaigns: --workers, --scheduler, --time, --save, --resume -------------------------------------------


def _not_hunted(scenario: str, options: argparse.Namespace) -> str:
    """A campaign of an algorithm's scenario: what it did not hunt, with the option that would."""
    memory = "weak" if ":memory=weak" in scenario else "sc"
    warps = "lockstep" if ":warps=lockstep" in scenario else "independent"
    parts = []
    if not options.models:
        parts.append(f"memory/warp models other than {memory}/{warps} (--models all)")
    if not options.all_paths:
        parts.append("other launch paths of the driver (--all-paths)")
    return "not hunted: " + ("; ".join(parts) if parts else "nothing left of the models and paths") + \
        " (the coverage note of a run without campaign options lists the kernels never launched)"


def _campaign_wanted(options: argparse.Namespace) -> bool:
    """Any campaign option: then the scenario runs as a campaign (``--workers 1`` alone is plain ``explore``)."""
    return (options.workers != 1 or options.scheduler is not None or options.time is not None or options.save
            is not None or options.resume is not None or options.chunk is not None or options.keep_going)


def _campaign_settings(options: argparse.Namespace) -> dict:
    """The campaign's scenario and settings: the options', or with ``--resume`` the file's."""
    settings = {"scenario": options.scenario, "policy": options.policy, "seed": options.seed, "depth": options.depth,
                "max_preemptions": options.max_preemptions, "reduction": True, "engine": options.engine,
                "keep_going": options.keep_going, "races": options.races}
    if options.resume is not None:
        from gpusim.explore.journal import read_journal

        header, _ = read_journal(options.resume)
        if options.scenario is not None and options.scenario != header.get("scenario"):
            raise InvalidArgument(f"--resume {options.resume!r} continues scenario {header.get('scenario')!r}, "
                                  f"not {options.scenario!r}")
        settings.update({key: header[key] for key in settings if key in header})
    flag = "--workers" if options.workers != 1 else "--scheduler" if options.scheduler else "a campaign option"
    if options.zoo or options.list or options.replay:
        raise InvalidArgument(f"{flag}: campaigns run one SCENARIO, not --zoo, --list or --replay")
    if settings["scenario"] is None:
        raise InvalidArgument(f"{flag}: give the SCENARIO to explore (or --resume FILE)")
    if settings["policy"] == "hypothesis":
        raise InvalidArgument(f"{flag} with --policy hypothesis: the Hypothesis engine runs in one process; use "
                              f"--policy random, pct or systematic (or run Hypothesis under HypoFuzz)")
    if options.workers < 1:
        raise InvalidArgument(f"--workers {options.workers}: give 1 or more")
    if options.workers != 1 and options.scheduler is not None:
        raise InvalidArgument(f"--workers {options.workers} and --scheduler {options.scheduler}: give one of them")
    if options.resume is not None and options.save is not None and options.save != options.resume:
        raise InvalidArgument(f"--save {options.save!r} with --resume {options.resume!r}: a resumed campaign "
                              f"appends to its own file")
    return settings


def _campaign(options: argparse.Namespace) -> int:
    import contextlib
    import sys

    from tqdm import tqdm

    from gpusim.explore import campaign
    from gpusim.explore.distributed import dask_client

    settings = _campaign_settings(options)
    check_picture_option(options)
    if options.scheduler is not None:
        cluster = dask_client(scheduler=options.scheduler)
    elif options.workers > 1:
        cluster = dask_client(workers=options.workers)
    else:
        cluster = contextlib.nullcontext(None)
    bar = tqdm(total=options.budget, desc=f"campaign {settings['scenario']}", unit="schedule",
               disable=progress_disabled(options), leave=False)

    def tick(done: int, interleavings: int) -> None:
        bar.set_postfix(interleavings=interleavings, refresh=False)
        bar.update(done - bar.n)

    try:
        with cluster as client:
            result = campaign(settings.pop("scenario"), settings.pop("policy"), options.budget, **settings,
                              client=client, time_limit=options.time, save=options.save, resume=options.resume,
                              chunk_size=options.chunk, shrink_time=options.shrink_time, progress=tick)
    except KeyboardInterrupt:
        path = options.resume or options.save
        print("interrupted" + (f": every finished chunk is in {path}; continue with gpusim explore --resume {path}"
                               if path else ""), file=sys.stderr)
        raise
    finally:
        bar.close()
    options.record.update({**result.to_dict(), "picture": None})
    failure = result.failure
    _write_page(options, failure)

    def show_text() -> None:
        if failure is not None:
            print(failure.report() + "\n")
        else:
            print(f"{result.scenario}: {result.verdict}")
        _page_line(options)
        rate = result.schedules_run / result.seconds if result.seconds else 0.0
        print(f"campaign: {result.schedules_run} schedule(s) run on {result.workers} worker(s) in "
              f"{result.seconds:.1f} s ({rate:.1f}/s), {result.interleavings} distinct interleaving(s), "
              f"{len(result.counterexamples)} failing; stopped: {result.stopped}"
              + (f"; saved in {result.save}" if result.save else ""))
        if result.scenario.startswith("algorithm:"):
            print(_not_hunted(result.scenario, options))

    draw = (lambda: failure.picture(options.png)) if failure is not None and options.png else None
    return emit(options, 1 if failure else 0, show_text, draw)


def _one_line(text: str) -> str:
    """A scenario's description on one line (its whitespace folded)."""
    return " ".join(text.split()) or "-"
