r"""How numba compiles gpusim's kernels: each index used as it is, never wrapped around; at most 64 registers a thread.

numba gives a signed index Python's meaning, ``a[-1]`` the last element: every access compares the index with 0 and
adds the array's length when it is below (in the PTX, a shift, an ``and`` and an add on 64 bits an access, and the
atomics' a compare and a select).  In ``T`` a negative index is never valid (the simulator stops a kernel at one,
:class:`~gpusim.errors.OutOfBounds`) and CuPy's C reads ``a[i]`` as it is, so gpusim compiles its kernels without
that step: under :func:`indices_as_given`, numba's lowering of an integer index (``arrayobj.fix_integer_index``) and
of an element's pointer (``cgutils.get_item_pointer2``, the atomics') leaves the index alone, on the compiling thread
only; a user's own numba kernels, compiled outside it, keep numba's meaning.

Every kernel is also limited to :data:`MAX_REGISTERS` registers a thread (numba's ``max_registers``), so that a block
of 1024 threads, the most a device allows, finds its registers (65,536 an SM): bipartite matching's one-block
``augment_in_one_block`` took 72 with its indices as given, and its launch of 1024 threads failed; with the limit, 64
and 24 bytes spilled (ptxas 13.0 for sm_90).  Every other kernel of gpusim's algorithms takes at most 60.  A
``launch_bounds`` of 1024 would do it too, but ptxas then gave that kernel 32 registers and 152 bytes of spills.

This module imports ``numba.cuda``; ``gpusim.backends.numba`` and :mod:`gpusim.runtime.compile` import it lazily.

Example
-------
>>> import re
>>> from gpusim import T, kernel
>>> from gpusim.runtime.compile import compile_ptx
>>> @kernel(signature="int32[:], int32[:], int32")
... def gather(src, out, n):
...     i = T.gtid()
...     if i < n:
...         out[i] = src[src[i]]
>>> re.search(r"shr\.s64\s+\S+, \S+, 63;", compile_ptx(gather, "numba")) is None  # no sign taken of an index
True
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from numba.cuda import cgutils, types
from numba.cuda.np import arrayobj

__all__ = ["MAX_REGISTERS", "indices_as_given"]

#: The registers a thread of every kernel may use (numba's ``max_registers``): a block of 1024 threads fits an SM.
MAX_REGISTERS = 64


def _install() -> threading.local:
    """Wrap numba's two functions once per process (this module may be imported under two names) and return the
    thread-local state they read: its ``depth`` above 0 while :func:`indices_as_given` is open on the thread."""
    installed = getattr(arrayobj.fix_integer_index, "gpusim_state", None)
    if installed is not None:
        return installed
    state = threading.local()
    fix_integer_index, get_item_pointer2 = arrayobj.fix_integer_index, cgutils.get_item_pointer2

    def as_given() -> bool:
        return getattr(state, "depth", 0) > 0

    def integer_index(context, builder, idxty, idx, size):
        if as_given() and isinstance(idxty, types.Integer) and idxty.signed:
            return context.cast(builder, idx, idxty, types.intp)
        return fix_integer_index(context, builder, idxty, idx, size)

    def item_pointer(context, builder, data, shape, strides, layout, inds, wraparound=False, boundscheck=False):
        return get_item_pointer2(context, builder, data, shape, strides, layout, inds,
                                 wraparound=wraparound and not as_given(), boundscheck=boundscheck)

    integer_index.gpusim_state = state
    arrayobj.fix_integer_index, cgutils.get_item_pointer2 = integer_index, item_pointer
    return state


_state = _install()


@contextlib.contextmanager
def indices_as_given() -> Iterator[None]:
    """Compile, on this thread, with every array index used as it is (no wraparound of a negative one)."""
    _state.depth = getattr(_state, "depth", 0) + 1
    try:
        yield
    finally:
        _state.depth -= 1
