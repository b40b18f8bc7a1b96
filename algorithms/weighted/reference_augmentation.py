"""RAMA and ROMA with 4-cycle augmentation on complete graphs, run sequentially (Hovland, MSc thesis 2020, Alg. 2–5).

The dense ``n x n`` weights, a perfect start matching
(:func:`~gpusim.algorithms.weighted.start_matchings.start_matching`), and phases of augmentations:
each finds a matched edge's best swap with the gain test the GPU kernels use
(:func:`~gpusim.algorithms.weighted.swaps.best_swap`, compiled for the CPU) and flips it (Alg. 4).

Examples
--------
>>> w = np.array([[0, 1, 4, 1], [1, 0, 1, 4], [4, 1, 0, 1], [1, 4, 1, 0]], float)
>>> roma(w, "i,i+1", order="fixed").mate.tolist()
[2, 3, 0, 1]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.errors import InvalidArgument
from gpusim.types.check import check_weighted_matching, checked_output
from gpusim.types.complete_graphs import dense_matching_weight

from .result import WeightedMatchingResult
from .start_matchings import prepare_augmentation, unpad
from .swaps import augment_phase, best_gain

__all__ = ["rama", "roma"]


def _augmentation(name: str, weights: Any, mate: Any, threshold: Any, max_phases: Any, pad: Any, seed: Any,
                  order: str, max_memory: int | None) -> WeightedMatchingResult:
    """RAMA and ROMA: checks, padding, the phase loop, the stats, the validation."""
    w, m, n, padded, threshold, max_phases, seed = prepare_augmentation(weights, mate, threshold, max_phases, pad,
                                                                         seed, max_memory)
    size = w.shape[0]
    rng = np.random.default_rng(seed)
    flat = np.ascontiguousarray(w, np.float64).ravel()
    phase_weights = [dense_matching_weight(w, m)]
    phase_swaps: list[int] = []
    converged = size == 0
    while not converged and (max_phases is None or len(phase_swaps) < max_phases):
        if name == "rama":
            visit = rng.integers(0, size, size).astype(np.int32)
        elif order == "random":
            visit = rng.permutation(size).astype(np.int32)
        else:
            visit = np.arange(size, dtype=np.int32)
        flips = int(augment_phase(flat, m, visit, threshold))
        phase_swaps.append(flips)
        phase_weights.append(dense_matching_weight(w, m))
        if flips == 0:
            # ROMA visited every vertex without a flip; RAMA's random draws may have missed one
            converged = name == "roma" or not best_gain(w, m) > threshold
    m = unpad(m, n, padded)
    stats = {"algorithm": name, "size": int(np.count_nonzero(m >= 0)) // 2, "phases": len(phase_swaps),
             "phase_weights": phase_weights, "phase_swaps": phase_swaps, "converged": bool(converged),
             "threshold": threshold, "seed": seed, "padded": padded}
    if name == "roma":
        stats["order"] = order
    checked_output(name, f"the {n} x {n} complete graph", check_weighted_matching, w[:n, :n], m)
    return WeightedMatchingResult(m, phase_weights[-1], stats)


def rama(weights: Any, mate: Any, threshold: float = 1e-5, max_phases: int | None = None, *,
         pad: bool = False, seed: int = 0, max_memory: int | None = None) -> WeightedMatchingResult:
    """RAMA with 4-cycle augmentation on a complete graph (Hovland, MSc thesis 2020, Alg. 2, 4 and 5).

    Each step augments a vertex ``u`` drawn uniformly at random (with replacement): among all
    other matched edges ``(x, y)``, find the flip of ``{(u, v), (x, y)}`` to ``{(u, x), (v, y)}``
    or ``{(u, y), (v, x)}`` of largest gain, and flip if the gain exceeds ``threshold``.  A
    *phase* is ``n`` steps (the thesis's ``l = k / n``).  After a phase without a flip, a full
    scan of all matched edges decides whether the matching has converged (RAMA's draws may miss
    a vertex, so a quiet phase alone proves nothing).

    Parameters
    ----------
    weights : array_like
        Shape (n, n). Symmetric, finite, non-negative; the diagonal is not read.
    mate : array_like of int or str
        The start matching: ``mate[v]`` (length n) the partner of ``v`` or -1 (unmatched vertices are then
        paired in id order), or a ``kind`` of
        :func:`~gpusim.algorithms.weighted.start_matchings.start_matching`.  Never modified.
    threshold : float
        A flip must gain strictly more (default 1e-5, the thesis's; 0 runs to a local optimum).
    max_phases : int, optional
        Stop after this many phases (the thesis used 8); ``None`` (default): until convergence.
    pad : bool
        For odd ``n``: add a dummy vertex whose edges weigh 0 (default False: odd ``n`` raises).
        The vertex paired with the dummy gets ``mate = -1`` in the result.
    seed : int
        Seed of ``numpy.random.default_rng`` for the draws (and for ``mate="shuffled"``).
    max_memory : int, optional
        Refuse (``InvalidArgument``, before allocating) when the padded copy and the start
        matching's temporaries (:func:`augmentation_bytes`) would take more bytes; default half
        the memory available (:func:`gpusim.types.complete_graphs.check_memory`).

    Returns
    -------
    WeightedMatchingResult
        ``(mate, weight, stats)``: ``mate`` is perfect (but for the dummy's partner);
        ``stats`` has ``algorithm``, ``size``, ``phases``, ``phase_weights`` (the weight of the
        start matching, then after each phase: never decreasing), ``phase_swaps`` (flips in each
        phase), ``converged`` (no flip gains more than ``threshold``), ``threshold``, ``seed``
        and ``padded``.

    Raises
    ------
    InvalidArgumentType
        Non-numeric ``weights`` or ``threshold``; ``mate`` not integers; ``pad`` not a bool.
    InvalidArgument
        ``weights`` not square, not symmetric, with a NaN, infinite or negative entry; odd ``n``
        without ``pad``; a malformed ``mate`` or unknown kind; negative ``threshold``,
        ``max_phases`` or ``seed``.

    Notes
    -----
    A step costs O(n) (Alg. 5 scans every vertex), a phase O(n^2).  Each flip raises the exact
    weight (``fl(a + b) > fl(c + d)`` implies ``a + b > c + d``), so the phase weights, summed
    with ``math.fsum``, never decrease and the loop ends.

    The input is a complete graph (Hovland, MSc thesis 2020's setting): every pair of distinct vertices is an
    edge, those of weight 0 included, and the result is a perfect matching of it.  For a sparse
    graph, :func:`gpusim.algorithms.weighted.maximum_weight_matching` runs RAMA on its dense
    matrix (non-edges weigh 0) and then drops the pairs that are not edges of the graph.

    A perfect matching with no positive flip weighs at least *half* the optimum (an optimal edge
    ``{x, y}`` weighs at most ``w(x, mate[x]) + w(y, mate[y])``, else flipping those two matched
    edges would gain).  The 2/3 - epsilon guarantee of RAMA and ROMA is for general
    2-augmentations (Pettie and Sanders), which also remove a matched edge at each end of a path;
    4-cycle flips alone do not give it: on six vertices with matched edges ``ab, cd, ef`` of
    weight 1, edges ``bc, de, fa`` of weight 2 and all others 0, no flip gains and the gap to
    optimality is 1/2.

    References
    ----------
    S. Pettie and P. Sanders, "A simpler linear time 2/3 - epsilon approximation for maximum
    weight matching", IPL 91, 2004.  Hovland (MSc thesis 2020), §3.3.4, §3.5, Alg. 2,
    4 and 5.

    Examples
    --------
    >>> w = np.array([[0, 1, 4, 1], [1, 0, 1, 4], [4, 1, 0, 1], [1, 4, 1, 0]], float)
    >>> r = rama(w, "i,i+1", threshold=0.0)
    >>> r.mate.tolist(), r.weight, r.stats["phase_weights"][0], r.stats["converged"]
    ([2, 3, 0, 1], 8.0, 2.0, True)
    >>> rama(np.zeros((0, 0)), []).mate.tolist()
    []
    """
    return _augmentation("rama", weights, mate, threshold, max_phases, pad, seed, "random", max_memory)


def roma(weights: Any, mate: Any, threshold: float = 1e-5, max_phases: int | None = None, *,
         pad: bool = False, seed: int = 0, order: str = "random", max_memory: int | None = None
         ) -> WeightedMatchingResult:
    """ROMA with 4-cycle augmentation on a complete graph (Hovland, MSc thesis 2020, Alg. 3, 4 and 5).

    Each phase augments every vertex once (see :func:`rama` for one augmentation), in a fresh
    random order (``order="random"``, Alg. 3) or in id order (``order="fixed"``, the order in
    which the thesis's parallel ROMA assigns vertices to threads).  The loop stops after a phase
    with no flip (convergence: no flip gains more than ``threshold``) or after ``max_phases``.

    Parameters
    ----------
    weights : array_like
        Shape (n, n). Symmetric, finite, non-negative; the diagonal is not read.
    mate : array_like of int or str
        The start matching (length n, or a kind; see :func:`rama`).  Never modified.
    threshold : float
        A flip must gain strictly more (default 1e-5, the thesis's).
    max_phases : int, optional
        Stop after this many phases; ``None`` (default): until convergence.
    pad : bool
        For odd ``n``: add a zero-weight dummy vertex (see :func:`rama`).
    seed : int
        Seed of ``numpy.random.default_rng`` for the orders (and ``mate="shuffled"``).
    order : str
        The order of the vertices within a phase: ``"random"`` or ``"fixed"``.
    max_memory : int, optional
        As :func:`rama`.

    Returns
    -------
    WeightedMatchingResult
        As :func:`rama`; ``stats`` also has ``order``.  The last phase of a converged run has 0 swaps.

    Raises
    ------
    InvalidArgument
        As :func:`rama`; an unknown ``order``.

    Notes
    -----
    O(n^2) per phase, as the thesis's sequential ROMA (Table 5.1: doubling n costs ~4x).
    Unlike RAMA, a quiet phase proves convergence, since every vertex was tried.

    References
    ----------
    J. Maue and P. Sanders, "Engineering algorithms for approximate weighted matching",
    WEA 2007.  Hovland (MSc thesis 2020), §3.3.5, §3.5, Alg. 3, 4 and 5, §5.4.

    Examples
    --------
    >>> w = np.array([[0, 1, 4, 1], [1, 0, 1, 4], [4, 1, 0, 1], [1, 4, 1, 0]], float)
    >>> r = roma(w, "i,i+1", order="fixed")
    >>> r.mate.tolist(), r.stats["phase_weights"], r.stats["phase_swaps"]
    ([2, 3, 0, 1], [2.0, 8.0, 8.0], [1, 0])
    >>> roma(np.ones((3, 3)) - np.eye(3), [-1, -1, -1], pad=True).mate.tolist()
    [1, 0, -1]
    >>> roma(np.zeros((0, 0)), "i,i+1").weight
    0.0
    """
    if not isinstance(order, str) or order not in ("random", "fixed"):
        raise InvalidArgument(f"order={order!r} must be 'random' or 'fixed'")
    return _augmentation("roma", weights, mate, threshold, max_phases, pad, seed, order, max_memory)
