"""Every kernel a registered algorithm launches, and every ``@device`` step it calls, is replaceable through
``kernels=`` the same way in every family (:func:`gpusim.language.variants.planted`).

The registry is walked: each GPU algorithm runs once on a small input to see what it launches; then every
kernel launched and every step they call is replaced by a copy of itself (a new object: the seam must really
launch it), all at once, and the result must be the one of the unmutated run, with every name taking effect.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpusim import Device
from gpusim.explore import algorithm_names, algorithm_scenario, explore
from gpusim.explore.algorithm import _lookup, draw_input
from gpusim.language.kernels import DeviceFunction, Kernel, global_names
from gpusim.language.variants import KernelsRefused, planted


def _steps(compiled) -> dict[str, DeviceFunction]:
    """Every ``@device`` function ``compiled`` calls, at any depth, by the name it is called by."""
    found: dict[str, DeviceFunction] = {}
    pending = [compiled]
    while pending:
        fn = pending.pop().fn
        for name in global_names(fn.__code__):
            value = fn.__globals__.get(name)
            if isinstance(value, DeviceFunction) and name not in found:
                found[name] = value
                pending.append(value)
    return found


def _copy(function):
    if isinstance(function, Kernel):
        made = Kernel(function.fn, check=False, intended_races=function.intended_races)
        made.signature = function.signature
        return made
    return DeviceFunction(function.fn, check=False)


def _answer(result) -> list:
    for field in ("partners", "mate", "wife", "row_match", "labels"):
        value = getattr(result, field, None)
        if value is not None:
            return np.asarray(value).tolist()
    raise AssertionError(f"no result array in {result!r}")


def _run(entry, data, **extra):
    return entry.run(data, backend="sim", device=Device("sim", seed=0), **extra)


@pytest.mark.parametrize("name", algorithm_names())
def test_every_kernel_and_step_is_replaced_by_a_copy_of_itself_with_the_same_result(name):
    entry, data = _lookup(name), draw_input(name, 1)
    probe = next(k for k in entry.kernels if isinstance(k, Kernel))
    with planted({probe.name: probe}) as seeing:  # the identity: nothing changes, every launch is seen
        expected = _answer(_run(entry, data))
    launched = dict(seeing.seen)
    steps = {step: f for compiled in launched.values() for step, f in _steps(compiled).items()}
    assert launched and steps, f"{name} launched {sorted(launched)}"
    mapping = {**{n: _copy(k) for n, k in launched.items()}, **{n: _copy(f) for n, f in steps.items()}}
    with planted(mapping) as planting:
        assert _answer(_run(entry, data)) == expected
    assert planting.used == set(mapping)
    assert _answer(_run(entry, data, kernels=mapping)) == expected  # the registry's kernels= is the same seam
    for one in sorted(mapping)[:: max(1, len(mapping) // 4)]:  # a few of them alone, through kernels=
        assert _answer(_run(entry, data, kernels={one: mapping[one]})) == expected, one
    hunted = explore(algorithm_scenario(name, data, kernels=mapping), budget=2, shrink=False)
    assert not hunted.found, hunted.failure.report()  # the identity planted: no finding


def test_a_name_nothing_launches_or_calls_is_refused_in_one_line_naming_it():
    entry = _lookup("ld")
    probe = entry.kernels[0]
    with pytest.raises(KernelsRefused, match="'no_such_step' is neither a kernel launched"):
        _run(entry, draw_input("ld", 0), kernels={"no_such_step": probe})
    with pytest.raises(KernelsRefused, match="must be a @kernel"):
        _run(entry, draw_input("ld", 0), kernels={probe.name: DeviceFunction(probe.fn, check=False)})
    with pytest.raises(KernelsRefused, match="a replacement must be"):
        _run(entry, draw_input("ld", 0), kernels={probe.name: "ld_match"})


#: A mapping naming nothing the algorithm launches or calls (for the command line's --kernels).
NOTHING_CALLED = {"no_such_step": _lookup("ld").kernels[0]}
#: The identity: LD's own kernel under its own name.
IDENTITY = {"ld_match": _lookup("ld").kernels[1]}


def test_a_refused_kernels_mapping_is_a_usage_error_not_a_finding(capsys):
    from gpusim.cli import main

    status = main(["explore", "--algorithm", "ld", "--example", "karate", "--kernels",
                   "test_kernel_seam.NOTHING_CALLED", "--budget", "5", "--quiet"])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.err.count("\n") == 1 and "'no_such_step' is neither a kernel launched" in captured.err
    assert "replay" not in captured.out + captured.err
    assert main(["explore", "--algorithm", "ld", "--example", "karate", "--kernels",
                 "test_kernel_seam.IDENTITY", "--budget", "5", "--quiet"]) == 0


def test_a_driver_check_failing_under_planted_kernels_is_a_finding_not_an_internal_bug():
    from hunt_mutants import BSUITOR_EARLY_UNLOCK

    from gpusim.explore import hunt

    found = hunt("bsuitor", random_inputs=8, budget=300, kernels=BSUITOR_EARLY_UNLOCK, races="off", shrink=False)
    assert found.found
    assert "internal bug" not in found.failure.message and "please report" not in found.failure.message
