"""Maximum-cardinality bipartite matching on GPUs: augmenting paths (Deveci et al., Euro-Par 2013) and push-relabel
(Deveci et al., ICPP 2013).

The kernels appear in the order of the papers' algorithms (Deveci et al., Euro-Par 2013, ICPP 2013: Deveci, Kaya, Uçar,
Çatalyürek, Euro-Par 2013 and ICPP 2013), written once in ``T``
(:mod:`~gpusim.algorithms.bipartite.kernels_bfs`, :mod:`~gpusim.algorithms.bipartite.kernels_push_relabel`);
the host loops :func:`apfb`, :func:`apsb` (:mod:`~gpusim.algorithms.bipartite.augmenting`) and
:func:`gpr` (:mod:`~gpusim.algorithms.bipartite.gpu_push_relabel`) are the papers' outer loops, written
once against :class:`~gpusim.Device`; the sequential references (cheap matching, Hopcroft-Karp,
Pothen-Fan, push-relabel) are compiled with Numba.  Every algorithm registers itself
(:mod:`gpusim.runtime.registry`); :func:`maximum_bipartite_matching` dispatches to them.  Rows are one
side and columns the other; ``rmatch[r]`` is the column matched to row ``r`` and ``cmatch[c]`` the
row matched to column ``c``, -1 when free.

Example
-------
>>> from gpusim.types.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0, 0, 1, 2], [0, 1, 0, 2])
>>> apfb(g, backend="sim").size, gpr(g, backend="sim").size, hopcroft_karp(g).stats["size"]
(3, 3, 3)
"""

# First: it imports the algorithms' modules in the order they register (the order of ALGORITHMS).
from .matching import ALGORITHMS, maximum_bipartite_matching

# isort: split
from gpusim.types.results import BipartiteMatching

from .augmenting import apfb, apsb
from .cheap import cheap_matching
from .gpu_push_relabel import gpr
from .kernels_bfs import alternate, fix_columns, fix_rows, gpubfs, gpubfs_wr, init_bfs_array
from .kernels_push_relabel import (
    compact_active,
    global_relabel_level,
    init_active,
    init_relabel,
    push_active,
    push_relabel_all,
)
from .reference_hk import hopcroft_karp
from .reference_pf import pothen_fan
from .reference_pr import push_relabel
from .result import MatchingResult

__all__ = [
    "ALGORITHMS", "BipartiteMatching", "MatchingResult", "alternate", "apfb", "apsb", "cheap_matching",
    "compact_active", "fix_columns", "fix_rows", "global_relabel_level", "gpr", "gpubfs", "gpubfs_wr",
    "hopcroft_karp", "init_active", "init_bfs_array", "init_relabel", "maximum_bipartite_matching", "pothen_fan",
    "push_active", "push_relabel", "push_relabel_all",
]
