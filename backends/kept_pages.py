"""Host arrays whose pages stay registered (page-locked) after their copy to the device.

Copying a large host array to a GPU goes fastest from page-locked memory, but locking its pages costs more than the
copy itself: on an H200, 6.5 ms of the 9.9 ms that 168 MB took to copy in.  A graph is often copied in again by the
next call (a resolution sweep, a benchmark's repeats, a notebook cell run twice), so the pages of the last few large
arrays copied stay registered, and copying the same array again is the DMA copy alone.  An array's pages are
unlocked when it is garbage collected (a finaliser runs before its memory is freed), or when newer arrays push it
out: at most :data:`KEPT_ARRAYS` arrays and :data:`KEPT_BYTES` bytes stay locked.

>>> import numpy as np
>>> calls = []
>>> def register(host):
...     calls.append("registered")
...     return lambda: calls.append("unregistered")
>>> def copy_in(host, registered):
...     calls.append(f"copied, registered: {registered}")
>>> pages, host = KeptPages(), np.zeros(4)
>>> pages.copy(host, register, copy_in); pages.copy(host, register, copy_in)
>>> del host
>>> calls
['registered', 'copied, registered: True', 'copied, registered: True', 'unregistered']
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["KEPT_ARRAYS", "KEPT_BYTES", "KeptPages"]

#: The most host arrays whose pages stay locked (a graph's offsets, lists and weights, twice over).
KEPT_ARRAYS = 6
#: The most bytes that stay locked: a graph of 2^26 vertices and 10^9 entries, about 4.3 GB, fits.
KEPT_BYTES = 6 << 30


class KeptPages:
    """The registrations kept, oldest first: ``(address, bytes) -> (finaliser, token)``; calling the finaliser
    unlocks the pages.  A finaliser may run on any thread at any allocation (the garbage collector's), even inside
    :meth:`copy` with the lock held, so it only notes its array gone; the next copy forgets it."""

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[int, int], tuple[weakref.finalize, object]] = OrderedDict()
        self._bytes = 0
        self._gone: list[tuple[tuple[int, int], object]] = []  # (key, token) of arrays collected since
        self._lock = threading.Lock()

    def copy(self, host: np.ndarray, register: Callable[[np.ndarray], Callable[[], None] | None],
             copy_in: Callable[[np.ndarray, bool], Any]) -> Any:
        """``copy_in(host, registered)``, from locked pages where ``host``'s are (an earlier copy locked them) or
        ``register(host)`` locks them now (it returns the function that unlocks them, or None when the driver
        refuses).  An array of more than :data:`KEPT_BYTES` is unlocked as soon as it is copied."""
        key = (host.ctypes.data, host.nbytes)
        with self._lock:
            self._forget_gone()
            if key in self._kept:
                self._kept.move_to_end(key)
                return copy_in(host, True)
        unregister = register(host)
        if unregister is None:
            return copy_in(host, False)
        if host.nbytes > KEPT_BYTES:
            try:
                return copy_in(host, True)
            finally:
                unregister()
        try:
            out = copy_in(host, True)
        except BaseException:
            unregister()
            raise
        token = object()
        finaliser = weakref.finalize(host, self._gone_with, key, token, unregister)
        finaliser.atexit = False  # the process's end unlocks everything; the driver may be gone by then
        with self._lock:
            self._kept[key] = finaliser, token
            self._bytes += key[1]
            pushed_out = []
            while len(self._kept) > KEPT_ARRAYS or self._bytes > KEPT_BYTES:  # the oldest go, never this one
                (_, size), (old, _) = self._kept.popitem(last=False)
                self._bytes -= size
                pushed_out.append(old)
        for old in pushed_out:
            old()  # unlocks its pages
        return out

    def _gone_with(self, key: tuple[int, int], token: object, unregister: Callable[[], None]) -> None:
        """The finaliser: unlock the pages now (before the memory is freed), note the array gone."""
        self._gone.append((key, token))  # list.append needs no lock
        try:
            unregister()
        except Exception:  # noqa: BLE001 - a context already torn down has unlocked the pages with it
            pass

    def _forget_gone(self) -> None:
        """Forget the arrays collected since the last copy (with the lock held); a key kept again since, by a new
        array at the same address, stays."""
        while self._gone:
            key, token = self._gone.pop()
            kept = self._kept.get(key)
            if kept is not None and kept[1] is token:
                del self._kept[key]
                self._bytes -= key[1]
