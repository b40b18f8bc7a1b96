"""The CuPy backend: kernels compiled by ``cupyx.jit`` (``mode="numpy"``) and NVRTC; CuPy arrays.

Nothing here imports CuPy at module level: :func:`availability` says whether CuPy, a CUDA
driver and a GPU are there, and :func:`create_backend` builds the backend object that
:class:`gpusim.Device` drives.  The language ``T`` for cupyx lives in
:mod:`gpusim.backends.cupy_language`, its shims over cupyx internals in
:mod:`gpusim.backends.cupy_shims` (tested with the CuPy versions in
``cupy_shims.TESTED_CUPY_VERSIONS``).

A kernel is bound to cupyx's ``T`` (:func:`gpusim.language.kernels.bind`), transpiled to CUDA C++ and
compiled by NVRTC once per tuple of argument types; a second launch with the same types reuses
the compiled kernel (:attr:`CupyBackend.compile_count` does not move).

Example
-------
>>> import numpy as np
>>> from gpusim import Device, T, kernel
>>> @kernel(signature="int32[:], int32")
... def iota(out, n):
...     i = T.gtid()
...     if i < n:
...         out[i] = i
>>> dev = Device("cupy")                                    # doctest: +SKIP
>>> out = dev.zeros(4, np.int32)                            # doctest: +SKIP
>>> dev.launch(iota, grid=1, block=32, args=(out, 4))       # doctest: +SKIP
>>> dev.to_host(out)                                        # doctest: +SKIP
array([0, 1, 2, 3], dtype=int32)
"""

from __future__ import annotations

import importlib.metadata
import warnings
from typing import Any, ClassVar

import numpy as np

from gpusim.backends.gpu import GpuBackend, kept_once_working, memset
from gpusim.errors import BackendUnavailable, KernelSyntaxError

__all__ = ["CupyBackend", "availability", "create_backend", "nvrtc_ptx", "probe", "transpile_kernel", "transpiled"]

_INSTALL = "pip install 'gpusim[cupy]' (CuPy for your CUDA: cupy-cuda12x or cupy-cuda13x)"
_NEEDS = f"Device('cupy') needs an NVIDIA GPU, its driver, and {_INSTALL}"
_warned_version = False


def cupy_version() -> str | None:
    """The installed CuPy distribution's version (any of its CUDA builds), or None when none is installed."""
    for dist in ("cupy", "cupy-cuda12x", "cupy-cuda13x", "cupy-cuda11x"):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def probe() -> tuple[bool, str]:
    """Whether kernels can run on CuPy here, and why (one line).

    Never raises: a missing CuPy, a missing or too old driver, a machine without a GPU and a
    missing NVRTC each give ``(False, reason)``, the reason naming what is missing.

    Examples
    --------
    >>> ok, why = probe()
    >>> isinstance(ok, bool) and isinstance(why, str)
    True
    """
    version = cupy_version()
    if version is None:
        return False, f"CuPy is not installed; {_INSTALL}"
    try:
        import cupy
        import cupyx.jit  # noqa: F401
    except Exception as exc:
        return False, f"CuPy {version} is installed but failed to import ({type(exc).__name__}: {exc}); {_INSTALL}"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        message = " ".join(str(exc).split()).rstrip(" :") or type(exc).__name__
        return False, f"CuPy {version} finds no usable CUDA driver ({message}); {_NEEDS}"
    if count < 1:
        return False, f"the CUDA driver sees no GPU (CuPy {version}); {_NEEDS}"
    try:
        major, minor = cupy.cuda.nvrtc.getVersion()
    except Exception as exc:
        return False, f"CuPy {version} cannot load NVRTC ({type(exc).__name__}: {exc}); {_INSTALL}"
    try:
        name = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.runtime.getDevice())["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
    except Exception as exc:
        return False, f"CuPy {version} cannot open the GPU ({type(exc).__name__}: {exc})"
    return True, f"CuPy {version} with NVRTC {major}.{minor} on {name}"


#: :func:`probe`, asked again only until it finds a working GPU (see :func:`~gpusim.backends.gpu.kept_once_working`).
availability = kept_once_working(probe)


def create_backend() -> CupyBackend:
    """A new :class:`CupyBackend`; raises :class:`~gpusim.errors.BackendUnavailable` if it cannot run."""
    ok, why = availability()
    if not ok:
        raise BackendUnavailable(f"backend 'cupy' cannot run here: {why}")
    return CupyBackend()


def _check_version() -> None:
    global _warned_version
    from gpusim.backends.cupy_shims import TESTED_CUPY_VERSIONS

    version = cupy_version()
    if not _warned_version and version not in TESTED_CUPY_VERSIONS:
        _warned_version = True
        warnings.warn(
            f"gpusim's shims over cupyx.jit internals were tested with CuPy {', '.join(TESTED_CUPY_VERSIONS)}, "
            f"not {version}; if a kernel fails to transpile, try one of those",
            RuntimeWarning,
            stacklevel=3,
        )


def in_types(types_: tuple[tuple[np.dtype, bool], ...], index_32_bits: tuple[bool, ...] | None = None):
    """cupyx argument types for ``(dtype, is_array)`` pairs: C-contiguous 1-D ``CArray`` and scalars."""
    from cupyx.jit import _cuda_types

    out = []
    for position, (dtype, is_array) in enumerate(types_):
        if is_array:
            small = True if index_32_bits is None else index_32_bits[position]
            out.append(_cuda_types.CArray(np.dtype(dtype), 1, True, small))
        else:
            out.append(_cuda_types.Scalar(np.dtype(dtype)))
    return tuple(out)


def transpile_kernel(kernel, types_: tuple, index_32_bits: tuple[bool, ...] | None = None):
    """Transpile ``kernel`` at argument types ``types_`` to CUDA C++; a cupyx ``Result``.

    Raises :class:`~gpusim.errors.KernelSyntaxError` naming the kernel when cupyx refuses it.
    """
    from cupyx.jit import _compile, _cuda_types

    from gpusim.backends.cupy_language import MODE, T, wrap_device
    from gpusim.language.kernels import bind

    _check_version()
    clone = bind(kernel, T, wrap_device=wrap_device)
    try:
        with warnings.catch_warnings():
            # the @kernel(...) line is part of the source cupyx reads; it only warns about it
            warnings.filterwarnings("ignore", message="Decorator .* may not supported", category=RuntimeWarning)
            return _compile.transpile(
                clone, ['extern "C"', "__global__"], MODE, in_types(types_, index_32_bits), _cuda_types.void
            )
    except Exception as exc:
        described = ", ".join(f"{np.dtype(d).name}[:]" if a else np.dtype(d).name for d, a in types_)
        raise KernelSyntaxError(
            f"kernel {kernel.name!r} ({kernel.filename}:{kernel.lineno}) does not transpile with cupyx.jit "
            f"for argument types ({described}): {type(exc).__name__}: {exc}"
        ) from exc


def transpiled(kernel, types_: tuple, index_32_bits: tuple[bool, ...]) -> dict:
    """What :func:`transpile_kernel` makes of ``kernel`` (``code``, ``func_name``, ``options``, ``backend``,
    ``jitify``, ``enable_cooperative_groups``), kept on this machine under the kernel's fingerprint (every
    ``@device`` step bound into it, cupyx's ``T`` and versions) and argument types: cupyx walks a kernel's Python
    source once per machine, not once per process (:mod:`gpusim.backends.kernel_cache`)."""
    from gpusim.backends.kernel_cache import keep_transpiled, language_stamp, ledger_key, load_transpiled
    from gpusim.language.fingerprint import fingerprint

    bits = "".join("1" if small else "0" for small in index_32_bits)
    key = f"{ledger_key(fingerprint(kernel, language_stamp('cupy')), types_)}-{bits}"
    found = load_transpiled(key)
    if found is None:
        result = transpile_kernel(kernel, types_, index_32_bits)
        found = {"code": result.code, "func_name": result.func_name, "options": list(result.options),
                 "backend": result.backend, "jitify": bool(result.jitify),
                 "enable_cooperative_groups": bool(result.enable_cooperative_groups)}
        keep_transpiled(key, found)
    return found


def nvrtc_ptx(result, cc: tuple[int, int] = (8, 0)) -> str:
    """Compile a cupyx ``Result`` (from :func:`transpile_kernel`) to PTX with NVRTC, without a GPU.

    Uses CuPy's own headers and options, as a launch does, with ``-arch=compute_XY`` for ``cc``.
    """
    import cupy._core.core as core
    from cupy.cuda import compiler

    headers = "".join(f"#include <{name}>\n" for name in core._cupy_header_list)
    options = core.assemble_cupy_compiler_options(tuple(result.options)) + (
        f"-arch=compute_{cc[0]}{cc[1]}",
        "--device-as-default-execution-space",
        "-ftz=true",
    )
    program = compiler._NVRTCProgram(headers + result.code, "gpusim_kernel.cu", (), ())
    try:
        ptx, _ = program.compile(options)
    except compiler.CompileException as exc:
        raise KernelSyntaxError(f"NVRTC refused the CUDA source of kernel {result.func_name!r}:\n{exc}") from exc
    return ptx.decode() if isinstance(ptx, bytes) else ptx


def _module(source: str, result: dict):
    """CuPy's module of ``source``, compiled with the options cupyx gave in ``result`` (through CuPy's disk cache)."""
    from cupy._core import core

    options = tuple(result["options"])
    if result["backend"] == "nvcc":
        options += ("-DCUPY_JIT_NVCC",)
    return core.compile_with_cache(source=source, options=options, backend=result["backend"], jitify=result["jitify"])


class CupyBackend(GpuBackend):
    """Device arrays and launches through CuPy and ``cupyx.jit``: a kernel is transpiled and compiled
    once per tuple of argument types, 32-bit indexing and GPU (see :class:`~gpusim.backends.gpu.GpuBackend`)."""

    name = "cupy"
    #: (kernel, device) -> (CuPy function, cooperative launch) from its package's program, or None (compiled alone)
    _bundles: ClassVar[dict[tuple, Any]] = {}

    def __init__(self) -> None:
        import cupy

        self._cupy = cupy

    # -- memory --------------------------------------------------------------------------------
    def empty(self, n: int, dtype: np.dtype):
        """From CuPy's pool, not initialised."""
        return self._cupy.empty(n, dtype=dtype)

    def full(self, n: int, value: Any, dtype: np.dtype):
        """Allocated from CuPy's pool and set by :meth:`fill`."""
        out = self._cupy.empty(n, dtype=dtype)
        self.fill(out, value, dtype, n)
        return out

    def fill(self, out: Any, value: Any, dtype: np.dtype, n: int) -> None:
        """Set the ``n`` items of ``out`` to ``value`` on the device by an asynchronous memset on the current stream:
        CuPy's own when ``value`` is one repeated byte (0, -1), the driver's 32-bit one for other 4-byte items
        (:func:`~gpusim.backends.gpu.memset`), else an elementwise kernel (``fill``: several times a memset's host
        cost, about 25 us a call on an H100)."""
        if n == 0:
            return
        cupy = self._cupy
        pattern = np.array([value], dtype=dtype).tobytes()
        stream = cupy.cuda.get_current_stream().ptr
        if len(set(pattern)) == 1:
            cupy.cuda.runtime.memsetAsync(out.data.ptr, pattern[0], n * dtype.itemsize, stream)
        elif not memset(out.data.ptr, value, dtype, n, stream):
            out.fill(value)

    def copy_in(self, host: np.ndarray, registered: bool):
        """``cupy.asarray`` for pageable memory (CuPy stages it through its pinned pool); for registered pages a
        synchronous ``cudaMemcpy`` straight from them."""
        if not registered:
            return self._cupy.asarray(host)
        out = self._cupy.empty(host.shape, host.dtype)
        out.set(host)
        return out

    def register(self, host: np.ndarray):
        runtime, address = self._cupy.cuda.runtime, host.ctypes.data
        try:
            runtime.hostRegister(address, host.nbytes, 0)
        except runtime.CUDARuntimeError:
            return None
        return lambda: runtime.hostUnregister(address)  # the address alone: the array is not kept alive

    def adopt(self, value: Any):
        """``value`` as a CuPy array without a copy (a ``cupy.ndarray``, or any object with
        ``__cuda_array_interface__``, numba's device arrays included), or None for host data.
        A strided 1-D view is made contiguous on the device."""
        cupy = self._cupy
        if isinstance(value, cupy.ndarray):
            found = value
        elif hasattr(value, "__cuda_array_interface__"):
            found = cupy.asarray(value)
        else:
            return None
        return cupy.ascontiguousarray(found) if found.ndim == 1 else found

    def free_memory(self) -> int:
        """Free bytes on the device, counting the blocks CuPy's memory pool holds for reuse."""
        free, _ = self._cupy.cuda.runtime.memGetInfo()
        return int(free) + int(self._cupy.get_default_memory_pool().free_bytes())

    def to_host(self, array: Any) -> np.ndarray:
        return self._cupy.asnumpy(array)

    def is_device_array(self, value: Any) -> bool:
        return isinstance(value, self._cupy.ndarray)

    def device_synchronize(self) -> None:
        self._cupy.cuda.Device().synchronize()

    # -- compiling and launching ---------------------------------------------------------------
    def signature(self, args: tuple) -> tuple:
        """``(((dtype, is_array), ...), 32-bit indexing per argument, device id)`` of the launch."""
        ndarray = self._cupy.ndarray
        types_ = tuple((a.dtype, isinstance(a, ndarray)) for a in args)
        index_32_bits = tuple(bool(a._index_32_bits) if isinstance(a, ndarray) else True for a in args)
        return types_, index_32_bits, self._cupy.cuda.runtime.getDevice()

    def argument_types(self, signature: tuple) -> tuple:
        return signature[0]

    def launch_key(self, kernel, args: tuple):
        """``(kernel, current device)`` where the declared signature decides: every array indexed in 32 bits (the
        compilation depends on that and on the device, beside the dtypes)."""
        if not kernel.signature:
            return None
        ndarray = self._cupy.ndarray
        for value in args:
            if isinstance(value, ndarray) and not value._index_32_bits:
                return None
        return kernel, self._cupy.cuda.runtime.getDevice()

    def declared_signature(self, kernel) -> tuple | None:
        """The launch signature of ``kernel``'s declared one (None: it declares none)."""
        if kernel.signature is None:
            return None
        types_ = tuple((p.dtype, p.is_array) for p in kernel.signature)
        return types_, (True,) * len(types_), self._cupy.cuda.runtime.getDevice()

    def compile(self, kernel, signature: tuple):
        """``(CuPy function, cooperative launch)`` for ``kernel`` at ``signature``: the CUDA source transpiled by cupyx
        (or as this machine kept it, :func:`transpiled`), compiled by CuPy, whose disk cache keeps the binary.  At its
        declared signature a kernel of gpusim's algorithms is compiled with its package's other kernels, in one
        program (:mod:`gpusim.backends.cupy_bundles`)."""
        if signature == self.declared_signature(kernel):
            found = self._bundled(kernel, signature)
            if found is not None:
                return found
        types_, index_32_bits, _ = signature
        result = transpiled(kernel, types_, index_32_bits)
        try:
            module = _module(result["code"], result)
        except Exception as exc:
            raise KernelSyntaxError(
                f"kernel {kernel.name!r} ({kernel.filename}:{kernel.lineno}) transpiled, but its CUDA source "
                f"does not compile: {type(exc).__name__}: {exc}"
            ) from exc
        return module.get_function(result["func_name"]), result["enable_cooperative_groups"]

    def _bundled(self, kernel, signature: tuple):
        """``kernel`` compiled in its package's program (compiling the program on the package's first launch), or
        None where it is not in one or the program does not compile (the kernel is then compiled alone)."""
        device = signature[2]
        if (kernel, device) not in self._bundles:
            from gpusim.backends.cupy_bundles import bundle_source, family

            members = family(kernel)
            if not members:
                return None
            group = members
            try:
                results = {k: transpiled(k, *self.declared_signature(k)[:2]) for k in members}
                same = ("options", "backend", "jitify")
                group = [k for k in members if all(results[k][o] == results[kernel][o] for o in same)]
                module = _module(bundle_source([results[k] for k in group]), results[kernel])
                compiled = {(k, device): (module.get_function(results[k]["func_name"]),
                                          results[k]["enable_cooperative_groups"]) for k in group}
            except Exception:  # compiled alone, each then saying what is wrong with it
                compiled = dict.fromkeys(((k, device) for k in group), None)
            self._bundles.update(compiled)
        return self._bundles[kernel, device]

    def run(self, compiled, grid: int, block: int, args: tuple) -> None:
        function, cooperative = compiled
        function((grid, 1, 1), (block, 1, 1), args, 0, None, cooperative)
