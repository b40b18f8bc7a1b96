"""The algorithms of the source papers, each written once against the kernel language ``T``.

One folder a problem family — :mod:`~gpusim.algorithms.bipartite` (maximum matching),
:mod:`~gpusim.algorithms.weighted` (weighted and b-matching), :mod:`~gpusim.algorithms.stable` (stable
marriage), :mod:`~gpusim.algorithms.louvain` (community detection) — and each algorithm registers itself
(:mod:`gpusim.runtime.registry`) when its family is imported; importing this package imports them all.

>>> from gpusim.runtime.registry import names
>>> sorted(names("communities"))
['blondel', 'louvain']
"""

from . import bipartite, louvain, stable, weighted  # noqa: F401  (the families register their algorithms)
