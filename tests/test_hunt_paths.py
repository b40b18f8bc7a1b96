"""Every launch path: the options of :data:`gpusim.explore.paths.LAUNCH_PATHS` launch the kernels they claim, the
paths together launch every kernel an algorithm declares (but those :data:`NEEDS` names), and the coverage note
names the option that reaches a kernel never launched."""

from __future__ import annotations

import pytest

from gpusim import Device
from gpusim.cli import main
from gpusim.explore import algorithm_names, hunt
from gpusim.explore.algorithm import _lookup, draw_input
from gpusim.explore.paths import LAUNCH_PATHS, NEEDS


@pytest.mark.parametrize("name", sorted(LAUNCH_PATHS))
def test_each_launch_path_launches_the_kernels_it_claims(name):
    for options, reaches in LAUNCH_PATHS[name]:
        launched = set()
        for seed in (0, 1):
            dev = Device("sim", seed=0)
            _lookup(name).run(draw_input(name, seed), backend="sim", device=dev, **options)
            launched |= {run.kernel.rsplit(".", 1)[-1] for run in dev.runs}
        assert set(reaches) <= launched, (options, set(reaches) - launched)


@pytest.mark.parametrize("name", algorithm_names())
def test_the_paths_reach_every_declared_kernel(name):
    declared = {kernel.name for kernel in _lookup(name).kernels}
    reached = {kernel for _, reaches in LAUNCH_PATHS.get(name, ()) for kernel in reaches}
    if name not in LAUNCH_PATHS:
        return  # one path: the default launches its kernels (test_hunt_controls runs it)
    assert declared - reached - set(NEEDS) == set()


def test_the_coverage_note_names_the_option_that_launches_a_kernel_never_launched(capsys):
    found = hunt("apfb", random_inputs=1, budget=2)
    note = found.coverage.note()
    assert "augment_in_one_block (--option launches=one-block --start empty)" in note and "--all-paths" in note
    every = hunt("apfb", random_inputs=1, budget=14, paths=True)
    assert set(every.coverage.missed) <= set(NEEDS), every.coverage.missed
    assert main(["explore", "--algorithm", "roma", "--random-inputs", "1", "--budget", "4", "--all-paths",
                 "--quiet"]) == 0
    assert "never launched: roma_thread_phase" not in capsys.readouterr().out


def test_a_campaign_says_what_it_did_not_hunt(capsys):
    assert main(["explore", "--algorithm", "mw-gpu", "--example", "marriage", "--budget", "2", "--time", "30",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "not hunted: memory/warp models other than sc/independent (--models all)" in out and "--all-paths" in out


def _planted(name, function, kind, last=False):
    from gpusim.explore.mutate import mutants

    made = [m for m in mutants(name) if m.function == function and m.kind == kind]
    return (made[-1] if last else made[0]).kernels


def test_the_paths_reach_a_grid_stride_loops_later_turns_and_a_counter_two_threads_update():
    # ROMA's barrier closing its loop over matching edges matters only when a block takes a second edge;
    # b-Suitor's offers-made counter is updated by two threads at once only when a vertex has two offers out
    barrier = _planted("roma", "roma_block_phase", "barrier-removed", last=True)
    assert not hunt("roma", random_inputs=2, budget=8, kernels=barrier, races="raise", shrink=False).found
    assert hunt("roma", random_inputs=2, budget=12, kernels=barrier, races="raise", paths=True, shrink=False).found
    counter = _planted("bsuitor", "offer_under_lock", "atomic-to-plain")
    assert hunt("bsuitor", random_inputs=4, budget=16, kernels=counter, races="raise", paths=True, shrink=False).found


def test_a_grid_cap_below_one_is_refused_in_one_line():
    import numpy as np

    from gpusim.algorithms.weighted import roma
    from gpusim.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="max_grid"):
        roma(np.zeros((2, 2)), backend="sim", max_grid=0)
    w = np.array([[0, 1, 5, 0], [1, 0, 0, 5], [5, 0, 0, 1], [0, 5, 1, 0]], float)
    assert roma(w, backend="sim", max_grid=1).mate.tolist() == roma(w, backend="sim").mate.tolist() == [2, 3, 0, 1]
