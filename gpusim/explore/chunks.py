"""What one worker of a campaign runs: a chunk of schedules, and the report of the failure to show.

A campaign (:mod:`gpusim.explore.campaign`) splits ``explore``'s sequence of schedules into chunks:
seed ranges for random and PCT schedules (schedule ``i`` is the policy :func:`~gpusim.explore.explore`
runs as its schedule ``i``), slices of one preemption level's frontier for the systematic search (each
schedule run as the single-process search runs it, its children handed back in search order).  A chunk
stops at its first failure and hands back only verdicts: how many schedules ran, the failures (index,
kind, message, and the replay token of the schedule as found) and a fingerprint of each interleaving
taken (the campaign counts the distinct ones).  :func:`failure_report` then shrinks the first failure
exactly as ``explore`` does, so the answer is the single process's whatever the number of workers.

Every function here is a pure function of its arguments: a worker that dies mid-chunk loses nothing, the
chunk runs again elsewhere with the same result.

>>> done = run_schedules("lost_update", "random", 0, 10)
>>> done.run, done.failures[0].index, done.failures[0].kind
(1, 1, 'invariant')
>>> run_schedules("lost_update.fixed", "random", 0, 10).failures
[]
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from gpusim.errors import GpusimInternalError

from .report import Failure
from .scenario import Scenario, get_scenario
from .search import engine_of, failure_of, schedule_policies, systematic_step, with_races

__all__ = ["Chunk", "Found", "failure_report", "fingerprint", "run_prefixes", "run_schedules"]

Prefix = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Found:
    """A failing schedule as a chunk found it: its index in ``explore``'s order (1 = the first), the
    failure's kind and message, the policy, the replay token of the schedule as found (not shrunk) and,
    for the systematic search, its preemptions."""

    index: int
    kind: str
    message: str
    policy: str
    replay: str
    prefix: Prefix | None = None

    def to_dict(self) -> dict[str, Any]:
        found = asdict(self)
        found["prefix"] = None if self.prefix is None else [list(pair) for pair in self.prefix]
        return found

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Found:
        prefix = data.get("prefix")
        return cls(data["index"], data["kind"], data["message"], data["policy"], data["replay"],
                   None if prefix is None else as_prefix(prefix))


@dataclass
class Chunk:
    """What a chunk sends back: positions ``first`` to ``stop - 1`` of preemption level ``level`` ran
    (``run`` schedules; a chunk stops after its first failure), in ``seconds``; the failures, the
    fingerprints of the distinct interleavings taken and, for the systematic search, the children in search order."""

    level: int
    first: int
    stop: int
    seconds: float
    failures: list[Found] = field(default_factory=list)
    coverage: list[str] = field(default_factory=list)
    children: list[Prefix] = field(default_factory=list)

    @property
    def run(self) -> int:
        return self.stop - self.first

    def to_dict(self) -> dict[str, Any]:
        return {"record": "chunk", "level": self.level, "first": self.first, "stop": self.stop, "run": self.run,
                "seconds": round(self.seconds, 6), "failures": [found.to_dict() for found in self.failures],
                "coverage": self.coverage, "children": [[list(pair) for pair in child] for child in self.children]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Chunk:
        return cls(data["level"], data["first"], data["stop"], data.get("seconds", 0.0),
                   [Found.from_dict(found) for found in data.get("failures", [])], list(data.get("coverage", [])),
                   [as_prefix(child) for child in data.get("children", [])])


def as_prefix(pairs) -> Prefix:
    """A systematic schedule's preemptions as a tuple of ``(step, thread)`` tuples (JSON gives lists)."""
    return tuple((int(step), int(thread)) for step, thread in pairs)


def fingerprint(runs) -> str:
    """16 hex digits naming the interleaving of ``runs``: each launch's kernel, steps and thread switches."""
    text = repr([(run.kernel, run.steps, list(run.schedule)) for run in runs])
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def _cover(done: Chunk, seen: set[str], runs) -> None:
    """Add the interleaving of ``runs`` to the chunk's distinct ones."""
    taken = fingerprint(runs)
    if taken not in seen:
        seen.add(taken)
        done.coverage.append(taken)


def _explored(scenario: str | Scenario, races: str | None, engine: str) -> Scenario:
    """``scenario`` as ``explore`` runs it: the race detector's mode set (``report`` unless told)."""
    return with_races(get_scenario(scenario), races, engine)[0]


def run_schedules(scenario: str | Scenario, policy: str, first: int, stop: int, seed: int = 0, depth: int = 2,
                  engine: str = "reference", keep_going: bool = False, races: str | None = None) -> Chunk:
    """Run schedules ``first`` to ``stop - 1`` (from 0) of ``explore(scenario, policy, seed=seed, races=races)``'s
    random or PCT sequence, each as ``explore`` runs it; stop after the first failure unless ``keep_going``."""
    scenario = _explored(scenario, races, engine)
    start, done, seen = time.perf_counter(), Chunk(0, first, first, 0.0), set()
    for position, candidate in enumerate(schedule_policies(scenario, policy, first, stop, seed, depth), start=first):
        outcome, dev = scenario.execute(policy=candidate, trace=False, **engine_of(policy, engine))
        done.stop = position + 1
        _cover(done, seen, dev.runs)
        if outcome is not None:
            done.failures.append(Found(position + 1, outcome.kind, outcome.message, repr(candidate),
                                       f"{scenario.name}@{dev.token}"))
            if not keep_going:
                break
    done.seconds = time.perf_counter() - start
    return done


def run_prefixes(scenario: str | Scenario, level: int, first: int, prefixes: list[Prefix], offset: int,
                 reduction: bool = True, extend: bool = True, keep_going: bool = False,
                 races: str | None = None) -> Chunk:
    """Run positions ``first``, ``first + 1``, ... of a systematic search's level ``level`` (its schedules
    ``prefixes``; ``offset`` schedules ran in the levels before); their children when ``extend``."""
    scenario = _explored(scenario, races, "reference")
    start, done, seen = time.perf_counter(), Chunk(level, first, first, 0.0), set()
    for position, prefix in enumerate(prefixes, start=first):
        outcome, policy, children, dev = systematic_step(scenario, as_prefix(prefix), reduction, extend)
        done.stop = position + 1
        _cover(done, seen, dev.runs)
        done.children.extend(children)
        if outcome is not None:
            done.failures.append(Found(offset + position + 1, outcome.kind, outcome.message, repr(policy),
                                       f"{scenario.name}@{dev.token}", as_prefix(prefix)))
            if not keep_going:
                break
    done.seconds = time.perf_counter() - start
    return done


def failure_report(scenario: str | Scenario, policy: str, found: Found, seed: int = 0, depth: int = 2,
                   engine: str = "reference", reduction: bool = True, shrink: bool = True, races: str | None = None,
                   shrink_time: float | None = 30.0) -> Failure:
    """Run ``found``'s schedule again and report it, shrunk, as ``explore`` reports its first failure."""
    scenario = _explored(scenario, races, engine)
    if policy == "systematic":
        outcome, candidate, _, _ = systematic_step(scenario, found.prefix or (), reduction, extend=False)
    else:
        candidate = next(schedule_policies(scenario, policy, found.index - 1, found.index, seed, depth))
        outcome = scenario.attempt(policy=candidate, trace=False, **engine_of(policy, engine))
    if outcome is None:
        raise GpusimInternalError(f"{scenario.name}: schedule {found.index} ({found.policy}) failed in its chunk "
                                  f"and passed when run again; the scenario is not deterministic")
    return failure_of(scenario, outcome, repr(candidate), found.index, shrink, shrink_time)
