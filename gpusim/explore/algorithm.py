"""Hunt bugs in a registered algorithm: the real driver on the simulator, judged by an independent oracle.

:func:`algorithm_scenario` makes a :class:`~gpusim.explore.scenario.Scenario` of any GPU algorithm of the
registry (:mod:`gpusim.runtime.registry`): each explored schedule runs the whole host driver on the
simulator (every launch, every host loop) with the caller's ``kernels=`` (a planted mutation, say) and
checks the result against the input, never against the code under test:

=============  ======================================================================================
problem        oracle
=============  ======================================================================================
bipartite      a valid matching of the input, and maximum: its König cover covers every edge; the
               matched rows the one-block kernel counted, the rows matched
weighted       a valid matching (b-matching) of the input; the same pairs as the sequential reference
               (Suitor, LD, b-Suitor: the greedy matching, unique for distinct weights); ROMA: no swap
               of its complete graph's perfect matching gains more than the threshold (brute force; on a
               sparse graph the dropped non-edges count as pairs of weight 0)
stable         stable (no blocking pair, checked from the lists) and man-optimal: the same wives as
               sequential Gale-Shapley
communities    a partition of the input's vertices whose reported modularity is its modularity in the
               input, no level of the dendrogram above the final one; and, when every sum of the input's
               weights is exact (integer weights: then no schedule can change a decision), the same
               dendrogram, modularity per level and sweeps as the sequential bucket reference
               (:func:`~gpusim.algorithms.louvain.reference.bucket_louvain`, the method's own decisions)
=============  ======================================================================================

Any exception — from a kernel, the driver's own checks or the oracle — is a failure too
(:meth:`Scenario.execute`).  The input is a graph (or preference instance) given, a bundled example,
a file, or drawn from ``input_seed``: small random inputs, sized to reach every kernel with the lowered
thresholds of ``options`` (``shrink_at=1`` makes G-PR compact its active lists on a few columns).
The scenario's name says all of it (``algorithm:gpr:seed=3:initial=empty``), so a replay token finds
it again: :func:`~gpusim.explore.replay` rebuilds it from the name.

>>> scenario = algorithm_scenario("apfb", input_seed=1, start="empty")
>>> scenario.name
'algorithm:apfb:seed=1:initial=empty'
>>> scenario.attempt(policy="random", seed=0) is None
True
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType

from .scenario import Scenario, register

__all__ = ["MODEL_DEFAULTS", "STARTS", "algorithm_entry", "algorithm_names", "algorithm_scenario", "draw_input",
           "import_kernels", "oracle", "scenario_from_name"]

#: The starts ``start=`` takes: where a bipartite driver begins (``initial=``).
STARTS = ("cheap", "proposals", "empty")
_PREFIX = "algorithm:"
#: The simulator's memory and warp models, by default; another is named in the scenario's name
#: (``...:memory=weak:warps=lockstep``), so that its replay tokens rebuild it.
MODEL_DEFAULTS = {"memory": "sc", "warps": "independent"}
#: Simulator options of every algorithm scenario: a whole algorithm takes many steps (one launch of Louvain's
#: block-per-vertex kernel on a wide random input, under lockstep warps, about 500,000); a run that launches more than
#: ``max_launches`` kernels (a driver's host loop relaunching for ever; the most a registered algorithm launched on
#: its random inputs was 146, Louvain's) ends in ``Livelock``, a finding that replays.
_SIM_OPTIONS = {"max_steps": 2_000_000, "livelock_steps": 40_000, "max_launches": 5_000}


def _registry():
    import gpusim.algorithms  # noqa: F401 - the families register their algorithms
    from gpusim.runtime import registry

    return registry


def algorithm_names() -> list[str]:
    """The registered algorithms that launch kernels (the ones a hunt can run), sorted."""
    return sorted(entry.name for entry in _registry().algorithms() if entry.gpu)


def algorithm_entry(name: Any):
    """The registry's entry of GPU algorithm ``name`` (its kernels, problem, driver); an unknown name is an
    ``InvalidArgument`` naming the choices."""
    return _lookup(name)


def _lookup(name: Any):
    if not isinstance(name, str) or name not in algorithm_names():
        raise InvalidArgument(f"algorithm={name!r} is not a registered GPU algorithm; choose one of "
                              f"{', '.join(algorithm_names())}")
    return next(entry for entry in _registry().algorithms() if entry.name == name and entry.gpu)


# -- inputs ------------------------------------------------------------------------------------------------


def draw_input(name: str, seed: int) -> Any:
    """A small input for algorithm ``name``, drawn from ``seed`` (deterministic): 3–8 vertices a side.

    A bipartite seed ``3 (mod 4)`` draws 33–40 columns with one or two rows each: a BFS level's columns then span two
    warps, which list them in turn (:mod:`~gpusim.algorithms.bipartite.kernels_bfs_queue`).

    Louvain's odd seeds draw 33–40 vertices in groups of five consecutive ids, dense inside and sparse between,
    and a hub: communities numbered 32 and more, which a hash table puts past its first 32 slots, so that the
    second warp's slots of a table are used.

    >>> draw_input("gpr", 0)
    BipartiteGraph(n_rows=..., n_cols=..., n_edges=...)
    """
    from gpusim.types.arguments import check_seed

    entry = _lookup(name)
    rng = np.random.default_rng(check_seed(seed))
    if entry.problem == "bipartite":
        from gpusim.types.generators import uniform_random

        if seed % 4 == 3:  # wide: columns numbered 32 and more, so that two warps list a level's columns
            cols = int(rng.integers(33, 41))
            rows = int(rng.integers(cols // 2, cols))
            return uniform_random(rows, cols, int(rng.integers(cols, 2 * cols)), seed)
        rows, cols = (int(x) for x in rng.integers(3, 9, size=2))
        return uniform_random(rows, cols, int(rng.integers(rows, 2 * rows * cols // 3 + rows + 1)), seed)
    if entry.problem == "stable":
        from gpusim.types.preference_generators import easy_instance

        return easy_instance(int(rng.integers(3, 9)), seed)
    wide = entry.problem == "communities" and seed % 2 == 1
    n = 2 * int(rng.integers(2, 5)) if name == "roma" else int(rng.integers(33, 41) if wide else rng.integers(4, 10))
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    if wide:  # groups of 5 consecutive ids, dense inside, sparse between: communities numbered 32 and more
        keep = [(u, v) for u, v in pairs if rng.random() < (0.8 if u // 5 == v // 5 else 1 / n)]
    else:
        keep = pairs if name == "roma" else [p for p in pairs if rng.random() < 0.5] or pairs[:1]
    if entry.problem == "communities":  # a hub joined to every vertex: the highest degree, n - 1
        hub = int(rng.integers(n))
        keep = sorted(set(keep) | {(min(hub, v), max(hub, v)) for v in range(n) if v != hub})
    weights = rng.permutation(len(keep)) + 1.0  # distinct: the greedy matching is unique
    u, v = (np.array(side, np.int64) for side in zip(*keep, strict=True))
    if entry.problem == "communities":
        from gpusim.algorithms.louvain.graph import LouvainGraph

        return LouvainGraph.from_edges(u, v, weights, n)
    from gpusim.types.weighted_graph import WeightedGraph

    return WeightedGraph.from_edges(u, v, weights, n)


def _load(name: str, source: str, value: str) -> Any:
    """The input named by ``example=NAME`` or ``file=PATH``."""
    from gpusim.types.graphs import example_path, load_graph

    problem = _lookup(name).problem
    path = str(example_path(value)) if source == "example" else value
    if problem == "stable":
        from gpusim.types.preferences import PreferenceInstance

        return PreferenceInstance.from_json(path)
    if problem == "communities":
        from gpusim.algorithms.louvain.graph import LouvainGraph

        return LouvainGraph.from_matrix_market(path, symmetrise="max")
    return load_graph(path, "bipartite" if problem == "bipartite" else "weighted")


# -- oracles -----------------------------------------------------------------------------------------------


def _reference(entry, data: Any, options: dict) -> Any:
    """The sequential counterpart's result (independent of the kernels), for the oracles that compare."""
    registry = _registry()
    sequential = entry if "cpu" in entry.backends else registry.lookup(entry.problem, entry.on_cpu)
    if entry.problem == "communities":  # the method's own decisions, sequentially (its bucket reference)
        kept = {key: value for key, value in options.items() if key in _BUCKET_OPTIONS}
        return sequential.run(data, backend="cpu", cpu_method="buckets", **kept)
    kept = {key: value for key, value in options.items() if key in ("b", "capacities")}
    return sequential.run(data, backend="cpu", **kept)


def _roma_swap(result: Any, data: Any, threshold: float) -> str | None:
    """What contradicts ROMA's guarantee on ``data`` (Lemma 4.1.1), or ``None``.

    ROMA improves a perfect matching of the complete graph of ``data``'s dense matrix (non-edges weigh 0)
    until no swap of two matched pairs gains more than the threshold; on a sparse graph the pairs that are
    not edges are then dropped, so their vertices come back unmatched.  What that promises, checked by brute
    force: no swap of two matched edges gains more than the threshold; a vertex ``x`` left unmatched (its
    dropped partner weighs 0) gains no more than it by joining a matched edge ``(u, v)``; two vertices left
    unmatched are not joined by an edge heavier than it (their dropped pairs swap for at least its weight).
    """
    w = data.to_scipy().toarray()
    mate = np.asarray(result.mate)
    tolerance = threshold * max(1.0, float(abs(w).max()) if w.size else 1.0)
    edges = [(u, int(mate[u])) for u in range(mate.size) if u < mate[u]]
    for i, (u, v) in enumerate(edges):
        for x, y in edges[i + 1:]:
            gain = max(w[u, x] + w[v, y], w[u, y] + w[v, x]) - (w[u, v] + w[x, y])
            if gain > tolerance:
                return f"matched edges ({u},{v}) and ({x},{y}) swap for a gain of {gain:.3g}"
    free = np.flatnonzero(mate < 0)
    if free.size % 2 and not data.n % 2 == 1:
        return f"an odd number of vertices left unmatched, {free.tolist()}, of a perfect matching of {data.n}"
    for u, v in edges:
        for x in free:
            gain = max(w[u, x], w[v, x]) - w[u, v]
            if gain > tolerance:
                return (f"unmatched vertex {x} and matched edge ({u},{v}) swap for a gain of at least {gain:.3g} "
                        f"(its dropped partner weighs 0)")
    heavy = w[np.ix_(free, free)] if free.size else np.zeros((0, 0))
    if heavy.size and heavy.max() > tolerance:
        x, y = (int(free[k]) for k in np.unravel_index(int(heavy.argmax()), heavy.shape))
        return f"vertices {x} and {y} are both unmatched, but their edge weighs {w[x, y]:.3g}"
    return None


#: The options of the GPU Louvain method that its sequential bucket reference takes (the others, ``max_grid`` and
#: ``community_buckets``, change how the work is spread over threads, not the result).
_BUCKET_OPTIONS = ("resolution", "threshold", "bin_threshold", "bin_vertices", "layout", "dip_rule", "follow_leaves",
                   "refine", "degree_buckets")


def _exact_sums(data: Any) -> bool:
    """Whether every sum of ``data``'s weights is exact in float64 (integer weights, a total below 2^52): then any
    order of summation, so any schedule, gives the same sums."""
    weights = np.asarray(getattr(data, "weights", ()), np.float64)
    return bool(np.all(weights == np.round(weights)) and float(np.abs(weights).sum()) < 2.0**52)


def _same_decisions(result: Any, reference: Any) -> str | None:
    """What differs between a GPU Louvain run and its sequential bucket reference, or ``None``.

    The method is deterministic given its input: every vertex of a bucket decides from the same state, the ties go
    to the lowest id, the new ids follow the community ids; with exact sums the schedule cannot change a
    decision, so the dendrogram, each level's modularity and the sweeps must be the reference's.
    """
    levels, theirs = [level.tolist() for level in result.levels], [level.tolist() for level in reference.levels]
    for depth, (mine, expected) in enumerate(zip(levels, theirs, strict=False)):
        if mine != expected:
            vertex = next(v for v, (a, b) in enumerate(zip(mine, expected, strict=True)) if a != b)
            return (f"level {depth} differs from the sequential bucket reference's: vertex {vertex} in community "
                    f"{mine[vertex]}, expected {expected[vertex]} (labels {mine}, expected {expected})")
    if len(levels) != len(theirs):
        return f"{len(levels)} level(s), the sequential bucket reference {len(theirs)}"
    if result.labels.tolist() != reference.labels.tolist():
        return (f"labels {result.labels.tolist()} differ from the sequential bucket reference's "
                f"{reference.labels.tolist()}")
    for depth, (q, expected) in enumerate(zip(result.level_modularity, reference.level_modularity, strict=False)):
        if not np.isclose(q, expected, rtol=1e-12, atol=1e-15):
            return f"level {depth} reports modularity {q!r}, the sequential bucket reference {expected!r}"
    if result.stats.get("sweeps") != reference.stats.get("sweeps"):
        return (f"sweeps per level {result.stats.get('sweeps')}, the sequential bucket reference "
                f"{reference.stats.get('sweeps')}")
    return None


def oracle(entry, data: Any, result: Any, reference: Any, options: dict) -> str | None:
    """What is wrong with ``result`` of algorithm ``entry`` on ``data``, or ``None`` (see the module notes)."""
    if result.problem is not None:
        return f"invalid result: {result.problem}"
    if entry.problem == "bipartite":
        counted = result.stats.get("rows_counted")
        if counted is not None and counted != result.size:
            return f"the device counted {counted} matched rows, but {result.size} rows are matched"
        return None if result.certified else f"not maximum: size {result.size}, but its König cover does not prove it"
    if entry.problem == "stable":
        if result.certificate():
            return f"not stable: blocking pairs {result.certificate()[:4]}"
        if not np.array_equal(result.wife, reference.wife):
            return f"stable but not man-optimal: wives {result.wife.tolist()}, expected {reference.wife.tolist()}"
        return None
    if entry.problem == "communities":
        return _same_decisions(result, reference) if reference is not None else None
    if entry.name == "roma":
        added = result.stats.get("phase_weights") or [result.weight]
        if not np.isclose(added[-1], result.weight, rtol=1e-9, atol=1e-12):
            return (f"the device added the last phase's weight up to {added[-1]!r}, but the matching weighs "
                    f"{result.weight!r}")
        return _roma_swap(result, data, options.get("threshold", 1e-5))
    mine = result.partners if result.partners is not None else result.mate
    theirs = reference.partners if reference.partners is not None else reference.mate
    if not np.array_equal(np.sort(np.asarray(mine), axis=-1), np.sort(np.asarray(theirs), axis=-1)):
        return (f"not the greedy matching: weight {result.weight:.6g}, the sequential reference's "
                f"{reference.weight:.6g}")
    return None


# -- scenarios ---------------------------------------------------------------------------------------------


def _option_text(options: Mapping[str, Any]) -> str:
    return "".join(f":{key}={value}" for key, value in sorted(options.items()))


def algorithm_scenario(name: str, graph: Any = None, *, example: str | None = None, file: str | None = None,
                       input_seed: int | None = None, kernels: Mapping[str, Any] | str | None = None,
                       start: str | None = None, options: Mapping[str, Any] | None = None,
                       sim_options: Mapping[str, Any] | None = None) -> Scenario:
    """A scenario that runs registered algorithm ``name`` on one input and checks it with the oracle.

    Parameters
    ----------
    name:
        A registered GPU algorithm (:func:`algorithm_names`): ``"gpr"``, ``"apfb"``, ``"suitor"``,
        ``"bsuitor"``, ``"roma"``, ``"mw-gpu"``, ...
    graph, example, file, input_seed:
        The input, exactly one: a graph (or preference instance), a bundled example's name, a Matrix
        Market (or JSON preference) file, or a seed for :func:`draw_input`.
    kernels:
        Passed to the driver's ``kernels=``: kernels or ``@device`` steps replaced (a mutation); or the
        dotted path of such a mapping, ``"package.module.NAME"``, imported (and named in the scenario's
        name, so that its replay tokens rebuild it).
    start:
        ``"cheap"``, ``"proposals"`` or ``"empty"``: a bipartite driver's initial matching (``initial=``).  The repair
        steps of G-PR and APFB only matter from an empty start.
    options:
        More driver keywords, e.g. ``{"shrink_at": 1}`` (G-PR compacts on a small graph), ``{"b": 2}``.
    sim_options:
        Simulator options (``max_steps``, ``memory="weak"``, ``warps="lockstep"``, ``races="raise"``, ...);
        a memory or warp model other than the default is named in the scenario's name.

    Returns
    -------
    Scenario
        Named ``algorithm:NAME:INPUT[:option=value...]`` (plus ``:kernels=...`` when mutated).  The name
        rebuilds it (:func:`scenario_from_name`), so its replay tokens replay in any process — unless it
        holds a ``graph`` object or a ``kernels`` mapping (not a dotted path): then it is registered, and
        its tokens replay in this process.
    """
    entry = _lookup(name)
    given = [label for label, value in (("graph", graph), ("example", example), ("file", file),
                                        ("input_seed", input_seed)) if value is not None]
    if len(given) != 1:
        raise InvalidArgument(f"give one input (graph, example, file or input_seed), not {given or 'none'}")
    driver = dict(options or {})
    if start is not None:
        if start not in STARTS:
            raise InvalidArgument(f"start={start!r} is not one of {STARTS}")
        if entry.problem != "bipartite":
            raise InvalidArgument(f"start={start!r}: only the bipartite drivers take a start, not {name!r}")
        driver["initial"] = start
    kernels_path = kernels if isinstance(kernels, str) else None
    if kernels_path is not None:
        kernels = import_kernels(kernels_path)
    if kernels is not None and not isinstance(kernels, Mapping):
        raise InvalidArgumentType(f"kernels must map names to kernels or @device functions, got {kernels!r}")
    if input_seed is not None:
        data, label = draw_input(name, input_seed), f"seed={input_seed}"
    elif graph is not None:
        data, label = graph, "graph"
    else:
        source, value = ("example", example) if example is not None else ("file", file)
        if not isinstance(value, str) or ":" in value:
            raise InvalidArgument(f"{source}={value!r} must be a name or path without ':'")
        data, label = _load(name, source, value), f"{source}={value}"
    sim = {**_SIM_OPTIONS, **dict(sim_options or {})}
    model = {key: sim[key] for key, default in MODEL_DEFAULTS.items() if sim.get(key, default) != default}
    scenario_name = f"{_PREFIX}{name}:{label}{_option_text(driver)}{_option_text(model)}"
    if kernels_path is not None:
        scenario_name += f":kernels={kernels_path}"
    elif kernels:
        scenario_name += f":kernels={'+'.join(sorted(kernels))}"
    run = _runner(entry, data, dict(kernels or {}), driver)
    names = tuple(kernel.name for kernel in entry.kernels if hasattr(kernel, "name"))
    scenario = Scenario(scenario_name, run, sim, threads=64,
                        description=f"{entry.title} on {label}", kernels=names)
    rebuilt_by_name = label != "graph" and (not kernels or kernels_path is not None)
    return scenario if rebuilt_by_name else register(scenario, replace=True)


def _runner(entry, data: Any, kernels: dict, driver: dict):
    reference = functools.cache(lambda: _reference(entry, data, driver))
    needs_reference = (entry.problem == "stable" or (entry.problem == "weighted" and entry.name != "roma")
                       or (entry.problem == "communities" and "cpu" in entry.backends and _exact_sums(data)))
    padded = {"pad": True} if entry.name == "roma" and data.n % 2 and "pad" not in driver else {}

    def run(dev) -> str | None:
        extra = {"kernels": kernels, **padded} if kernels else padded  # ROMA pads an odd graph, as it asks
        result = entry.run(data, backend="sim", device=dev, **extra, **driver)
        return oracle(entry, data, result, reference() if needs_reference else None, driver)

    return run


def scenario_from_name(name: str) -> Scenario:
    """Rebuild the scenario ``algorithm:NAME:INPUT[:option=value...]`` (what a replay token names)."""
    parts = name.removeprefix(_PREFIX).split(":")
    if len(parts) < 2 or "=" not in parts[1]:
        raise InvalidArgument(f"scenario={name!r} is not of the form 'algorithm:NAME:seed=N' (or example=, file=)")
    source, value = parts[1].split("=", 1)
    options: dict[str, Any] = {}
    for part in parts[2:]:
        key, _, text = part.partition("=")
        if key == "kernels" and text.count(".") and not text.count("+"):
            options[key] = text
            continue
        if key == "kernels":
            raise InvalidArgument(f"scenario={name!r} ran planted kernels ({text}), which a name cannot rebuild: "
                                  f"replay(token, scenario=algorithm_scenario(..., kernels=...))")
        options[key] = _literal(text)
    start = options.pop("initial", None)
    kernels = options.pop("kernels", None)
    model = {key: str(options.pop(key)) for key in MODEL_DEFAULTS if key in options}
    if source not in ("seed", "example", "file"):
        raise InvalidArgument(f"scenario={name!r}: the input {source}= cannot be rebuilt from a name (a graph "
                              f"object): replay(token, scenario=...) with the scenario itself")
    inputs = {"input_seed": int(value)} if source == "seed" else {source: value}
    return algorithm_scenario(parts[0], start=start, options=options, kernels=kernels, sim_options=model or None,
                              **inputs)


def import_kernels(path: str) -> Mapping[str, Any]:
    """The ``kernels=`` mapping at dotted ``path`` (``"package.module.NAME"``), imported."""
    import importlib

    module, _, attribute = path.rpartition(".")
    try:
        found = getattr(importlib.import_module(module), attribute) if module else None
    except ImportError as missing:
        raise InvalidArgument(f"kernels={path!r}: cannot import {module!r} ({missing})") from None
    except AttributeError:
        found = None
    if not isinstance(found, Mapping):
        raise InvalidArgument(f"kernels={path!r} names no mapping of kernels (give 'package.module.NAME')")
    return found


def _literal(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
