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
# `pytest -m quick`: a representative subset in under 2 minutes on 2 cores — every layer (language,
# simulator, explorer, inputs, CLI) and every algorithm family — marked here, in one place, rather
# than test by test.  Whole modules, less their `slow` tests, plus named tests of the heavy modules.

QUICK_MODULES = {
    "test_language.py", "test_simulator.py", "test_foundation_kernels.py", "test_race_detector.py",
    "test_weak_memory.py", "test_validation.py", "test_graphs.py", "test_generators.py", "test_preferences.py",
    "test_strategies.py", "test_explore.py", "test_lockstep.py", "test_b_suitor.py", "test_bipartite_cpu.py",
    "test_stable.py", "test_stable_cli.py", "test_cli.py", "test_cli_errors.py", "test_pairs_are_edges.py",
    "test_every_algorithm.py",
}
QUICK_TESTS = (
    "test_bipartite.py::test_maximum_and_certified_under_any_schedule",
    "test_weighted.py::test_on_every_backend",
    "test_weighted.py::test_suitor_without_cas_loses_a_proposal",
    "test_roma.py::test_on_every_backend",
    "test_roma.py::test_bad_input",
    "test_zoo.py::test_the_broken_twin_is_found_and_shrunk[lost_update]",
    "test_headless_compile.py::test_compiles_for_numba",
    "test_compiled_engine.py::test_every_construct_replays_exactly_on_the_reference",
    "test_zoo.py::test_every_entry_documents_its_source_and_fix",
)


def pytest_collection_modifyitems(config, items):
    for item in items:
        in_module = item.path.name in QUICK_MODULES and "slow" not in item.keywords
        if in_module or any(f"{item.path.name}::{item.name}".startswith(t) for t in QUICK_TESTS):
            item.add_marker(pytest.mark.quick)
