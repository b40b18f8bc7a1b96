"""The execution state of one simulated launch: threads, barriers, warps, and who runs next.

Each simulated thread is a greenlet running the kernel clone.  Every load, store and atomic
(:mod:`~gpusim.backends.sim.memory`), every barrier and warp collective is a *scheduling
point*: the simulator counts it as one step and, when the policy's decision is due, switches
to the thread the policy names, directly from greenlet to greenlet.  Between decisions a thread
runs on at the cost of one comparison per step.

Detectors raise :class:`~gpusim.errors.KernelBug` subclasses: barrier and collective
divergence, deadlock (every live thread blocked), livelock (no memory changed for a long
stretch: threads spinning on a flag nobody sets), out-of-bounds and uninitialised reads.  The
exploration state (which schedule to try) lives in the policy, not here (loom's Execution vs
Path).
"""

from __future__ import annotations

import linecache
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from greenlet import greenlet

from gpusim.errors import (
    BarrierDivergence,
    CollectiveDivergence,
    DataRace,
    Deadlock,
    GpusimInternalError,
    InvalidArgument,
    Livelock,
)
from gpusim.language import WARP_SIZE
from gpusim.language.kernels import array_names

from .lockstep import Lockstep
from .memory import ArrayProxy, CheckedProxy
from .policies import Policy
from .races import RACE_MODES, RaceDetector
from .weak import WeakMemory

__all__ = ["MEMORY_MODES", "WARP_MODES", "Limits", "SimThread", "Simulator", "check_modes"]

#: The values of ``memory=``: sequentially consistent, or weak (:mod:`.weak`).
MEMORY_MODES = ("sc", "weak")
#: The values of ``warps=``: independent thread scheduling (Volta and later), or lockstep (:mod:`.lockstep`).
WARP_MODES = ("independent", "lockstep")


def check_modes(memory: str, warps: str, races: str) -> None:
    """Raise ``InvalidArgument`` naming a bad ``memory``, ``warps`` or ``races`` value."""
    for name, value, allowed in (("memory", memory, MEMORY_MODES), ("warps", warps, WARP_MODES),
                                 ("races", races, RACE_MODES)):
        if not isinstance(value, str) or value not in allowed:
            raise InvalidArgument(f"{name}={value!r} is not one of {allowed}")

_WAITING, _RUNNABLE, _BLOCKED, _FINISHED = 0, 1, 2, 3
_START = object()  # a thread asks the main greenlet to start a new thread (see _transfer)
_RUNNABLE_BYTE = bytes([_RUNNABLE])
_SIM_DIR = __file__.rsplit("/", 1)[0]
_ARRAY_NAME = re.compile(r"^\s*(\w+)\s*=\s*T\.(?:shared|local)_array\(")


@dataclass(frozen=True)
class Limits:
    """Budgets that turn hangs into errors.

    ``max_steps``: scheduling points one launch may take.  ``livelock_steps``: steps in a row
    with no memory change, thread exit or barrier release before :class:`Livelock` (raised at
    least to ``spin_steps × 2 × runnable threads`` so every spinner gets its turn first).
    ``spin_steps``: after this many steps without progress, a policy that rarely switches
    (sequential, PCT, preemption lists) hands the processor to the next thread, as a fair GPU
    scheduler eventually would.  ``resident_threads``: how many threads may be resident at
    once; blocks beyond it start when earlier blocks finish.  ``max_launches``: launches one device may make
    before :class:`Livelock` (a host loop that relaunches kernels for ever).
    """

    max_steps: int = 20_000_000
    livelock_steps: int = 200_000
    spin_steps: int = 512
    resident_threads: int = 16_384
    max_launches: int = 1_000_000

    def __post_init__(self):
        for name in ("max_steps", "livelock_steps", "spin_steps", "resident_threads", "max_launches"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidArgument(f"{name} must be a positive integer, got {name}={value!r}")


class SimThread(greenlet):
    """One simulated CUDA thread."""

    def __init__(self, sim: Simulator, index: int):
        super().__init__(parent=sim.main)
        self.sim = sim
        self.index = index
        self.bid, self.tid = divmod(index, sim.block)
        self.result = None
        self.waiting: tuple[str, str] | None = None

    def run(self):  # greenlet entry point
        sim = self.sim
        sim.kernel(*sim.args)

    def __repr__(self) -> str:
        return f"thread (block {self.bid}, thread {self.tid})"


@dataclass
class _Group:
    """A barrier group: a block (for syncthreads) or a warp (for collectives)."""

    members: int  # live members
    exited: list[int] = field(default_factory=list)
    waiting: list[int] = field(default_factory=list)
    site: tuple | None = None
    values: dict = field(default_factory=dict)


class Simulator:
    """Run one launch of ``kernel`` (a clone bound to the simulator's ``T``) under ``policy``."""

    def __init__(self, kernel, args: tuple, grid: int, block: int, policy: Policy, *, tracing: bool,
                 limits: Limits, launch_index: int = 0, step_offset: int = 0, kernel_name: str = "",
                 memory: str = "sc", warps: str = "independent", races: str = "off", memory_seed: str = "0",
                 intended_races=frozenset()):
        check_modes(memory, warps, races)
        self.kernel = kernel
        self.args = args
        self.grid = grid
        self.block = block
        self.n_threads = grid * block
        self.policy = policy
        self.tracing = tracing
        self.limits = limits
        self.kernel_name = kernel_name
        policy.start(launch_index, self.n_threads, step_offset)

        n = self.n_threads
        self.threads: list[SimThread | None] = [None] * n
        self.status = bytearray(n)  # _WAITING until the thread's block is resident
        self.runnable: list[int] = []
        self._position = [-1] * n
        self.finished = 0
        self.blocks: dict[int, _Group] = {}
        self.warps: dict[tuple[int, int], _Group] = {}
        self.shared: dict[tuple, ArrayProxy] = {}
        self.next_block = 0
        self.resident_blocks = max(1, limits.resident_threads // block)

        self.step = 0
        self.current = -1
        self.policy_next = 0
        self.check_at = limits.spin_steps
        self.next_decision = 0
        self.progress = 0
        self.on_steps: Callable[[], None] | None = None  # a progress hook, called at the periodic checks
        self.steps_reported = 0
        self.preemptions = 0
        self.schedule: list[int] = []
        self.events: list[tuple] = []  # compact trace records, see trace.events_from_raw
        self.main: greenlet | None = None
        self.memory, self.warp_mode, self.race_mode = memory, warps, races
        self.weak = WeakMemory(n, memory_seed) if memory == "weak" else None
        self.races = (RaceDetector(n, block, intended_races, getattr(kernel, "__name__", ""))
                      if races != "off" else None)
        self.proxy_class = CheckedProxy if self.weak is not None or self.races is not None else ArrayProxy
        self.lockstep = Lockstep(self) if warps == "lockstep" else None

    # -- queries the policies use ------------------------------------------------------------
    def is_runnable(self, thread: int) -> bool:
        return self.status[thread] == _RUNNABLE

    def is_finished(self, thread: int) -> bool:
        return self.status[thread] == _FINISHED

    def first_runnable(self, start: int = 0) -> int:
        found = self.status.find(_RUNNABLE_BYTE, start)
        return found if found >= 0 else self.status.find(_RUNNABLE_BYTE, 0)

    def next_runnable(self, after: int) -> int:
        return self.first_runnable(after + 1 if after + 1 < self.n_threads else 0)

    # -- running -----------------------------------------------------------------------------
    def run(self) -> None:
        """Run every thread to completion, or raise the first kernel bug found."""
        self.main = greenlet.getcurrent()
        self._admit_blocks()
        self._record_switch(self._forced_choice(), forced=True)
        while True:
            # Returns when the running thread finishes, or asks for a new thread to be started.
            if self._greenlet(self.current).switch() is _START:
                continue
            self._exit(self.current)
            if not self.runnable:
                if self.finished == self.n_threads:
                    if self.weak is not None:
                        self.weak.flush_all()
                    return
                self._stuck()
            self._record_switch(self._forced_choice(), forced=True)

    def decide(self) -> None:
        """A decision is due at this scheduling point (called by the running thread)."""
        step = self.step
        current = self.current
        if step >= self.check_at:
            thread = self._periodic_checks(step, current)
        else:
            thread = current
        if thread == current and step >= self.policy_next:
            thread, self.policy_next = self.policy.choose(step, current, self)
        self.next_decision = min(self.policy_next, self.check_at)
        if thread != current:
            self.preemptions += 1
            self._transfer(thread, forced=False)

    def _forced_choice(self) -> int:
        """The running thread cannot go on: ask the policy who runs next."""
        thread, self.policy_next = self.policy.choose(self.step, -1, self)
        self.next_decision = min(self.policy_next, self.check_at)
        if self.status[thread] != _RUNNABLE:
            raise GpusimInternalError(f"policy {self.policy!r} chose thread {thread}, which cannot run")
        return thread

    def _record_switch(self, thread: int, forced: bool) -> None:
        """Log a switch for replay: ``(step, thread)``, or ``(step, -thread - 1)`` when the
        running thread could not go on (so replay tells a preemption from a forced hand-over
        that happens at the same step)."""
        self.schedule.append(self.step)
        self.schedule.append(-thread - 1 if forced else thread)
        self.current = thread

    def _transfer(self, thread: int, forced: bool) -> None:
        self._record_switch(thread, forced)
        started = self.threads[thread]
        if started is None:
            # New greenlets inherit the recursion depth of whoever starts them: start them all
            # from the main greenlet, or a long chain of starts overflows the Python stack.
            self.main.switch(_START)
        else:
            started.switch()

    def _greenlet(self, index: int) -> SimThread:
        thread = self.threads[index]
        if thread is None:
            thread = self.threads[index] = SimThread(self, index)
        return thread

    def point(self) -> int:
        """A scheduling point that touches no array (barriers, collectives, fences)."""
        if self.step >= self.next_decision:
            self.decide()
        self.step += 1
        return self.step - 1

    # -- runnable set --------------------------------------------------------------------------
    def _make_runnable(self, index: int) -> None:
        self.status[index] = _RUNNABLE
        self._position[index] = len(self.runnable)
        self.runnable.append(index)

    def _remove_runnable(self, index: int, status: int) -> None:
        self.status[index] = status
        position = self._position[index]
        last = self.runnable.pop()
        if last != index:
            self.runnable[position] = last
            self._position[last] = position
        self._position[index] = -1

    def _admit_blocks(self) -> None:
        while self.next_block < self.grid and len(self.blocks) < self.resident_blocks:
            block = self.next_block
            self.next_block += 1
            self.blocks[block] = _Group(members=self.block)
            for index in range(block * self.block, (block + 1) * self.block):
                self._make_runnable(index)

    def _unblock(self, index: int) -> None:
        self.threads[index].waiting = None
        self._make_runnable(index)
        self.policy_next = min(self.policy_next, self.step)  # the policy may prefer the woken thread
        self.next_decision = min(self.next_decision, self.step)

    def _block_current(self, thread: SimThread, what: tuple[str, str]) -> None:
        thread.waiting = what
        self._remove_runnable(thread.index, _BLOCKED)
        if not self.runnable:
            self._stuck()
        self._transfer(self._forced_choice(), forced=True)

    def _exit(self, index: int) -> None:
        self._remove_runnable(index, _FINISHED)
        self.threads[index] = None
        self.finished += 1
        self.progress = self.step
        thread_block, tid = divmod(index, self.block)
        group = self.blocks[thread_block]
        group.members -= 1
        group.exited.append(index)
        if group.waiting:
            raise BarrierDivergence(
                f"BarrierDivergence: {self._name(index)} finished while {len(group.waiting)} thread(s) of "
                f"block {thread_block} wait at syncthreads at {group.site[1]}:\n"
                + self._list_threads(group.waiting)
                + "\nevery thread of a block must reach each syncthreads (is it inside a branch?)"
            )
        warp = self.warps.get((thread_block, tid // WARP_SIZE))
        if warp is not None:
            warp.members -= 1
            warp.exited.append(index)
            if warp.waiting:
                raise self._collective_exit(warp, index)
        if group.members == 0:
            del self.blocks[thread_block]
            self._admit_blocks()
        if self.lockstep is not None:
            self.lockstep.exited(index)

    # -- barriers and collectives ------------------------------------------------------------
    def barrier(self, thread: SimThread) -> None:
        step = self.point()
        site = _location(sys._getframe(2))
        group = self.blocks[thread.bid]
        if self.tracing:
            self._event(step, "syncthreads", "", -1, None, sys._getframe(2))
        if group.exited:
            raise BarrierDivergence(
                f"BarrierDivergence: {thread!r} reached syncthreads at {site}, but "
                f"{len(group.exited)} thread(s) of block {thread.bid} already finished without reaching it:\n"
                + self._list_threads(group.exited)
                + "\nevery thread of a block must reach each syncthreads (did some return early?)"
            )
        if group.site is None:
            group.site = ("syncthreads", site)
        elif group.site[1] != site:
            raise BarrierDivergence(
                f"BarrierDivergence: {thread!r} reached syncthreads at {site} while threads of block "
                f"{thread.bid} wait at the syncthreads at {group.site[1]}:\n" + self._list_threads(group.waiting)
            )
        if self.weak is not None:
            self.weak.flush(thread.index)
        if len(group.waiting) + 1 == group.members:
            self._ordered(group.waiting + [thread.index])
            for index in group.waiting:
                self._unblock(index)
            group.waiting = []
            group.site = None
            self.progress = self.step
            return
        group.waiting.append(thread.index)
        self._block_current(thread, ("syncthreads", site))

    def collective(self, thread: SimThread, op: str, value, argument):
        """A warp collective (shuffle, vote, reduction, syncwarp): a rendezvous of the warp's 32 lanes, exchanging
        their values.  With independent warps only ``syncwarp`` orders memory among the lanes (CUDA since Volta),
        for the race detector and weak memory alike; with lockstep warps (:mod:`.lockstep`) every collective orders
        their accesses, and weak memory is still published and refreshed at ``syncwarp`` only."""
        step = self.point()
        site = _location(sys._getframe(2))
        key = (thread.bid, thread.tid // WARP_SIZE)
        warp = self.warps.get(key)
        if warp is None:
            first = key[1] * WARP_SIZE
            lanes = min(WARP_SIZE, self.block - first)
            if lanes != WARP_SIZE:
                raise CollectiveDivergence(
                    f"CollectiveDivergence: {op} at {site} by {thread!r} in a partial warp of {lanes} lanes: "
                    f"full-mask warp collectives need all 32 lanes (block size {self.block} is not a multiple "
                    f"of 32)"
                )
            warp = self.warps[key] = _Group(members=WARP_SIZE)
            finished_lanes = [thread.bid * self.block + first + lane for lane in range(WARP_SIZE)]
            warp.exited = [i for i in finished_lanes if self.status[i] == _FINISHED]
            warp.members -= len(warp.exited)
        if self.tracing:
            self._event(step, op, "", -1, value if op != "syncwarp" else None, sys._getframe(2))
        if warp.exited:
            raise self._collective_exit(warp, thread.index, arriving=(op, site))
        if warp.site is None:
            warp.site = (op, site)
        elif warp.site != (op, site):
            raise CollectiveDivergence(
                f"CollectiveDivergence: {thread!r} reached {op} at {site} while lanes of its warp wait at "
                f"{warp.site[0]} at {warp.site[1]}:\n" + self._list_threads(warp.waiting)
            )
        lane = thread.tid % WARP_SIZE
        warp.values[lane] = (value, argument)
        if op == "syncwarp" and self.weak is not None:
            self.weak.flush(thread.index)
        if len(warp.waiting) + 1 < warp.members:
            warp.waiting.append(thread.index)
            self._block_current(thread, (op, site))
            return thread.result
        results = _combine(op, warp.values)
        base = thread.index - lane
        if (op == "syncwarp" or self.lockstep is not None) and (self.races is not None or self.weak is not None):
            self._ordered(warp.waiting + [thread.index], refresh=op == "syncwarp")
        for index in warp.waiting:
            self.threads[index].result = results[index - base]
            self._unblock(index)
        warp.waiting = []
        warp.values = {}
        warp.site = None
        self.progress = self.step
        return results[lane]

    def fence(self, thread: SimThread) -> None:
        step = self.point()
        if self.tracing:
            self._event(step, "threadfence", "", -1, None, sys._getframe(2))
        if self.weak is not None:
            self.weak.fence(thread.index)
        if self.races is not None:
            self.races.fence(thread.index)

    def _ordered(self, members: list[int], refresh: bool = True) -> None:
        """A barrier released ``members``: their pasts happen before their futures, and they see memory anew."""
        if self.races is not None:
            self.races.barrier(members)
        if refresh and self.weak is not None:
            for index in members:
                self.weak.refresh(index)

    # -- the race detector -------------------------------------------------------------------------
    def race(self, proxy: ArrayProxy, index: int, op: str, is_write: bool, frame) -> None:
        report = self.races.access(self.current, proxy, index, op, is_write, frame)
        if report is not None and self.race_mode == "raise":
            steps = [name for name, bit in self.races.phase_bits.items() if self.races.within.get(proxy.name, 0) & bit]
            hint = (f"the kernel intends races on {proxy.name!r} only within {', '.join(steps)}: these two accesses "
                    f"are not both inside one of them (a barrier missing between two steps?)" if steps else
                    f"mark a race the kernel intends with @kernel(..., intended_races={{{proxy.name!r}: 'why'}})")
            raise DataRace(f"DataRace: {report}\n{report.explain()}\n({hint})", report=report)

    def race_atomic(self, proxy: ArrayProxy, index: int, op: str, is_write: bool, frame) -> None:
        self.races.atomic(self.current, proxy, index)
        self.race(proxy, index, op, is_write, frame)

    # -- shared and local memory -------------------------------------------------------------
    def shared_array(self, thread: SimThread, size, dtype, frame) -> ArrayProxy:
        key = (thread.bid, frame.f_code, frame.f_lineno)
        array = self.shared.get(key)
        if array is None:
            array = self.shared[key] = self.proxy_class(
                self, _array_name(frame), "shared", [None] * _check_size(size, frame), dtype, owner=thread.bid
            )
        return array

    def local_array(self, thread: SimThread, size, dtype, frame) -> ArrayProxy:
        return ArrayProxy(self, _array_name(frame), "local", [None] * _check_size(size, frame), dtype,
                          owner=thread.index)

    # -- tracing -------------------------------------------------------------------------------
    def record(self, op: str, array: ArrayProxy, index: int, value, frame) -> None:
        self.events.append((self.step - 1, self.current, op, array.name, index, value, frame.f_code, frame.f_lineno))

    def record_publish(self, thread: int, array: ArrayProxy, index: int, value, where: tuple) -> None:
        """Weak memory: ``thread``'s pending store to ``array[index]`` (made at ``where``) reached memory now."""
        self.events.append((self.step - 1, thread, "publish", array.name, index, value, *where))

    def _event(self, step: int, op: str, array: str, index: int, value, frame) -> None:
        self.events.append((step, self.current, op, array, index, value, frame.f_code, frame.f_lineno))

    # -- detectors -------------------------------------------------------------------------------
    def _periodic_checks(self, step: int, current: int) -> int:
        limits = self.limits
        self.check_at = step + limits.spin_steps
        if self.on_steps is not None:
            self.on_steps()
        if step >= limits.max_steps:
            raise Livelock(
                f"Livelock: the launch of {self.kernel_name} ran {step} steps, the budget max_steps="
                f"{limits.max_steps}; running now:\n{self._list_threads(self.runnable[:8])}\n"
                "is a thread spinning on a flag no other thread sets? (raise max_steps for longer kernels)"
            )
        idle = step - self.progress
        if idle >= max(limits.livelock_steps, 2 * limits.spin_steps * len(self.runnable)):
            intra_warp = self.lockstep.describe() + "\n" if self.lockstep is not None else ""
            raise Livelock(
                f"Livelock: {idle} steps without any memory change, thread exit or barrier release; "
                f"the spinning threads:\n{self._list_threads(sorted(self.runnable)[:8])}\n{intra_warp}"
                "is a thread spinning on a flag no other thread sets? (poll with T.atomic_load, and make "
                "sure some thread sets it)"
            )
        if idle >= limits.spin_steps and self.policy.rotates_spinners and len(self.runnable) > 1:
            return self.next_runnable(current)  # a fair hand-over, recorded in the schedule
        return current

    def _stuck(self) -> None:
        blocked = [i for i in range(self.n_threads) if self.status[i] == _BLOCKED]
        raise Deadlock(
            f"Deadlock: every live thread is blocked and none can proceed ({len(blocked)} blocked):\n"
            + self._list_threads(blocked[:8])
            + ("\n  ..." if len(blocked) > 8 else "")
        )

    def _collective_exit(self, warp: _Group, index: int, arriving: tuple | None = None) -> CollectiveDivergence:
        gone = ", ".join(f"lane {i % self.block % WARP_SIZE}" for i in warp.exited[:8])
        if arriving is not None:
            where = f"{self._name(index)} reached {arriving[0]} at {arriving[1]}"
        else:
            where = f"{self._name(index)} finished while lanes wait at {warp.site[0]} at {warp.site[1]}"
        return CollectiveDivergence(
            f"CollectiveDivergence: {where}, but {gone} of its warp already finished: a full-mask warp "
            f"collective needs every lane (did some lanes return early?)"
            + ("\n" + self._list_threads(warp.waiting) if warp.waiting else "")
        )

    def describe_current(self) -> str:
        return self._name(self.current)

    def _name(self, index: int) -> str:
        block, thread = divmod(index, self.block)
        return f"thread (block {block}, thread {thread})"

    def _list_threads(self, indices) -> str:
        lines = []
        for index in indices:
            thread = self.threads[index]
            if thread is not None and thread.waiting is not None:
                doing = f"waits at {thread.waiting[0]} at {thread.waiting[1]}"
            elif index == self.current:
                doing = f"runs at {_user_location(sys._getframe(1))}"
            elif thread is not None and thread.gr_frame is not None:
                doing = f"paused at {_user_location(thread.gr_frame)}"
            else:
                doing = "not started" if self.status[index] != _FINISHED else "finished"
            lines.append(f"    {self._name(index)} {doing}")
        return "\n".join(lines)


def _combine(op: str, values: dict):
    """The results of a completed warp collective, one per lane."""
    lanes = range(WARP_SIZE)
    if op == "shfl_down":
        return [values[lane + values[lane][1]][0] if lane + values[lane][1] < WARP_SIZE else values[lane][0]
                for lane in lanes]
    if op == "shfl_up":
        return [values[lane - values[lane][1]][0] if lane - values[lane][1] >= 0 else values[lane][0]
                for lane in lanes]
    if op == "shfl_xor":
        return [values[(lane ^ values[lane][1]) % WARP_SIZE][0] for lane in lanes]
    if op == "shfl_idx":
        return [values[values[lane][1] % WARP_SIZE][0] for lane in lanes]
    if op in _REDUCTIONS:
        return _butterfly(_REDUCTIONS[op], [values[lane][0] for lane in lanes])
    if op == "ballot":
        mask = sum(1 << lane for lane in lanes if values[lane][0])
        return [mask] * WARP_SIZE
    if op == "any":
        return [int(any(values[lane][0] for lane in lanes))] * WARP_SIZE
    if op == "all":
        return [int(all(values[lane][0] for lane in lanes))] * WARP_SIZE
    return [None] * WARP_SIZE  # syncwarp


_REDUCTIONS = {"reduce_add": lambda a, b: a + b, "reduce_max": max, "reduce_min": min}


def _butterfly(combine, values: list) -> list:
    """What ``value = combine(value, T.shfl_xor(value, offset))`` for offsets 16 ... 1 leaves in each lane: the
    same operations in the same order, so float sums are bit-identical to the shuffles'."""
    offset = WARP_SIZE // 2
    while offset > 0:
        values = [combine(values[lane], values[lane ^ offset]) for lane in range(WARP_SIZE)]
        offset //= 2
    return values


def _location(frame) -> str:
    return f"{frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_lineno}"


def _user_location(frame) -> str:
    """The innermost frame outside the simulator: the kernel line a thread is at."""
    while frame is not None and frame.f_code.co_filename.startswith(_SIM_DIR):
        frame = frame.f_back
    return _location(frame) if frame is not None else "?"


def _array_name(frame) -> str:
    """The variable a ``T.shared_array``/``T.local_array`` line assigns: read from the source when the kernel
    was decorated (a doctest's source is gone by the time a later block launches it), else from the file."""
    known = array_names(frame.f_code).get(frame.f_lineno)
    if known is not None:
        return known
    match = _ARRAY_NAME.match(linecache.getline(frame.f_code.co_filename, frame.f_lineno))
    return match.group(1) if match else f"array@{frame.f_lineno}"


def _check_size(size, frame) -> int:
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise InvalidArgument(
            f"shared/local array size must be a positive integer constant, got {size!r} at {_location(frame)}"
        )
    return size
