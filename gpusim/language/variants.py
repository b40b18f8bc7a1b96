"""Kernel variants: the same kernel with some of the ``@device`` steps it calls replaced.

A paper's kernel calls its steps by name (``atomic_flip``, ``propose``, ...).  A variant — a
paper's own alternative (GPU-Suitor's four synchronisation schemes) or a zoo twin with one step
broken — is the kernel with those names bound to other device functions, wherever in the call
tree they are called: :func:`with_devices` makes it without copying a line of the kernel, and a
driver takes it through a ``kernels=`` argument.  The variant has the kernel's name, source and
signature; every backend binds it as it binds the original.

Example
-------
>>> import numpy as np
>>> from gpusim import Device, T, device, kernel
>>> @device
... def step(i):
...     return i + 1
>>> @device
... def double(i):
...     return 2 * i
>>> @kernel(signature="int32[:]")
... def apply(out):
...     out[T.gtid()] = step(T.gtid())
>>> dev = Device("sim", seed=0)
>>> out = dev.zeros(4, np.int32)
>>> _ = dev.launch(with_devices(apply, {"step": double}), grid=1, block=4, args=(out,))
>>> dev.to_host(out).tolist()
[0, 2, 4, 6]
"""

from __future__ import annotations

import types
from collections.abc import Mapping

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.language.kernels import DeviceFunction, Kernel, global_names

__all__ = ["device_names", "with_devices"]

_VARIANTS: dict[tuple, tuple] = {}


def device_names(compiled: Kernel | DeviceFunction) -> set[str]:
    """The names of every ``@device`` function ``compiled`` calls, directly or through others."""
    found: set[str] = set()
    pending = [compiled]
    while pending:
        fn = pending.pop().fn
        for name in global_names(fn.__code__):
            value = fn.__globals__.get(name)
            if isinstance(value, DeviceFunction) and name not in found:
                found.add(name)
                pending.append(value)
    return found


def with_devices(compiled: Kernel, replacements: Mapping[str, DeviceFunction]) -> Kernel:
    """``compiled`` with each ``@device`` function it calls by a name of ``replacements`` (at any depth)
    bound to the replacement; ``compiled`` itself when nothing changes.  The same variant comes back for the
    same replacements (the GPU backends compile it once).

    A name that ``compiled`` never calls, or a replacement that is not a ``@device`` function, is an
    ``InvalidArgument`` (``InvalidArgumentType``) naming it.
    """
    if not isinstance(replacements, Mapping):
        raise InvalidArgumentType(f"kernels must map device-function names to @device functions, got {replacements!r}")
    called = device_names(compiled)
    for name, value in replacements.items():
        if name not in called:
            raise InvalidArgument(f"kernels={{{name!r}: ...}}: {compiled.name} calls no device function {name!r} "
                                  f"(it calls {sorted(called)})")
        if not isinstance(value, DeviceFunction):
            raise InvalidArgumentType(f"kernels={{{name!r}: {value!r}}}: a replacement must be a @device function")
    changed = {name: value for name, value in replacements.items() if compiled.fn.__globals__.get(name) is not value}
    if not changed:
        return compiled
    key = (id(compiled), frozenset((name, id(value)) for name, value in changed.items()))
    if key not in _VARIANTS:
        variant = Kernel(_rebound(compiled.fn, changed, {}), check=False, intended_races=compiled.intended_races)
        variant.signature = compiled.signature
        _VARIANTS[key] = (variant, compiled, tuple(changed.values()))  # holding them keeps the ids unique
    return _VARIANTS[key][0]


def _rebound(fn: types.FunctionType, replacements: dict, done: dict) -> types.FunctionType:
    """``fn`` with globals in which the replaced names, and every device function reaching one, are rebound."""
    namespace = dict(fn.__globals__)
    for name in global_names(fn.__code__):
        value = fn.__globals__.get(name)
        if name in replacements:
            namespace[name] = replacements[name]
        elif isinstance(value, DeviceFunction) and device_names(value) & set(replacements):
            if id(value) not in done:
                done[id(value)] = DeviceFunction(_rebound(value.fn, replacements, done), check=False)
            namespace[name] = done[id(value)]
    made = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, fn.__closure__)
    made.__qualname__, made.__module__, made.__doc__ = fn.__qualname__, fn.__module__, fn.__doc__
    return made
