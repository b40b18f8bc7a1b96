"""Each algorithm's kernels in one NVRTC program (gpusim.backends.cupy_bundles), compiled headless.

The program CuPy compiles on a package's first launch must hold every kernel of the package under its own name and
compile as one; a kernel outside gpusim's algorithms, or a variant, is never in one.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import SimpleNamespace

import pytest

pytest.importorskip("cupyx.jit")

from gpusim import T, device, kernel  # noqa: E402
from gpusim.backends.cupy import nvrtc_ptx, transpiled  # noqa: E402
from gpusim.backends.cupy_bundles import BUNDLED, bundle_source, family  # noqa: E402
from gpusim.language.kernels import Kernel, registry  # noqa: E402
from gpusim.language.variants import with_devices  # noqa: E402
from gpusim.runtime.compile import nvrtc_available  # noqa: E402


def _packages() -> dict[str, Kernel]:
    """One kernel of each package of gpusim's algorithms (and its runtime) that has kernels."""
    import gpusim.algorithms

    for info in pkgutil.walk_packages(gpusim.algorithms.__path__, "gpusim.algorithms."):
        importlib.import_module(info.name)
    found = {}
    for k in registry():
        package = k.fn.__module__.rpartition(".")[0]
        if isinstance(k, Kernel) and k.signature is not None and package.startswith(BUNDLED):
            found.setdefault(package, k)
    return found


PACKAGES = _packages()


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_a_package_compiles_as_one_program_with_every_kernel_under_its_name(package):
    members = family(PACKAGES[package])
    assert members and all(k.fn.__module__.rpartition(".")[0] == package for k in members)
    assert len({k.name for k in members}) == len(members)
    types_ = [tuple((p.dtype, p.is_array) for p in k.signature) for k in members]
    results = [transpiled(k, t, (True,) * len(t)) for k, t in zip(members, types_, strict=True)]
    source = bundle_source(results)
    if not nvrtc_available()[0]:
        pytest.skip(f"NVRTC does not load here ({nvrtc_available()[1]}); bundled source only")
    ptx = nvrtc_ptx(SimpleNamespace(code=source, options=results[0]["options"], func_name=package), (9, 0))
    assert {k.name for k in members} <= {line.split("(")[0].split()[-1] for line in ptx.splitlines()
                                         if ".entry" in line}


def test_a_users_kernel_and_a_variant_are_compiled_alone():
    @kernel(signature="int32[:], int32")
    def iota(out, n):
        i = T.gtid()
        if i < n:
            out[i] = i

    assert family(iota) == []
    import gpusim.algorithms.louvain  # noqa: F401
    from gpusim.algorithms.louvain.degree_groups import bucket_of, count_buckets

    @device
    def first_bucket(degree, bounds, n_buckets):
        return 0

    variant = with_devices(count_buckets, {"bucket_of": first_bucket})
    assert variant is not count_buckets and family(variant) == []
    assert count_buckets in family(count_buckets) and bucket_of not in family(count_buckets)


class _Module:
    def __init__(self, source):
        self.source = source

    def get_function(self, name):
        assert f'extern "C" __global__ void {name}(' in self.source
        return name


def _backend(monkeypatch, compiled: list):
    """A CuPy backend whose compiler records the sources it is given (no GPU: nothing is loaded)."""
    import gpusim.backends.cupy as cupy_backend

    def module(source, result):
        compiled.append(source)
        if "poisoned" in source:
            raise RuntimeError("NVRTC refused it")
        return _Module(source)

    monkeypatch.setattr(cupy_backend, "_module", module)
    monkeypatch.setattr(cupy_backend.CupyBackend, "_bundles", {})
    backend = object.__new__(cupy_backend.CupyBackend)
    monkeypatch.setattr(backend, "declared_signature", lambda k: (
        tuple((p.dtype, p.is_array) for p in k.signature), (True,) * len(k.signature), 0))
    return backend


def test_the_first_launch_of_a_package_compiles_its_kernels_once_and_in_one_program(monkeypatch):
    import gpusim.algorithms.louvain  # noqa: F401
    from gpusim.algorithms.louvain.kernels_aggregate import community_sizes
    from gpusim.algorithms.louvain.kernels_move import move_thread

    compiled = []
    backend = _backend(monkeypatch, compiled)
    assert backend.compile(community_sizes, backend.declared_signature(community_sizes)) == ("community_sizes", False)
    assert backend.compile(move_thread, backend.declared_signature(move_thread))[0] == "move_thread"
    assert len(compiled) == 1 and compiled[0].count("namespace gpusim_bundle_") == len(family(move_thread))


def test_a_program_that_does_not_compile_leaves_each_kernel_to_compile_alone(monkeypatch):
    import gpusim.algorithms.louvain  # noqa: F401
    import gpusim.backends.cupy_bundles as bundles
    from gpusim.algorithms.louvain.kernels_aggregate import community_sizes

    compiled = []
    backend = _backend(monkeypatch, compiled)
    monkeypatch.setattr(bundles, "bundle_source", lambda results: "poisoned")
    assert backend.compile(community_sizes, backend.declared_signature(community_sizes)) == ("community_sizes", False)
    assert compiled[0] == "poisoned" and 'void community_sizes(' in compiled[1] and "namespace" not in compiled[1]
