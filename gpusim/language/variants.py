"""Kernel variants: the same kernel with some of the ``@device`` steps it calls replaced.

A paper's kernel calls its steps by name (``atomic_flip``, ``propose``, ...).  A variant — a
paper's own alternative (GPU-Suitor's four synchronisation schemes) or a zoo twin with one step
broken — is the kernel with those names bound to other device functions, wherever in the call
tree they are called: :func:`with_devices` makes it without copying a line of the kernel.  The
variant has the kernel's name, source and signature; every backend binds it as it binds the original.

A host driver takes variants through one seam, ``kernels=``: :func:`kernel_table` turns the driver's
table of the paper's kernels and the caller's ``kernels=`` into the kernels to launch — a launched
kernel replaced whole, or a step replaced in every kernel that calls it.  Every registered algorithm
takes the same ``kernels=`` mapping through :func:`planted`: while it is planted, every launch of a
kernel of that name (or of a kernel calling a step of that name) launches the replacement, whichever
family's driver, host loop or utility launches it (:meth:`gpusim.runtime.device.Device.launch`).

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

import contextlib
import contextvars
import types
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.language.kernels import DeviceFunction, Kernel, global_names

__all__ = ["KernelsRefused", "Planting", "device_names", "kernel_table", "planted", "planting_now", "with_devices"]

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
    if not replacements:
        return compiled  # nothing to bind: no walk of the kernel's calls (drivers call this on every call)
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


def kernel_table(defaults: Mapping[str, Kernel], kernels: Any = None) -> dict[str, Kernel]:
    """The kernels a driver launches: ``defaults`` (the paper's, by name) with ``kernels`` applied.

    ``kernels`` maps the name of a launched kernel to a ``@kernel`` to launch in its place, or the name
    of a ``@device`` step to a ``@device`` function that replaces it in every kernel of the table that
    calls it (:func:`with_devices`).  Any other name is an ``InvalidArgument`` that lists the choices.

    >>> from gpusim import T, device, kernel
    >>> @device
    ... def step(out):
    ...     out[0] = 1
    >>> @device
    ... def other_step(out):
    ...     out[0] = 3
    >>> @kernel
    ... def paper(out):
    ...     step(out)
    >>> @kernel
    ... def twin(out):
    ...     out[0] = 2
    >>> kernel_table({"paper": paper}, {"paper": twin})["paper"].name
    'twin'
    >>> kernel_table({"paper": paper}, {"step": other_step})["paper"] is not paper
    True
    >>> kernel_table({"paper": paper}, {"papr": twin})
    Traceback (most recent call last):
    gpusim.errors.InvalidArgument: kernels={'papr': ...}: 'papr' is neither a kernel launched, ('paper',), nor a step...
    """
    table = dict(defaults)
    if kernels is None:
        return table
    if not isinstance(kernels, Mapping):
        raise InvalidArgumentType(
            f"kernels must be a dict from a kernel's (or a step's) name to its replacement, got {kernels!r}")
    steps = {}
    called = set().union(*(device_names(k) for k in table.values()))
    for name, replacement in kernels.items():
        if name in table:
            if not isinstance(replacement, Kernel):
                raise InvalidArgumentType(f"kernels[{name!r}] must be a function decorated with @kernel, "
                                          f"got {replacement!r}")
            table[name] = replacement
        elif name in called:
            steps[name] = replacement
        else:
            raise InvalidArgument(f"kernels={{{name!r}: ...}}: {name!r} is neither a kernel launched, "
                                  f"{tuple(table)}, nor a step they call, {sorted(called)}")
    if steps:
        for name, compiled in table.items():
            mine = {step: f for step, f in steps.items() if step in device_names(compiled)}
            table[name] = with_devices(compiled, mine) if mine else compiled
    return table


# -- one seam for every driver: a mapping planted while an algorithm runs -------------------------------------


class KernelsRefused(InvalidArgument):
    """A ``kernels=`` mapping that names no kernel launched and no step called, or pairs a name with the wrong
    kind of function: a usage error, never a bug of the kernels."""


class Planting:
    """A ``kernels=`` mapping in force (:func:`planted`): :meth:`resolve` is the kernel to launch in place of one.

    A ``@kernel`` replaces every launch of a kernel of its key's name; a ``@device`` function replaces the step
    of its key's name in every kernel launched that calls it (:func:`with_devices`), the replacement kernels
    included.  ``used`` gathers the names that took effect, ``seen`` the kernels launched (by name).
    """

    def __init__(self, kernels: Mapping[str, Any]):
        if not isinstance(kernels, Mapping):
            raise KernelsRefused(f"kernels must map a kernel's (or a step's) name to its replacement, "
                                 f"got {kernels!r}")
        for name, value in kernels.items():
            if not isinstance(name, str) or not isinstance(value, (Kernel, DeviceFunction)):
                raise KernelsRefused(f"kernels={{{name!r}: {value!r}}}: a replacement must be a @kernel or "
                                     f"@device function, by name")
        self.kernels = {name: value for name, value in kernels.items() if isinstance(value, Kernel)}
        self.steps = {name: value for name, value in kernels.items() if isinstance(value, DeviceFunction)}
        self.used: set[str] = set()
        self.seen: dict[str, Kernel] = {}
        self._made: dict[int, tuple[Kernel, Kernel]] = {}  # id of a launched kernel -> (it, what to launch)

    def resolve(self, kernel: Kernel) -> Kernel:
        """The kernel to launch in place of ``kernel`` (``kernel`` itself when nothing of it is replaced)."""
        made = self._made.get(id(kernel))
        if made is not None:
            return made[1]
        self.seen.setdefault(kernel.name, kernel)
        launched = self.kernels.get(kernel.name, kernel)
        if kernel.name in self.steps:
            raise KernelsRefused(f"kernels={{{kernel.name!r}: ...}}: {kernel.name!r} is a kernel launched, so its "
                                 f"replacement must be a @kernel, not a @device function")
        if launched is not kernel:
            self.used.add(kernel.name)
        called = device_names(launched)
        for name in called & set(self.kernels):
            raise KernelsRefused(f"kernels={{{name!r}: ...}}: {name!r} is a step {kernel.name} calls, so its "
                                 f"replacement must be a @device function, not a @kernel")
        mine = {name: value for name, value in self.steps.items() if name in called}
        if mine:
            launched = with_devices(launched, mine)
            self.used.update(mine)
        self._made[id(kernel)] = (kernel, launched)  # holding the kernel keeps its id unique
        return launched

    def check(self, declared: Iterable[Kernel] = ()) -> None:
        """Refuse (:class:`KernelsRefused`) a name that took no effect and names neither a kernel launched or
        ``declared`` (the kernels an algorithm may launch) nor a step one of them calls."""
        unused = set(self.kernels) | set(self.steps)
        unused -= self.used
        if not unused:
            return
        known = {**{k.name: k for k in declared if isinstance(k, Kernel)}, **self.seen}
        steps = set().union(*(device_names(k) for k in known.values())) if known else set()
        for name in sorted(unused):
            if name not in known and name not in steps:
                raise KernelsRefused(f"kernels={{{name!r}: ...}}: {name!r} is neither a kernel launched, "
                                     f"{tuple(sorted(known))}, nor a step they call, {sorted(steps)}")


_PLANTED: contextvars.ContextVar[Planting | None] = contextvars.ContextVar("planted_kernels", default=None)


def planting_now() -> Planting | None:
    """The mapping planted now (:func:`planted`), or ``None``: what every launch consults."""
    return _PLANTED.get()


@contextlib.contextmanager
def planted(kernels: Mapping[str, Any] | None, declared: Iterable[Kernel] = ()) -> Iterator[Planting | None]:
    """Plant ``kernels`` (a ``kernels=`` mapping) in every launch of the ``with`` block, then :meth:`Planting.check`
    it against the kernels launched and ``declared``.  ``None`` or ``{}`` plants nothing.

    >>> import numpy as np
    >>> from gpusim import Device, T, device, kernel
    >>> @device
    ... def step(i):
    ...     return i + 1
    >>> @device
    ... def triple(i):
    ...     return 3 * i
    >>> @kernel(signature="int32[:]")
    ... def apply(out):
    ...     out[T.gtid()] = step(T.gtid())
    >>> dev = Device("sim", seed=0)
    >>> out = dev.zeros(3, np.int32)
    >>> with planted({"step": triple}) as planting:
    ...     _ = dev.launch(apply, grid=1, block=3, args=(out,))
    >>> dev.to_host(out).tolist(), sorted(planting.used)
    ([0, 3, 6], ['step'])
    >>> with planted({"stpe": triple}):
    ...     _ = dev.launch(apply, grid=1, block=3, args=(out,))
    Traceback (most recent call last):
    gpusim.language.variants.KernelsRefused: kernels={'stpe': ...}: 'stpe' is neither a kernel launched, ...
    """
    if not kernels:
        yield None
        return
    planting = Planting(kernels)
    token = _PLANTED.set(planting)
    try:
        yield planting
    finally:
        _PLANTED.reset(token)
    planting.check(declared)
