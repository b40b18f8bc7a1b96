"""Simulated memory: device arrays, and the proxies through which kernels touch them.

A :class:`SimArray` is what ``Device("sim").zeros(...)`` returns: a handle on host memory that
kernels see through an :class:`ArrayProxy`.  During a launch the proxy keeps the elements in a
Python list (fast to index), and every load, store and atomic is a scheduling point of the
simulator; the list is written back into the NumPy array when the launch ends.  Values are
coerced to the array's dtype on every store (integers wrap, float32 rounds), so ``a[i] += 1`` is
a load and a store that race as they do on hardware.

Shared and local arrays start *uninitialised* (``None``): reading one before a write raises
:class:`~gpusim.errors.UninitialisedRead`.
"""

from __future__ import annotations

import sys

import numpy as np

from gpusim.errors import InvalidArgumentType, OutOfBounds, UninitialisedRead

__all__ = ["ArrayProxy", "CheckedProxy", "SimArray", "coercer"]


class SimArray:
    """A 1-D array in the simulator's device memory.

    Kernels receive it as an argument; host code copies it back with ``Device.to_host``.
    Like a real device array it cannot be indexed on the host.
    """

    __slots__ = ("data",)

    def __init__(self, data: np.ndarray):
        self.data = data

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def size(self) -> int:
        return self.data.size

    def __len__(self) -> int:
        return self.data.size

    def __repr__(self) -> str:
        return f"<sim device array of {self.data.size} {self.data.dtype.name}>"

    def __getitem__(self, index):
        raise TypeError("device arrays cannot be indexed on the host; copy them with Device.to_host(array)")


def coercer(dtype: np.dtype):
    """Return a function that coerces a Python value to ``dtype`` as a store to memory does."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low, high, modulus = int(info.min), int(info.max), 1 << (8 * dtype.itemsize)

        def to_int(value):
            if value.__class__ is not int:
                if isinstance(value, (float, np.floating)):
                    value = int(value)  # truncation toward zero, as a C conversion does
                elif isinstance(value, (int, np.integer, np.bool_)):
                    value = int(value)
                else:
                    raise InvalidArgumentType(f"cannot store {value!r} in an array of {dtype.name}")
            if value < low or value > high:
                value %= modulus
                if value > high:
                    value -= modulus
            return value

        return to_int
    if dtype == np.float32:
        return lambda value: float(np.float32(value))
    return float


class ArrayProxy:
    """A kernel's view of one array: every access a scheduling point of ``sim``.

    ``kind`` is ``"global"``, ``"shared"`` or ``"local"``; ``name`` is the kernel parameter or
    the local variable it was assigned to, used in traces and error messages.
    """

    __slots__ = ("name", "kind", "items", "n", "sim", "dtype", "coerce", "owner")

    def __init__(self, sim, name: str, kind: str, items: list, dtype: np.dtype, owner=None):
        self.sim = sim
        self.name = name
        self.kind = kind
        self.items = items
        self.n = len(items)
        self.dtype = dtype
        self.coerce = coercer(dtype)
        self.owner = owner  # the block index (shared) or thread (local) that may touch it

    def __repr__(self) -> str:
        return f"<{self.kind} array {self.name!r} of {self.n} {self.dtype.name}>"

    def __len__(self) -> int:
        return self.n

    def _index(self, index, operation: str, depth: int = 2) -> int:
        if index.__class__ is not int:
            if isinstance(index, (np.integer,)) and not isinstance(index, np.bool_):
                index = int(index)
            else:
                raise InvalidArgumentType(
                    f"{self.kind} array {self.name!r} indexed with {index!r} ({type(index).__name__}); "
                    f"indices must be integers"
                )
        if index < 0 or index >= self.n:
            frame = sys._getframe(depth)
            raise OutOfBounds(
                f"OutOfBounds: {operation} of {self.name}[{index}] by {self.sim.describe_current()} at "
                f"{_where(frame)}: {self.kind} array {self.name!r} has {self.n} elements"
                + (" (negative indices are never valid)" if index < 0 else "")
            )
        return index

    def __getitem__(self, index):
        if index.__class__ is not int or index < 0 or index >= self.n:
            index = self._index(index, "load")
        sim = self.sim
        if sim.step >= sim.next_decision:
            sim.decide()
        sim.step += 1
        value = self.items[index]
        if value is None:
            self._uninitialised(index)
        if sim.tracing:
            sim.record("load", self, index, value, sys._getframe(1))
        return value

    def __setitem__(self, index, value):
        if index.__class__ is not int or index < 0 or index >= self.n:
            index = self._index(index, "store")
        value = self.coerce(value)
        sim = self.sim
        if sim.step >= sim.next_decision:
            sim.decide()
        sim.step += 1
        if self.items[index] != value:
            self.items[index] = value
            sim.progress = sim.step
        if sim.tracing:
            sim.record("store", self, index, value, sys._getframe(1))

    def atomic(self, operation: str, index, value, expected=None):
        """Perform one atomic read-modify-write; return the old value."""
        if index.__class__ is not int or index < 0 or index >= self.n:
            index = self._index(index, operation, depth=3)
        value = self.coerce(value)
        sim = self.sim
        if sim.step >= sim.next_decision:
            sim.decide()
        sim.step += 1
        items = self.items
        old = items[index]
        if old is None:
            self._uninitialised(index, depth=3)
        new = _atomic_result(operation, old, value, expected, self.coerce)
        if new != old:
            items[index] = new
            sim.progress = sim.step
        if sim.tracing:
            sim.record(operation, self, index, old if new == old else (old, new), sys._getframe(2))
        return old

    def _uninitialised(self, index: int, depth: int = 2):
        frame = sys._getframe(depth)
        raise UninitialisedRead(
            f"UninitialisedRead: {self.name}[{index}] read by {self.sim.describe_current()} at {_where(frame)} "
            f"before any thread wrote it ({self.kind} memory starts undefined)"
        )


def _where(frame) -> str:
    return f"{frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_lineno}"


class CheckedProxy(ArrayProxy):
    """An :class:`ArrayProxy` for the weak memory mode and the race detector (``sim.weak``, ``sim.races``).

    Plain simulation uses :class:`ArrayProxy`, so these checks cost nothing when they are off.
    """

    __slots__ = ("checked",)

    def __init__(self, sim, name: str, kind: str, items: list, dtype: np.dtype, owner=None):
        super().__init__(sim, name, kind, items, dtype, owner)
        races = sim.races
        self.checked = races is not None and races.checks(self)

    def __getitem__(self, index):
        if index.__class__ is not int or index < 0 or index >= self.n:
            index = self._index(index, "load")
        sim = self.sim
        if sim.step >= sim.next_decision:
            sim.decide()
        sim.step += 1
        weak = sim.weak
        value = self.items[index] if weak is None else weak.load(sim.current, self, index)
        if value is None:
            self._uninitialised(index)
        if self.checked:
            sim.race(self, index, "load", False, sys._getframe(1))
        if sim.tracing:
            sim.record("load", self, index, value, sys._getframe(1))
        if weak is not None and weak.n_pending:
            weak.maybe_publish(sim)
        return value

    def __setitem__(self, index, value):
        if index.__class__ is not int or index < 0 or index >= self.n:
            index = self._index(index, "store")
        value = self.coerce(value)
        sim = self.sim
        if sim.step >= sim.next_decision:
            sim.decide()
        sim.step += 1
        weak = sim.weak
        if weak is not None:
            if sim.tracing:
                frame = sys._getframe(1)
                weak.store(sim.current, self, index, value, (frame.f_code, frame.f_lineno))
            else:
                weak.store(sim.current, self, index, value)
        elif self.items[index] != value:
            self.items[index] = value
            sim.progress = sim.step
        if self.checked:
            sim.race(self, index, "store", True, sys._getframe(1))
        if sim.tracing:
            sim.record("store", self, index, value, sys._getframe(1))
        if weak is not None and weak.n_pending:
            weak.maybe_publish(sim)

    def atomic(self, operation: str, index, value, expected=None):
        if index.__class__ is not int or index < 0 or index >= self.n:
            index = self._index(index, operation, depth=3)
        value = self.coerce(value)
        sim = self.sim
        if sim.step >= sim.next_decision:
            sim.decide()
        sim.step += 1
        weak = sim.weak
        if weak is not None:
            weak.atomic_begin(sim.current, self, index)
        items = self.items
        old = items[index]
        if old is None:
            self._uninitialised(index, depth=3)
        new = _atomic_result(operation, old, value, expected, self.coerce)
        if new != old:
            items[index] = new
            sim.progress = sim.step
        if weak is not None:
            weak.atomic_end(sim.current, self, index, old, new)
        if self.checked:
            sim.race_atomic(self, index, operation, operation != "atomic_load", sys._getframe(2))
        elif sim.races is not None:  # not checked (an intended race), but still a synchronising atomic
            sim.races.atomic(sim.current, self, index)
        if sim.tracing:
            sim.record(operation, self, index, old if new == old else (old, new), sys._getframe(2))
        if weak is not None and weak.n_pending:
            weak.maybe_publish(sim)
        return old


def _atomic_result(operation: str, old, value, expected, coerce):
    """The value an atomic leaves in memory."""
    if operation == "atomic_add":
        return coerce(old + value)
    if operation == "atomic_cas":
        return value if old == coerce(expected) else old
    if operation == "atomic_exch":
        return value
    if operation == "atomic_min":
        return value if value < old else old
    if operation == "atomic_max":
        return value if value > old else old
    return old  # atomic_load
