"""Stable marriage instances: preference lists, validated, with the ranking precomputation.

A :class:`PreferenceInstance` holds, for ``n_men`` men and ``n_women`` women, each person's
preference list: ids of the other side, 0-based, best first.  Lists may be incomplete (SMI);
a pair is acceptable only if each ranks the other (seed 003, Paper IV §2).  Ties are not
supported.  The JSON form is DESIGN's ``{"men": [[...], ...], "women": [[...], ...]}``.

Examples
--------
>>> from gpusim.preferences import PreferenceInstance
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

__all__ = ["PreferenceInstance"]

INT32_MAX = int(np.iinfo(np.int32).max)

# ----------------------------------------------------------------------------------------------
# Validation of one side's lists


def _describe(value: Any) -> str:
    return f"{value!r} ({type(value).__name__})"


def _first_bad_entry(side: str, i: int, lst: Any, other: str) -> None:
    """Raise for the first entry of ``lst`` that is not a plain integer id."""
    for j, x in enumerate(lst):
        if isinstance(x, (list, tuple, np.ndarray, set, frozenset)):
            raise InvalidArgument(
                f"ties are not supported: {side}[{i}][{j}]={x!r} is a collection inside a preference "
                "list (a tie); give a strict order, best first"
            )
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
            raise InvalidArgumentType(f"{side}[{i}][{j}]={_describe(x)} is not an integer {other} id")


def _list_as_array(side: str, i: int, lst: Any, other: str) -> np.ndarray:
    """One preference list as an int64 array; type errors name the list and position."""
    if isinstance(lst, np.ndarray):
        if lst.ndim != 1:
            raise InvalidArgument(
                f"ties are not supported: {side}[{i}] is an array of shape {lst.shape}; give a flat list"
            )
        if lst.size and lst.dtype.kind not in "iu":
            _first_bad_entry(side, i, lst.tolist(), other)
            raise InvalidArgumentType(f"{side}[{i}] has dtype {lst.dtype}; ids must be integers")
        return lst.astype(np.int64)
    if not isinstance(lst, (list, tuple)):
        raise InvalidArgumentType(
            f"{side}[{i}] must be a list of {other} ids (best first), got {_describe(lst)}"
        )
    if not all(type(x) is int for x in lst):
        _first_bad_entry(side, i, lst, other)
    try:
        return np.array(lst, dtype=np.int64)
    except OverflowError:
        j = next(j for j, x in enumerate(lst) if not -(2**63) <= x < 2**63)
        raise InvalidArgument(f"{side}[{i}][{j}]={lst[j]} is out of range") from None


def _check_outer(side: str, lists: Any) -> list | tuple:
    """One side's outer container: a list (or tuple, or 2-D integer array) with one list per person."""
    if isinstance(lists, np.ndarray) and lists.ndim == 2:
        lists = list(lists)
    if not isinstance(lists, (list, tuple)):
        raise InvalidArgumentType(
            f"{side} must be a list of preference lists, one per person, got {_describe(lists)}"
        )
    if len(lists) > INT32_MAX:
        raise InvalidArgument(f"len({side})={len(lists)} exceeds {INT32_MAX}: ids are int32")
    return lists


def _check_side(side: str, lists: list | tuple, n_other: int, other: str
                ) -> tuple[list[list[int]], np.ndarray, np.ndarray]:
    """Validate ``lists``; return them as plain lists, the CSR offsets and the flat ids (int64)."""
    arrays = [_list_as_array(side, i, lst, other) for i, lst in enumerate(lists)]
    lengths = np.array([a.shape[0] for a in arrays], np.int64)
    ptr = np.zeros(len(arrays) + 1, np.int64)
    np.cumsum(lengths, out=ptr[1:])
    flat = np.concatenate(arrays) if arrays else np.zeros(0, np.int64)
    owner = np.repeat(np.arange(len(arrays), dtype=np.int64), lengths)
    _check_range(side, flat, owner, ptr, n_other, other)
    _check_unique(side, flat, owner, ptr, n_other, other)
    return [a.tolist() for a in arrays], ptr, flat


def _check_range(side: str, flat: np.ndarray, owner: np.ndarray, ptr: np.ndarray, n_other: int, other: str
                 ) -> None:
    bad = np.flatnonzero((flat < 0) | (flat >= n_other))
    if bad.size:
        k = int(bad[0])
        i = int(owner[k])
        plural = {"woman": "women", "man": "men"}[other]
        valid = f"{other} ids run from 0 to {n_other - 1}" if n_other else f"there are no {plural}"
        raise InvalidArgument(f"{side}[{i}][{k - int(ptr[i])}]={int(flat[k])} is out of range: {valid}")


def _check_unique(side: str, flat: np.ndarray, owner: np.ndarray, ptr: np.ndarray, n_other: int, other: str
                  ) -> None:
    key = owner * max(n_other, 1) + flat
    skey = np.sort(key)  # np.sort is fast; positions are looked up only on error
    dup = np.flatnonzero(skey[1:] == skey[:-1])
    if dup.size:
        k1, k2 = (int(k) for k in np.flatnonzero(key == skey[dup[0]])[:2])
        i = int(owner[k1])
        raise InvalidArgument(
            f"{side}[{i}] lists {other} {int(flat[k1])} twice, at positions {k1 - int(ptr[i])} and "
            f"{k2 - int(ptr[i])}; a preference list names each person at most once"
        )


def _readonly_int32(arr: np.ndarray) -> np.ndarray:
    out = np.array(arr, dtype=np.int32)
    out.flags.writeable = False
    return out


# ----------------------------------------------------------------------------------------------
# The instance


class PreferenceInstance:
    """A stable marriage instance with (possibly incomplete) strict preference lists.

    Parameters
    ----------
    men : list of lists of int
        ``men[m]`` is man ``m``'s list of women ids, best first.  ``n_men = len(men)``.
    women : list of lists of int
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
    (``n_men`` for a woman, ``n_women`` for a man) serves as "no suitor" — seed 003 Paper IV's
    ``ranking(r, NULL) = n + 1`` in 0-based form.

    The rank arrays are the linear-space precomputation of seed 003, Paper IV §2 ("The Stable
    Marriage Problem"): for SMI a full ``ranking()`` table would take O(n^2) space, so "store the
    value of ranking(r_i, l_j) together with r_i in l_j's ranking list so that it can be fetched
    in O(1) time", purging every woman who has not ranked ``l_j`` from his list.  The paper does
    this with a position array in time proportional to the total list length; here it is done
    with sorted int64 pair keys (O(L log L) for total length L, vectorised).

    References
    ----------
    Seed 003 (Naim, *GPU algorithms for matching and clustering*, 2017), Paper IV §2, the
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

    __slots__ = ("_men", "_women", "_m_ptr", "_m_flat", "_w_ptr", "_w_flat", "_csr")

    def __init__(self, men: Any, women: Any, *, complete: bool = False):
        if not isinstance(complete, bool):
            raise InvalidArgumentType(f"complete must be a bool, got {_describe(complete)}")
        men, women = _check_outer("men", men), _check_outer("women", women)
        n_men, n_women = len(men), len(women)
        self._men, self._m_ptr, self._m_flat = _check_side("men", men, n_women, "woman")
        self._women, self._w_ptr, self._w_flat = _check_side("women", women, n_men, "man")
        if complete:
            self._check_complete()
        self._csr: dict[str, np.ndarray] | None = None

    def _check_complete(self) -> None:
        n_men, n_women = len(self._men), len(self._women)
        if n_men != n_women:
            raise InvalidArgument(f"complete=True needs equal sides, got {n_men} men and {n_women} women")
        for side, lists in (("men", self._men), ("women", self._women)):
            for i, lst in enumerate(lists):
                if len(lst) != n_men:
                    raise InvalidArgument(
                        f"{side}[{i}] ranks {len(lst)} people but complete=True needs all {n_men}: "
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
    def from_json(cls, source: str | os.PathLike | Any, *, complete: bool = False) -> PreferenceInstance:
        """Read DESIGN's JSON form ``{"men": [[woman ids, best first], ...], "women": [[man ids], ...]}``.

        Parameters
        ----------
        source : str, os.PathLike or open file
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
        >>> from gpusim.graphs import example_path
        >>> inst = PreferenceInstance.from_json(example_path("marriage"))
        >>> inst.n_men, inst.n_women
        (4, 4)
        >>> PreferenceInstance.from_json('{"men": [], "women": []}').n_men
        0
        """
        text = _json_text(source)
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

    def to_json(self, path: str | os.PathLike | None = None) -> str:
        """The instance as JSON text in DESIGN's form; also written to ``path`` when given.

        Examples
        --------
        >>> PreferenceInstance([[0], []], [[1, 0]]).to_json()
        '{"men": [[0], []], "women": [[1, 0]]}'
        >>> PreferenceInstance.from_json(PreferenceInstance([], []).to_json()) == PreferenceInstance([], [])
        True
        """
        text = json.dumps({"men": self._men, "women": self._women})
        if path is not None:
            Path(path).write_text(text + "\n")
        return text

    # -- read-only attributes ------------------------------------------------------------------

    n_men = property(lambda self: len(self._men), doc="Number of men.")
    n_women = property(lambda self: len(self._women), doc="Number of women.")
    men_prefs = property(lambda self: self._men, doc="Men's lists of women ids, best first, as given.")
    women_prefs = property(lambda self: self._women, doc="Women's lists of men ids, best first, as given.")

    @property
    def is_complete(self) -> bool:
        """Whether this is an SM instance: equal sides and every list ranks everyone."""
        n = len(self._men)
        return n == len(self._women) and all(len(x) == n for x in self._men + self._women)

    # -- the ranking precomputation (seed 003, Paper IV §2) ------------------------------------

    def _arrays(self) -> dict[str, np.ndarray]:
        if self._csr is None:
            self._csr = _mutual_csr(len(self._men), len(self._women), self._m_ptr, self._m_flat,
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
        return _rank_in(self._arrays()["women_ptr"], self._arrays()["women_list"], w, m, "w", "m",
                        len(self._women), len(self._men))

    def men_rank(self, m: int, w: int) -> int | None:
        """Rank man ``m`` gives woman ``w`` in his mutual list (0 = best), or ``None`` if not mutual.

        Examples
        --------
        >>> PreferenceInstance([[1, 0]], [[0], [0]]).men_rank(0, 0)
        1
        >>> PreferenceInstance([[0]], [[]]).men_rank(0, 0) is None
        True
        """
        return _rank_in(self._arrays()["men_ptr"], self._arrays()["men_list"], m, w, "m", "w",
                        len(self._men), len(self._women))

    def mutual(self) -> PreferenceInstance:
        """The instance with every non-mutual entry purged (a pair stays iff each ranks the other).

        Relative order is kept, so the stable matchings are unchanged (seed 003, Paper IV §2).

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
        men = np.split(a["men_list"].astype(np.int64), a["men_ptr"][1:-1]) if len(self._men) else []
        women = np.split(a["women_list"].astype(np.int64), a["women_ptr"][1:-1]) if len(self._women) else []
        return PreferenceInstance([x.tolist() for x in men], [x.tolist() for x in women])

    def acceptable_graph(self) -> Any:
        """The mutually acceptable pairs as a :class:`gpusim.graphs.BipartiteGraph` (rows men, columns women).

        Examples
        --------
        >>> PreferenceInstance([[0, 1]], [[0], [0]]).acceptable_graph().row_adj.tolist()
        [0, 1]
        >>> PreferenceInstance([], []).acceptable_graph().shape
        (0, 0)
        """
        from gpusim.graphs import BipartiteGraph

        a = self._arrays()
        owners = np.repeat(np.arange(len(self._men), dtype=np.int64), np.diff(a["men_ptr"]))
        women = a["men_list"].astype(np.int64)
        return BipartiteGraph.from_edges(owners, women, len(self._men), len(self._women))

    # -- value semantics -----------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PreferenceInstance):
            return NotImplemented
        return self._men == other._men and self._women == other._women

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PreferenceInstance(men={self._men!r}, women={self._women!r})"


def _json_text(source: Any) -> str:
    if hasattr(source, "read"):
        return source.read()
    if isinstance(source, str) and source.lstrip().startswith(("{", "[")):
        return source
    if isinstance(source, (str, os.PathLike)):
        return Path(source).read_text()
    raise InvalidArgumentType(
        f"source must be JSON text, a path or an open file, got {type(source).__name__}"
    )


def _rank_in(ptr: np.ndarray, flat: np.ndarray, owner: int, target: int, owner_name: str, target_name: str,
             n_owner: int, n_target: int) -> int | None:
    for name, value, n in ((owner_name, owner, n_owner), (target_name, target, n_target)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise InvalidArgumentType(f"{name} must be an integer id, got {_describe(value)}")
        if not 0 <= value < n:
            raise InvalidArgument(f"{name}={value} is out of range 0..{n - 1}")
    hits = np.flatnonzero(flat[ptr[owner]:ptr[owner + 1]] == target)
    return int(hits[0]) if hits.size else None


def _mutual_csr(n_men: int, n_women: int, m_ptr: np.ndarray, m_flat: np.ndarray, w_ptr: np.ndarray,
                w_flat: np.ndarray) -> dict[str, np.ndarray]:
    """Purge non-mutual entries and pair every entry with the other person's rank of the owner.

    Every entry is keyed by its (man, woman) pair, ``man * n_women + woman``, on both sides.
    Sorting both key sets once and merging them (binary search of sorted queries) tells which
    entries are mutual and, for each, where its partner entry is on the other side; the rank the
    woman gives a man is then her entry's position in her purged list.
    """
    m_owner = np.repeat(np.arange(n_men, dtype=np.int64), np.diff(m_ptr))
    w_owner = np.repeat(np.arange(n_women, dtype=np.int64), np.diff(w_ptr))
    m_partner, w_partner = _partners(m_owner * n_women + m_flat, w_flat * n_women + w_owner)
    m_keep, w_keep = m_partner >= 0, w_partner >= 0
    men = _purged(m_owner, m_flat, m_keep, n_men)
    women = _purged(w_owner, w_flat, w_keep, n_women)
    return {
        "men_ptr": _readonly_int32(men[0]), "men_list": _readonly_int32(men[1]),
        "men_rank_by_woman": _readonly_int32(women[2][m_partner[m_keep]]),
        "women_ptr": _readonly_int32(women[0]), "women_list": _readonly_int32(women[1]),
        "women_rank_by_man": _readonly_int32(men[2][w_partner[w_keep]]),
    }


def _partners(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each key of ``a`` the index of the same key in ``b``, and vice versa; -1 where absent.

    Keys are distinct within each side.  Both sides are sorted once: ``searchsorted`` with
    sorted queries streams through memory, with unsorted ones it is many times slower (and
    ``np.isin`` slower still).
    """
    a_partner, b_partner = np.full(a.shape[0], -1, np.int64), np.full(b.shape[0], -1, np.int64)
    if a.size == 0 or b.size == 0:
        return a_partner, b_partner
    a_order, b_order = np.argsort(a), np.argsort(b)
    a_sorted, b_sorted = a[a_order], b[b_order]
    idx = np.minimum(np.searchsorted(b_sorted, a_sorted), b.shape[0] - 1)
    hit = b_sorted[idx] == a_sorted
    a_partner[a_order[hit]] = b_order[idx[hit]]
    b_partner[b_order[idx[hit]]] = a_order[hit]
    return a_partner, b_partner


def _purged(owner: np.ndarray, ids: np.ndarray, keep: np.ndarray, n: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR offsets and ids of the kept entries, and every entry's position in its purged list.

    The positions are indexed like the unpurged entries (-1 where dropped), so that a partner
    index from :func:`_partners` reads its rank directly.
    """
    kept_owner = owner[keep]
    ptr = np.zeros(n + 1, np.int64)
    if n:
        np.cumsum(np.bincount(kept_owner, minlength=n), out=ptr[1:])
    pos = np.full(owner.shape[0], -1, np.int64)
    pos[keep] = np.arange(kept_owner.shape[0], dtype=np.int64) - ptr[kept_owner]
    return ptr, ids[keep], pos
