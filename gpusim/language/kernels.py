"""``@kernel`` and ``@device``: write a function once, bind it to any backend's ``T``.

A kernel is a plain Python function that reaches the hardware only through the global name
``T``.  :func:`bind` clones the function with another ``T`` in its globals, and clones every
``@device`` helper it calls by name the same way, so one source runs on every backend.  The
portable-subset checker (:mod:`gpusim.language.subset`) runs when the decorator is applied: a kernel that
would not compile on a GPU is refused at once, with the file, line and rule.

Example
-------
>>> from gpusim import T, kernel
>>> @kernel
... def fill(out, n):
...     i = T.gtid()
...     if i < n:
...         out[i] = i
>>> fill.name
'fill'
"""

from __future__ import annotations

import functools
import re
import types
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.language.sources import getsourcelines

__all__ = [
    "KERNEL_DTYPES", "DeviceFunction", "Kernel", "Param", "RacesWithin", "array_names", "bind", "device", "kernel",
    "parse_signature", "race_scopes", "registry", "within",
]

_REGISTRY: list[_Compiled] = []
_ARRAY_LINE = re.compile(r"^\s*(\w+)\s*=\s*T\.(?:shared|local)_array\(")
_ARRAY_NAMES: dict[types.CodeType, dict[int, str]] = {}  # a decorated function's code -> {line: array name}


def array_names(code: types.CodeType) -> dict[int, str]:
    """The variables that ``T.shared_array``/``T.local_array`` lines of a decorated function assign, by line.

    Read from the source when the decorator ran, so they stay right where the source cannot be read
    again later (a doctest block that launches a kernel defined in an earlier block); ``{}`` for
    code that was never decorated.

    >>> from gpusim import T, kernel
    >>> @kernel
    ... def k(out):
    ...     buf = T.shared_array(4, T.i32)
    ...     out[0] = buf[0]
    >>> list(array_names(k.fn.__code__).values())
    ['buf']
    """
    return _ARRAY_NAMES.get(code, {})


def _record_array_names(fn: types.FunctionType) -> None:
    lines, first = getsourcelines(fn)
    _ARRAY_NAMES[fn.__code__] = {first + offset: match.group(1) for offset, line in enumerate(lines)
                                 if (match := _ARRAY_LINE.match(line))}


def name_arrays(fn: types.FunctionType, names: dict[int, str]) -> None:
    """Set the variables that ``fn``'s ``T.shared_array``/``T.local_array`` lines assign, by line, for code
    compiled from a syntax tree whose text does not keep its line numbers (a mutant of
    :mod:`gpusim.explore.mutate`, whose text is ``ast.unparse``'s): read from that text, a line would name
    another array, and the race detector would judge an access by another array's declared races."""
    _ARRAY_NAMES[fn.__code__] = dict(names)


class _Compiled:
    """What ``@kernel`` and ``@device`` share: the source function and its bindings."""

    is_kernel = False

    def __init__(self, fn: Callable, check: bool = True, signature: str | None = None,
                 intended_races: dict[str, str] | None = None):
        if not isinstance(fn, types.FunctionType):
            raise InvalidArgumentType(
                f"@{self._decorator()} expects a plain Python function, got {type(fn).__name__}: {fn!r}"
            )
        self.fn = fn
        self.name = fn.__name__
        self.qualname = f"{fn.__module__}.{fn.__qualname__}"
        self.filename = fn.__code__.co_filename
        self.lineno = fn.__code__.co_firstlineno
        self.params = fn.__code__.co_varnames[: fn.__code__.co_argcount]
        self.signature = None if signature is None else parse_signature(signature, self.params, self.name)
        self.intended_races = _check_intended_races(intended_races, self.name)
        functools.update_wrapper(self, fn)
        from gpusim.language.subset import check_function, source_available

        # Code typed at a plain Python prompt has no source to check; it still runs on the
        # simulator, and the GPU backends say so if they need the source.
        available = source_available(fn)
        self.checked = check and available
        if self.checked:
            check_function(fn, is_kernel=self.is_kernel)
        if available:
            _record_array_names(fn)
        _REGISTRY.append(self)

    @classmethod
    def _decorator(cls) -> str:
        return "kernel" if cls.is_kernel else "device"

    def __repr__(self) -> str:
        return f"<{self._decorator()} {self.qualname} at {self.filename}:{self.lineno}>"


class Kernel(_Compiled):
    """A function decorated with :func:`kernel`; launch it with :meth:`gpusim.Device.launch`."""

    is_kernel = True

    def __call__(self, *args: Any, **kwargs: Any):
        raise TypeError(
            f"kernel {self.name!r} cannot be called directly; launch it with "
            f"Device.launch({self.name}, grid=..., block=..., args=(...))"
        )


class DeviceFunction(_Compiled):
    """A function decorated with :func:`device`: callable from kernels and other device functions."""

    def __call__(self, *args: Any, **kwargs: Any):
        raise TypeError(
            f"device function {self.name!r} can only be called from a kernel or another device function"
        )


def kernel(fn: Callable | None = None, *, signature: str | None = None, check: bool = True,
           intended_races: dict[str, str] | None = None) -> Kernel:
    """Mark ``fn`` as a kernel written against ``T``.

    Parameters
    ----------
    fn:
        The kernel function.  Its parameters are device arrays and scalars.
    signature:
        The parameters' types, e.g. ``"int32[:], int32"`` (NumPy dtype names; ``[:]`` marks a
        1-D array).  Optional for the simulator; with it, :meth:`gpusim.Device.launch` checks the
        arguments, and the kernel can be compiled headless for every GPU backend.  Every kernel
        in ``gpusim.algorithms`` has one.
    check:
        Run the portable-subset checker now (default).  ``check=False`` is for the bug zoo's
        deliberately broken kernels that the checker would refuse, never for real kernels.
    intended_races:
        Races the kernel has on purpose (the papers' kernels race and repair afterwards): a dict
        from a kernel parameter or shared-array name to why.  The simulator's race detector
        (``Device("sim", races="report")``) does not report a race on those arrays.  A plain reason
        covers every race on the array anywhere in the kernel; ``within(step, ..., why=...)``
        (:func:`within`) covers only the races between two accesses made inside one of those
        ``@device`` steps, so that a kernel running several steps between barriers still has a race
        across two steps (a missing barrier) reported.

    Example
    -------
    >>> from gpusim import T
    >>> @kernel(intended_races={"seen": "any thread's mark will do"})
    ... def mark(seen):
    ...     seen[0] = T.gtid()
    >>> mark.intended_races
    {'seen': "any thread's mark will do"}
    """
    if fn is None:
        return functools.partial(kernel, signature=signature, check=check,  # type: ignore[return-value]
                                 intended_races=intended_races)
    return Kernel(fn, check=check, signature=signature, intended_races=intended_races)


def device(fn: Callable | None = None, *, check: bool = True) -> DeviceFunction:
    """Mark ``fn`` as a device helper that kernels (and other helpers) call by its global name."""
    if fn is None:
        return functools.partial(device, check=check)  # type: ignore[return-value]
    return DeviceFunction(fn, check=check)


class RacesWithin(str):
    """An ``intended_races`` reason that holds only inside some ``@device`` steps (made by :func:`within`).

    It is the reason as a ``str`` (the reason, then the steps' names), so everything that reads a reason
    reads it; ``phases`` holds the steps' names.
    """

    phases: tuple[str, ...]

    def __new__(cls, why: str, phases: tuple[str, ...]):
        made = super().__new__(cls, f"{why} (within {', '.join(phases)} only)")
        made.phases = phases
        return made

    def __reduce__(self):  # pickled (a Dask worker) as what it is, not as a plain str
        return _races_within, (str(self), self.phases)


def _races_within(text: str, phases: tuple[str, ...]) -> RacesWithin:
    made = str.__new__(RacesWithin, text)
    made.phases = phases
    return made


def within(*steps: DeviceFunction, why: str) -> RacesWithin:
    """An ``intended_races`` entry whose races are intended only inside ``steps``.

    A race on the array (two unordered accesses, one a plain write) is then not reported when both
    accesses are made inside one of ``steps`` (in its body or a helper it calls), and reported otherwise:
    a step's races are what the paper intends, and a race between two steps, or between a step and the
    kernel's own code, is a missing barrier.  The steps are named by their function name, as the kernel
    calls them.  Simulator-only metadata: the GPU backends compile the same source and ignore it.

    Example
    -------
    >>> from gpusim import T, device, kernel
    >>> @device
    ... def mark(seen):
    ...     seen[0] = T.gtid()
    >>> @kernel(intended_races={"seen": within(mark, why="any thread's mark will do")})
    ... def marks(seen, out):
    ...     mark(seen)
    ...     T.syncthreads()
    ...     out[T.gtid()] = seen[0]
    >>> marks.intended_races["seen"], marks.intended_races["seen"].phases
    ("any thread's mark will do (within mark only)", ('mark',))
    """
    if not steps or not all(isinstance(step, DeviceFunction) for step in steps):
        raise InvalidArgumentType(f"within() takes one or more @device functions, got {steps!r}")
    if not isinstance(why, str) or not why:
        raise InvalidArgumentType(f"within() needs why=, the reason the races are intended, got {why!r}")
    return RacesWithin(why, tuple(step.name for step in steps))


def race_scopes(intended_races: dict[str, str]) -> dict[str, tuple[str, ...] | None]:
    """Where each declared array's races are intended: ``None`` anywhere in the kernel, else the steps'
    names (:func:`within`).

    >>> race_scopes({"a": "why"})
    {'a': None}
    """
    return {array: getattr(why, "phases", None) for array, why in intended_races.items()}


def _check_intended_races(intended_races, name: str) -> dict[str, str]:
    if intended_races is None:
        return {}
    if not isinstance(intended_races, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in intended_races.items()):
        raise InvalidArgumentType(
            f"intended_races of kernel {name!r} must be a dict from an array name to why its races are "
            f"intended (a str, or within(step, ..., why=...)), got {intended_races!r}")
    return dict(intended_races)


class Param(NamedTuple):
    """One parameter of a kernel signature: its NumPy dtype, and whether it is a 1-D array."""

    name: str
    dtype: np.dtype
    is_array: bool

    def __str__(self) -> str:
        return f"{self.dtype.name}[:]" if self.is_array else self.dtype.name


#: The dtypes kernels may take, as arrays or scalars.
KERNEL_DTYPES = tuple(np.dtype(d) for d in ("int32", "int64", "uint32", "uint64", "float32", "float64"))


def parse_signature(signature: str, params: tuple[str, ...], name: str) -> tuple[Param, ...]:
    """Parse ``"int32[:], float64"`` into one :class:`Param` per parameter of kernel ``name``."""
    if not isinstance(signature, str):
        raise InvalidArgumentType(f"signature must be a string like 'int32[:], int32', got {signature!r}")
    parts = [part.strip() for part in signature.split(",")] if signature.strip() else []
    if len(parts) != len(params):
        raise InvalidArgument(
            f"signature={signature!r} of kernel {name!r} has {len(parts)} types for {len(params)} "
            f"parameters {params}"
        )
    parsed = []
    for param, part in zip(params, parts, strict=True):
        is_array = part.endswith("[:]")
        dtype_name = part[:-3].strip() if is_array else part
        try:
            dtype = np.dtype(dtype_name)
        except TypeError:
            dtype = None
        if dtype not in KERNEL_DTYPES:
            allowed = ", ".join(d.name for d in KERNEL_DTYPES)
            raise InvalidArgument(
                f"signature={signature!r} of kernel {name!r}: type {part!r} of parameter {param!r} is not "
                f"one of {allowed} (append [:] for an array)"
            )
        parsed.append(Param(param, dtype, is_array))
    return tuple(parsed)


def registry() -> list[Kernel | DeviceFunction]:
    """Every kernel and device function defined so far, in definition order."""
    return list(_REGISTRY)


def bind(
    compiled: _Compiled,
    language: types.ModuleType,
    wrap_device: Callable[[types.FunctionType], Any] = lambda f: f,
    _cache: dict | None = None,
    clone: Callable[[types.FunctionType, dict], types.FunctionType] | None = None,
) -> types.FunctionType:
    """Clone ``compiled.fn`` with ``T`` bound to ``language``.

    Every ``@device`` function the clone refers to by a global name is bound the same way and
    passed through ``wrap_device`` (the numba backend compiles it as an inlined device function;
    the simulator uses the plain clone).  ``clone(fn, namespace)`` makes each clone (default: the
    same code with the new globals; the lockstep warp mode rewrites the source).  Clones are
    memoised per call through ``_cache``.
    """
    cache = {} if _cache is None else _cache
    if id(compiled) in cache:
        return cache[id(compiled)]
    fn = compiled.fn
    namespace = dict(fn.__globals__)
    namespace["T"] = language
    made = cache[id(compiled)] = (clone or _same_code)(fn, namespace)
    for name in global_names(fn.__code__):
        value = fn.__globals__.get(name)
        if isinstance(value, DeviceFunction):
            namespace[name] = wrap_device(bind(value, language, wrap_device, cache, clone))
    return made


def _same_code(fn: types.FunctionType, namespace: dict) -> types.FunctionType:
    """``fn``'s code with other globals."""
    made = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, fn.__closure__)
    made.__qualname__ = fn.__qualname__
    made.__module__ = fn.__module__
    made.__doc__ = fn.__doc__
    made.__wrapped__ = fn  # type: ignore[attr-defined]  (inspect.getsource finds the real source)
    return made


def global_names(code: types.CodeType) -> set[str]:
    """Every global name ``code`` (and the code objects nested in it) refers to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= global_names(const)
    return names
