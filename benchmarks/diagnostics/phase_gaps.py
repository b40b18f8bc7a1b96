"""Where a device-resident call spends the time outside its timed phases (issue 18): the cases of
``benchmarks/resident.py``, each called warm, with the host's clock read at every phase's start and end; prints,
per call (the median of ``CALLS``), the whole call, the phases, and each gap between them: before the first phase
(argument checks, allocations), between phases, after the last one (reading totals back, the result object) and
the caller's final synchronisation.

Usage, on the GPU machine, from the repository root::

    python3 -P benchmarks/diagnostics/phase_gaps.py BACKEND SIZE FAMILY:ALGORITHM [...]

for instance ``cupy large weighted:ld weighted:roma`` (SIZE ``large``, ``small``, or ``quick``: tiny, for the
simulator).
"""

import statistics
import sys
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import resident  # noqa: E402 - benchmarks/resident.py, its cases

from gpusim import Device  # noqa: E402
from gpusim.runtime.launcher import Launcher  # noqa: E402

CALLS = 30
marks: list[tuple[str, float]] = []
original_phase = Launcher.phase


@contextmanager
def marked_phase(self, name):
    marks.append((f"{name}>", time.perf_counter()))
    with original_phase(self, name):
        yield
    marks.append((f"<{name}", time.perf_counter()))


def one_call(case, data, dev) -> list[tuple[str, float]]:
    """The gaps and phases of one call, in order: ``(label, seconds)``."""
    marks.clear()
    start = time.perf_counter()
    case.call(data, dev)
    returned = time.perf_counter()
    dev.synchronize()
    end = time.perf_counter()
    points = [("call>", start), *marks, ("return", returned)]
    spans = []
    for (a, t0), (b, t1) in zip(points, points[1:], strict=False):
        label = a[:-1] if a.endswith(">") and b.startswith("<") else f"gap {a} .. {b}"
        spans.append((label, t1 - t0))
    spans.append(("final synchronize", end - returned))
    return spans


def main() -> None:
    backend, size, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
    Launcher.phase = marked_phase
    dev = Device(backend)
    for family_algorithm in wanted:
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
        whole = statistics.median(sum(s for _, s in c) for c in calls)
        phases = sum(m for label, m in zip(labels, medians, strict=True) if not label.startswith(("gap", "final")))
        print(f"\n== {backend} {case.algorithm} on {case.input}: whole {whole * 1e6:.0f} us, phases "
              f"{phases * 1e6:.0f} us, outside {(whole - phases) * 1e6:.0f} us (medians of {len(calls)} calls)")
        merged: dict[str, list[float]] = {}
        for label, m in zip(labels, medians, strict=True):
            merged.setdefault(label, []).append(m)
        for label, values in merged.items():
            print(f"  {label:<40} {sum(values) * 1e6:9.1f} us  ({len(values)}x)")


if __name__ == "__main__":
    main()
