"""What the stable marriage algorithms return: :class:`StableMatching`, checked on demand.

Example
-------
>>> import numpy as np
>>> from gpusim.types.preferences import PreferenceInstance
>>> inst = PreferenceInstance([[0]], [[0]])
>>> m = StableMatching(inst, np.array([0], np.int32), "gs", "cpu")
>>> m.size, m.valid, m.stable
(1, True, True)
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from gpusim.types.check import blocking_pairs
from gpusim.types.preferences import PreferenceInstance
from gpusim.types.results import CheckedResult

__all__ = ["StableMatching"]


class StableMatching(CheckedResult):
    """A stable marriage (or hospitals/residents assignment) with its checks on demand.

    Attributes
    ----------
    instance:
        The :class:`~gpusim.types.preferences.PreferenceInstance` it solves.
    wife:
        ``wife[m]``: the woman of man ``m``, or -1 when he is single (int32).
    capacities:
        ``capacities[w]``: how many men woman ``w`` may take, b(w) (int32; all 1 for a marriage).
    size:
        The number of married men.
    proposals:
        Women considered by the men, summed: for each man the position of his final partner
        in his mutual list plus one, or his list's length if single — the same for every
        Gale-Shapley-type order, and the count Manne et al. (CSC 2016) divides by time ("proposals
        per second").
    blocking_pairs:
        ``(man, woman)`` pairs that block, found by :func:`gpusim.types.check.blocking_pairs` from the
        lists as given (raises ``InvalidArgument`` if the marriage is not even valid).
    valid, problem:
        Every married pair ranks each other and no woman has more husbands than her capacity
        (checked by :func:`gpusim.types.check.blocking_pairs`, lazily); else ``problem`` names the fault.
    stable:
        Valid, with no blocking pair.
    algorithm, backend, stats:
        What computed it; launches, rounds, seconds per phase.
    """

    def __init__(self, instance: PreferenceInstance, wife: np.ndarray, algorithm: str, backend: str,
                 stats: dict | None = None, capacities: np.ndarray | None = None):
        self.instance = instance
        self.wife = np.asarray(wife, np.int32)
        self.capacities = (np.ones(instance.n_women, np.int32) if capacities is None
                           else np.asarray(capacities, np.int32))
        self.algorithm = algorithm
        self.backend = backend
        self.stats = dict(stats or {})

    @property
    def size(self) -> int:
        return int(np.count_nonzero(self.wife >= 0))

    @cached_property
    def proposals(self) -> int:
        return _proposals(self.instance, self.wife)

    def husbands(self, woman: int) -> list[int]:
        """The men married to ``woman``, in increasing id order."""
        return np.flatnonzero(self.wife == woman).tolist()

    @cached_property
    def blocking_pairs(self) -> list[tuple[int, int]]:
        return blocking_pairs(self.instance, self.wife, self.capacities)

    def _check(self) -> list[tuple[int, int]]:
        return self.blocking_pairs

    @property
    def stable(self) -> bool:
        return self.valid and not self.blocking_pairs

    def certificate(self) -> list[tuple[int, int]]:
        """The blocking pairs, found from the lists as given: none proves the matching stable."""
        return self.blocking_pairs

    @property
    def certified(self) -> bool:
        """Valid and stable: :meth:`certificate` found no blocking pair."""
        return self.stable

    def __repr__(self) -> str:
        return f"StableMatching(size={self.size}, algorithm={self.algorithm!r}, backend={self.backend!r})"


def _proposals(instance: PreferenceInstance, wife: np.ndarray) -> int:
    """Women considered: per man, the position of his wife in his mutual list plus one, or its length."""
    ptr, women = instance.men_ptr.astype(np.int64), instance.men_list
    lengths = np.diff(ptr)
    married = np.flatnonzero(wife >= 0)
    if married.size == 0:
        return int(lengths.sum())
    owner = np.repeat(np.arange(instance.n_men, dtype=np.int64), lengths)
    is_wife = women == wife[owner]
    position = np.flatnonzero(is_wife) - ptr[owner[is_wife]]
    considered = lengths.copy()
    considered[owner[is_wife]] = position + 1
    return int(considered.sum())
