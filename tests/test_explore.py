"""gpusim.explore: every way of picking schedules finds the lost update, shrinks it, and its token replays."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gpusim import Device, T, kernel
from gpusim.cli import main
from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.explore import METHODS, Scenario, ddmin, explore, replay


@pytest.mark.parametrize("policy", METHODS)
def test_every_policy_finds_the_lost_update_with_one_preemption(policy):
    result = explore("lost_update", policy=policy, budget=300)
    failure = result.failure
    assert failure is not None and failure.kind == "invariant" and "lost" in failure.message
    assert failure.preemptions == 1 and len(failure.shrunk) == 1
    again = replay(failure.replay_token)
    assert again.trace == failure.trace and again.token == failure.token and again.kind == "invariant"
    loads = [e for e in failure.interleaving() if e.op == "load"]
    assert any(a.value == b.value and a.thread != b.thread for a in loads for b in loads)


def test_the_token_replays_on_a_plain_device_too():
    failure = explore("lost_update", budget=50).failure
    dev = Device("sim", schedule=failure.token)
    counter = dev.zeros(1, np.int32)
    from gpusim.zoo.classic_kernels import count_plain

    dev.launch(count_plain, 1, 3, (counter, 3))
    assert int(dev.to_host(counter)[0]) == 2


def test_pct_reports_its_probability_guarantee():
    result = explore("lost_update", policy="pct", budget=100, depth=2)
    n, k = 3, 6  # threads, and the steps of the sequential run: 1/(n k^(d-1))
    assert result.probability_bound == pytest.approx(1 / (n * k))
    assert result.failure.probability_bound == result.probability_bound
    assert "PCT guarantee" in result.failure.report()


@kernel(signature="int32[:], int32[:], int32")
def _count_after_reading(table, counter, n):
    i = T.gtid()
    if i < n:
        s = table[0] + table[1] + table[2] + table[3]  # read-only: no preemption here can matter
        T.atomic_add(counter, 0, s - s + 1)


def _reading(dev):
    counter = dev.zeros(1, np.int32)
    dev.launch(_count_after_reading, 1, 3, (dev.array(np.arange(4, dtype=np.int32)), counter, 3))
    return None if int(dev.to_host(counter)[0]) == 3 else "lost"


def test_the_reduction_explores_fewer_schedules_and_still_proves_the_bound():
    scenario = Scenario("test.reading", _reading, threads=3)
    full = explore(scenario, policy="systematic", budget=100_000, max_preemptions=2, reduction=False)
    reduced = explore(scenario, policy="systematic", budget=100_000, max_preemptions=2, reduction=True)
    assert full.exhausted and reduced.exhausted and not full.found and not reduced.found
    assert reduced.schedules < full.schedules / 5


def test_ddmin_is_one_minimal():
    assert ddmin(list(range(20)), lambda kept: {4, 11, 17} <= set(kept)) == [4, 11, 17]
    assert ddmin([1, 2], lambda kept: True) == []


def test_a_passing_scenario_reports_no_failure():
    result = explore("lost_update.fixed", policy="systematic", budget=10_000)
    assert result.failure is None and result.exhausted


def test_cli_explore_json_and_replay(capsys, tmp_path):
    picture = tmp_path / "lanes.svg"
    assert main(["explore", "lost_update", "--json", "--png", str(picture)]) == 1
    found = json.loads(capsys.readouterr().out)
    assert found["found"] and found["preemptions"] == 1 and picture.stat().st_size > 0
    assert main(["explore", "--replay", found["failure"]["replay"]]) == 1
    assert "update was lost" in capsys.readouterr().out
    assert main(["explore", "lost_update.fixed", "--budget", "20"]) == 0


def test_cli_explore_on_the_compiled_engine(capsys):
    assert main(["explore", "lost_update", "--engine", "compiled", "--json"]) == 1
    found = json.loads(capsys.readouterr().out)
    assert found["found"] and found["preemptions"] == 1
    # the compiled engine checks races (report by default): the lost update's load/store races are listed
    assert found["coverage"]["races_checked"]
    assert found["coverage"]["races"] and all("counter[0]" in race["race"] for race in found["coverage"]["races"])
    assert main(["explore", "lost_update.fixed", "--engine", "compiled", "--budget", "3000"]) == 0
    assert "no failure in 3000 schedule(s)" in capsys.readouterr().out


BAD = [
    ("unknown scenario", lambda: explore("nope"), InvalidArgument, "'nope'"),
    ("unknown policy", lambda: explore("lost_update", policy="dfs"), InvalidArgument, "'dfs'"),
    ("zero budget", lambda: explore("lost_update", budget=0), InvalidArgument, "budget=0"),
    ("float budget", lambda: explore("lost_update", budget=1.5), InvalidArgumentType, "budget=1.5"),
    ("negative bound", lambda: explore("lost_update", max_preemptions=-1), InvalidArgument, "max_preemptions=-1"),
    ("token without scenario", lambda: replay("gs1-abc"), InvalidArgument, "names no scenario"),
    ("damaged token", lambda: replay("lost_update@gs1-!!"), InvalidArgument, "damaged"),
    ("scenario not callable", lambda: Scenario("x", 3), InvalidArgumentType, "run must be callable"),
]


@pytest.mark.parametrize("what, call, exception, fragment", BAD, ids=[case[0] for case in BAD])
def test_bad_input(what, call, exception, fragment):
    with pytest.raises(exception) as caught:
        call()
    assert fragment in str(caught.value)
