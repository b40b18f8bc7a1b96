"""Where a device-resident call's host time goes (issue 18): the cases of ``benchmarks/resident.py``, each called
warm 50 times under cProfile, its result left on the device; prints the whole call, the timed phases and the
functions that took the most time of their own, then the gpusim functions by their time with what they call.

Usage, on the GPU machine, from the repository root::

    python3 -P benchmarks/diagnostics/resident_profile.py BACKEND SIZE FAMILY:ALGORITHM [...]

for instance ``cupy small bipartite:apfb weighted:suitor`` or ``numba large weighted:ld`` (SIZE ``quick``: tiny, for
the simulator).
"""

import cProfile
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import resident  # noqa: E402 - benchmarks/resident.py, its cases

from gpusim import Device  # noqa: E402

CALLS = 50


def main() -> None:
    backend, size, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
    dev = Device(backend)
    for family_algorithm in wanted:
        case = resident.case_named(family_algorithm, size == "large", quick=size == "quick")
        data = case.prepare(dev)
        for _ in range(3):
            case.call(data, dev)
        dev.synchronize()
        start = time.perf_counter()
        for _ in range(CALLS):
            result = case.call(data, dev)
            dev.synchronize()
        whole = (time.perf_counter() - start) / CALLS
        phases = sum(result.stats["seconds"].values())
        print(f"\n== {backend} {case.algorithm} on {case.input}: whole {whole * 1e3:.3f} ms, last call's phases "
              f"{phases * 1e3:.3f} ms, {sum(result.stats['launches'].values())} launches", flush=True)
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(CALLS):
            case.call(data, dev)
            dev.synchronize()
        profiler.disable()
        stats = pstats.Stats(profiler)
        per_call("own time", stats, 2, 30)
        per_call("with what they call (gpusim's)", stats, 3, 40, "gpusim")


def per_call(title: str, stats: pstats.Stats, column: int, rows: int, only: str = "") -> None:
    """The functions by their own (``column`` 2) or cumulative (3) time, in microseconds per call of the case
    (pstats prints milliseconds over all calls, too coarse for a call of a few hundred microseconds)."""
    entries = [(values[column], values[1], key) for key, values in stats.stats.items() if only in key[0]]
    print(f"  -- {title}, us per call (profiled: slower than unprofiled)")
    for seconds, count, (path, line, function) in sorted(entries, reverse=True)[:rows]:
        where = "/".join(Path(path).parts[-2:]) if path != "~" else ""
        print(f"  {seconds / CALLS * 1e6:8.1f}  {count / CALLS:5.1f}x  {where}:{line}({function})")


if __name__ == "__main__":
    main()
