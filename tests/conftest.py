"""Shared fixtures: run a kernel test once per backend, GPU backends only where they work."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True, max_examples=50
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=25)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

ALL_BACKENDS = ("sim", "numba", "cupy")


def _gpu_param(name: str):
    return pytest.param(name, marks=pytest.mark.gpu, id=name)


def _usable(name: str) -> str:
    if name != "sim":
        from gpusim.backends import gpu_status

        ok, why = gpu_status(name)
        if not ok:
            pytest.skip(f"{name} unavailable: {why}")
    return name


@pytest.fixture(params=["sim", _gpu_param("numba"), _gpu_param("cupy")])
def backend(request) -> str:
    """The name of a backend that can launch kernels here; GPU backends skip without a GPU."""
    return _usable(request.param)


@pytest.fixture(params=[_gpu_param("numba"), _gpu_param("cupy")])
def gpu_backend(request) -> str:
    """The name of a GPU backend that works here; skips without a GPU."""
    return _usable(request.param)


# ----------------------------------------------------------------------------------------------
# `pytest -m quick`: a small representative subset, at most 90 s of CPU on 2 cores (docs/howto/run-the-tests.rst
# gives the figure) — every layer (language, simulator and its detectors, explorer and zoo, inputs, the compilers,
# the algorithms, the teaching pages, the CLI with its error table) and every registered algorithm once, on one
# small input.  Marked here, in one place, rather than test by test: whole cheap modules (less their `slow`
# tests), and named tests (a prefix of the test's id) of the heavy ones.

QUICK_MODULES = {
    "test_language.py", "test_simulator.py", "test_race_detector.py", "test_validation.py", "test_graphs.py",
    "test_preferences.py",
}
QUICK_TESTS = (
    # the simulator's modes
    "test_weak_memory.py::test_message_passing_without_fences_can_see_the_flag_but_not_the_data",
    "test_weak_memory.py::test_message_passing_with_fences_never_sees_the_flag_without_the_data",
    "test_lockstep.py::test_lockstep_runs_the_if_side_then_the_else_side_then_reconverges[0]",
    "test_lockstep.py::test_a_lockstep_run_replays_from_its_token",
    "test_compiled_engine.py::test_every_construct_replays_exactly_on_the_reference",
    # the explorer and the zoo
    "test_explore.py::test_every_policy_finds_the_lost_update_with_one_preemption[random]",
    "test_explore.py::test_the_token_replays_on_a_plain_device_too",
    "test_explore.py::test_ddmin_is_one_minimal",
    "test_explore.py::test_bad_input",
    "test_zoo.py::test_the_broken_twin_is_found_and_shrunk[lost_update]",
    "test_zoo.py::test_every_entry_documents_its_source_and_fix",
    # inputs
    "test_generators.py::test_seeded_generators_are_deterministic_and_well_formed",
    "test_generators.py::test_validates_arguments",
    "test_strategies.py::test_bipartite_default_examples_are_valid",
    "test_strategies.py::test_rejects_bad_arguments_at_creation",
    # the GPU compilers, headless
    "test_headless_compile.py::test_compiles_for_numba[k_atomics_int[int32]]",
    "test_headless_compile.py::test_a_kernel_without_signature_is_refused_with_advice",
    # every registered algorithm on one small input, on the simulator and the cpu; the registry's lists
    "test_every_algorithm.py::test_bipartite_fixed[karate-",
    "test_every_algorithm.py::test_weighted_fixed[karate-",
    "test_every_algorithm.py::test_stable_fixed[marriage-",
    "test_every_algorithm.py::test_communities_fixed[karate-",
    "test_every_algorithm.py::test_every_problem_has_cases",
    "test_every_algorithm.py::test_the_command_line_lists_the_registry",
    "test_every_algorithm.py::test_gpusim_algorithms_lists_the_registry",
    "test_every_algorithm.py::test_no_command_line_module_writes_an_algorithm_list",
    # each family's own checks: an invariant under a schedule, a broken twin caught, bad input refused
    "test_bipartite.py::test_bad_input",
    "test_bipartite_cpu.py::test_validates_arguments",
    "test_weighted.py::test_suitor_without_cas_loses_a_proposal",
    "test_weighted.py::test_bad_input",
    "test_roma.py::test_bad_input",
    "test_b_suitor.py::test_bad_input",
    "test_stable.py::test_mcvitie_wilson_without_cas_is_caught",
    "test_stable.py::test_bad_input",
    "test_pairs_are_edges.py::test_validator_refuses",
    # the command line (its whole error table in this process, two cases as real commands) and the teaching pages
    "test_cli_errors.py::test_the_table_is_big_enough",
    "test_cli_errors.py::test_bad_input_in_process_is_one_line_naming_it",
    "test_cli_errors.py::test_bad_input_is_one_line_naming_it[frobnicate]",
    "test_cli_errors.py::test_bad_input_is_one_line_naming_it[match {tmp}/garbage.mtx]",
    "test_cli.py::test_version",
    "test_cli.py::test_bad_usage_is_a_clear_error_not_a_traceback",
    "test_cli.py::test_match_bad_usage",
    "test_cli.py::test_demo_text_shows_the_collision_and_the_replay_command",
    "test_stable_cli.py::test_errors",
    "test_kernel_pages.py::test_every_algorithm_has_a_page_in_the_index",
    "test_trace_page.py::test_the_page_is_self_contained_with_the_trace_as_json",
    "test_teaching_messages.py::test_a_race_with_an_atomic_side",
    "test_teaching_messages.py::test_the_bibliography_is_whole",
    "test_teaching_messages.py::test_the_simulator_reports_races_by_default",
)


def pytest_collection_modifyitems(config, items):
    for item in items:
        in_module = item.path.name in QUICK_MODULES and "slow" not in item.keywords
        if in_module or any(f"{item.path.name}::{item.name}".startswith(t) for t in QUICK_TESTS):
            item.add_marker(pytest.mark.quick)
