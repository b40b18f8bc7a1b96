"""The kernels one Louvain run launches, as a table, and variants of them with a helper replaced.

:func:`gpusim.algorithms.louvain.louvain` takes ``kernels=`` (a :class:`LouvainKernels`), so the bug zoo can
run the real driver with a broken twin of one ``@device`` helper (a hash-slot claim without CAS, a move
rule without ``C[j] < C[i]``) without copying any kernel and without a switch inside the paper's code:
:func:`louvain_kernels` rebinds the helper by name wherever the kernels' call trees reach it
(:func:`gpusim.language.variants.with_devices`).

>>> from gpusim.algorithms.louvain.hashing import insert
>>> louvain_kernels().move_subwarp.name, louvain_kernels(insert=insert).move_subwarp is PAPER.move_subwarp
('move_subwarp', True)
"""

from __future__ import annotations

from typing import NamedTuple

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.language.kernels import DeviceFunction, Kernel, global_names
from gpusim.language.variants import device_names, with_devices

from . import kernels_aggregate as aggregate
from . import kernels_move as move
from . import kernels_shuffle as shuffle

__all__ = ["PAPER", "SHUFFLES", "TABLES", "LouvainKernels", "kernel_table", "louvain_kernels"]


class LouvainKernels(NamedTuple):
    """The kernels that sum a vertex's (or community's) weights by community, in tables or by shuffles: those a zoo
    variant may replace."""

    move_subwarp: Kernel
    move_block_shared: Kernel
    move_block_global: Kernel
    move_thread: Kernel
    merge_warp: Kernel
    merge_block_shared: Kernel
    merge_block_global: Kernel
    merge_chunks: Kernel
    #: The kernel of §4.1's groups one to four (degrees up to 32, an entry a lane), with ``move_subwarp``'s
    #: signature: ``move_subwarp`` itself (the paper's tables) or :func:`~.kernels_shuffle.move_by_shuffles`.
    move_small: Kernel
    #: ``move_small`` for an unweighted input graph (its first level and the refinement): ``move_subwarp`` or
    #: :func:`~.kernels_shuffle.move_by_counts`, which reads no weight.
    move_small_unit: Kernel


#: The paper's kernels: ``louvain(..., kernels=PAPER)`` or ``kernels="paper"``.
PAPER = LouvainKernels(move.move_subwarp, move.move_block_shared, move.move_block_global, move.move_thread,
                       aggregate.merge_warp, aggregate.merge_block_shared, aggregate.merge_block_global,
                       aggregate.merge_chunks, move.move_subwarp, move.move_subwarp)
#: The paper's kernels, but the degrees up to 32 sum their communities' weights by shuffles, with no hash table
#: (:mod:`~.kernels_shuffle`): the default, the same decisions as :data:`PAPER` in less time (an H200, a random
#: geometric graph of 2^22 vertices: 7.9 ms against 15.1 ms in the first level's moves).
SHUFFLES = PAPER._replace(move_small=shuffle.move_by_shuffles, move_small_unit=shuffle.move_by_counts)
#: The tables by name, as the command line's ``--kernels`` gives them.
TABLES = {"paper": PAPER, "shuffles": SHUFFLES}


def kernel_table(kernels: LouvainKernels | str | None) -> LouvainKernels:
    """``kernels=`` as a table: ``None`` is :data:`SHUFFLES`, a name one of :data:`TABLES`'s; anything else is
    refused.

    >>> kernel_table("paper") is PAPER, kernel_table(None) is SHUFFLES
    (True, True)
    """
    if kernels is None:
        return SHUFFLES
    if isinstance(kernels, str):
        if kernels not in TABLES:
            raise InvalidArgument(f"kernels={kernels!r} is not one of {tuple(TABLES)} (or a LouvainKernels table)")
        return TABLES[kernels]
    if not isinstance(kernels, LouvainKernels):
        raise InvalidArgumentType(f"kernels must be a LouvainKernels table, got {type(kernels).__name__}")
    return kernels


def louvain_kernels(**helpers: DeviceFunction) -> LouvainKernels:
    """The paper's kernels with the named ``@device`` helpers (``insert=``, ``allowed=``, ...) replaced."""
    for name, helper in helpers.items():
        if not isinstance(helper, DeviceFunction):
            raise InvalidArgumentType(f"{name}= must be a @device function, got {helper!r}")
        if not any(name in global_names(f.fn.__code__) for f in _helpers_below(PAPER)):
            raise InvalidArgument(f"no Louvain kernel calls a helper named {name!r}")
    return LouvainKernels(*(with_devices(k, {n: f for n, f in helpers.items() if n in device_names(k)}) for k in PAPER))


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
