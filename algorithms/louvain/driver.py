"""Louvain community detection on the GPU (Naim et al., IPDPS 2017): the host's outer loop over the kernels.

Each level runs the modularity optimisation of Algorithm 1 (:mod:`.kernels_move`, :mod:`.kernels_apply`) and then
the aggregation of Algorithm 3 (:mod:`.kernels_aggregate`), until a level gains less modularity than
``threshold`` (``t_final = 1e-6``) or merges nothing.  As in §4 and §5.1, a phase's sweeps stop at the larger
``bin_threshold`` (``t_bin = 1e-2``) while the graph has more than ``bin_vertices`` (100,000) vertices and at
``threshold`` below.  Only vertices with an edge count: an isolated vertex never moves and costs a sweep
nothing, but it stays a vertex of every level, and an R-MAT graph's millions of them kept ``t_bin`` in force
to the last level.  ``t_bin`` ends a *phase* early (Alg. 1 line 12), never the outer loop, whose threshold
§4 calls "some predefined threshold".  Ending the outer loop at ``t_bin`` too stopped an R-MAT graph of 10^8
edges after two levels at modularity 0.04, its 8.4 million vertices still 4.6 million communities.
By default three rules of GVE-Louvain (Sahu 2025) replace or add to the paper's: the stopping gain falls tenfold
a level, a sweep after the first looks only at the neighbours of the last sweep's movers, and no level follows one
that kept more than 80 % of its vertices (:func:`gpu_louvain`'s ``tolerance_drop``, ``prune`` and
``aggregation_tolerance``; ``None``, ``False``, ``None`` give the paper's).
The host only launches kernels and reads counters back; every array stays on the device.

Parallel moves decide from the same state, so one sweep can *lower* modularity; each phase keeps
the best partition it has seen (a copy of ``C`` on the device), so every level is at least as good as
the one before it.  Two ideas of [16] that §4 says it uses control the moves: the singleton rule
``C[j] < C[i]`` checked on the best community found (a singleton whose best move is to a singleton of
higher id stays; :func:`~.hashing.allowed`), and vertex following (a vertex with one neighbour starts each
phase in that neighbour's community; :func:`~.kernels_move.follow_leaves`), both as in the authors' CUDA code.

References
----------
.. [003] M. Naim, "GPU algorithms for matching and clustering", PhD thesis, Bergen 2017, Naim et al. (IPDPS 2017):
   M. Naim, F. Manne, M. Halappanavar, A. Tumeo, "Community detection on the GPU", IPDPS 2017 (reprinted in Naim's PhD
   thesis, 2017).
.. [16] H. Lu, M. Halappanavar, A. Kalyanaraman, "Parallel heuristics for scalable community detection",
   Parallel Computing 47, 2015 (Naim et al., IPDPS 2017's reference [16]).

Example
-------
>>> from gpusim.algorithms.louvain.graph import karate
>>> result = louvain(karate(), backend="sim", seed=1)
>>> result.n_communities, round(result.modularity, 4), result.valid
(4, 0.4198, True)
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.runtime.device import Device, choose_backend
from gpusim.runtime.dispatch import dispatch
from gpusim.runtime.launcher import Launcher, own_device
from gpusim.runtime.launcher import fill as fill_int32
from gpusim.runtime.registry import lookup, register
from gpusim.runtime.resident_graphs import device_backend, resident
from gpusim.runtime.threads import engine_threads
from gpusim.types.arguments import check_int, check_seed
from gpusim.types.device_graphs import DeviceWeightedGraph

from . import kernels_aggregate as agg
from . import kernels_apply as ap
from . import kernels_move as mv
from .asynchronous import asynchronous_louvain
from .contraction import Contraction
from .degree_groups import DegreeGroups
from .device_input import device_facts, host_facts, louvain_input
from .graph import LouvainGraph, load_louvain_graph
from .hashing import prime_table
from .host_levels import HOST_LEVELS, finish_on_host
from .move_launches import MoveLaunches
from .reference import bucket_bounds, bucket_louvain, dip_rule_for, enough, goes_conflict_free, phase_limit
from .result import CommunityResult
from .variants import PAPER, SHUFFLES, LouvainKernels, kernel_table

__all__ = ["AGGREGATION_TOLERANCE", "BIN_VERTICES", "CPU_METHODS", "DIP_RULES", "LAYOUTS", "PAPER_RULES", "T_BIN",
           "T_FINAL", "TOLERANCE_DROP", "aggregate", "louvain"]

#: ``layout=``: the paper's degree buckets (threads scale with the degree) or one thread per vertex.
LAYOUTS = ("buckets", "thread")
#: ``dip_rule=``: after a sweep that lowers modularity, go on with conflict-free sweeps, or stop (Alg. 1).
DIP_RULES = ("early", "independent", "paper")
#: The thresholds of §5 and the graph size above which the larger applies.
T_FINAL, T_BIN, BIN_VERTICES = 1e-6, 1e-2, 100_000
#: ``tolerance_drop``: each level's stopping gain this many times smaller than the level before's.
TOLERANCE_DROP = 10.0
#: ``aggregation_tolerance``: no further level once one keeps more than this share of its vertices (with an edge).
AGGREGATION_TOLERANCE = 0.8
#: The options that give the paper's stopping rules and sweeps over every vertex (GVE-Louvain's three rules off).
PAPER_RULES = {"tolerance_drop": None, "prune": False, "aggregation_tolerance": None}


def louvain(graph: object, *, algorithm: str = "louvain", backend: str = "auto", device: Device | None = None,
            **options) -> CommunityResult:
    """Communities of ``graph`` by ``algorithm`` on ``backend``: the registry's ``"communities"`` problem.

    ``algorithm="louvain"`` (the default) is the GPU method of Naim et al. (IPDPS 2017)
    (:func:`gpu_louvain`, whose options it takes); ``"blondel"`` is the original sequential Louvain
    method (:func:`~gpusim.algorithms.louvain.reference.blondel_louvain`, on ``cpu``).  ``graph`` is a
    :class:`~gpusim.algorithms.louvain.graph.LouvainGraph` or anything
    :func:`~gpusim.algorithms.louvain.graph.load_louvain_graph` takes; ``device`` (a
    :class:`gpusim.Device`) wins over ``backend`` for the GPU method.  ``stats["chosen"]`` says what ran.

    The GPU method also takes a graph already in device memory, with no copy in: a
    :class:`~gpusim.types.device_graphs.DeviceWeightedGraph` (no self-loops) or a ``cupyx.scipy.sparse`` matrix
    (:mod:`~gpusim.algorithms.louvain.device_input`); ``"auto"`` runs on the device that holds it, and the
    result keeps it as its input (copied to the host only when the result is checked).

    >>> from gpusim.algorithms.louvain import karate
    >>> round(louvain(karate(), algorithm="blondel").modularity, 4)
    0.4188
    >>> from gpusim import Device
    >>> from gpusim.runtime.resident_graphs import to_device
    >>> from gpusim.types.graphs import WeightedGraph
    >>> on_sim = to_device(Device("sim"), WeightedGraph.from_edges([0, 1, 2, 3], [1, 2, 3, 0], [5.0, 1.0, 5.0, 1.0]))
    >>> r = louvain(on_sim, seed=1)
    >>> r.labels.tolist(), round(r.modularity, 4), r.backend, r.valid
    ([0, 0, 1, 1], 0.3333, 'sim', True)
    """
    graph = louvain_input(graph)
    if device is not None and not isinstance(device, Device):
        raise InvalidArgumentType(f"device must be a gpusim.Device, got {device!r}")
    gpu = lookup("communities", algorithm).gpu
    if isinstance(graph, DeviceWeightedGraph):
        if not gpu:
            raise InvalidArgument(f"{algorithm!r} needs a host graph (the graph lives in {graph.memory} memory); "
                                  "the GPU method 'louvain' takes a device-resident graph")
        backend = backend if device is not None else device_backend(graph, backend)
    on_device = device is not None and gpu
    if on_device:
        options["device"] = device
    given = graph
    graph = graph.in_normal_range() if isinstance(graph, LouvainGraph) else graph
    result = dispatch("communities", graph, algorithm, device.backend if on_device else backend,
                      size=int(graph.adj.shape[0]), **options)  # no copy of a device graph
    result.graph = given  # checked against the input as given
    if on_device:
        result.stats["chosen"] = "the device given"
    return result


@register("communities", "louvain", backends=("sim", "numba", "cupy", "cpu"),
          title="GPU Louvain: hash tables per vertex, threads per vertex by degree, contraction on the device",
          paper="naim2017louvain", where="Algorithms 1-3",
          guarantees="a partition; modularity of the result at least that of every earlier level",
          kernels=tuple(dict.fromkeys((*PAPER, *SHUFFLES))))
def gpu_louvain(graph: LouvainGraph | DeviceWeightedGraph, backend: str = "auto", *, resolution: float = 1.0,
                threshold: float = T_FINAL, bin_threshold: float = T_BIN, bin_vertices: int = BIN_VERTICES,
                seed: int | None = None, layout: str = "buckets", dip_rule: str = "early",
                follow_leaves: bool = True, refine: bool = True, tolerance_drop: float | None = TOLERANCE_DROP,
                prune: bool = True, aggregation_tolerance: float | None = AGGREGATION_TOLERANCE,
                progress: bool = False,
                device: Device | None = None, kernels: LouvainKernels | str | None = None,
                cpu_method: str | None = None, degree_buckets=mv.DEGREE_BUCKETS,
                community_buckets=agg.COMMUNITY_BUCKETS, max_grid: int | None = None,
                host_levels: int | None = None) -> CommunityResult:
    """Communities of ``graph`` by the GPU Louvain method of Naim et al. (IPDPS 2017).

    Parameters
    ----------
    graph:
        A :class:`~gpusim.algorithms.louvain.graph.LouvainGraph` (or what
        :func:`~gpusim.algorithms.louvain.graph.load_louvain_graph` takes), or a graph in device memory: a
        :class:`~gpusim.types.device_graphs.DeviceWeightedGraph` (no self-loops) or a ``cupyx.scipy.sparse``
        matrix, taken where it lives (:mod:`~gpusim.algorithms.louvain.device_input`: checked once on the device,
        no copy of its arrays in; ``"auto"`` runs on its device, ``"cpu"`` is refused).
    backend, device:
        ``"sim"``, ``"numba"``, ``"cupy"``, or ``"cpu"`` (the CPU engine, ``cpu_method``); ``device`` (a
        :class:`gpusim.Device`) wins.
    resolution:
        ``gamma`` of Eq. (2), > 0 (larger: smaller communities).
    threshold, bin_threshold, bin_vertices:
        ``t_final``, ``t_bin`` and the size above which ``t_bin`` applies (§5), in vertices with an edge.
    seed:
        The simulator's schedule seed (the result does not depend on it when the weights' sums are exact).
    layout:
        ``"buckets"`` (§4.1: 4 to 128 threads a vertex by degree) or ``"thread"`` (one thread a vertex).
    dip_rule:
        What a phase does after a sweep that *lowers* modularity (parallel moves decide from the same state).
        ``"paper"``: stop the phase with its best partition (Alg. 1 line 12).  ``"independent"``: go back to
        the best partition and go on with conflict-free sweeps, where a vertex moves only if no neighbour that
        also moves has a higher pseudo-random priority
        (:func:`~gpusim.algorithms.louvain.kernels_apply.apply_independent_moves`), until a sweep gains less
        than the threshold.  The paper's rule stops early where half the vertices move at once (LFR graphs
        with mixing 0.3: 94.7 % of NetworkX's modularity; 99.3 % with conflict-free sweeps).  ``"early"``
        (default): ``"independent"`` on an input of at most ``bin_vertices`` vertices with an edge; on a larger
        one, conflict-free sweeps only after a dip in a phase's first two sweeps, and a later dip ends the phase
        (:func:`~gpusim.algorithms.louvain.reference.goes_conflict_free`): by then the sweeps swap vertices about
        a partition already found.  On the random geometric graph of 2^22 vertices that is 872 -> 624 launches
        and 0.02 % of the modularity (``benchmarks/RESULTS.md``).
    follow_leaves:
        Vertex following ([16], as the authors' code): each phase starts with every vertex of one neighbour in
        that neighbour's community (:func:`~gpusim.algorithms.louvain.kernels_move.follow_leaves`).  ``False``:
        every vertex starts alone.
    refine:
        After the last level, go on moving the *input graph's* vertices, starting from the partition found
        (the sweeps of Algorithm 1), and return the best partition seen: each vertex may leave the community its
        coarse vertex took it into.  Not in the paper: the refinement of NetworKit's PLMR, done once, at the
        finest level.  On R-MAT graphs of 2^17 and 2^18 vertices (the bucket reference, NetworKit 11.3's PLM
        beside it) it raised the modularity from 99.0 % and 98.5 % of PLM's to 105.8 % and 105.5 %.
        ``False``: the paper's method.
    tolerance_drop, prune, aggregation_tolerance:
        Three rules of GVE-Louvain and ν-Louvain (S. Sahu, arXiv:2501.19004, 2025), each ``None`` / ``False`` for
        the paper's.  ``tolerance_drop``: level ``l`` of a graph with more than ``bin_vertices`` vertices stops its
        sweeps at ``max(threshold, bin_threshold / tolerance_drop^l)``
        (:func:`~gpusim.algorithms.louvain.reference.phase_limit`), where the paper goes from ``t_bin`` straight to
        ``t_final`` once a level has ``bin_vertices`` or fewer.  ``prune``: after a phase's first sweep, a sweep looks
        only at the vertices whose neighbour moved in the sweep before
        (:func:`~gpusim.algorithms.louvain.kernels_apply.wake_neighbours`).  ``aggregation_tolerance``: no further level
        once one keeps more than this share of its vertices with an edge
        (:func:`~gpusim.algorithms.louvain.reference.enough`).  ``benchmarks/RESULTS.md`` times them against the
        paper's rules.
    kernels:
        A :class:`~gpusim.algorithms.louvain.variants.LouvainKernels` table or its name: by default ``SHUFFLES``
        (``"shuffles"``: degrees up to 32 summed by warp shuffles, the same decisions in less time), ``PAPER``
        (``"paper"``: hash tables in every group, as the paper), or a bug zoo's variant.
    degree_buckets, community_buckets, max_grid:
        Lower bounds than §4.1's for the vertex groups (six: 4, 8, 16, 32, 84, 319) and community groups
        (:data:`~.kernels_aggregate.COMMUNITY_BUCKETS`), each at most the paper's, the first ones only or all
        (:func:`~.reference.bucket_bounds`; ``"1,2,3"`` as the command line gives it): small vertices and
        communities then take the block kernels (the explorer's launch path for them).  ``max_grid``: at most
        this many blocks a launch (default 4 on the simulator, 8192 on a GPU), so a block takes several vertices
        or communities in turn.  Neither ``community_buckets`` nor ``max_grid`` changes the result.
    host_levels:
        A level whose vertices and entries together are at most this many, and every level after it, is decided on
        the host (:mod:`~gpusim.algorithms.louvain.host_levels`: the same decisions, without a GPU's launches, which
        cost more than such a level's work); the input graph and its refinement never are.  By default
        :data:`~.host_levels.HOST_LEVELS` on a GPU and 0 (every level on the device) on the simulator.
    cpu_method:
        What ``"cpu"`` runs.  ``"asynchronous"``: vertices moved one after another on every core
        (:mod:`~gpusim.algorithms.louvain.asynchronous`; ``threshold``, ``resolution`` and ``refine`` apply).
        ``"buckets"``: this method's own decisions, each bucket's moves on every core, which equal the
        simulator's (:func:`~gpusim.algorithms.louvain.reference.bucket_louvain`).  By default
        ``"asynchronous"``, or ``"buckets"`` when ``layout``, ``dip_rule``, ``follow_leaves``, ``bin_threshold``,
        ``bin_vertices`` or ``degree_buckets`` is not its default (options of this method alone).

    Returns
    -------
    CommunityResult
        ``labels``, ``modularity``, ``levels``, ``stats`` (levels, sweeps, launches, seconds per phase, and
        ``conflict_free_from``: for each phase, the sweep after which its sweeps were conflict-free, or None).
        A device-resident graph's first phase is ``"input"`` (its check, once, and :func:`~.device_input.input_facts`)
        where a host graph's is ``"copy in"``; ``graph`` stays the device graph (copied back only for the checks).
    """
    graph = louvain_input(graph)
    resolution = _positive("resolution", resolution)
    threshold, bin_threshold = _positive("threshold", threshold), _positive("bin_threshold", bin_threshold)
    bin_vertices = check_int("bin_vertices", bin_vertices, 0, None)
    degree_buckets = bucket_bounds("degree_buckets", degree_buckets, mv.DEGREE_BUCKETS)
    community_buckets = bucket_bounds("community_buckets", community_buckets, agg.COMMUNITY_BUCKETS)
    if max_grid is not None:
        max_grid = check_int("max_grid", max_grid, 1, None)
    if layout not in LAYOUTS:
        raise InvalidArgument(f"layout={layout!r} is not one of {LAYOUTS}")
    if dip_rule not in DIP_RULES:
        raise InvalidArgument(f"dip_rule={dip_rule!r} is not one of {DIP_RULES}")
    if cpu_method is not None and cpu_method not in CPU_METHODS:
        raise InvalidArgument(f"cpu_method={cpu_method!r} is not one of {CPU_METHODS}")
    tolerance_drop = _rule("tolerance_drop", tolerance_drop, 1.0, math.inf)
    aggregation_tolerance = _rule("aggregation_tolerance", aggregation_tolerance, 0.0, 1.0)
    for name, flag in (("follow_leaves", follow_leaves), ("refine", refine), ("prune", prune)):
        if not isinstance(flag, bool):
            raise InvalidArgumentType(f"{name} must be True or False, got {flag!r}")
    seed = None if seed is None else check_seed(seed)
    kernels = kernel_table(kernels)
    if device is not None and not isinstance(device, Device):
        raise InvalidArgumentType(f"device must be a gpusim.Device, got {device!r}")
    limits = (threshold, bin_threshold, int(bin_vertices), tolerance_drop)
    host_levels = None if host_levels is None else check_int("host_levels", host_levels, 0, None)
    if device is not None:
        chosen, reason = device.backend, "the device given"
    elif isinstance(graph, DeviceWeightedGraph):
        chosen, reason = choose_backend(device_backend(graph, backend))
        reason = f"auto: the graph lives in {graph.memory} memory" if backend == "auto" else reason
    else:
        chosen, reason = choose_backend(backend, graph.n_entries)
    if chosen == "cpu":
        method = _cpu_method(cpu_method, layout=layout, dip_rule=dip_rule, follow_leaves=follow_leaves,
                             bin_threshold=bin_threshold, bin_vertices=bin_vertices, degree_buckets=degree_buckets,
                             tolerance_drop=tolerance_drop, prune=prune, aggregation_tolerance=aggregation_tolerance)
        with engine_threads():
            if method == "asynchronous":
                result = asynchronous_louvain(graph, resolution=resolution, threshold=threshold, refine=refine)
            else:
                result = bucket_louvain(graph, resolution=resolution, threshold=threshold,
                                        bin_threshold=bin_threshold, bin_vertices=int(bin_vertices), layout=layout,
                                        dip_rule=dip_rule, follow_leaves=follow_leaves, refine=refine, parallel=True,
                                        degree_buckets=degree_buckets, tolerance_drop=tolerance_drop, prune=prune,
                                        aggregation_tolerance=aggregation_tolerance)
                result.stats["engine"] = "the GPU method's bucket decisions, each bucket on every core"
    else:
        if device is None:
            device = Device("sim", seed=seed or 0, trace=False, races="off") if chosen == "sim" else Device(chosen)
        if host_levels is None:
            host_levels = 0 if device.backend == "sim" else HOST_LEVELS
        result = _Run(graph, device, resolution, limits, layout, kernels, progress, dip_rule,
                      follow_leaves, refine, (degree_buckets, community_buckets), max_grid, prune,
                      aggregation_tolerance, host_levels).result()
    result.stats["chosen"] = reason
    return result


#: ``cpu_method=``: what ``backend="cpu"`` runs.
CPU_METHODS = ("asynchronous", "buckets")
_BUCKET_DEFAULTS = {"layout": "buckets", "dip_rule": "early", "follow_leaves": True, "bin_threshold": T_BIN,
                    "bin_vertices": BIN_VERTICES, "degree_buckets": mv.DEGREE_BUCKETS,
                    "tolerance_drop": TOLERANCE_DROP, "prune": True, "aggregation_tolerance": AGGREGATION_TOLERANCE}


def _cpu_method(asked: str | None, **bucket_options) -> str:
    """``cpu_method`` made concrete: ``"buckets"`` when one of the GPU method's own options is set, else
    ``"asynchronous"``; an explicit ``"asynchronous"`` with such an option is refused (it would be ignored)."""
    set_ = [name for name, value in bucket_options.items() if value != _BUCKET_DEFAULTS[name]]
    if asked == "asynchronous" and set_:
        raise InvalidArgument(f"{set_[0]}={bucket_options[set_[0]]!r} is an option of the GPU method's buckets; "
                              "cpu_method='asynchronous' does not use it (cpu_method='buckets' does)")
    return asked or ("buckets" if set_ else "asynchronous")


def aggregate(graph, communities, *, backend: str = "sim", device: Device | None = None
              ) -> tuple[LouvainGraph, np.ndarray]:
    """Algorithm 3 alone, on a device: the graph whose vertices are the communities of ``communities``.

    ``communities[v]`` is a community id in ``0..n-1`` for each vertex.  Returns the contracted graph (its
    vertices numbered by increasing community id; each list in the order the kernels wrote it) and the new
    id of each community id (-1 for an id no vertex has).

    >>> from gpusim.algorithms.louvain.graph import LouvainGraph
    >>> g = LouvainGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 2.0, 4.0])
    >>> h, new_id = aggregate(g, [3, 3, 0, 0])
    >>> h.to_scipy().toarray().tolist(), new_id.tolist(), h.total_weight == g.total_weight
    ([[4.0, 2.0], [2.0, 1.0]], [0, -1, -1, 1], True)
    """
    graph = load_louvain_graph(graph)
    labels = np.asarray(communities)
    if labels.shape != (graph.n,) or (labels.size and labels.dtype.kind not in "iu"):
        raise InvalidArgument(f"communities must hold one integer id per vertex ({graph.n}), got {labels!r}")
    if labels.size and (labels.min() < 0 or labels.max() >= graph.n):
        raise InvalidArgument(f"community ids must lie in 0..{graph.n - 1}, "
                              f"got {int(labels.min())}..{int(labels.max())}")
    if device is None:
        if backend == "cpu":
            raise InvalidArgument("aggregate runs the kernels: backend must be sim, numba, cupy or auto")
        device = Device("sim", trace=False, races="off") if backend == "sim" else own_device(backend)
    run = _Run(graph, device, 1.0, (T_FINAL, T_BIN, BIN_VERTICES, TOLERANCE_DROP), "buckets", PAPER, False)
    if graph.n == 0:
        return graph, np.zeros(0, np.int32)
    run.primes = device.array(run.primes_host)
    C = device.array(labels.astype(np.int32))
    ptr, adj, w, n, entries, new_id = run.contract(device.array(graph.ptr), run.nonempty(graph.adj),
                                                   run.nonempty(graph.weights), C, graph.n, always=True)
    host_ptr = run.read(ptr, n + 1)
    used = np.bincount(labels, minlength=graph.n) > 0
    ids = np.where(used, run.read(new_id, graph.n), -1).astype(np.int32)
    return LouvainGraph(n, host_ptr, run.read(adj, entries), run.read(w, entries)), ids


def _read_later(dev: Device, levels: list, n: int):
    """The dendrogram's levels, read back from ``dev`` when called (the result holds these arrays alone until then)."""
    return lambda: [dev.to_host(level)[:n].copy() for level in levels]


def _rule(name: str, value, low: float, high: float) -> float | None:
    """One of GVE-Louvain's rules: ``None`` (the paper's) or a number in ``[low, high]`` (and above 0)."""
    if value is not None and not low <= _positive(name, value) <= high:
        raise InvalidArgument(f"{name}={value!r} must lie in [{low:g}, {high:g}] (or be None: the paper's rule)")
    return None if value is None else float(value)


def _positive(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value <= 0:
        raise InvalidArgument(f"{name}={value!r} must be a finite number > 0")
    return float(value)


class _Run(Contraction, MoveLaunches):
    """One Louvain run on a device: the arrays of the current level and the launches."""

    def __init__(self, graph: LouvainGraph | DeviceWeightedGraph, dev: Device, resolution: float, limits: tuple,
                 layout: str, kernels: LouvainKernels, progress: bool, dip_rule: str = "early",
                 follow_leaves: bool = True, refine: bool = False,
                 buckets: tuple = (mv.DEGREE_BUCKETS, agg.COMMUNITY_BUCKETS), max_grid: int | None = None,
                 prune: bool = False, aggregation_tolerance: float | None = None, host_levels: int = 0):
        self.graph, self.dev, self.gamma, self.limits, self.dip_rule = graph, dev, resolution, limits, dip_rule
        self.prune, self.aggregation_tolerance, self.host_levels = prune, aggregation_tolerance, host_levels
        self.degree_buckets, self.community_buckets = buckets
        self.follow_leaves, self.refine = follow_leaves, refine
        self.layout, self.kernels = layout, kernels
        self.launch = Launcher(dev, progress=progress, description="louvain levels")
        self.max_grid = max_grid or (4 if dev.backend == "sim" else 8192)
        self.primes_host, self.global_tables = prime_table(), None
        self.hub_tables_dirty, self.ones = True, None  # the hubs' tables to clear; the input's weights when all 1
        self.finest = None  # the input graph's ptr and level_arrays, kept for the refinement
        self.conflict_free_from: list[int | None] = []

    # -- small helpers --------------------------------------------------------------------------
    def zeros(self, n: int, dtype) -> object:
        return self.dev.zeros(max(int(n), 1), dtype)

    def each(self, kernel, n: int, *args) -> None:
        """Launch a grid-stride kernel over ``n`` items."""
        self.launch(kernel, Device.grid_for(n, mv.BLOCK, self.max_grid), mv.BLOCK, *args)

    def each_warp(self, kernel, n: int, *args) -> None:
        """Launch a warp-per-item kernel over ``n`` items."""
        self.launch(kernel, Device.grid_for(32 * n, mv.BLOCK, self.max_grid), mv.BLOCK, *args)

    def limit(self, level: int, vertices_with_edges: int, input_with_edges: int) -> float:
        """A phase's stopping gain: :func:`~.reference.phase_limit`."""
        return phase_limit(level, vertices_with_edges, input_with_edges, *self.limits)

    def read(self, array, count: int = 1) -> np.ndarray:
        return self.dev.to_host(array)[:count]

    def result(self) -> CommunityResult:
        graph, dev, launch = self.graph, self.dev, self.launch
        n0 = graph.n
        with launch.phase("copy in" if isinstance(graph, LouvainGraph) else "input"):
            ptr, adj, w, facts = self.input()
            self.primes = dev.array(self.primes_host)
            labels = self.zeros(n0, np.int32)
            self.each(mv.init_communities, n0, labels, n0)
        n, entries, isolated = n0, facts.entries, facts.isolated
        self.dip_rule = dip_rule_for(self.dip_rule, n0 - isolated, self.limits[2])
        finest = ptr, adj, w
        levels, level_q, sweeps, communities = [], [], [], []  # levels: device copies, read back when asked for
        first_q = 0.0
        while n and facts.total_weight > 0:
            if levels and n + entries <= self.host_levels:  # a coarse level: launches cost more than its work
                with launch.phase("host levels"):
                    found = finish_on_host(self, ptr, adj, w, n, entries, labels, levels, n0, isolated)
                for kept, more in zip((level_q, sweeps, communities), found, strict=True):
                    kept += more
                break
            with launch.phase("optimise"):
                limit = self.limit(len(levels), n - isolated, n0 - isolated)
                C, q0, q_best, level_sweeps = self.optimise(ptr, adj, w, n, entries, limit)
            first_q = q0 if not levels else first_q
            with launch.phase("aggregate"):
                n_before, contracted = n, self.contract(ptr, adj, w, C, n)
                if contracted is not None:  # each input vertex's community at this level
                    ptr, adj, w, n, entries, new_id = contracted
                    self.each(agg.relabel, n0, labels, C, new_id, n0)
                    levels.append(self.zeros(n0, np.int32))
                    self.each(mv.copy_labels, n0, labels, levels[-1], n0)
                    communities.append(n)
            if contracted is None:
                break
            level_q.append(q_best)
            sweeps.append(level_sweeps)
            launch.tick(level=len(levels), communities=n, modularity=f"{q_best:.6f}")
            if q_best - q0 < self.limits[0] or enough(n_before - isolated, n - isolated, self.aggregation_tolerance):
                break
        final_q, refine_sweeps = (level_q[-1] if levels else first_q), None
        if self.refine and levels:
            with launch.phase("refine"):
                C, _, final_q, refine_sweeps = self.optimise(*finest, n0, facts.entries,
                                                             self.limit(0, n0 - isolated, n0 - isolated),
                                                             start=labels)
                _, _, new_id, _ = self.new_ids(finest[0], C, n0)
                self.each(mv.init_communities, n0, labels, n0)
                self.each(agg.relabel, n0, labels, C, new_id, n0)
        with launch.phase("copy out"):
            final = self.read(labels, n0) if levels else np.arange(n0, dtype=np.int32)  # a new array: no copy
        launch.close()
        stats = {"levels": len(levels), "sweeps": sweeps, "communities": communities,
                 "refine_sweeps": refine_sweeps, "conflict_free_from": self.conflict_free_from,
                 "launches": dict(launch.launches), "seconds": dict(launch.seconds), "layout": self.layout,
                 "follow_leaves": self.follow_leaves}
        return CommunityResult(graph, final, final_q, _read_later(dev, levels, n0), level_q, "louvain", dev.backend,
                               stats, self.gamma)

    def nonempty(self, host: np.ndarray):
        return self.dev.array(host if host.size else np.zeros(1, host.dtype))

    def input(self) -> tuple:
        """``(ptr, adj, w, facts)`` of the input on the device: a host graph's arrays copied in; a device-resident
        graph's adopted where they are (checked there once) and its facts computed by a kernel."""
        graph, dev = self.graph, self.dev
        if isinstance(graph, LouvainGraph):  # an unweighted graph's weights are made on the device, not copied
            weights = dev.full(graph.n_entries, 1.0, np.float64) if graph.unit_weights else self.nonempty(graph.weights)
            self.ones = weights if graph.unit_weights else None  # the kernels need not read them
            return dev.array(graph.ptr), self.nonempty(graph.adj), weights, host_facts(graph)
        graph = resident(dev, graph)
        facts = device_facts(dev, graph, self.launch)
        if not facts.entries:
            return graph.ptr, self.zeros(1, np.int32), self.zeros(1, np.float64), facts
        self.ones = graph.weights if facts.unit_weights else None
        return graph.ptr, graph.adj, graph.weights, facts

    # -- Algorithm 1 -----------------------------------------------------------------------------
    def optimise(self, ptr, adj, w, n: int, entries: int, limit: float, start=None):
        """Algorithm 1 on the current graph: ``(best C, Q at the start, best Q, sweeps)``; from ``start`` (a device
        array of community ids) instead of singletons when given (the refinement)."""
        dev = self.dev
        self.hub_tables_dirty = True  # the contraction or another level used the global tables since
        active = self.zeros(n, np.int32)  # with pruning: the sweep from which each vertex is looked at again
        k, two_m, src, degree, groups = self.level_arrays(ptr, w, n, entries, active)
        C, best, new_comm = self.zeros(n, np.int32), self.zeros(n, np.int32), self.zeros(n, np.int32)
        a, csize = self.zeros(n, np.float64), self.zeros(n, np.int32)
        if start is not None:
            self.each(mv.copy_labels, n, start, C, n)
        else:
            self.each(mv.init_communities, n, C, n)
            if self.follow_leaves:
                self.each(mv.follow_leaves, n, ptr, adj, C, n)
        self.each(mv.init_communities, n, new_comm, n)

        # no hub: a warp may walk each mover's list (inside_change); with one, every entry is read again
        hubless = len(groups.every_vertex) > 1 and groups.every_vertex[-1][1] == 0
        with_edges, inside = sum(count for _, count in groups.every_vertex), 0.0

        def totals_and_q(recount: bool = False, looked_at: int = n, filled=None) -> tuple[float, list]:
            """Q of ``C`` by Eq. (1), and the group sizes ``filled`` (the next sweep's, when given) read with it;
            after a sweep that looked at fewer than half the vertices with an edge, from its movers' lists and the
            partition it started from, ``best`` (each sweep starts from the best one seen)."""
            nonlocal inside
            if recount:  # the moves keep a_c and the sizes up to date (apply_moves); counted at a phase's start
                self.each(mv.clear_totals, n, a, csize, n)
                self.each(mv.community_totals, n, C, k, a, csize, n)
            n_counts = 0 if filled is None else groups.n_groups
            sums, unit = dev.zeros(2 + n_counts, np.float64), int(w is self.ones)
            counts = (C if filled is None else filled, n_counts)  # C: any int32 array, when no sizes are read
            by_movers = hubless and not recount and 2 * looked_at < with_edges
            if by_movers:
                self.each(ap.inside_change, n, ptr, adj, w, best, C, a, sums, n, unit, *counts)
            else:
                self.each(mv.modularity_terms, max(n, entries), src, adj, w, C, a, sums, n, entries, unit, *counts)
            found, squares, *sizes = self.read(sums, 2 + n_counts).tolist()
            inside = inside + found if by_movers else found
            return inside / two_m - self.gamma * squares / (two_m * two_m), sizes

        vset, buckets = groups.vset, groups.every_vertex
        q = q_start = best_q = totals_and_q(recount=True)[0]
        self.each(mv.copy_labels, n, C, best, n)
        sweeps, independent, moving = 0, False, None
        self.conflict_free_from.append(None)
        while True:
            wake = sweeps + 1 if self.prune else 0  # the movers' neighbours are looked at next sweep
            for b, (offset, count) in enumerate(buckets):
                if count:
                    self.move(b, (ptr, adj, w, C, k, a, csize, vset, offset, count, new_comm, self.primes,
                                  len(self.primes_host), two_m / 2.0, self.gamma), degree, entries, n)
                    wide = self.by_warps(b)  # its moves applied a warp a vertex
                    each = self.each_warp if wide else self.each
                    moved = (ptr, adj, vset, offset, count, new_comm, C, k, a, csize)
                    if independent:
                        stamp = sweeps * len(buckets) + b + 1
                        self.each(ap.mark_movers, count, vset, offset, count, new_comm, C, moving, stamp)
                        each(ap.apply_wide_independent_moves if wide else ap.apply_independent_moves, count, *moved,
                             moving, stamp, sweeps, active, wake)
                    else:
                        each(ap.apply_wide_moves if wide else ap.apply_moves, count, *moved, active, wake)
            sweeps += 1
            # the next sweep's vertices, filled before Q is read and read with it: one wait a sweep
            filled = groups.fill(active, sweeps) if self.prune else None
            q_new, sizes = totals_and_q(looked_at=sum(count for _, count in buckets), filled=filled)
            buckets = buckets if filled is None else groups.taken(sizes)
            if q_new > best_q:
                best_q = q_new
                self.each(mv.copy_labels, n, C, best, n)
            if q_new - q >= limit:
                q = q_new
            elif q_new < q and not independent and goes_conflict_free(self.dip_rule, sweeps):
                independent, moving, q = True, self.zeros(n, np.int32), best_q
                self.conflict_free_from[-1] = sweeps
                self.each(mv.copy_labels, n, best, C, n)
                self.each(fill_int32, n, active, sweeps, n)  # every vertex looked at again
                buckets = groups.every_vertex
                groups.fill(active, sweeps)  # after the sweep's fill of the woken vertices alone
                totals_and_q(recount=True)
            else:
                return best, q_start, best_q, sweeps

    def level_arrays(self, ptr, w, n: int, entries: int, active) -> tuple:
        """``(k, 2m, src, degree, groups)`` of a level: the vertex degrees (Alg. 1 line 2) and their sum, each entry's
        row, the entry counts, and the degree groups holding every vertex (``active``: the pruning's zeros).  The input
        graph's are kept for the refinement, which needs them again (``self.finest``)."""
        if self.finest is not None and self.finest[0] is ptr:
            kept, groups = self.finest[1], self.finest[1][-1]
            groups.fill(active, 0)  # every vertex again
            return kept
        k, total = self.zeros(n, np.float64), self.dev.zeros(1, np.float64)
        src, degree = self.zeros(entries, np.int32), self.zeros(n, np.int32)
        self.each_warp(mv.vertex_degrees, n, ptr, w, k, total, n)
        self.each_warp(mv.entry_sources, n, ptr, src, n)
        self.each(mv.entry_counts, n, ptr, degree, n)
        bounds = self.degree_buckets if self.layout == "buckets" else ()
        groups = DegreeGroups(self.dev, self.launch, degree, bounds, n, active, self.max_grid)
        arrays = k, float(self.read(total)[0]), src, degree, groups
        if self.refine and self.finest is None:
            self.finest = ptr, arrays
        return arrays
