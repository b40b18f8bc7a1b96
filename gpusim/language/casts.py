"""The casts of ``T`` (``T.i32`` … ``T.f64``): callable on a value, and usable as a dtype.

They are the one part of the language with the same meaning on the host and in a kernel, so the
neutral ``T`` and the simulator share them.

>>> from gpusim.language.casts import i32, u32, f32
>>> i32(2**31), u32(-1), f32(0.1) == 0.1
(-2147483648, 4294967295, False)
"""

from __future__ import annotations

import numpy as np

from gpusim.errors import InvalidArgumentType

__all__ = ["CASTS", "Cast", "dtype_of", "f32", "f64", "i32", "i64", "u32", "u64"]


class Cast:
    """A cast such as ``T.i32``: wraps integers modulo ``2**bits``, rounds floats to their width."""

    def __init__(self, name: str, dtype: str):
        self.__name__ = name
        self.dtype = np.dtype(dtype)
        self._modulus = None if self.dtype.kind == "f" else 1 << (8 * self.dtype.itemsize)
        self._signed = self.dtype.kind == "i"

    def __call__(self, value):
        if self._modulus is None:
            value = float(value)
            return float(np.float32(value)) if self.dtype.itemsize == 4 else value
        value = int(value) % self._modulus
        if self._signed and value >= self._modulus >> 1:
            value -= self._modulus
        return value

    def __repr__(self) -> str:
        return f"T.{self.__name__}"


def dtype_of(dtype) -> np.dtype:
    """The NumPy dtype of a cast (``T.i32``) or of anything ``np.dtype`` accepts."""
    if isinstance(dtype, Cast):
        return dtype.dtype
    try:
        return np.dtype(dtype)
    except TypeError:
        raise InvalidArgumentType(f"dtype must be T.i32, T.i64, T.u32, T.u64, T.f32 or T.f64, got {dtype!r}") \
            from None


i32 = Cast("i32", "int32")
i64 = Cast("i64", "int64")
u32 = Cast("u32", "uint32")
u64 = Cast("u64", "uint64")
f32 = Cast("f32", "float32")
f64 = Cast("f64", "float64")

#: Every cast by name.
CASTS = {cast.__name__: cast for cast in (i32, i64, u32, u64, f32, f64)}
