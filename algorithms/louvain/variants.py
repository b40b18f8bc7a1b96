"""The kernels one Louvain run launches, as a table, and variants of them with a helper replaced.

:func:`gpusim.algorithms.louvain.louvain` takes ``kernels=`` (a :class:`LouvainKernels`), so the bug zoo can
run the real driver with a broken twin of one ``@device`` helper (a hash-slot claim without CAS, a move
rule without ``C[j] < C[i]``) without copying any kernel and without a switch inside the paper's code:
:func:`louvain_kernels` rebinds the helper by name wherever the kernels' call trees reach it.

>>> from gpusim.algorithms.louvain.hashing import insert
>>> louvain_kernels().move_subwarp.name, louvain_kernels(insert=insert).move_subwarp is PAPER.move_subwarp
('move_subwarp', True)
"""

from __future__ import annotations

import types
from typing import NamedTuple

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.language.kernels import DeviceFunction, Kernel, global_names

from . import kernels_aggregate as aggregate
from . import kernels_move as move

__all__ = ["PAPER", "LouvainKernels", "louvain_kernels", "with_helpers"]


class LouvainKernels(NamedTuple):
    """The kernels that touch the hash tables: those a zoo variant may replace."""

    move_subwarp: Kernel
    move_block_shared: Kernel
    move_block_global: Kernel
    move_thread: Kernel
    merge_warp: Kernel
    merge_block_shared: Kernel
    merge_block_global: Kernel


#: The paper's kernels.
PAPER = LouvainKernels(move.move_subwarp, move.move_block_shared, move.move_block_global, move.move_thread,
                       aggregate.merge_warp, aggregate.merge_block_shared, aggregate.merge_block_global)

_MADE: dict[tuple, Kernel | DeviceFunction] = {}


def with_helpers(compiled: Kernel | DeviceFunction, replacements: dict[str, DeviceFunction]
                 ) -> Kernel | DeviceFunction:
    """``compiled`` with every ``@device`` helper named in ``replacements`` replaced, at any depth of its calls.

    The same code object runs (its source, file and lines are the original's); only the globals differ.
    Returns ``compiled`` itself when nothing it calls is replaced.  Variants are made once and remembered.
    """
    key = (id(compiled), tuple(sorted((name, id(f)) for name, f in replacements.items())))
    if key in _MADE:
        return _MADE[key]
    fn = compiled.fn
    namespace = dict(fn.__globals__)
    changed = False
    for name in sorted(global_names(fn.__code__)):
        value = fn.__globals__.get(name)
        if name in replacements and value is not replacements[name]:
            namespace[name] = replacements[name]
            changed = True
        elif isinstance(value, DeviceFunction):
            inner = with_helpers(value, replacements)
            if inner is not value:
                namespace[name] = inner
                changed = True
    if not changed:
        return compiled
    clone = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, fn.__closure__)
    clone.__qualname__, clone.__module__, clone.__doc__ = fn.__qualname__, fn.__module__, fn.__doc__
    if isinstance(compiled, Kernel):
        signature = None if compiled.signature is None else ", ".join(str(p) for p in compiled.signature)
        made: Kernel | DeviceFunction = Kernel(clone, signature=signature, intended_races=compiled.intended_races)
    else:
        made = DeviceFunction(clone)
    _MADE[key] = made
    return made


def louvain_kernels(**helpers: DeviceFunction) -> LouvainKernels:
    """The paper's kernels with the named ``@device`` helpers (``insert=``, ``allowed=``, ...) replaced."""
    for name, helper in helpers.items():
        if not isinstance(helper, DeviceFunction):
            raise InvalidArgumentType(f"{name}= must be a @device function, got {helper!r}")
        if not any(name in global_names(f.fn.__code__) for f in _helpers_below(PAPER)):
            raise InvalidArgument(f"no Louvain kernel calls a helper named {name!r}")
    return LouvainKernels(*(with_helpers(k, helpers) for k in PAPER))


def _helpers_below(table: LouvainKernels) -> list[Kernel | DeviceFunction]:
    seen: dict[int, Kernel | DeviceFunction] = {}
    todo: list[Kernel | DeviceFunction] = list(table)
    while todo:
        item = todo.pop()
        if id(item) in seen:
            continue
        seen[id(item)] = item
        todo.extend(v for v in (item.fn.__globals__.get(n) for n in global_names(item.fn.__code__))
                    if isinstance(v, DeviceFunction))
    return list(seen.values())
