"""Run a scenario under many schedules until it fails; shrink and replay the failure.

Four ways to pick schedules (``policy=``):

``"random"``
    Schedule ``i`` is :class:`~gpusim.backends.sim.RandomWalk` with seed ``seed + i``.
``"pct"``
    Probabilistic concurrency testing (Burckhardt et al., ASPLOS 2010), ``PCT(seed + i, depth, k)``
    with ``k`` the steps of the sequential run; the result carries the guarantee 1/(n·k^(d−1)).
``"systematic"``
    Preemption-bounded search (Musuvathi and Qadeer, PLDI 2007): every schedule with 0, then 1, then
    2, ... preemptions, up to ``max_preemptions``.  With ``reduction=True`` a preemption is placed
    only before an access to an element that another thread also accesses, one of the two a write, in
    the run being extended — a partial-order reduction in the spirit of DPOR (Flanagan and Godefroid,
    POPL 2005): switching threads just before a read of read-only data, or before a barrier, a
    collective or a fence, gives the same Mazurkiewicz trace as switching at the thread's next
    conflicting access.  It is a heuristic, not full DPOR: a conflict that appears only under other
    schedules is found through the runs that show it.
``"hypothesis"``
    ``hypothesis.find`` over :func:`gpusim.testing.strategies.schedules` (preemption lists), which shrinks
    the failure to the fewest preemptions at the earliest steps.

Failures found by random, PCT or systematic search are shrunk by delta debugging over the
preemptions (:mod:`gpusim.explore.shrink`).

Example
-------
>>> found = explore("lost_update", policy="random", budget=100)
>>> found.found, found.failure.kind, found.failure.preemptions
(True, 'invariant', 1)
>>> replay(found.failure.replay_token).trace == found.failure.trace
True
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Iterator

from gpusim.backends.sim import ENGINES, PCT, TOKEN_FORMAT, Policy, RandomWalk, read_token
from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.runtime.device import Device
from gpusim.types.arguments import check_int, check_seed

from .coverage import Coverage
from .report import Exploration, Failure, trace_of
from .scenario import Outcome, Scenario, get_scenario, scenario_names
from .shrink import ddmin
from .switches import Switches, switches_of

__all__ = ["METHODS", "RACE_MODES", "Replayed", "engine_of", "explore", "failure_of", "replay", "schedule_policies",
           "systematic_step", "with_races"]

#: The ways ``explore`` picks schedules.
METHODS = ("random", "pct", "systematic", "hypothesis")
#: The policies whose schedules may run on the compiled engine (the systematic search needs traces, and the
#: Hypothesis engine draws position lists): schedules, not the shrinking, which runs on the reference.
COMPILED_POLICIES = ("random", "pct")
#: The race detector's modes (``races=``).
RACE_MODES = ("off", "report", "raise")
SHRINK_BOUND = 3  # after delta debugging, a systematic search for the same bug with fewer preemptions...
_SHRINK_BUDGET = 3000  # ...trying at most this many schedules
_MANY_PREEMPTIONS = 64  # a failure with more preemptions (a whole algorithm's) first looks for a low-depth PCT one


def explore(scenario: str | Scenario, policy: str = "random", budget: int = 1000, seed: int = 0, *,
            depth: int = 2, max_preemptions: int = 2, reduction: bool = True, shrink: bool = True,
            engine: str = "reference", progress: Callable[[int], None] | None = None, races: str | None = None,
            shrink_time: float | None = 30.0) -> Exploration:
    """Run ``scenario`` under up to ``budget`` schedules of ``policy``; return the first failure, shrunk.

    Parameters
    ----------
    scenario:
        A :class:`Scenario` or a registered name (every zoo entry: ``"lost_update"``,
        ``"lost_update.fixed"``, ...).
    policy:
        ``"random"``, ``"pct"``, ``"systematic"`` or ``"hypothesis"`` (see the module notes).
    budget:
        At most this many schedules (shrinking not counted, except under Hypothesis).
    seed:
        First seed (random, PCT, Hypothesis).
    depth:
        PCT's bug depth ``d``.
    max_preemptions:
        The systematic search's preemption bound, and the most preemptions Hypothesis draws.
    reduction:
        The systematic search's partial-order reduction.
    shrink:
        Delta-debug the failure to the fewest preemptions.
    engine:
        Where random and PCT schedules run: ``"reference"`` (default), ``"compiled"`` (numba-compiled, any
        launch size, races checked up to 4,096 threads; see :mod:`gpusim.backends.sim.compiled`) or
        ``"auto"`` (compiled where the kernel allows).  The systematic search and Hypothesis run on the
        reference; the failure is replayed, shrunk and traced on the reference simulator either way.
    progress:
        Called with the number of schedules run so far after each one (a progress bar).
    races:
        The race detector: ``"report"`` (the default: races found are listed on ``coverage.races``, each
        with a replay token, and the failure is still judged by the scenario's check), ``"raise"`` (an
        undeclared race is a failure) or ``"off"`` (the coverage note then says races were not checked).
        ``None`` keeps the scenario's own setting, else ``"report"``.  The compiled engine checks races on
        launches of up to 4,096 threads and refuses larger ones (``engine="auto"`` runs them on the reference).
    shrink_time:
        Seconds the shrinker may take (``None``: no limit); the failure's ``shrink_report`` says how far
        it got.

    Returns
    -------
    Exploration
        ``failure`` is ``None`` when no schedule failed; ``exhausted`` says whether a systematic
        search tried every schedule within its bound (``bound`` preemptions); ``coverage`` says what
        was exercised.

    Raises
    ------
    InvalidArgument
        An unknown scenario or policy, or a budget below 1.
    """
    scenario = get_scenario(scenario)
    if policy not in METHODS:
        raise InvalidArgument(f"policy={policy!r} is not one of {METHODS}")
    if engine not in ENGINES:
        raise InvalidArgument(f"engine={engine!r} is not one of {ENGINES}")
    if engine == "compiled" and policy not in COMPILED_POLICIES:
        raise InvalidArgument(f"engine='compiled' runs {' and '.join(COMPILED_POLICIES)} schedules, not "
                              f"policy={policy!r}: the systematic search and Hypothesis run on the reference engine")
    seed = check_seed(seed)
    for name, value, low in (("budget", budget, 1), ("depth", depth, 1), ("max_preemptions", max_preemptions, 0)):
        check_int(name, value, low, None)
    if shrink_time is not None and (isinstance(shrink_time, bool) or not isinstance(shrink_time, (int, float))
                                    or not shrink_time > 0):
        raise InvalidArgument(f"shrink_time must be a number of seconds > 0 or None, got shrink_time={shrink_time!r}")
    scenario, coverage = with_races(scenario, races, engine)
    tick = progress or (lambda done: None)
    start = time.perf_counter()
    exhausted, bound = False, None
    if policy == "systematic":
        found, tried, exhausted = _systematic(scenario, budget, max_preemptions, reduction, tick, coverage=coverage)
    elif policy == "hypothesis":
        return _hypothesis(scenario, budget, seed, max_preemptions, tick, start, coverage, shrink_time)
    else:
        found, tried = None, 0
        for tried, candidate in enumerate(_policies(scenario, policy, budget, seed, depth), start=1):
            outcome, dev = scenario.execute(policy=candidate, trace=False, **engine_of(policy, engine))
            coverage.add(dev, scenario.name)
            tick(tried)
            if outcome is not None:
                found = (outcome, candidate, tried)
                break
        if policy == "pct":
            bound = _pct_bound(scenario, seed, depth)
    failure = None
    if found is not None:
        outcome, candidate, index = found
        failure = _failure(scenario, outcome, repr(candidate), index, shrink, shrink_time, coverage)
        if bound is not None:
            failure.probability_bound = bound
    coverage.add_traced(scenario.execute(policy="sequential", trace=True)[1].runs)
    return Exploration(scenario.name, policy, tried, time.perf_counter() - start, failure, bound, exhausted,
                       max_preemptions if policy == "systematic" else None, coverage,
                       reduction=policy == "systematic" and reduction)


def engine_of(policy: str, engine: str) -> dict[str, str]:
    """The ``execute`` keywords that run one of ``policy``'s schedules on ``engine``, as ``explore`` runs them."""
    return {"engine": engine} if policy in COMPILED_POLICIES and engine != "reference" else {}


def with_races(scenario: Scenario, races: str | None, engine: str = "reference") -> tuple[Scenario, Coverage]:
    """``scenario`` with the race detector's mode set (see :func:`explore`), and an empty :class:`Coverage`.

    Every engine checks races: the compiled engine on launches of up to 4,096 threads, and it refuses a
    larger one (``engine="auto"`` then runs it on the reference), so ``"report"`` is the default everywhere.
    """
    if races is not None and races not in RACE_MODES:
        raise InvalidArgument(f"races={races!r} is not one of {RACE_MODES}")
    if engine not in ENGINES:
        raise InvalidArgument(f"engine={engine!r} is not one of {ENGINES}")
    mode = races or scenario.options.get("races", "report")
    if scenario.options.get("races", "off") != mode:
        scenario = dataclasses.replace(scenario, options={**scenario.options, "races": mode})
    return scenario, Coverage(scenario.kernels, races_checked=mode != "off")


def _policies(scenario: Scenario, method: str, budget: int, seed: int, depth: int) -> Iterator[Policy]:
    return schedule_policies(scenario, method, 0, budget, seed, depth)


def schedule_policies(scenario: Scenario, method: str, first: int, stop: int, seed: int = 0,
                      depth: int = 2) -> Iterator[Policy]:
    """Schedules ``first`` to ``stop - 1`` (from 0) of ``explore``'s random or PCT sequence: a chunk of a campaign."""
    if method == "random":
        for i in range(first, stop):
            yield RandomWalk(seed=seed + i)
        return
    steps = _sequential_steps(scenario)
    for i in range(first, stop):
        yield PCT(seed=seed + i, depth=depth, steps=steps)


def _sequential_steps(scenario: Scenario) -> int:
    """``k`` for PCT: the most steps one launch takes in the sequential run."""
    _, dev = scenario.execute(policy="sequential", trace=False)
    return max([run.steps for run in dev.runs] or [1]) or 1


def _pct_bound(scenario: Scenario, seed: int, depth: int) -> float | None:
    _, dev = scenario.execute(policy=PCT(seed=seed, depth=depth, steps=_sequential_steps(scenario)), trace=False)
    bounds = [run.probability_bound for run in dev.runs if run.probability_bound is not None]
    return min(bounds) if bounds else None


# -- systematic search --------------------------------------------------------------------------------


def _systematic(scenario: Scenario, budget: int, max_preemptions: int, reduction: bool,
                tick: Callable[[int], None], kind: str | None = None, coverage: Coverage | None = None,
                deadline: float | None = None, launches: frozenset[int] | None = None
                ) -> tuple[tuple | None, int, bool]:
    """Breadth first by preemption count; each schedule extends its parent after the parent's last preemption.

    With ``kind``, only a failure of that kind counts (the shrinker looks for the same bug); past
    ``deadline`` (a ``time.perf_counter()`` value) it stops as if the budget were spent; with ``launches`` (launch
    numbers, from 0), preemptions are placed inside those launches only.
    """
    frontier: list[tuple[tuple[int, int], ...]] = [()]
    tried = 0
    for bound in range(max_preemptions + 1):
        following = []
        for prefix in frontier:
            if tried >= budget or (deadline is not None and time.perf_counter() > deadline):
                return None, tried, False
            outcome, policy, children, dev = systematic_step(scenario, prefix, reduction, bound < max_preemptions,
                                                             launches)
            if coverage is not None:
                coverage.add(dev, scenario.name)
            tried += 1
            tick(tried)
            if outcome is not None and (kind is None or outcome.kind == kind):
                return (outcome, policy, tried), tried, False
            following.extend(children)
        frontier = following
        if not frontier:
            break
    return None, tried, True


def systematic_step(scenario: Scenario, prefix: tuple[tuple[int, int], ...], reduction: bool = True,
                    extend: bool = True, launches: frozenset[int] | None = None
                    ) -> tuple[Outcome | None, Switches, list, Device]:
    """Run one schedule of the systematic search: its outcome, its policy, when ``extend`` and it passed
    its children (one more preemption each, after ``prefix``'s last, inside ``launches`` if given) in search order,
    and the device."""
    policy = Switches(prefix, record=True)
    outcome, dev = scenario.execute(policy=policy, trace=reduction)
    if not extend or outcome is not None:
        return outcome, policy, [], dev
    points = conflict_points(dev.runs) if reduction else None
    last = prefix[-1][0] if prefix else -1
    inside = None if launches is None else _step_ranges(dev.runs, launches)
    children = []
    for step, _, others in policy.branches:
        if step <= last or (inside is not None and not any(low <= step < high for low, high in inside)):
            continue
        if points is None:
            children.extend(prefix + ((step, thread),) for thread in others)
        elif step in points:
            children.extend(prefix + ((step, thread),) for thread in others if thread in points[step])
    return outcome, policy, children, dev


def _step_ranges(runs, launches: frozenset[int]) -> list[tuple[int, int]]:
    """The global steps of each launch numbered in ``launches``: ``[(first, past the last), ...]``."""
    ranges, start = [], 0
    for number, run in enumerate(runs):
        if number in launches:
            ranges.append((start, start + run.steps))
        start += run.steps
    return ranges


def conflict_points(runs) -> dict[int, set[int]]:
    """Where a preemption can matter: step (across launches) -> the threads worth switching to there.

    The event at the step accesses an element that another thread also accesses in these runs, one
    of the two accesses a write; the threads returned are those other threads (as global thread
    numbers), the ones whose access could be moved before this one.
    """
    accesses: dict[tuple[int, str, int], list[tuple[int, int, bool]]] = {}
    offset = 0
    for launch, run in enumerate(runs):
        for event in run.trace:
            if event.array:
                thread = event.block * run.block + event.thread
                accesses.setdefault((launch, event.array, event.index), []).append(
                    (event.step + offset, thread, event.op != "load"))
        offset += run.steps
    points: dict[int, set[int]] = {}
    for found in accesses.values():
        writers = {thread for _, thread, writes in found if writes}
        if not writers:
            continue
        everyone = {thread for _, thread, _ in found}
        for step, thread, writes in found:
            targets = (everyone if writes else writers) - {thread}
            if targets:
                points.setdefault(step, set()).update(targets)
    return points


# -- Hypothesis ------------------------------------------------------------------------------------


def _hypothesis(scenario: Scenario, budget: int, seed: int, max_preemptions: int,
                tick: Callable[[int], None], start: float, coverage: Coverage,
                shrink_time: float | None) -> Exploration:
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample

    from gpusim.testing.strategies import schedules

    _, dev = scenario.execute(policy="sequential", trace=False)
    total_steps = max(1, sum(run.steps for run in dev.runs))
    strategy = schedules(max_preemptions=max(1, max_preemptions), max_step=total_steps,
                         max_threads=max(1, scenario.threads), pct=False)
    calls, first = [0], [0]
    kind: list[str] = []

    def fails(policy: Policy) -> bool:
        calls[0] += 1
        if not first[0]:
            tick(calls[0])
        outcome, dev = scenario.execute(policy=policy, trace=False)
        if not first[0]:
            coverage.add(dev, scenario.name)
        if outcome is None or (kind and outcome.kind != kind[0]):
            return False
        if not first[0]:
            first[0] = calls[0]
            kind.append(outcome.kind)
        return True

    config = settings(max_examples=budget, database=None, deadline=None, suppress_health_check=list(HealthCheck),
                      phases=[Phase.generate, Phase.shrink])
    try:
        shrunk = find(strategy, fails, settings=config, random=random.Random(seed))
    except NoSuchExample:
        coverage.add_traced(scenario.execute(policy="sequential", trace=True)[1].runs)
        return Exploration(scenario.name, "hypothesis", calls[0], time.perf_counter() - start, coverage=coverage)
    outcome = scenario.attempt(policy=shrunk, trace=False)
    failure = _failure(scenario, outcome, repr(shrunk), first[0], False, shrink_time, coverage)
    coverage.add_traced(scenario.execute(policy="sequential", trace=True)[1].runs)
    return Exploration(scenario.name, "hypothesis", first[0], time.perf_counter() - start, failure,
                       coverage=coverage)


# -- shrinking and the report ----------------------------------------------------------------------------


def _failure(scenario: Scenario, outcome: Outcome, policy: str, index: int, shrink: bool,
             shrink_time: float | None = None, coverage: Coverage | None = None) -> Failure:
    original_token = outcome.device.token
    preemptions, forced = switches_of(outcome.device.runs)
    before = sum(run.preemptions for run in outcome.device.runs)
    shrinking = shrink
    began = time.perf_counter()
    deadline = None if shrink_time is None else began + shrink_time
    final, dev = None, None
    # The preemption list of the final run's policy (None: the original schedule's); its fair hand-overs to a spinning
    # thread, which any schedule makes, are not preemptions that matter, and are not counted.
    switched: list[tuple[int, int]] | None = None
    if shrink and scenario.attempt(policy=Switches(()), trace=False) is not None:
        # The schedule with no preemption fails already (a missing barrier's race, say, where the random schedule
        # met an uninitialised read first): the simplest counterexample there is, whatever its kind.
        final, dev = scenario.execute(policy=Switches(()), trace=True)
        shrink, switched = final is None, []
    if shrink:
        # A shallow bug first: the same failure within one preemption, by systematic search, in a third of the
        # time (a whole algorithm's run switches threads thousands of times, and delta debugging from there is slow).
        share = None if shrink_time is None else began + shrink_time / 3
        shallow, _, _ = _systematic(scenario, _SHRINK_BUDGET, 1, True, lambda done: None, kind=outcome.kind,
                                    deadline=share)
        if shallow is not None:
            final, dev = scenario.execute(policy=Switches(shallow[1].preemptions), trace=True)
            shrink, switched = final is None or final.kind != outcome.kind, list(shallow[1].preemptions)
            if shrink:
                final, switched = None, None
    if shrink and final is None and before > _MANY_PREEMPTIONS:
        # Fewest preemptions first: a PCT schedule of low depth switches threads a handful of times where a
        # random one of a whole algorithm switches thousands; if one fails the same way, delta debugging starts
        # from its switches.
        fewer = _few_preemptions(scenario, outcome.kind, before, began + (deadline - began) / 2
                                 if deadline is not None else None)
        if fewer is not None:
            preemptions, forced = switches_of(fewer.runs)
            outcome = outcome._replace(device=fewer)
    if shrink:
        def fails(kept: list[tuple[int, int]]) -> bool:
            if deadline is not None and time.perf_counter() > deadline:
                return False  # out of time: keep what was reached
            again = scenario.attempt(policy=Switches(kept, forced), trace=False)
            return again is not None and again.kind == outcome.kind

        if fails(preemptions):
            preemptions = ddmin(_by_launch(preemptions, outcome.device.runs, fails), fails)
            final, dev = scenario.execute(policy=Switches(preemptions, forced), trace=True)
            switched = list(preemptions)
            if final is not None and final.kind != outcome.kind:
                final, switched = None, None
        if final is None or len(switched) > 1:
            # Delta debugging is 1-minimal, not minimal: look for the same bug with fewer preemptions.
            # The reduced search first; its conflict heuristic can miss a bug (a lock stall, say), the full one not.
            # Inside the launches that delta debugging kept first: a whole algorithm's preemption points are mostly
            # in launches that do not matter, and the budget runs out before the search reaches the one that does.
            have = len(switched) if final is not None else SHRINK_BOUND + 1
            kept = frozenset(n for n, (low, high) in enumerate(_step_ranges(dev.runs, frozenset(range(len(dev.runs)))))
                             if any(low <= step < high for step, _ in switched)) if final is not None else None
            found = None
            plans = [(kept, True), (kept, False)] if kept and len(kept) < len(dev.runs) else []
            for launches, reduction in [*plans, (None, True), (None, False)]:
                if found is None and have > 0:
                    found, _, _ = _systematic(scenario, _SHRINK_BUDGET, min(have - 1, SHRINK_BOUND), reduction,
                                              lambda done: None, kind=outcome.kind, deadline=deadline,
                                              launches=launches)
            if found is not None:
                final, dev = scenario.execute(policy=Switches(found[1].preemptions), trace=True)
                switched = list(found[1].preemptions)
    if final is None:  # not reproduced by the switches alone (a fair hand-over differs): keep it as found
        final, dev = scenario.execute(schedule=original_token, trace=True)
        switched = None
    final = final or outcome
    shrunk = switched if switched is not None else switches_of(dev.runs)[0]
    after = len(shrunk)
    finished = deadline is None or time.perf_counter() <= deadline
    if coverage is not None:
        coverage.add_traced(dev.runs)
    return Failure(scenario=scenario.name, kind=final.kind, message=final.message, policy=policy,
                   schedule_index=index, token=dev.token, original_token=original_token, shrunk=shrunk,
                   preemptions=after, trace=trace_of(dev.runs),
                   shrink_report={"shrunk": bool(shrinking), "preemptions_before": before, "preemptions_after": after,
                                  "finished": finished, "seconds": round(time.perf_counter() - began, 3),
                                  "time_limit": shrink_time, "kind_before": outcome.kind})


def _few_preemptions(scenario: Scenario, kind: str, have: int, until: float | None, tries: int = 24):
    """The device of a run of a low-depth PCT schedule (depth 1 to 3: at most 2 priority changes) that fails with
    ``kind`` and fewer than ``have`` preemptions, the fewest found before ``until`` (or ``tries`` schedules)."""
    steps = max(1, _sequential_steps(scenario))
    best, fewest = None, have
    for attempt in range(tries):
        if until is not None and time.perf_counter() > until:
            break
        again, dev = scenario.execute(policy=PCT(seed=attempt, depth=1 + attempt % 3, steps=steps), trace=False)
        if again is not None and again.kind == kind:
            count = sum(run.preemptions for run in dev.runs)
            if count < fewest:
                best, fewest = dev, count
                if count <= 1:
                    break
    return best


def _by_launch(preemptions: list[tuple[int, int]], runs, fails: Callable[[list], bool]) -> list[tuple[int, int]]:
    """``preemptions`` without those of the launches that do not matter: delta debugging over the launches' groups
    of preemptions first (a whole algorithm's bug lives in one or two of its launches, found in a number of runs
    that grows with the logarithm of the launches, where trying each launch in turn takes one run a launch)."""
    every = _step_ranges(runs, frozenset(range(len(runs))))
    groups = [inside for low, high in every if (inside := [p for p in preemptions if low <= p[0] < high])]
    if len(groups) < 2:
        return list(preemptions)
    return [p for group in ddmin(groups, lambda chosen: fails([p for g in chosen for p in g])) for p in group]


def failure_of(scenario: Scenario, outcome: Outcome, policy: str, index: int, shrink: bool = True,
               shrink_time: float | None = 30.0) -> Failure:
    """The report of the failing run ``outcome`` (schedule ``index``, ``policy`` its description), shrunk as
    ``explore`` shrinks it: what a campaign reports for the first failure it found."""
    return _failure(scenario, outcome, policy, index, shrink, shrink_time)


class Replayed:
    """A replayed run: ``kind`` and ``message`` of its failure (``None`` if it passed), its ``trace`` and ``token``."""

    def __init__(self, scenario: str, outcome: Outcome | None, dev):
        self.scenario = scenario
        self.kind = outcome.kind if outcome else None
        self.message = outcome.message if outcome else None
        self.trace = trace_of(dev.runs)
        self.token = dev.token

    def __repr__(self) -> str:
        return f"Replayed({self.scenario!r}, kind={self.kind!r}, events={len(self.trace)})"


def replay(token: str, scenario: str | Scenario | None = None) -> Replayed:
    """Replay ``"scenario@gs1-..."`` (a :attr:`~gpusim.explore.report.Failure.replay_token`), or a ``gs1-`` token
    on ``scenario``.

    The schedule is followed exactly, with tracing on: the same trace as the failure's.  A token from an
    older version of gpusim replays where its kernels (and scenario) still exist, or moved unchanged
    (:mod:`gpusim.backends.sim.tokens`); else ``InvalidArgument`` says, in one line, that it comes from an
    older version.
    """
    if not isinstance(token, str):
        raise InvalidArgumentType(f"token must be a string, got {token!r}")
    if "@" in token:
        name, token = token.split("@", 1)
        if scenario is None:
            scenario = name
    if scenario is None:
        raise InvalidArgument(f"token {token[:16]!r}... names no scenario: pass scenario=..., or a "
                              f"'scenario@token' string as Failure.replay_token gives")
    if isinstance(scenario, str) and scenario not in scenario_names():
        try:
            made = read_token(token)
        except InvalidArgument as damaged:  # both parts are wrong: name the scenario, then the token
            raise InvalidArgument(f"the replay token names scenario {scenario!r}, which is not registered "
                                  f"(gpusim explore --list shows them), and {damaged}") from None
        if made.format < TOKEN_FORMAT:
            raise InvalidArgument(f"the replay token names scenario {scenario!r}, which this gpusim does not have: "
                                  f"it comes from {made.origin()}; find the failure again for a new token")
    scenario = get_scenario(scenario)
    outcome, dev = scenario.execute(schedule=token, trace=True)
    return Replayed(scenario.name, outcome, dev)
