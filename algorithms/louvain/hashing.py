"""The per-vertex hash tables of Naim et al. (IPDPS 2017) (Alg. 2 lines 2–14), as ``@device`` helpers in ``T``.

A table is ``size`` consecutive slots ``keys[base:base + size]`` (community ids, :data:`EMPTY` when
free) and ``vals[base:base + size]`` (the weight summed for each), in shared or global memory: the
kernels of :mod:`.kernels_move` and :mod:`.kernels_aggregate` pass either.  ``size`` is the
smallest prime above 1.5 times the degree, from a list of precomputed primes (§4), so the table
never fills and double hashing visits every slot.  The threads sharing a table each take the slots
``first, first + step, ...``.

Line 9 of Alg. 2 in the paper reads ``CAS(hashComm[curPos], null, C[i])``: it claims the slot for
the community of the vertex ``i`` being moved.  The slot is the one probed for ``C[j]``, the
*neighbour's* community, and line 13 loops until ``hashComm[curPos] == C[j]``: with ``C[i]`` the
weight of line 10 would be added under the wrong community and the loop would go on probing and
add it again.  :func:`insert` claims the slot for ``C[j]`` (its ``key``), as the text around the
pseudo-code describes ("tries to replace a null value in hashComm with the new community ID").

>>> from gpusim.algorithms.louvain.hashing import EMPTY
>>> EMPTY
-1
"""

from __future__ import annotations

import functools

import numpy as np

from gpusim import T, device

__all__ = [
    "EMPTY", "add_table", "add_to_slot", "allowed", "better", "clear_table", "group_best",
    "hash_slot", "hash_step", "insert", "insert_within", "lookup", "next_slot", "prime_table", "score", "table_size",
]

#: The null of ``hashComm``: a slot no community has claimed.
EMPTY = -1


@functools.cache
def prime_table() -> np.ndarray:
    """The precomputed primes tables are sized from (§4), ascending, int32.

    Every prime below 2^16, then, up to 2^31, the smallest prime above each ``2^16 (1 + 1/64)^t``: a table
    for a degree up to 43,690 has the smallest prime size above 1.5 x degree, a larger one at most 1.6 %
    more (a list of every prime up to 2^31 would not fit on a GPU).

    >>> p = prime_table()
    >>> p[:5].tolist(), int(p[-1]) > 2**31 - 2**26, bool((np.diff(p) > 0).all())
    ([2, 3, 5, 7, 11], True, True)
    """
    sieve = np.ones(2**16, bool)
    sieve[:2] = False
    for q in range(2, 256):
        if sieve[q]:
            sieve[q * q::q] = False
    small = np.flatnonzero(sieve)
    large = []
    value = float(2**16)
    while True:
        candidate = int(value) + 1
        while (candidate % small[small * small <= candidate] == 0).any():
            candidate += 1
        if candidate >= 2**31 - 1:
            break
        if not large or candidate > large[-1]:
            large.append(candidate)
        value *= 1 + 1 / 64
    return np.concatenate([small, np.array(large, np.int64)]).astype(np.int32)


@device
def table_size(primes, n_primes, degree):
    """The smallest prime above 1.5 x ``degree`` (§4), by binary search in the ascending ``primes``.

    A prime's index is below the prime, so the search looks no further than ``limit + 1``: four steps for a degree
    of 10 where the whole table took 13."""
    limit = (3 * degree) // 2
    lo = 0
    hi = min(n_primes - 1, limit + 1)  # primes[q] > q + 1 > limit for q = limit + 1: the answer is at most there
    while lo < hi:
        mid = (lo + hi) // 2
        if primes[mid] > limit:
            hi = mid
        else:
            lo = mid + 1
    return primes[lo]


@device
def hash_slot(key, size):
    """Probe 0 of ``key`` by double hashing (Alg. 2 line 5): ``h1 = key mod size``, in 32 bits (``key >= 0``)."""
    return T.i32(key) % T.i32(size)


@device
def hash_step(key, size):
    """What each further probe of ``key`` adds, modulo ``size``: ``h2 = 1 + key mod (size - 1)``; ``size`` prime, so
    probes ``(h1 + it h2) mod size`` visit every slot."""
    return T.i32(1) + T.i32(key) % (T.i32(size) - T.i32(1))


@device
def next_slot(slot, step, size):
    """``(slot + step) mod size`` for ``slot, step < size``, without a division or an overflow: probe ``it + 1`` of a
    key from its probe ``it``, where ``(h1 + it h2) mod size`` in 64 bits took three emulated divisions a probe."""
    if slot >= size - step:
        return slot - (size - step)
    return slot + step


@device
def clear_table(keys, vals, base, size, first, step):
    """Mark this thread's share of the table's slots free."""
    s = first
    while s < size:
        keys[base + s] = EMPTY
        vals[base + s] = 0.0
        s += step


@device
def add_table(from_keys, from_vals, slots, keys, vals, base, size, first, step):
    """Add this thread's share of the slots of one table (``first, first + step, ...`` of ``slots``) to another, at
    ``base`` of ``size`` slots: each key found once (a block's shared table of a chunk into a global one)."""
    s = first
    while s < slots:
        key = from_keys[s]
        if key != EMPTY:
            insert(keys, vals, base, size, key, from_vals[s])
        s += step


@device
def add_to_slot(keys, vals, pos, key, weight):
    """Alg. 2 lines 6–12 at slot ``pos``: add ``weight`` there when it holds ``key``, or is free and this thread's CAS
    claims it for ``key``; 1 when added, 0 when the slot holds another key."""
    done = 0
    seen = keys[pos]
    if seen == key:
        T.atomic_add(vals, pos, weight)
        done = 1
    elif seen == EMPTY:
        # equivalent extra-read: once claimed, a slot keeps its key until a
        # later step clears the table, and a thread's read after its own CAS
        # sees at least what the CAS left: a re-read gives the key the CAS
        # found or wrote, and `old == EMPTY or old == key` branches the same.
        old = T.atomic_cas(keys, pos, EMPTY, key)
        if old == EMPTY or old == key:
            T.atomic_add(vals, pos, weight)
            done = 1
    return done


@device
def insert(keys, vals, base, size, key, weight):
    """Add ``weight`` to community ``key``'s slot, claiming a free one by CAS (IPDPS 2017, Alg. 2 lines 3–13).

    Line 9 claims the slot for ``key`` (the neighbour's ``C[j]``), where the paper's line writes ``C[i]``
    (see the module's docstring).  The key is read without an atomic (lines 6 and 8): a stale EMPTY
    only sends the thread to the CAS, which says who won.
    """
    slots = T.i32(size)
    slot = hash_slot(key, slots)
    step = 0  # h2, computed at the first collision: most keys take their first slot
    done = add_to_slot(keys, vals, base + slot, key, weight)
    while done == 0:
        if step == 0:
            step = hash_step(key, slots)
        slot = next_slot(slot, step, slots)
        done = add_to_slot(keys, vals, base + slot, key, weight)


@device
def insert_within(keys, vals, base, size, key, weight, probes):
    """:func:`insert` that looks at no more than ``probes`` slots: 1 when ``weight`` was added to ``key``'s slot, 0
    when every slot it looked at held another key (a full table: the caller adds ``weight`` elsewhere)."""
    slots = T.i32(size)
    slot = hash_slot(key, slots)
    step = 0
    done = add_to_slot(keys, vals, base + slot, key, weight)
    tries = 1
    while done == 0 and tries < probes:
        if step == 0:
            step = hash_step(key, slots)
        slot = next_slot(slot, step, slots)
        done = add_to_slot(keys, vals, base + slot, key, weight)
        tries += 1
    return done


@device
def lookup(keys, vals, base, size, key):
    """The weight summed for ``key`` (0 when it is not in the table), along :func:`insert`'s probes."""
    slots = T.i32(size)
    slot = hash_slot(key, slots)
    step = 0  # h2, computed at the first collision
    it = 0
    while it < slots:
        pos = base + slot
        if keys[pos] == key:
            return vals[pos]
        if keys[pos] == EMPTY:
            return 0.0
        if step == 0:
            step = hash_step(key, slots)
        slot = next_slot(slot, step, slots)
        it += 1
    return 0.0


@device
def score(e, ki, a_c, m, gamma):
    """The terms of Eq. (2) that depend on the target community, ``e_{i->c} / m - gamma k_i a_c / (2 m^2)``, times
    ``2 m^2``: ``2 m e_{i->c} - gamma k_i a_c``.

    Moving ``i`` to ``c`` gains ``(score(e_{i->c}, a_c) - score(e_{i->C(i)\\{i}}, a_{C(i)\\{i}})) / 2 m^2``.  The
    scores are only compared, so the positive factor changes no choice; it leaves no division (two a score in
    double precision, a sequence of some forty instructions each on a GPU) and, for integer weights and
    ``gamma = 1``, no rounding: equal gains tie exactly.
    """
    return 2.0 * m * e - gamma * ki * a_c


@device
def allowed(own, c, csize):
    """The move rule of §4 for the *chosen* community ``c``: a singleton joins a singleton only if ``C[j] < C[i]``.

    As in [16] (Lu, Halappanavar, Kalyanaraman 2015, the "minimum label" heuristic) and the authors' CUDA
    code, the rule is checked after the best community has been found: a singleton whose best move is to a
    singleton of higher id stays put (0).  Filtering such candidates out *before* choosing, the earlier
    reading, sends the vertex to its second-best community instead, and on a graph where every vertex is
    a singleton (each level's start) that second choice is what makes a synchronous sweep lose modularity.
    """
    if c == own:
        return 0
    if csize[own] == 1 and csize[c] == 1 and c > own:
        return 0
    return 1


@device
def better(c1, s1, c2, s2):
    """1 if candidate ``(c2, s2)`` beats ``(c1, s1)``: a higher score, ties to the lower community; -1 is none."""
    if c2 < 0:
        return 0
    if c1 < 0:
        return 1
    if s2 > s1 or (s2 == s1 and c2 < c1):
        return 1
    return 0


@device
def group_best(c, s, width):
    """The best ``(community, score)`` of ``width`` aligned lanes, in every one of them (Alg. 2 line 14's reduction).

    A butterfly of ``shfl_xor`` over offsets ``width / 2, ..., 1``: every lane of the warp takes part.
    """
    offset = width // 2
    while offset > 0:
        other_c = T.shfl_xor(c, offset)
        other_s = T.shfl_xor(s, offset)
        if better(c, s, other_c, other_s) == 1:
            c = other_c
            s = other_s
        offset = offset // 2
    return c


