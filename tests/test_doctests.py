"""Every docstring example in the package runs (the API reference shows only what works)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

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


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failures == 0
