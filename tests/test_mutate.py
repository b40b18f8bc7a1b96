"""``gpusim mutate``: concurrency mutants from the kernels' syntax trees, planted through ``kernels=`` and hunted.

A representative subset runs here (one kind on one algorithm); the full run is ``gpusim mutate`` outside CI
(docs/mutation-scores.md).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from gpusim.cli import main
from gpusim.explore import algorithm_names, hunt
from gpusim.explore.mutate import KINDS, _declared_equivalent, mutant_row, mutants, score


def test_every_kind_is_made_somewhere_in_the_registry_and_each_mutant_changes_one_line():
    made = [m for name in algorithm_names() for m in mutants(name, KINDS)]
    assert {m.kind for m in made} == set(KINDS)
    assert len({(m.algorithm, m.name) for m in made}) == len(made)
    assert all(m.text for m in made)


def test_a_cas_made_an_exchange_is_found_and_the_unmutated_control_passes():
    result = score("mw-gpu", kinds=("cas-to-exchange",), budget=12, random_inputs=2)
    assert result["judged"] == 1 and result["found"] == 1 and result["score"] == 1.0
    assert result["rows"][0]["mutant"] == "propose_to:74:cas-to-exchange"


def test_the_command_line_reports_the_score_per_kernel(capsys):
    assert main(["mutate", "--algorithm", "mw-gpu", "--kinds", "cas-to-exchange", "--budget", "12",
                 "--random-inputs", "2", "--json", "--quiet"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["algorithms"][0]["per_function"] == {"propose_to": {"found": 1, "not found": 0, "equivalent": 0,
                                                                      "unreached": 0}}
    assert main(["mutate", "--kinds", "lock-dropped"]) == 2
    assert "--kinds 'lock-dropped': choose from" in capsys.readouterr().err


def test_a_test_and_set_cas_and_an_atomic_load_are_named_possibly_equivalent():
    by_name = {m.name: m for m in mutants("bsuitor") + mutants("mw-gpu")}
    round_cas = [m for m in mutants("bsuitor") if m.name.startswith("b_suitor_round:") and m.kind == "cas-to-exchange"]
    assert len(round_cas) == 1 and "test-and-set" in round_cas[0].equivalent_if_unfound
    assert "sequential consistency" in by_name["propose_to:66:atomic-to-plain"].equivalent_if_unfound
    assert by_name["propose_to:74:cas-to-exchange"].equivalent_if_unfound is None
    [roma_lock] = [m for m in mutants("roma") if m.kind == "cas-to-exchange"]
    assert "every access of 'locks'" in roma_lock.equivalent_if_unfound  # a lock word only compared with -1
    assert [m.equivalent_if_unfound for m in mutants("louvain") if m.kind == "cas-to-exchange"] == [None]


def test_a_kernel_argues_an_equivalent_site_in_a_comment_right_above_it_for_that_kind_only():
    [fence] = mutants("mw-gpu", kinds=("fence-removed",))
    reason = fence.equivalent_if_unfound
    assert reason.startswith("declared by the kernel: the fence only spares work.") and "refuse him again" in reason
    settings = {"budget": 4, "random_inputs": 1, "races": "raise", "seed": 0, "shrink_time": None, "time_limit": None}
    row = mutant_row("mw-gpu", fence, [({}, ["mcvitie_wilson_gpu"], 0.1)], settings)
    assert row["verdict"] == "equivalent" and "declared by the kernel" in row["reason"]
    site = {1: "    # equivalent barrier-removed: not this kind", 2: "    T.threadfence()"}
    assert _declared_equivalent("fence-removed", 2, site) is None  # another kind's argument
    assert _declared_equivalent("fence-removed", 2, {1: "    x = 1", 2: "    T.threadfence()"}) is None


def test_a_mutant_is_hunted_only_on_the_paths_that_launch_a_kernel_running_it():
    [barrier] = [m for m in mutants("louvain", ("barrier-removed",)) if m.function == "merge_block"][:1]
    settings = {"budget": 4, "random_inputs": 1, "races": "raise", "seed": 0, "shrink_time": None, "time_limit": None}
    row = mutant_row("louvain", barrier, [({}, ["merge_warp", "move_subwarp"], 0.1)], settings)
    assert row["verdict"] == "unreached" and row["seconds"] < 5  # merge_block runs in the block kernels only
    assert "merge_block_shared never launched" in row["reason"]


def test_a_lock_released_before_the_writes_it_guards_is_made_and_found():
    early = [m for m in mutants("bsuitor") if m.kind == "lock-released-early"]
    assert [m.text for m in early] == ["T.atomic_exch(locks, v, 0)"]
    roma_early = [m for m in mutants("roma") if m.kind == "lock-released-early"]
    assert [m.function for m in roma_early] == ["atomic_flip"] and roma_early[0].text.startswith("for k in range")
    result = score("bsuitor", kinds=("lock-released-early",), budget=8, random_inputs=2)
    assert (result["found"], result["judged"]) == (1, 1), result["rows"]


def test_an_extra_plain_read_after_an_atomic_load_is_named_possibly_equivalent_with_its_argument():
    extra = {m.name: m for m in mutants("mw-gpu", kinds=("extra-read",))}
    assert set(extra) == {"mcvitie_wilson_gpu:116:extra-read", "propose_to:66:extra-read",
                          "propose_to:68:extra-read"}
    assert "one step later" in extra["propose_to:66:extra-read"].equivalent_if_unfound
    louvain = [m for m in mutants("louvain", kinds=("extra-read",)) if m.function == "add_to_slot"]
    # a CAS's returned value re-read: no rule of the kind names it equivalent, the kernel argues it above the CAS
    assert louvain and louvain[0].equivalent_if_unfound.startswith("declared by the kernel: once claimed")


def test_a_found_mutant_is_shrunk_to_few_preemptions():
    here = score("mw-gpu", kinds=("cas-to-exchange",), budget=12, random_inputs=2, shrink_time=10)
    row = here["rows"][0]
    assert row["verdict"] == "found" and row["preemptions"] <= 3 <= row["preemptions_before"]
    assert "shrunk from" in row["finding"]


def test_a_failure_left_unshrunk_on_one_path_is_looked_for_on_the_later_ones():
    """ROMA's lock released early, on the block path: a flip of another block inside the unlocked window needs that
    block's threads through their barriers first, hundreds of preemptions; a thread per edge shows it with one."""
    early = next(m for m in mutants("roma") if m.kind == "lock-released-early")
    paths = [{}, {"variant": "thread"}]
    first = hunt("roma", random_inputs=1, budget=20, kernels=early.kernels, races="raise", paths=paths[:1],
                 models=[("sc", "independent")], shrink_time=1)
    assert first.found and first.failure.preemptions > 3  # the block path's counterexample, left unshrunk
    found = hunt("roma", random_inputs=1, budget=60, kernels=early.kernels, races="raise", paths=paths,
                 models=[("sc", "independent"), ("weak", "independent")], shrink_time=5)
    assert found.found and found.failure.preemptions <= 3 and "variant=thread" in found.scenario
    assert found.schedules > first.schedules


def test_a_failure_the_schedule_without_preemptions_shows_is_reported_there():
    """A missing barrier met by a random schedule as an uninitialised read (37 preemptions) is a race already on
    the schedule that preempts no thread: that is the counterexample reported, at 0 preemptions."""
    missing = next(m for m in mutants("gpr", kinds=("barrier-removed",)) if m.function == "block_offset")
    found = hunt("gpr", random_inputs=1, budget=4, kernels=missing.kernels, races="raise", shrink_time=30)
    assert found.found and (found.failure.kind, found.failure.preemptions) == ("DataRace", 0)
    assert found.failure.shrink_report["kind_before"] == "UninitialisedRead"
    assert found.failure.shrink_report["preemptions_before"] > 3


@pytest.mark.slow
def test_dask_workers_hunt_the_same_rows_as_this_process(capsys):
    row = score("mw-gpu", kinds=("cas-to-exchange",), budget=12, random_inputs=2, shrink_time=10)["rows"][0]
    assert main(["mutate", "--algorithm", "mw-gpu", "--kinds", "cas-to-exchange", "--budget", "12",
                 "--random-inputs", "2", "--workers", "2", "--json", "--quiet"]) == 0
    record = json.loads(capsys.readouterr().out)
    [remote] = record["algorithms"][0]["rows"]
    assert {k: remote[k] for k in ("mutant", "verdict", "preemptions")} == {k: row[k] for k in
                                                                           ("mutant", "verdict", "preemptions")}
    assert main(["mutate", "--workers", "2", "--scheduler", "tcp://localhost:1"]) == 2


@pytest.mark.slow
def test_the_tests_own_score_plants_each_mutant_while_a_test_file_runs(tmp_path, capsys):
    test_file = tmp_path / "test_marriage.py"
    test_file.write_text(
        "from gpusim import Device\n"
        "from gpusim.algorithms.stable import stable_marriage\n"
        "from gpusim.types.preference_generators import easy_instance\n\n"
        "def test_mw_gpu_is_man_optimal():\n"
        "    for seed in range(6):\n"
        "        inst = easy_instance(6, seed)\n"
        "        expected = stable_marriage(inst, 'mw', backend='cpu').wife.tolist()\n"
        "        got = stable_marriage(inst, 'mw-gpu', device=Device('sim', seed=seed)).wife.tolist()\n"
        "        assert got == expected\n")
    assert main(["mutate", "--algorithm", "mw-gpu", "--kinds", "cas-to-exchange,fence-removed", "--tests",
                 str(test_file), "--tests-only", "--json", "--quiet"]) == 0
    rows = {row["mutant"]: row for row in json.loads(capsys.readouterr().out)["algorithms"][0]["tests"]["rows"]}
    assert rows["propose_to:74:cas-to-exchange"]["verdict"] == "found"
    assert rows["propose_to:74:cas-to-exchange"]["test"].endswith("test_mw_gpu_is_man_optimal")
    assert rows["mcvitie_wilson_gpu:108:fence-removed"]["verdict"] == "equivalent"  # argued above the fence
    assert main(["mutate", "--algorithm", "mw-gpu", "--tests", str(tmp_path / "absent.py"), "--tests-only"]) == 2
    assert "absent.py" in capsys.readouterr().err


def test_a_repair_step_emptied_is_made_for_the_kernels_that_repair_a_designed_race_and_found():
    from gpusim.explore import hunt

    repairs = {m.function: m for m in mutants("apfb", kinds=("repair-removed",))}
    assert {"fix_rows", "fix_columns"} <= set(repairs) and "gpubfs" not in repairs
    assert not any(m.kind == "repair-removed" for m in mutants("roma", KINDS) + mutants("mw-gpu", KINDS))
    assert not any(m.kind == "repair-removed" for m in mutants("apfb"))  # asked for only: it can hang a driver
    found = hunt("apfb", random_inputs=2, budget=4, start="empty", kernels=repairs["fix_rows"].kernels, shrink=False)
    assert found.found and "row_match" in found.failure.message


def test_a_host_loop_that_relaunches_for_ever_ends_in_livelock_and_a_deadline_stops_a_run():
    import time

    from gpusim import Device
    from gpusim.algorithms.bipartite.kernels_bfs_bottom_up import count_level
    from gpusim.errors import Livelock, OutOfTime
    from gpusim.explore.algorithm import algorithm_scenario

    # APFB's warp-per-column BFS reading the wrong lane never ends a phase: its host loop relaunches for ever
    hang = next(m for m in mutants("apfb") if m.name == "gpubfs_wr_warp:76:shuffle-lane")
    scenario = algorithm_scenario("apfb", input_seed=0, options={"warp_degree": 1}, kernels=hang.kernels,
                                  sim_options={"max_launches": 60})
    outcome, dev = scenario.execute(policy="sequential", trace=False)
    assert outcome.kind == "Livelock" and "max_launches=60" in outcome.message and len(dev.runs) == 60
    with pytest.raises(OutOfTime):
        algorithm_scenario("apfb", input_seed=0, options={"warp_degree": 1}, kernels=hang.kernels,
                           sim_options={"deadline": time.perf_counter() + 0.5,
                                        "max_launches": 10**9}).execute(policy="sequential", trace=False)
    dev = Device("sim", max_launches=2)
    counts = dev.zeros(3)
    for _ in range(2):
        dev.launch(count_level, 1, 4, (3, dev.array(np.array([3, 1, 3, 0], np.int32)), 4, counts, 1))
    with pytest.raises(Livelock, match="max_launches=2,"):
        dev.launch(count_level, 1, 4, (3, dev.array(np.array([3, 1, 3, 0], np.int32)), 4, counts, 1))


def test_a_mutant_whose_hunt_passes_its_time_limit_is_undecided_not_found(monkeypatch):
    import time

    from gpusim.explore import algorithm as algorithm_module
    from gpusim.explore.mutate import mutant_row

    monkeypatch.setitem(algorithm_module._SIM_OPTIONS, "max_launches", 10**9)  # only the time limit stops it
    hang = next(m for m in mutants("apfb") if m.name == "gpubfs_wr_warp:76:shuffle-lane")
    settings = {"budget": 6, "random_inputs": 1, "races": "raise", "seed": 0, "shrink_time": 1.0, "time_limit": 3.0}
    began = time.perf_counter()
    row = mutant_row("apfb", hang, [({"warp_degree": 1}, ["gpubfs_wr_warp"], 0.1)], settings)
    assert time.perf_counter() - began < 20
    assert row["verdict"] == "not found" and row["timed_out"] and row["finding"] is None
    assert "time limit of 3 s before any failure" in row["reason"] and "--time-limit" in row["reason"]
    hang.equivalent_if_unfound = "declared by the kernel: an argument"  # argued unobservable: equivalent, as far
    row = mutant_row("apfb", hang, [({"warp_degree": 1}, ["gpubfs_wr_warp"], 0.1)], settings)  # as the hunt went
    assert row["verdict"] == "equivalent" and row["reason"].endswith("declared by the kernel: an argument")


def test_a_negative_time_limit_is_a_usage_error(capsys):
    assert main(["mutate", "--algorithm", "apfb", "--time-limit", "-1"]) == 2
    assert "--time-limit -1.0: give 0 or more seconds" in capsys.readouterr().err
    with pytest.raises(ValueError, match="time_limit must be a number of seconds > 0 or None"):
        score("apfb", time_limit=0)


def test_a_mutant_kernel_names_its_shared_arrays_by_the_lines_of_its_tree():
    """A mutant's text is ``ast.unparse``'s, whose lines are not the tree's: read from it, merge_warp's ``keys`` table
    was named ``vals``, and the race detector judged its intended races on ``keys`` as races on ``vals``."""
    from gpusim.algorithms.louvain.kernels_aggregate import merge_warp
    from gpusim.language.kernels import array_names

    planted = [m for m in mutants("louvain", ("barrier-removed",)) if m.function == "merge_warp"]
    assert planted and all(array_names(m.replacement.fn.__code__) == array_names(merge_warp.fn.__code__)
                           for m in planted)
    assert sorted(array_names(merge_warp.fn.__code__).values()) == ["keys", "vals"]
    argued = next(m for m in planted if m.equivalent_if_unfound)  # the syncwarp after the emit: no race without it
    assert not hunt("louvain", random_inputs=1, budget=2, kernels=argued.kernels, races="raise", shrink=False).found
