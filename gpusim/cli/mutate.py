"""``gpusim mutate``: the mutation score of the kernels — concurrency mutants hunted by the explorer.

``gpusim mutate --algorithm mw-gpu`` makes every mutant of :mod:`gpusim.explore.mutate` (an atomic made plain,
a CAS made an exchange, a barrier or fence removed, a shuffle reading the wrong lane, a lock released before the
writes it guards, a plain re-read of a word taken atomically, a repair step emptied) from the syntax tree of
each kernel and step of the algorithm, plants each through ``kernels=`` and hunts it over the launch paths that
launch it; it prints each mutant's verdict (found, not found, equivalent or unreached with the reason) and the score
per kernel.
Without ``--algorithm`` it scores every registered GPU algorithm in turn.  A failure found is shrunk
(``--shrink-time``) and its row gives the preemptions left; ``--workers N`` or ``--scheduler ADDRESS`` hunts
the mutants on Dask workers (each makes its mutant again from the kernel's source, by name).
"""

from __future__ import annotations

import argparse
import contextlib
import json

from gpusim.cli.common import emit, progress_disabled
from gpusim.errors import InvalidArgument

__all__ = ["register_mutate"]


def register_mutate(commands, common: argparse.ArgumentParser) -> None:
    """Add the ``mutate`` subcommand to ``gpusim``'s subparsers (``common``: the shared options)."""
    mutate = commands.add_parser("mutate", parents=[common],
                                 help="mutation-test the kernels: concurrency mutants hunted by the explorer")
    mutate.add_argument("--algorithm", metavar="NAME", help="one registered GPU algorithm (default: every one)")
    mutate.add_argument("--budget", type=int, default=60, help="schedules a mutant (default 60)")
    mutate.add_argument("--random-inputs", type=int, default=4, metavar="N", help="inputs a mutant (default 4)")
    mutate.add_argument("--races", choices=("report", "raise"), default="raise",
                        help="raise (default): an undeclared data race counts as found; report: only a wrong "
                             "result or a kernel fault does")
    mutate.add_argument("--kinds", metavar="K,K", help="only these kinds (atomic-to-plain, cas-to-exchange, "
                                                       "barrier-removed, fence-removed, shuffle-lane, "
                                                       "lock-released-early, extra-read; repair-removed only "
                                                       "when asked)")
    mutate.add_argument("--shrink-time", type=float, default=30.0, metavar="S",
                        help="seconds to shrink each failure found (default 30; 0: not shrunk)")
    mutate.add_argument("--time-limit", type=float, default=120.0, metavar="S",
                        help="seconds of wall-clock time a mutant's hunt may take, shrinking included (default 120; "
                             "0: none); a mutant stopped there before any failure is not found, undecided")
    mutate.add_argument("--workers", type=int, default=1, metavar="N",
                        help="hunt the mutants on a local Dask cluster of N worker processes (default 1: here)")
    mutate.add_argument("--scheduler", metavar="ADDRESS",
                        help="hunt the mutants on the workers of an existing Dask scheduler, e.g. tcp://host:8786")
    mutate.add_argument("--tests", nargs="?", const="", metavar="FILE,FILE",
                        help="also score the project's tests: each mutant planted while a fast subset of test files "
                             "runs (default: the algorithm's subset; from the checkout's root)")
    mutate.add_argument("--tests-only", action="store_true", help="with --tests: score the tests, not the explorer")
    mutate.add_argument("--save", metavar="FILE", help="write the scores as JSON to FILE")
    mutate.add_argument("--json", action="store_true", help="print one JSON object")
    mutate.set_defaults(run=_mutate)


def _mutate(options: argparse.Namespace) -> int:
    from tqdm import tqdm

    from gpusim.explore import algorithm_names
    from gpusim.explore.distributed import dask_client
    from gpusim.explore.mutate import DEFAULT_KINDS, KINDS, mutants, score
    from gpusim.explore.mutate_tests import suite_score

    names = algorithm_names()
    if options.algorithm is not None and options.algorithm not in names:
        raise InvalidArgument(f"--algorithm {options.algorithm!r} is not a registered GPU algorithm; choose one of "
                              f"{', '.join(names)}")
    kinds = tuple(options.kinds.split(",")) if options.kinds else DEFAULT_KINDS
    if set(kinds) - set(KINDS):
        raise InvalidArgument(f"--kinds {options.kinds!r}: choose from {', '.join(KINDS)}")
    for flag, value in (("--budget", options.budget), ("--random-inputs", options.random_inputs),
                        ("--workers", options.workers)):
        if value < 1:
            raise InvalidArgument(f"{flag} {value}: give 1 or more")
    if not options.shrink_time >= 0:
        raise InvalidArgument(f"--shrink-time {options.shrink_time}: give 0 or more seconds")
    if not options.time_limit >= 0:
        raise InvalidArgument(f"--time-limit {options.time_limit}: give 0 or more seconds")
    if options.scheduler is not None and options.workers != 1:
        raise InvalidArgument("--workers and --scheduler: give one of them")
    chosen = [options.algorithm] if options.algorithm else names
    if options.tests_only and options.tests is None:
        raise InvalidArgument("--tests-only needs --tests")
    total = sum(len(mutants(name, kinds)) for name in chosen) * (1 + (options.tests is not None)
                                                                 - options.tests_only)
    bar = tqdm(total=total, desc="gpusim mutate", unit="mutant", disable=progress_disabled(options), leave=False)
    scores = []

    def tick(mutant, row) -> None:
        bar.set_postfix(mutant=mutant.name)
        bar.update(1)

    distributed = options.scheduler is not None or options.workers > 1
    try:
        with (dask_client(None if options.scheduler else options.workers, options.scheduler) if distributed
              else contextlib.nullcontext()) as client:
            for name in chosen:
                if options.tests_only:
                    scores.append({"algorithm": name, "rows": [], "found": 0, "judged": 0, "score": None,
                                   "per_function": {}})
                else:
                    scores.append(score(name, budget=options.budget, random_inputs=options.random_inputs,
                                        races=options.races, kinds=kinds, shrink_time=options.shrink_time or None,
                                        time_limit=options.time_limit or None, client=client, progress=tick))
                if options.tests is not None:
                    scores[-1]["tests"] = suite_score(name, kinds=kinds, progress=tick,
                                                      files=options.tests.split(",") if options.tests else None)
    finally:
        bar.close()
    options.record.update({"algorithms": scores})
    if options.save:
        with open(options.save, "w", encoding="utf-8") as out:
            json.dump({"algorithms": scores}, out, indent=1)

    def show_text() -> None:
        for result in scores:
            if options.tests_only:
                print(f"{result['algorithm']}:")
            shown = "-" if result["score"] is None else f"{result['score']:.0%}"
            verdicts = [row["verdict"] for row in result["rows"]]
            if not options.tests_only:
                print(f"{result['algorithm']}: {result['found']} of {result['judged']} mutants found ({shown}); "
                      f"{verdicts.count('equivalent')} equivalent, {verdicts.count('unreached')} unreached")
            for row in result["rows"]:
                why = row["finding"] or row["reason"] or ""
                print(f"  {row['verdict']:<10} {row['mutant']:<44} {why}")
            for function, counts in result["per_function"].items():
                print(f"  per kernel/step {function}: found {counts['found']}, not found {counts['not found']}, "
                      f"equivalent {counts['equivalent']}, unreached {counts['unreached']}")
            tests = result.get("tests")
            if tests is not None:
                shown = "-" if tests["score"] is None else f"{tests['score']:.0%}"
                verdicts = [row["verdict"] for row in tests["rows"]]
                print(f"  the tests ({', '.join(tests['files'])}): {tests['found']} of {tests['judged']} mutants "
                      f"found ({shown}); {verdicts.count('equivalent')} equivalent, {verdicts.count('unreached')} "
                      f"unreached")
                for row in tests["rows"]:
                    print(f"    {row['verdict']:<10} {row['mutant']:<44} {row['test'] or row['reason'] or ''}")

    return emit(options, 0, show_text)
