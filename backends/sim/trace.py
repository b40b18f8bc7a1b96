"""Traces and runs.

A run's *schedule* is the list of ``(step, thread)`` switches its policy made; it is all that
is needed to replay the run exactly, and a *replay token* is that schedule (plus the kernel's
name, fingerprint and launch shape, to catch a token replayed on the wrong launch) compressed into
one printable string (:mod:`~gpusim.backends.sim.tokens`).  The *trace* is the readable record: one
:class:`TraceEvent` per scheduling point, with the thread, the operation, the array and index, the
value, and the source line.

>>> run = Run("demo.count", grid=1, block=2, policy="Sequential()", schedule=[0, 0, 3, 1])
>>> run.token.startswith("gs1-")
True
>>> run.token_entry()["schedule"]
[0, 0, 3, 1]
"""

from __future__ import annotations

from typing import NamedTuple

from .tokens import encode_token, kernel_fingerprint

__all__ = ["Run", "TraceEvent", "events_from_raw", "format_events"]


class TraceEvent(NamedTuple):
    """One scheduling point: thread ``(block, thread)`` did ``op`` on ``array[index]``."""

    step: int
    block: int
    thread: int
    op: str
    array: str
    index: int
    value: object
    location: str  # "file.py:line"

    def __str__(self) -> str:
        target = f"{self.array}[{self.index}]" if self.array else ""
        who = f"({self.block},{self.thread})"
        return f"{self.step:>6}  {who:<7}  {self.op:<12} {target:<14} {_value(self.value):<14} {self.location}"


def _value(value: object) -> str:
    if isinstance(value, tuple) and len(value) == 2:
        return f"{value[0]!r}->{value[1]!r}"
    return "" if value is None else repr(value)


def format_events(events: list[TraceEvent], limit: int | None = 40) -> str:
    """Render events as a table (the last ``limit`` of them; ``None`` for all)."""
    header = f"{'step':>6}  {'thread':<7}  {'operation':<12} {'where':<14} {'value':<14} line"
    shown = events if limit is None or len(events) <= limit else events[-limit:]
    lines = [header]
    if len(shown) < len(events):
        lines.append(f"   ... {len(events) - len(shown)} earlier events omitted")
    lines.extend(str(event) for event in shown)
    return "\n".join(lines)


class Run:
    """What one simulated launch did (returned by ``Device("sim").launch``).

    Attributes
    ----------
    kernel, grid, block:
        What was launched.
    policy:
        The policy's description, e.g. ``RandomWalk(seed=7)``.
    steps:
        Scheduling points executed.
    preemptions:
        Switches away from a thread that could have gone on.
    schedule:
        The flat ``[step, thread, step, thread, ...]`` list of switches (what replay follows);
        a forced hand-over (the running thread blocked or finished) is logged as ``-thread - 1``.
    trace:
        One :class:`TraceEvent` per scheduling point (empty when tracing was off).
    token:
        The replay token of this launch alone.
    fn:
        The kernel's Python function (its fingerprint goes into the token), or ``None``.
    probability_bound:
        For PCT, the guaranteed chance of finding a bug of the targeted depth in one run.
    memory, warps, races_mode:
        The simulator's modes for this launch (``"sc"``/``"weak"``, ``"independent"``/``"lockstep"``,
        ``"off"``/``"report"``/``"raise"``); the replay token keeps them.
    races:
        With ``races="report"``: the :class:`~gpusim.backends.sim.races.RaceReport` of every race
        found, one per (array, lines, hazard kind).
    """

    def __init__(self, kernel: str, grid: int, block: int, policy: str, steps: int = 0, preemptions: int = 0,
                 schedule: list[int] | None = None, raw_events: list[tuple] | None = None,
                 probability_bound: float | None = None, memory: str = "sc", warps: str = "independent",
                 races_mode: str = "off", memory_seed: str = "0", fn=None):
        self.kernel = kernel
        self.grid = grid
        self.block = block
        self.policy = policy
        self.steps = steps
        self.preemptions = preemptions
        self.schedule = schedule if schedule is not None else []
        self.probability_bound = probability_bound
        self._raw_events = raw_events or []
        self.memory, self.warps, self.races_mode, self.memory_seed = memory, warps, races_mode, memory_seed
        self.fn = fn
        self.races: list = []
        self._trace: list[TraceEvent] | None = None

    def __repr__(self) -> str:
        bound = "" if self.probability_bound is None else f", probability_bound={self.probability_bound:.3g}"
        return (f"Run(kernel={self.kernel!r}, grid={self.grid}, block={self.block}, policy={self.policy}, "
                f"steps={self.steps}, preemptions={self.preemptions}{bound})")

    @property
    def trace(self) -> list[TraceEvent]:
        if self._trace is None:
            self._trace = events_from_raw(self._raw_events, self.block)
        return self._trace

    @property
    def token(self) -> str:
        return encode_token([self.token_entry()])

    def token_entry(self) -> dict:
        entry = {"kernel": self.kernel, "grid": self.grid, "block": self.block, "schedule": self.schedule}
        fingerprint = kernel_fingerprint(self.fn) if self.fn is not None else None
        if fingerprint is not None:
            entry["source"] = fingerprint
        if self.memory != "sc":
            entry["memory"] = self.memory
            entry["memory_seed"] = self.memory_seed
        if self.warps != "independent":
            entry["warps"] = self.warps
        if self.races_mode == "raise":  # reporting changes no schedule: a token replays alike with it or without
            entry["races"] = self.races_mode
        return entry

    def format_trace(self, limit: int | None = 40) -> str:
        """The trace as a table: step, thread, operation, array[index], value, source line."""
        return format_events(self.trace, limit)


def events_from_raw(raw: list[tuple], block: int) -> list[TraceEvent]:
    """Turn the simulator's compact records ``(step, thread, op, array, index, value, code, line)`` into events."""
    events = []
    for step, thread, op, array, index, value, code, line in raw:
        b, t = divmod(thread, block)
        events.append(TraceEvent(step, b, t, op, array, index, value, f"{code.co_filename.rsplit('/', 1)[-1]}:{line}"))
    return events
