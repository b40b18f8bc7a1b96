"""What an exploration exercised: kernels launched, interleavings run, racing pairs and data races reached.

"Nothing found" means little without it: an exploration that never launched the compaction kernel, or
never saw two threads touch one element, says nothing about the bugs there.  :class:`Coverage` gathers,
cheaply, from every explored run:

- the kernels launched (and, when the scenario names the kernels it could launch, those never launched);
- the distinct interleavings (schedules of thread switches) run;
- the data races the race detector reported (``races="report"``), each with the replay token of the
  first run that showed it — or that races were not checked (``races="off"``);
- the *racing pairs* of traced runs (the sequential run, and the failure): two source lines of two
  threads that access one element, at least one of them writing — the places a schedule can matter.

Branches are not measured (it would cost a line tracer on every simulated thread).

>>> from gpusim.explore import explore
>>> found = explore("lost_update.fixed", budget=5)
>>> sorted(found.coverage.kernels)
['count_atomic']
>>> found.coverage.races_checked
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["MEMORY_MODELS", "WARP_MODELS", "Coverage", "racing_pairs"]

#: The simulator's memory models (``Device("sim", memory=...)``) and warp models (``warps=...``).
MEMORY_MODELS = ("sc", "weak")
WARP_MODELS = ("independent", "lockstep")


def racing_pairs(runs) -> set[tuple[str, str, str, str]]:
    """``(kernel, array, line, line)`` for each pair of accesses, by two threads, to one element of one launch,
    at least one a write (the two lines sorted; the same line twice when one line races with itself)."""
    pairs: set[tuple[str, str, str, str]] = set()
    for run in runs:
        by_element: dict[tuple[str, int], list[tuple[int, str, bool]]] = {}
        for event in run.trace:
            if event.array:
                thread = event.block * run.block + event.thread
                by_element.setdefault((event.array, event.index), []).append(
                    (thread, event.location, event.op != "load"))
        for (array, _), accesses in by_element.items():
            writes = [(t, at) for t, at, w in accesses if w]
            if not writes:
                continue
            sites = {(t, at) for t, at, _ in accesses}
            for writer, wrote in set(writes):
                for thread, at in sites:
                    if thread != writer:
                        first, second = sorted((wrote, at))
                        pairs.add((run.kernel, array, first, second))
    return pairs


class Coverage:
    """Kernels, interleavings, data races and racing pairs reached by an exploration (see the module notes).

    ``expected`` names the kernels the scenario can launch (an algorithm's kernels), so that the note can
    say which were never launched; ``races_checked`` is ``False`` when no run had the race detector on.
    """

    def __init__(self, expected: Iterable[str] = (), races_checked: bool = True):
        self.expected = tuple(expected)
        self.races_checked = races_checked
        self.kernels: dict[str, int] = {}
        self.interleavings: set[int] = set()
        self.races: dict[tuple, dict[str, str]] = {}
        self.pairs: set[tuple[str, str, str, str]] = set()
        self.models: set[tuple[str, str]] = set()
        self.hints: dict[str, str] = {}  # a kernel never launched -> the option (or input) that launches it

    def add(self, dev: Any, scenario: str) -> None:
        """Count one explored run (its device's ``runs``) and the memory and warp model it ran under."""
        engine = getattr(dev, "_impl", dev)
        self.models.add((getattr(engine, "memory", "sc"), getattr(engine, "warps", "independent")))
        for run in dev.runs:
            name = run.kernel.rsplit(".", 1)[-1]
            self.kernels[name] = self.kernels.get(name, 0) + 1
            for race in getattr(run, "races", None) or ():
                key = (race.kind, race.memory, race.array, race.first[2], race.second[2])
                if key not in self.races:
                    self.races[key] = {"race": str(race), "kernel": name, "replay": f"{scenario}@{dev.token}"}
        self.interleavings.add(hash(tuple(tuple(run.schedule) for run in dev.runs)))

    def add_traced(self, runs) -> None:
        """Add the racing pairs of traced runs."""
        self.pairs |= racing_pairs(runs)

    def merge(self, other: Coverage) -> None:
        """Add what ``other`` (another input's exploration) reached."""
        for name, count in other.kernels.items():
            self.kernels[name] = self.kernels.get(name, 0) + count
        self.interleavings |= other.interleavings
        for key, found in other.races.items():
            self.races.setdefault(key, found)
        self.pairs |= other.pairs
        self.models |= other.models
        self.hints = {**other.hints, **self.hints}
        self.races_checked = self.races_checked and other.races_checked
        self.expected = self.expected or other.expected

    @property
    def missed(self) -> list[str]:
        """The expected kernels never launched."""
        return [name for name in self.expected if name not in self.kernels]

    def to_dict(self) -> dict[str, Any]:
        return {"kernels": dict(self.kernels), "not_launched": self.missed,
                "interleavings": len(self.interleavings), "races_checked": self.races_checked,
                "races": list(self.races.values()), "racing_pairs": [list(p) for p in sorted(self.pairs)],
                "branches": None, "models": [list(m) for m in sorted(self.models)],
                "models_not_explored": [list(m) for m in self.unexplored_models]}

    @property
    def unexplored_models(self) -> list[tuple[str, str]]:
        """The (memory, warps) models of the simulator no run was explored under."""
        return [(memory, warps) for memory in MEMORY_MODELS for warps in WARP_MODELS
                if (memory, warps) not in self.models]

    def model_note(self) -> str:
        """One line: the memory and warp models explored, and the options that would explore the others."""
        explored = ", ".join(f"{memory}/{warps}" for memory, warps in sorted(self.models)) or "none"
        missing = self.unexplored_models
        if not missing:
            return f"  memory/warp models explored: {explored} (every one)"
        options = []
        if not any(memory == "weak" for memory, _ in self.models):
            options.append("--memory weak (fences)")
        if not any(warps == "lockstep" for _, warps in self.models):
            options.append("--warps lockstep (intra-warp spins)")
        return (f"  memory/warp models explored: {explored}; not explored: "
                f"{', '.join(f'{m}/{w}' for m, w in missing)} ({', '.join(options) or 'each alone'}; "
                f"--models all explores every one)")

    def note(self) -> str:
        """A few lines: what was exercised, and what was not."""
        launched = ", ".join(f"{name} x{count}" for name, count in sorted(self.kernels.items())) or "none"
        lines = [f"coverage: {len(self.interleavings)} distinct interleaving(s); kernels launched: {launched}"]
        if self.missed:
            lines.append("  never launched: " + ", ".join(
                f"{name} ({self.hints[name]})" if self.hints.get(name) else name for name in self.missed))
            if any(self.hints.get(name) for name in self.missed):
                lines.append("  (--all-paths hunts every launch path of the algorithm)")
        lines.append(f"  racing pairs (two threads, one element, a write) in traced runs: {len(self.pairs)}"
                     + (f" in {', '.join(sorted({p[1] for p in self.pairs}))}" if self.pairs else ""))
        if not self.races_checked:
            lines.append("  data races: not checked (races='off'; --races report or raise checks them)")
        elif self.races:
            lines.append(f"  data races reported: {len(self.races)}")
            lines += [f"    {found['race']}\n      replay: {found['replay']}" for found in self.races.values()]
        else:
            lines.append("  data races reported: none (declared intended races excepted)")
        lines.append(self.model_note())
        lines.append("  branches: not measured")
        return "\n".join(lines)
