"""A kernel's fingerprint: what its compiled binary depends on, as one digest, for the on-disk kernel caches.

A compiler's disk cache that keys a kernel by its own code alone would hand a variant the original's binary: a
variant (:func:`gpusim.language.variants.with_devices`, a driver's ``kernels=``) has the kernel's very code, name
and source line, only other ``@device`` steps bound into its globals, and numba freezes globals into the binary as
constants.  The fingerprint covers the kernel's code and, at any depth, every ``@device`` function it calls by a
global name (as bound: a replaced step counts, not the original), every constant global those read (a number, a
string, a tuple of them), and what the backend adds (its ``T`` module and compiler versions, through ``extra``).

>>> from gpusim import T, device, kernel
>>> from gpusim.language.variants import with_devices
>>> @device
... def step(i):
...     return i + 1
>>> @device
... def other(i):
...     return 2 * i
>>> @kernel(signature="int32[:]")
... def apply(out):
...     out[T.gtid()] = step(T.gtid())
>>> fingerprint(apply) == fingerprint(apply), fingerprint(apply) == fingerprint(with_devices(apply, {"step": other}))
(True, False)
>>> fingerprint(apply) == fingerprint(apply, "numba-cuda 0.30.4")
False
"""

from __future__ import annotations

import hashlib
import marshal
import types
from typing import Any

import numpy as np

from gpusim.language.kernels import DeviceFunction, Kernel, global_names

__all__ = ["fingerprint"]

_KEPT = "_gpusim_fingerprint"


def fingerprint(compiled: Kernel | DeviceFunction, *extra: str) -> str:
    """A hex digest of ``compiled``'s code, of every ``@device`` function bound into it (at any depth, as bound),
    of the constant globals they read, and of the strings ``extra``.  Worked out once per kernel object."""
    kept = compiled.__dict__.get(_KEPT)
    if kept is None:
        digest = hashlib.sha256()
        _visit(compiled.fn, digest, set())
        kept = compiled.__dict__[_KEPT] = digest.hexdigest()
    if not extra:
        return kept[:32]
    return hashlib.sha256("\n".join((kept, *extra)).encode()).hexdigest()[:32]


def _visit(fn: types.FunctionType, digest: Any, seen: set[int]) -> None:
    seen.add(id(fn))
    digest.update(marshal.dumps(fn.__code__))  # bytecode, constants, names and the code nested in it
    for name in sorted(global_names(fn.__code__)):
        if name == "T":
            continue  # the backend's language: the backend names it in ``extra``
        value = fn.__globals__.get(name)
        if isinstance(value, DeviceFunction):
            digest.update(f"\n{name} -> @device {value.qualname}\n".encode())
            if id(value.fn) not in seen:
                _visit(value.fn, digest, seen)
        else:
            digest.update(f"\n{name} = {_constant(value)}\n".encode())


def _constant(value: Any) -> str:
    """A global as the binary may freeze it: a constant's value; anything else by its kind (a module by name)."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes, np.generic)):
        return f"{type(value).__name__} {value!r}"
    if isinstance(value, tuple) and all(isinstance(v, (bool, int, float, str, np.generic)) for v in value):
        return repr(value)
    if isinstance(value, types.ModuleType):
        return f"module {value.__name__}"
    return f"{type(value).__module__}.{type(value).__qualname__}"
