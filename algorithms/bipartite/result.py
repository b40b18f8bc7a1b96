"""What the sequential references return: :class:`MatchingResult`, a matching and its run's counters.

The GPU algorithms and the dispatcher return :class:`gpusim.types.results.BipartiteMatching` (checked and
certified on demand); the registered references wrap a :class:`MatchingResult` into one.

Example
-------
>>> import numpy as np
>>> row_match, col_match, stats = MatchingResult(np.array([0]), np.array([0]), {"size": 1})
>>> stats["size"]
1
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["MatchingResult"]


class MatchingResult(NamedTuple):
    """A bipartite matching and the counters of the run that found it.

    Unpacks as ``row_match, col_match, stats = result``; ``result[:2]`` (or the result itself) can
    be passed as another algorithm's ``initial`` matching.

    Attributes
    ----------
    row_match : ndarray of int32, length ``n_rows``
        ``row_match[r]``: the column matched to row ``r``, or -1.
    col_match : ndarray of int32, length ``n_cols``
        ``col_match[c]``: the row matched to column ``c``, or -1.
    stats : dict
        ``"algorithm"``, ``"size"`` (number of matched pairs), ``"initial_size"`` and per-algorithm
        counters (phases, augmentations, pushes, global relabels); see each function.
    """

    row_match: np.ndarray
    col_match: np.ndarray
    stats: dict
