"""Checks of device-resident preference lists, by kernels: no list is copied to the host.

A :class:`~gpusim.types.device_preferences.DevicePreferenceInstance` holds what the stable marriage
kernels of Manne et al. (CSC 2016) §4 read: the mutual men's lists as CSR and, beside each entry, the rank the
woman gives the man (Manne et al., CSC 2016 §2).  :func:`preference_problem` checks, in this order,

1. ``men_ptr`` runs from 0 to ``len(men_list)`` without decreasing;
2. every woman id is in ``[0, n_women)`` (counting, for each woman, the men who list her);
3. no man lists a woman twice (each man's thread hashes his list into his own segment of a scratch array
   as long as ``men_list``: direct addressing, one probe each, for complete lists);
4. the ranks woman ``w`` is given are ``0 .. c(w) - 1``, each once, where ``c(w)`` is how many men list
   her (her offsets ``women_ptr`` are the counts' prefix sum, computed on the device; the smallest entry
   holding each place ``women_ptr[w] + rank`` is found by ``atomic_min``, and any other entry in that
   place repeats a rank) — so her list, the men in rank order, is well defined and strict.

As :mod:`gpusim.runtime.device_checks` does, each kernel records the *smallest* offending position with
``atomic_min``; the host reads back a few integers and then the offending values alone, for a one-line
message.  Every kernel runs on the simulator.

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> dev = Device("sim", seed=0)
>>> a = lambda *x: dev.array(np.array(x, np.int32))
>>> preference_problem(dev, 2, 2, a(0, 2, 3), a(0, 1, 0), a(1, 0, 0)) is None
True
>>> preference_problem(dev, 2, 2, a(0, 2, 3), a(0, 0, 1), a(1, 0, 0))
'men_list[1]=0 repeats men_list[0]: man 0 lists woman 0 twice (a preference list names each woman at most once)'
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.language import interface as T
from gpusim.language.kernels import kernel
from gpusim.runtime.device import Device
from gpusim.runtime.device_checks import NONE, list_holding, offsets_problem, smallest_offenders, value_at
from gpusim.runtime.device_scan import exclusive_scan_in_one_block

__all__ = ["first_equal", "preference_problem", "rank_places", "rank_repeats", "repeated_women", "women_counted"]


@kernel(signature="int32[:], int32, int32, int32[:], int32[:]")
def women_counted(men_list, n_pairs, n_women, count, bad):
    """A thread per entry: ``bad[0]`` the smallest position of a woman id outside ``[0, n_women)``; every
    other entry adds one to ``count[w]``, the men who list woman ``w``."""
    k = T.gtid()
    while k < n_pairs:
        w = men_list[k]
        if w < 0 or w >= n_women:
            T.atomic_min(bad, 0, k)
        else:
            T.atomic_add(count, w, 1)
        k += T.num_threads()


@kernel(signature="int32[:], int32[:], int32, int32[:], int32[:]")
def repeated_women(men_ptr, men_list, n_men, table, bad):
    """A thread per man, his women ids in range: ``bad[0]`` the smallest position ``k`` whose woman
    already appears earlier in the same list.

    The man's thread owns ``table[men_ptr[m]:men_ptr[m + 1]]`` (all -1 at first) and inserts the
    positions of his list in order, by linear probing from ``woman % length``: a woman found already
    there is a repeat, and the first one met is his list's first repeat.  A complete list is a
    permutation, so every probe lands at once; the table never fills before the last insertion.
    """
    m = T.gtid()
    while m < n_men:
        lo = men_ptr[m]
        size = men_ptr[m + 1] - lo
        for k in range(lo, lo + size):
            w = men_list[k]
            h = w % size
            found = 0
            while found == 0 and table[lo + h] != -1:
                if men_list[table[lo + h]] == w:
                    found = 1
                else:
                    h += 1
                    if h == size:
                        h = 0
            if found == 1:
                T.atomic_min(bad, 0, k)
                break
            table[lo + h] = k
        m += T.num_threads()


@kernel(signature="int32[:], int32, int32, int32, int32[:]")
def first_equal(array, lo, n, value, bad):
    """``bad[0]``: the smallest ``i`` in ``[lo, lo + n)`` with ``array[i] == value``."""
    i = T.gtid()
    while i < n:
        if array[lo + i] == value:
            T.atomic_min(bad, 0, lo + i)
        i += T.num_threads()


@kernel(signature="int32[:], int32[:], int32, int32[:], int32[:], int32[:]")
def rank_places(men_list, men_rank, n_pairs, women_ptr, first, bad):
    """A thread per entry ``k`` (woman ``w``, rank ``r``): ``bad[0]`` the smallest ``k`` whose rank is
    outside ``[0, c(w))``, ``c(w) = women_ptr[w + 1] - women_ptr[w]``; every other entry takes the place
    ``women_ptr[w] + r`` of ``first`` by ``atomic_min`` (the smallest entry claiming it keeps it)."""
    k = T.gtid()
    while k < n_pairs:
        w = men_list[k]
        r = men_rank[k]
        if r < 0 or r >= women_ptr[w + 1] - women_ptr[w]:
            T.atomic_min(bad, 0, k)
        else:
            T.atomic_min(first, women_ptr[w] + r, k)
        k += T.num_threads()


@kernel(signature="int32[:], int32[:], int32, int32[:], int32[:], int32[:]")
def rank_repeats(men_list, men_rank, n_pairs, women_ptr, first, bad):
    """For ranks in range: ``bad[0]`` the smallest entry ``k`` that does not hold its place (an earlier entry
    gives its woman the same rank)."""
    k = T.gtid()
    while k < n_pairs:
        w = men_list[k]
        if first[women_ptr[w] + men_rank[k]] != k:
            T.atomic_min(bad, 0, k)
        k += T.num_threads()


def preference_problem(dev: Device, n_men: int, n_women: int, men_ptr: Any, men_list: Any, men_rank: Any
                       ) -> str | None:
    """What is wrong with device preference lists (mutual men's lists and the women's ranks), or None."""
    n_pairs = int(men_list.shape[0])
    if int(men_rank.shape[0]) != n_pairs:
        return f"men_rank_by_woman must have one entry per men_list entry ({n_pairs}), got {int(men_rank.shape[0])}"
    problem = offsets_problem(dev, men_ptr, n_men, n_pairs, "men_ptr", "men_list")
    if problem is not None:
        return problem
    if n_pairs == 0:
        return None
    count = dev.zeros(max(n_women, 1), np.int32)
    k = smallest_offenders(dev, women_counted, n_pairs, 1, men_list, n_pairs, n_women, count)[0]
    if k != NONE:
        return (f"men_list[{k}]={value_at(dev, men_list, k)} (man {list_holding(dev, men_ptr, n_men, k)}'s list) "
                f"is not a woman id in [0, {n_women})")
    table = dev.full(n_pairs, -1, np.int32)
    k = smallest_offenders(dev, repeated_women, n_men, 1, men_ptr, men_list, n_men, table)[0]
    del table
    if k != NONE:
        m, w = list_holding(dev, men_ptr, n_men, k), value_at(dev, men_list, k)
        lo = value_at(dev, men_ptr, m)
        j = smallest_offenders(dev, first_equal, k - lo, 1, men_list, lo, k - lo, w)[0]
        return (f"men_list[{k}]={w} repeats men_list[{j}]: man {m} lists woman {w} twice "
                "(a preference list names each woman at most once)")
    women_ptr, _ = exclusive_scan_in_one_block(dev, count, n_women)
    first = dev.full(n_pairs, NONE, np.int32)
    k = smallest_offenders(dev, rank_places, n_pairs, 1, men_list, men_rank, n_pairs, women_ptr, first)[0]
    if k != NONE:
        w = value_at(dev, men_list, k)
        c = value_at(dev, count, w)
        return (f"men_rank_by_woman[{k}]={value_at(dev, men_rank, k)} is not in [0, {c}): woman {w} is listed by "
                f"{c} men (man {list_holding(dev, men_ptr, n_men, k)}'s entry)")
    k = smallest_offenders(dev, rank_repeats, n_pairs, 1, men_list, men_rank, n_pairs, women_ptr, first)[0]
    if k != NONE:
        w, r = value_at(dev, men_list, k), value_at(dev, men_rank, k)
        j = value_at(dev, first, value_at(dev, women_ptr, w) + r)
        return (f"men_rank_by_woman[{k}]={r} repeats men_rank_by_woman[{j}]: woman {w} would rank both man "
                f"{list_holding(dev, men_ptr, n_men, j)} and man {list_holding(dev, men_ptr, n_men, k)} at {r} "
                "(ranks must be distinct)")
    return None
