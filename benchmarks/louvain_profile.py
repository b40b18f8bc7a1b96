"""Where a GPU Louvain call spends its time: each launch timed alone (synchronised before and after).

For each generated graph (R-MAT and planted partition, as in ``louvain.py``): NetworKit PLM's time and
modularity, then gpusim's whole call at each ``t_bin`` with both dip rules, then one more run with every
launch synchronised and timed, summed per kernel (the kernels take longer this way; the per-kernel
shares are what it is for).  Usage, on a machine with a GPU::

    python benchmarks/louvain_profile.py [--scale 21] [--backend cupy] [--bin-thresholds 1e-2,1e-4]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np
from louvain import networkit_plm, planted_partition, rmat

from gpusim import Device
from gpusim.algorithms.louvain import DIP_RULES, louvain, modularity
from gpusim.runtime.launcher import Launcher


def per_kernel(graph, device: Device) -> list[tuple[str, float, int]]:
    """``(kernel, seconds, launches)`` of one run with each launch synchronised, the slowest first."""
    seconds, launches = Counter(), Counter()
    plain = Launcher.__call__

    def timed(self, kernel, grid, block, *args):
        self.device.synchronize()
        start = time.perf_counter()
        plain(self, kernel, grid, block, *args)
        self.device.synchronize()
        seconds[kernel.name] += time.perf_counter() - start
        launches[kernel.name] += 1

    Launcher.__call__ = timed
    try:
        louvain(graph, device=device)
    finally:
        Launcher.__call__ = plain
    return [(name, s, launches[name]) for name, s in seconds.most_common()]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=21, help="log2 of the vertex count (default 21)")
    parser.add_argument("--degree", type=float, default=10.0, help="average degree (default 10)")
    parser.add_argument("--backend", default="cupy", help="numba or cupy (default cupy)")
    parser.add_argument("--bin-thresholds", default="1e-2,1e-4", help="t_bin values (default 1e-2,1e-4)")
    options = parser.parse_args(argv)
    device = Device(options.backend)
    louvain(planted_partition(4096, options.degree, 0)[0], device=device, bin_threshold=1e-6)  # compile
    graphs = [("rmat", rmat(options.scale, options.degree, options.scale)),
              ("planted", planted_partition(1 << options.scale, options.degree, options.scale)[0])]
    for name, graph in graphs:
        seconds, labels = networkit_plm(graph)
        q_plm = modularity(graph, np.unique(labels, return_inverse=True)[1])
        print(f"{name}: {graph.n} vertices, {graph.n_entries // 2} edges; PLM {seconds:.3f} s, Q {q_plm:.4f}")
        for t_bin in (float(t) for t in options.bin_thresholds.split(",")):
            for rule in DIP_RULES:
                start = time.perf_counter()
                result = louvain(graph, device=device, dip_rule=rule, bin_threshold=t_bin)
                whole = time.perf_counter() - start
                print(f"  t_bin={t_bin:g} {rule:<11} {whole:.3f} s ({seconds / whole:.1f}x PLM), "
                      f"Q {result.modularity:.4f} ({result.modularity / q_plm:.4f} of PLM), "
                      f"sweeps {result.stats['sweeps']}")
        print("  per kernel:", ", ".join(f"{k} {s:.4f} s/{n}" for k, s, n in per_kernel(graph, device)[:10]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
