"""The kernel language: ``T`` (the neutral interface), its members, and ``@kernel`` / ``@device``.

Modules: :mod:`~gpusim.language.members` (the table of operations), :mod:`~gpusim.language.interface`
(``T`` itself), :mod:`~gpusim.language.casts`, :mod:`~gpusim.language.kernels` (the decorators and the
binding of ``T`` to a backend), :mod:`~gpusim.language.subset` (what Python a kernel may use) and
:mod:`~gpusim.language.reductions` (warp reductions written in ``T``).

>>> from gpusim.language import MEMBERS
>>> MEMBERS["atomic_cas"].signature
'atomic_cas(array, index, expected, new) -> old'
"""

from gpusim.language.members import DTYPES, MEETINGS, MEMBERS, WARP_SIZE, Member

__all__ = ["DTYPES", "MEETINGS", "MEMBERS", "WARP_SIZE", "Member"]
