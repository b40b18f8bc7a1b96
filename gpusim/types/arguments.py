"""One module of argument validation: the checks and messages every input type and every algorithm uses.

Each check names the argument and shows the offending value, in one line: a wrong type raises
:class:`~gpusim.errors.InvalidArgumentType` (a ``TypeError``), a wrong value
:class:`~gpusim.errors.InvalidArgument` (a ``ValueError``).  The limits are the same everywhere:
vertex ids, counts and CSR offsets are int32; a seed is an integer in ``0..2**32 - 1``.

>>> check_seed(2**32)
Traceback (most recent call last):
gpusim.errors.InvalidArgument: seed=4294967296 exceeds 4294967295: seeds are 32-bit
>>> as_ids("rows", [0, -1]).tolist()
Traceback (most recent call last):
gpusim.errors.InvalidArgument: rows[1]=-1 is negative: vertex ids start at 0
"""

from __future__ import annotations

import math
import numbers
import sys
from typing import Any

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType

__all__ = [
    "INT32_MAX", "SEED_MAX", "as_1d", "as_ids", "as_weights", "check_below", "check_bool", "check_count",
    "check_edge_total", "check_int", "check_positive_int", "check_real", "check_seed", "count_or_infer",
    "readonly", "type_name",
]

#: Vertex ids, counts and CSR offsets are int32.
INT32_MAX = int(np.iinfo(np.int32).max)
#: Seeds are 32-bit (NumPy's legacy seeding and numba's ``np.random.seed`` take no more).
SEED_MAX = 2**32 - 1


def type_name(value: Any) -> str:
    return type(value).__name__


def check_count(name: str, value: Any) -> int:
    """A vertex count: a non-bool integer in 0..INT32_MAX."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidArgumentType(
            f"{name} must be a non-negative integer, got {name}={value!r} of type {type_name(value)}"
        )
    value = int(value)
    if value < 0:
        raise InvalidArgument(f"{name}={value} must be non-negative")
    if value > INT32_MAX:
        raise InvalidArgument(f"{name}={value} exceeds {INT32_MAX}: vertex ids are int32")
    return value


def as_1d(name: str, values: Any) -> np.ndarray:
    sparse = sys.modules.get("scipy.sparse")  # not imported here: a SciPy matrix exists only once SciPy is loaded
    if sparse is not None and sparse.issparse(values):
        raise InvalidArgumentType(f"{name} must be a 1-D array, got a SciPy sparse {type_name(values)}")
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError) as exc:
        raise InvalidArgument(f"{name} must be a flat 1-D array of numbers, got {values!r}: {exc}") from exc
    if arr.ndim != 1:
        raise InvalidArgument(f"{name} must be one-dimensional, got shape {arr.shape}")
    return arr


def as_ids(name: str, values: Any) -> np.ndarray:
    """Vertex ids as an int64 array: integers (not bools, not floats), non-negative, int32-sized."""
    arr = as_1d(name, values)
    if arr.size == 0:
        return np.zeros(0, np.int64)
    if arr.dtype.kind not in "iu":
        raise InvalidArgumentType(
            f"{name} must hold integer vertex ids, got dtype {arr.dtype} ({name}[0]={arr[0].item()!r}); "
            "convert integral values with .astype(np.int32) first"
        )
    if arr.dtype.kind == "i":
        neg = np.flatnonzero(arr < 0)
        if neg.size:
            i = int(neg[0])
            raise InvalidArgument(f"{name}[{i}]={arr[i].item()} is negative: vertex ids start at 0")
    big = np.flatnonzero(arr > INT32_MAX)
    if big.size:
        i = int(big[0])
        raise InvalidArgument(f"{name}[{i}]={arr[i].item()} exceeds {INT32_MAX}: vertex ids are int32")
    return arr.astype(np.int64, copy=False)


def check_below(name: str, ids: np.ndarray, n: int, n_name: str) -> None:
    bad = np.flatnonzero(ids >= n)
    if bad.size:
        i = int(bad[0])
        valid = f"ids run from 0 to {n - 1}" if n else "no id is valid"
        raise InvalidArgument(f"{name}[{i}]={int(ids[i])} is out of range for {n_name}={n} ({valid})")


def count_or_infer(name: str, value: Any, *id_arrays: np.ndarray) -> int:
    if value is not None:
        return check_count(name, value)
    return max((int(a.max()) + 1 for a in id_arrays if a.size), default=0)


def as_weights(name: str, values: Any, m: int) -> np.ndarray:
    """Edge weights: real, finite, non-negative, one per edge; ``None`` means all 1.0."""
    if values is None:
        return np.ones(m, np.float64)
    arr = as_1d(name, values)
    if arr.size == 0:
        arr = arr.astype(np.float64)
    if arr.dtype.kind == "c":
        raise InvalidArgumentType(f"{name} has complex dtype {arr.dtype}: weights must be real")
    if arr.dtype.kind not in "iuf":
        raise InvalidArgumentType(not_real_message(name, arr))
    if arr.shape[0] != m:
        raise InvalidArgument(f"{name} has {arr.shape[0]} entries but there are {m} edges")
    arr = arr.astype(np.float64)
    for bad, what in ((~np.isfinite(arr), "is not finite"), (arr < 0, "is negative")):
        idx = np.flatnonzero(bad)
        if idx.size:
            i = int(idx[0])
            raise InvalidArgument(f"{name}[{i}]={arr[i].item()!r} {what}: weights must be finite and >= 0")
    return arr


def not_real_message(name: str, arr: np.ndarray) -> str:
    """What to say of an array of weights that are not all real numbers: the first such entry, by value.

    >>> not_real_message("w", np.asarray([1.0, "heavy"], dtype=object))
    "w[1]='heavy' is not a real number (a str): weights must be finite real numbers"
    """
    for index in np.ndindex(arr.shape):
        value = arr[index]
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.integer, np.floating)):
            where = ", ".join(map(str, index))
            shown = value.item() if isinstance(value, np.generic) else value
            return (f"{name}[{where}]={shown!r} is not a real number (a {type_name(shown)}): "
                    "weights must be finite real numbers")
    return f"{name} must hold real numbers, got dtype {arr.dtype}"


def check_edge_total(count: int, what: str) -> None:
    if count > INT32_MAX:
        raise InvalidArgument(f"{count} {what} exceed {INT32_MAX}: CSR offsets are int32")


def readonly(arr: np.ndarray, dtype: Any) -> np.ndarray:
    out = np.ascontiguousarray(arr, dtype=dtype)
    if out is arr or out.base is not None:
        out = out.copy()
    out.flags.writeable = False
    return out


def check_int(name: str, value: Any, low: int = 0, high: int | None = INT32_MAX) -> int:
    """``value`` as an int in ``low..high`` (``high=None``: no upper bound), else an error naming ``name``."""
    if type(value) is not int:  # the usual case first: checks run on every call, and an ABC's isinstance is slow
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
            raise InvalidArgumentType(f"{name} must be an integer, got {name}={value!r} of type {type_name(value)}")
        value = int(value)
    if value < 0 <= low:
        raise InvalidArgument(f"{name}={value} must be non-negative")
    if value < low or (high is not None and value > high):
        bound = f"in {low}..{high}" if high is not None else f">= {low}"
        raise InvalidArgument(f"{name}={value} must be {bound}")
    return value


def check_positive_int(name: str, value: Any) -> int:
    """``value`` as an int, refused (naming ``name``) unless it is a positive integer."""
    if type(value) is not int and (isinstance(value, (bool, np.bool_))
                                   or not isinstance(value, (numbers.Integral, np.integer))):
        raise InvalidArgumentType(f"{name} must be a positive integer, got {name}={value!r} of type {type_name(value)}")
    if value < 1:
        raise InvalidArgument(f"{name} must be a positive integer, got {name}={value!r}")
    return int(value)


def check_seed(seed: Any) -> int:
    """A seed: an integer in ``0..SEED_MAX``, the same limit everywhere."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (numbers.Integral, np.integer)):
        raise InvalidArgumentType(f"seed must be a non-negative integer, got seed={seed!r} of type {type_name(seed)}")
    if seed < 0:
        raise InvalidArgument(f"seed={seed} must be non-negative")
    if seed > SEED_MAX:
        raise InvalidArgument(f"seed={seed} exceeds {SEED_MAX}: seeds are 32-bit")
    return int(seed)


def check_real(name: str, value: Any, low: float, high: float) -> float:
    """``value`` as a finite float in ``[low, high]``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.integer, np.floating)):
        raise InvalidArgumentType(f"{name} must be a real number, got {name}={value!r} of type {type_name(value)}")
    value = float(value)
    if not (math.isfinite(value) and low <= value <= high):
        raise InvalidArgument(f"{name}={value!r} must be finite and in [{low}, {high}]")
    return value


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a bool; an integer or a string is refused."""
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidArgumentType(f"{name} must be a bool, got {name}={value!r} of type {type_name(value)}")
    return bool(value)
