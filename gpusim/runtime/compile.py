"""Compile kernels for the GPU backends without a GPU: PTX from numba, CUDA C++ and PTX from cupyx.

Continuous integration has no GPU and no driver, yet a kernel that stops compiling must fail
it.  Both GPU compilers work headless: ``numba.cuda.compile_ptx`` (numba-cuda with its NVVM),
and ``cupyx.jit``'s transpiler followed by NVRTC (found through the CUDA 12 wheels that
``pip install 'gpusim[cuda]'`` brings).  Every function here uses the kernel's ``signature``
(or one given explicitly) for the argument types.

Example
-------
>>> from gpusim import T, kernel
>>> from gpusim.runtime.compile import compile_ptx, transpile
>>> @kernel(signature="int32[:], int32")
... def iota(out, n):
...     i = T.gtid()
...     if i < n:
...         out[i] = i
>>> ".entry" in compile_ptx(iota, "numba")
True
>>> "__global__ void iota(CArray<int, 1, true, true> out, int n)" in transpile(iota)
True
>>> ".entry iota" in compile_ptx(iota, "cupy", cc=(9, 0))
True
"""

from __future__ import annotations

import importlib
import importlib.metadata
import time
import traceback
from collections.abc import Iterable
from typing import Any, NamedTuple

from gpusim.errors import BackendUnavailable, GpusimError, InvalidArgument, InvalidArgumentType
from gpusim.language.kernels import Kernel, parse_signature, registry

__all__ = ["COMPILE_BACKENDS", "CompileResult", "compile_all", "compile_ptx", "nvrtc_available", "transpile"]

#: The backends :func:`compile_ptx` and :func:`compile_all` compile for.
COMPILE_BACKENDS = ("numba", "cupy")


class CompileResult(NamedTuple):
    """The outcome of compiling one kernel for one backend (see :func:`compile_all`).

    ``stage`` says how far the compilation went: ``"ptx"`` (numba's PTX, or cupyx's CUDA source
    through NVRTC), or ``"source"`` (cupyx's CUDA source only, where NVRTC does not load).
    """

    name: str
    backend: str
    ok: bool
    seconds: float
    error: str | None
    stage: str


def _types(kernel: Kernel, signature: str | None) -> tuple:
    if not isinstance(kernel, Kernel):
        raise InvalidArgumentType(f"kernel must be a function decorated with @kernel, got {kernel!r}")
    if signature is not None:
        params = parse_signature(signature, kernel.params, kernel.name)
    elif kernel.signature is not None:
        params = kernel.signature
    else:
        raise InvalidArgument(
            f"kernel {kernel.name!r} ({kernel.filename}:{kernel.lineno}) has no signature, so its argument "
            f"types are unknown without a launch; add one: @kernel(signature=\"int32[:], int32\") "
            f"(one type per parameter {kernel.params}), or pass signature=..."
        )
    return tuple((p.dtype, p.is_array) for p in params)


def _check_cc(cc) -> tuple[int, int]:
    if (
        not isinstance(cc, tuple)
        or len(cc) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in cc)
        or cc < (5, 0)
    ):
        raise InvalidArgument(f"cc must be a compute capability such as (8, 0), at least (5, 0); got cc={cc!r}")
    return cc


def _check_backend(backend, allowed: tuple[str, ...]) -> str:
    if backend not in allowed:
        raise InvalidArgument(f"backend={backend!r} is not one of {allowed}")
    return backend


#: For each backend: the compiler's name, the module binding ``T`` to it, and the extra that installs it.
_COMPILERS = {
    "numba": ("numba-cuda", "gpusim.backends.numba_language", "gpusim[cuda]"),
    "cupy": ("CuPy", "gpusim.backends.cupy_language", "gpusim[cupy]"),
}


def _installed_version(backend: str) -> str | None:
    """The installed version of ``backend``'s compiler, ``None`` when it is not installed."""
    if backend == "cupy":
        from gpusim.backends.cupy import cupy_version

        return cupy_version()
    try:
        # numba alone is not enough: its own numba.cuda imports, then fails to compile anything
        return importlib.metadata.version("numba-cuda")
    except importlib.metadata.PackageNotFoundError:
        return None


def _require(backend: str) -> None:
    """Raise :class:`BackendUnavailable` unless ``backend``'s compiler is installed and imports."""
    package, module, extra = _COMPILERS[backend]
    version = _installed_version(backend)
    if version is None:
        raise BackendUnavailable(
            f"compiling for {backend} needs {package}, which is not installed: pip install '{extra}'"
        )
    try:
        importlib.import_module(module)
    except Exception as exc:
        raise BackendUnavailable(
            f"compiling for {backend} needs {package}; {package} {version} is installed but failed to import "
            f"({type(exc).__name__}: {exc}); pip install '{extra}' installs compatible versions"
        ) from exc


def transpile(kernel: Kernel, backend: str = "cupy", *, signature: str | None = None) -> str:
    """The CUDA C++ source that ``cupyx.jit`` makes of ``kernel`` (no GPU needed).

    Parameters
    ----------
    kernel:
        A ``@kernel`` with a signature (or pass ``signature``).
    backend:
        ``"cupy"``, the only backend that goes through CUDA C++.
    signature:
        Argument types to use instead of the kernel's own, e.g. ``"int64[:], int32"``.

    Returns
    -------
    str
        The CUDA C++ source of the kernel and the device functions it calls.

    Raises
    ------
    InvalidArgument
        The kernel has no signature and none was given.
    KernelSyntaxError
        cupyx refuses the kernel (the message names it and shows the offending line).
    BackendUnavailable
        CuPy is not installed (the message says so, and what to install).
    """
    _check_backend(backend, ("cupy",))
    types_ = _types(kernel, signature)
    _require("cupy")
    from gpusim.backends.cupy import transpile_kernel

    return transpile_kernel(kernel, types_).code


def compile_ptx(
    kernel: Kernel, backend: str = "numba", cc: tuple[int, int] = (8, 0), *, signature: str | None = None
) -> str:
    """PTX for ``kernel`` from ``backend``'s compiler, for compute capability ``cc`` (no GPU needed).

    Parameters
    ----------
    kernel:
        A ``@kernel`` with a signature (or pass ``signature``).
    backend:
        ``"numba"`` (``numba.cuda.compile_ptx``) or ``"cupy"`` (cupyx transpile, then NVRTC).
    cc:
        The compute capability to compile for, e.g. ``(8, 0)`` or ``(9, 0)``.
    signature:
        Argument types to use instead of the kernel's own, e.g. ``"int64[:], int32"``.

    Returns
    -------
    str
        The PTX module.

    Raises
    ------
    InvalidArgument
        The kernel has no signature and none was given, or ``backend``/``cc`` is not valid.
    KernelSyntaxError
        The compiler refuses the kernel.
    BackendUnavailable
        numba-cuda or CuPy (or NVRTC) is not installed (the message says so, and what to install).
    """
    _check_backend(backend, COMPILE_BACKENDS)
    cc = _check_cc(cc)
    types_ = _types(kernel, signature)
    if backend == "numba":
        _require("numba")
        from numba import cuda

        from gpusim.backends.numba import bind_kernel, numba_signature
        from gpusim.backends.numba_shims import indices_as_given
        from gpusim.errors import KernelSyntaxError

        try:
            with indices_as_given():
                ptx, _ = cuda.compile_ptx(bind_kernel(kernel), numba_signature(types_), cc=cc)
        except Exception as exc:
            raise KernelSyntaxError(
                f"kernel {kernel.name!r} ({kernel.filename}:{kernel.lineno}) does not compile for numba: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        return ptx
    _require("cupy")
    ok, why = nvrtc_available()
    if not ok:
        raise BackendUnavailable(f"compiling cupyx's CUDA source to PTX needs NVRTC: {why}")
    from gpusim.backends.cupy import nvrtc_ptx, transpile_kernel

    return nvrtc_ptx(transpile_kernel(kernel, types_), cc)


def nvrtc_available() -> tuple[bool, str]:
    """Whether CuPy can load NVRTC here (no GPU needed), and its version or why not."""
    try:
        from cupy.cuda import nvrtc

        major, minor = nvrtc.getVersion()
    except Exception as exc:
        return False, f"{type(exc).__name__}: {exc}; pip install 'gpusim[cuda]' brings NVRTC for CUDA 12"
    return True, f"NVRTC {major}.{minor}"


def compile_all(
    kernels: Iterable[Kernel] | None = None,
    backends: Iterable[str] = COMPILE_BACKENDS,
    cc: tuple[int, int] = (8, 0),
) -> list[CompileResult]:
    """Compile every signed kernel for every backend, headless; one :class:`CompileResult` each.

    Parameters
    ----------
    kernels:
        The kernels to compile; by default every kernel with a signature in
        :func:`gpusim.language.kernels.registry` (import the modules that define them first).
    backends:
        Some of ``("numba", "cupy")``.  For ``"cupy"`` the CUDA source goes through NVRTC when it
        loads; otherwise the result's ``stage`` is ``"source"``.
    cc:
        The compute capability to compile for.

    Returns
    -------
    list of CompileResult
        In the order of ``kernels``, each kernel once per backend.  Failures do not raise:
        ``ok`` is False and ``error`` holds the message.

    Examples
    --------
    >>> compile_all([])
    []
    """
    backends = tuple(backends)
    for backend in backends:
        _check_backend(backend, COMPILE_BACKENDS)
    cc = _check_cc(cc)
    if kernels is None:
        kernels = [k for k in registry() if isinstance(k, Kernel) and k.signature is not None]
    kernels = list(kernels)
    for k in kernels:
        if not isinstance(k, Kernel):
            raise InvalidArgumentType(f"kernels must hold functions decorated with @kernel, got {k!r}")
    use_nvrtc = "cupy" in backends and nvrtc_available()[0]
    bundled = _cupy_bundles(kernels, cc) if use_nvrtc else {}
    results = []
    for k in kernels:
        for backend in backends:
            if backend == "cupy" and k in bundled:
                results.append(bundled[k])
                continue
            stage = "ptx" if backend == "numba" or use_nvrtc else "source"
            start = time.perf_counter()
            error = None
            try:
                if stage == "ptx":
                    compile_ptx(k, backend, cc)
                else:
                    transpile(k, backend)
            except GpusimError as exc:
                error = str(exc)
            except Exception as exc:  # a bug in a compiler or in gpusim: keep going, report it
                error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            seconds = time.perf_counter() - start
            results.append(CompileResult(k.name, backend, error is None, seconds, error, stage))
    return results


def _cupy_bundles(kernels: list[Kernel], cc: tuple[int, int]) -> dict[Kernel, CompileResult]:
    """``kernels`` compiled for CuPy in as few NVRTC programs as their names allow, each kernel in a namespace of its
    own as in the programs the GPU backend builds (:mod:`gpusim.backends.cupy_bundles`): NVRTC parses CuPy's headers
    once a program, which is most of a kernel's compile.  The kernels of a program that does not compile are left
    out, to be compiled one by one (which names the one at fault)."""
    from types import SimpleNamespace

    from gpusim.backends.cupy import nvrtc_ptx, transpile_kernel
    from gpusim.backends.cupy_bundles import bundle_source

    programs: list[dict[str, tuple[Kernel, Any]]] = []
    for k in kernels:
        try:
            result = transpile_kernel(k, _types(k, None))
        except Exception:
            continue
        fits = [p for p in programs if k.name not in p and next(iter(p.values()))[1].options == result.options]
        if fits:
            fits[0][k.name] = (k, result)
        else:
            programs.append({k.name: (k, result)})
    done = {}
    for program in programs:
        start = time.perf_counter()
        members = list(program.values())
        try:
            nvrtc_ptx(SimpleNamespace(code=bundle_source([{"code": r.code} for _, r in members]),
                                      options=members[0][1].options, func_name="gpusim_check"), cc)
        except Exception:
            continue
        share = (time.perf_counter() - start) / len(members)
        done.update({k: CompileResult(k.name, "cupy", True, share, None, "ptx") for k, _ in members})
    return done
