"""What the host loops of APFB, APsB and G-PR share: launch shapes, the device, the starting matching.

Example
-------
>>> from gpusim.types.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0])
>>> [a.tolist() for a in initial_matching(g, "cheap-host")], [a.tolist() for a in initial_matching(g, "empty")]
([[0, -1], [0, -1]], [[-1, -1], [-1, -1]])
>>> initial_matching(g, "cheap"), initial_matching(g, None)   # made on the device (kernels_cheap)
('cheap', 'cheap')
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
from .kernels_proposals import (
    NO_OFFER,
    PROPOSAL_ROUNDS,
    accept_lowest_offer,
    count_row_degrees,
    propose_to_lightest_row,
    row_degrees,
)

__all__ = ["COMPACT_BLOCK", "CT_SHAPE", "DEVICE_STARTS", "LEVELS_PER_READ", "MAX_LEVELS_PER_READ", "MT_BLOCK",
           "PROPOSALS_FROM", "ROW_SIDE_START_KERNELS", "SHRINK_THRESHOLD", "STARTS", "START_KERNELS", "cheap_start",
           "check_choice", "default_start", "device_start", "first_batch", "graph_array", "initial_matching",
           "nonempty", "prepare", "violation"]

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
#: The starts made on the device: the cheap matching (:func:`~gpusim.algorithms.bipartite.kernels_cheap.cheap_claim`),
#: and rounds of proposals to the lightest free row before it (:mod:`~gpusim.algorithms.bipartite.kernels_proposals`);
#: ``initial=None`` picks one by size (:func:`default_start`).
DEVICE_STARTS = ("cheap", "proposals")
#: The named starts ``initial=`` takes: those made on the device, the seeds' sequential greedy made on the host, and
#: no matching.
STARTS = (*DEVICE_STARTS, "cheap-host", "empty")
#: The kernels that make a start on the device, which every driver here launches before its own.
START_KERNELS = (count_row_degrees, row_degrees, propose_to_lightest_row, accept_lowest_offer, cheap_claim)
#: Those of a driver that always holds the row side on the device (G-PR): the rows' degrees read, never counted.
ROW_SIDE_START_KERNELS = tuple(k for k in START_KERNELS if k is not count_row_degrees)
#: ``initial=None`` (the default) starts from the proposals from this many edges, from the cheap matching below.
#: Measured on an H200 over ten graphs of 10^6 to 6.5·10^7 edges, the proposals cut APFB's device phases from 1.32×
#: to 1.05× ECL-MM's and G-PR's from 3.30× to 2.37× (``benchmarks/RESULTS.md``); below, where a call lasts 0.1-0.3
#: ms, their three launches would cost more than they save.
PROPOSALS_FROM = 1_000_000


def default_start(graph: Any) -> str:
    """The start ``initial=None`` makes on the device for ``graph``: ``"proposals"`` from :data:`PROPOSALS_FROM`
    edges, ``"cheap"`` below.

    >>> from gpusim.types.graphs import BipartiteGraph
    >>> default_start(BipartiteGraph.from_edges([0, 1], [1, 0]))
    'cheap'
    """
    return "proposals" if graph.n_edges >= PROPOSALS_FROM else "cheap"


def first_batch(last_levels: int, levels_per_read: int) -> int:
    """The levels a search launches before its first read back: as many as the search before it ran (rounded up to a
    power of two, at most ``levels_per_read``), for a search that runs as deep as the last needs one read, where
    batches of 1, 2, 4, ... would read ``log2`` of its depth times; levels after the end return at once, so the levels
    run and the matching are those of one level at a time.  The first search of a call starts from 1.

    >>> first_batch(1, 16), first_batch(5, 16), first_batch(8, 16), first_batch(40, 16)
    (1, 8, 8, 16)
    """
    return min(1 << max(last_levels - 1, 0).bit_length(), levels_per_read)


def prepare(graph: Any, backend: str, device: Any, initial: Any, progress: Any,
            name: str) -> tuple[Device, Launcher, tuple[np.ndarray, np.ndarray] | None]:
    """The arguments every driver takes, checked: the device to run on, its launcher, the starting matching
    (:func:`initial_matching`; the driver puts it on the device with :func:`device_start`)."""
    if not isinstance(graph, BipartiteGraph) and not is_device_graph(graph):
        raise InvalidArgumentType(f"graph must be a BipartiteGraph, got {type(graph).__name__}")
    if device is not None and not isinstance(device, Device):
        raise InvalidArgumentType(f"device must be a gpusim.Device, got {device!r}")
    dev = device if device is not None else own_device(backend)
    if is_device_graph(graph):  # no host copy of the graph: a start made on the device, or none
        if not (initial is None or (isinstance(initial, str) and initial in (*DEVICE_STARTS, "empty"))):
            raise InvalidArgument(f"initial must be one of {(*DEVICE_STARTS, 'empty')} for a device-resident graph, "
                                  f"got {initial!r}")
        empty = isinstance(initial, str) and initial == "empty"
        start = (np.full(graph.n_rows, -1, np.int32), np.full(graph.n_cols, -1, np.int32)) if empty else (
            initial or default_start(graph))
    else:
        start = initial_matching(graph, initial)
    if not isinstance(progress, bool):
        raise InvalidArgumentType(f"progress must be True or False, got {progress!r}")
    return dev, Launcher(dev, progress, name), start


def initial_matching(graph: BipartiteGraph, initial: Any) -> tuple[np.ndarray, np.ndarray] | str:
    """``initial`` as ``(row_match, col_match)`` on the host, checked, or the name of a start that
    :func:`device_start` makes on the device (:data:`DEVICE_STARTS`; ``None``, the default, is
    :func:`default_start`'s).

    ``"cheap-host"`` is the seeds' sequential greedy (:func:`~gpusim.algorithms.bipartite.cheap.cheap_matching`),
    ``"empty"`` no matching, a pair a given matching.
    """
    if initial is None or (isinstance(initial, str) and initial in DEVICE_STARTS):
        return initial or default_start(graph)
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


def device_start(launch: Launcher, graph: BipartiteGraph, start: tuple[np.ndarray, np.ndarray] | str,
                 col_ptr: Any, col_adj: Any, row_ptr: Any = None) -> tuple:
    """The starting matching on the device, as ``(rmatch, cmatch)`` (each at least one element long): ``start``
    copied there, or the start it names made there over the device's ``col_ptr``/``col_adj`` (and ``row_ptr`` when
    the device has it; phase ``"cheap"``, :func:`cheap_start`)."""
    dev = launch.device
    if not isinstance(start, str):
        return dev.array(nonempty(start[0])), dev.array(nonempty(start[1]))
    with launch.phase("cheap"):
        return cheap_start(launch, graph, col_ptr, col_adj, start, row_ptr)


def cheap_start(launch: Launcher, graph: BipartiteGraph, col_ptr: Any, col_adj: Any, how: str = "cheap",
                row_ptr: Any = None) -> tuple:
    """The launches of a start made on the device (:func:`device_start`'s, untimed: for a caller that times them in
    a phase of its own): for ``"proposals"``, :data:`PROPOSAL_ROUNDS` rounds of proposals to the lightest free row
    (:mod:`~gpusim.algorithms.bipartite.kernels_proposals`; the rows' degrees read from ``row_ptr`` where the device
    has the row side, else counted from the columns' lists); then, for both, one launch of
    :func:`~gpusim.algorithms.bipartite.kernels_cheap.cheap_claim`, the cheap matching."""
    dev, nr, nc = launch.device, graph.n_rows, graph.n_cols
    rmatch, cmatch = dev.full(max(nr, 1), -1, np.int32), dev.full(max(nc, 1), -1, np.int32)
    if nr > 0 and nc > 0:
        block = MT_BLOCK[dev.backend]
        col_grid, row_grid = Device.grid_for(nc, block), Device.grid_for(nr, block)
        if how == "proposals":
            degree, offer = dev.empty(nr, np.int32), dev.full(nr, NO_OFFER, np.int32)
            if row_ptr is None:
                dev.fill(degree, 0)
                launch(count_row_degrees, Device.grid_for(graph.n_edges, block), block, col_adj, degree, graph.n_edges)
            else:
                launch(row_degrees, row_grid, block, row_ptr, degree, nr)
            for _ in range(PROPOSAL_ROUNDS):
                launch(propose_to_lightest_row, col_grid, block, col_ptr, col_adj, degree, rmatch, cmatch, offer, nc)
                launch(accept_lowest_offer, row_grid, block, offer, rmatch, cmatch, nr)
        launch(cheap_claim, col_grid, block, col_ptr, col_adj, rmatch, cmatch, nc)
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
