"""What the host loops of APFB, APsB and G-PR share: launch shapes, the device, the starting matching.

Example
-------
>>> from gpusim.types.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0])
>>> [a.tolist() for a in initial_matching(g, "cheap")], [a.tolist() for a in initial_matching(g, "empty")]
([[0, -1], [0, -1]], [[-1, -1], [-1, -1]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType, InvariantViolation
from gpusim.runtime.device import Device
from gpusim.runtime.device_graphs import is_device_graph
from gpusim.runtime.launcher import Launcher
from gpusim.types.check import check_bipartite_matching
from gpusim.types.graphs import BipartiteGraph

from .cheap import cheap_matching

__all__ = ["COMPACT_BLOCK", "CT_SHAPE", "MT_BLOCK", "SHRINK_THRESHOLD", "check_choice", "initial_matching",
           "nonempty", "prepare", "violation"]

#: Threads per block for one-thread-per-vertex (MT) launches, per backend.
MT_BLOCK = {"sim": 32, "numba": 256, "cupy": 256}
#: The fixed grid × block of constant-thread (CT) launches: the paper's 256 × 256 on a GPU.
CT_SHAPE = {"sim": (2, 32), "numba": (256, 256), "cupy": (256, 256)}
#: Threads of the single block that compacts active lists (at most 1024, the shared counts' size).
COMPACT_BLOCK = {"sim": 64, "numba": 1024, "cupy": 1024}
#: G-PR shrinks its active lists only when at least this many columns are listed (seed 001, Alg. 7 line 11).
SHRINK_THRESHOLD = 512


def prepare(graph: Any, backend: str, device: Any, initial: Any, progress: Any,
            name: str) -> tuple[Device, Launcher, np.ndarray, np.ndarray]:
    """The arguments every driver takes, checked: the device to run on, its launcher, the starting matching."""
    if not isinstance(graph, BipartiteGraph) and not is_device_graph(graph):
        raise InvalidArgumentType(f"graph must be a BipartiteGraph, got {type(graph).__name__}")
    if device is not None and not isinstance(device, Device):
        raise InvalidArgumentType(f"device must be a gpusim.Device, got {device!r}")
    dev = device if device is not None else Device(backend)
    if is_device_graph(graph):  # no host copy of the graph: the matching starts empty, on the device
        if not (initial is None or (isinstance(initial, str) and initial in ("cheap", "empty"))):
            raise InvalidArgument(f"initial must be 'cheap' or 'empty' for a device-resident graph, got {initial!r}")
        row_match = dev.full(max(graph.n_rows, 1), -1, np.int32)
        col_match = dev.full(max(graph.n_cols, 1), -1, np.int32)
    else:
        row_match, col_match = initial_matching(graph, initial)
    if not isinstance(progress, bool):
        raise InvalidArgumentType(f"progress must be True or False, got {progress!r}")
    return dev, Launcher(dev, progress, name), row_match, col_match


def initial_matching(graph: BipartiteGraph, initial: Any) -> tuple[np.ndarray, np.ndarray]:
    """``initial`` as ``(row_match, col_match)``: ``"cheap"`` (or ``None``), ``"empty"``, or a pair, checked."""
    if initial is None or (isinstance(initial, str) and initial == "cheap"):
        row_match, col_match, _ = cheap_matching(graph)
    elif isinstance(initial, str) and initial == "empty":
        row_match, col_match = np.full(graph.n_rows, -1, np.int32), np.full(graph.n_cols, -1, np.int32)
    elif isinstance(initial, tuple) and len(initial) == 2:
        row_match, col_match = (np.asarray(a, np.int32).copy() for a in initial)
        check_bipartite_matching(graph, row_match, col_match)
    else:
        raise InvalidArgument(f"initial must be 'cheap', 'empty' or a (row_match, col_match) pair, got {initial!r}")
    return np.asarray(row_match, np.int32), np.asarray(col_match, np.int32)


def check_choice(name: str, value: Any, choices: tuple) -> None:
    """Refuse ``value`` unless it is one of ``choices``, naming the option."""
    if value not in choices:
        raise InvalidArgument(f"{name}={value!r} is not one of {choices}")


def violation(dev: Device, message: str) -> InvariantViolation:
    """An :class:`~gpusim.errors.InvariantViolation` with the replay token when ``dev`` is the simulator."""
    return InvariantViolation(message, token=dev.token if dev.backend == "sim" else None)


def nonempty(array: np.ndarray) -> np.ndarray:
    """Device arrays of length 0 are awkward on some backends: give empty arrays one unused element."""
    if not isinstance(array, (np.ndarray, list, tuple)):  # a device array (of a device-resident graph)
        return array if array.shape[0] else np.full(1, -1, np.int32)
    array = np.asarray(array, np.int32)
    return array if array.size else np.full(1, -1, np.int32)
