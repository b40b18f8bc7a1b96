"""ν-Louvain and GVE-Louvain, the native comparisons of the ``louvain`` area: find, build and run them.

Subhajit Sahu's code (S. Sahu, "CPU vs. GPU for Community Detection: Performance Insights from GVE-Louvain and
ν-Louvain", arXiv:2501.19004, 2025; MIT, kept outside the project in ``../shared/anchors/nu-louvain``) is one
program: its
``main.cxx`` reads a Matrix Market file, symmetrises it, runs GVE-Louvain (OpenMP, every host core) and ν-Louvain
(CUDA) on it, and prints one line per method, with the method's time and the modularity of its communities::

    {016 threads} -> {0000123.4ms, ... 0004 passes, 0.701234567 modularity} louvainStaticOmp

It is built as its ``main.sh`` builds it, with ``nvcc`` (``-x cu main.cxx``, ``-fopenmp``), for this machine's GPU
(``-arch=native``).  Without ``nvcc`` or the sources the comparison is skipped with a message.

>>> parse_output("{016 threads} -> {0000125.0ms, 0000001.0ms mark, 0000002.0ms init, 0000050.0ms first, "
...              "0000080.0ms move, 0000030.0ms aggr, 0012 iters, 0004 passes, 0.701234567 modularity} "
...              "louvainStaticCuda")
{'nu-Louvain': {'seconds': 0.125, 'modularity': 0.701234567, 'passes': 4, 'iterations': 12, 'threads': 16}}
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numba
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SOURCE_DIRS = (ROOT / ".anchors" / "nu-louvain", ROOT.parent / "shared" / "anchors" / "nu-louvain")
#: Runs of each method in one process; the program prints their mean.
REPEATS = 3
METHODS = {"louvainStaticOmp": "GVE-Louvain", "louvainStaticCuda": "nu-Louvain"}
_LINE = re.compile(r"\{(\d+) threads\} -> \{\s*([\d.]+)ms,.*?(\d+) iters,\s*(\d+) passes,\s*([-\d.]+) modularity\}"
                   r"\s*(\w+)")


class AnchorError(RuntimeError):
    """ν-Louvain cannot be found, built or run here."""


def find_sources(explicit: str | None = None) -> Path:
    """The folder holding ``main.cxx``: ``explicit`` (only it, when given), else ``.anchors/nu-louvain``, else the
    workspace's copy."""
    folders = [Path(explicit)] if explicit else list(SOURCE_DIRS)
    for folder in folders:
        if (folder / "main.cxx").is_file():
            return folder
    raise AnchorError("nu-Louvain's sources (main.cxx) are not in " + ", ".join(map(str, folders)))


def build(sources: Path, build_dir: Path) -> Path:
    """Compile ``main.cxx`` with nvcc into ``build_dir`` (kept: a later run reuses it); returns the binary."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise AnchorError("nvcc is not on PATH: nu-Louvain is not built")
    threads = os.cpu_count() or 1
    binary = build_dir / f"nu-louvain-{threads}-repeat{REPEATS}"
    if binary.is_file():
        return binary
    build_dir.mkdir(parents=True, exist_ok=True)
    command = [nvcc, "-DTYPE=float", f"-DMAX_THREADS={threads}", f"-DREPEAT_METHOD={REPEATS}", "-std=c++17",
               "-arch=native", "-O3", "-Xcompiler", "-fopenmp", "-x", "cu", str(sources / "main.cxx"),
               "-o", str(binary)]
    done = subprocess.run(command, cwd=sources, capture_output=True, text=True)
    if done.returncode:
        raise AnchorError(f"nvcc failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    return binary


def write_mtx(u: np.ndarray, v: np.ndarray, n: int, path: Path) -> Path:
    """Each undirected edge ``u[i] - v[i]`` once, as a 1-based Matrix Market pattern (the program symmetrises).

    The lines are made by a compiled loop (``np.savetxt`` takes minutes for 10^8 edges).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     print(write_mtx(np.array([0, 9]), np.array([11, 2]), 12, Path(folder) / "g.mtx").read_text(), end="")
    %%MatrixMarket matrix coordinate pattern general
    12 12 2
    1 12
    10 3
    """
    with open(path, "wb") as handle:
        handle.write(f"%%MatrixMarket matrix coordinate pattern general\n{n} {n} {len(u)}\n".encode())
        handle.write(_lines(np.asarray(u, np.int64) + 1, np.asarray(v, np.int64) + 1).tobytes())
    return path


@numba.njit(cache=True)
def _lines(first, second):  # pragma: no cover - compiled
    """``"first[i] second[i]\\n"`` for every ``i``, as bytes."""
    out = np.empty(first.size * 42, np.uint8)
    at = 0
    digits = np.empty(20, np.uint8)
    for i in range(first.size):
        for value, end in ((first[i], 32), (second[i], 10)):
            count = 0
            while True:
                digits[count] = 48 + value % 10
                value //= 10
                count += 1
                if value == 0:
                    break
            for d in range(count - 1, -1, -1):
                out[at] = digits[d]
                at += 1
            out[at] = end
            at += 1
    return out[:at]


def parse_output(text: str) -> dict[str, dict]:
    """Each method's figures from the program's output, by name (``GVE-Louvain``, ``nu-Louvain``)."""
    out = {}
    for threads, ms, iterations, passes, q, method in _LINE.findall(text):
        out[METHODS.get(method, method)] = {"seconds": float(ms) / 1e3, "modularity": float(q),
                                            "passes": int(passes), "iterations": int(iterations),
                                            "threads": int(threads)}
    return out


def run(binary: Path, mtx: Path, timeout: float = 600.0) -> dict[str, dict]:
    """Run both methods on ``mtx`` (unweighted, not yet symmetric); their figures by name."""
    try:
        done = subprocess.run([str(binary), str(mtx), "0", "0"], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise AnchorError(f"nu-Louvain ran past {timeout:.0f} s") from exc
    found = parse_output(done.stdout)
    if done.returncode or not found:
        raise AnchorError(f"nu-Louvain failed ({done.returncode}): {(done.stdout + done.stderr).strip()[-400:]}")
    return found
