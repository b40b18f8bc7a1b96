"""The explorer on real failures: any exception a finding, launches of different sizes, races on by default,
bounded verdicts, the shrinker's time budget, and algorithm scenarios that replay by name."""

from __future__ import annotations

import re

import numpy as np
import pytest

from gpusim import T, kernel
from gpusim.errors import GpusimInternalError, InvalidArgument
from gpusim.explore import Scenario, Switches, algorithm_names, algorithm_scenario, explore, hunt, replay
from gpusim.explore.algorithm import draw_input, scenario_from_name
from gpusim.explore.search import with_races


@kernel(signature="int32[:], int32")
def _spread(out, n):
    i = T.gtid()
    if i < n:
        out[i] = i


@kernel(signature="int32[:]")
def _racy_add(counter):
    counter[0] = counter[0] + 1


def _two_sizes(dev):
    """A 256-thread launch, then a 32-thread one (as ROMA's block phase after a fill)."""
    out = dev.zeros(256, np.int32)
    dev.launch(_spread, 1, 256, (out, 256))
    dev.launch(_spread, 1, 32, (out, 32))
    return None if dev.to_host(out).tolist() == list(range(256)) else "wrong"


def test_switches_naming_a_thread_beyond_a_smaller_launch_are_ignored():
    scenario = Scenario("test.two_sizes", _two_sizes, threads=256)
    _, dev = scenario.execute(policy="sequential")
    first = dev.runs[0].steps
    # a switch to thread 200 recorded in the 256-thread launch, landing in the 32-thread one once shifted
    outcome, again = scenario.execute(policy=Switches([(first + 3, 200)]))
    assert outcome is None
    assert [run.block for run in again.runs] == [256, 32]


def _post_check_raises(dev):
    counter = dev.zeros(1, np.int32)
    dev.launch(_racy_add, 1, 2, (counter,))
    if int(dev.to_host(counter)[0]) != 2:
        raise GpusimInternalError("the driver's own post-check failed")
    return None


def test_an_exception_from_host_code_is_a_finding_with_a_replay_token():
    scenario = Scenario("test.host_raises", _post_check_raises, threads=2)
    found = explore(scenario, budget=200, races="off")
    assert found.found and found.failure.kind == "GpusimInternalError"
    assert "post-check" in found.failure.message
    assert found.failure.preemptions == 1
    assert replay(found.failure.token, scenario).kind == "GpusimInternalError"


def test_races_are_reported_by_default_with_a_replay_token():
    def body(dev):
        counter = dev.zeros(1, np.int32)
        dev.launch(_racy_add, 1, 2, (counter,))
        return None

    found = explore(Scenario("test.racy_quiet", body, threads=2), budget=3)
    assert not found.found
    assert found.coverage.races_checked
    races = list(found.coverage.races.values())
    assert races and all("counter[0]" in race["race"] for race in races)
    assert all(race["replay"].startswith("test.racy_quiet@gs") for race in races)
    assert f"data races reported: {len(races)}" in found.coverage.note()
    raised = explore(Scenario("test.racy_quiet", body, threads=2), budget=3, races="raise")
    assert raised.found and raised.failure.kind == "DataRace"


def test_the_compiled_engine_checks_races_and_the_note_says_not_checked_only_when_off():
    scenario, coverage = with_races(Scenario("test.plain", _two_sizes), None, "compiled")
    assert scenario.options["races"] == "report" and coverage.races_checked
    assert "races: not checked" not in coverage.note()
    off, unchecked = with_races(scenario, "off", "compiled")
    assert off.options["races"] == "off" and not unchecked.races_checked
    assert "races: not checked" in unchecked.note()
    with pytest.raises(InvalidArgument, match="races='sometimes'"):
        with_races(scenario, "sometimes", "reference")


def test_an_engine_refusing_the_launch_ends_the_exploration_not_a_finding():
    weak = Scenario("test.two_sizes_weak", _two_sizes, options={"memory": "weak"}, threads=256)
    with pytest.raises(InvalidArgument, match="sequentially consistent memory only"):
        explore(weak, budget=2, engine="compiled")
    with pytest.raises(InvalidArgument, match="policy='systematic'"):
        explore(Scenario("test.two_sizes", _two_sizes, threads=256), "systematic", budget=2, engine="compiled")


def test_a_systematic_search_reports_its_bound():
    def body(dev):
        dev.launch(_racy_add, 1, 3, (dev.zeros(1, np.int32),))
        return None

    quiet = Scenario("test.racy_unchecked", body, threads=3)
    done = explore(quiet, policy="systematic", max_preemptions=1, budget=10_000, races="off")
    assert done.exhausted and done.schedules > 1
    assert "exhausted within 1 preemption(s), preempting only before conflicting accesses" in done.verdict
    full = explore(quiet, policy="systematic", max_preemptions=1, budget=10_000, reduction=False, races="off")
    assert full.exhausted and "exhausted within 1 preemption(s);" in full.verdict
    cut = explore(quiet, policy="systematic", max_preemptions=2, budget=2, races="off")
    assert not cut.exhausted and "not exhausted within 2" in cut.verdict
    assert cut.to_dict()["bound"] == 2


def test_shrinking_reports_what_it_reached():
    found = explore("lost_update", budget=100, shrink_time=30)
    report = found.failure.shrink_report
    assert report["finished"] and report["preemptions_after"] == found.failure.preemptions == 1
    assert report["preemptions_before"] >= 1
    with pytest.raises(InvalidArgument, match="shrink_time"):
        explore("lost_update", shrink_time=0)


def test_shrinking_out_of_time_keeps_a_failure_that_replays_and_says_so():
    found = explore("lost_update", policy="random", budget=100, seed=3, shrink_time=1e-9)
    report = found.failure.shrink_report
    assert not report["finished"] and report["time_limit"] == 1e-9
    assert report["preemptions_after"] == found.failure.preemptions <= report["preemptions_before"]
    assert "stopped at the 1e-09 s limit" in found.failure.report()
    assert replay(found.failure.replay_token).kind == found.failure.kind


@pytest.mark.slow
def test_every_gpu_algorithm_runs_correctly_under_its_oracle():
    for name in algorithm_names():
        scenario = algorithm_scenario(name, input_seed=3)
        assert scenario.attempt(policy="random", seed=1) is None, name


def test_an_algorithm_scenario_is_rebuilt_from_its_name():
    scenario = algorithm_scenario("gpr", input_seed=2, start="empty", options={"shrink_at": 1})
    assert scenario.name == "algorithm:gpr:seed=2:initial=empty:shrink_at=1"
    again = scenario_from_name(scenario.name)
    _, first = scenario.execute(policy="random", seed=5)
    _, second = again.execute(policy="random", seed=5)
    assert first.token == second.token
    assert draw_input("gpr", 2) == draw_input("gpr", 2)


def test_a_lowered_threshold_reaches_compaction_and_the_coverage_note_says_so():
    plain = hunt("gpr", random_inputs=2, budget=4, start="empty")
    assert "compact_active" in plain.coverage.missed
    assert re.search(r"never launched: .*compact_active", plain.coverage.note())
    lowered = hunt("gpr", random_inputs=2, budget=4, start="empty", options={"shrink_at": 1})
    assert lowered.coverage.kernels["compact_active"] > 0
    assert lowered.coverage.pairs and lowered.inputs == 2


def test_bad_hunts_are_one_line_errors():
    with pytest.raises(InvalidArgument, match="'nope' is not a registered GPU algorithm; choose one of apfb"):
        algorithm_scenario("nope", input_seed=0)
    with pytest.raises(InvalidArgument, match="only the bipartite drivers take a start"):
        algorithm_scenario("suitor", input_seed=0, start="empty")
    with pytest.raises(InvalidArgument, match="give one input"):
        algorithm_scenario("gpr")
    with pytest.raises(InvalidArgument, match="planted kernels"):
        scenario_from_name("algorithm:gpr:seed=1:kernels=fix_columns")
