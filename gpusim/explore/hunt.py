"""Hunt a registered algorithm: inputs and schedules explored together, the first failure shrunk and replayable.

:func:`hunt` is what ``gpusim explore --algorithm NAME`` runs.  On one input (a graph, an example, a file)
it is :func:`~gpusim.explore.explore` on :func:`~gpusim.explore.algorithm.algorithm_scenario`.  With
``random_inputs=N`` it draws inputs from seeds ``seed, seed + 1, ...`` and gives each a share of the
schedule budget, until one fails; the input's seed is in the failing scenario's name, and so in its
replay token: ``replay(failure.replay_token)`` rebuilds the same input and runs the same schedule.

>>> found = hunt("mw-gpu", random_inputs=2, budget=4)
>>> found.found, found.schedules, found.coverage.races_checked
(False, 4, True)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gpusim.errors import InvalidArgument, OutOfTime
from gpusim.types.arguments import check_int, check_seed

from .algorithm import algorithm_scenario
from .coverage import MEMORY_MODELS, WARP_MODELS
from .paths import hint, paths_of
from .report import Exploration
from .search import SHRINK_BOUND, explore

__all__ = ["hunt", "model_pairs"]


def model_pairs(models: Sequence[tuple[str, str]] | str | None) -> list[tuple[str, str]] | None:
    """``models`` as a list of ``(memory, warps)`` pairs: ``"all"`` is every pair of the simulator's memory
    models (``sc``, ``weak``) and warp models (``independent``, ``lockstep``); ``None`` stays ``None``.

    >>> model_pairs("all")
    [('sc', 'independent'), ('sc', 'lockstep'), ('weak', 'independent'), ('weak', 'lockstep')]
    """
    if models is None:
        return None
    if models == "all":
        return [(memory, warps) for memory in MEMORY_MODELS for warps in WARP_MODELS]
    pairs = [tuple(pair) for pair in models] if not isinstance(models, str) else []
    if not pairs or any(len(p) != 2 or p[0] not in MEMORY_MODELS or p[1] not in WARP_MODELS for p in pairs):
        raise InvalidArgument(f"models={models!r}: give 'all' or (memory, warps) pairs of {MEMORY_MODELS} and "
                              f"{WARP_MODELS}")
    return pairs


def hunt(name: str, graph: Any = None, *, example: str | None = None, file: str | None = None,
         random_inputs: int | None = None, budget: int = 1000, seed: int = 0, policy: str = "random",
         kernels: Mapping[str, Any] | str | None = None, start: str | None = None,
         options: Mapping[str, Any] | None = None,
         sim_options: Mapping[str, Any] | None = None, races: str | None = None, shrink_time: float | None = 30.0,
         progress: Callable[[int], None] | None = None, models: Sequence[tuple[str, str]] | str | None = None,
         paths: bool | Sequence[Mapping[str, Any]] = False, **explore_options: Any) -> Exploration:
    """Explore algorithm ``name`` under ``budget`` schedules of ``policy`` on one input, or on random ones.

    Parameters
    ----------
    name, graph, example, file, kernels, start, options, sim_options:
        As :func:`~gpusim.explore.algorithm.algorithm_scenario` (give ``graph``, ``example``, ``file`` or
        ``random_inputs``).
    random_inputs:
        Draw this many small inputs, from seeds ``seed`` on; each gets ``budget // random_inputs``
        schedules (at least one), in turn, until one fails.
    budget, seed, policy, races, shrink_time, progress, explore_options:
        As :func:`~gpusim.explore.explore` (``progress`` counts schedules across inputs).

    paths:
        Hunt every launch path of the algorithm in turn (:data:`.paths.LAUNCH_PATHS`: the driver options that
        launch each of its kernels), an equal share of the budget each, until one fails; or only the paths given, a
        list of option sets (:func:`.paths.paths_of` lists them).  A failure that shrinking left above
        ``SHRINK_BOUND`` (3) preemptions does not end the hunt: the later paths are hunted for the same bug on a
        simpler path (a thread per item where the first path had blocks that meet at barriers), and the failure with
        the fewest preemptions is returned, even when a later path runs past the simulator's ``deadline``.
    models:
        The simulator's memory and warp models to hunt under, ``(memory, warps)`` pairs, each in turn with an
        equal share of the budget until one fails; ``"all"``: every one (:func:`model_pairs`).  ``None``: the
        model of ``sim_options`` (sequentially consistent, independent warps by default).

    Returns
    -------
    Exploration
        The failing input's exploration (its scenario names the input and the model), with ``schedules``
        counted over every input and model tried and the coverage of them all; or the last one's, when
        none failed.
    """
    check_int("budget", budget, 1, None)
    seed = check_seed(seed)
    if paths:
        return _each(lambda path, share, tick: hunt(
            name, graph, example=example, file=file, random_inputs=random_inputs, budget=share, seed=seed,
            policy=policy, kernels=kernels, start=path.pop("initial", start), options={**dict(options or {}), **path},
            sim_options=sim_options, races=races, shrink_time=shrink_time, progress=tick, models=models,
            **explore_options), [dict(p) for p in paths] if not isinstance(paths, bool) else paths_of(name), budget,
            progress, simpler=True)
    pairs = model_pairs(models)
    if pairs is not None:
        return _each(lambda pair, share, tick: hunt(
            name, graph, example=example, file=file, random_inputs=random_inputs, budget=share, seed=seed,
            policy=policy, kernels=kernels, start=start, options=options,
            sim_options={**dict(sim_options or {}), "memory": pair[0], "warps": pair[1]}, races=races,
            shrink_time=shrink_time, progress=tick, **explore_options), pairs, budget, progress)
    if random_inputs is None:
        scenario = algorithm_scenario(name, graph, example=example, file=file, kernels=kernels, start=start,
                                      options=options, sim_options=sim_options)
        return _hinted(name, explore(scenario, policy, budget, seed, races=races, shrink_time=shrink_time,
                                     progress=progress, **explore_options))
    check_int("random_inputs", random_inputs, 1, None)
    if graph is not None or example is not None or file is not None:
        raise InvalidArgument("random_inputs draws the inputs: give no graph, example or file with it")
    share, done, seconds, coverage, result = max(1, budget // random_inputs), 0, 0.0, None, None
    tried = 0
    for k in range(random_inputs):
        if done >= budget:
            break
        tried += 1
        scenario = algorithm_scenario(name, input_seed=check_seed(seed + k), kernels=kernels, start=start,
                                      options=options, sim_options=sim_options)
        tick = (lambda n, before=done: progress(before + n)) if progress is not None else None
        result = explore(scenario, policy, min(share, budget - done), seed, races=races, shrink_time=shrink_time,
                         progress=tick, **explore_options)
        done += result.schedules
        seconds += result.seconds
        if coverage is None:
            coverage = result.coverage
        else:
            coverage.merge(result.coverage)
        if result.found:
            break
    result.schedules, result.seconds, result.coverage, result.inputs = done, seconds, coverage, tried
    _hinted(name, result)
    if not result.found and tried > 1:  # name every input tried, not the last
        result.scenario = result.scenario.replace(f":seed={seed + tried - 1}", f":seed={seed}..{seed + tried - 1}", 1)
    return result


def _hinted(name: str, result: Exploration) -> Exploration:
    """``result`` with its coverage naming what launches each kernel never launched (:func:`.paths.hint`)."""
    for kernel in result.coverage.missed:
        found = hint(name, kernel)
        if found:
            result.coverage.hints[kernel] = found
    return result


def _each(run: Callable[[dict, int, Callable | None], Exploration], items: list, budget: int,
          progress: Callable[[int], None] | None, simpler: bool = False) -> Exploration:
    """``run(item, share, tick)`` for each item in turn, an equal share of ``budget`` each, until one fails: the
    failing (or last) exploration, with the schedules, seconds and coverage of them all.  With ``simpler``, a
    failure shrunk to more than ``SHRINK_BOUND`` preemptions does not end the loop: the later items may show the same
    bug with fewer, and the failure with the fewest is returned (the schedules counted up to it)."""
    share, done, total, best, best_done = max(1, budget // len(items)), 0, None, None, 0
    for item in items:
        if done >= budget:
            break
        tick = (lambda n, before=done: progress(before + n)) if progress is not None else None
        try:
            result = run(item, min(share, budget - done), tick)
        except OutOfTime:
            if best is None:
                raise
            break  # out of time looking for a simpler counterexample: keep the one found
        done += result.schedules
        if total is not None:
            total.coverage.merge(result.coverage)
            result.coverage, result.seconds = total.coverage, result.seconds + total.seconds
        total = result
        if result.found and (best is None or result.failure.preemptions < best.failure.preemptions):
            best, best_done = result, done
        if best is not None and not (simpler and _unshrunk(best)):
            break
    if best is not None and best is not total:
        best.coverage, best.seconds = total.coverage, total.seconds
    total = best or total
    total.schedules = best_done if best is not None else done
    return total


def _unshrunk(result: Exploration) -> bool:
    """Whether ``result``'s failure was shrunk, but not to ``SHRINK_BOUND`` preemptions or fewer."""
    return bool(result.failure.shrink_report.get("shrunk")) and result.failure.preemptions > SHRINK_BOUND
