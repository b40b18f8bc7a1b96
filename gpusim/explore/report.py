"""What the explorer hands back: the failure (token, shrunk schedule, trace) and readable views of it.

:func:`interleaving` picks from a trace the events that matter — accesses to the array elements
that two threads touched with at least one write, plus barriers and warp collectives when the bug is
about those — and :meth:`Failure.table` lays them out as a table (thread, operation,
array[index], value, source line).  :meth:`Failure.picture` draws the same run as swimlanes, one
lane per thread, the events that matter circled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpusim.backends.sim import TraceEvent, format_events
from gpusim.language import MEETINGS

__all__ = ["Exploration", "Failure", "interleaving", "trace_of"]

_SYNC_OPS = (*MEETINGS, "threadfence")


def trace_of(runs) -> list[TraceEvent]:
    """The events of every launch in order, with steps counted across launches (as schedules count them)."""
    events, offset = [], 0
    for run in runs:
        events.extend(event._replace(step=event.step + offset) for event in run.trace)
        offset += run.steps
    return events


def interleaving(events: list[TraceEvent], limit: int = 24) -> list[TraceEvent]:
    """The events that matter: accesses to elements shared by two threads with a write among them.

    When there are none (a barrier or collective bug), the barriers and collectives instead; the
    last ``limit`` of them, which end where the failure happened.
    """
    touched: dict[tuple[str, int], set] = {}
    written: set[tuple[str, int]] = set()
    for event in events:
        if event.array:
            key = (event.array, event.index)
            touched.setdefault(key, set()).add((event.block, event.thread))
            if event.op != "load":
                written.add(key)
    shared = {key for key in written if len(touched[key]) > 1}
    chosen = [e for e in events if e.array and (e.array, e.index) in shared]
    if not chosen:
        chosen = [e for e in events if e.op in _SYNC_OPS]
    return chosen[-limit:] if limit is not None else chosen


@dataclass
class Failure:
    """The first failure an exploration found, shrunk and replayed with its trace.

    Attributes
    ----------
    scenario:
        The scenario's name.
    kind, message:
        ``"invariant"`` or the ``KernelBug`` class (``"Deadlock"``, ``"Livelock"``, ...), and what it said.
    policy:
        The policy of the failing schedule (e.g. ``RandomWalk(seed=12)``, ``PCT(...)``).
    schedule_index:
        Which schedule of the exploration failed (1 = the first).
    token:
        Replay token of the *shrunk* counterexample: ``replay(f"{scenario}@{token}")`` or
        ``Device("sim", schedule=token)`` with the scenario's launches reproduces it, trace and all.
    original_token:
        Replay token of the schedule as first found.
    shrunk:
        The shrunk schedule: ``(step, thread)`` preemptions, steps counted across launches; ``Switches(shrunk)``
        replays the failure.  The fair hand-overs that any schedule makes to a thread that has long only read (a
        spinner, as a GPU's scheduler would) happen again on their own and are not listed.
    preemptions:
        Preemptions in the shrunk counterexample: ``len(shrunk)``.
    trace:
        Every event of the shrunk counterexample (traced replay).
    probability_bound:
        For PCT, the guaranteed chance of one run finding a bug of the targeted depth.
    shrink_report:
        How far shrinking got: ``preemptions_before``, ``preemptions_after``, ``finished`` (``False``
        when the time limit stopped it), ``seconds``, ``time_limit``.
    """

    scenario: str
    kind: str
    message: str
    policy: str
    schedule_index: int
    token: str
    original_token: str
    shrunk: list[tuple[int, int]]
    preemptions: int
    trace: list[TraceEvent] = field(repr=False, default_factory=list)
    probability_bound: float | None = None
    shrink_report: dict[str, Any] = field(default_factory=dict)

    @property
    def replay_token(self) -> str:
        """``scenario@token``: what ``gpusim explore --replay`` and :func:`gpusim.explore.replay` take."""
        return f"{self.scenario}@{self.token}"

    def interleaving(self, limit: int = 24) -> list[TraceEvent]:
        """The events that matter: those of the fault the failure names (:func:`gpusim.explore.fault.fault_events`:
        the racing pair, the barrier and the thread that left, the stale load and the store it missed), else
        :func:`interleaving`'s."""
        from gpusim.explore.fault import fault_events

        return fault_events(self.trace, self.kind, self.message) or interleaving(self.trace, limit)

    def table(self, limit: int = 24) -> str:
        """The interleaving that matters as a table: step, thread, operation, array[index], value, line."""
        return format_events(self.interleaving(limit), None)

    def picture(self, path: str, limit: int = 8) -> str:
        """Swimlanes of the counterexample (PNG or SVG by ``path``'s suffix), the events that matter circled."""
        from gpusim.teaching.plots import swimlanes

        return swimlanes(self.trace, path, highlight=self.interleaving(limit),
                         title=f"{self.scenario}: {self.kind} with {self.preemptions} preemption(s)")

    def report(self) -> str:
        """The whole failure as text: what, where, how to replay, and the interleaving."""
        lines = [f"{self.scenario}: {self.kind} after {self.schedule_index} schedule(s) ({self.policy})",
                 self.message.rstrip(),
                 f"shrunk to {self.preemptions} preemption(s): {_listed(self.shrunk)}"]
        done = self.shrink_report
        if done.get("shrunk"):
            lines.append(f"shrinking: {done['preemptions_before']} -> {done['preemptions_after']} preemption(s) in "
                         f"{done['seconds']:.1f} s" + ("" if done["finished"] else
                                                      f", stopped at the {done['time_limit']} s limit"))
        if self.probability_bound is not None:
            lines.append(f"PCT guarantee: one run finds a bug of this depth with probability >= "
                         f"{self.probability_bound:.3g}")
        from gpusim.explore.fault import fault_note

        note = fault_note(self.trace, self.kind, self.message)
        lines += [note] if note else []
        lines += ["", "the interleaving that matters:", self.table(),
                  "", f"replay: gpusim explore --replay {self.replay_token}"]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (the trace as the table's events)."""
        return {"scenario": self.scenario, "kind": self.kind, "message": self.message, "policy": self.policy,
                "schedule_index": self.schedule_index, "token": self.token, "replay": self.replay_token,
                "original_token": self.original_token, "shrunk": [list(p) for p in self.shrunk],
                "preemptions": self.preemptions, "probability_bound": self.probability_bound,
                "shrink": dict(self.shrink_report),
                "interleaving": [e._asdict() for e in self.interleaving()]}


@dataclass
class Exploration:
    """The result of :func:`gpusim.explore.explore`: the failure (or ``None``), what it cost, what it exercised.

    ``exhausted`` is ``True`` when a systematic search tried every schedule within its bound of
    ``bound`` preemptions — not a proof beyond that bound (:attr:`verdict` says so); ``coverage`` is
    the :class:`~gpusim.explore.coverage.Coverage` of the runs.
    """

    scenario: str
    policy: str
    schedules: int
    seconds: float
    failure: Failure | None = None
    probability_bound: float | None = None
    exhausted: bool = False  # systematic search: every schedule within the bound was tried
    bound: int | None = None  # systematic search: the preemption bound
    coverage: Any = None
    inputs: int | None = None  # a hunt on random inputs: how many inputs were tried
    reduction: bool = False  # systematic search: preemptions only before conflicting accesses

    @property
    def found(self) -> bool:
        return self.failure is not None

    @property
    def verdict(self) -> str:
        """One line: what was found, or how far the search went (a bound, never a bare "exhausted")."""
        if self.failure is not None:
            inputs = f" over {self.inputs} random input(s)" if self.inputs is not None else ""
            return f"{self.failure.kind} found after {self.schedules} schedule(s) of {self.policy}{inputs}"
        text = f"no failure in {self.schedules} schedule(s) of {self.policy}"
        if self.inputs is not None:
            text += f" over {self.inputs} random input(s)"
        if self.exhausted:
            where = ", preempting only before conflicting accesses" if self.reduction else ""
            text += f" (exhausted within {self.bound} preemption(s){where}; more preemptions were not tried)"
        elif self.bound is not None:
            text += f" (not exhausted within {self.bound} preemption(s): the budget ran out)"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "policy": self.policy, "found": self.found, "schedules": self.schedules,
                "seconds": self.seconds, "probability_bound": self.probability_bound, "exhausted": self.exhausted,
                "bound": self.bound, "verdict": self.verdict, "inputs": self.inputs,
                "preemptions": self.failure.preemptions if self.failure else None,
                "failure": self.failure.to_dict() if self.failure else None,
                "coverage": self.coverage.to_dict() if self.coverage is not None else None}


#: The most preemptions a report lists; the replay token holds them all.
LISTED_PREEMPTIONS = 12


def _listed(preemptions: list) -> str:
    """The shrunk preemptions as a report shows them: all of a short list, else the first few and a count
    (a whole algorithm's unshrunk schedule switches threads thousands of times).

    >>> _listed([(1, 2), (5, 0)])
    '[(1, 2), (5, 0)]'
    >>> _listed([(k, 0) for k in range(40)])
    '[(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), ... and 34 more, all in the replay token]'
    """
    if len(preemptions) <= LISTED_PREEMPTIONS:
        return str(list(preemptions))
    shown = ", ".join(str(p) for p in preemptions[:LISTED_PREEMPTIONS // 2])
    return f"[{shown}, ... and {len(preemptions) - LISTED_PREEMPTIONS // 2} more, all in the replay token]"
