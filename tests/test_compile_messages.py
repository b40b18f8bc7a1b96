"""A compiler that is not installed is reported as not installed, never as a kernel that does not compile.

Each test simulates the environment (a package missing, or installed but failing to import), so
the messages are checked on any machine, with or without the compilers.
"""

from __future__ import annotations

import importlib.metadata
import sys

import pytest

import gpusim.backends.cupy
from gpusim import T, kernel
from gpusim.errors import BackendUnavailable
from gpusim.runtime.compile import compile_all, compile_ptx, transpile


@kernel(signature="int32[:], int32")
def iota(out, n):
    i = T.gtid()
    if i < n:
        out[i] = i


@pytest.fixture
def numba_cuda_missing(monkeypatch):
    """numba-cuda is not installed (numba is: its own ``numba.cuda`` still imports)."""
    real = importlib.metadata.version

    def version(dist):
        if dist == "numba-cuda":
            raise importlib.metadata.PackageNotFoundError(dist)
        return real(dist)

    monkeypatch.setattr(importlib.metadata, "version", version)


@pytest.fixture
def cupy_missing(monkeypatch):
    """No CuPy distribution is installed, and ``import cupyx`` fails."""
    monkeypatch.setattr(gpusim.backends.cupy, "cupy_version", lambda: None)
    monkeypatch.setitem(sys.modules, "cupyx", None)
    monkeypatch.delitem(sys.modules, "gpusim.backends.cupy_language", raising=False)


NUMBA_MISSING = r"^compiling for numba needs numba-cuda, which is not installed: pip install 'gpusim\[cuda\]'$"
CUPY_MISSING = r"^compiling for cupy needs CuPy, which is not installed: pip install 'gpusim\[cupy\]'$"


@pytest.mark.usefixtures("numba_cuda_missing")
def test_numba_cuda_not_installed_says_so():
    with pytest.raises(BackendUnavailable, match=NUMBA_MISSING):
        compile_ptx(iota, "numba")
    (result,) = compile_all([iota], backends=("numba",))
    assert not result.ok and "not installed" in result.error and "does not compile" not in result.error


@pytest.mark.usefixtures("cupy_missing")
@pytest.mark.parametrize("call", [lambda: transpile(iota), lambda: compile_ptx(iota, "cupy")], ids=["transpile", "ptx"])
def test_cupy_not_installed_says_so(call):
    with pytest.raises(BackendUnavailable, match=CUPY_MISSING):
        call()


@pytest.mark.parametrize(
    ("backend", "module", "package"),
    [("numba", "gpusim.backends.numba_language", "numba-cuda"), ("cupy", "gpusim.backends.cupy_language", "CuPy")],
)
def test_a_compiler_installed_but_broken_says_it_failed_to_import(monkeypatch, backend, module, package):
    monkeypatch.setattr(importlib.metadata, "version", lambda dist: "9.9.9")
    monkeypatch.setitem(sys.modules, module, None)  # import raises ImportError
    broken = f"{package} 9.9.9 is installed but failed to import \\(ModuleNotFoundError"
    with pytest.raises(BackendUnavailable, match=broken):
        compile_ptx(iota, backend)
