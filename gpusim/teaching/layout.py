"""Node-link layouts in which no edge passes through a vertex it does not join.

NetworkX's spring layout can put a vertex on the line of an edge between two others (the karate graph's
edge 24-27 runs through vertex 15 with ``seed=1``), and the picture then reads as two edges of that vertex.
:func:`clear_layout` moves the vertices apart from such edges; :func:`edge_crossings` finds what is left.
The weighted-matching and community pictures (:mod:`gpusim.teaching.plots`,
``gpusim.teaching.community_picture``) draw with it.
"""

from __future__ import annotations

__all__ = ["clear_layout", "edge_crossings"]


def _distances(xy, ends):
    """Every vertex's distance to every edge (``inf`` to its own edges) and the vector from the edge's nearest
    point to the vertex: arrays ``V x E`` and ``V x E x 2``."""
    import numpy as np

    a, b = xy[ends[:, 0]], xy[ends[:, 1]]
    span = b - a
    length = (span ** 2).sum(1)
    t = np.clip(((xy[:, None, :] - a[None]) * span[None]).sum(2) / np.where(length == 0, 1, length)[None], 0, 1)
    away = xy[:, None, :] - (a[None] + t[..., None] * span[None])
    distance = np.hypot(away[..., 0], away[..., 1])
    vertices = np.arange(len(xy))[:, None]
    distance[(vertices == ends[None, :, 0]) | (vertices == ends[None, :, 1])] = np.inf
    return distance, away


def _as_arrays(positions: dict, edges):
    import numpy as np

    order = list(positions)
    index = {vertex: k for k, vertex in enumerate(order)}
    ends = np.array([(index[u], index[v]) for u, v in edges if u != v], dtype=np.int64).reshape(-1, 2)
    return order, np.array([positions[vertex] for vertex in order], dtype=float).reshape(-1, 2), ends


def clear_layout(positions: dict, edges, clearance: float = 0.04, rounds: int = 500) -> dict:
    """``positions`` (vertex -> (x, y), a NetworkX layout) moved so that no edge passes within ``clearance`` of
    a vertex it does not join (an edge drawn through a vertex reads as two edges of that vertex): each sweep
    pushes every vertex too near an edge away from the edge's nearest point, and the edge's ends a little the
    other way, until none is (or ``rounds`` sweeps).  The default clearance is a drawn vertex's radius in a
    spring layout's coordinates (about [-1, 1]) on a 7-inch picture.

    >>> moved = clear_layout({0: (0.0, 0.0), 1: (1.0, 0.0), 2: (0.5, 0.01)}, [(0, 1)])
    >>> edge_crossings(moved, [(0, 1)])
    []
    """
    import numpy as np

    order, xy, ends = _as_arrays(positions, edges)
    for _ in range(rounds if len(ends) else 0):
        distance, away = _distances(xy, ends)
        near = distance < clearance
        if not near.any():
            break
        unit = away / np.where(distance < 1e-9, 1e-9, distance)[..., None]
        push = unit * np.where(near, clearance - distance + 2e-3, 0.0)[..., None]
        xy += 0.6 * push.sum(1)
        back = 0.2 * push.sum(0)
        np.add.at(xy, ends[:, 0], -back)
        np.add.at(xy, ends[:, 1], -back)
    return {vertex: (float(x), float(y)) for vertex, (x, y) in zip(order, xy, strict=True)}


def edge_crossings(positions: dict, edges, clearance: float = 0.04) -> list[tuple]:
    """The ``(vertex, (u, v))`` pairs where edge ``u-v`` passes within ``clearance`` of a vertex it does not join."""
    import numpy as np

    order, xy, ends = _as_arrays(positions, edges)
    if not len(ends):
        return []
    distance, _ = _distances(xy, ends)
    return [(order[w], (order[ends[e, 0]], order[ends[e, 1]])) for w, e in zip(*np.nonzero(distance < clearance),
                                                                                strict=True)]
