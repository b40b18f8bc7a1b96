"""The ``kernels=`` seam: a host driver launches the paper's kernels, or the variants it is given instead.

A driver names the kernels it launches (by the paper kernel's name) and takes ``kernels=`` — a dict
from such a name to the kernel to launch in its place.  The bug zoo, the tests and the tutorials
pass a broken twin in this way; the paper's kernel stays as the paper writes it, with no switch
inside and no copy of the driver.

>>> from gpusim import T, kernel
>>> @kernel
... def paper(out):
...     out[0] = 1
>>> @kernel
... def twin(out):
...     out[0] = 2
>>> kernel_table({"paper": paper}, {"paper": twin})["paper"].name
'twin'
>>> kernel_table({"paper": paper}, {"papr": twin})
Traceback (most recent call last):
gpusim.errors.InvalidArgument: kernels={'papr': ...}: 'papr' is not one of the kernels launched, ('paper',)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.language.kernels import Kernel

__all__ = ["kernel_table"]


def kernel_table(defaults: Mapping[str, Kernel], kernels: Any = None) -> dict[str, Kernel]:
    """``defaults`` (the paper's kernels, by name) with each kernel of ``kernels`` launched in its place."""
    table = dict(defaults)
    if kernels is None:
        return table
    if not isinstance(kernels, Mapping):
        raise InvalidArgumentType(
            f"kernels must be a dict from a kernel's name to the kernel to launch in its place, got {kernels!r}")
    for name, replacement in kernels.items():
        if name not in table:
            raise InvalidArgument(
                f"kernels={{{name!r}: ...}}: {name!r} is not one of the kernels launched, "
                f"{tuple(table)}")
        if not isinstance(replacement, Kernel):
            raise InvalidArgumentType(f"kernels[{name!r}] must be a function decorated with @kernel, "
                                      f"got {replacement!r}")
        table[name] = replacement
    return table
