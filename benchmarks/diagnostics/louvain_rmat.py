"""gpusim's Louvain on CuPy on one R-MAT graph of ``benchmarks/louvain.py`` (2^SCALE vertices, average degree
24; SCALE = 23 is 10^8 edges), with its progress bar and a stack dump every LIMIT seconds, to see where a call
that does not return is (``benchmarks/RESULTS.md``, the 10^8-edge Louvain diagnosis).

Usage, on the GPU machine, from ``benchmarks/``: ``python3 diagnostics/louvain_rmat.py SCALE LIMIT``
"""

import faulthandler
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/louvain.py's generators

from louvain import rmat  # noqa: E402

from gpusim.algorithms.louvain import louvain  # noqa: E402


def main(scale: int, limit: float) -> None:
    start = time.perf_counter()
    graph = rmat(scale, 24.0, 1)
    print("generated", scale, graph.n_entries, time.perf_counter() - start, flush=True)
    faulthandler.dump_traceback_later(limit, repeat=True)
    start = time.perf_counter()
    result = louvain(graph, backend="cupy", progress=True)
    seconds = time.perf_counter() - start
    print(json.dumps({"scale": scale, "s": seconds, "Q": result.modularity, "stats": result.stats}, default=str),
          flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), float(sys.argv[2]))
