"""Every kernel compiles for both GPU backends without a GPU: numba's PTX, cupyx's CUDA C++ and NVRTC.

The kernels below together use every member of ``T`` (a test checks it), every shuffle on
i32/i64/f32/f64, every atomic on every dtype it accepts, shared and local arrays of each dtype,
casts, a ``@device`` helper calling another, loops and an early return.  ``test_gpu_backends``
launches the same kernels on every backend and checks them against NumPy and the simulator.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import textwrap
from pathlib import Path

import pytest

from gpusim import T, device, kernel
from gpusim.errors import InvalidArgument, KernelSyntaxError
from gpusim.language import MEMBERS
from gpusim.language.kernels import DeviceFunction, Kernel, registry
from gpusim.language.reductions import warp_reduce_max, warp_reduce_min, warp_reduce_sum
from gpusim.language.variants import device_names, with_devices
from gpusim.runtime.compile import CompileResult, compile_all, compile_ptx, nvrtc_available, transpile


def _missing_compilers() -> str:
    missing = []
    for module, extra in (("numba.cuda", "cuda"), ("cupyx.jit", "cupy")):
        try:
            importlib.import_module(module)
        except Exception as exc:
            missing.append(f"{module} ({type(exc).__name__}: {exc}; pip install 'gpusim[{extra}]')")
    return ", ".join(missing)


# the kernels below are importable without the compilers (test_gpu_backends launches them on the simulator)
pytestmark = pytest.mark.skipif(bool(_missing_compilers()), reason=f"missing: {_missing_compilers()}")

BLOCK = 64  # threads per block of the kernels that use shared memory

# -- the kernels ---------------------------------------------------------------------------------


@kernel(signature="int32[:], int32")
def k_indices(out, n):
    """out[9 g + j]: the j-th index function of global thread g."""
    i = T.gtid()
    if i < n:
        base = 9 * i
        out[base] = T.thread_id()
        out[base + 1] = T.block_id()
        out[base + 2] = T.block_size()
        out[base + 3] = T.grid_size()
        out[base + 4] = T.gtid()
        out[base + 5] = T.num_threads()
        out[base + 6] = T.lane_id()
        out[base + 7] = T.warp_id()
        out[base + 8] = T.warp_size()


@kernel(signature="int32[:], int64[:], uint32[:], uint64[:], float32[:], float64[:]")
def k_shared_reverse(xi32, xi64, xu32, xu64, xf32, xf64):
    """Reverse each block's slice of six arrays through shared arrays of each dtype (grid * BLOCK long)."""
    t = T.thread_id()
    i = T.gtid()
    si32 = T.shared_array(BLOCK, T.i32)
    si64 = T.shared_array(BLOCK, T.i64)
    su32 = T.shared_array(BLOCK, T.u32)
    su64 = T.shared_array(BLOCK, T.u64)
    sf32 = T.shared_array(BLOCK, T.f32)
    sf64 = T.shared_array(BLOCK, T.f64)
    si32[t] = xi32[i]
    si64[t] = xi64[i]
    su32[t] = xu32[i]
    su64[t] = xu64[i]
    sf32[t] = xf32[i]
    sf64[t] = xf64[i]
    T.syncthreads()
    r = BLOCK - 1 - t
    xi32[i] = si32[r]
    xi64[i] = si64[r]
    xu32[i] = su32[r]
    xu64[i] = su64[r]
    xf32[i] = sf32[r]
    xf64[i] = sf64[r]


@kernel(signature="int32[:], int64[:], uint32[:], uint64[:], float32[:], float64[:], int32")
def k_local_sums(xi32, xi64, xu32, xu64, xf32, xf64, n):
    """x[i] = sum over k < 4 of (x[i] + k), through a local array of each dtype."""
    i = T.gtid()
    if i >= n:
        return
    li32 = T.local_array(4, T.i32)
    li64 = T.local_array(4, T.i64)
    lu32 = T.local_array(4, T.u32)
    lu64 = T.local_array(4, T.u64)
    lf32 = T.local_array(4, T.f32)
    lf64 = T.local_array(4, T.f64)
    for k in range(4):
        li32[k] = xi32[i] + T.i32(k)
        li64[k] = xi64[i] + T.i64(k)
        lu32[k] = xu32[i] + T.u32(k)
        lu64[k] = xu64[i] + T.u64(k)
        lf32[k] = xf32[i] + T.f32(k)
        lf64[k] = xf64[i] + T.f64(k)
    xi32[i] = li32[0] + li32[1] + li32[2] + li32[3]
    xi64[i] = li64[0] + li64[1] + li64[2] + li64[3]
    xu32[i] = lu32[0] + lu32[1] + lu32[2] + lu32[3]
    xu64[i] = lu64[0] + lu64[1] + lu64[2] + lu64[3]
    xf32[i] = lf32[0] + lf32[1] + lf32[2] + lf32[3]
    xf64[i] = lf64[0] + lf64[1] + lf64[2] + lf64[3]


@device
def four_shuffles(x, out, i):
    """out[4 i + j]: x[i] shuffled down 1, up 3, xor 5 and from lane 7 * lane % 32."""
    v = x[i]
    out[4 * i] = T.shfl_down(v, 1)
    out[4 * i + 1] = T.shfl_up(v, 3)
    out[4 * i + 2] = T.shfl_xor(v, 5)
    out[4 * i + 3] = T.shfl_idx(v, (T.lane_id() * 7) % 32)


@kernel(signature="int32[:], int64[:], float32[:], float64[:], int32[:], int64[:], float32[:], float64[:]")
def k_shuffles(xi32, xi64, xf32, xf64, oi32, oi64, of32, of64):
    """Every shuffle on every value type (every lane of every warp takes part)."""
    i = T.gtid()
    four_shuffles(xi32, oi32, i)
    four_shuffles(xi64, oi64, i)
    four_shuffles(xf32, of32, i)
    four_shuffles(xf64, of64, i)


@device
def six_reductions(x, out, i):
    """out[6 i + j]: x[i] reduced over the warp by T.reduce_add, max, min, then by the butterflies written out
    in T (gpusim.language.reductions), which must give the same bits."""
    v = x[i]
    out[6 * i] = T.reduce_add(v)
    out[6 * i + 1] = T.reduce_max(v)
    out[6 * i + 2] = T.reduce_min(v)
    out[6 * i + 3] = warp_reduce_sum(v)
    out[6 * i + 4] = warp_reduce_max(v)
    out[6 * i + 5] = warp_reduce_min(v)


@kernel(signature="int32[:], int64[:], float32[:], float64[:], int32[:], int64[:], float32[:], float64[:]")
def k_reductions(xi32, xi64, xf32, xf64, oi32, oi64, of32, of64):
    """Every warp reduction on every value type (every lane of every warp takes part)."""
    i = T.gtid()
    six_reductions(xi32, oi32, i)
    six_reductions(xi64, oi64, i)
    six_reductions(xf32, of32, i)
    six_reductions(xf64, of64, i)


@kernel(signature="int32[:], uint32[:], int32[:]")
def k_votes(x, ballots, flags):
    """ballots[i] = ballot(x[i] > 0); flags[2 i] = any(x[i] > 1); flags[2 i + 1] = all(x[i] > 0)."""
    i = T.gtid()
    ballots[i] = T.ballot(x[i] > 0)
    flags[2 * i] = T.any(x[i] > 1)
    flags[2 * i + 1] = T.all(x[i] > 0)
    T.syncwarp()


@kernel
def k_atomics_int(a, olds, n):
    """Every integer atomic, n threads contending on one element each; olds[j n + i]: thread i's old value.

    a[0] counts (add 1), a[1] takes the minimum of i + 5, a[2] the maximum of i, a[3] is swapped
    with i + 1, a[4] is compare-and-swapped from 0 to i + 1 (one thread wins), a[5] is only read.
    """
    i = T.gtid()
    if i < n:
        olds[i] = T.atomic_add(a, 0, 1)
        olds[n + i] = T.atomic_min(a, 1, i + 5)
        olds[2 * n + i] = T.atomic_max(a, 2, i)
        olds[3 * n + i] = T.atomic_exch(a, 3, i + 1)
        olds[4 * n + i] = T.atomic_cas(a, 4, 0, i + 1)
        olds[5 * n + i] = T.atomic_load(a, 5)


@kernel
def k_atomics_float(a, olds, n):
    """Float atomics: a[0] += 1 by each thread, a[1] = min, a[2] = max of i / 4 (exact values)."""
    i = T.gtid()
    if i < n:
        v = T.f64(i) / 4.0
        olds[i] = T.atomic_add(a, 0, 1.0)
        olds[n + i] = T.atomic_min(a, 1, v)
        olds[2 * n + i] = T.atomic_max(a, 2, v)


@kernel(signature="int64[:], float64[:], int32[:], int64[:], uint32[:], uint64[:], float32[:], float64[:], int32")
def k_casts(xi64, xf64, oi32, oi64, ou32, ou64, of32, of64, n):
    """Every cast of variables (integers wrap, floats truncate towards zero) and of constants."""
    i = T.gtid()
    if i < n:
        oi32[3 * i] = T.i32(xi64[i])
        oi32[3 * i + 1] = T.i32(xf64[i])
        oi32[3 * i + 2] = T.i32(4294967295)
        oi64[3 * i] = T.i64(xf64[i])
        oi64[3 * i + 1] = T.i64(T.u32(xi64[i]))
        oi64[3 * i + 2] = T.i64(1.75)
        ou32[3 * i] = T.u32(xi64[i])
        ou32[3 * i + 1] = T.u32(T.i32(xf64[i]))
        ou32[3 * i + 2] = T.u32(-1)
        ou64[3 * i] = T.u64(xi64[i])
        ou64[3 * i + 1] = T.u64(T.i64(xf64[i]))
        ou64[3 * i + 2] = T.u64(-2)
        of32[3 * i] = T.f32(xf64[i])
        of32[3 * i + 1] = T.f32(xi64[i])
        of32[3 * i + 2] = T.f32(0.1)
        of64[3 * i] = T.f64(xi64[i])
        of64[3 * i + 1] = T.f64(T.f32(xf64[i]))
        of64[3 * i + 2] = T.f64(T.i32(-7))


@device
def square(v):
    return v * v


@device
def sum_of_squares(a, b):
    return square(a) + square(b)


@device
def collatz_steps(v):
    """Steps of the Collatz map from v down to 1 (at most 1000)."""
    steps = T.i64(0)
    while v != 1:
        if steps == 1000:
            return steps
        if v % 2 == 0:
            v = v // 2
        else:
            v = 3 * v + 1
        steps += 1
    return steps


@kernel(signature="int32[:], int64[:], int32")
def k_helpers_loops(x, out, n):
    """out[2 i]: sum of squares over a loop with continue and break; out[2 i + 1]: Collatz steps of x[i] + 1."""
    i = T.gtid()
    if i >= n:
        return
    acc = T.i64(0)
    for k in range(10):
        if k == 3:
            continue
        if k == 8:
            break
        acc += sum_of_squares(T.i64(x[i]), T.i64(k))
    out[2 * i] = acc
    out[2 * i + 1] = collatz_steps(T.i64(x[i]) + 1)


@kernel(signature="int32[:], int32[:], int32[:]")
def k_message(data, flag, out):
    """Block 0 publishes data[0] = 42 (fence, then flag); block 1 polls the flag atomically, then reads it."""
    if T.thread_id() != 0:
        return
    if T.block_id() == 0:
        data[0] = 42
        T.threadfence()
        T.atomic_exch(flag, 0, 1)
    else:
        spins = T.i64(0)
        while T.atomic_load(flag, 0) == 0:
            spins += 1
            if spins == 100000000:
                break
        T.threadfence()
        out[0] = data[0]


#: (kernel, signature override or None): what the headless tests compile.
INT_ATOMIC_DTYPES = ("int32", "uint32", "uint64", "int64")  # int64 goes beyond gpusim.language's list
FLOAT_ATOMIC_DTYPES = ("float32", "float64")
COMPILED = (
    [(k, None) for k in (k_indices, k_shared_reverse, k_local_sums, k_shuffles, k_reductions, k_votes, k_casts,
                         k_helpers_loops, k_message)]
    + [(k_atomics_int, f"{d}[:], {d}[:], int32") for d in INT_ATOMIC_DTYPES]
    + [(k_atomics_float, f"{d}[:], {d}[:], int32") for d in FLOAT_ATOMIC_DTYPES]
)
TEST_KERNELS = [k for k, _ in COMPILED]


def _ids(cases):
    return [k.name + (f"[{sig.split('[')[0]}]" if sig else "") for k, sig in cases]


# -- coverage of T ----------------------------------------------------------------------------------


def _members_used(fn) -> set[str]:
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    return {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "T"
    }


def test_test_kernels_use_every_member_of_T():
    here = [v for v in globals().values() if isinstance(v, (Kernel, DeviceFunction))]
    used = set().union(*(_members_used(k.fn) for k in here))
    assert sorted(set(MEMBERS) - used) == []


# -- numba --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("kern", "signature"), COMPILED, ids=_ids(COMPILED))
def test_compiles_for_numba(kern, signature):
    ptx = compile_ptx(kern, "numba", (8, 0), signature=signature)
    assert ".entry" in ptx and ".target sm_80" in ptx


def test_numba_atomic_load_is_an_atomic_read():
    ptx = compile_ptx(k_message, "numba")
    assert "atom.global.or.b32" in ptx  # polled with an atomic, never a plain load that can be hoisted


_WRAPAROUND = re.compile(r"shr\.s64\s+\S+, \S+, 63;")  # the sign of a 64-bit index, taken to wrap a negative one


@kernel(signature="int32[:], int32[:], int32[:], int32")
def k_gather_count(src, idx, out, n):
    i = T.gtid()
    while i < n:
        out[i] = src[idx[i]]
        T.atomic_add(out, idx[i], 1)
        i += T.num_threads()


def test_numba_kernels_use_their_indices_as_given_and_user_kernels_keep_wraparound():
    from numba import cuda, int32

    assert _WRAPAROUND.search(compile_ptx(k_gather_count, "numba")) is None

    def users_kernel(src, idx, out, n):  # numba's meaning of a[-1], compiled outside gpusim
        i = cuda.grid(1)
        if i < n:
            out[i] = src[idx[i]]
            cuda.atomic.add(out, idx[i], 1)

    ptx, _ = cuda.compile_ptx(users_kernel, (int32[:], int32[:], int32[:], int32), cc=(8, 0))
    assert len(_WRAPAROUND.findall(ptx)) >= 2

# -- cupy ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("kern", "signature"), COMPILED, ids=_ids(COMPILED))
def test_compiles_for_cupy(kern, signature):
    source = transpile(kern, signature=signature)
    assert f'extern "C" __global__ void {kern.name}(' in source
    if not nvrtc_available()[0]:
        pytest.skip(f"NVRTC does not load here ({nvrtc_available()[1]}); transpiled only")
    ptx = compile_ptx(kern, "cupy", (8, 0), signature=signature)
    assert f".entry {kern.name}(" in ptx


def test_cupy_indices_are_int32_and_atomics_use_shims():
    source = transpile(k_indices)
    assert "((int)(threadIdx.x))" in source and "((int)(blockIdx.x * blockDim.x + threadIdx.x))" in source
    source = transpile(k_atomics_int, signature="int64[:], int64[:], int32")
    assert "gpusim_atomic_cas_i64" in source and "gpusim_atomic_load_i64" in source
    source = transpile(k_atomics_float, signature="float64[:], float64[:], int32")
    assert "gpusim_atomic_max_f64" in source and "gpusim_atomic_min_f64" in source


def test_cupy_constant_casts_wrap():
    source = transpile(k_casts)
    assert "= -1;" in source  # T.i32(4294967295), folded with C semantics
    assert "= 4294967295u;" in source  # T.u32(-1)
    assert "= 18446744073709551614ull;" in source  # T.u64(-2)


# -- every signed kernel of the package --------------------------------------------------------------


#: Modules of the test suite whose kernels must compile too (the simulator's test kernels, the broken twins).
TEST_KERNEL_MODULES = ("sim_kernels", "test_weak_memory", "test_lockstep", "test_race_detector")  # twins: gpusim.zoo


def _package_kernels() -> list[Kernel]:
    import gpusim
    import gpusim.algorithms

    for package in (gpusim, gpusim.algorithms):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name != "gpusim.__main__":
                importlib.import_module(info.name)
    for module in TEST_KERNEL_MODULES:
        importlib.import_module(module)
    return [
        k for k in registry()
        if isinstance(k, Kernel) and k.signature is not None and k.checked  # from source: not a variant made by
        and (k.fn.__module__.startswith("gpusim.") or k.fn.__module__ in TEST_KERNEL_MODULES)  # a test run before
        and not k.filename.startswith("<")  # docstring examples: their source is gone once they ran
    ]


def _twin_variants(kernels: list[Kernel]) -> dict[str, list[Kernel]]:
    """The zoo's broken twins that replace steps (``{step: @device}`` in a ``gpusim.zoo`` module's ``__all__``),
    by name, each as the variants it makes of every kernel in ``kernels`` that calls its steps."""
    import gpusim.zoo

    variants = {}
    for info in pkgutil.iter_modules(gpusim.zoo.__path__, "gpusim.zoo."):
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            twin = getattr(module, name)
            if isinstance(twin, dict) and twin and all(isinstance(f, DeviceFunction) for f in twin.values()):
                variants[name] = [with_devices(k, twin) for k in kernels if set(twin) <= device_names(k)]
    return variants


def test_the_zoo_twins_that_replace_a_step_make_variants_of_signed_kernels():
    made = _twin_variants(_package_kernels())
    assert {"alternate_without_predecessor_check", "push_active_without_ia_guard", "mcvitie_wilson_no_cas",
            "suitor_without_cas", "atomic_flip_without_fence"} <= set(made)
    assert all(made.values()), [name for name, variants in made.items() if not variants]


#: The kernels split by the folder they are defined in (the rest: the runtime's, the zoo's twins, the tests'), so
#: that pytest -n spreads the compiles over its workers.
FAMILIES = ("bipartite", "weighted", "stable", "louvain")


def _family(k: Kernel) -> str:
    folder = Path(k.filename).parent
    return folder.name if folder.name in FAMILIES and folder.parent.name == "algorithms" else "the rest"


@pytest.mark.parametrize("family", [*FAMILIES, "the rest"])
@pytest.mark.parametrize("backend", ["numba", "cupy"])
def test_every_signed_kernel_compiles_for_both_backends(backend, family):
    package = _package_kernels()
    twins = [variant for variants in _twin_variants(package).values() for variant in variants]
    kernels = [k for k in package + twins + [k for k, sig in COMPILED if sig is None] if _family(k) == family]
    assert kernels
    results = compile_all(kernels, backends=(backend,))
    assert len(results) == len(kernels)
    failed = [f"{r.name} on {r.backend}: {r.error}" for r in results if not r.ok]
    assert failed == [], "\n\n".join(failed)
    assert all(isinstance(r, CompileResult) and r.seconds >= 0 for r in results)


# -- errors ----------------------------------------------------------------------------------------------


@kernel
def k_unsigned(out, n):
    i = T.gtid()
    if i < n:
        out[i] = T.shfl_down(out[i], 1)


def test_a_kernel_without_signature_is_refused_with_advice():
    for call in (lambda: compile_ptx(k_unsigned, "numba"), lambda: compile_ptx(k_unsigned, "cupy"),
                 lambda: transpile(k_unsigned)):
        with pytest.raises(InvalidArgument, match="has no signature.*add one"):
            call()
    (result, *_) = compile_all([k_unsigned], backends=("numba",))
    assert not result.ok and "signature" in result.error


@pytest.mark.parametrize("backend", ["numba", "cupy"])
def test_a_kernel_that_does_not_compile_names_itself(backend):
    # shuffles carry i32/i64/f32/f64 only: a uint32 shuffle compiles nowhere
    with pytest.raises(KernelSyntaxError, match="k_unsigned"):
        compile_ptx(k_unsigned, backend, signature="uint32[:], int32")
    results = compile_all([k_unsigned], backends=(backend,))
    assert [r.ok for r in results] == [False]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: compile_ptx(k_indices, "sim"), "backend='sim' is not one of"),
        (lambda: compile_ptx(k_indices, "numba", cc=8), "cc must be a compute capability"),
        (lambda: compile_ptx(k_indices, "numba", cc=(3, 0)), "cc must be a compute capability"),
        (lambda: transpile(k_indices, "numba"), "backend='numba' is not one of"),
        (lambda: compile_ptx(square, "numba"), "must be a function decorated with @kernel"),
        (lambda: compile_ptx(k_indices, "numba", signature="int32[:]"), "has 1 types for 2 parameters"),
        (lambda: compile_all([square]), "must hold functions decorated with @kernel"),
        (lambda: compile_all([], backends=("opencl",)), "backend='opencl' is not one of"),
    ],
)
def test_validates_arguments(call, message):
    with pytest.raises(InvalidArgument, match=message):
        call()
