"""What orders memory among the lanes of a warp in the simulator: ``syncwarp``, not a shuffle or vote.

Oracle: CUDA's rules (Volta and later, independent thread scheduling): ``__shfl_sync``, the votes and the
warp reductions exchange registers and order no memory; only ``__syncwarp`` (and the block barrier) does.
Lanes that write, meet at a shuffle, then read each other's writes race; with a ``syncwarp`` between they do
not.  Before Volta (``warps="lockstep"``) the lanes ran each instruction together: there every collective
orders them.  Both engines' race detectors must say the same, and a compiled run must replay on the
reference with the same reports.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpusim import Device, T, kernel
from gpusim.errors import DataRace


@kernel(signature="int32[:], int32[:], int32[:]")
def exchange_across_shuffle(values, shuffled, out):
    """Lane i writes, the warp shuffles, lane i reads lane i+1's element: nothing orders the two."""
    lane = T.lane_id()
    base = T.warp_id() * 32
    values[base + lane] = lane
    shuffled[base + lane] = T.shfl_idx(lane, (lane + 1) % 32)
    out[base + lane] = values[base + (lane + 1) % 32]


@kernel(signature="int32[:], int32[:], int32[:]")
def exchange_across_vote(values, shuffled, out):
    """As above with a ballot and a reduction between the write and the read."""
    lane = T.lane_id()
    base = T.warp_id() * 32
    values[base + lane] = lane
    shuffled[base + lane] = T.ballot(lane % 2 == 0) + T.reduce_add(lane)
    out[base + lane] = values[base + (lane + 1) % 32]


@kernel(signature="int32[:], int32[:], int32[:]")
def exchange_across_shuffle_and_syncwarp(values, shuffled, out):
    """The shuffle, then a syncwarp: the writes happen before the reads."""
    lane = T.lane_id()
    base = T.warp_id() * 32
    values[base + lane] = lane
    shuffled[base + lane] = T.shfl_idx(lane, (lane + 1) % 32)
    T.syncwarp()
    out[base + lane] = values[base + (lane + 1) % 32]


def _launch(dev: Device, exchange, warps: int = 1):
    n = 32 * warps
    arrays = [dev.zeros(n, np.int32) for _ in range(3)]
    dev.launch(exchange, grid=1, block=n, args=tuple(arrays))
    return [dev.to_host(a).tolist() for a in arrays]


def _device(engine: str, seed: int, races: str = "report", **options) -> Device:
    return Device("sim", engine=engine, seed=seed, races=races, trace=False, **options)


@pytest.mark.parametrize("engine", ["reference", "compiled"])
@pytest.mark.parametrize("exchange", [exchange_across_shuffle, exchange_across_vote])
def test_a_shuffle_or_vote_does_not_order_the_lanes_memory(engine, exchange):
    dev = _device(engine, seed=0)
    values, _, out = _launch(dev, exchange)
    assert values == list(range(32)) and out == [(i + 1) % 32 for i in range(32)]  # the rendezvous still holds
    races = dev.runs[0].races
    assert races and {race.kind for race in races} == {"RAW"}
    assert {(race.memory, race.array) for race in races} == {("global", "values")}
    assert all(race.first[0] != race.second[0] for race in races)  # two lanes, unordered


@pytest.mark.parametrize("seed", range(3))
def test_both_engines_report_the_same_races_and_the_compiled_run_replays(seed):
    compiled = _device("compiled", seed)
    _launch(compiled, exchange_across_shuffle, warps=2)
    assert compiled.runs[0].policy.endswith("(compiled)") and compiled.runs[0].races
    replayed = Device("sim", schedule=compiled.token, trace=False)
    _launch(replayed, exchange_across_shuffle, warps=2)
    assert replayed.runs[0].races == compiled.runs[0].races


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_races_raise_stops_at_the_shuffle_exchange(engine):
    dev = _device(engine, seed=1, races="raise")
    with pytest.raises(DataRace) as caught:
        _launch(dev, exchange_across_shuffle)
    assert "hazard on global values" in str(caught.value) and caught.value.token


@pytest.mark.parametrize("engine", ["reference", "compiled"])
@pytest.mark.parametrize("seed", range(3))
def test_a_syncwarp_after_the_shuffle_orders_them(engine, seed):
    dev = _device(engine, seed)
    _, shuffled, out = _launch(dev, exchange_across_shuffle_and_syncwarp, warps=2)
    assert shuffled == out == [(i + 1) % 32 for i in range(64)]
    assert dev.runs[0].races == []


@pytest.mark.parametrize("exchange", [exchange_across_shuffle, exchange_across_vote])
@pytest.mark.parametrize("seed", range(3))
def test_lockstep_warps_are_ordered_at_every_collective(exchange, seed):
    dev = _device("reference", seed, warps="lockstep")
    _, _, out = _launch(dev, exchange)
    assert out == [(i + 1) % 32 for i in range(32)] and dev.runs[0].races == []


def test_weak_memory_is_refreshed_at_syncwarp_only():
    """A shuffle publishes nothing: some lane reads its neighbour's old 0; after a syncwarp every lane sees it."""
    stale = 0
    for seed in range(20):
        dev = Device("sim", seed=seed, memory="weak", trace=False)
        stale += _launch(dev, exchange_across_shuffle)[2] != [(i + 1) % 32 for i in range(32)]
        dev = Device("sim", seed=seed, memory="weak", trace=False)
        assert _launch(dev, exchange_across_shuffle_and_syncwarp)[2] == [(i + 1) % 32 for i in range(32)]
    assert stale > 0
