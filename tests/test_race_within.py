"""Races intended within steps (``intended_races={"a": within(step, why=...)}``): a race between two accesses made
inside the step is not reported, any other race on the array is, by the reference detector (races.py) and the
compiled one (compiled_races.py) alike.

Oracles: the kernels' own structure (a barrier between two steps orders them; without it the second step reads
what the first writes), the reference replaying the compiled engine's token (the same reports, in the same
order), and the one-block APFB/APsB kernel with each of its barriers removed (a race between two steps: reported)
and unmutated (none).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from gpusim import Device, T, device, kernel
from gpusim.errors import DataRace, InvalidArgumentType
from gpusim.language.kernels import RacesWithin, race_scopes, within

BLOCK = 8


@device
def put(seen, value):
    seen[value % 2] = value


@device
def mark_step(seen):
    put(seen, T.gtid())  # every thread writes one of two cells: the race the step intends


@device
def read_step(seen, out):
    out[T.gtid()] = seen[(T.gtid() + 1) % 2]


_WHY = within(mark_step, why="any thread's mark will do: the readers take whichever is there")


@kernel(signature="int32[:], int32[:]", intended_races={"seen": _WHY})
def steps_with_barrier(seen, out):
    mark_step(seen)
    T.syncthreads()
    read_step(seen, out)


@kernel(signature="int32[:], int32[:]", intended_races={"seen": _WHY})
def steps_without_barrier(seen, out):
    mark_step(seen)
    read_step(seen, out)


@kernel(signature="int32[:], int32[:]", intended_races={"seen": _WHY})
def helper_outside_the_step(seen, out):
    mark_step(seen)
    T.syncthreads()
    if T.gtid() == 0:
        put(seen, 7)  # the step's helper, called from the kernel's own code: outside the step
    read_step(seen, out)


@kernel(signature="int32[:], int32[:]", intended_races={"seen": "any thread's mark will do, anywhere"})
def anywhere_without_barrier(seen, out):
    mark_step(seen)
    read_step(seen, out)


def _races(compiled, engine: str, seed: int, mode: str = "report"):
    dev = Device("sim", engine=engine, trace=False, seed=seed, races=mode, policy="random")
    dev.launch(compiled, 1, BLOCK, (dev.zeros(2, np.int32), dev.zeros(BLOCK, np.int32)))
    return dev


def test_the_declaration_is_a_reason_that_names_its_steps():
    assert isinstance(_WHY, str) and _WHY.phases == ("mark_step",)
    assert _WHY.startswith("any thread's mark will do") and "within mark_step only" in _WHY
    assert race_scopes(steps_with_barrier.intended_races) == {"seen": ("mark_step",)}
    assert race_scopes(anywhere_without_barrier.intended_races) == {"seen": None}
    again = pickle.loads(pickle.dumps(_WHY))  # a Dask worker receives it as it is
    assert isinstance(again, RacesWithin) and again == _WHY and again.phases == _WHY.phases


@pytest.mark.parametrize("bad", [lambda: within(why="no step"), lambda: within(steps_with_barrier, why="a kernel"),
                                 lambda: within(mark_step, why="")])
def test_bad_declarations_are_refused(bad):
    with pytest.raises(InvalidArgumentType, match="within"):
        bad()


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_races_inside_the_step_are_not_reported(engine):
    for seed in range(6):
        assert _races(steps_with_barrier, engine, seed).runs[0].races == []


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_race_between_two_steps_is_reported(engine):
    found = []
    for seed in range(6):
        found += _races(steps_without_barrier, engine, seed).runs[0].races
    assert found and {race.array for race in found} == {"seen"}
    # one side in the step's helper (put), the other in the reading step: never two marks
    assert all({race.first[1], race.second[1]} == {"store", "load"} for race in found)
    # the same kernel declaring the array's races anywhere: nothing reported, as before
    assert all(_races(anywhere_without_barrier, engine, seed).runs[0].races == [] for seed in range(3))


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_step_helper_called_from_outside_the_step_is_checked(engine):
    found = [race for seed in range(6) for race in _races(helper_outside_the_step, engine, seed).runs[0].races]
    assert found and all(race.array == "seen" and race.memory == "global" for race in found)


@pytest.mark.slow
def test_the_compiled_detector_reports_what_the_reference_reports():
    for compiled in (steps_with_barrier, steps_without_barrier, helper_outside_the_step):
        for seed in range(5):
            dev = _races(compiled, "compiled", seed)
            assert dev.runs[0].policy.endswith("(compiled)")
            replayed = Device("sim", schedule=dev.token, trace=False)
            replayed.launch(compiled, 1, BLOCK, (replayed.zeros(2, np.int32), replayed.zeros(BLOCK, np.int32)))
            assert replayed.runs[0].races == dev.runs[0].races, (compiled.name, seed)


def test_raise_mode_names_the_steps_of_the_declaration():
    for seed in range(10):
        try:
            _races(steps_without_barrier, "reference", seed, mode="raise")
        except DataRace as race:
            assert "only within mark_step" in str(race) and "barrier missing" in str(race)
            return
    pytest.fail("no schedule of 10 raised DataRace")


# -- the one-block APFB/APsB kernel ------------------------------------------------------------------------------

_MODELS = [("sc", "independent"), ("sc", "lockstep")]
_ONE_BLOCK = {"launches": "one-block"}


def _hunt(name, kernels=None, budget=8):
    from gpusim.explore.hunt import hunt

    # from the empty matching: every phase alternates paths and repairs the matching (from the cheap one the
    # small random inputs need no second phase)
    return hunt(name, random_inputs=2, budget=budget, seed=0, kernels=kernels, races="raise", start="empty",
                options=_ONE_BLOCK, models=_MODELS, shrink=False)


@pytest.mark.parametrize("name", ["apfb", "apsb"])
def test_the_one_block_kernel_races_only_within_its_steps(name):
    result = _hunt(name)
    assert not result.found, result.failure
    assert result.schedules == 8


@pytest.mark.parametrize("position", [0, 1, 2], ids=["after-init", "between-levels", "after-alternate"])
def test_a_barrier_removed_from_the_one_block_kernel_is_a_race_between_steps(position):
    from gpusim.explore.mutate import mutants

    removed = sorted((m for m in mutants("apfb", ("barrier-removed",)) if m.function == "augment_in_one_block"),
                     key=lambda m: m.line)[position]
    result = _hunt("apfb", removed.kernels)
    assert result.found and result.failure.kind == "DataRace", removed.name
    assert "(a barrier missing between two steps?)" in result.failure.message
