"""Random stable marriage instances of Manne et al. (CSC 2016) §4: *easy* and *hard*.

*Easy*: each man draws ε ∈ [0, 1] and ranks ``(1 + ε) ln n`` women picked at random; each woman
ranks exactly the men who rank her, in random order.  *Hard*: every man has the same complete
random ranking of the women, and every woman the same complete random ranking of the men, so
the men compete for the same women and n(n + 1)/2 women are considered.

Both build CSR arrays directly (no Python lists), so instances with 10^7 people are quick.  The
hard instance's mutual lists and ranks are written down directly (every pair is mutual and a
woman's rank of a man is the same in every list); its size is bounded by int32 offsets:
n(n) <= 2^31 - 1, so n <= 46340.

Example
-------
>>> inst = easy_instance(100, seed=1)
>>> inst.n_men, inst.n_women, bool(inst.men_ptr[-1] >= 100 * 4)
(100, 100, True)
>>> hard_instance(3, seed=0).is_complete
True
"""

from __future__ import annotations

import math

import numba
import numpy as np

from gpusim.errors import InvalidArgument
from gpusim.types.arguments import check_int, check_seed
from gpusim.types.preferences import PreferenceInstance

__all__ = ["easy_instance", "hard_instance"]

#: The largest hard instance whose n * n list entries fit int32 offsets.
HARD_MAX_N = 46340


@numba.njit(cache=True)
def _easy_men(n, lengths, seed):  # pragma: no cover - compiled
    """Each man's ``lengths[m]`` distinct random women (rejection against a marker array)."""
    np.random.seed(seed)
    ptr = np.zeros(n + 1, np.int64)
    for m in range(n):
        ptr[m + 1] = ptr[m] + lengths[m]
    ids = np.empty(ptr[n], np.int32)
    mark = np.full(max(n, 1), -1, np.int64)
    for m in range(n):
        k = ptr[m]
        while k < ptr[m + 1]:
            w = np.random.randint(0, n)
            if mark[w] != m:
                mark[w] = m
                ids[k] = w
                k += 1
    return ptr, ids


@numba.njit(cache=True)
def _transpose_shuffled(n, m_ptr, m_ids, seed):  # pragma: no cover - compiled
    """Each woman's list: the men who rank her, in a random order (Fisher-Yates per list).

    Every pair is mutual, so the ranks are known as the lists are made: ``men_rank[j]`` is the
    position in the woman's list of man entry ``j``, ``women_rank[k]`` that of woman entry ``k``
    in the man's list (the precomputation of Manne et al. (CSC 2016) §2, for free).
    """
    np.random.seed(seed)
    w_ptr = np.zeros(n + 1, np.int64)
    for k in range(m_ids.shape[0]):
        w_ptr[m_ids[k] + 1] += 1
    for w in range(n):
        w_ptr[w + 1] += w_ptr[w]
    fill = w_ptr[:-1].copy()
    w_ids = np.empty(m_ids.shape[0], np.int32)
    source = np.empty(m_ids.shape[0], np.int64)  # source[k]: the man entry woman entry k came from
    for m in range(n):
        for k in range(m_ptr[m], m_ptr[m + 1]):
            w = m_ids[k]
            w_ids[fill[w]] = m
            source[fill[w]] = k
            fill[w] += 1
    men_rank = np.empty(m_ids.shape[0], np.int32)
    women_rank = np.empty(m_ids.shape[0], np.int32)
    for w in range(n):
        for k in range(w_ptr[w + 1] - 1, w_ptr[w], -1):
            r = np.random.randint(w_ptr[w], k + 1)
            w_ids[k], w_ids[r] = w_ids[r], w_ids[k]
            source[k], source[r] = source[r], source[k]
        for k in range(w_ptr[w], w_ptr[w + 1]):
            men_rank[source[k]] = k - w_ptr[w]
            women_rank[k] = source[k] - m_ptr[w_ids[k]]
    return w_ptr, w_ids, men_rank, women_rank


def easy_instance(n: int, seed: int = 0) -> PreferenceInstance:
    """An *easy* SMI instance of Manne et al. (CSC 2016) §4 with ``n`` men and ``n`` women.

    Man ``m`` ranks ``min(n, round((1 + ε_m) ln n))`` distinct random women (ε_m uniform on
    [0, 1]); each woman ranks the men who rank her, in a random order.  Deterministic in ``seed``.

    Examples
    --------
    >>> inst = easy_instance(50, seed=3)
    >>> inst.mutual() == inst
    True
    >>> easy_instance(0).n_men
    0
    """
    n, seed = check_int("n", n), check_seed(seed)
    rng = np.random.default_rng(seed)
    log_n = math.log(n) if n > 1 else 0.0
    lengths = np.minimum(np.rint((1.0 + rng.random(n)) * log_n), n).astype(np.int64)
    m_ptr, m_ids = _easy_men(n, lengths, seed)
    w_ptr, w_ids, men_rank, women_rank = _transpose_shuffled(n, m_ptr, m_ids, seed + 1)
    if m_ids.shape[0] > np.iinfo(np.int32).max:
        raise InvalidArgument(f"n={n}: {m_ids.shape[0]} list entries exceed int32 offsets")
    csr = {"men_ptr": m_ptr.astype(np.int32), "men_list": m_ids, "men_rank_by_woman": men_rank,
           "women_ptr": w_ptr.astype(np.int32), "women_list": w_ids, "women_rank_by_man": women_rank}
    for arr in csr.values():
        arr.flags.writeable = False
    return PreferenceInstance._trusted(m_ptr, m_ids, w_ptr, w_ids, csr)


def hard_instance(n: int, seed: int = 0) -> PreferenceInstance:
    """A *hard* SM instance of Manne et al. (CSC 2016) §4: one random ranking shared by all men, one by all women.

    ``n`` is at most 46340 (``n * n`` entries must fit int32 offsets).  Deterministic in ``seed``.

    Examples
    --------
    >>> inst = hard_instance(3, seed=0)
    >>> len(set(map(tuple, inst.men_prefs))), len(set(map(tuple, inst.women_prefs)))
    (1, 1)
    >>> hard_instance(0).n_women
    0
    """
    n, seed = check_int("n", n, 0, HARD_MAX_N), check_seed(seed)
    rng = np.random.default_rng(seed)
    women_order = rng.permutation(n).astype(np.int32)  # every man's list, best first
    men_order = rng.permutation(n).astype(np.int32)    # every woman's list, best first
    rank_of_man = np.empty(n, np.int32)
    rank_of_man[men_order] = np.arange(n, dtype=np.int32)
    rank_of_woman = np.empty(n, np.int32)
    rank_of_woman[women_order] = np.arange(n, dtype=np.int32)
    ptr = np.arange(0, n * n + 1, max(n, 1), dtype=np.int64)[: n + 1]
    men_list, women_list = np.tile(women_order, n), np.tile(men_order, n)
    csr = {
        "men_ptr": ptr.astype(np.int32), "men_list": men_list,
        "men_rank_by_woman": np.repeat(rank_of_man, n),      # woman's rank of man m, the same in all lists
        "women_ptr": ptr.astype(np.int32), "women_list": women_list,
        "women_rank_by_man": np.repeat(rank_of_woman, n),
    }
    for arr in csr.values():
        arr.flags.writeable = False
    return PreferenceInstance._trusted(ptr, men_list, ptr, women_list, csr)
