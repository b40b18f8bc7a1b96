"""Where a GPU call spends the time outside its timed phases: gpusim's one profiling tool.

It takes the cases of ``benchmarks/resident.py`` (every GPU algorithm, its input already on the device), calls each
warm, and reads the host's clock at every phase's start and end (``Launcher.phase``).  It prints, per call (the
median of ``CALLS``): the whole call, the phases, and each gap between them: before the first phase (argument
checks, allocations), between phases, after the last one (reading totals back, the result object), the caller's
final synchronisation, and the release of the result when the caller drops it.  ``--steps`` names functions
(``module:function`` or ``module:Class.method``, e.g. ``gpusim.runtime.device:Device.empty``) whose time outside the
phases is added up and printed per call: what of the gaps each step takes.

Usage, from the repository root::

    python -m benchmarks.profile BACKEND SIZE FAMILY:ALGORITHM [...] [--steps STEP,...]

for instance ``python -m benchmarks.profile cupy small bipartite:apfb weighted:suitor`` (SIZE ``large``,
``small``, or ``quick``: tiny, for the simulator: ``python -m benchmarks.profile sim quick weighted:suitor``).
A kernel-by-kernel profile is NVIDIA's (``nsys profile python -m benchmarks.profile ...``); this tool times what
the kernels leave: the host's share of a call.
"""


import argparse
import functools
import importlib
import statistics
import sys
import time
from collections import defaultdict
from contextlib import contextmanager

from benchmarks import resident
from gpusim import Device
from gpusim.runtime.launcher import Launcher

CALLS = 30
marks: list[tuple[str, float]] = []
original_phase = Launcher.phase
in_phase = [False]
phase_seconds = [0.0]  # the phases' time so far: a step's time outside them is its time less theirs
#: Seconds outside the phases of each ``--steps`` function, this call (outermost calls only).
step_seconds: dict[str, float] = defaultdict(float)
step_depth = defaultdict(int)


@contextmanager
def marked_phase(self, name):
    marks.append((f"{name}>", time.perf_counter()))
    in_phase[0] = True
    with original_phase(self, name):
        yield
    in_phase[0] = False
    marks.append((f"<{name}", time.perf_counter()))
    phase_seconds[0] += marks[-1][1] - marks[-2][1]


def timed_step(label: str, function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if in_phase[0] or step_depth[label]:
            return function(*args, **kwargs)
        step_depth[label] += 1
        start, phases_before = time.perf_counter(), phase_seconds[0]
        try:
            return function(*args, **kwargs)
        finally:
            step_seconds[label] += time.perf_counter() - start - (phase_seconds[0] - phases_before)
            step_depth[label] -= 1
    return wrapper


def wrap_step(step: str) -> None:
    """Replace ``module:name`` (or ``module:Class.method``) by a timed wrapper, where it is defined and in every
    module that imported it by name."""
    module_name, _, qualname = step.partition(":")
    owner = importlib.import_module(module_name)
    *path, name = qualname.split(".")
    for part in path:
        owner = getattr(owner, part)
    original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
    wrapped = timed_step(qualname, original.__func__ if isinstance(original, staticmethod) else original)
    setattr(owner, name, staticmethod(wrapped) if isinstance(original, staticmethod) else wrapped)
    if not path:
        for module in list(sys.modules.values()):
            if getattr(module, name, None) is original:
                setattr(module, name, wrapped)


def one_call(case, data, dev) -> list[tuple[str, float]]:
    """The gaps and phases of one call, in order: ``(label, seconds)``; the steps' times are in ``step_seconds``."""
    marks.clear()
    step_seconds.clear()
    start = time.perf_counter()
    result = case.call(data, dev)
    returned = time.perf_counter()
    dev.synchronize()
    end = time.perf_counter()
    del result
    released = time.perf_counter()
    points = [("call>", start), *marks, ("return", returned)]
    spans = []
    for (a, t0), (b, t1) in zip(points, points[1:], strict=False):
        label = a[:-1] if a.endswith(">") and b.startswith("<") else f"gap {a} .. {b}"
        spans.append((label, t1 - t0))
    spans.append(("final synchronize", end - returned))
    spans.append(("release of the result (after the call)", released - end))
    spans.extend((f"step {label}", seconds) for label, seconds in sorted(step_seconds.items()))
    return spans


def main(argv: list[str] | None = None) -> None:
    """Profile each named case on ``BACKEND`` and print its phases and gaps."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("backend")
    parser.add_argument("size", choices=("large", "small", "quick"))
    parser.add_argument("cases", nargs="+", metavar="FAMILY:ALGORITHM")
    parser.add_argument("--steps", default="", help="module:function or module:Class.method, comma-separated")
    options = parser.parse_args(argv)
    backend, size = options.backend, options.size
    Launcher.phase = marked_phase
    for step in filter(None, options.steps.split(",")):
        wrap_step(step)
    dev = Device(backend)
    for family_algorithm in options.cases:
        case = resident.case_named(family_algorithm, size == "large", size == "quick")
        data = case.prepare(dev)
        for _ in range(3):
            case.call(data, dev)
        dev.synchronize()
        calls = [one_call(case, data, dev) for _ in range(CALLS)]
        labels = [label for label, _ in calls[0]]
        if any([label for label, _ in c] != labels for c in calls):
            print(f"{case.algorithm}: the calls took different paths; the first call's is shown")
            calls = [c for c in calls if [label for label, _ in c] == labels]
        medians = [statistics.median(c[i][1] for c in calls) for i in range(len(labels))]
        whole = statistics.median(sum(s for label, s in c if not label.startswith(("step", "release"))) for c in calls)
        phases = sum(m for label, m in zip(labels, medians, strict=True)
                     if not label.startswith(("gap", "final", "step", "release")))
        print(f"\n== {backend} {case.algorithm} on {case.input}: whole {whole * 1e6:.0f} us, phases "
              f"{phases * 1e6:.0f} us, outside {(whole - phases) * 1e6:.0f} us (medians of {len(calls)} calls)")
        merged: dict[str, list[float]] = {}
        for label, m in zip(labels, medians, strict=True):
            merged.setdefault(label, []).append(m)
        for label, values in merged.items():
            print(f"  {label:<40} {sum(values) * 1e6:9.1f} us  ({len(values)}x)")


if __name__ == "__main__":
    main()
