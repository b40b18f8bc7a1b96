"""Where a device-resident call's host time goes (issue 18): the cases of ``benchmarks/resident.py``, each called
warm 50 times under cProfile, its result left on the device; prints the whole call, the timed phases and the
functions that took the most time of their own, then the gpusim functions by their time with what they call.

Usage, on the GPU machine, from the repository root::

    python3 -P benchmarks/diagnostics/resident_profile.py BACKEND SIZE FAMILY:ALGORITHM [...]

for instance ``cupy small bipartite:apfb weighted:suitor`` or ``numba large weighted:ld``.
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
        case = resident.case_named(family_algorithm, size == "large")
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
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats("gpusim|algorithms|backends|runtime|types", 40)


if __name__ == "__main__":
    main()
