"""What the matching algorithms return.

Checking a result costs more than some algorithms (a König cover of a 10^7-edge graph takes
about a second), so results check themselves when asked: ``result.valid`` and
``result.certified`` run the independent checks of :mod:`gpusim.types.check` once, against the input
the result was computed from, and remember the answer.  Timings of algorithms therefore never
include their validation, and a GPU call never waits for it; the CLI and the tests always ask.

Every result class derives from :class:`CheckedResult`: ``valid`` is True or False (never
raises), ``problem`` says what is wrong, ``validate()`` raises
:class:`~gpusim.errors.GpusimInternalError` naming it; ``certificate()`` returns the evidence of
the result's guarantee that anyone can check without trusting the algorithm (a König cover for a
maximum matching, the blocking pairs of a stable matching — none — and so on), and ``certified``
says that the result is valid and its certificate checks.

Example
-------
>>> import numpy as np
>>> from gpusim.types.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0], [0])
>>> m = BipartiteMatching(g, np.array([0], np.int32), np.array([0], np.int32), "hk", "cpu")
>>> m.size, m.valid, m.certified
(1, True, True)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from functools import cached_property

import numpy as np

from gpusim.errors import GpusimInternalError, InvalidArgument
from gpusim.types.check import check_bipartite_matching, konig_cover, verify_cover
from gpusim.types.graphs import BipartiteGraph

__all__ = ["BipartiteMatching", "CheckedResult"]


class CheckedResult(ABC):
    """A result that validates itself, once, against the input it was computed from.

    Subclasses define ``_check()``, which calls the validator of :mod:`gpusim.types.check` for their
    kind of result (raising ``InvalidArgument`` naming the first problem), ``certificate()`` and
    ``certified``, and have ``algorithm``, ``backend`` and ``stats`` attributes.
    """

    algorithm: str
    backend: str
    stats: dict

    @abstractmethod
    def _check(self) -> object:
        """Run this kind of result's validator of :mod:`gpusim.types.check` on the result and its input."""

    @abstractmethod
    def certificate(self) -> object:
        """The evidence of the result's guarantee, computed from the result and its input alone."""

    @property
    @abstractmethod
    def certified(self) -> bool:
        """Valid, and the certificate checks against the input."""

    @cached_property
    def problem(self) -> str | None:
        """What makes the result invalid (the validator's message), or None when it is valid."""
        try:
            self._check()
        except InvalidArgument as error:
            return str(error)
        return None

    @property
    def valid(self) -> bool:
        """Whether the result is a valid matching of its input (validated on first access)."""
        return self.problem is None

    def validate(self) -> CheckedResult:
        """Return ``self`` if valid; else raise ``GpusimInternalError`` naming the problem."""
        if self.problem is not None:
            raise GpusimInternalError(f"{self.algorithm} on {self.backend} returned an invalid result: {self.problem}")
        return self


class BipartiteMatching(CheckedResult):
    """A maximum-cardinality bipartite matching, with its certificate on demand.

    Attributes
    ----------
    graph:
        The graph it matches.
    row_match, col_match:
        ``row_match[r]`` is the column matched to row ``r``, ``col_match[c]`` the row matched to
        column ``c``; -1 when unmatched (as SciPy does).
    size:
        The number of matched rows.
    valid, problem:
        Both sides agree and every pair is an edge of ``graph``
        (:func:`gpusim.types.check.check_bipartite_matching`); else ``problem`` names the first fault.
    cover:
        ``(row_in_cover, col_in_cover)``: a König vertex cover built from the matching alone.
    certified:
        Valid, and the cover covers every edge with exactly ``size`` vertices: maximum.
    algorithm, backend:
        What computed it.
    stats:
        Kernel launches, BFS levels, global relabels, loop iterations, seconds per phase.
    """

    def __init__(self, graph: BipartiteGraph, row_match: np.ndarray, col_match: np.ndarray, algorithm: str,
                 backend: str, stats: dict | None = None):
        self.graph = graph
        self.row_match = np.asarray(row_match, np.int32)
        self.col_match = np.asarray(col_match, np.int32)
        self.algorithm = algorithm
        self.backend = backend
        self.stats = dict(stats or {})

    @property
    def size(self) -> int:
        return int(np.count_nonzero(self.row_match >= 0))

    def _check(self) -> int:
        return check_bipartite_matching(self.graph, self.row_match, self.col_match)

    @cached_property
    def cover(self) -> tuple[np.ndarray, np.ndarray]:
        return konig_cover(self.graph, self.row_match, self.col_match)

    def certificate(self) -> tuple[np.ndarray, np.ndarray]:
        """The König vertex cover built from the matching: as many vertices as matched pairs, and
        covering every edge, it proves the matching maximum."""
        return self.cover

    @cached_property
    def certified(self) -> bool:
        if not self.valid:
            return False
        row_cover, col_cover = self.cover
        return (verify_cover(self.graph, self.cover)
                and int(row_cover.sum() + col_cover.sum()) == self.size)

    def __repr__(self) -> str:
        return f"BipartiteMatching(size={self.size}, algorithm={self.algorithm!r}, backend={self.backend!r})"
