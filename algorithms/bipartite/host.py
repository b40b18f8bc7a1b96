"""What the host loops of APFB, APsB and G-PR share: launch shapes, the device, the starting matching.

Example
-------
>>> from gpusim.types.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0])
>>> [a.tolist() for a in initial_matching(g, "cheap-host")], [a.tolist() for a in initial_matching(g, "empty")]
([[0, -1], [0, -1]], [[-1, -1], [-1, -1]])
>>> initial_matching(g, "cheap") is None   # the cheap matching is made on the device (kernels_cheap)
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType, InvariantViolation
from gpusim.runtime.device import Device
from gpusim.runtime.launcher import Launcher, own_device
from gpusim.runtime.resident_graphs import is_device_graph
from gpusim.types.check import check_bipartite_matching
from gpusim.types.graphs import BipartiteGraph

from .cheap import cheap_matching
from .kernels_cheap import cheap_claim

__all__ = ["COMPACT_BLOCK", "CT_SHAPE", "LEVELS_PER_READ", "MAX_LEVELS_PER_READ", "MT_BLOCK", "SHRINK_THRESHOLD",
           "STARTS", "cheap_start", "check_choice", "device_start", "graph_array", "initial_matching", "nonempty",
           "prepare", "violation"]

#: Threads per block for one-thread-per-vertex (MT) launches, per backend.
MT_BLOCK = {"sim": 32, "numba": 256, "cupy": 256}
#: The fixed grid × block of constant-thread (CT) launches: the paper's 256 × 256 on a GPU.
CT_SHAPE = {"sim": (2, 32), "numba": (256, 256), "cupy": (256, 256)}
#: Threads of the single block that compacts active lists (at most 1024, the shared counts' size).
COMPACT_BLOCK = {"sim": 64, "numba": 1024, "cupy": 1024}
#: G-PR shrinks its active lists only when at least this many columns are listed (Deveci et al., ICPP 2013, Alg. 7
#: line 11).
SHRINK_THRESHOLD = 512
#: The most BFS levels (APFB, APsB, G-GR) launched before their flags are read back (``levels_per_read=``'s
#: default): each search launches batches of 1, 2, 4, ... levels up to this, each read back once.
LEVELS_PER_READ = 16
#: The largest ``levels_per_read=`` accepted.
MAX_LEVELS_PER_READ = 1024
#: The named starts ``initial=`` takes: the cheap matching made on the device (the default,
#: :func:`~gpusim.algorithms.bipartite.kernels_cheap.cheap_claim`), the seeds' sequential greedy made on the
#: host, and no matching.
STARTS = ("cheap", "cheap-host", "empty")


def prepare(graph: Any, backend: str, device: Any, initial: Any, progress: Any,
            name: str) -> tuple[Device, Launcher, tuple[np.ndarray, np.ndarray] | None]:
    """The arguments every driver takes, checked: the device to run on, its launcher, the starting matching
    (:func:`initial_matching`; the driver puts it on the device with :func:`device_start`)."""
    if not isinstance(graph, BipartiteGraph) and not is_device_graph(graph):
        raise InvalidArgumentType(f"graph must be a BipartiteGraph, got {type(graph).__name__}")
    if device is not None and not isinstance(device, Device):
        raise InvalidArgumentType(f"device must be a gpusim.Device, got {device!r}")
    dev = device if device is not None else own_device(backend)
    if is_device_graph(graph):  # no host copy of the graph: the cheap matching made on the device, or none
        if not (initial is None or (isinstance(initial, str) and initial in ("cheap", "empty"))):
            raise InvalidArgument(f"initial must be 'cheap' or 'empty' for a device-resident graph, got {initial!r}")
        empty = isinstance(initial, str) and initial == "empty"
        start = (np.full(graph.n_rows, -1, np.int32), np.full(graph.n_cols, -1, np.int32)) if empty else None
    else:
        start = initial_matching(graph, initial)
    if not isinstance(progress, bool):
        raise InvalidArgumentType(f"progress must be True or False, got {progress!r}")
    return dev, Launcher(dev, progress, name), start


def initial_matching(graph: BipartiteGraph, initial: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """``initial`` as ``(row_match, col_match)`` on the host, checked, or ``None`` for ``"cheap"`` (the
    default, also ``None``): the cheap matching that :func:`device_start` makes on the device.

    ``"cheap-host"`` is the seeds' sequential greedy (:func:`~gpusim.algorithms.bipartite.cheap.cheap_matching`),
    ``"empty"`` no matching, a pair a given matching.
    """
    if initial is None or (isinstance(initial, str) and initial == "cheap"):
        return None
    if isinstance(initial, str) and initial == "cheap-host":
        row_match, col_match, _ = cheap_matching(graph)
    elif isinstance(initial, str) and initial == "empty":
        row_match, col_match = np.full(graph.n_rows, -1, np.int32), np.full(graph.n_cols, -1, np.int32)
    elif isinstance(initial, tuple) and len(initial) == 2:
        row_match, col_match = (np.asarray(a, np.int32).copy() for a in initial)
        check_bipartite_matching(graph, row_match, col_match)
    else:
        raise InvalidArgument(f"initial must be one of {STARTS} or a (row_match, col_match) pair, got {initial!r}")
    return np.asarray(row_match, np.int32), np.asarray(col_match, np.int32)


def device_start(launch: Launcher, graph: BipartiteGraph, start: tuple[np.ndarray, np.ndarray] | None,
                 col_ptr: Any, col_adj: Any) -> tuple:
    """The starting matching on the device, as ``(rmatch, cmatch)`` (each at least one element long): ``start``
    copied there, or, for ``None``, the cheap matching made there by one launch of
    :func:`~gpusim.algorithms.bipartite.kernels_cheap.cheap_claim` over the device's ``col_ptr``/``col_adj``
    (phase ``"cheap"``)."""
    dev = launch.device
    if start is not None:
        return dev.array(nonempty(start[0])), dev.array(nonempty(start[1]))
    with launch.phase("cheap"):
        return cheap_start(launch, graph, col_ptr, col_adj)


def cheap_start(launch: Launcher, graph: BipartiteGraph, col_ptr: Any, col_adj: Any) -> tuple:
    """The cheap matching's launches (:func:`device_start`'s, untimed: for a caller that times them in a phase of
    its own)."""
    dev, nr, nc = launch.device, graph.n_rows, graph.n_cols
    rmatch, cmatch = dev.full(max(nr, 1), -1, np.int32), dev.full(max(nc, 1), -1, np.int32)
    if nr > 0 and nc > 0:
        block = MT_BLOCK[dev.backend]
        launch(cheap_claim, Device.grid_for(nc, block), block, col_ptr, col_adj, rmatch, cmatch, nc)
    return rmatch, cmatch


def check_choice(name: str, value: Any, choices: tuple) -> None:
    """Refuse ``value`` unless it is one of ``choices``, naming the option."""
    if value not in choices:
        raise InvalidArgument(f"{name}={value!r} is not one of {choices}")


def violation(dev: Device, message: str) -> InvariantViolation:
    """An :class:`~gpusim.errors.InvariantViolation` with the replay token when ``dev`` is the simulator."""
    return InvariantViolation(message, token=dev.token if dev.backend == "sim" else None)


def graph_array(dev: Device, graph: Any, array: Any) -> Any:
    """One CSR array of ``graph`` on ``dev``: a device graph's own as it is
    (:func:`~gpusim.runtime.resident_graphs.resident` adopted and checked it), a host graph's copied (an empty one
    given one unused element, :func:`nonempty`)."""
    if is_device_graph(graph) and array.shape[0]:
        return array
    return dev.array(nonempty(array))


def nonempty(array: np.ndarray) -> np.ndarray:
    """Device arrays of length 0 are awkward on some backends: give empty arrays one unused element."""
    if not isinstance(array, (np.ndarray, list, tuple)):  # a device array (of a device-resident graph)
        return array if array.shape[0] else np.full(1, -1, np.int32)
    array = np.asarray(array, np.int32)
    return array if array.size else np.full(1, -1, np.int32)
