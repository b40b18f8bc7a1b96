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


@pytest.fixture(params=["sim", _gpu_param("numba"), _gpu_param("cupy")])
def backend(request) -> str:
    """The name of a backend that can launch kernels here; GPU backends skip without a GPU."""
    name = request.param
    if name != "sim":
        from gpusim.backends import gpu_status

        ok, why = gpu_status(name)
        if not ok:
            pytest.skip(f"{name} unavailable: {why}")
    return name
