"""The compiled engine's race detector against the reference's (backends/sim/races.py).

Oracle: the reference simulator replaying the compiled run's token with the same ``races`` mode: the
same schedule must give the same reports, in the same order; and what the kernels' authors say of
them (a tree reduction without its barriers races on its shared array; with them it does not).
"""

from __future__ import annotations

import numpy as np
import pytest

from gpusim import Device, T, kernel
from gpusim.errors import DataRace, InvalidArgument
from gpusim.zoo import classic_kernels as zoo_kernels


def _block_sum(dev: Device, reduction=zoo_kernels.block_sum_missing_syncthreads):
    total = dev.zeros(1, np.int32)
    dev.launch(reduction, 1, 8, (dev.array(np.arange(8, dtype=np.int32)), total))
    return int(dev.to_host(total)[0])


def test_the_compiled_detector_reports_what_the_reference_reports():
    shared_races = 0
    for seed in range(6):
        dev = Device("sim", engine="compiled", trace=False, seed=seed, races="report")
        total = _block_sum(dev)
        run = dev.runs[0]
        assert run.policy.endswith("(compiled)") and run.races_mode == "report"
        replayed = Device("sim", schedule=dev.token, trace=False)
        assert _block_sum(replayed) == total
        assert replayed.runs[0].races_mode == "report" and replayed.runs[0].races == run.races
        shared_races += any(race.memory == "shared" and race.array == "cache" for race in run.races)
    assert shared_races > 0  # the missing barriers let a level read what another thread has not yet written


def test_raise_mode_stops_at_the_first_race_with_a_replayable_token():
    for seed in range(20):
        dev = Device("sim", engine="compiled", trace=False, seed=seed, races="raise")
        try:
            _block_sum(dev)
        except DataRace as race:
            assert race.token == dev.token and "hazard on shared cache" in str(race)
            with pytest.raises(DataRace):
                _block_sum(Device("sim", schedule=dev.token, trace=False))
            return
    pytest.fail("no schedule of 20 raised DataRace")


@pytest.mark.slow
def test_no_race_in_the_fixed_reduction_nor_in_atomics():
    for seed in range(10):
        dev = Device("sim", engine="compiled", trace=False, seed=seed, races="report")
        assert _block_sum(dev, zoo_kernels.block_sum) == sum(range(8)) and dev.runs[0].races == []
        counter = dev.zeros(1, np.int32)
        dev.launch(zoo_kernels.count_atomic, 2, 40, (counter, 80))
        assert int(dev.to_host(counter)[0]) == 80 and dev.runs[1].races == []


@kernel(signature="int32[:], int32[:], int32", intended_races={"seen": "benign: any thread's mark will do"})
def marks(seen, counter, n):
    i = T.gtid()
    seen[i % 2] = i  # an intended race
    counter[0] = counter[0] + 1  # a lost update
    T.threadfence()


@pytest.mark.slow
def test_intended_races_are_not_reported_and_the_same_array_twice_is_one_array():
    for seed in range(10):
        dev = Device("sim", engine="compiled", trace=False, seed=seed, races="report")
        both = dev.zeros(4, np.int32)
        dev.launch(marks, 1, 6, (both, both, 6))  # one array as both arguments: its name is 'seen'
        assert dev.runs[0].races == []
        counter = dev.zeros(1, np.int32)
        dev.launch(marks, 1, 6, (dev.zeros(2, np.int32), counter, 6))
        assert {race.array for race in dev.runs[1].races} == {"counter"}
        replayed = Device("sim", schedule=dev.token, trace=False)
        again = replayed.zeros(4, np.int32)
        replayed.launch(marks, 1, 6, (again, again, 6))
        replayed.launch(marks, 1, 6, (replayed.zeros(2, np.int32), replayed.zeros(1, np.int32), 6))
        assert [run.races for run in replayed.runs] == [run.races for run in dev.runs]


def test_races_beyond_the_clock_limit_need_the_reference():
    from gpusim.backends.sim.compiled import MAX_RACE_THREADS

    dev = Device("sim", engine="compiled", trace=False, races="report")
    with pytest.raises(InvalidArgument, match="races='report' on it needs engine='reference'"):
        dev.launch(zoo_kernels.count_atomic, MAX_RACE_THREADS // 256 + 1, 256, (dev.zeros(1, np.int32), 1))
