"""Preference lists checked and laid out: one side's lists as CSR, ranks, the compiled precomputations.

What :class:`~gpusim.types.preferences.PreferenceInstance` is built from (Manne et al., CSC 2016 §2):
each check names the side, the person and the entry at fault.

>>> import numpy as np
>>> as_lists(np.array([0, 2, 3]), np.array([1, 0, 0]))
[[1, 0], [0]]
"""

from __future__ import annotations

import os
import reprlib
from pathlib import Path
from typing import Any

import numba
import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.types.arguments import INT32_MAX

__all__ = [
    "as_lists", "check_outer", "check_range", "check_side", "csr_arrays",
    "describe", "first_repeat", "json_text", "mutual_csr", "rank_in",
]


def describe(value: Any) -> str:
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
            raise InvalidArgumentType(f"{side}[{i}][{j}]={describe(x)} is not an integer {other} id")


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
            f"{side}[{i}] must be a list of {other} ids (best first), got {describe(lst)}"
        )
    if not all(type(x) is int for x in lst):
        _first_bad_entry(side, i, lst, other)
    try:
        return np.array(lst, dtype=np.int64)
    except OverflowError:
        j = next(j for j, x in enumerate(lst) if not -(2**63) <= x < 2**63)
        raise InvalidArgument(f"{side}[{i}][{j}]={lst[j]} is out of range") from None


def check_outer(side: str, lists: Any) -> list | tuple:
    """One side's outer container: a list (or tuple, or 2-D integer array) with one list per person."""
    if isinstance(lists, np.ndarray) and lists.ndim == 2:
        lists = list(lists)
    if not isinstance(lists, (list, tuple)):
        raise InvalidArgumentType(
            f"{side} must be a list of preference lists, one per person, got {describe(lists)}"
        )
    if len(lists) > INT32_MAX:
        raise InvalidArgument(f"len({side})={len(lists)} exceeds {INT32_MAX}: ids are int32")
    return lists


def check_side(side: str, lists: list | tuple, n_other: int, other: str
                ) -> tuple[list[list[int]], np.ndarray, np.ndarray]:
    """Validate ``lists``; return them as plain lists, the CSR offsets and the flat ids (int64)."""
    arrays = [_list_as_array(side, i, lst, other) for i, lst in enumerate(lists)]
    lengths = np.array([a.shape[0] for a in arrays], np.int64)
    ptr = np.zeros(len(arrays) + 1, np.int64)
    np.cumsum(lengths, out=ptr[1:])
    flat = np.concatenate(arrays) if arrays else np.zeros(0, np.int64)
    owner = np.repeat(np.arange(len(arrays), dtype=np.int64), lengths)
    check_range(side, flat, owner, ptr, n_other, other)
    _check_unique(side, flat, owner, ptr, n_other, other)
    return [a.tolist() for a in arrays], ptr, flat


def check_range(side: str, flat: np.ndarray, owner: np.ndarray, ptr: np.ndarray, n_other: int, other: str
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


def json_text(source: Any) -> str:
    if hasattr(source, "read"):
        return source.read()
    if isinstance(source, str) and source.lstrip().startswith(("{", "[")):
        return source
    if isinstance(source, (str, os.PathLike)):
        return Path(source).read_text()
    raise InvalidArgumentType(
        f"source must be JSON text, a path or an open file, got {type(source).__name__}"
    )


def rank_in(ptr: np.ndarray, flat: np.ndarray, owner: int, target: int, owner_name: str, target_name: str,
             n_owner: int, n_target: int) -> int | None:
    for name, value, n in ((owner_name, owner, n_owner), (target_name, target, n_target)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise InvalidArgumentType(f"{name} must be an integer id, got {describe(value)}")
        if not 0 <= value < n:
            raise InvalidArgument(f"{name}={value} is out of range 0..{n - 1}")
    hits = np.flatnonzero(flat[ptr[owner]:ptr[owner + 1]] == target)
    return int(hits[0]) if hits.size else None


def as_lists(ptr: np.ndarray, flat: np.ndarray) -> list[list[int]]:
    if ptr.shape[0] <= 1:
        return []
    return [x.tolist() for x in np.split(np.asarray(flat, np.int64), ptr[1:-1])]


def csr_arrays(side: str, ptr: Any, ids: Any) -> tuple[np.ndarray, np.ndarray]:
    """Check one side's CSR offsets and ids; return them as int64 arrays."""
    out = []
    for name, value in ((f"{side}_ptr", ptr), (f"{side}_ids", ids)):
        arr = np.asarray(value)
        if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
            raise InvalidArgumentType(f"{name} must be a 1-D integer array, got {arr.dtype} of shape {arr.shape}")
        out.append(arr.astype(np.int64))
    ptr64, ids64 = out
    if ptr64.size == 0 or ptr64[0] != 0 or ptr64[-1] != ids64.size or (np.diff(ptr64) < 0).any():
        raise InvalidArgument(f"{side}_ptr must run from 0 up to len({side}_ids)={ids64.size} without decreasing, "
                              f"got {reprlib.repr(ptr64.tolist())}")
    if ptr64.size - 1 > INT32_MAX:
        raise InvalidArgument(f"{ptr64.size - 1} {side} exceed {INT32_MAX}: ids are int32")
    return ptr64, ids64


#: Below this many list entries the precomputations run in NumPy, so that a small instance loads no compiled
#: function: numba's first cached function in a process costs 0.2–0.4 s (its typing registries), more than the
#: whole NumPy path takes at this size.  Above it, the compiled linear-time passes.
COMPILED_FROM = 1 << 16


def _owners(ptr: np.ndarray) -> np.ndarray:
    """The list each entry belongs to."""
    return np.repeat(np.arange(ptr.shape[0] - 1, dtype=np.int64), np.diff(ptr))


def first_repeat(ptr: np.ndarray, flat: np.ndarray, n_other: int) -> int:
    """Index of the first entry that repeats an earlier entry of the same list, or -1.

    >>> first_repeat(np.array([0, 2, 5]), np.array([1, 0, 2, 1, 2]), 3)
    4
    """
    if flat.shape[0] >= COMPILED_FROM:
        return int(_first_repeat_compiled(ptr, flat, n_other))
    key = _owners(ptr) * max(n_other, 1) + flat
    repeats = np.ones(key.shape[0], bool)
    repeats[np.unique(key, return_index=True)[1]] = False
    found = np.flatnonzero(repeats)
    return int(found[0]) if found.size else -1


@numba.njit(cache=True)
def _first_repeat_compiled(ptr, flat, n_other):  # pragma: no cover - compiled
    """``first_repeat`` in linear time."""
    seen = np.full(max(n_other, 1), -1, np.int64)
    for i in range(ptr.shape[0] - 1):
        for k in range(ptr[i], ptr[i + 1]):
            if seen[flat[k]] == i:
                return k
            seen[flat[k]] = i
    return -1


def _pair_by_sorting(n_women, m_ptr, m_flat, w_ptr, w_flat):
    """``_linear_precomputation``'s answer by sorting the women's entries by (man, woman): O(L log L)."""
    m_key = _owners(m_ptr) * max(n_women, 1) + m_flat
    w_key = w_flat.astype(np.int64) * max(n_women, 1) + _owners(w_ptr)
    m_partner = np.full(m_key.shape[0], -1, np.int64)
    w_partner = np.full(w_key.shape[0], -1, np.int64)
    if w_key.size and m_key.size:
        order = np.argsort(w_key)
        at = np.minimum(np.searchsorted(w_key[order], m_key), w_key.shape[0] - 1)
        mutual = np.flatnonzero(w_key[order[at]] == m_key)
        m_partner[mutual] = order[at[mutual]]
        w_partner[order[at[mutual]]] = mutual
    return m_partner, w_partner


def _purge_vectorised(ptr, flat, partner):
    """``_purge`` in NumPy."""
    kept = partner >= 0
    kept_before = np.concatenate(([0], np.cumsum(kept)))
    new_ptr = kept_before[ptr]
    position = np.where(kept, kept_before[:-1] - new_ptr[_owners(ptr)], -1)
    return new_ptr, flat[kept].astype(np.int32), position


@numba.njit(cache=True)
def _linear_precomputation(n_men, n_women, m_ptr, m_flat, w_ptr, w_flat):  # pragma: no cover - compiled
    """Manne et al. (CSC 2016) §2: pair every mutual entry with its partner entry, in O(L + n).

    First the women's lists are turned around: for each man, the women who rank him and where
    (a counting sort).  Then, for each man ``m``: ``position[w] = (m, k)`` for every woman ``w``
    whose entry ``k`` ranks ``m``; a traversal of ``m``'s list finds, for each of his women, the
    entry with which she ranks him, or learns that she does not (the entry is purged).
    Returns, per entry, the index of its partner entry on the other side (-1: not mutual).
    """
    n_w_entries = w_flat.shape[0]
    count = np.zeros(n_men + 1, np.int64)
    for k in range(n_w_entries):
        count[w_flat[k] + 1] += 1
    for m in range(n_men):
        count[m + 1] += count[m]
    fill = count[:-1].copy()
    ranked_by = np.empty(n_w_entries, np.int64)  # entries of women's lists, grouped by the man they rank
    for w in range(n_women):
        for k in range(w_ptr[w], w_ptr[w + 1]):
            m = w_flat[k]
            ranked_by[fill[m]] = k
            fill[m] += 1
    position_man = np.full(max(n_women, 1), -1, np.int64)
    position_entry = np.empty(max(n_women, 1), np.int64)
    w_owner = np.empty(n_w_entries, np.int64)
    for w in range(n_women):
        for k in range(w_ptr[w], w_ptr[w + 1]):
            w_owner[k] = w
    m_partner = np.full(m_flat.shape[0], -1, np.int64)
    w_partner = np.full(n_w_entries, -1, np.int64)
    for m in range(n_men):
        for t in range(count[m], count[m + 1]):
            k = ranked_by[t]
            position_man[w_owner[k]] = m
            position_entry[w_owner[k]] = k
        for j in range(m_ptr[m], m_ptr[m + 1]):
            w = m_flat[j]
            if position_man[w] == m:
                m_partner[j] = position_entry[w]
                w_partner[position_entry[w]] = j
    return m_partner, w_partner


@numba.njit(cache=True)
def _purge(ptr, flat, partner):  # pragma: no cover - compiled
    """CSR of the kept (mutual) entries, and each entry's position in its purged list (-1 if dropped)."""
    n = ptr.shape[0] - 1
    new_ptr = np.zeros(n + 1, np.int64)
    position = np.full(flat.shape[0], -1, np.int64)
    kept = 0
    for i in range(n):
        for k in range(ptr[i], ptr[i + 1]):
            if partner[k] >= 0:
                position[k] = kept - new_ptr[i]
                kept += 1
        new_ptr[i + 1] = kept
    new_flat = np.empty(kept, np.int32)
    kept = 0
    for k in range(flat.shape[0]):
        if partner[k] >= 0:
            new_flat[kept] = flat[k]
            kept += 1
    return new_ptr, new_flat, position


def mutual_csr(n_men: int, n_women: int, m_ptr: np.ndarray, m_flat: np.ndarray, w_ptr: np.ndarray,
                w_flat: np.ndarray) -> dict[str, np.ndarray]:
    """Purge non-mutual entries and pair every entry with the other person's rank of the owner.

    The linear-time precomputation of Manne et al. (CSC 2016) §2 (see ``_linear_precomputation``);
    the rank a woman gives a man is her entry's position in her purged list.
    """
    if m_flat.shape[0] + w_flat.shape[0] < COMPILED_FROM:
        m_partner, w_partner = _pair_by_sorting(n_women, m_ptr, m_flat, w_ptr, w_flat)
        men, women = _purge_vectorised(m_ptr, m_flat, m_partner), _purge_vectorised(w_ptr, w_flat, w_partner)
    else:
        m_partner, w_partner = _linear_precomputation(n_men, n_women, m_ptr, m_flat, w_ptr, w_flat)
        men, women = _purge(m_ptr, m_flat, m_partner), _purge(w_ptr, w_flat, w_partner)
    if men[1].shape[0] > INT32_MAX:
        raise InvalidArgument(f"{men[1].shape[0]} mutually acceptable pairs exceed {INT32_MAX}: "
                              "kernels index the lists with int32")
    return {
        "men_ptr": _readonly_int32(men[0]), "men_list": _readonly(men[1]),
        "men_rank_by_woman": _readonly(women[2][m_partner[m_partner >= 0]].astype(np.int32)),
        "women_ptr": _readonly_int32(women[0]), "women_list": _readonly(women[1]),
        "women_rank_by_man": _readonly(men[2][w_partner[w_partner >= 0]].astype(np.int32)),
    }


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr.flags.writeable = False
    return arr
