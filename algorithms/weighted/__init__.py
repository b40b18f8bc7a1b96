"""Weighted matching (Hovland, MSc thesis 2020 and Naim's thesis (2017)): Suitor, Locally-Dominant, b-Suitor and ROMA
on the GPU backends,
their sequential references, and :func:`maximum_weight_matching`, which runs any of them.

- kernels: ``kernels_suitor`` (GPU-Suitor, Naim et al. (HiPC 2015) Alg. 4, its variants beside it; Suitor a thread per
  vertex, Alg. 3), ``kernels_ld`` (Locally-Dominant, Alg. 1–2), ``kernels_b_suitor`` (Manne et al., CSC 2016 §3),
  ``kernels_roma`` (ROMA's phases and atomicFlip, Hovland (MSc thesis 2020) Alg. 6–8) and ``swaps`` (the 4-cycle gain
  test);
- host drivers, registered with :mod:`gpusim.runtime.registry`: ``driver_suitor``, ``driver_ld``,
  ``driver_b_suitor``, ``driver_roma``, and ``complete`` (ROMA and RAMA on a sparse graph);
- sequential references (Numba): ``reference_greedy``, ``reference_suitor``, ``reference_ld``,
  ``reference_paths`` (PGA', GPA), ``reference_exact``, ``reference_b_suitor``, ``reference_augmentation``
  (RAMA, ROMA), with ``reference_common`` and ``start_matchings``;
- ``result`` (the result types and their assembly), ``offers`` (the graph on the device, two offers
  compared), and ``matching`` (:func:`maximum_weight_matching`, one call to the dispatcher).

Example
-------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
>>> suitor(g, backend="sim").mate.tolist(), locally_dominant(g, backend="sim").mate.tolist()
([-1, 2, 1, -1], [-1, 2, 1, -1])
>>> WEIGHTED_ALGORITHMS
('suitor', 'ld', 'greedy', 'pga', 'gpa', 'bsuitor', 'roma', 'rama')
"""

from gpusim.runtime.registry import names

# isort: off
# The order of these imports is the order the algorithms register in (WEIGHTED_ALGORITHMS, the CLI's
# list): the GPU algorithms of Naim (PhD thesis 2017), the sequential half-approximations, b-Suitor, then Hovland (MSc
# thesis 2020)'s.
from .driver_suitor import suitor
from .driver_ld import locally_dominant
from . import reference_greedy, reference_paths  # noqa: F401  (register greedy, pga, gpa)
from .driver_b_suitor import b_suitor
from . import complete  # noqa: F401  (registers roma and rama)
# isort: on
from .driver_roma import ROMA_BLOCK, roma
from .kernels_suitor import SUITOR_VARIANTS
from .matching import maximum_weight_matching
from .result import BMatchingResult, WeightedMatching, WeightedMatchingResult

#: Every weighted-matching algorithm by its CLI name, from the registry.
WEIGHTED_ALGORITHMS = names("weighted")

__all__ = [
    "ROMA_BLOCK", "SUITOR_VARIANTS", "WEIGHTED_ALGORITHMS", "BMatchingResult", "WeightedMatching",
    "WeightedMatchingResult", "b_suitor", "locally_dominant", "maximum_weight_matching", "roma", "suitor",
]
