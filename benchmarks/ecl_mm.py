"""ECL-MM, the native comparison of ``benchmarks/e2e.py``: find, build and run it, and feed it gpusim's graphs.

ECL-MM (Akathoott and Burtscher, IPDPS 2025; BSD-3, kept outside the project in ``../shared/anchors/ecl-mm``
with its build script) reads a bipartite graph in ECL's binary CSR format (``.egr``), every value a
little-endian int32::

    nodes  edges  nindex[nodes + 1]  nlist[edges]

with ``nodes = |A| + |B|`` and ``|A| = |B| = nodes / 2`` (ECL-MM splits the vertices in halves, and its
converter ``mm2eclbp`` accepts only square matrices), each edge stored in both directions, A's vertex ``a``
adjacent to ``|A| + b``, and every list sorted.  :func:`egr_arrays` writes a :class:`BipartiteGraph` that
way straight from its two CSR sides (no sort: they are sorted already), padding the smaller side with
isolated vertices, which change no matching's size.  The bytes are those of ``mm2eclbp`` for the same
matrix (``tests/test_bench_e2e.py`` compiles it and compares).

ECL-MM prints its matching's size (``sizeof_finalMatching: M edges``) and its timer
(``totalRunTime: T s``: the initial matching plus the augmenting-path phase, host wall-clock around the
GPU phases with the graph already on the device); :func:`parse_output` reads them.

>>> from gpusim.types.graphs import BipartiteGraph
>>> nindex, nlist = egr_arrays(BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0]))
>>> nindex.tolist(), nlist.tolist()
([0, 2, 3, 5, 6], [2, 3, 2, 0, 1, 0])
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np

from gpusim.types.graphs import BipartiteGraph

ROOT = Path(__file__).resolve().parents[1]
#: Where ECL-MM's sources are looked for after ``--ecl-dir``: the copy the device run carries, then the anchors.
ECL_DIRS = (ROOT / ".anchors" / "ecl-mm", ROOT.parent / "shared" / "anchors" / "ecl-mm")


class EclError(RuntimeError):
    """ECL-MM cannot be found, built or run, or printed something unexpected (a one-line message)."""


def egr_arrays(graph: BipartiteGraph) -> tuple[np.ndarray, np.ndarray]:
    """``(nindex, nlist)`` of ``graph`` in ECL's bipartite layout: rows are ``0..k-1``, columns ``k..2k-1``,
    ``k = max(n_rows, n_cols, 1)`` (the smaller side padded with isolated vertices)."""
    k = max(graph.n_rows, graph.n_cols, 1)
    m = graph.n_edges
    if 2 * m >= 2**31 or 2 * k >= 2**31:
        raise EclError(f"graph too large for ECL's int32 CSR: {2 * m} directed edges, {2 * k} vertices")
    nindex = np.empty(2 * k + 1, np.int32)
    nindex[: graph.n_rows + 1] = graph.row_ptr
    nindex[graph.n_rows + 1: k + 1] = m
    nindex[k + 1: k + 1 + graph.n_cols] = m + graph.col_ptr[1:].astype(np.int64)
    nindex[k + 1 + graph.n_cols:] = 2 * m
    nlist = np.concatenate([graph.row_adj.astype(np.int32) + np.int32(k), graph.col_adj.astype(np.int32)])
    return nindex, nlist


def write_egr(graph: BipartiteGraph, path: str | os.PathLike) -> Path:
    """Write ``graph`` as an ECL-MM input file (see the module's docstring) and return its path."""
    nindex, nlist = egr_arrays(graph)
    path = Path(path)
    with path.open("wb") as handle:
        np.array([nindex.size - 1, nlist.size], "<i4").tofile(handle)
        nindex.astype("<i4", copy=False).tofile(handle)
        nlist.astype("<i4", copy=False).tofile(handle)
    return path


_FIELDS = {
    "size": (r"^sizeof_finalMatching:\s*(\d+)", int),
    "initial_size": (r"^sizeof_initialMatching:\s*(\d+)", int),
    "seconds": (r"^totalRunTime:\s*([0-9.eE+-]+)\s*s", float),
    "init_seconds": (r"^initRuntime:\s*([0-9.eE+-]+)\s*s", float),
    "ap_seconds": (r"^apSearchTime:\s*([0-9.eE+-]+)\s*s", float),
    "iterations": (r"^apSearch_iterations:\s*(\d+)", int),
    "edges_directed": (r"^\|E\|:\s*(\d+)", int),
    "gpu": (r"^GPU:\s*(.*?)\s+with\s+\d+\s+SMs", str),
}


def parse_output(text: str) -> dict:
    """ECL-MM's printed figures: ``size`` and ``seconds`` (its ``totalRunTime``) always, the others when printed.

    >>> parse_output("totalRunTime: 0.012500 s\\nsizeof_finalMatching: 42 edges\\n")
    {'size': 42, 'seconds': 0.0125}
    """
    found = {}
    for key, (pattern, kind) in _FIELDS.items():
        match = re.search(pattern, text, re.MULTILINE)
        if match:
            found[key] = kind(match.group(1))
    missing = [key for key in ("size", "seconds") if key not in found]
    if missing:
        tail = " | ".join(text.strip().splitlines()[-3:])
        raise EclError(f"ECL-MM printed no {' or '.join(missing)} (last lines: {tail!r})")
    return found


def find_sources(option: str | None) -> Path:
    """The first ECL-MM source folder holding ``build.sh``: ``option``, then :data:`ECL_DIRS`."""
    candidates = ([Path(option)] if option else []) + list(ECL_DIRS)
    for folder in candidates:
        if (folder / "build.sh").is_file():
            return folder.resolve()
    raise EclError("no ECL-MM sources with build.sh in " + ", ".join(str(c) for c in candidates))


def build(sources: Path, out: Path) -> Path:
    """ECL-MM built by its own ``build.sh`` into ``out`` (kept: an up-to-date binary is not rebuilt)."""
    binary = out / "ecl-mm"
    if binary.is_file() and binary.stat().st_mtime >= (sources / "ECL-MM_10.cu").stat().st_mtime:
        return binary
    env = dict(os.environ)
    if shutil.which("nvcc") is None:
        if not Path("/usr/local/cuda/bin/nvcc").is_file():
            raise EclError("nvcc is neither on PATH nor in /usr/local/cuda/bin: ECL-MM cannot be built")
        env["PATH"] = "/usr/local/cuda/bin" + os.pathsep + env.get("PATH", "")
    done = subprocess.run(["bash", str(sources / "build.sh"), str(out)], capture_output=True, text=True, env=env)
    if done.returncode != 0 or not binary.is_file():
        last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise EclError(f"ECL-MM's build.sh failed (exit {done.returncode}): {last[0]}")
    return binary


def run(binary: Path, egr: Path, repeats: int = 3, timeout: float = 600.0) -> dict:
    """ECL-MM on ``egr``, ``repeats`` processes: the figures of the fastest, with ``process_seconds`` (the
    wall-clock of that whole process: reading the file, creating the CUDA context) and ``runs``.

    ``CUDA_MODULE_LOADING=EAGER`` loads its kernels with the context, before its timer starts (lazy
    loading would put the first launches' module loading inside ECL-MM's timer).
    """
    env = dict(os.environ, CUDA_MODULE_LOADING="EAGER")
    best, runs = None, []
    for _ in range(repeats):
        start = time.perf_counter()
        try:
            done = subprocess.run([str(binary), str(egr)], capture_output=True, text=True, env=env, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise EclError(f"ECL-MM ran past {timeout:.0f} s on {egr.name}") from exc
        wall = time.perf_counter() - start
        if done.returncode != 0:
            last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise EclError(f"ECL-MM failed on {egr.name} (exit {done.returncode}): {last[0]}")
        figures = parse_output(done.stdout)
        figures["process_seconds"] = wall
        runs.append(figures["seconds"])
        if best is not None and figures["size"] != best["size"]:
            raise EclError(f"ECL-MM found sizes {best['size']} and {figures['size']} on {egr.name}")
        if best is None or figures["seconds"] < best["seconds"]:
            best = figures
    return {**best, "runs": runs}
