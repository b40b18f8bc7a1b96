"""Hunting Louvain: the oracle is the method's own sequential decisions (its bucket reference), which every schedule
of the simulator must reproduce on an input with exact sums; and the launch path of lowered degree buckets reaches
the block-per-vertex and block-per-community kernels on a small random input."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gpusim import Device
from gpusim.algorithms.louvain import LouvainGraph, bucket_louvain, louvain
from gpusim.errors import DataRace, InvalidArgument
from gpusim.explore import algorithm_scenario, hunt
from gpusim.explore.algorithm import _exact_sums, draw_input
from gpusim.explore.hunt import model_pairs
from gpusim.explore.mutate import mutants
from gpusim.explore.paths import LAUNCH_PATHS, hint
from gpusim.explore.switches import Switches

BLOCKS = next(options for options, reaches in LAUNCH_PATHS["louvain"] if "move_block_global" in reaches)


def _planted(function: str, kind: str, line: int | None = None):
    return next(m for m in mutants("louvain", (kind,)) if m.function == function
                and (line is None or m.line == line)).kernels


@pytest.mark.parametrize("memory, warps", model_pairs("all"))
def test_the_unmutated_method_equals_its_bucket_reference_on_the_block_path_under_every_model(memory, warps):
    scenario = algorithm_scenario("louvain", input_seed=0, options=BLOCKS, sim_options={"memory": memory,
                                                                                       "warps": warps})
    assert scenario.attempt(policy="random", seed=2) is None


def test_a_wrong_lane_in_the_best_community_reduction_is_found_by_the_reference():
    # every lane of a group still holds a community of the vertex's neighbours: a valid partition whose modularity
    # is what it reports, but not the method's decision
    found = hunt("louvain", random_inputs=1, budget=2, kernels=_planted("group_best", "shuffle-lane"), shrink=False)
    assert found.found and found.failure.kind == "invariant", found.failure
    assert "sequential bucket reference" in found.failure.message


def test_the_oracle_compares_decisions_only_where_every_sum_is_exact():
    assert _exact_sums(draw_input("louvain", 0))
    fractional = LouvainGraph.from_edges([0, 1, 2], [1, 2, 3], [0.1, 0.2, 0.3], 4)
    assert not _exact_sums(fractional)


def test_the_block_path_reaches_the_block_kernels_and_a_removed_block_barrier_is_found_there():
    launched = set()
    for seed in (0, 1):
        dev = Device("sim", seed=0)
        louvain(draw_input("louvain", seed), device=dev, **BLOCKS)
        launched |= {run.kernel.rsplit(".", 1)[-1] for run in dev.runs}
    assert {"move_block_shared", "move_block_global", "merge_block_shared", "merge_block_global"} <= launched
    assert hint("louvain", "merge_block_global").startswith("--option degree_buckets=")
    barrier = _planted("move_block_vertex", "barrier-removed")  # between clearing the table and hashing into it
    assert not hunt("louvain", random_inputs=1, budget=2, kernels=barrier, races="raise", shrink=False).found
    assert hunt("louvain", random_inputs=1, budget=2, kernels=barrier, races="raise", options=BLOCKS,
                shrink=False).found


def test_a_removed_barrier_after_the_winners_are_read_is_a_race_when_one_block_loops():
    last = [m for m in mutants("louvain", ("barrier-removed",)) if m.function == "block_best"][-1]
    with pytest.raises(DataRace, match="winners"):
        louvain(draw_input("louvain", 0), device=Device("sim", races="raise"), degree_buckets="1,2,3,4,4,6",
                max_grid=1, kernels=last.kernels)


def test_lowered_buckets_and_a_small_grid_keep_the_decisions():
    graph = draw_input("louvain", 3)
    paper = bucket_louvain(graph)
    lowered = louvain(graph, backend="sim", degree_buckets=(1, 2, 3, 4, 4, 6), community_buckets="3,6,12", max_grid=1)
    assert lowered.valid, lowered.problem
    assert lowered.labels.tolist() == bucket_louvain(graph, degree_buckets=(1, 2, 3, 4, 4, 6)).labels.tolist()
    assert louvain(graph, backend="cpu", degree_buckets="1,2,3,4,4,6").labels.tolist() == lowered.labels.tolist()
    assert np.isclose(paper.modularity, louvain(graph, backend="sim").modularity)


@pytest.mark.parametrize("option, value, words", [
    ("degree_buckets", (4, 8, 16, 32, 84, 320), "at most the paper's"),
    ("degree_buckets", "3,2", "ascending"),
    ("degree_buckets", "1,x", "comma-separated integers"),
    ("community_buckets", (0,), ">= 1"),
    ("max_grid", 0, "max_grid"),
])
def test_bucket_bounds_and_grid_out_of_range_are_refused_in_one_line(option, value, words):
    with pytest.raises(InvalidArgument, match=words):
        louvain(draw_input("louvain", 1), backend="sim", **{option: value})


def test_a_wide_random_input_puts_a_communitys_entries_in_two_blocks_emits():
    """Odd seeds draw communities numbered 32 and more; on the block path two blocks emit one community's chunks
    at once, so a reservation of its output places made a plain read-modify-write races, whatever the schedule."""
    graph = draw_input("louvain", 1)
    assert graph.n >= 33
    plain = _planted("emit_edges", "atomic-to-plain")
    scenario = algorithm_scenario("louvain", input_seed=1, options=BLOCKS, kernels=plain)
    scenario = dataclasses.replace(scenario, options={**scenario.options, "races": "raise"})
    outcome = scenario.attempt(policy=Switches(()), trace=False)
    assert outcome is not None and outcome.kind == "DataRace" and "fill[" in outcome.message


def test_a_shrunk_failure_counts_the_preemptions_that_matter_not_the_fair_hand_overs():
    """The block kernels' long read-only scans make any schedule hand the processor on (fairness to spinners); a
    failure that the schedule without preemptions shows is reported shrunk to none, and replays from that list."""
    # merge_block's barrier between the hashing and the writing out: a race on the shared table at once
    barrier = [m for m in mutants("louvain", ("barrier-removed",)) if m.function == "merge_block"][1].kernels
    found = hunt("louvain", random_inputs=1, budget=1, kernels=barrier, races="raise", options=BLOCKS)
    assert found.found and found.failure.kind == "DataRace"
    assert (found.failure.preemptions, found.failure.shrunk) == (0, [])
    scenario = algorithm_scenario("louvain", input_seed=0, options=BLOCKS, kernels=barrier)
    scenario = dataclasses.replace(scenario, options={**scenario.options, "races": "raise"})
    _, dev = scenario.execute(policy=Switches(()), trace=False)
    assert sum(run.preemptions for run in dev.runs) > 0  # the hand-overs the report leaves out
