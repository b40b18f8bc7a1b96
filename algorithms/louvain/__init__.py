"""Louvain community detection on the GPU (Naim et al., IPDPS 2017), written once in ``T``.

:func:`louvain` runs the paper's kernels (:mod:`.kernels_move`: Algorithms 1 and 2 with the degree buckets of
§4.1; :mod:`.kernels_aggregate`: Algorithm 3) on the simulator, Numba CUDA or CuPy, from a
:class:`LouvainGraph` (Matrix Market, SciPy, NetworkX, edge arrays, :func:`karate`); :mod:`.reference` holds
the sequential references (Blondel et al.'s original and the bucket-synchronous emulation the simulator
must equal).  The result, a :class:`CommunityResult`, checks itself against the input graph.

>>> from gpusim.algorithms.louvain import karate, louvain
>>> result = louvain(karate(), backend="sim")
>>> result.labels[:10].tolist(), round(result.modularity, 4)
([0, 0, 0, 0, 1, 1, 1, 0, 2, 2], 0.4198)
"""

from .driver import DIP_RULES, LAYOUTS, T_BIN, T_FINAL, gpu_louvain, louvain
from .graph import SYMMETRISE_RULES, LouvainGraph, karate, load_louvain_graph
from .reference import blondel_louvain, bucket_louvain
from .result import CommunityResult, check_partition, modularity

__all__ = [
    "DIP_RULES", "LAYOUTS", "SYMMETRISE_RULES", "T_BIN", "T_FINAL", "CommunityResult", "LouvainGraph",
    "blondel_louvain",
    "bucket_louvain", "check_partition", "gpu_louvain", "karate", "load_louvain_graph", "louvain", "modularity",
]
