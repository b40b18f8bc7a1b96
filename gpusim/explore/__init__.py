"""Concurrency bug hunting: run a scenario under many schedules, find, shrink and replay the first failure.

>>> from gpusim.explore import explore, replay
>>> result = explore("lost_update", policy="systematic")
>>> result.failure.preemptions, result.failure.kind
(1, 'invariant')
>>> replay(result.failure.replay_token).kind
'invariant'
"""

from .algorithm import algorithm_names, algorithm_scenario
from .campaign import CAMPAIGN_POLICIES, Campaign, campaign
from .coverage import Coverage
from .hunt import hunt
from .report import Exploration, Failure, interleaving, trace_of
from .scenario import Outcome, Scenario, get_scenario, register, scenario_names, sim_supports
from .search import METHODS, Replayed, conflict_points, explore, replay
from .shrink import ddmin
from .switches import Switches, switches_of

__all__ = [
    "CAMPAIGN_POLICIES", "METHODS", "Campaign", "Coverage", "Exploration", "Failure", "Outcome", "Replayed",
    "Scenario", "Switches", "algorithm_names", "algorithm_scenario", "campaign", "conflict_points", "ddmin",
    "explore", "get_scenario", "hunt", "interleaving", "register", "replay", "scenario_names", "sim_supports",
    "switches_of", "trace_of",
]
