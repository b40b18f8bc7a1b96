"""The algorithms of the source papers, each written once against the kernel language ``T``.

One folder a problem family — :mod:`~gpusim.algorithms.bipartite` (maximum matching),
:mod:`~gpusim.algorithms.weighted` (weighted and b-matching), :mod:`~gpusim.algorithms.stable` (stable
marriage), :mod:`~gpusim.algorithms.louvain` (community detection) — and each algorithm registers itself
(:mod:`gpusim.runtime.registry`) when its family is imported.  Importing this package imports no family: the
registry imports a problem's family when it is first asked about that problem, so a command about one problem
pays for no other (``gpusim stable`` imports no Louvain); ``gpusim.algorithms.louvain`` and the like import one.

>>> from gpusim.runtime.registry import names
>>> sorted(names("communities"))
['blondel', 'louvain']
"""

from functools import partial
from importlib import import_module

from gpusim.runtime.registry import defer

#: The family (subpackage) that registers each problem's algorithms.
FAMILIES = {"bipartite": "bipartite", "weighted": "weighted", "stable": "stable", "communities": "louvain"}

for _problem, _family in FAMILIES.items():
    defer(_problem, partial(import_module, f"{__name__}.{_family}"))


def __getattr__(name: str):
    """``gpusim.algorithms.louvain`` and its siblings, imported when first read."""
    if name in FAMILIES.values():
        return import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
