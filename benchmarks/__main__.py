"""``python -m benchmarks AREA [--quick]``: rerun one comparison and write its JSON and plot.

Each area writes ``benchmarks/results/<device>/<area>.json`` and ``<area>.png`` (``<device>``: the GPU's model,
``h200``, or ``cpu-<N>cores`` without a GPU), replacing the last ones: earlier figures live in git's history.
``python -m benchmarks all [--quick]`` runs every area this machine can run, each in its own process; an area that
needs a GPU is skipped with one line on a machine without one.  Any other option after the area goes to it
(``python -m benchmarks weighted --parts suitor``; ``python -m benchmarks AREA --help`` lists them).

Areas (module ``benchmarks/<module>.py``, each with ``main(argv) -> int``, ``--quick`` and ``--out DIR``):

=============  ==========================================================================================
bipartite      maximum bipartite matching (APFB, APsB, G-PR) against ECL-MM and SciPy            (GPU)
weighted       Suitor, Locally-Dominant, b-Suitor and ROMA against NetworKit and the references  (GPU)
louvain        GPU Louvain against ν-Louvain, GVE-Louvain, NetworKit PLM and the references      (GPU)
stable         GPU McVitie-Wilson and round-based Gale-Shapley against sequential Gale-Shapley   (GPU)
resident       every GPU algorithm on device-resident input: whole call against its device phases (GPU)
gpu-basics     launch overhead, compilation and copy bandwidth                                   (GPU)
sim            the simulator's scheduling points per second against numba's CUDA simulator
explore        the explorer's schedules per second per engine, and campaigns on 1-16 Dask workers
cpu            the compiled CPU engine against NetworkX, SciPy and NetworKit
first-contact  fresh processes: every subcommand with empty and warm kernel caches, and gpusim --help
multi-gpu      b-Suitor on several GPUs (Dask-CUDA, NCCL) and parts of one GPU beside one GPU       (GPU)
=============  ==========================================================================================

Anchors (ECL-MM, ν-Louvain/GVE-Louvain) are built from ``../shared/anchors/`` (or ``.anchors/``) when present,
and skipped with a message when not.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import subprocess
import sys
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Area:
    """One comparison: its name on the command line, its module, whether it needs a GPU, and what it shows."""

    name: str
    module: str
    gpu: bool
    summary: str


AREAS = {area.name: area for area in (
    Area("bipartite", "bipartite", True, "maximum bipartite matching against ECL-MM and SciPy"),
    Area("weighted", "weighted", True, "weighted matching against NetworKit and the sequential references"),
    Area("louvain", "louvain", True, "Louvain against nu-Louvain, GVE-Louvain and NetworKit PLM"),
    Area("stable", "stable", True, "stable marriage against sequential Gale-Shapley"),
    Area("resident", "resident", True, "device-resident calls: whole call against device phases"),
    Area("gpu-basics", "gpu_basics", True, "launch overhead, compilation, copy bandwidth"),
    Area("sim", "sim", False, "simulator throughput against numba's CUDA simulator"),
    Area("explore", "explore", False, "explorer throughput per engine and scaling on Dask workers"),
    Area("cpu", "cpu", False, "the CPU engine against NetworkX, SciPy and NetworKit"),
    Area("first-contact", "first_contact", False, "fresh processes: every subcommand, empty and warm caches"),
    Area("multi-gpu", "multi_gpu", True, "b-Suitor on several GPUs and parts of one GPU beside one GPU"),
)}


def run_area(area: Area, argv: list[str]) -> int:
    """Run one area in this process: its module's ``main(argv)``; 1 with one line when it cannot run here."""
    from benchmarks import machine

    if area.gpu and not machine.has_gpu():
        print(f"{area.name}: skipped, no working GPU backend on this machine")
        return 1
    try:
        module = importlib.import_module(f"benchmarks.{area.module}")
    except ModuleNotFoundError as exc:
        if exc.name != f"benchmarks.{area.module}":
            raise
        print(f"{area.name}: skipped, benchmarks/{area.module}.py is not in this checkout")
        return 1
    return module.main(argv)


def run_all(rest: list[str]) -> int:
    """Every area this machine can run, one process each; a line per area with its time and exit status."""
    from benchmarks import machine

    gpu = machine.has_gpu()
    failed, start = [], time.perf_counter()
    for area in AREAS.values():
        if area.gpu and not gpu:
            print(f"== {area.name}: skipped (needs a GPU)", flush=True)
            continue
        if importlib.util.find_spec(f"benchmarks.{area.module}") is None:
            print(f"== {area.name}: skipped (benchmarks/{area.module}.py is not in this checkout)", flush=True)
            continue
        print(f"== {area.name}", flush=True)
        begin = time.perf_counter()
        rc = subprocess.run([sys.executable, "-m", "benchmarks", area.name, *rest]).returncode
        print(f"== {area.name}: exit {rc}, {time.perf_counter() - begin:.0f} s", flush=True)
        if rc:
            failed.append(area.name)
    print(f"all: {time.perf_counter() - start:.0f} s" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    """Parse ``AREA [options]`` and run it (or ``all``)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="areas:\n" + "\n".join(f"  {a.name:<11} {a.summary}"
                                                                   + (" (GPU)" if a.gpu else "")
                                                                   for a in AREAS.values())
                                     + "\n  all         every area this machine can run")
    parser.add_argument("area", choices=[*AREAS, "all"], metavar="AREA", help="an area below, or all")
    args = sys.argv[1:] if argv is None else list(argv)
    if not args or args[0] not in [*AREAS, "all"]:  # --help, or a bad area: argparse says so
        parser.parse_args(args[:1])
    area, rest = args[0], args[1:]  # the area's own options (its --help too) go to it
    return run_all(rest) if area == "all" else run_area(AREAS[area], rest)


if __name__ == "__main__":
    sys.exit(main())
