"""Kernels compiled once per machine: numba-cuda's disk cache keyed by the kernel with every ``@device`` step bound
into it (a variant never loads the original's binary), the ledger and the first compile's line, ``gpusim compile``,
and a light ``import gpusim``.

Without a GPU numba cannot build a kernel object to cache (its key asks the device's compute capability), so the
headless tests run numba's own cache machinery — its locator, index file and key, with gpusim's fingerprint in it —
on PTX from ``numba.cuda.compile_ptx``, the device's part of the key given; the ``gpu`` test does the same through
real launches in fresh processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from gpusim import T, device, kernel
from gpusim.language.fingerprint import fingerprint
from gpusim.language.variants import with_devices

numba_cuda = pytest.importorskip("numba.cuda")


@device
def step(i):
    return i + 7


@device
def times_five(i):
    return i * 5


@device
def twice(i):
    return step(i) + step(i)


@kernel(signature="int32[:], int32")
def apply_step(out, n):
    i = T.gtid()
    if i < n:
        out[i] = twice(i)


class _Device:
    """What numba's cache key asks of the device (its compute capability and CUDA version), given."""

    @staticmethod
    def magic_tuple():
        return ((12, 8), (9, 0))


def _cache_for(compiled):
    from gpusim.backends.kernel_cache import language_stamp, numba_kernel_cache
    from gpusim.backends.numba import bind_kernel, numba_signature

    clone = bind_kernel(compiled)
    cache = numba_kernel_cache(clone, fingerprint(compiled, language_stamp("numba")))
    assert cache is not None, "numba-cuda's cache machinery was not found"
    signature = numba_signature(tuple((p.dtype, p.is_array) for p in compiled.signature))
    return cache, cache._index_key(signature, _Device())


def test_a_variant_run_after_a_cached_run_is_the_variant(tmp_path, monkeypatch):
    from numba.cuda.dispatcher import CUDACache

    from gpusim.backends.numba import bind_kernel, numba_signature
    from gpusim.runtime.compile import compile_ptx

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    variant = with_devices(apply_step, {"step": times_five})  # replaced two calls deep, inside twice
    signature = numba_signature(tuple((p.dtype, p.is_array) for p in apply_step.signature))
    # numba's own key cannot tell them apart: same code, file, line and name; only the globals differ
    plain = [CUDACache(bind_kernel(k))._index_key(signature, _Device()) for k in (apply_step, variant)]
    assert plain[0] == plain[1]

    cache, key = _cache_for(apply_step)
    original_ptx = compile_ptx(apply_step, "numba")
    cache._cache_file.save(key, original_ptx)  # the cached run
    assert list(tmp_path.rglob("*.nbi")), "numba's index file is in NUMBA_CACHE_DIR"

    again, again_key = _cache_for(apply_step)  # as a new process finds it
    assert again._cache_file.load(again_key) == original_ptx

    variant_cache, variant_key = _cache_for(variant)
    assert variant_key != key and variant_cache._cache_file.load(variant_key) is None  # a miss: compiled anew
    variant_ptx = compile_ptx(variant, "numba")
    assert "mul.lo.s32" in variant_ptx and "mul.lo.s32" not in original_ptx  # its behaviour: i * 5, not i + 7
    variant_cache._cache_file.save(variant_key, variant_ptx)
    assert _cache_for(variant)[0]._cache_file.load(variant_key) == variant_ptx
    assert _cache_for(apply_step)[0]._cache_file.load(key) == original_ptx


def test_the_fingerprint_follows_every_bound_step_and_constant():
    assert fingerprint(apply_step) == fingerprint(apply_step)
    assert fingerprint(with_devices(apply_step, {"step": times_five})) != fingerprint(apply_step)
    assert fingerprint(with_devices(apply_step, {"twice": times_five})) != fingerprint(apply_step)
    assert fingerprint(apply_step, "numba-cuda 1") != fingerprint(apply_step, "numba-cuda 2")


def test_the_first_compile_says_so_once_per_machine(tmp_path, monkeypatch, capsys):
    from gpusim.backends.gpu import GpuBackend
    from gpusim.backends.kernel_cache import expecting, uncached

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))

    class Counting(GpuBackend):
        """A backend whose compiler only counts (the skeleton's cache, ledger and line are what is tested)."""

        name = "numba"
        compiles: list = []

        def compile(self, kernel, signature):
            self.compiles.append(kernel.name)
            return kernel.name

    for method in Counting.__abstractmethods__:
        setattr(Counting, method, lambda *args: None)
    Counting.__abstractmethods__ = frozenset()
    kernels = [apply_step, with_devices(apply_step, {"step": times_five})]
    assert uncached("numba", kernels) == 2
    with expecting("numba", kernels):
        for k in kernels:
            Counting().compiled(k, Counting().declared_signature(k))
    assert capsys.readouterr().err.count("compiling 2 kernels for numba, first run on this machine") == 1
    assert uncached("numba", kernels) == 0 and Counting.compiles == ["apply_step", "apply_step"]
    Counting._compiled.clear()  # a new process: compiled again (from the disk cache), without the line
    with expecting("numba", kernels):
        Counting().compiled(kernels[0], Counting().declared_signature(kernels[0]))
    assert "first run" not in capsys.readouterr().err


def test_gpusim_compile_builds_an_algorithms_kernels(tmp_path, monkeypatch):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "gpusim", "compile", "--backend", "numba", "--algorithm", "ld",
                           "--json"], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    (numba,) = report["backends"]
    assert numba["kernels"] == 2 and not numba["failed"] and report["failed"] == 0
    assert {row["kernel"] for row in numba["rows"]} == {"ld_candidates", "ld_match"}
    if not numba["gpu"]:
        assert "headless to PTX" in numba["how"]
    bad = subprocess.run([sys.executable, "-m", "gpusim", "compile", "--backend", "metal"], capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.strip().endswith("--backend 'metal' is not one of numba, cupy, all")


def test_import_gpusim_and_its_help_stay_light():
    code = textwrap.dedent("""
        import sys, gpusim, gpusim.cli.app
        gpusim.cli.app._parser().format_help()
        print([m for m in sys.modules if m.split('.')[0] in ('numba', 'cupy', 'cupyx', 'greenlet', 'scipy', 'tqdm')
               or m.startswith(('gpusim.backends.sim', 'gpusim.algorithms'))])
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.gpu
def test_on_a_gpu_a_variant_after_a_cached_run_is_the_variant(tmp_path):
    from gpusim.backends import gpu_status

    ok, why = gpu_status("numba")
    if not ok:
        pytest.skip(f"numba unavailable: {why}")
    script = textwrap.dedent("""
        import sys
        import numpy as np
        from gpusim import Device
        from gpusim.language.variants import with_devices
        from test_kernel_cache import apply_step, times_five
        k = with_devices(apply_step, {"step": times_five}) if sys.argv[1] == "variant" else apply_step
        dev = Device("numba")
        out = dev.zeros(4, np.int32)
        dev.launch(k, grid=1, block=32, args=(out, 4))
        hits = sum(dev._impl._compiled[(k, dev._impl.declared_signature(k))].dispatcher._cache_hits.values())
        print(dev.to_host(out).tolist(), hits)
    """)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([os.path.dirname(__file__), os.environ.get("PYTHONPATH", "")])}

    def run(which):
        done = subprocess.run([sys.executable, "-c", script, which], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=600)  # not the checkout: its gpusim/ is not the installed one
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.strip()

    assert run("original") == "[14, 16, 18, 20] 0"  # compiled: 2 * (i + 7)
    assert run("original") == "[14, 16, 18, 20] 1"  # loaded from the disk cache
    assert run("variant") == "[0, 10, 20, 30] 0"  # compiled anew: 2 * (i * 5), not the original's binary
    assert run("variant") == "[0, 10, 20, 30] 1"
    assert np.array_equal([14, 16, 18, 20], [2 * (i + 7) for i in range(4)])


def test_cupy_transpiles_a_kernel_once_per_machine_and_a_variant_as_itself(tmp_path, monkeypatch):
    pytest.importorskip("cupyx.jit")
    import gpusim.backends.cupy as cupy_backend

    monkeypatch.setenv("CUPY_CACHE_DIR", str(tmp_path))
    types_ = tuple((p.dtype, p.is_array) for p in apply_step.signature)
    original = cupy_backend.transpiled(apply_step, types_, (True, True))
    assert "__global__" in original["code"] and original["func_name"]
    assert list((tmp_path / "gpusim-transpiled").glob("*.json"))

    def refuse(*args, **kwargs):
        raise AssertionError("transpiled again although this machine kept it")

    with monkeypatch.context() as patched:
        patched.setattr(cupy_backend, "transpile_kernel", refuse)
        assert cupy_backend.transpiled(apply_step, types_, (True, True)) == original
    variant = cupy_backend.transpiled(with_devices(apply_step, {"step": times_five}), types_, (True, True))
    assert variant["code"] != original["code"] and "* 5" in variant["code"].replace("*5", "* 5")
    assert cupy_backend.transpiled(apply_step, types_, (False, True))["code"] != original["code"]  # 64-bit indexing
