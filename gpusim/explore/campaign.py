"""Campaigns: ``explore`` split into chunks of schedules, on Dask workers, with a budget, a time limit and a file.

:func:`campaign` explores the same schedules as :func:`~gpusim.explore.explore` — random and PCT
schedules by seed, the systematic search level by level — in chunks (:mod:`gpusim.explore.chunks`) run
by the workers of a ``dask.distributed.Client`` (or here, one after the other, without one).  **The
answer does not depend on the workers**: the failure reported is the first in ``explore``'s order (the
lowest seed; the first of the systematic search), shrunk by the same code, with the same replay token,
because every chunk below it is waited for and the shrinking runs once, on that schedule, here in the
calling process.

A campaign stops at its first failure (unless ``keep_going``), after ``budget`` schedules, after
``time_limit`` seconds (the chunks running then finish), or when the systematic search is exhausted.
With ``save=FILE`` each chunk's verdicts are appended to a JSON-lines file as it finishes
(:mod:`gpusim.explore.journal`); ``resume=FILE`` reads one back and runs only what it lacks, so a
campaign killed or interrupted loses at most the chunks that were running and runs no schedule twice.

>>> found = campaign("lost_update", budget=100)
>>> found.failure.replay_token == explore("lost_update", budget=100).failure.replay_token
True
>>> found.stopped, found.schedules
('failure', 1)
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gpusim.backends.sim import ENGINES
from gpusim.errors import InvalidArgument
from gpusim.types.arguments import check_int, check_seed

from .chunks import Chunk, Found, failure_report, run_prefixes, run_schedules
from .distributed import DaskPool, InProcess
from .journal import Journal, read_journal
from .report import Exploration
from .scenario import SCENARIO_BUILDERS, Scenario, get_scenario, scenario_names
from .search import COMPILED_POLICIES, explore, with_races

__all__ = ["CAMPAIGN_POLICIES", "Campaign", "campaign"]

#: The seeded policies a campaign splits into chunks (the Hypothesis engine runs in one process).
CAMPAIGN_POLICIES = ("random", "pct", "systematic")
_TARGET_SECONDS = 1.0  # a chunk's length once the rate is known: short enough for the progress and the time limit
_LEAST_SECONDS = 0.2  # the shortest chunk once the rate is known (the last ones too), so that the scheduler's and
# the client's CPU per task (about 5 ms, in the calling process) stays small beside the workers' time
_FIRST_CHUNK = 4


@dataclass
class Campaign(Exploration):
    """:class:`~gpusim.explore.Exploration` (the answer ``explore`` gives) and what the campaign did.

    ``schedules`` is ``explore``'s count (the failing schedule's index when one failed); ``schedules_run``
    every schedule the campaign ran, resumed runs included; ``interleavings`` the distinct ones among
    them; ``counterexamples`` every failing schedule found (``keep_going`` finds more than the first), each
    with its replay token; ``stopped`` why it ended: ``"failure"`` (the first failure in ``explore``'s order),
    ``"budget"``, ``"exhausted"`` or ``"time"`` (a failure then reported may have schedules before it not yet
    run: resuming the campaign runs them).
    """

    workers: int = 1
    schedules_run: int = 0
    interleavings: int = 0
    counterexamples: list[Found] = field(default_factory=list)
    stopped: str = "budget"
    save: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "workers": self.workers, "schedules_run": self.schedules_run,
                "interleavings": self.interleavings, "stopped": self.stopped, "save": self.save,
                "counterexamples": [found.to_dict() for found in self.counterexamples]}


class _Search:
    """Which positions of which level remain, what came back, and when the search is over."""

    def __init__(self, policy: str, budget: int, max_preemptions: int, keep_going: bool):
        self.policy, self.budget, self.max_preemptions, self.keep_going = policy, budget, max_preemptions, keep_going
        self.level, self.offset = 0, 0
        self.frontier = [()] if policy == "systematic" else None
        self.size = min(1, budget) if self.frontier is not None else budget
        self.todo = [(0, self.size)]
        self.children: dict[int, list] = {}
        self.running: dict[Any, tuple[int, int, int]] = {}
        self.found: list[Found] = []
        self.coverage: set[str] = set()
        self.run = 0
        self.over, self.exhausted = False, False

    @property
    def best(self) -> Found | None:
        return min(self.found, key=lambda found: found.index, default=None)

    def _limit(self) -> int:
        """Positions of this level below this one are still needed (all of them with ``keep_going``)."""
        best = self.best
        if best is None or self.keep_going:
            return self.size
        return max(0, min(self.size, best.index - self.offset - 1))

    def next(self, size: int) -> tuple[int, int, int] | None:
        limit = self._limit()
        self.todo = [(a, min(b, limit)) for a, b in self.todo if a < limit]
        if not self.todo:
            return None
        first, stop = self.todo[0]
        stop = min(stop, first + size)
        self.todo[0] = (stop, self.todo[0][1])
        if self.todo[0][0] >= self.todo[0][1]:
            self.todo.pop(0)
        return self.level, first, stop

    def beyond(self) -> list:
        """Running chunks past the first failure: no longer needed."""
        limit = self._limit()
        return [future for future, (level, first, _) in self.running.items() if level == self.level and first >= limit]

    def accept(self, chunk: Chunk) -> None:
        """Count a finished chunk (from a worker or the file) and move to the next level once this one is done."""
        if chunk.level != self.level:
            raise InvalidArgument(f"the campaign file has a chunk of level {chunk.level} while level {self.level} "
                                  f"is unfinished; it was not written by this campaign")
        self.todo = _without(self.todo, chunk.first, chunk.stop)
        self.run += chunk.run
        self.coverage.update(chunk.coverage)
        self.found.extend(chunk.failures)
        self.children[chunk.first] = chunk.children
        self.settle()

    def settle(self) -> None:
        limit = self._limit()
        if any(a < limit for a, _ in self.todo) or any(level == self.level and first < limit
                                                       for level, first, _ in self.running.values()):
            return
        if self.best is not None and not self.keep_going or self.frontier is None:
            self.over = True
            return
        complete = self.size == len(self.frontier)
        following = [child for first in sorted(self.children) for child in self.children[first]]
        if not complete or self.level == self.max_preemptions or not following:
            self.over, self.exhausted = True, complete
            return
        self.level, self.offset, self.frontier = self.level + 1, self.offset + self.size, following
        self.size = min(len(following), self.budget - self.offset)
        self.todo, self.children = [(0, self.size)], {}
        if self.size == 0:
            self.over = True


def _without(ranges: list[tuple[int, int]], first: int, stop: int) -> list[tuple[int, int]]:
    kept = []
    for a, b in ranges:
        kept += [(a, min(b, first))] if a < first else []
        kept += [(max(a, stop), b)] if b > stop else []
    return [(a, b) for a, b in kept if a < b]


def campaign(scenario: str | Scenario, policy: str = "random", budget: int = 1000, seed: int = 0, *,
             depth: int = 2, max_preemptions: int = 2, reduction: bool = True, shrink: bool = True,
             engine: str = "reference", client=None, time_limit: float | None = None, save: str | None = None,
             resume: str | None = None, chunk_size: int | None = None, keep_going: bool = False,
             races: str | None = None, shrink_time: float | None = 30.0,
             progress: Callable[[int, int], None] | None = None) -> Campaign:
    """Explore ``scenario`` as ``explore`` does, in chunks on ``client``'s Dask workers; the same answer.

    Parameters
    ----------
    scenario, policy, budget, seed, depth, max_preemptions, reduction, shrink, engine, races, shrink_time:
        As :func:`~gpusim.explore.explore` (``policy`` one of ``"random"``, ``"pct"``, ``"systematic"``;
        ``budget`` counts every schedule of the campaign, resumed runs included): every schedule runs
        as ``explore`` runs it (the race detector on, ``report``, unless told), on every worker.
    client:
        A ``dask.distributed.Client``; ``None`` runs the chunks in this process.
    time_limit:
        Seconds after which no chunk starts (the running ones finish and are counted).
    save:
        A JSON-lines file the campaign appends to, chunk by chunk (see :mod:`gpusim.explore.journal`).
    resume:
        A file a campaign saved: its chunks count as done, and the campaign appends to it.
    chunk_size:
        Schedules a chunk; by default about half a second of work each.
    keep_going:
        Run the whole budget, gathering every failing schedule in ``counterexamples`` (the first is still
        the one reported and shrunk).
    progress:
        Called after each chunk with the schedules run and the distinct interleavings seen.

    Raises
    ------
    InvalidArgument
        A bad value, the Hypothesis policy, or a ``resume`` file of another campaign.
    KeyboardInterrupt
        Passed on after the running chunks are cancelled; the file holds every chunk that finished.
    """
    given, scenario = scenario, get_scenario(scenario)
    if policy not in CAMPAIGN_POLICIES:
        raise InvalidArgument(f"policy={policy!r}: a campaign runs the seeded policies {CAMPAIGN_POLICIES}; the "
                              f"Hypothesis engine runs in one process (explore(..., policy='hypothesis'))")
    if engine not in ENGINES or (engine == "compiled" and policy not in COMPILED_POLICIES):
        raise InvalidArgument(f"engine={engine!r} is not one of {ENGINES}" if engine not in ENGINES
                              else f"engine='compiled' runs {' and '.join(COMPILED_POLICIES)} schedules, not "
                                   f"policy={policy!r}: the systematic search runs on the reference engine")
    with_races(scenario, races, engine)  # checks races='...' here, before any worker runs
    seed = check_seed(seed)
    for name, value, low in (("budget", budget, 1), ("depth", depth, 1), ("max_preemptions", max_preemptions, 0)):
        check_int(name, value, low, None)
    if chunk_size is not None:
        check_int("chunk_size", chunk_size, 1, None)
    if time_limit is not None and not (isinstance(time_limit, (int, float)) and time_limit > 0):
        raise InvalidArgument(f"time_limit must be a number of seconds > 0, got time_limit={time_limit!r}")
    if save is not None and resume is not None and str(save) != str(resume):
        raise InvalidArgument(f"save={save!r} and resume={resume!r}: a resumed campaign appends to its own file")
    if save is not None and resume is None and os.path.exists(save) and os.path.getsize(save) > 0:
        raise InvalidArgument(f"save={str(save)!r} already holds a campaign: resume it, or save to a new file")
    header = {"scenario": scenario.name, "policy": policy, "seed": seed, "depth": depth,
              "max_preemptions": max_preemptions, "reduction": reduction, "engine": engine, "keep_going": keep_going,
              **({"races": races} if races is not None else {})}
    search = _Search(policy, budget, max_preemptions, keep_going)
    if resume is not None:
        _resume(search, resume, header)
    pool = InProcess() if client is None else DaskPool(client)
    ref = scenario.name if _by_name(given, scenario) else scenario
    settings = {"seed": seed, "depth": depth, "engine": engine, "reduction": reduction, "shrink": shrink,
                "races": races, "shrink_time": shrink_time, "time_limit": time_limit}
    path = resume if resume is not None else save
    journal = Journal(path, header) if path is not None else None
    start = time.perf_counter()
    try:
        stopped = _drive(search, pool, ref, settings, journal, start, time_limit, chunk_size, progress)
        return _answer(search, pool, scenario, policy, settings, journal, start, stopped, path)
    finally:
        if journal is not None:
            journal.close()


def _by_name(given: str | Scenario, scenario: Scenario) -> bool:
    """Whether workers can find ``scenario`` by its name (a registered one, or an algorithm's rebuilt from its
    name with the same options), so that it travels as a name, not pickled by value."""
    builder = next((module for prefix, module in SCENARIO_BUILDERS.items() if scenario.name.startswith(prefix)), None)
    if builder is None:
        return isinstance(given, str) or (scenario.name in scenario_names()
                                          and get_scenario(scenario.name) is scenario)
    try:  # a worker rebuilds it from its name (what this process registered, a worker lacks)
        again = importlib.import_module(builder).scenario_from_name(scenario.name)
    except InvalidArgument:
        return False
    return again.options == scenario.options and again.kernels == scenario.kernels


def _resume(search: _Search, path: str, header: dict[str, Any]) -> None:
    saved, records = read_journal(path)
    for key, value in header.items():
        if saved.get(key) != value:
            raise InvalidArgument(f"--resume {path!r}: that campaign has {key}={saved.get(key)!r}, not {value!r}")
    for record in records:
        if record.get("record") == "chunk":
            search.accept(Chunk.from_dict(record))


def _submit(pool, ref, search: _Search, task: tuple[int, int, int], settings: dict[str, Any]):
    level, first, stop = task
    if search.frontier is None:
        return pool.submit(run_schedules, ref, search.policy, first, stop, settings["seed"], settings["depth"],
                           settings["engine"], search.keep_going, settings["races"])
    return pool.submit(run_prefixes, ref, level, first, search.frontier[first:stop], search.offset,
                       settings["reduction"], level < search.max_preemptions, search.keep_going, settings["races"])


def _drive(search: _Search, pool, ref, settings, journal, start, time_limit, chunk_size, progress) -> str:
    """Keep ``2 × workers`` chunks running until the search is over, the budget spent or the time up."""
    size, least = chunk_size or _FIRST_CHUNK, 1
    late = False
    try:
        while True:
            late = late or (time_limit is not None and time.perf_counter() - start >= time_limit)
            while not late and not search.over and len(search.running) < 2 * pool.workers:
                # the last chunks smaller, so no worker idles long, but not below _LEAST_SECONDS
                left = sum(b - a for a, b in search.todo)
                task = search.next(size if chunk_size else max(least, min(size, -(-left // (2 * pool.workers)))))
                if task is None:
                    break
                search.running[_submit(pool, ref, search, task, settings)] = task
            if not search.running:
                if not (search.over or late):
                    search.settle()  # a level finished: the next one's chunks, or the end
                if search.over or late or not search.todo:
                    break
                continue
            wait = None if time_limit is None or late else max(0.05, time_limit - (time.perf_counter() - start))
            for future in pool.first_done(search.running, wait):
                del search.running[future]
                chunk = future.result()
                if journal is not None:
                    journal.write(chunk.to_dict())
                search.accept(chunk)
                if chunk_size is None and chunk.run:  # the last chunk's rate (a worker's first one imports
                    # and compiles: slow), growing at most twofold a chunk
                    per_schedule = max(chunk.seconds / chunk.run, 1e-6)
                    size = max(1, min(10_000, 2 * size, round(_TARGET_SECONDS / per_schedule)))
                    least = max(1, min(size, round(_LEAST_SECONDS / per_schedule)))
                if progress is not None:
                    progress(search.run, len(search.coverage))
            for future in search.beyond():
                pool.cancel(future)
                del search.running[future]
    except BaseException:
        for future in search.running:
            pool.cancel(future)
        raise
    if search.over:
        return "failure" if search.best is not None else "exhausted" if search.exhausted else "budget"
    return "time" if late else "budget"


def _answer(search, pool, scenario, policy, settings, journal, start, stopped, path) -> Campaign:
    best, failure = search.best, None
    if best is not None:
        # Shrunk here, as explore shrinks: a kernel pickled by value to a worker has no source file there,
        # and its fingerprint, part of the replay token, would be missing.  Within what is left of the time
        # limit: a campaign never runs past it to shrink.
        shrink_time = settings["shrink_time"]
        if settings["time_limit"] is not None:
            left = max(0.1, settings["time_limit"] - (time.perf_counter() - start))
            shrink_time = left if shrink_time is None else min(shrink_time, left)
        failure = failure_report(scenario, policy, best, settings["seed"], settings["depth"], settings["engine"],
                                 settings["reduction"], settings["shrink"], settings["races"], shrink_time)
    bound = None
    if policy == "pct":
        bound = explore(scenario, "pct", 1, settings["seed"], depth=settings["depth"], shrink=False).probability_bound
        if failure is not None:
            failure.probability_bound = bound
    result = Campaign(scenario.name, policy, best.index if best is not None else search.run,
                      time.perf_counter() - start, failure, bound, search.exhausted,
                      search.max_preemptions if policy == "systematic" else None,
                      reduction=policy == "systematic" and settings["reduction"], workers=pool.workers,
                      schedules_run=search.run, interleavings=len(search.coverage),
                      counterexamples=sorted(search.found, key=lambda found: found.index),
                      stopped=stopped, save=None if path is None else str(path))
    if journal is not None:
        if failure is not None:
            journal.write({"record": "failure", **failure.to_dict()})
        journal.write({"record": "summary", **result.to_dict()})
    return result
