"""The inputs of a 4-cycle augmentation (RAMA, ROMA; Hovland (MSc thesis 2020) §3.5): checked weights and a perfect
start matching.

Shared by the sequential RAMA and ROMA (:mod:`gpusim.algorithms.weighted.reference_augmentation`) and
the GPU ROMA (:mod:`gpusim.algorithms.weighted.driver_roma`).

Examples
--------
>>> start_matching(4, "i,i+1").tolist(), unpad(np.array([1, 0, 3, 2]), 3, True).tolist()
([1, 0, 3, 2], [1, 0, -1])
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.types.check import check_mate
from gpusim.types.complete_graphs import check_int, check_memory, check_seed, check_weight_matrix, dense_bytes
from gpusim.types.graphs import WeightedGraph

from .reference_greedy import greedy
from .reference_paths import gpa

__all__ = ["START_KINDS", "AugmentationInput", "augmentation_bytes", "augmentation_options", "needs_padding",
           "perfect_start", "prepare_augmentation", "start_matching", "unpad"]

#: The kinds of start matching :func:`start_matching` builds.
START_KINDS = ("i,i+1", "i,i+n/2", "shuffled", "greedy", "gpa")


def _check_pad(pad: Any) -> bool:
    if not isinstance(pad, (bool, np.bool_)):
        raise InvalidArgumentType(f"pad must be a bool, got pad={pad!r} of type {type(pad).__name__}")
    return bool(pad)


def _complete_graph(w: np.ndarray) -> WeightedGraph:
    n = w.shape[0]
    iu, iv = np.triu_indices(n, 1)
    return WeightedGraph.from_edges(iu, iv, w[iu, iv], n)


def _complete(mate: np.ndarray) -> np.ndarray:
    """Pair the unmatched vertices in increasing id order (Hovland, MSc thesis 2020 §3.5: any pairing will do)."""
    free = np.flatnonzero(mate == -1)
    mate[free[0::2]] = free[1::2]
    mate[free[1::2]] = free[0::2]
    return mate


def start_matching(n: int, kind: str, weights: Any = None, seed: int = 0, *, max_memory: int | None = None
                   ) -> np.ndarray:
    """A perfect start matching for :func:`~gpusim.algorithms.weighted.reference_augmentation.rama` and
    :func:`~gpusim.algorithms.weighted.reference_augmentation.roma`, as Hovland (MSc thesis 2020) builds them.

    ==============  ======================================================================
    ``kind``        matching
    ==============  ======================================================================
    ``"i,i+1"``     ``2i <-> 2i + 1`` (the thesis's first, "neighbour matching")
    ``"i,i+n/2"``   ``i <-> i + n/2`` (the "n/2-matching", §5.5.5)
    ``"shuffled"``  ``i <-> n/2 + p[i]`` for a random permutation ``p`` of the second half
                    (the "shuffled matching", §5.5.7), from ``default_rng(seed)``
    ``"greedy"``    :func:`greedy` on the complete graph of ``weights``, completed
    ``"gpa"``       :func:`gpa` on the complete graph of ``weights``, completed
    ==============  ======================================================================

    "Completed": vertices left unmatched (their edges all have weight 0) are paired in
    increasing id order, as the thesis allows (§3.5).

    Parameters
    ----------
    n : int
        Number of vertices: even, ``>= 0``.
    kind : str
        One of :data:`START_KINDS`.
    weights : array_like, optional
        Shape (n, n). Symmetric non-negative weights; required by ``"greedy"`` and ``"gpa"``, checked when given.
    seed : int
        Seed for ``"shuffled"`` (default 0); ignored otherwise.
    max_memory : int, optional
        ``"greedy"`` and ``"gpa"`` refuse (``InvalidArgument``) when the complete graph's edge
        list would take more bytes (default half the memory available).

    Returns
    -------
    ndarray of int32, length n
        A perfect matching: ``mate[mate[v]] == v != mate[v]`` for every ``v``.

    Raises
    ------
    InvalidArgument
        ``n`` odd or negative; an unknown ``kind``; ``weights`` missing for ``"greedy"`` or
        ``"gpa"``, malformed, or not ``n x n``.

    Notes
    -----
    ``"greedy"`` and ``"gpa"`` build the complete graph's edge list: O(n^2 log n) time and
    O(n^2) memory, more than a ROMA phase; the others take O(n).

    References
    ----------
    Hovland (MSc thesis 2020), §3.5, §5.5.5 and §5.5.7 (start matchings), §3.3.3
    and §5.6.2 (GPA or Greedy before ROMA).

    Examples
    --------
    >>> start_matching(4, "i,i+1").tolist(), start_matching(4, "i,i+n/2").tolist()
    ([1, 0, 3, 2], [2, 3, 0, 1])
    >>> w = np.array([[0, 1, 5, 1], [1, 0, 1, 1], [5, 1, 0, 1], [1, 1, 1, 0]], float)
    >>> start_matching(4, "greedy", w).tolist()
    [2, 3, 0, 1]
    >>> start_matching(0, "gpa", np.zeros((0, 0))).tolist()
    []
    """
    n = check_int("n", n)
    if not isinstance(kind, str) or kind not in START_KINDS:
        raise InvalidArgument(f"kind={kind!r} is not one of {list(START_KINDS)!r}")
    seed = check_seed(seed)
    if n % 2:
        raise InvalidArgument(f"n={n} is odd: a perfect matching needs an even number of vertices "
                              "(rama and roma take pad=True to add a zero-weight dummy vertex)")
    w = None
    if weights is not None:
        w = check_weight_matrix("weights", weights)
        if w.shape[0] != n:
            raise InvalidArgument(f"weights has shape {w.shape} but n={n}")
    if kind in ("greedy", "gpa") and w is None:
        raise InvalidArgument(f"kind={kind!r} needs the weights: start_matching(n, {kind!r}, weights)")
    if kind in ("greedy", "gpa"):
        check_memory(augmentation_bytes(n, kind) - augmentation_bytes(n, "i,i+1"), max_memory,
                     f"start_matching({n}, {kind!r}): the complete graph's edge list")
    return _start(n, kind, w, seed)


def _start(n: int, kind: str, w: np.ndarray | None, seed: int) -> np.ndarray:
    """:func:`start_matching` on checked arguments (``n`` even; ``w`` given for greedy and gpa)."""
    half = n // 2
    if kind == "i,i+1":
        return (np.arange(n) ^ 1).astype(np.int32)
    if kind == "i,i+n/2":
        return ((np.arange(n) + half) % max(n, 1)).astype(np.int32)
    if kind == "shuffled":
        second = half + np.random.default_rng(seed).permutation(half)
        mate = np.empty(n, np.int64)
        mate[:half] = second
        mate[second] = np.arange(half)
        return mate.astype(np.int32)
    graph = _complete_graph(w)
    mate = (greedy if kind == "greedy" else gpa)(graph).mate.astype(np.int64)
    return _complete(mate).astype(np.int32)


class AugmentationInput(NamedTuple):
    """Checked arguments of a 4-cycle augmentation: the (padded) weights and a perfect start matching."""

    weights: np.ndarray  # size x size, float64
    mate: np.ndarray  # int32, perfect
    n: int  # vertices before padding
    padded: bool
    threshold: float
    max_phases: int | None
    seed: int


def augmentation_bytes(n: int, mate: Any, on_device: bool = False) -> int:
    """Bytes RAMA and ROMA allocate on ``n`` vertices, at most: the dense float64 matrix and its
    padded copy, the GPU ROMA's device copy, and for a ``"greedy"`` or ``"gpa"`` start the
    complete graph's edge list (about six matrices more).

    >>> augmentation_bytes(200_000, "i,i+1") / 2**30
    596.0464477539062
    """
    size = n + n % 2
    start = 6 if isinstance(mate, str) and mate in ("greedy", "gpa") else 0
    return dense_bytes(size, 2 + int(on_device) + start)


def augmentation_options(threshold: Any, max_phases: Any, pad: Any, seed: Any) -> tuple[float, int | None, bool, int]:
    """RAMA's and ROMA's options checked: ``(threshold, max_phases, pad, seed)`` (a flip must gain more than a
    finite ``threshold >= 0``; ``max_phases`` None or ``>= 0``; ``pad`` a bool).

    >>> augmentation_options(0, None, False, 3)
    (0.0, None, False, 3)
    """
    pad = _check_pad(pad)
    if isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, (int, float, np.integer, np.floating)):
        raise InvalidArgumentType(f"threshold must be a real number, got threshold={threshold!r} "
                                  f"of type {type(threshold).__name__}")
    threshold = float(threshold)
    if not (math.isfinite(threshold) and threshold >= 0):
        raise InvalidArgument(f"threshold={threshold!r} must be finite and >= 0 (a flip must gain more than it)")
    if max_phases is not None:
        max_phases = check_int("max_phases", max_phases, 0, None)
    return threshold, max_phases, pad, check_seed(seed)


def needs_padding(n: int, pad: bool) -> bool:
    """Whether ``n`` vertices take a dummy vertex (``n`` odd); refused unless ``pad``: a complete graph has a
    perfect matching only for even ``n`` (Hovland, MSc thesis 2020 §5.1)."""
    if n % 2 and not pad:
        raise InvalidArgument(f"weights is {n} x {n} with n odd: a complete graph has a perfect matching only for "
                              "even n; pass pad=True to add a dummy vertex whose edges all weigh 0 "
                              "(Hovland, MSc thesis 2020, §5.1)")
    return n % 2 == 1


def perfect_start(mate: Any, n: int, size: int, seed: int, w: np.ndarray | None) -> np.ndarray:
    """The perfect start matching (int32) on ``size`` vertices (``n`` real ones, ``size - n`` dummies): a kind of
    :data:`START_KINDS` or a matching of the ``n`` vertices, its unmatched vertices paired in increasing id order.
    ``w`` (``size x size``) is None when the weights are on a device: ``"greedy"`` and ``"gpa"``, which build
    the complete graph's edge list on the host, are then refused."""
    if isinstance(mate, str):
        if mate not in START_KINDS:
            raise InvalidArgument(f"mate={mate!r} is neither a matching array nor one of {list(START_KINDS)!r}")
        if w is None and mate in ("greedy", "gpa"):
            raise InvalidArgument(
                f"mate={mate!r} builds the complete graph's edge list on the host, and the weights live on the "
                "device: start from 'i,i+1', 'i,i+n/2', 'shuffled' or a mate array (e.g. start_matching(n, "
                f"{mate!r}, host_weights)), or pass the weights as a host array")
        return _start(size, mate, w, seed).astype(np.int32)
    given = check_mate("mate", mate, n)
    start = np.full(size, -1, np.int64)
    start[:n] = given
    return _complete(start).astype(np.int32)


def prepare_augmentation(weights: Any, mate: Any, threshold: Any, max_phases: Any, pad: Any,
                         seed: Any, max_memory: int | None = None, on_device: bool = False) -> AugmentationInput:
    """Check the arguments of RAMA / ROMA (sequential or GPU), the memory they need against
    ``max_memory`` (:func:`gpusim.types.complete_graphs.check_memory`), pad odd n, build the start matching."""
    w = check_weight_matrix("weights", weights)
    n = w.shape[0]
    check_memory(augmentation_bytes(n, mate, on_device), max_memory,
                 f"a 4-cycle augmentation (RAMA/ROMA) on {n} vertices, with its dense {n} x {n} weight matrix")
    threshold, max_phases, pad, seed = augmentation_options(threshold, max_phases, pad, seed)
    padded = needs_padding(n, pad)
    if padded:
        w = np.pad(w, ((0, 1), (0, 1)))
    start = perfect_start(mate, n, n + int(padded), seed, w)
    return AugmentationInput(w, start, n, padded, threshold, max_phases, seed)


def unpad(mate: np.ndarray, n: int, padded: bool) -> np.ndarray:
    """The matching of the ``n`` real vertices: the partner of the dummy vertex becomes -1."""
    if padded:
        mate = mate.copy()
        mate[mate == n] = -1
        mate = mate[:n]
    return mate
