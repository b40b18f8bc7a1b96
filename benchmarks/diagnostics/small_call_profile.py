"""Where a small bipartite call's time goes (``benchmarks/RESULTS.md``, issue 18): 50 warm calls of
``maximum_bipartite_matching(g, "apfb", backend)`` on a 200 x 200 graph of 800 edges, timed, then under cProfile;
then the same call on the graph already on the device, its matching left there (``output="device"``), whose
time beyond the driver's timed phases is what issue 18's "resident within 1.2x of the device phases" measures.

Usage, on the GPU machine: ``python3 -P benchmarks/diagnostics/small_call_profile.py [--resident-only]``
"""

import cProfile
import pstats
import sys
import time

from gpusim import Device
from gpusim.algorithms.bipartite import maximum_bipartite_matching
from gpusim.runtime.device_graphs import to_device
from gpusim.types.generators import uniform_random

CALLS = 50


def profile(label: str, call) -> None:
    for _ in range(3):
        call()
    start = time.perf_counter()
    for _ in range(CALLS):
        result = call()
    whole = (time.perf_counter() - start) / CALLS
    phases = sum(result.stats["seconds"].values())
    print(f"{label}: whole {whole * 1e3:.3f} ms, timed phases {phases * 1e3:.3f} ms (whole / phases "
          f"{whole / phases:.2f}), phases {result.stats['seconds']}, launches {sum(result.stats['launches'].values())}",
          flush=True)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(CALLS):
        call()
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(22)


def main() -> None:
    graph = uniform_random(200, 200, 800, seed=1)
    for backend in ("cupy", "numba"):
        if "--resident-only" not in sys.argv:
            profile(f"{backend} host input", lambda b=backend: maximum_bipartite_matching(graph, "apfb", b))
        dev = Device(backend)
        resident = to_device(dev, graph)
        profile(f"{backend} resident", lambda b=backend, g=resident: maximum_bipartite_matching(
            g, "apfb", b, output="device"))
        profile(f"{backend} resident, device=", lambda d=dev, g=resident: maximum_bipartite_matching(
            g, "apfb", device=d, output="device"))


if __name__ == "__main__":
    main()
