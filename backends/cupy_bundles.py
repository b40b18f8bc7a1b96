"""One NVRTC program per algorithm: the kernels of an algorithm's package compiled together, for CuPy.

A kernel's first compile with CuPy is mostly NVRTC parsing CuPy's headers, the same for every kernel: one program
holding every kernel of an algorithm's package costs about what one kernel alone costs (headless, NVRTC for
sm_90: Louvain's 31 kernels in one program 2.5 s, a single kernel 1.4-2.3 s, on a shared 2-core machine).  So the
first launch of a kernel of gpusim's algorithms, at its declared signature, compiles its whole package in one
program; CuPy's disk cache keeps that binary as it keeps any other, and every later launch in the process finds its
kernel compiled.

Each kernel's CUDA source (cupyx's, kept per machine by :func:`gpusim.backends.cupy.transpiled`) goes into a
namespace of its own, so the ``@device`` steps and helper templates that cupyx writes into every kernel's source
do not collide; the kernels stay ``extern "C"``, found by their names.  A kernel whose name another kernel of the
package shares, a ``kernels=`` variant, a user's kernel and a launch at other argument types are compiled alone.

Example
-------
>>> import gpusim.algorithms.louvain
>>> from gpusim.algorithms.louvain.kernels_aggregate import community_sizes
>>> names = [k.name for k in family(community_sizes)]      # Louvain's kernels, every file of its package
>>> "community_sizes" in names and "move_thread" in names
True
>>> source = bundle_source([{"code": '#include "a.cuh"\\nextern "C" __global__ void f() {}', "func_name": "f"}])
>>> print(source)
#include "a.cuh"
namespace gpusim_bundle_0 {
extern "C" __global__ void f() {}
}
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

__all__ = ["BUNDLED", "bundle_source", "family"]


#: Kernels of these packages (gpusim's algorithms, each package one program, and its runtime's checks of device
#: inputs, fills and scans that every call launches) are compiled a package at a time.
BUNDLED = ("gpusim.algorithms.", "gpusim.runtime")


def _package(kernel: Any) -> str | None:
    """The package whose program ``kernel`` belongs to, or None: a kernel defined in a file of one of
    :data:`BUNDLED` (checked when defined: not a ``kernels=`` variant, nor a mutant)."""
    package = kernel.fn.__module__.rpartition(".")[0]
    bundled = package.startswith(BUNDLED[0]) or package == BUNDLED[1]
    return package if bundled and kernel.checked and not kernel.filename.startswith("<") else None


def family(kernel: Any) -> list[Any]:
    """The kernels compiled in one program with ``kernel``: every registered kernel with a declared signature in the
    same package of gpusim's algorithms (or of its runtime), each name once, in a fixed order (so that the program's
    source, and CuPy's disk cache key, are the same in every process).  Empty where ``kernel`` is not one of them."""
    from gpusim.language.kernels import Kernel, registry

    package = _package(kernel)
    if kernel.signature is None or package is None:
        return []
    found = [k for k in registry() if isinstance(k, Kernel) and k.signature is not None and _package(k) == package]
    names = Counter(k.name for k in found)
    found = [k for k in found if names[k.name] == 1]
    return sorted(found, key=lambda k: (Path(k.filename).name, k.lineno)) if kernel in found else []


def bundle_source(transpiled: list[dict]) -> str:
    """One CUDA program of several kernels' cupyx sources: their preprocessor lines once, first, then each source
    in a namespace of its own."""
    directives: list[str] = []
    bodies: list[str] = []
    for index, result in enumerate(transpiled):
        lines = result["code"].split("\n")
        directives += [line for line in lines if line.startswith("#") and line not in directives]
        body = "\n".join(line for line in lines if not line.startswith("#"))
        bodies.append(f"namespace gpusim_bundle_{index} {{\n{body}\n}}")
    return "\n".join(directives + bodies)
