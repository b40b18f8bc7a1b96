"""A random schedule's switches replay it exactly, even where several threads block at one step (a barrier):
what delta debugging needs before it can shrink a whole algorithm's failure."""

from __future__ import annotations

from gpusim.backends.sim import RandomWalk
from gpusim.explore.algorithm import algorithm_scenario
from gpusim.explore.switches import Switches, switches_of


def test_hand_overs_at_one_step_keep_their_order_and_stay_off_the_compiled_engine():
    policy = Switches([(2, 1)], forced=[(5, 3), (5, 1), (4, 2)])
    assert policy.forced == [(4, 2), (5, 3), (5, 1)]
    assert policy.compiled_switches() is None
    assert Switches([(2, 1)], forced=[(5, 3)]).compiled_switches() == ([(2, 1)], [(5, 3)])


def test_the_switches_of_a_random_run_of_a_block_per_edge_phase_replay_it():
    scenario = algorithm_scenario("roma", input_seed=0)
    _, recorded = scenario.execute(policy=RandomWalk(seed=7), trace=False)
    preemptions, forced = switches_of(recorded.runs)
    assert len({step for step, _ in forced}) < len(forced)  # several hand-overs at one step somewhere
    _, again = scenario.execute(policy=Switches(preemptions, forced), trace=False)
    assert [(run.steps, run.preemptions) for run in again.runs] == [(run.steps, run.preemptions)
                                                                   for run in recorded.runs]
