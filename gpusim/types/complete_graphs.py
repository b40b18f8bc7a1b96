"""Complete weighted graphs as dense matrices: Hovland (MSc thesis 2020)'s three generators and its gap to optimality.

Hovland (MSc thesis 2020), §5.1, runs ROMA on complete graphs stored as symmetric
``n x n`` weight matrices, with three weight distributions:

* **random** (here :func:`uniform`): every edge weight drawn uniformly from [0, 1), mean 0.5;
* **exponential** (:func:`exponential`): weights drawn from the exponential distribution with
  density ``lam * exp(-lam * x)``, ``lam = 3.5`` (mean 1/3.5 ~ 0.29; most weights are near 0, so
  the graph behaves like a sparse general graph);
* **geometric** (:func:`geometric`): ``n`` points drawn uniformly in the unit square, and the
  weight of edge ``{i, j}`` is the *Euclidean distance* between points ``i`` and ``j`` (so points
  near the border of the square have many heavy edges).

Every generator returns a C-contiguous float64 array, exactly symmetric, with a zero diagonal,
drawn from ``numpy.random.default_rng(seed)`` only: the same ``(n, seed)`` gives the same matrix,
bit for bit.  A matrix takes ``8 n^2`` bytes (n = 16384: 2 GiB).

:func:`gap_to_optimum` is the thesis's quality measure, ``GTO = (opt - w) / opt`` (§5.4.3),
against an exact maximum-weight matching from NetworkX's blossom algorithm (the thesis used
LEMON's); it is meant for small ``n`` (a few hundred vertices at most, see its Notes).

A dense matrix costs ``8 n^2`` bytes, so everything that builds one first asks
:func:`check_memory`: above ``max_memory`` (default :func:`default_memory_limit`, half the memory
available) it refuses with a message naming the size, the limit and the sparse alternative.

The checks of dense weight matrices and of matchings on them live here too;
:mod:`gpusim.algorithms.weighted.start_matchings` (RAMA, ROMA) uses them.  Bad arguments raise
:class:`~gpusim.errors.InvalidArgument` (or :class:`~gpusim.errors.InvalidArgumentType`) naming
the argument and showing its value.

Examples
--------
>>> from gpusim.types.complete_graphs import exponential, geometric, uniform
>>> w = uniform(4, seed=0)
>>> w.shape, bool((w == w.T).all()), w.diagonal().tolist()
((4, 4), True, [0.0, 0.0, 0.0, 0.0])
>>> float(geometric(2, seed=1)[0, 1]) == float(geometric(2, seed=1)[1, 0])
True
>>> exponential(0, seed=0).shape
(0, 0)
"""

from __future__ import annotations

import math
import reprlib
from typing import Any

import numba
import numpy as np
import scipy.sparse as sp

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.types.arguments import check_int, check_seed, not_real_message
from gpusim.types.check import check_mate
from gpusim.types.memory import memory_available
from gpusim.types.numeric import weight_sum

__all__ = ["check_memory", "default_memory_limit", "dense_bytes", "exponential", "gap_to_optimum", "geometric",
           "matching_weight", "uniform"]

#: What to generate instead of a large complete graph.
_SPARSE_GENERATOR = "generate a sparse graph instead (gpusim.types.generators) and match it with a sparse algorithm"
#: What to use instead of a dense complete-graph algorithm on a large sparse graph.
SPARSE_ALTERNATIVE = ("use a sparse algorithm instead: maximum_weight_matching(graph, 'suitor') "
                      "(--algorithm suitor), or ld, greedy, gpa")


# ----------------------------------------------------------------------------------------------
# Memory guards


def default_memory_limit() -> int:
    """Half the memory this process may use now (:func:`gpusim.types.memory.memory_available`: the least of
    ``MemAvailable``, the cgroup's room and ``RLIMIT_AS``).

    >>> default_memory_limit() > 0
    True
    """
    return memory_available() // 2


def dense_bytes(n: int, copies: int = 1) -> int:
    """Bytes of ``copies`` dense float64 ``n x n`` matrices.

    >>> dense_bytes(200_000) / 2**30
    298.0232238769531
    """
    return 8 * int(n) * int(n) * int(copies)


def _gib(size: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size} bytes"


def check_memory(needed: int, max_memory: Any, what: str, alternative: str = SPARSE_ALTERNATIVE) -> None:
    """Refuse, before allocating, a request of ``needed`` bytes above ``max_memory``.

    ``max_memory`` is a byte count or ``None`` for :func:`default_memory_limit`.  The
    ``InvalidArgument`` names ``what`` needs the memory, the size, the limit and ``alternative``.

    >>> check_memory(dense_bytes(100), None, "a 100 x 100 matrix")
    >>> check_memory(dense_bytes(200_000), 2**30, "roma on 200000 vertices")
    Traceback (most recent call last):
    ...
    gpusim.errors.InvalidArgument: roma on 200000 vertices needs about 298 GiB ...
    """
    if max_memory is None and needed <= 0:
        return  # nothing asked: the host's memory need not be read
    limit = default_memory_limit() if max_memory is None else check_int("max_memory", max_memory, 0, None)
    if needed > limit:
        origin = "max_memory" if max_memory is not None else "max_memory, by default half the memory available"
        raise InvalidArgument(f"{what} needs about {_gib(needed)} ({needed} bytes), more than the limit of "
                              f"{_gib(limit)} ({origin}); {alternative}")


@numba.njit(parallel=True)
def _valid_weight_tiles(a):  # pragma: no cover - compiled
    """True when ``a`` is finite, non-negative and exactly symmetric: one pass over tiles of
    ``a[i, j]`` beside ``a[j, i]``, the tile rows in parallel (the transposed reads of
    ``a != a.T`` would miss the cache on every element of a large matrix)."""
    n = a.shape[0]
    tile = 64
    rows = (n + tile - 1) // tile
    ok = np.ones(rows, np.bool_)
    for ti in numba.prange(rows):
        for tj in range(ti, rows):
            for i in range(ti * tile, min(n, ti * tile + tile)):
                for j in range(max(i, tj * tile), min(n, tj * tile + tile)):
                    x = a[i, j]
                    y = a[j, i]
                    if not (x >= 0.0 and x == y and x < np.inf):  # also false for NaN
                        ok[ti] = False
    return ok.all()


def check_weight_matrix(name: str, weights: Any) -> np.ndarray:
    """A dense weight matrix: 2-D, square, real, finite, non-negative, exactly symmetric.

    Returns it as a C-contiguous float64 array (the argument itself when it already is one, so
    callers must not write to the result).  The diagonal must be finite and non-negative too,
    but no algorithm reads it.
    """
    if sp.issparse(weights):
        raise InvalidArgumentType(
            f"{name} must be a dense n x n array, got a SciPy sparse {type(weights).__name__}; use .toarray()"
        )
    try:
        arr = np.asarray(weights)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentType(f"{name} must be a dense n x n array of numbers, got {reprlib.repr(weights)}: "
                                  f"{exc}") from exc
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise InvalidArgument(f"{name} must be a square n x n matrix, got shape {arr.shape}")
    if arr.dtype.kind == "c":
        raise InvalidArgumentType(f"{name} has complex dtype {arr.dtype}: weights must be real")
    if arr.dtype.kind not in "iuf":
        raise InvalidArgumentType(not_real_message(name, arr))
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if _valid_weight_tiles(arr):
        return arr
    # something is wrong: find the first offence, in the order the messages promise
    for bad, what in ((~np.isfinite(arr), "is not finite"), (arr < 0, "is negative")):
        idx = np.argwhere(bad)
        if idx.size:
            i, j = (int(x) for x in idx[0])
            raise InvalidArgument(f"{name}[{i}, {j}]={arr[i, j].item()!r} {what}: weights must be finite and >= 0")
    asym = np.argwhere(arr != arr.T)
    if asym.size:
        i, j = (int(x) for x in asym[0])
        raise InvalidArgument(
            f"{name} is not symmetric: {name}[{i}, {j}]={arr[i, j].item()!r} but {name}[{j}, {i}]={arr[j, i].item()!r}"
        )
    return arr


def matching_weight(weights: Any, mate: Any) -> float:
    """Total weight of a matching on a dense weight matrix, exactly rounded (:func:`~gpusim.types.numeric.weight_sum`).

    Parameters
    ----------
    weights : array_like
        Shape (n, n). Symmetric, finite, non-negative.
    mate : array_like of int
        ``mate[v]``: the partner of ``v`` or -1 (length n); must be symmetric.

    Returns
    -------
    float
        The sum of ``weights[u, mate[u]]`` over matched pairs ``u < mate[u]``.

    Raises
    ------
    InvalidArgument
        A malformed matrix or matching (see :func:`gap_to_optimum`).

    Examples
    --------
    >>> matching_weight([[0, 2], [2, 0]], [1, 0])
    2.0
    >>> matching_weight(np.zeros((0, 0)), [])
    0.0
    """
    w = check_weight_matrix("weights", weights)
    m = check_mate("mate", mate, w.shape[0])
    return dense_matching_weight(w, m)


def dense_matching_weight(w: np.ndarray, mate: np.ndarray) -> float:
    """The weight of matching ``mate`` in the checked dense matrix ``w`` (:func:`matching_weight` checks first)."""
    u = np.flatnonzero(mate > np.arange(mate.shape[0]))
    return weight_sum(w[u, mate[u]])


# ----------------------------------------------------------------------------------------------
# Generators


def _symmetric_upper(draws: np.ndarray) -> np.ndarray:
    """Keep the strict upper triangle of a square draw and mirror it: exactly symmetric, zero diagonal."""
    upper = np.triu(draws, 1)
    return np.ascontiguousarray(upper + upper.T)


def uniform(n: int, seed: int, *, max_memory: int | None = None) -> np.ndarray:
    """Hovland (MSc thesis 2020)'s *random weight graph*: a complete graph with weights uniform in [0, 1).

    Parameters
    ----------
    n : int
        Number of vertices, ``n >= 0``.
    seed : int
        Seed of ``numpy.random.default_rng``, ``>= 0``.
    max_memory : int, optional
        Refuse (``InvalidArgument``) when the matrix and its temporaries would take more bytes
        (default: half the memory available, see :func:`check_memory`).

    Returns
    -------
    ndarray of float64, shape (n, n)
        Symmetric with zero diagonal; entry ``[i, j]`` (``i < j``) is the ``(i, j)`` draw of an
        ``n x n`` array of ``rng.random`` values, mirrored below the diagonal.

    Raises
    ------
    InvalidArgument
        ``n`` or ``seed`` negative or not an integer.

    References
    ----------
    Hovland (MSc thesis 2020), §5.1, "Random weight graphs" (the thesis says
    [0, 1]; NumPy draws from [0, 1), which differs only on a set of probability zero).

    Examples
    --------
    >>> w = uniform(3, seed=7)
    >>> bool(((w >= 0) & (w < 1)).all()), bool((w == w.T).all())
    (True, True)
    >>> uniform(0, seed=7).shape
    (0, 0)
    """
    n = check_int("n", n)
    rng = np.random.default_rng(check_seed(seed))
    check_memory(dense_bytes(n, 4), max_memory, f"uniform({n}): a dense {n} x {n} matrix and its temporaries",
                 _SPARSE_GENERATOR)
    return _symmetric_upper(rng.random((n, n)))


def exponential(n: int, seed: int, lam: float = 3.5, *, max_memory: int | None = None) -> np.ndarray:
    """Hovland (MSc thesis 2020)'s *exponential weight graph*: weights with density ``lam * exp(-lam * x)``.

    The thesis chose ``lam = 3.5`` "as this gives a max value of x that is close to 1": the
    distribution is not truncated (a weight above 1 has probability ``exp(-3.5) ~ 3 %``), its mean
    is ``1 / lam``.  Most weights are near zero, as most pairs of a sparse graph are non-edges.

    Parameters
    ----------
    n : int
        Number of vertices, ``n >= 0``.
    seed : int
        Seed of ``numpy.random.default_rng``, ``>= 0``.
    lam : float
        The rate, positive and finite (default 3.5, the thesis's).
    max_memory : int, optional
        Refuse (``InvalidArgument``) when the matrix and its temporaries would take more bytes
        (default: half the memory available, see :func:`check_memory`).

    Returns
    -------
    ndarray of float64, shape (n, n)
        Symmetric with zero diagonal (``rng.exponential(1 / lam, (n, n))``, upper triangle mirrored).

    Raises
    ------
    InvalidArgument
        ``n`` or ``seed`` negative or not an integer; ``lam`` not a positive finite number.

    References
    ----------
    Hovland (MSc thesis 2020), §5.1, "Exponential weight graphs" and Figure 5.1.

    Examples
    --------
    >>> w = exponential(64, seed=0)
    >>> 0.2 < float(w.sum()) / (64 * 63) < 0.4      # mean 1 / 3.5 ~ 0.29
    True
    >>> exponential(0, seed=0, lam=1.0).shape
    (0, 0)
    """
    n = check_int("n", n)
    seed = check_seed(seed)
    if isinstance(lam, (bool, np.bool_)) or not isinstance(lam, (int, float, np.integer, np.floating)):
        raise InvalidArgumentType(f"lam must be a real number, got lam={lam!r} of type {type(lam).__name__}")
    if not (math.isfinite(lam) and lam > 0):
        raise InvalidArgument(f"lam={lam!r} must be positive and finite (the rate of the exponential distribution)")
    check_memory(dense_bytes(n, 4), max_memory, f"exponential({n}): a dense {n} x {n} matrix and its temporaries",
                 _SPARSE_GENERATOR)
    rng = np.random.default_rng(seed)
    return _symmetric_upper(rng.exponential(1.0 / float(lam), (n, n)))


def geometric(n: int, seed: int, *, max_memory: int | None = None) -> np.ndarray:
    """Hovland (MSc thesis 2020)'s *geometric graph*: Euclidean distances between ``n`` random points of the unit
    square.

    Point ``i`` is ``rng.random((n, 2))[i]``, uniform in [0, 1)^2; the weight of ``{i, j}`` is the
    distance ``sqrt((x_i - x_j)^2 + (y_i - y_j)^2)``, in [0, sqrt(2)).  (The weight is the
    distance itself, not a decreasing function of it: far-apart pairs are heavy, so points near
    the border of the square have many heavy edges, as the thesis notes.)

    Parameters
    ----------
    n : int
        Number of vertices, ``n >= 0``.
    seed : int
        Seed of ``numpy.random.default_rng``, ``>= 0``.
    max_memory : int, optional
        Refuse (``InvalidArgument``) when the matrix and its temporaries would take more bytes
        (default: half the memory available, see :func:`check_memory`).

    Returns
    -------
    ndarray of float64, shape (n, n)
        Symmetric (bit for bit) with zero diagonal.

    Raises
    ------
    InvalidArgument
        ``n`` or ``seed`` negative or not an integer.

    References
    ----------
    Hovland (MSc thesis 2020), §5.1, "The geometric graphs are generated as
    follows: n random points are generated in the plane within the unit square [...] The
    euclidean distance between pairs of points are then the edge weights of the graph."

    Examples
    --------
    >>> w = geometric(3, seed=0)
    >>> bool((w == w.T).all()), bool((w < 2 ** 0.5).all()), w.diagonal().tolist()
    (True, True, [0.0, 0.0, 0.0])
    >>> geometric(0, seed=0).shape
    (0, 0)
    """
    n = check_int("n", n)
    rng = np.random.default_rng(check_seed(seed))
    check_memory(dense_bytes(n, 5), max_memory, f"geometric({n}): a dense {n} x {n} matrix and its temporaries",
                 _SPARSE_GENERATOR)
    points = rng.random((n, 2))
    dx = points[:, 0, None] - points[None, :, 0]
    dy = points[:, 1, None] - points[None, :, 1]
    # (a - b)^2 == (b - a)^2 exactly, so the matrix is symmetric bit for bit; the diagonal is 0
    return np.ascontiguousarray(np.sqrt(dx * dx + dy * dy))


# ----------------------------------------------------------------------------------------------
# Quality


def _exact_weight(w: np.ndarray) -> float:
    """Weight of a maximum-weight matching of the complete graph ``w`` (NetworkX's blossom algorithm)."""
    import networkx as nx

    n = w.shape[0]
    G = nx.Graph()
    G.add_nodes_from(range(n))
    iu, iv = np.triu_indices(n, 1)
    keep = w[iu, iv] > 0
    G.add_weighted_edges_from(zip(iu[keep].tolist(), iv[keep].tolist(), w[iu, iv][keep].tolist(), strict=True))
    pairs = nx.max_weight_matching(G)
    return weight_sum([float(w[a, b]) for a, b in pairs])


def gap_to_optimum(weights: Any, mate: Any) -> float:
    """Hovland (MSc thesis 2020)'s gap to optimality, ``(opt - w) / opt``, of a matching on a complete graph.

    ``w`` is the weight of ``mate``, ``opt`` that of a maximum-weight matching computed exactly by
    ``networkx.max_weight_matching`` (Edmonds' blossom algorithm).  A gap of 0.01 means 99 % of
    the optimum.  When ``opt`` is 0 (no positive weight) the gap is 0.

    Parameters
    ----------
    weights : array_like
        Shape (n, n). Symmetric, finite, non-negative weights; the diagonal is not read.
    mate : array_like of int
        ``mate[v]``: the partner of ``v`` or -1 (length n; it need not be perfect); symmetric.

    Returns
    -------
    float
        The gap, in [0, 1] up to rounding (a matching as heavy as the optimum may give a
        gap of a few ulps below 0).

    Raises
    ------
    InvalidArgumentType
        ``weights`` is sparse, complex or not numeric; ``mate`` does not hold integers.
    InvalidArgument
        ``weights`` is not square, not symmetric, has a NaN, infinite or negative entry; ``mate``
        has the wrong length, an id out of range, a self-match or is not symmetric.

    Notes
    -----
    For small ``n`` only: NetworkX's blossom algorithm is pure Python and O(n^3) on a complete
    graph (n = 100 takes about a second, n = 300 around a minute).  The weight of ``mate`` and
    of the optimum are summed with ``math.fsum``.

    References
    ----------
    Hovland (MSc thesis 2020), §5.3.2 and §5.4.3 (GTO against Edmonds'
    algorithm); J. Edmonds, "Paths, trees, and flowers", 1965.

    Examples
    --------
    >>> w = np.array([[0, 1, 4, 1], [1, 0, 1, 4], [4, 1, 0, 1], [1, 4, 1, 0]], float)
    >>> gap_to_optimum(w, [1, 0, 3, 2])      # weight 2 of an optimum of 8
    0.75
    >>> gap_to_optimum(w, [2, 3, 0, 1])
    0.0
    >>> gap_to_optimum(np.zeros((0, 0)), [])
    0.0
    """
    w = check_weight_matrix("weights", weights)
    m = check_mate("mate", mate, w.shape[0])
    got = dense_matching_weight(w, m)
    opt = _exact_weight(w)
    if opt <= 0:
        return 0.0
    return (opt - got) / opt
