"""Every docstring example in the package runs (the API reference shows only what works)."""

from __future__ import annotations

import doctest
import importlib
import os
import pkgutil

import pytest
from hypothesis import settings

import gpusim


def _modules() -> list[str]:
    names = ["gpusim"]
    for info in pkgutil.walk_packages(gpusim.__path__, "gpusim."):
        names.append(info.name)
    for package in ("gpusim.backends", "gpusim.algorithms"):
        module = importlib.import_module(package)
        names.append(package)
        names.extend(info.name for info in pkgutil.walk_packages(module.__path__, package + "."))
    return sorted(set(names) - {"gpusim.__main__"})


# Private language modules of the GPU backends import numba-cuda or CuPy at import time.
_NEEDS = {"gpusim.backends.numba_language": "numba.cuda", "gpusim.backends.numba_shims": "numba.cuda",
          "gpusim.backends.cupy_language": "cupyx.jit", "gpusim.backends.cupy_shims": "cupyx.jit"}


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    if name in _NEEDS:
        pytest.importorskip(_NEEDS[name])
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failures == 0


@pytest.fixture(autouse=True)
def _no_example_database():
    """The examples show what Hypothesis finds from nothing: no example an earlier test saved may answer."""
    settings.register_profile("doctests", settings.default, database=None)
    settings.load_profile("doctests")
    yield
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
