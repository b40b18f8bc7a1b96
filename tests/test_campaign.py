"""Campaigns on Dask: two local workers give the single process's answer (verdict, shrunk schedule, token);
a killed worker, an interrupted campaign and a scheduler that does not answer lose nothing and say so."""

from __future__ import annotations

import json
import logging
import os
import signal
import time

import pytest

from gpusim.cli import main
from gpusim.errors import BackendUnavailable, InvalidArgument
from gpusim.explore import algorithm_scenario, campaign, explore, replay
from gpusim.explore.distributed import dask_client
from gpusim.explore.journal import read_journal
from gpusim.zoo import ZOO

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                       silence_logs=logging.ERROR)
    with distributed.Client(cluster) as dask:
        yield dask
    cluster.close()


def answer(result) -> dict:
    """What must not depend on the workers: explore's verdict and its whole failure report."""
    failure = result.failure
    return {"found": result.found, "schedules": result.schedules, "exhausted": result.exhausted,
            "bound": result.probability_bound,
            "failure": failure and {key: getattr(failure, key) for key in (
                "kind", "message", "policy", "schedule_index", "token", "original_token", "shrunk", "preemptions",
                "probability_bound", "trace")}}


def chunks_of(path: str) -> list[tuple[int, int, int]]:
    return [(record["level"], record["first"], record["stop"]) for record in read_journal(path)[1]
            if record["record"] == "chunk"]


def assert_each_schedule_once(path: str, expected: dict[int, int]) -> None:
    """Per level, the chunks in the file cover positions 0..n-1 exactly once (no schedule skipped or run twice)."""
    covered: dict[int, list[int]] = {}
    for level, first, stop in chunks_of(path):
        covered.setdefault(level, []).extend(range(first, stop))
    assert {level: sorted(positions) for level, positions in covered.items()} == {
        level: list(range(size)) for level, size in expected.items()}


# -- the same answer with two workers ----------------------------------------------------------------------------

REPRESENTATIVE = [("lost_update", "random"), ("lost_update", "pct"), ("atomic_flip_no_mates_check", "random"),
                  ("atomic_flip_no_mates_check", "systematic"), ("suitor_no_cas", "systematic"),
                  ("reduction_missing_syncthreads.fixed", "systematic"), ("lock_without_fence.fixed", "random")]


@pytest.mark.parametrize("name, policy", REPRESENTATIVE)
def test_two_workers_give_the_single_process_answer(client, name, policy):
    alone = explore(name, policy, budget=120)
    spread = campaign(name, policy, budget=120, client=client, chunk_size=3)
    assert spread.workers == 2
    assert answer(spread) == answer(alone)
    if alone.found:
        assert spread.failure.replay_token == alone.failure.replay_token
        assert replay(spread.failure.replay_token).trace == alone.failure.trace


def test_an_algorithm_scenario_gives_the_single_process_answer_on_two_workers(client):
    # the mutant by dotted path (tests/hunt_mutants.py): the scenario travels by name, rebuilt on the workers
    mutant = algorithm_scenario("suitor", input_seed=0, kernels="hunt_mutants.SUITOR_CAS_TO_EXCHANGE",
                                options={"layout": "thread"})
    alone = explore(mutant, budget=20)
    spread = campaign(mutant, budget=20, client=client, chunk_size=1)
    assert alone.found and spread.workers == 2
    assert answer(spread) == answer(alone)
    assert spread.failure.replay_token == alone.failure.replay_token
    plain = algorithm_scenario("suitor", input_seed=0)
    alone = explore(plain, budget=6)
    spread = campaign(plain, budget=6, client=client, chunk_size=2)
    assert not alone.found and answer(spread) == answer(alone)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ZOO))
def test_every_zoo_entry_gives_the_single_process_answer(client, name):
    entry = ZOO[name]
    for scenario, policy in ((entry.broken, entry.policy), (entry.broken, "systematic"), (entry.fixed, "random")):
        alone = explore(scenario, policy, budget=200)
        assert answer(campaign(scenario, policy, budget=200, client=client, chunk_size=5)) == answer(alone)


def test_in_process_campaign_is_explore(tmp_path):
    for policy in ("random", "systematic"):
        assert (answer(campaign("atomic_flip_no_mates_check", policy, budget=100))
                == answer(explore("atomic_flip_no_mates_check", policy, budget=100)))


# -- faults ------------------------------------------------------------------------------------------------------


def test_a_worker_killed_mid_chunk_loses_nothing(client, tmp_path):
    path = str(tmp_path / "killed.jsonl")
    killed = []

    def kill_a_busy_worker(done, interleavings):
        if killed:
            return
        busy = [address for address, tasks in client.processing().items() if tasks]
        if not busy:
            return
        pids = client.run(os.getpid, workers=busy[:1])
        for pid in pids.values():
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    alone = explore("louvain_singleton_swap.fixed", "random", budget=240)
    spread = campaign("louvain_singleton_swap.fixed", "random", budget=240, client=client, chunk_size=30,
                      save=path, progress=kill_a_busy_worker)
    assert killed
    assert answer(spread) == answer(alone)
    assert spread.schedules_run == 240
    assert_each_schedule_once(path, {0: 240})
    client.wait_for_workers(2, timeout=60)


@pytest.mark.parametrize("policy, budget, sizes", [("random", 90, {0: 90}), ("systematic", 60, None)])
def test_an_interrupted_campaign_resumes_without_skipping_or_repeating(tmp_path, policy, budget, sizes):
    path = str(tmp_path / "campaign.jsonl")
    name = "atomic_flip_max_first.fixed"

    def stop_after_three_chunks(done, interleavings, calls=[]):  # noqa: B006 - counts the calls
        calls.append(done)
        if len(calls) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        campaign(name, policy, budget=budget, chunk_size=7, save=path, progress=stop_after_three_chunks)
    assert len(chunks_of(path)) == 3
    with open(path, "a") as file:  # a kill can leave half a line
        file.write('{"record": "chunk", "lev')
    resumed = campaign(name, policy, budget=budget, chunk_size=7, resume=path)
    alone = explore(name, policy, budget=budget)
    assert answer(resumed) == answer(alone)
    assert resumed.schedules_run == alone.schedules
    if sizes is None:  # the systematic search: each level's size, from the single process's own count
        levels = {}
        for level, _, stop in chunks_of(path):
            levels[level] = max(levels.get(level, 0), stop)
        assert sum(levels.values()) == alone.schedules and len(levels) > 1
        sizes = levels
    assert_each_schedule_once(path, sizes)


def test_a_resumed_campaign_must_be_the_same_campaign(tmp_path):
    path = str(tmp_path / "c.jsonl")
    campaign("lost_update.fixed", "random", budget=10, save=path)
    with pytest.raises(InvalidArgument, match="seed=0, not 5"):
        campaign("lost_update.fixed", "random", budget=20, seed=5, resume=path)
    with pytest.raises(InvalidArgument, match="already holds a campaign"):
        campaign("lost_update.fixed", "random", budget=20, save=path)


def test_a_scheduler_that_does_not_answer_is_one_line_within_seconds(capsys):
    start = time.perf_counter()
    with pytest.raises(BackendUnavailable, match="could not connect to a Dask scheduler"):
        with dask_client(scheduler="tcp://127.0.0.1:9", timeout=2):
            pass
    status = main(["explore", "lost_update", "--scheduler", "tcp://127.0.0.1:9"])
    error = capsys.readouterr().err.strip()
    assert status == 1 and "\n" not in error and "tcp://127.0.0.1:9" in error
    assert "could not connect to a Dask scheduler" in error
    assert time.perf_counter() - start < 20


def test_hypothesis_with_workers_is_refused_in_one_line(capsys):
    assert main(["explore", "lost_update", "--policy", "hypothesis", "--workers", "2"]) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and "Hypothesis engine runs in one process" in error


def test_an_algorithm_campaign_from_the_command_line(capsys):
    assert main(["explore", "--algorithm", "suitor", "--random-inputs", "2", "--time", "20", "--budget", "4",
                 "--quiet"]) == 0  # --time takes --random-inputs: a campaign per input, the time shared
    out = capsys.readouterr().out
    assert "algorithm:suitor:seed=0" in out and "algorithm:suitor:seed=1" in out
    assert main(["explore", "--algorithm", "suitor", "--random-inputs", "2", "--time", "5", "--save", "x.jsonl"]) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and "a saved campaign explores one input" in error
    assert main(["explore", "--algorithm", "suitor", "--example", "karate", "--budget", "3", "--time", "60",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["scenario"] == "algorithm:suitor:example=karate" and result["schedules"] == 3
    assert result["stopped"] == "budget" and not result["found"]


# -- the command line ---------------------------------------------------------------------------------------------


def test_cli_campaign_on_a_scheduler_gives_explores_token(client, capsys, tmp_path):
    path = str(tmp_path / "cli.jsonl")
    status = main(["explore", "suitor_no_cas", "--policy", "systematic", "--budget", "50", "--scheduler",
                   client.scheduler.address, "--save", path, "--json"])
    record = json.loads(capsys.readouterr().out)
    assert status == 1 and record["workers"] == 2
    assert record["failure"]["replay"] == explore("suitor_no_cas", "systematic", budget=50).failure.replay_token
    kinds = [line["record"] for line in map(json.loads, open(path))]
    assert kinds[0] == "campaign" and "chunk" in kinds and kinds[-2:] == ["failure", "summary"]


def test_cli_time_limit_and_resume(capsys, tmp_path):
    path = str(tmp_path / "t.jsonl")
    assert main(["explore", "atomic_flip_max_first.fixed", "--budget", "1000000", "--chunk", "10", "--save", path,
                 "--time", "0.2", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["stopped"] == "time" and 0 < first["schedules_run"] < 1_000_000
    budget = first["schedules_run"] + 35
    assert main(["explore", "--resume", path, "--budget", str(budget), "--json"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["stopped"] == "budget" and second["schedules_run"] == budget
    assert_each_schedule_once(path, {0: budget})


def test_ctrl_c_then_resume_from_the_command_line(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "ctrl-c.jsonl"
    command = [sys.executable, "-m", "gpusim", "explore", "atomic_flip_max_first.fixed", "--chunk", "50"]
    # Ctrl-C as in a terminal: the child's SIGINT at its default even where this suite runs with it ignored (a
    # background job of a shell without job control), which the child would inherit and Python would keep
    running = subprocess.Popen([*command, "--budget", "100000", "--save", str(path)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.perf_counter() + 60
    while time.perf_counter() < deadline and (not path.exists() or path.read_text().count('"chunk"') < 3):
        time.sleep(0.05)
    running.send_signal(signal.SIGINT)
    _, error = running.communicate(timeout=60)
    assert running.returncode == 130 and f"--resume {path}" in error
    done = len(chunks_of(str(path))) * 50
    assert 150 <= done < 100_000
    finished = subprocess.run([sys.executable, "-m", "gpusim", "explore", "--resume", str(path), "--budget",
                               str(done + 120), "--json"], capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    assert json.loads(finished.stdout)["schedules_run"] == done + 120
    assert_each_schedule_once(str(path), {0: done + 120})


def test_cli_workers_start_a_local_cluster(capsys):
    assert main(["explore", "atomic_flip_no_mates_check", "--workers", "2", "--budget", "60", "--json"]) == 1
    record = json.loads(capsys.readouterr().out)
    assert record["workers"] == 2 and record["stopped"] == "failure"
    assert record["failure"]["replay"] == explore("atomic_flip_no_mates_check", budget=60).failure.replay_token
