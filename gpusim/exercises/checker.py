"""The checker: run a learner's kernel under many schedules, with the race detector on, and say what happened.

:func:`check` loads the kernel (a ``@kernel`` object or a file that defines one), then runs it as an
exploration scenario: first a systematic search of the schedules with up to two preemptions, then
seeded random schedules, every run with ``races="raise"`` (the happens-before detector of
``gpusim.backends.sim.races``).  The :class:`Verdict` says, in plain words, one of

* ``correct``: the result was right and no race was found under N schedules;
* ``wrong result``: the inputs, what was expected, what the kernel left (and, when only some
  schedules go wrong, the interleaving that does);
* ``race``: two accesses that nothing orders, the interleaving replayed up to them, and a replay token;
* ``bug``: a deadlock, an out-of-bounds access, a barrier not all threads reach, ...;
* ``not allowed``: the kernel uses a member of ``T`` the exercise is about doing without;
* ``error``: the kernel raised a Python exception (a misspelt name, say), with its line.

>>> from gpusim.exercises import check, get_exercise
>>> verdict = check(5, get_exercise(5).solution_path)
>>> verdict.passed, verdict.status
(True, 'correct')
>>> check(5, get_exercise(5).stub_path).status
'wrong result'
"""

from __future__ import annotations

import importlib.util
import re
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from gpusim.backends.sim import TraceEvent, format_events
from gpusim.errors import DataRace, GpusimError, InvalidArgument, KernelBug
from gpusim.explore import Scenario, explore, interleaving, trace_of
from gpusim.explore.fault import fault_events, fault_note
from gpusim.language.kernels import Kernel

from .catalogue import get_exercise
from .exercise import Exercise

__all__ = ["Verdict", "check", "load_kernel"]

_STATUS = {"invariant": "wrong result", "DataRace": "race"}


@dataclass
class Verdict:
    """What the checker found.

    Attributes
    ----------
    exercise:
        The exercise's number.
    status:
        ``"correct"``, ``"wrong result"``, ``"race"``, ``"bug"``, ``"not allowed"`` or ``"error"`` (the
        kernel raised a Python exception: a misspelt name, say).
    message:
        What went wrong, in plain words (for ``correct``: how many schedules were tried).
    schedules:
        Schedules run.
    kind:
        ``"invariant"`` (a wrong result) or the simulator's ``KernelBug`` class (``"DataRace"``, ...).
    token:
        ``exercise.N@gs1-...``: replays the failing schedule (``gpusim exercise N FILE.py --replay TOKEN``).
    trace:
        The events of the failing run, replayed (for a race, ending with the racing access).
    highlight:
        The events of the fault (:func:`gpusim.explore.fault.fault_events`): the two racing accesses, the
        barrier and the thread that left it, the stale load and the store it missed; otherwise the accesses
        to the cells two threads shared.
    """

    exercise: int
    status: str
    message: str
    schedules: int
    kind: str | None = None
    token: str | None = None
    preemptions: int = 0
    trace: list[TraceEvent] = field(default_factory=list, repr=False)
    highlight: list[TraceEvent] = field(default_factory=list, repr=False)

    @property
    def passed(self) -> bool:
        return self.status == "correct"

    def report(self, file: str = "FILE.py") -> str:
        """The verdict as text: the status, the message, the interleaving and how to replay it."""
        lines = [f"exercise {self.exercise}: {self.status}", self.message]
        if self.highlight:
            lines += ["", "the interleaving that matters (replayed):", format_events(self.highlight, None)]
        if self.token:
            lines += ["", f"replay: gpusim exercise {self.exercise} {file} --replay {self.token}"]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """JSON-ready fields."""
        return {"exercise": self.exercise, "status": self.status, "passed": self.passed, "message": self.message,
                "schedules": self.schedules, "kind": self.kind, "token": self.token, "preemptions": self.preemptions,
                "interleaving": [e._asdict() for e in self.highlight]}


def load_kernel(source: str | Path | Kernel, name: str | None = None) -> Kernel:
    """The ``@kernel`` in ``source`` (a Kernel, or a Python file); with several, the one called ``name``."""
    if isinstance(source, Kernel):
        return source
    if not isinstance(source, (str, Path)):
        raise InvalidArgument(f"expected a @kernel or a file name, got {source!r}")
    path = Path(source)
    if not path.is_file():
        raise InvalidArgument(f"no such file: {str(path)!r}")
    module_name = "gpusim_exercise_" + re.sub(r"\W", "_", path.stem)
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        raise InvalidArgument(f"{path}:{error.lineno}: syntax error: {error.msg}") from None
    except InvalidArgument as error:
        raise InvalidArgument(f"{path}: {' '.join(str(error).split())}") from None
    except Exception as error:  # noqa: BLE001 - whatever the learner's file raises, one line
        raise InvalidArgument(f"{path}: importing it raised {type(error).__name__}: {error}") from None
    finally:
        sys.modules.pop(module_name, None)
    kernels = {value.name: value for value in vars(module).values() if isinstance(value, Kernel)}
    if not kernels:
        raise InvalidArgument(f"{path} defines no @kernel function")
    if name in kernels:
        return kernels[name]
    if len(kernels) == 1:
        return next(iter(kernels.values()))
    raise InvalidArgument(f"{path} defines several kernels ({', '.join(sorted(kernels))}) and none called {name!r}")


def check(number: int, source: str | Path | Kernel, *, schedules: int | None = None, seed: int = 0,
          replay: str | None = None) -> Verdict:
    """Check the kernel in ``source`` (a file or a ``@kernel``) against exercise ``number``.

    ``schedules`` overrides the exercise's budget (for the systematic search and again for the random
    schedules); ``replay`` (a verdict's ``token``) runs that one schedule instead of searching.
    """
    exercise = get_exercise(number)
    kernel = load_kernel(source, exercise.kernel)
    _check_parameters(exercise, kernel)
    used = [member for member in exercise.forbidden if member in kernel.fn.__code__.co_names]
    if used:
        return Verdict(exercise.number, "not allowed", f"this exercise is about doing without T.{used[0]}: "
                                                        f"{exercise.statement}", 0)
    # not registered: the token replays through check(..., replay=token), which has the learner's kernel
    scenario = Scenario(f"exercise.{exercise.number}", lambda dev: exercise.run_once(dev, kernel),
                        options={"races": "raise", **exercise.options}, threads=exercise.grid * exercise.block,
                        description=exercise.title)
    if replay is not None:
        return _replayed(exercise, kernel, scenario, replay.split("@", 1)[-1], 1)
    budget = exercise.schedules if schedules is None else schedules
    tried = 0
    for policy in ("systematic", "random"):
        try:
            found = explore(scenario, policy, budget=budget, seed=seed, max_preemptions=2)
        except Exception as error:  # noqa: BLE001 - an exception the learner's kernel raised is a verdict
            return _raised(exercise, kernel, error, tried)
        tried += found.schedules
        if found.failure is not None:
            return _replayed(exercise, kernel, scenario, found.failure.token, tried)
    return Verdict(exercise.number, "correct", f"correct under {tried} schedules (no wrong result, no race)", tried)


def _raised(exercise: Exercise, kernel: Kernel, error: Exception, tried: int) -> Verdict:
    """The verdict on a Python exception raised in the learner's kernel (anything else goes on up)."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == kernel.filename]
    if not frames or isinstance(error, GpusimError):
        raise error
    where = f"{Path(kernel.filename).name}:{frames[-1].lineno}"
    return Verdict(exercise.number, "error", f"the kernel raised {type(error).__name__} at {where}: {error}",
                   tried + 1, type(error).__name__)


def _check_parameters(exercise: Exercise, kernel: Kernel) -> None:
    want = exercise.parameters()
    have = list(kernel.params)
    if len(have) != len(want):
        raise InvalidArgument(f"kernel {kernel.name}{tuple(have)} takes {len(have)} parameter(s); exercise "
                              f"{exercise.number} passes {len(want)}: {', '.join(want)}")


def _replayed(exercise: Exercise, kernel: Kernel, scenario: Scenario, token: str, tried: int) -> Verdict:
    """Replay ``token`` with tracing on; the verdict, with the race report the replay raises."""
    dev = scenario.device(schedule=token, trace=True)
    report = None
    try:
        message = exercise.run_once(dev, kernel)
        kind = None if message is None else "invariant"
    except KernelBug as bug:
        message, kind = bug.summary, type(bug).__name__
        report = bug.report if isinstance(bug, DataRace) else None
    except Exception as error:  # noqa: BLE001 - as in check: the learner's exception is a verdict
        return _raised(exercise, kernel, error, tried - 1)
    trace = trace_of(dev.runs)
    replay_token = f"{scenario.name}@{dev.token}"
    preemptions = sum(run.preemptions for run in dev.runs)
    if kind is None:
        return Verdict(exercise.number, "correct", "the replayed schedule gives the right result, with no race",
                       tried, token=replay_token, trace=trace)
    if report is not None:
        highlight = fault_events(trace, kind, str(report)) or []
        trace = [*trace, highlight[-1]] if highlight and highlight[-1] not in trace else trace
        message = f"race found: {report}\n{report.explain()}"
    else:
        highlight = fault_events(trace, kind, message) or interleaving(trace, 24)
        note = fault_note(trace, kind, message)
        message += f"\n{note}" if note else ""
    if kind not in _STATUS and not message.startswith(kind):
        message = f"{kind}: {message}"
    elif kind == "invariant" and preemptions:
        message += f"\n(under this schedule, with {preemptions} preemption(s); the plain sequential run may pass)"
    return Verdict(exercise.number, _STATUS.get(kind, "bug"), message, tried, kind, replay_token, preemptions,
                   trace, highlight)

