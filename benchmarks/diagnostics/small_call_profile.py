"""Where a small bipartite call's time goes (``benchmarks/RESULTS.md``, issue 18): 50 warm calls of
``maximum_bipartite_matching(g, "apfb", backend)`` on a 200 x 200 graph of 800 edges, timed, then under cProfile.

Usage, on the GPU machine: ``python3 -P benchmarks/diagnostics/small_call_profile.py``
"""

import cProfile
import pstats
import time

from gpusim.algorithms.bipartite import maximum_bipartite_matching
from gpusim.types.generators import uniform_random


def main() -> None:
    graph = uniform_random(200, 200, 800, seed=1)
    for backend in ("cupy", "numba"):
        for _ in range(3):
            maximum_bipartite_matching(graph, "apfb", backend)
        start = time.perf_counter()
        for _ in range(50):
            result = maximum_bipartite_matching(graph, "apfb", backend)
        print(backend, "whole ms", (time.perf_counter() - start) / 50 * 1e3, "phases", result.stats["seconds"],
              "launches", sum(result.stats["launches"].values()), flush=True)
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(50):
            maximum_bipartite_matching(graph, "apfb", backend)
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(18)


if __name__ == "__main__":
    main()
