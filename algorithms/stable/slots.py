"""How a woman holds her offers: ``b(w)`` slots of packed offers ``rank << 32 | man``, smaller is better.

Woman ``w``'s slots are ``held[slot_ptr[w]:slot_ptr[w + 1]]`` (``b(w) = 1`` for a marriage; more for
the hospitals/residents generalisation of Manne et al. (CSC 2016) §2.1), each an offer or :data:`EMPTY`.
The sequential references and the GPU drivers share these helpers.

Example
-------
>>> import numpy as np
>>> slot_ptr = slot_offsets(np.array([1, 2], np.int32))
>>> slot_ptr.tolist()
[0, 1, 3]
>>> held = np.array([EMPTY, (0 << 32) | 1, (1 << 32) | 0], np.int64)
>>> wives_from_slots(held, slot_ptr, 2).tolist()
[1, 1]
"""

from __future__ import annotations

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.types.preferences import PreferenceInstance

__all__ = ["EMPTY", "LOW", "capacity_array", "slot_offsets", "wives_from_slots"]

#: A free slot: larger than every packed offer ``rank << 32 | man``.
EMPTY = np.iinfo(np.int64).max
#: The man half of a packed offer.
LOW = 0xFFFFFFFF


def capacity_array(instance: PreferenceInstance, capacities) -> np.ndarray:
    """``capacities`` checked and as one int32 per woman: ``None`` means 1 each, an int the same for all.

    >>> capacity_array(PreferenceInstance([], [[], []]), 2).tolist()
    [2, 2]
    """
    n = instance.n_women
    if capacities is None:
        return np.ones(n, np.int32)
    if isinstance(capacities, (bool, np.bool_)):
        raise InvalidArgumentType(f"capacities must be an int or one int per woman, got {capacities!r}")
    if isinstance(capacities, (int, np.integer)):
        capacities = np.full(n, int(capacities), np.int64)
    arr = np.asarray(capacities)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise InvalidArgumentType(f"capacities must be an int or a 1-D integer array, got {arr.dtype} {arr.shape}")
    if arr.shape[0] != n:
        raise InvalidArgument(f"capacities has {arr.shape[0]} entries but there are {n} women")
    bad = np.flatnonzero((arr < 1) | (arr > 2**20))
    if bad.size:
        raise InvalidArgument(f"capacities[{int(bad[0])}]={int(arr[bad[0]])}: each woman takes 1 to 2**20 men")
    return arr.astype(np.int32)


def slot_offsets(capacities: np.ndarray) -> np.ndarray:
    """``slot_ptr``: woman ``w``'s slots are ``slot_ptr[w]:slot_ptr[w + 1]`` (int32)."""
    ptr = np.zeros(capacities.shape[0] + 1, np.int64)
    np.cumsum(capacities, out=ptr[1:])
    if ptr[-1] > np.iinfo(np.int32).max:
        raise InvalidArgument(f"{int(ptr[-1])} places in total exceed int32")
    return ptr.astype(np.int32)


def wives_from_slots(held: np.ndarray, slot_ptr: np.ndarray, n_men: int) -> np.ndarray:
    """The woman of each man, read from the slots (-1 for single men)."""
    owner = np.repeat(np.arange(slot_ptr.shape[0] - 1, dtype=np.int32), np.diff(slot_ptr))
    taken = np.flatnonzero(held != EMPTY)
    wife = np.full(n_men, -1, np.int32)
    wife[(held[taken] & LOW).astype(np.int64)] = owner[taken]
    return wife
