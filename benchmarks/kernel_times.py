"""Where a Louvain call's GPU time goes, kernel by kernel: CUDA events around each launch of one warm call.

It generates the ``louvain`` area's R-MAT, planted-partition and random geometric graphs (``benchmarks/louvain.py``,
average degree 10, or ``degree=16``; ``rmat_on_gpu=True`` draws R-MAT with CuPy) at ``2^SCALE`` vertices
(``graphs=rmat,geometric`` picks some), calls gpusim's Louvain on CuPy three times untimed (compiling and growing the
memory pool), times two calls, then records a CuPy event before and after every launch of one more call
(:meth:`gpusim.runtime.launcher.Launcher.__call__`) and prints, per graph: the best whole call, the modularity, the
levels and sweeps, the phases, the host's share (the call's time less its kernels' GPU time: launches, reads back and
idle GPU), each phase's kernel time with its slowest kernels, and the kernels by GPU time (launches, milliseconds).
The events' own cost makes that call a little slower than the others; the kernels' shares are what it is for. Options
after the scale go to ``louvain`` as ``NAME=VALUE`` (``prune=False``, ``tolerance_drop=None``, ``kernels=paper``);
``backend=numba`` times numba's kernels (the events are CuPy's, on the same default stream).
Usage, on a machine with CuPy::

    python -m benchmarks.kernel_times 22 [graphs=rmat,planted,geometric] [backend=cupy|numba] [degree=10]
                                         [rmat_on_gpu=True] [NAME=VALUE ...]
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict

import numpy as np

from benchmarks.louvain import planted_partition, random_geometric, rmat, rmat_on_gpu
from benchmarks.timing import timed
from gpusim import Device
from gpusim.algorithms.louvain import louvain, modularity
from gpusim.runtime.launcher import Launcher

#: Kernels printed per graph, the slowest first.
SHOWN = 22
#: Kernels printed per phase, the slowest first.
PER_PHASE = 4


def kernel_times(graph, device: Device, **options) -> tuple[object, dict[str, list], dict[str, dict[str, float]]]:
    """One call of ``louvain`` with an event pair around each launch: its result, ``{kernel: [launches, ms]}`` (a
    kernel launched in steps, its last parameter ``step``, by step: ``move_block_global[1]``) and each phase the
    call opened (``optimise 0``, ``aggregate 0``, ``optimise 1``, ...) with its kernels' milliseconds,
    ``{phase: {kernel: ms}}``."""
    import cupy

    events, original, phases, kept = [], Launcher.__call__, {}, []

    def timed(self, kernel, grid, block, *args):
        before, after = cupy.cuda.Event(), cupy.cuda.Event()
        before.record()
        original(self, kernel, grid, block, *args)
        after.record()
        opened = self._open
        if opened is not None and id(opened) not in phases:  # kept alive below, so that no id is used again
            phases[id(opened)] = f"{opened.name} {sum(name.startswith(opened.name) for name in phases.values())}"
            kept.append(opened)
        name = f"{kernel.name}[{args[-1]}]" if kernel.params[-1] == "step" else kernel.name  # a kernel of steps
        events.append((name, phases.get(id(opened), "-"), before, after))

    Launcher.__call__ = timed
    try:
        result = louvain(graph, device=device, **options)
    finally:
        Launcher.__call__ = original
    cupy.cuda.runtime.deviceSynchronize()
    per: dict[str, list] = defaultdict(lambda: [0, 0.0])
    by_phase: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for name, phase, before, after in events:
        ms = cupy.cuda.get_elapsed_time(before, after)
        per[name][0] += 1
        per[name][1] += ms
        by_phase[phase][name] += ms
    return result, dict(per), dict(by_phase)


def main(argv: list[str]) -> int:
    scale = int(argv[0]) if argv else 22
    options = {}
    for pair in argv[1:]:
        name, _, value = pair.partition("=")
        try:
            options[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            options[name] = value
    device = Device(str(options.pop("backend", "cupy")))
    degree, draw_rmat = float(options.pop("degree", 10.0)), rmat_on_gpu if options.pop("rmat_on_gpu", False) else rmat
    makers = {"rmat": lambda: draw_rmat(scale, degree, scale),
              "planted": lambda: planted_partition(1 << scale, degree, scale)[0],
              "geometric": lambda: random_geometric(1 << scale, degree, scale)}
    for name in str(options.pop("graphs", ",".join(makers))).split(","):
        graph = makers[name]()
        for _ in range(3):
            louvain(graph, device=device, **options)
        best = min(timed(lambda g=graph: louvain(g, device=device, **options))[0] for _ in range(2))
        result, per, by_phase = kernel_times(graph, device, **options)
        q = modularity(graph, np.asarray(result.labels))
        stats = result.stats
        print(f"== {name}: n={graph.n} entries={graph.n_entries} best call {best:.3f} s, Q={q:.4f}, levels "
              f"{stats['levels']}, sweeps {stats['sweeps']}, refine {stats['refine_sweeps']}")
        print("   phases", {phase: round(seconds, 4) for phase, seconds in stats["seconds"].items()})
        gpu_ms = sum(ms for _, ms in per.values())
        print(f"   kernels {gpu_ms:.1f} ms in {sum(c for c, _ in per.values())} launches; host share "
              f"{1000 * best - gpu_ms:.1f} ms")
        for phase, kernels in by_phase.items():
            slowest = sorted(kernels.items(), key=lambda item: -item[1])[:PER_PHASE]
            print(f"   {phase:12s} {sum(kernels.values()):7.1f} ms:",
                  ", ".join(f"{kernel} {ms:.2f}" for kernel, ms in slowest))
        for kernel, (count, ms) in sorted(per.items(), key=lambda item: -item[1][1])[:SHOWN]:
            print(f"   {kernel:28s} {count:6d} {ms:9.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
