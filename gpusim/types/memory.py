"""Inputs judged by their header before their body: the memory a run would need, and the memory there is.

:func:`matrix_market_header` reads a Matrix Market file's banner and size line only (a few hundred bytes,
whatever the file declares), naming the line and the token of any fault.  :func:`run_bytes` says how many
bytes a command's arrays need for the declared size, per vertex and per entry (the CSR of both sides, the
algorithm's per-vertex arrays, the dense matrix of ROMA and RAMA); :func:`check_run_memory` refuses a
declaration above the limit before a byte of the body is read.  :func:`memory_available` is the memory this
process may really use: the least of ``MemAvailable``, the cgroup's ``memory.max`` (v2) or
``memory.limit_in_bytes`` (v1) less what the cgroup already uses, and ``RLIMIT_AS`` — a container's
``/proc/meminfo`` shows the host's memory, not the container's.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "big.mtx")
>>> _ = open(path, "w").write("%%MatrixMarket matrix coordinate real general\\n100000000 100000000 3\\n1 2 1\\n")
>>> matrix_market_header(path)
MatrixMarketHeader(rows=100000000, cols=100000000, entries=3, field='real', symmetry='general', line=2)
>>> check_run_memory(path, matrix_market_header(path), "match", "gpr", 2**30)
Traceback (most recent call last):
...
gpusim.errors.InvalidArgument: '...big.mtx' line 2 declares 100000000 x 100000000 with 3 entries: ...
"""

from __future__ import annotations

import os
import resource
from typing import NamedTuple

from gpusim.errors import InvalidArgument

__all__ = ["MatrixMarketHeader", "cgroup_room", "check_run_memory", "matrix_market_header", "memory_available",
           "run_bytes", "size_text"]

#: Dense algorithms: an ``n x n`` float64 matrix and its working copies.
DENSE = {"roma": 3, "rama": 3}
#: Bytes per vertex and per stored entry for each command's arrays (CSR, per-vertex state, results, copies).
#: Measured peaks (``/usr/bin/time``) on a 10^6 x 10^6 header with 3 entries, less the interpreter's 126 MB:
#: gpr and hk 92 bytes a vertex (rows and columns), suitor 100, louvain (cpu) 200.
PER_VERTEX = {"match": 128, "weighted": 160, "louvain": 256}
PER_ENTRY = {"match": 48, "weighted": 64, "louvain": 96}


class MatrixMarketHeader(NamedTuple):
    """A Matrix Market file's declared shape: ``rows x cols`` with ``entries`` stored entries (a symmetric
    file stores one triangle), its field and symmetry, and the line of the size."""

    rows: int
    cols: int
    entries: int
    field: str
    symmetry: str
    line: int


def matrix_market_header(path: str | os.PathLike) -> MatrixMarketHeader:
    """The banner and size line of the Matrix Market file ``path``; ``InvalidArgument`` naming the line and value."""
    name = os.fspath(path)
    with open(name, "rb") as source:
        first = source.readline(4096).decode("latin-1").strip()
        tokens = first.split()
        if not tokens or tokens[0].lower() != "%%matrixmarket":
            raise InvalidArgument(f"{name!r} line 1: {first[:40]!r} is not a Matrix Market banner "
                                  "('%%MatrixMarket matrix coordinate real general')")
        if len(tokens) != 5:
            raise InvalidArgument(f"{name!r} line 1: the banner {first[:80]!r} needs 4 words after %%MatrixMarket "
                                  "(object, format, field, symmetry)")
        obj, fmt, field, symmetry = (token.lower() for token in tokens[1:])
        if obj != "matrix" or fmt not in ("coordinate", "array"):
            bad = tokens[1] if obj != "matrix" else tokens[2]
            raise InvalidArgument(f"{name!r} line 1: {bad!r} in the banner: gpusim reads 'matrix coordinate' "
                                  "(or 'matrix array') files")
        number = 1
        for raw in iter(lambda: source.readline(4096), b""):
            number += 1
            line = raw.decode("latin-1").strip()
            if not line or line.startswith("%"):
                continue
            words = line.split()
            wanted = 3 if fmt == "coordinate" else 2
            if len(words) != wanted:
                raise InvalidArgument(f"{name!r} line {number}: the size line {line[:60]!r} needs {wanted} numbers "
                                      f"({'rows columns entries' if wanted == 3 else 'rows columns'})")
            values = []
            for word, what in zip(words, ("rows", "columns", "entries"), strict=False):
                try:
                    value = int(word)
                except ValueError:
                    raise InvalidArgument(f"{name!r} line {number}: {what} {word!r} is not an integer") from None
                if value < 0:
                    raise InvalidArgument(f"{name!r} line {number}: {what} {value} is negative")
                values.append(value)
            rows, cols = values[0], values[1]
            entries = values[2] if wanted == 3 else rows * cols
            return MatrixMarketHeader(rows, cols, entries, field, symmetry, number)
    raise InvalidArgument(f"{name!r}: no size line after the banner (line {number} is the last)")


def run_bytes(command: str, algorithm: str, header: MatrixMarketHeader, b: int | None = None) -> int:
    """Bytes of the arrays ``command`` (``match``, ``weighted``, ``louvain``) with ``algorithm`` needs for
    ``header``'s declared size: per vertex, per stored entry (twice for a symmetric file), dense matrices.

    >>> h = MatrixMarketHeader(1000, 1000, 3000, "real", "general", 2)
    >>> run_bytes("match", "gpr", h), run_bytes("weighted", "roma", h)
    (400000, 24352000)
    """
    entries = header.entries * (2 if header.symmetry in ("symmetric", "skew-symmetric", "hermitian") else 1)
    if command == "match":
        vertices = header.rows + header.cols
    else:
        vertices = max(header.rows, header.cols)
    needed = PER_VERTEX[command] * vertices + PER_ENTRY[command] * entries
    if command == "weighted":
        needed += 8 * vertices * vertices * DENSE.get(algorithm, 0)
        if algorithm == "bsuitor" and b:
            needed += 8 * vertices * min(int(b), max(entries, 1))
    return needed


def size_text(size: int) -> str:
    """``size`` bytes in GiB, MiB or KiB, three significant digits.

    >>> size_text(2**30), size_text(1536)
    ('1 GiB', '1.5 KiB')
    """
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size} bytes"


def check_run_memory(path: str, header: MatrixMarketHeader, command: str, algorithm: str, limit: int | None,
                     b: int | None = None) -> None:
    """Refuse (``InvalidArgument``) a run whose arrays for ``header``'s declared size need more than ``limit``
    bytes (``None``: half of :func:`memory_available`), naming the file, the line, the sizes and the limit."""
    kind = "weighted" if command == "weighted" else command
    needed = run_bytes(kind, algorithm, header, b)
    origin = "--max-memory"
    if limit is None:
        limit, origin = memory_available() // 2, "the default --max-memory, half the memory this process may use"
    if needed > limit:
        shown = "match" if command == "weighted" else command
        raise InvalidArgument(
            f"{path!r} line {header.line} declares {header.rows} x {header.cols} with {header.entries} entries: "
            f"{shown} --algorithm {algorithm} needs about {size_text(needed)} for its arrays, more than "
            f"{origin} {size_text(limit)}; " + ("use a sparse algorithm instead: --algorithm suitor (or ld, greedy, "
                                                 "gpa)" if algorithm in DENSE else
                                                 "give a larger --max-memory, or a smaller input"))


def _read_int(path: str) -> int | None:
    try:
        with open(path) as source:
            text = source.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def cgroup_room(membership: str = "/proc/self/cgroup", root: str = "/sys/fs/cgroup") -> int | None:
    """The cgroup's memory limit less its usage (v2 ``memory.max`` and ``memory.current``, else v1
    ``memory.limit_in_bytes`` and ``memory.usage_in_bytes``), or None where no limit is set.

    ``membership`` lists this process's cgroups (``/proc/self/cgroup``), ``root`` is where they are mounted.
    """
    try:
        with open(membership) as source:
            lines = source.read().splitlines()
    except OSError:
        lines = []
    places = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3 and parts[0] == "0" and not parts[1]:
            places.append((root + parts[2].rstrip("/"), "memory.max", "memory.current"))
        elif len(parts) == 3 and "memory" in parts[1].split(","):
            places.append((os.path.join(root, "memory") + parts[2].rstrip("/"), "memory.limit_in_bytes",
                           "memory.usage_in_bytes"))
    places += [(root, "memory.max", "memory.current"),
               (os.path.join(root, "memory"), "memory.limit_in_bytes", "memory.usage_in_bytes")]
    for folder, limit_file, usage_file in places:
        limit = _read_int(os.path.join(folder, limit_file))
        if limit is not None and limit < 2**60:  # "max" or the v1 "no limit" value: none here
            return max(limit - (_read_int(os.path.join(folder, usage_file)) or 0), 0)
    return None


def memory_available() -> int:
    """Bytes this process may still use: the least of ``MemAvailable``, the cgroup's room and ``RLIMIT_AS``.

    >>> memory_available() > 0
    True
    """
    candidates = []
    try:
        with open("/proc/meminfo") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    candidates.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    room = cgroup_room()
    if room is not None:
        candidates.append(room)
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft not in (resource.RLIM_INFINITY, -1) and soft > 0:
        candidates.append(soft)
    if not candidates:
        try:
            candidates.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (AttributeError, ValueError, OSError):
            candidates.append(8 * 2**30)
    return max(min(candidates), 0)

