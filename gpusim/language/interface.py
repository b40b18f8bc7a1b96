"""``T`` as one neutral interface (``gpusim.T``): the operations a kernel may use, documented once.

A kernel names the hardware only through the global ``T``.  This module is what ``T`` is when a
kernel is *written*: every member of :data:`~gpusim.language.members.MEMBERS`, with its signature
and meaning.  When a kernel is *launched*, the backend binds its own implementation in its place
(the simulator's, Numba CUDA's or CuPy's; :func:`gpusim.language.kernels.bind`), so importing
``gpusim`` loads no simulator and no GPU compiler.  Outside a launch only the casts work; every
other member says where it belongs.

>>> from gpusim import T
>>> T.i32(2**31), T.u64(-1)
(-2147483648, 18446744073709551615)
>>> T.atomic_add.__doc__
'atomic_add(array, index, value) -> old: i32, u32, u64, f32, f64'
>>> T.syncthreads()
Traceback (most recent call last):
gpusim.errors.GpusimError: T.syncthreads() was called outside a kernel launch; launch kernels with Device.launch
"""

from __future__ import annotations

from collections.abc import Callable

from gpusim.errors import GpusimError
from gpusim.language.casts import CASTS
from gpusim.language.members import MEMBERS

__all__ = sorted(MEMBERS)  # noqa: PLE0605  (the members, defined below from the table)


def _outside_a_launch(name: str) -> Callable:
    def member(*args, **kwargs):
        raise GpusimError(f"T.{name}() was called outside a kernel launch; launch kernels with Device.launch")

    member.__name__ = member.__qualname__ = name
    member.__doc__ = f"{MEMBERS[name].signature}: {MEMBERS[name].doc}"
    return member


globals().update({name: CASTS.get(name) or _outside_a_launch(name) for name in MEMBERS})
