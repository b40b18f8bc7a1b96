"""The compiled engine: schedules at native speed, replayable on the reference simulator.

``Device("sim", engine="compiled", trace=False)`` runs each launch in one numba-compiled function:
every thread is an instance of the kernel lowered to a generator (:mod:`.lowering`), kept in one
block of memory (:mod:`~gpusim.backends.sim.generators`: no tuple of generators, so a launch may have any number of
threads), and a scheduler (:mod:`.compiled_scheduler`) that follows the reference simulator's rules
step for step picks who performs each scheduling point: the same step numbering, the same barrier,
collective and exit checks, the same livelock budget and block admission.  Its policies are those of
:func:`plan_of`: a random walk (its own fast generator, seeded from the
:class:`~gpusim.backends.sim.policies.RandomWalk` seed and the launch number), and PCT, sequential
and switch lists (a policy with a ``compiled_switches()`` method giving its ``(global step, thread)``
preemptions and forced hand-overs, as the explorer's ``Switches``), which make exactly the
reference's choices.  It records every switch in the reference simulator's format, so a run's replay
token replays exactly on the reference simulator, which then gives the trace, the error report and
the shrinking.  When a compiled run breaks a rule (out of bounds, an uninitialised read, barrier or
collective divergence, deadlock, livelock, a race under ``races="raise"``) the launch is replayed
there at once and raises the reference's :class:`~gpusim.errors.KernelBug`; if the reference does
not fail the same way that is a :class:`~gpusim.errors.GpusimInternalError`, never a silent
difference.

It covers sequentially consistent memory and independent warps, with warp collectives, and the race
detector (:mod:`.compiled_races`, up to :data:`MAX_RACE_THREADS` threads); weak memory, lockstep
warps and tracing need the reference.  The first launch of a kernel compiles it (a few seconds; the
machine code is cached on disk, under ``$GPUSIM_CACHE`` or ``~/.cache/gpusim``, for the next
process).  Arithmetic is numba's: integers are 64-bit and wrap, where the reference simulator computes
with Python's unbounded integers (both store to arrays as the dtype says); a kernel that overflows 64
bits is wrong on a GPU anyway.  ``engine="auto"`` uses it where it can and the reference elsewhere.

>>> import numpy as np
>>> from gpusim import Device
>>> from gpusim.zoo.classic_kernels import count_plain
>>> dev = Device("sim", engine="compiled", trace=False, seed=1)
>>> counter = dev.zeros(1, np.int32)
>>> run = dev.launch(count_plain, grid=1, block=4, args=(counter, 4))
>>> replayed = Device("sim", schedule=dev.token, trace=False)
>>> again = replayed.zeros(1, np.int32)
>>> _ = replayed.launch(count_plain, grid=1, block=4, args=(again, 4))
>>> int(dev.to_host(counter)[0]) == int(replayed.to_host(again)[0]), replayed.runs[0].steps == run.steps
(True, True)
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gpusim.errors import InvalidArgument
from gpusim.language.kernels import DeviceFunction, Kernel, global_names

from .compiled_scheduler import BROKE, HEADER, OK, PCT, RANDOM, SCHEDULER, SWITCHES
from .lowering import Unsupported, lower
from .policies import PCT as PCTPolicy
from .policies import Policy, RandomWalk, Sequential
from .races import phase_bits
from .trace import Run

#: The most threads a compiled launch checks for races (each thread keeps a vector clock of every thread).
MAX_RACE_THREADS = 4096

__all__ = ["MAX_RACE_THREADS", "CompiledRun", "LazyRun", "Plan", "RaceCheck", "compiled_launcher", "launch_seed",
           "plan_of", "policy_refused", "run_compiled"]

@dataclass
class CompiledRun:
    """What a compiled launch did: ``broke`` (a rule was broken: replay on the reference), steps,
    preemptions, and the schedule in the reference simulator's format."""

    broke: bool
    steps: int
    preemptions: int
    schedule: np.ndarray
    races: list = field(default_factory=list)


@dataclass(frozen=True)
class RaceCheck:
    """Race detection on a compiled launch: ``mode`` (``"report"`` or ``"raise"``), for each kernel parameter
    the position of the first parameter given the same array (the reference names an array after it and
    keeps one shadow for both), and where the races the kernel intends are: array name -> ``None`` (anywhere) or the
    steps within which they are (:func:`~gpusim.language.kernels.race_scopes`; a set of names means anywhere)."""

    mode: str
    aliases: tuple[int, ...]
    intended: Any = frozenset()


class LazyRun(Run):
    """A :class:`~.trace.Run` whose schedule, a NumPy array from the compiled engine, becomes the
    reference's list when first read (a random schedule of 1,024 threads has 200,000 entries: making
    the list costs as much as running the launch, and most runs are never replayed)."""

    @property
    def schedule(self) -> list[int]:
        if self._array is not None:
            self._list, self._array = self._array.tolist(), None
        return self._list

    @schedule.setter
    def schedule(self, value) -> None:
        self._array, self._list = (value, None) if isinstance(value, np.ndarray) else (None, value)


@dataclass
class Plan:
    """A policy as the compiled scheduler runs it: ``kind`` (``RANDOM``, ``PCT`` or ``SWITCHES``) and
    its data (the launch's random seed; PCT's priorities, change points and depth; the switch steps
    with the thread to preempt for or to hand over to, ``-1`` for none)."""

    kind: int
    rotates: bool
    seed: int = 0
    depth: int = 0
    priority: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    points: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    steps: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    preempt: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    hand_over: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    offset: int = 0


def launch_seed(policy_seed: int, launch: int) -> int:
    """The compiled engine's random seed for launch number ``launch`` of a ``RandomWalk(policy_seed)``."""
    return random.Random(f"{policy_seed}:{launch}").getrandbits(31)


def policy_refused(policy: Policy) -> str:
    """Why the compiled engine cannot follow ``policy`` (empty when it can).  A policy that switches at listed
    steps offers them with ``compiled_switches()``: ``(preemptions, forced)``, lists of ``(global step,
    thread)``, or ``None`` when it cannot be followed so (e.g. while it records the branching points)."""
    switches = getattr(policy, "compiled_switches", None)
    if isinstance(policy, (RandomWalk, PCTPolicy, Sequential)) or (callable(switches) and switches() is not None):
        return ""
    return (f"follows the random, PCT and sequential policies and switch lists (the systematic search), not "
            f"{policy!r}: that policy needs engine='reference'")


def plan_of(policy: Policy, launch: int, n_threads: int, step_offset: int) -> Plan:
    """Start ``policy`` on launch number ``launch`` as the reference simulator would, and return its plan.

    >>> plan = plan_of(PCTPolicy(seed=1, depth=2, steps=10), 0, 4, 0)
    >>> plan.kind == PCT, sorted(plan.priority.tolist()), len(plan.points)
    (True, [2, 3, 4, 5], 1)
    """
    why = policy_refused(policy)
    if why:
        raise Unsupported(f"the compiled engine {why}")
    policy.start(launch, n_threads, step_offset)
    rotates = bool(policy.rotates_spinners)
    if isinstance(policy, RandomWalk):
        return Plan(RANDOM, rotates, seed=launch_seed(policy.seed, launch))
    if isinstance(policy, PCTPolicy):
        return Plan(PCT, rotates, depth=policy.depth, priority=np.array(policy.priority, np.int64),
                    points=np.array(policy.change_points, np.int64))
    preemptions, forced = policy.compiled_switches() if not isinstance(policy, Sequential) else ((), ())
    switch, hand_over = dict(preemptions), dict(forced)  # as the policy reads them: the last entry of a step wins
    steps = sorted(set(switch) | set(hand_over))
    return Plan(SWITCHES, rotates, steps=np.array(steps, np.int64),
                preempt=np.array([switch.get(s, -1) for s in steps], np.int64),
                hand_over=np.array([hand_over.get(s, -1) for s in steps], np.int64), offset=step_offset)


_CACHE: dict[tuple, object] = {}


def compiled_launcher(kernel: Kernel, args: tuple, races: bool = False):
    """The compiled scheduler for this kernel and argument types (cached; any launch shape), with the race
    detector when ``races``, or raise :class:`~.lowering.Unsupported` saying why the compiled engine cannot
    run it."""
    kinds = tuple(_kind(name, value) for name, value in zip(kernel.params, args, strict=True))
    key = (id(kernel), kinds, _callees(kernel.fn), races)
    found = _CACHE.get(key)
    if found is None:
        try:
            found = _build(kernel, kinds, races)
        except Unsupported as why:
            found = why
        _CACHE[key] = found
    if isinstance(found, Unsupported):
        raise found
    return found


def run_compiled(launcher, arrays_and_scalars: tuple, grid: int, block: int, plan: Plan, limits,
                 races: RaceCheck | None = None) -> CompiledRun:
    """Run one launch under ``plan``; ``arrays_and_scalars`` are NumPy arrays (changed in place, unless the
    run broke a rule) and Python numbers.  With ``races`` (a launcher built with ``races=True``), the
    races found come back as the reference's reports."""
    if races is not None and grid * block > MAX_RACE_THREADS:
        raise Unsupported(f"the compiled engine checks races on launches of at most {MAX_RACE_THREADS} threads, "
                          f"this one has {grid * block}: races={races.mode!r} on it needs engine='reference'")
    bases, checked, names, array_of = _race_layout(launcher, arrays_and_scalars, grid, races)
    state = np.zeros(8, np.int64)
    budget = np.array([limits.max_steps, limits.livelock_steps, limits.spin_steps], np.int64)
    settings = np.array([plan.kind, plan.rotates, plan.depth, max(1, limits.resident_threads // block),
                         plan.offset], np.int64)
    arrays = [a for a in arrays_and_scalars if isinstance(a, np.ndarray)]
    backup = [array.copy() for array in arrays]
    schedule = np.zeros(max(1024, 4 * grid * block, launcher.capacity), np.int64)  # grown by the scheduler
    mode = 1 if races is not None and races.mode == "raise" else 0
    result, schedule, rows = launcher(grid, block, plan.seed, schedule, state, budget, settings, plan.priority.copy(),
                                      plan.points, plan.steps, plan.preempt, plan.hand_over, bases, checked, names,
                                      mode, *arrays_and_scalars)
    launcher.capacity = max(launcher.capacity, int(state[4]))  # the next launch starts with room enough
    if result != OK:  # a broken run leaves memory as it was, for the reference simulator to replay
        for array, saved in zip(arrays, backup, strict=True):
            array[:] = saved
    reports = []
    if races is not None and len(rows):
        from .compiled_races import reports_of  # numba, only when races are checked

        reports = reports_of(rows, block, launcher.lowered.sites, array_of)
    return CompiledRun(result == BROKE, int(state[2]), int(state[3]), schedule[: state[4]], reports)


def _race_layout(launcher, values: tuple, grid: int, races: RaceCheck | None):
    """The race detector's arrays: each array's first cell (and the cell count last), whether it is checked,
    its name's number; and a function from an array's number to its memory kind and name."""
    if races is None:
        empty = np.zeros(1, np.int64)
        return empty, empty, empty, None
    params = launcher.kernel.params
    shared = launcher.lowered.shared
    names: list[str] = []
    bases, name_ids, kinds = [], [], []
    total = 0
    for k, value in enumerate(values):
        first = races.aliases[k]
        if first == k:
            bases.append(total)
            total += len(value) if isinstance(value, np.ndarray) else 0
        else:
            bases.append(bases[first])
        kinds.append(("global", params[first]))
    for (size, _), name in zip(shared, launcher.lowered.shared_names, strict=True):
        for _ in range(grid):
            bases.append(total)
            total += size
            kinds.append(("shared", name))
    for _, name in kinds:
        if name not in names:
            names.append(name)
        name_ids.append(names.index(name))
    scopes = races.intended if isinstance(races.intended, dict) else dict.fromkeys(races.intended)
    bits = phase_bits(scopes)
    checked = [1 if name not in scopes else 0 if scopes[name] is None else 1 + 2 * sum(bits[p] for p in scopes[name])
               for _, name in kinds]
    return (np.array(bases + [total], np.int64), np.array(checked, np.int64), np.array(name_ids, np.int64),
            kinds.__getitem__)


def _cache_dir() -> Path | None:
    """Where compiled modules live (``$GPUSIM_CACHE``, else ``~/.cache/gpusim/compiled``), or ``None``
    when it cannot be written."""
    root = Path(os.environ.get("GPUSIM_CACHE") or Path.home() / ".cache" / "gpusim") / "compiled"
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return root if os.access(root, os.W_OK) else None


def _load(body: str, qualname: str):
    """Import the generated module from the cache directory (numba then caches its machine code), or
    execute it in memory when there is no cache directory; return its scheduler."""
    directory = _cache_dir()
    if directory is None:
        namespace: dict = {}
        text = HEADER.format(cache=False) + body
        exec(compile(text, f"<gpusim compiled {qualname}>", "exec"), namespace)  # noqa: S102
        return namespace["_run"]
    text = HEADER.format(cache=True) + body
    name = "gpusim_" + hashlib.sha1(text.encode()).hexdigest()[:20]
    path = directory / f"{name}.py"
    if not path.exists():
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(text)
        partial.replace(path)  # atomic: a concurrent process sees the whole file or none
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # numba's cache refers to the module by name
    spec.loader.exec_module(module)
    return module._run


def _callees(fn, seen: tuple = ()) -> tuple:
    """The ``@device`` functions ``fn`` reaches, by identity: a module may swap one between launches."""
    found = []
    for name in global_names(fn.__code__):
        value = fn.__globals__.get(name)
        if isinstance(value, DeviceFunction) and id(value) not in seen:
            found.append((name, id(value)))
            found.extend(_callees(value.fn, seen + (id(value),)))
    return tuple(found)


def _kind(name: str, value) -> str:
    if isinstance(value, np.ndarray):
        return value.dtype.name + "[:]"
    if isinstance(value, (bool, np.bool_)):
        raise Unsupported(f"argument {name!r} is a bool; pass 0 or 1")
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    raise InvalidArgument(f"argument {name!r} = {value!r} is neither a device array nor a number")


def _build(kernel: Kernel, kinds: tuple[str, ...], races: bool):
    arrays = {name: kind[:-3] for name, kind in zip(kernel.params, kinds, strict=True) if kind.endswith("[:]")}
    lowered = lower(kernel, arrays, races)
    args = "".join(f", _q_p{k}" for k in range(len(kernel.params)))  # no clash with the scheduler's names
    pools = "\n".join(f"    _q_sh{k} = np.zeros((_q_grid, {size}), np.{dtype})\n"
                      f"    _q_sh{k}m = np.zeros((_q_grid, {size}), np.uint8)"
                      for k, (size, dtype) in enumerate(lowered.shared))
    pool_args = "".join(f", _q_sh{k}, _q_sh{k}m" for k in range(len(lowered.shared)))
    keep = "".join(f" + _q_sh{k}.shape[0] + _q_sh{k}m.shape[0]" for k in range(len(lowered.shared)))
    operands = ", _q_ci, _q_cf, _q_ca" if lowered.collectives else ""
    hooks = {"race_init": "    _q_R = race_state(n, _q_rbases, _q_rchecked, _q_rnames, _q_rmode)" if races else "",
             "race_arg": ", _q_R" if races else "",
             # independent warps: of the collectives only syncwarp orders the lanes' memory (no shuffle or vote)
             "race_warp": ("            if (code - COLLECTIVE) % 16 == SYNCWARP:\n"
                           "                race_barrier(_q_R, wwait[w], 32)\n") if races else "",
             "race_block": "            race_barrier(_q_R, waiting[b], nwait[b] + 1)\n" if races else "",
             "race_rows": "race_rows(_q_R)" if races else "np.zeros((0, 9), np.int64)"}
    source = SCHEDULER.format(params=args, args=args, pools=pools, pool_args=pool_args, keep=keep, operands=operands,
                              **hooks)
    return _Typed(_load("\n".join([lowered.source, source]), kernel.qualname), kernel, lowered)


class _Typed:
    """The jitted scheduler; a numba typing error becomes :class:`Unsupported` at the first call."""

    def __init__(self, scheduler, kernel: Kernel, lowered):
        self.scheduler = scheduler
        self.kernel = kernel
        self.lowered = lowered
        self.failed: Unsupported | None = None
        self.capacity = 0  # the longest schedule a launch recorded (the next one starts with this much room)

    def __call__(self, *args):
        if self.failed is not None:
            raise self.failed
        from numba.core.errors import NumbaError

        try:
            return self.scheduler(*args)
        except NumbaError as error:
            first = str(error).strip().splitlines()[0]
            self.failed = Unsupported(f"the compiled engine cannot type kernel {self.kernel.qualname}: {first}")
            raise self.failed from None
