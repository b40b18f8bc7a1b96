"""Stable marriage instances: preference lists, validated, with the ranking precomputation.

A :class:`PreferenceInstance` holds, for ``n_men`` men and ``n_women`` women, each person's
preference list: ids of the other side, 0-based, best first.  Lists may be incomplete (SMI);
a pair is acceptable only if each ranks the other (Manne et al., CSC 2016 §2).  Ties are not
supported.  The JSON form is DESIGN's ``{"men": [[...], ...], "women": [[...], ...]}``.

Examples
--------
>>> from gpusim.types.preferences import PreferenceInstance
>>> inst = PreferenceInstance.from_lists([[1, 0], [0]], [[1, 0], [0]])
>>> inst.men_list.tolist(), inst.men_rank_by_woman.tolist()
([1, 0, 0], [0, 1, 0])
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.types.preference_lists import (
    as_lists,
    check_outer,
    check_range,
    check_side,
    csr_arrays,
    describe,
    first_repeat,
    json_text,
    mutual_csr,
    rank_in,
)

__all__ = ["PreferenceInstance"]


# ----------------------------------------------------------------------------------------------
# The instance


class PreferenceInstance:
    """A stable marriage instance with (possibly incomplete) strict preference lists.

    Parameters
    ----------
    men : list of list of int
        ``men[m]`` is man ``m``'s list of women ids, best first.  ``n_men = len(men)``.
    women : list of list of int
        ``women[w]`` is woman ``w``'s list of men ids, best first.  ``n_women = len(women)``.
    complete : bool
        Require an SM instance: as many men as women and every list ranking everyone.

    Attributes
    ----------
    n_men, n_women : int
    men_prefs, women_prefs : list of lists of int
        The lists as given (treat them as read-only).
    men_ptr, men_list, men_rank_by_woman : ndarray of int32
        The *mutual* men's lists (see :meth:`mutual`) as CSR: man ``m``'s acceptable women,
        best first, are ``men_list[men_ptr[m]:men_ptr[m + 1]]``, and ``men_rank_by_woman[k]`` is
        the rank that woman ``men_list[k]`` gives man ``m`` (0 = her best).
    women_ptr, women_list, women_rank_by_man : ndarray of int32
        The same for the women: ``women_rank_by_man[k]`` is the rank man ``women_list[k]`` gives
        woman ``w``.

    Raises
    ------
    InvalidArgumentType
        ``men``/``women`` or one of their lists is not a list; an id is not an integer (floats,
        bools and strings are refused, ``2.0`` included).
    InvalidArgument
        An id negative or out of range; a person listed twice in one list; a tie (a list inside a
        list); with ``complete=True``, unequal sides or a list that does not rank everyone.

    Notes
    -----
    Ranks are 0-based positions in the mutual lists, so ``women_list[women_ptr[w] + r] == m``
    exactly when woman ``w`` gives man ``m`` rank ``r``.  A rank larger than any real one
    (``n_men`` for a woman, ``n_women`` for a man) serves as "no suitor" — Manne et al. (CSC 2016)'s
    ``ranking(r, NULL) = n + 1`` in 0-based form.

    The rank arrays are the linear-space precomputation of Manne et al. (CSC 2016) §2 ("The Stable
    Marriage Problem"): for SMI a full ``ranking()`` table would take O(n^2) space, so "store the
    value of ranking(r_i, l_j) together with r_i in l_j's ranking list so that it can be fetched
    in O(1) time", purging every woman who has not ranked ``l_j`` from his list.  As in the paper,
    this is done with a position array in time proportional to the total list length (compiled
    with ``numba.njit``).  The mutual lists must fit int32 offsets (at most 2^31 - 1 entries a
    side), since kernels index with int32.

    References
    ----------
    Manne et al. (CSC 2016) §2, the
    paragraph after Algorithm 1's definition of ``ranking()``.

    Examples
    --------
    >>> inst = PreferenceInstance([[0, 1], [0]], [[1], [1, 0]])
    >>> inst.n_men, inst.n_women, inst.mutual().men_prefs
    (2, 2, [[1], [0]])
    >>> inst.men_ptr.tolist(), inst.men_list.tolist(), inst.men_rank_by_woman.tolist()
    ([0, 1, 2], [1, 0], [0, 0])
    >>> PreferenceInstance([], []).men_ptr.tolist()
    [0]
    """

    __slots__ = ("_n_men", "_n_women", "_men", "_women", "_m_ptr", "_m_flat", "_w_ptr", "_w_flat", "_csr")

    def __init__(self, men: Any, women: Any, *, complete: bool = False):
        if not isinstance(complete, bool):
            raise InvalidArgumentType(f"complete must be a bool, got {describe(complete)}")
        men, women = check_outer("men", men), check_outer("women", women)
        self._n_men, self._n_women = n_men, n_women = len(men), len(women)
        self._men, self._m_ptr, self._m_flat = check_side("men", men, n_women, "woman")
        self._women, self._w_ptr, self._w_flat = check_side("women", women, n_men, "man")
        if complete:
            self._check_complete()
        self._csr: dict[str, np.ndarray] | None = None

    def _check_complete(self) -> None:
        n_men, n_women = self._n_men, self._n_women
        if n_men != n_women:
            raise InvalidArgument(f"complete=True needs equal sides, got {n_men} men and {n_women} women")
        for side, ptr in (("men", self._m_ptr), ("women", self._w_ptr)):
            bad = np.flatnonzero(np.diff(ptr) != n_men)
            if bad.size:
                i = int(bad[0])
                raise InvalidArgument(
                    f"{side}[{i}] ranks {int(ptr[i + 1] - ptr[i])} people but complete=True needs all {n_men}: "
                    "the lists are ragged (use complete=False for incomplete lists)"
                )

    # -- constructors --------------------------------------------------------------------------

    @classmethod
    def from_lists(cls, men: Any, women: Any, *, complete: bool = False) -> PreferenceInstance:
        """Build from two lists of preference lists (the same as calling the class).

        Examples
        --------
        >>> PreferenceInstance.from_lists([[0]], [[0]], complete=True).is_complete
        True
        >>> PreferenceInstance.from_lists([], [], complete=True).n_men
        0
        """
        return cls(men, women, complete=complete)

    @classmethod
    def from_csr(cls, men_ptr: Any, men_ids: Any, women_ptr: Any, women_ids: Any, *, complete: bool = False
                 ) -> PreferenceInstance:
        """Build from both sides' lists in CSR form, without Python lists (for large instances).

        Man ``m``'s list is ``men_ids[men_ptr[m]:men_ptr[m + 1]]``, best first; likewise for the
        women.  Checked as the class checks lists (ids in range, nobody twice in one list), in
        time linear in the total length.

        Raises
        ------
        InvalidArgumentType
            An argument is not a 1-D integer array.
        InvalidArgument
            Offsets that do not start at 0, decrease or do not end at the ids' length; an id
            out of range; a person listed twice in one list.

        Examples
        --------
        >>> inst = PreferenceInstance.from_csr([0, 2, 3], [1, 0, 0], [0, 1, 3], [0, 1, 0])
        >>> inst.men_prefs, inst.women_prefs
        ([[1, 0], [0]], [[0], [1, 0]])
        >>> PreferenceInstance.from_csr([0], [], [0], []).n_men
        0
        """
        if not isinstance(complete, bool):
            raise InvalidArgumentType(f"complete must be a bool, got {describe(complete)}")
        m_ptr, m_flat = csr_arrays("men", men_ptr, men_ids)
        w_ptr, w_flat = csr_arrays("women", women_ptr, women_ids)
        n_men, n_women = m_ptr.shape[0] - 1, w_ptr.shape[0] - 1
        for side, ptr, flat, n_other, other in (("men", m_ptr, m_flat, n_women, "woman"),
                                                ("women", w_ptr, w_flat, n_men, "man")):
            owner = np.repeat(np.arange(ptr.shape[0] - 1, dtype=np.int64), np.diff(ptr))
            check_range(side, flat, owner, ptr, n_other, other)
            k = int(first_repeat(ptr, flat, n_other))
            if k >= 0:
                i = int(owner[k])
                first = int(np.flatnonzero(flat[ptr[i]:k] == flat[k])[0])
                raise InvalidArgument(
                    f"{side}[{i}] lists {other} {int(flat[k])} twice, at positions {first} and {k - int(ptr[i])}; "
                    "a preference list names each person at most once"
                )
        inst = cls._trusted(m_ptr, m_flat, w_ptr, w_flat)
        if complete:
            inst._check_complete()
        return inst

    @classmethod
    def _trusted(cls, m_ptr: np.ndarray, m_flat: np.ndarray, w_ptr: np.ndarray, w_flat: np.ndarray,
                 csr: dict[str, np.ndarray] | None = None) -> PreferenceInstance:
        """An instance from CSR arrays already checked (generators); ``csr`` the precomputed arrays if known."""
        inst = cls.__new__(cls)
        inst._n_men, inst._n_women = m_ptr.shape[0] - 1, w_ptr.shape[0] - 1
        inst._m_ptr, inst._m_flat, inst._w_ptr, inst._w_flat = m_ptr, m_flat, w_ptr, w_flat
        inst._men = inst._women = None
        inst._csr = csr
        return inst

    @classmethod
    def from_json(cls, source: str | os.PathLike | Any, *, complete: bool = False) -> PreferenceInstance:
        """Read DESIGN's JSON form ``{"men": [[woman ids, best first], ...], "women": [[man ids], ...]}``.

        Parameters
        ----------
        source : str, os.PathLike or typing.IO
            JSON text (a ``str`` whose first non-blank character is ``{`` or ``[``), a path, or a
            file.
        complete : bool
            As for the class.

        Returns
        -------
        PreferenceInstance

        Raises
        ------
        FileNotFoundError
            No such file.
        InvalidArgument
            Not valid JSON; not an object with exactly the keys ``"men"`` and ``"women"``; and
            everything the class raises.

        Examples
        --------
        >>> PreferenceInstance.from_json('{"men": [[0]], "women": [[0], []]}').n_women
        2
        >>> from gpusim.types.graphs import example_path
        >>> inst = PreferenceInstance.from_json(example_path("marriage"))
        >>> inst.n_men, inst.n_women
        (4, 4)
        >>> PreferenceInstance.from_json('{"men": [], "women": []}').n_men
        0
        """
        is_path = isinstance(source, os.PathLike) or (isinstance(source, str)
                                                      and not source.lstrip().startswith(("{", "[")))
        text = json_text(source)
        try:
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InvalidArgument(f"preference JSON is not valid JSON: {exc}") from exc
            if not isinstance(data, dict):
                raise InvalidArgument(
                    'preference JSON must be an object {"men": [...], "women": [...]}, '
                    f"got a {type(data).__name__}"
                )
            missing = [k for k in ("men", "women") if k not in data]
            unknown = sorted(set(data) - {"men", "women"})
            if missing or unknown:
                raise InvalidArgument(
                    'preference JSON must have exactly the keys "men" and "women"; '
                    f"missing {missing}, unknown {unknown}"
                )
            return cls(data["men"], data["women"], complete=complete)
        except InvalidArgument as exc:  # every complaint about a file names it
            if not is_path:
                raise
            raise type(exc)(f"{os.fspath(source)!r}: {exc}") from None

    def to_json(self, path: str | os.PathLike | None = None) -> str:
        """The instance as JSON text in DESIGN's form; also written to ``path`` when given.

        Examples
        --------
        >>> PreferenceInstance([[0], []], [[1, 0]]).to_json()
        '{"men": [[0], []], "women": [[1, 0]]}'
        >>> PreferenceInstance.from_json(PreferenceInstance([], []).to_json()) == PreferenceInstance([], [])
        True
        """
        text = json.dumps({"men": self.men_prefs, "women": self.women_prefs})
        if path is not None:
            Path(path).write_text(text + "\n")
        return text

    # -- read-only attributes ------------------------------------------------------------------

    n_men = property(lambda self: self._n_men, doc="Number of men.")
    n_women = property(lambda self: self._n_women, doc="Number of women.")

    @property
    def men_prefs(self) -> list[list[int]]:
        """Men's lists of women ids, best first, as given (built on first use for CSR-made instances)."""
        if self._men is None:
            self._men = as_lists(self._m_ptr, self._m_flat)
        return self._men

    @property
    def women_prefs(self) -> list[list[int]]:
        """Women's lists of men ids, best first, as given."""
        if self._women is None:
            self._women = as_lists(self._w_ptr, self._w_flat)
        return self._women

    def given_csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The lists as given (before the mutual purge), as CSR: ``(men_ptr, men_ids, women_ptr, women_ids)``.

        Examples
        --------
        >>> [a.tolist() for a in PreferenceInstance([[0, 1]], [[0], []]).given_csr()]
        [[0, 2], [0, 1], [0, 1, 1], [0]]
        """
        return self._m_ptr, self._m_flat, self._w_ptr, self._w_flat

    @property
    def is_complete(self) -> bool:
        """Whether this is an SM instance: equal sides and every list ranks everyone."""
        n = self._n_men
        return (n == self._n_women and bool((np.diff(self._m_ptr) == n).all())
                and bool((np.diff(self._w_ptr) == n).all()))

    # -- the ranking precomputation (Manne et al., CSC 2016 §2) ------------------------------------

    def _arrays(self) -> dict[str, np.ndarray]:
        if self._csr is None:
            self._csr = mutual_csr(self._n_men, self._n_women, self._m_ptr, self._m_flat,
                                    self._w_ptr, self._w_flat)
        return self._csr

    men_ptr = property(lambda self: self._arrays()["men_ptr"], doc="CSR offsets of the mutual men's lists.")
    men_list = property(lambda self: self._arrays()["men_list"], doc="Women ids of the mutual men's lists.")
    men_rank_by_woman = property(lambda self: self._arrays()["men_rank_by_woman"],
                                 doc="Rank that woman ``men_list[k]`` gives the list's owner.")
    women_ptr = property(lambda self: self._arrays()["women_ptr"],
                         doc="CSR offsets of the mutual women's lists.")
    women_list = property(lambda self: self._arrays()["women_list"],
                          doc="Men ids of the mutual women's lists.")
    women_rank_by_man = property(lambda self: self._arrays()["women_rank_by_man"],
                                 doc="Rank that man ``women_list[k]`` gives the list's owner.")

    def women_rank(self, w: int, m: int) -> int | None:
        """Rank woman ``w`` gives man ``m`` in her mutual list (0 = best), or ``None`` if not mutual.

        Examples
        --------
        >>> inst = PreferenceInstance([[0], [0]], [[1, 0]])
        >>> inst.women_rank(0, 0), inst.women_rank(0, 1)
        (1, 0)
        >>> PreferenceInstance([[]], [[0]]).women_rank(0, 0) is None
        True
        """
        return rank_in(self._arrays()["women_ptr"], self._arrays()["women_list"], w, m, "w", "m",
                        self._n_women, self._n_men)

    def men_rank(self, m: int, w: int) -> int | None:
        """Rank man ``m`` gives woman ``w`` in his mutual list (0 = best), or ``None`` if not mutual.

        Examples
        --------
        >>> PreferenceInstance([[1, 0]], [[0], [0]]).men_rank(0, 0)
        1
        >>> PreferenceInstance([[0]], [[]]).men_rank(0, 0) is None
        True
        """
        return rank_in(self._arrays()["men_ptr"], self._arrays()["men_list"], m, w, "m", "w",
                        self._n_men, self._n_women)

    def mutual(self) -> PreferenceInstance:
        """The instance with every non-mutual entry purged (a pair stays iff each ranks the other).

        Relative order is kept, so the stable matchings are unchanged (Manne et al., CSC 2016 §2).

        Examples
        --------
        >>> m = PreferenceInstance([[0, 1]], [[0], [0]]).mutual()
        >>> m.men_prefs, m.women_prefs
        ([[0, 1]], [[0], [0]])
        >>> PreferenceInstance([[0, 1]], [[0], []]).mutual().men_prefs
        [[0]]
        >>> PreferenceInstance([], [[]]).mutual().women_prefs
        [[]]
        """
        a = self._arrays()
        return PreferenceInstance._trusted(a["men_ptr"].astype(np.int64), a["men_list"].astype(np.int64),
                                           a["women_ptr"].astype(np.int64), a["women_list"].astype(np.int64))

    def acceptable_graph(self) -> Any:
        """The mutually acceptable pairs as a :class:`gpusim.types.graphs.BipartiteGraph` (rows men, columns women).

        Examples
        --------
        >>> PreferenceInstance([[0, 1]], [[0], [0]]).acceptable_graph().row_adj.tolist()
        [0, 1]
        >>> PreferenceInstance([], []).acceptable_graph().shape
        (0, 0)
        """
        from gpusim.types.graphs import BipartiteGraph

        a = self._arrays()
        owners = np.repeat(np.arange(self._n_men, dtype=np.int64), np.diff(a["men_ptr"]))
        women = a["men_list"].astype(np.int64)
        return BipartiteGraph.from_edges(owners, women, self._n_men, self._n_women)

    # -- value semantics -----------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PreferenceInstance):
            return NotImplemented
        return all(np.array_equal(a, b) for a, b in zip(self.given_csr(), other.given_csr(), strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PreferenceInstance(men={self.men_prefs!r}, women={self.women_prefs!r})"
