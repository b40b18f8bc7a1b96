"""Scheduling policies: who performs the next scheduling point.

A policy is a small object (the shuttle ``Scheduler`` protocol, adapted): the simulator calls
:meth:`Policy.start` before each launch and :meth:`Policy.choose` when a decision is due; the
policy answers with the thread to run and the step at which it next wants to be asked, so a
policy that rarely switches (sequential, PCT, preemption lists) costs almost nothing per step.
Every choice comes from the policy's own ``random.Random`` seeded from ``seed`` and the launch
number; nothing reads global randomness or the clock, so the same seed gives the same run.

>>> from gpusim.backends.sim.policies import make_policy
>>> make_policy("pct", seed=3)
PCT(seed=3, depth=3, steps=None)
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Sequence

from gpusim.errors import InvalidArgument, InvalidArgumentType, ReplayMismatch
from gpusim.types.arguments import check_seed

__all__ = [
    "NEVER",
    "PCT",
    "POLICIES",
    "Policy",
    "Preemptions",
    "RandomWalk",
    "Replay",
    "RoundRobin",
    "Sequential",
    "make_policy",
]

#: A step number no run reaches: "do not ask me again".
NEVER = 1 << 62


class Policy:
    """Base class.  ``rotates_spinners``: may the simulator rotate threads that spin without
    progress (policies that rarely switch need it, or a spin-wait on another thread never ends)."""

    rotates_spinners = True

    def start(self, launch: int, n_threads: int, step_offset: int) -> None:
        """A new launch of ``n_threads`` threads begins; its steps are numbered from 0."""

    def finish(self, launch: int, steps: int) -> None:
        """Launch number ``launch`` ended after ``steps`` scheduling points."""

    def choose(self, step: int, current: int, sim) -> tuple[int, int]:  # pragma: no cover - abstract
        """Return ``(thread, next_step)``: who performs step ``step``, and when to ask again.

        ``current`` is the running thread, or -1 when it cannot go on (blocked or finished).
        ``sim`` offers ``runnable`` (a list), ``is_runnable(i)``, ``first_runnable(start)`` and
        ``next_runnable(after)``.
        """
        raise NotImplementedError

    def probability_bound(self, n_threads: int, steps: int) -> float | None:
        """A lower bound on the chance that one run finds a bug of depth ``d`` (PCT only)."""
        return None


class Sequential(Policy):
    """Each thread runs until it blocks or finishes; then the lowest-numbered runnable thread.

    No preemptions at all: the baseline that shows what a kernel does with no interleaving.
    """

    def choose(self, step, current, sim):
        if current >= 0:
            return current, NEVER
        return sim.first_runnable(0), NEVER

    def __repr__(self) -> str:
        return "Sequential()"


class RoundRobin(Policy):
    """Rotate to the next runnable thread at every scheduling point (maximal interleaving)."""

    rotates_spinners = False

    def choose(self, step, current, sim):
        return sim.next_runnable(current), step + 1

    def __repr__(self) -> str:
        return "RoundRobin()"


class RandomWalk(Policy):
    """At every scheduling point, run a uniformly random runnable thread."""

    rotates_spinners = False

    def __init__(self, seed: int = 0):
        self.seed = check_seed(seed)
        self.rng = random.Random(seed)

    def start(self, launch, n_threads, step_offset):
        self.rng = random.Random(f"{self.seed}:{launch}")

    def choose(self, step, current, sim):
        runnable = sim.runnable
        return runnable[int(self.rng.random() * len(runnable))], step + 1

    def __repr__(self) -> str:
        return f"RandomWalk(seed={self.seed})"


class PCT(Policy):
    """Probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte, ASPLOS 2010).

    Threads get random distinct priorities; the highest-priority runnable thread runs; at
    ``depth - 1`` random steps in ``[1, steps]`` the running thread drops below every other.
    One run finds any bug of depth ``d ≤ depth`` with probability at least
    ``1 / (n · k^(d-1))`` for ``n`` threads and ``k = steps`` (see :meth:`probability_bound`).

    Parameters
    ----------
    seed:
        Seeds the priorities and change points (mixed with the launch number).
    depth:
        The bug depth ``d`` to target (``d - 1`` priority changes).
    steps:
        ``k``, an upper estimate of the steps of one launch.  ``None``: the steps this policy
        saw the same launch take before, else ``8 × threads`` (a guess; the run reports the
        bound for the ``k`` used).
    """

    def __init__(self, seed: int = 0, depth: int = 3, steps: int | None = None):
        self.seed = check_seed(seed)
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise InvalidArgument(f"depth must be an integer >= 1, got depth={depth!r}")
        if steps is not None and (isinstance(steps, bool) or not isinstance(steps, int) or steps < 1):
            raise InvalidArgument(f"steps must be None or an integer >= 1, got steps={steps!r}")
        self.depth = depth
        self.steps = steps
        self.k = steps or 1
        self.observed: dict[int, int] = {}

    def start(self, launch, n_threads, step_offset):
        rng = random.Random(f"{self.seed}:{launch}")
        self.k = self.steps or self.observed.get(launch) or 8 * max(1, n_threads)
        order = list(range(n_threads))
        rng.shuffle(order)
        self.priority = [0] * n_threads
        for rank, thread in enumerate(order):
            self.priority[thread] = self.depth + rank
        points = sorted(rng.sample(range(1, self.k + 1), min(self.depth - 1, self.k)))
        self.change_points = points
        self.next_change = 0
        self.heap = [(-p, t) for t, p in enumerate(self.priority)]
        heapq.heapify(self.heap)

    def choose(self, step, current, sim):
        points = self.change_points
        while self.next_change < len(points) and points[self.next_change] <= step:
            if current >= 0 and points[self.next_change] == step:
                self.priority[current] = self.depth - 1 - self.next_change
                heapq.heappush(self.heap, (-self.priority[current], current))
            self.next_change += 1
        thread = self._highest_runnable(sim)
        following = points[self.next_change] if self.next_change < len(points) else NEVER
        return thread, following

    def _highest_runnable(self, sim) -> int:
        heap, parked = self.heap, []
        while True:
            negative, thread = heap[0]
            if -negative != self.priority[thread] or sim.is_finished(thread):
                heapq.heappop(heap)  # stale: its priority changed, or it finished
            elif sim.is_runnable(thread):
                break
            else:
                parked.append(heapq.heappop(heap))  # blocked: set aside, keep for later
        for entry in parked:
            heapq.heappush(heap, entry)
        return thread

    def finish(self, launch, steps):
        self.observed[launch] = max(1, steps)

    def probability_bound(self, n_threads: int, steps: int) -> float:
        return 1.0 / (max(1, n_threads) * self.k ** (self.depth - 1))

    def __repr__(self) -> str:
        return f"PCT(seed={self.seed}, depth={self.depth}, steps={self.steps})"


class Preemptions(Policy):
    """Sequential, except at the listed steps, where another runnable thread takes over.

    ``preemptions`` is a list of ``(step, choice)``: at global step ``step`` (counted across
    the device's launches), switch to the ``choice``-th (modulo) runnable thread other than the
    running one, in thread order.  Hypothesis draws these lists (``gpusim.testing.strategies.schedules``)
    and shrinks a failure to the fewest preemptions.
    """

    def __init__(self, preemptions: Sequence[tuple[int, int]] = ()):
        cleaned = []
        for entry in preemptions:
            if (not isinstance(entry, (tuple, list)) or len(entry) != 2
                    or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in entry)):
                raise InvalidArgument(f"each preemption must be a (step, choice) pair of integers >= 0, got {entry!r}")
            cleaned.append((int(entry[0]), int(entry[1])))
        self.preemptions = sorted(cleaned)
        self.offset = 0
        self.position = 0

    def start(self, launch, n_threads, step_offset):
        self.offset = step_offset
        self.position = 0
        while self.position < len(self.preemptions) and self.preemptions[self.position][0] < step_offset:
            self.position += 1

    def choose(self, step, current, sim):
        glob = step + self.offset
        thread = current if current >= 0 else sim.first_runnable(0)
        while self.position < len(self.preemptions) and self.preemptions[self.position][0] <= glob:
            at, choice = self.preemptions[self.position]
            self.position += 1
            if at == glob:
                others = [t for t in sim.runnable if t != thread]
                if others:
                    others.sort()
                    thread = others[choice % len(others)]
        following = (self.preemptions[self.position][0] - self.offset
                     if self.position < len(self.preemptions) else NEVER)
        return thread, following

    def __repr__(self) -> str:
        return f"Preemptions({self.preemptions!r})"


class Replay(Policy):
    """Follow a recorded schedule exactly (from a replay token)."""

    rotates_spinners = False

    def __init__(self, launches: list[dict]):
        self.launches = launches
        self.schedule: list[int] = []
        self.position = 0

    def start(self, launch, n_threads, step_offset):
        if launch >= len(self.launches):
            raise ReplayMismatch(
                f"the replay token holds {len(self.launches)} launch(es); this is launch {launch + 1}"
            )
        self.schedule = self.launches[launch]["schedule"]
        self.position = 0

    def choose(self, step, current, sim):
        schedule = self.schedule
        thread = current
        if self.position < len(schedule) and schedule[self.position] == step:
            logged = schedule[self.position + 1]
            if logged < 0:  # a forced hand-over: only when the running thread cannot go on
                if current < 0:
                    thread = -logged - 1
                    self.position += 2
            else:  # a preemption
                thread = logged
                self.position += 2
        if thread < 0 or not sim.is_runnable(thread):
            raise ReplayMismatch(
                f"the replay token does not fit this run: at step {step} it names thread {thread}, "
                f"which cannot run (were the inputs or the kernel changed?)"
            )
        following = schedule[self.position] if self.position < len(schedule) else NEVER
        return thread, following

    def __repr__(self) -> str:
        return f"Replay({len(self.launches)} launch(es))"


POLICIES = {
    "sequential": Sequential,
    "round_robin": RoundRobin,
    "random": RandomWalk,
    "pct": PCT,
}


def make_policy(policy: str | Policy, seed: int = 0) -> Policy:
    """Turn a policy name (``"sequential"``, ``"round_robin"``, ``"random"``, ``"pct"``) or object into a policy."""
    if isinstance(policy, Policy):
        return policy
    if not isinstance(policy, str):
        raise InvalidArgumentType(f"policy must be a name or a Policy object, got {policy!r}")
    if policy not in POLICIES:
        raise InvalidArgument(f"policy={policy!r} is not one of {sorted(POLICIES)} (or a Policy object)")
    cls = POLICIES[policy]
    return cls(seed=seed) if cls in (RandomWalk, PCT) else cls()


