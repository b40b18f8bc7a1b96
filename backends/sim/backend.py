"""``Device("sim")``: the simulator behind the common host API."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy as np

from gpusim.errors import GpusimInternalError, InvalidArgument, InvalidArgumentType, KernelBug, Livelock, OutOfTime
from gpusim.language.kernels import Kernel, bind, race_scopes

from . import language
from .compiled import LazyRun, RaceCheck, compiled_launcher, plan_of, policy_refused, run_compiled
from .lowering import Unsupported
from .memory import ArrayProxy, SimArray
from .policies import Policy, Replay, make_policy
from .scheduler import Limits, Simulator, check_modes
from .tokens import TOKEN_FORMAT, Token, check_launch, encode_token, read_token
from .trace import Run

__all__ = ["ENGINES", "SimBackend"]

#: The values of ``engine=``: the reference simulator, the compiled engine, or whichever applies.
ENGINES = ("reference", "compiled", "auto")


class SimBackend:
    """The deterministic interleaving simulator as a ``Device`` backend.

    Parameters
    ----------
    policy:
        ``"random"`` (default), ``"round_robin"``, ``"sequential"``, ``"pct"``, or a
        :class:`~gpusim.backends.sim.policies.Policy` object such as ``PCT(depth=2)`` or
        ``Preemptions([(12, 0)])``.
    seed:
        Seeds the policy; each launch mixes in its launch number.  Same seed, same runs.
    schedule:
        A replay token (from ``Run.token``, ``Device.token`` or a ``KernelBug``): replay those
        launches exactly instead of following ``policy``.
    trace:
        Record a :class:`~gpusim.backends.sim.trace.TraceEvent` per scheduling point (default).
        Turn off for speed when exploring many schedules; replay the failure with it on.
    max_steps, livelock_steps, spin_steps, resident_threads, max_launches:
        See :class:`~gpusim.backends.sim.scheduler.Limits`.
    deadline:
        A ``time.perf_counter()`` value: past it, the next launch or periodic check of a launch raises
        :class:`~gpusim.errors.OutOfTime` (a caller's wall-clock limit, not a finding); ``None`` (default): none.
    memory:
        ``"sc"`` (sequentially consistent, default) or ``"weak"``: stores reach other threads late
        unless a fence, barrier or atomic orders them (:mod:`~gpusim.backends.sim.weak`).  Its
        choices come from ``seed`` (and the policy's seed) and are replayed by the token.
    warps:
        ``"independent"`` (default, Volta and later) or ``"lockstep"``: a warp's lanes follow one
        path at a time and reconverge at the end of each ``if``/``while``/``for``, as before Volta
        (:mod:`~gpusim.backends.sim.lockstep`).
    races:
        ``"report"`` (collect races on ``Run.races``), ``"raise"`` (raise :class:`~gpusim.errors.DataRace` at
        the first) or ``"off"``: the happens-before race detector (:mod:`~gpusim.backends.sim.races`).  The
        default (``None``) is ``"report"`` on the reference engine, so a learner's racy kernel shows its race
        on ``Run.races`` without asking, and ``"off"`` on the compiled engine (``engine="compiled"`` or
        ``"auto"``, which are for speed; ask for ``races`` there).  ``gpusim bench sim`` measures the cost.
    engine:
        ``"reference"`` (default): every launch on the simulator described here.  ``"compiled"``:
        numba-compiled code (:mod:`~gpusim.backends.sim.compiled`), replayable on the reference, for
        launches of any size under the random, PCT or sequential policy (or a switch list), with warp
        collectives and ``races``; it needs ``trace=False``, ``memory="sc"`` and ``warps="independent"``,
        and refuses a kernel it cannot lower, saying why.  ``"auto"``: the compiled engine where it
        applies, the reference elsewhere.
    progress:
        A progress bar's hook, ``progress(points, launch_finished)``: called every few hundred
        scheduling points of a launch with the points since its last call, and when a launch ends
        (``launch_finished=True``); ``None`` (default) for none.

    Example
    -------
    >>> SimBackend(memory="weak", races="report").memory
    'weak'
    """

    name = "sim"

    def __init__(self, policy: str | Policy = "random", seed: int = 0, schedule: str | None = None,
                 trace: bool = True, max_steps: int = Limits.max_steps,
                 livelock_steps: int = Limits.livelock_steps, spin_steps: int = Limits.spin_steps,
                 resident_threads: int = Limits.resident_threads, memory: str = "sc",
                 warps: str = "independent", races: str | None = None, engine: str = "reference",
                 progress: Callable[[int, bool], None] | None = None, max_launches: int = Limits.max_launches,
                 deadline: float | None = None):
        if not isinstance(trace, bool):
            raise InvalidArgumentType(f"trace must be True or False, got {trace!r}")
        if not isinstance(engine, str) or engine not in ENGINES:
            raise InvalidArgument(f"engine={engine!r} is not one of {ENGINES}")
        if races is None:
            races = "report" if engine == "reference" else "off"
        check_modes(memory, warps, races)
        self.memory, self.warps, self.races, self.engine = memory, warps, races, engine
        self.seed = seed
        self.limits = Limits(max_steps, livelock_steps, spin_steps, resident_threads, max_launches)
        if deadline is not None and (isinstance(deadline, bool) or not isinstance(deadline, (int, float))):
            raise InvalidArgumentType(f"deadline must be a time.perf_counter() value or None, got {deadline!r}")
        self.deadline = deadline
        if schedule is not None:
            self.replaying: Token | None = read_token(schedule)
            self.policy: Policy = Replay(self.replaying.launches)
        else:
            self.replaying = None
            self.policy = make_policy(policy, seed)
        self.tracing = trace
        if engine == "compiled":
            why = self._compiled_refused()
            if why:
                raise InvalidArgument(f"engine='compiled' {why}")
        if progress is not None and not callable(progress):
            raise InvalidArgumentType(f"progress must be a function (points, launch_finished), got {progress!r}")
        self.progress = progress
        self.runs: list[Run] = []
        self._steps_so_far = 0
        self._bound: dict[tuple, object] = {}

    # -- memory --------------------------------------------------------------------------------
    def full(self, n: int, value, dtype: np.dtype) -> SimArray:
        return SimArray(np.full(n, value, dtype=dtype))

    def fill(self, out: SimArray, value, dtype: np.dtype, n: int) -> None:
        """Set every item of ``out`` to ``value`` (between launches: no kernel, no schedule)."""
        out.data[:n] = value

    def empty(self, n: int, dtype: np.dtype) -> SimArray:
        """``n`` items of poison, where a GPU would leave whatever the memory held: the smallest signed or largest
        unsigned value, NaN for a float, so that a kernel reading one before writing it goes wrong here rather than
        by chance there."""
        poison = np.nan if dtype.kind == "f" else np.iinfo(dtype).min if dtype.kind == "i" else np.iinfo(dtype).max
        return SimArray(np.full(n, poison, dtype=dtype))

    def array(self, host: np.ndarray) -> SimArray:
        return SimArray(host.copy())

    def adopt(self, value) -> SimArray | None:
        """``value`` itself when it is a simulator array (no copy), else None (host data)."""
        return value if isinstance(value, SimArray) else None

    def free_memory(self) -> None:
        """The simulator's memory has no limit."""
        return None

    def to_host(self, array: SimArray) -> np.ndarray:
        return array.data.copy()

    def is_device_array(self, value) -> bool:
        return isinstance(value, SimArray)

    def synchronize(self) -> None:
        pass

    # -- launching -------------------------------------------------------------------------------
    @property
    def token(self) -> str:
        """The replay token of every launch so far, in order."""
        return encode_token([run.token_entry() for run in self.runs])

    def launch(self, kernel: Kernel, grid: int, block: int, args: tuple) -> Run:
        self._check_deadline()
        if len(self.runs) >= self.limits.max_launches:
            raise Livelock(f"Livelock: the host code launched {len(self.runs)} kernels, the budget max_launches="
                           f"{self.limits.max_launches}, and asks for another ({kernel.qualname}): does a driver's "
                           f"loop relaunch for ever?", token=self.token)
        if grid * block > self.limits.max_steps:  # each thread takes at least one step: it could only end in Livelock
            raise InvalidArgument(
                f"a launch of {grid * block} threads ({grid} blocks of {block}) cannot finish within the simulator's "
                f"budget of max_steps={self.limits.max_steps} scheduling points; use a GPU or a cpu reference")
        if self.engine != "reference" and not self._compiled_refused():
            run = self._launch_compiled(kernel, grid, block, args)
            if run is not None:
                return run
        return self._launch_reference(kernel, grid, block, args, self.policy)

    def _check_deadline(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfTime(f"the simulated run passed its deadline after {len(self.runs)} launch(es)")

    def _compiled_refused(self) -> str:
        """Why this device's settings keep the compiled engine off (empty when they do not)."""
        why = policy_refused(self.policy)
        if why:
            return why
        if self.tracing:
            return ("records no trace: pass trace=False (tracing needs engine='reference'; replay the token "
                    "there for one)")
        if self.memory != "sc":
            return f"runs sequentially consistent memory only: memory={self.memory!r} needs engine='reference'"
        if self.warps != "independent":
            return f"runs independent warps only: warps={self.warps!r} needs engine='reference'"
        return ""

    def _launch_compiled(self, kernel: Kernel, grid: int, block: int, args: tuple) -> Run | None:
        """Run the launch on the compiled engine; ``None`` when it cannot (engine="auto" then uses the reference)."""
        launch_index = len(self.runs)
        values = tuple(value.data if isinstance(value, SimArray) else value.item() if isinstance(value, np.generic)
                       else value for value in args)
        try:
            _check_distinct(kernel, args)
            races = None
            if self.races != "off":
                races = RaceCheck(self.races, tuple(next(j for j, other in enumerate(args) if other is value)
                                                    for value in args),
                                  race_scopes(getattr(kernel, "intended_races", {})))
            launcher = compiled_launcher(kernel, values, races is not None)
            plan = plan_of(self.policy, launch_index, grid * block, self._steps_so_far)
            result = run_compiled(launcher, values, grid, block, plan, self.limits, races)
        except Unsupported:
            if self.engine == "auto":
                return None
            raise
        if result.broke:  # the reference simulator replays the run and raises its report
            entry = {"kernel": kernel.qualname, "grid": grid, "block": block, "schedule": result.schedule.tolist()}
            if self.races != "off":
                entry["races"] = self.races
            self._launch_reference(kernel, grid, block, args, Replay([entry] * (launch_index + 1)))
            raise GpusimInternalError(
                f"the compiled engine broke a rule in {kernel.qualname} that the reference simulator does not "
                f"reproduce; replay: Device('sim', schedule={self.token!r})")
        run = LazyRun(kernel=kernel.qualname, grid=grid, block=block, policy=f"{self.policy!r} (compiled)",
                  memory="sc", warps="independent", races_mode=self.races, memory_seed="0", fn=kernel.fn)
        run.races = result.races
        run.steps, run.preemptions, run.schedule = result.steps, result.preemptions, result.schedule
        run.probability_bound = self.policy.probability_bound(grid * block, run.steps)
        self.policy.finish(launch_index, run.steps)
        self.runs.append(run)
        self._steps_so_far += run.steps
        if self.progress is not None:
            self.progress(run.steps, True)
        return run

    def _launch_reference(self, kernel: Kernel, grid: int, block: int, args: tuple, policy: Policy) -> Run:
        launch_index = len(self.runs)
        if isinstance(policy, Replay):
            replaying = self.replaying if policy is self.policy and self.replaying is not None else None
            check_launch(replaying or Token(TOKEN_FORMAT, None, policy.launches), launch_index, kernel, grid, block)
        memory, warps, races, memory_seed = self._modes(launch_index, policy)
        clone = self._bound.get((id(kernel), warps))
        if clone is None:
            clone = self._bound[(id(kernel), warps)] = (
                _lockstep_bind(kernel) if warps == "lockstep" else bind(kernel, language))
        sim = Simulator(
            clone, (), grid, block, policy, tracing=self.tracing, limits=self.limits,
            launch_index=launch_index, step_offset=self._steps_so_far, kernel_name=kernel.qualname,
            memory=memory, warps=warps, races=races, memory_seed=memory_seed,
            intended_races=race_scopes(getattr(kernel, "intended_races", {})),
        )
        if self.progress is not None or self.deadline is not None:
            sim.on_steps = lambda: (self._report_steps(sim, False), self._check_deadline())
        _check_distinct(kernel, args)
        proxies: list[tuple[ArrayProxy, SimArray]] = []
        sim.args = tuple(_kernel_argument(sim, name, value, proxies)
                         for name, value in zip(kernel.params, args, strict=True))
        run = Run(kernel=kernel.qualname, grid=grid, block=block, policy=repr(policy), memory=memory,
                  warps=warps, races_mode=races, memory_seed=memory_seed, fn=kernel.fn)
        try:
            sim.run()
        except KernelBug as bug:
            self._finish(run, sim, proxies, policy)
            raise bug.with_token(self.token, run.trace) from None
        except BaseException as error:
            self._finish(run, sim, proxies, policy)
            if hasattr(error, "add_note"):
                error.add_note(f"replay: Device('sim', schedule={self.token!r})")
            raise
        self._finish(run, sim, proxies, policy)
        return run

    def _modes(self, launch_index: int, policy: Policy) -> tuple[str, str, str, str]:
        """This launch's memory, warp and race modes and weak-memory seed (from the token when replaying)."""
        if isinstance(policy, Replay):
            entry = policy.launches[launch_index]
            # a token records races="raise" only (reporting changes no schedule): a replay reports as this device does
            races = entry.get("races", "report" if self.races == "report" else "off")
            return (entry.get("memory", "sc"), entry.get("warps", "independent"), races,
                    entry.get("memory_seed", "0"))
        policy_seed = getattr(self.policy, "seed", None)
        return self.memory, self.warps, self.races, f"{self.seed}:{policy_seed}:{launch_index}"

    def _finish(self, run: Run, sim: Simulator, proxies, policy: Policy) -> None:
        for proxy, array in proxies:
            array.data[:] = proxy.items
        run.steps = sim.step
        run.preemptions = sim.preemptions
        run.schedule = sim.schedule
        run._raw_events = sim.events
        run.races = list(sim.races.races) if sim.races is not None else []
        run.probability_bound = policy.probability_bound(sim.n_threads, sim.step)
        policy.finish(len(self.runs), sim.step)
        self.runs.append(run)
        self._steps_so_far += sim.step
        self._report_steps(sim, True)
        _note_for_hypothesis(f"after launch {len(self.runs)} ({run.kernel}): replay with "
                             f"Device('sim', schedule={{token!r}})", self)


    def _report_steps(self, sim: Simulator, finished: bool) -> None:
        """Tell the progress hook (if any) the points ``sim`` ran since it was last told."""
        if self.progress is not None:
            self.progress(sim.step - sim.steps_reported, finished)
            sim.steps_reported = sim.step


def _lockstep_bind(kernel: Kernel):
    from .lockstep import lockstep_bind

    return lockstep_bind(kernel, language)


def _note_for_hypothesis(template: str, backend: SimBackend) -> None:
    """In the final (shrunk) example of a failing Hypothesis test, print the replay token."""
    hypothesis = sys.modules.get("hypothesis")
    if hypothesis is None or not hypothesis.currently_in_test_context():
        return
    from hypothesis.control import should_note

    if should_note():
        hypothesis.note(template.format(token=backend.token))


def _check_distinct(kernel: Kernel, args: tuple) -> None:
    """Refuse two array arguments that overlap without being the same array (as the reference does)."""
    arrays = [(name, value) for name, value in zip(kernel.params, args, strict=True) if isinstance(value, SimArray)]
    for position, (name, value) in enumerate(arrays):
        for other_name, other in arrays[:position]:
            if other is not value and np.shares_memory(other.data, value.data):
                raise InvalidArgument(f"argument {name!r} overlaps argument {other_name!r} without being it")


def _kernel_argument(sim: Simulator, name: str, value, proxies: list):
    if isinstance(value, SimArray):
        for proxy, array in proxies:
            if array is value:
                return proxy
        proxy = sim.proxy_class(sim, name, "global", value.data.tolist(), value.data.dtype)
        proxies.append((proxy, value))
        return proxy
    return value.item() if isinstance(value, np.generic) else value
