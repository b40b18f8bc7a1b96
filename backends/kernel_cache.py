"""Kernels compiled once per machine, not once per process: where the GPU backends keep them, and the line a first
compile prints.

numba-cuda keeps a compiled kernel on disk (its ``cache=True`` machinery: an index file and a data file per
function) in ``NUMBA_CACHE_DIR`` or else ``~/.cache/gpusim/numba`` (``XDG_CACHE_HOME`` respected); CuPy keeps the
binary of each CUDA source in ``CUPY_CACHE_DIR`` or else its own ``~/.cupy/kernel_cache``.  numba's cache keys a
function by its own bytecode, source file and line: a variant (the same kernel with another ``@device`` step bound
in, :mod:`gpusim.language.variants`) would load the original's binary, numba having frozen the original's globals
into it.  :class:`numba_kernel_cache` adds the kernel's :func:`~gpusim.language.fingerprint.fingerprint` (the kernel
with every ``@device`` step and constant bound into it, and the backend's ``T``) to numba's key.  CuPy's key is the
CUDA source, which cupyx writes with every device function in it, so a variant is another source there already.

A ledger of the kernels compiled on this machine (empty files named by fingerprint and argument types, in a
``gpusim-compiled`` folder inside the backend's cache directory, so clearing that directory clears the ledger)
tells a first compile from a cached one: the first says so in one line with a progress bar on stderr
(:func:`compile_progress`): ``compiling 14 kernels for cupy, first run on this machine``.

>>> import numpy as np
>>> ledger_key("0123abcd", ((np.dtype("int32"), True), (np.dtype("int32"), False)))
'0123abcd-int32a-int32'
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["cache_dir", "compile_progress", "compiled_here", "expecting", "keep_transpiled", "language_stamp",
           "ledger_key", "load_transpiled", "mark_compiled", "numba_kernel_cache", "uncached"]

_LEDGER = "gpusim-compiled"


def cache_dir(backend: str) -> Path:
    """The directory ``backend`` (``"numba"`` or ``"cupy"``) keeps compiled kernels in on this machine.

    >>> cache_dir("cupy").name in ("kernel_cache", os.path.basename(os.environ.get("CUPY_CACHE_DIR", "")))
    True
    """
    if backend == "cupy":
        given = os.environ.get("CUPY_CACHE_DIR")
        return Path(given) if given else Path.home() / ".cupy" / "kernel_cache"
    given = os.environ.get("NUMBA_CACHE_DIR")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpusim" / "numba"


def ledger_key(digest: str, types_: Iterable[tuple[Any, bool]]) -> str:
    """The ledger's name for a kernel of fingerprint ``digest`` compiled for argument types ``types_``."""
    described = "-".join(f"{np.dtype(d).name}{'a' if is_array else ''}" for d, is_array in types_)
    if len(described) >= 160:  # a file name's length has limits
        described = hashlib.sha1(described.encode()).hexdigest()
    return f"{digest}-{described}"


def compiled_here(backend: str, key: str) -> bool:
    """Whether the kernel named ``key`` (:func:`ledger_key`) was compiled for ``backend`` on this machine before."""
    return (cache_dir(backend) / _LEDGER / key).exists()


def mark_compiled(backend: str, key: str) -> None:
    """Note in the ledger that the kernel named ``key`` is compiled for ``backend`` (a read-only cache: nothing)."""
    with contextlib.suppress(OSError):
        folder = cache_dir(backend) / _LEDGER
        folder.mkdir(parents=True, exist_ok=True)
        (folder / key).touch()


_STAMPS: dict[str, str] = {}


def language_stamp(backend: str) -> str:
    """What a kernel's binary on ``backend`` depends on besides the kernel: the backend's ``T`` module, the
    compiler's version and gpusim's (read once per process)."""
    found = _STAMPS.get(backend)
    if found is None:
        import importlib
        import importlib.metadata

        module = importlib.import_module(f"gpusim.backends.{backend}_language")
        source = b"".join(path.read_bytes() for path in _language_files(module.__file__, backend))
        if backend == "cupy":
            versions = [f"cupy {importlib.import_module('cupy').__version__}"]  # imported with its T already
        else:
            versions = [f"numba-cuda {importlib.metadata.version('numba-cuda')}"]
        try:
            versions.append(f"gpusim {importlib.metadata.version('gpusim')}")
        except importlib.metadata.PackageNotFoundError:  # a checkout on the path, not installed
            versions.append("gpusim (not installed)")
        found = _STAMPS[backend] = f"{backend} {' '.join(versions)} T {hashlib.sha256(source).hexdigest()[:16]}"
    return found


def _language_files(language: str | None, backend: str) -> list[Path]:
    """The source files of ``backend``'s ``T``: its language module and the shims it is built on (CuPy's C helpers,
    numba's indexing)."""
    if not language:
        return []
    here = Path(language)
    return [path for path in (here, here.with_name(f"{backend}_shims.py")) if path.exists()]


def load_transpiled(key: str) -> dict | None:
    """cupyx's transpiled kernel named ``key`` (its CUDA source and how to compile it) as this machine kept it, or
    None: transpiling a kernel (cupyx walks its Python source) costs a warm process more than loading its binary."""
    import json

    try:
        return json.loads((cache_dir("cupy") / "gpusim-transpiled" / f"{key}.json").read_text())
    except (OSError, ValueError):
        return None


def keep_transpiled(key: str, transpiled: dict) -> None:
    """Keep cupyx's transpiled kernel ``transpiled`` under ``key`` (a read-only cache: nothing)."""
    import json

    with contextlib.suppress(OSError):
        folder = cache_dir("cupy") / "gpusim-transpiled"
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f"{key}.json.{os.getpid()}"
        partial.write_text(json.dumps(transpiled))
        partial.replace(folder / f"{key}.json")  # whole or not at all, whatever other processes do


def numba_kernel_cache(py_func: Any, digest: str) -> Any:
    """A numba-cuda disk cache for ``py_func`` (a kernel bound to numba's ``T``) whose key holds ``digest`` (the
    kernel's fingerprint with :func:`language_stamp`), kept in :func:`cache_dir` ``("numba")``; None where numba-cuda's
    cache machinery is not the one this was written against (the kernel is then compiled each process)."""
    try:
        from numba.cuda.core import caching
        from numba.cuda.dispatcher import CUDACache, CUDACacheImpl
    except ImportError:
        return None

    class GpusimLocator(caching._UserProvidedCacheLocator):
        """numba's locator for a user-given directory, the directory being gpusim's."""

        def __init__(self, py_func, py_file):
            super().__init__(py_func, py_file)
            self._cache_path = str(cache_dir("numba") / self.get_suitable_cache_subpath(py_file))

        @classmethod
        def from_function(cls, py_func, py_file):
            return caching._SourceFileBackedLocatorMixin.from_function.__func__(cls, py_func, py_file)

    class GpusimCacheImpl(CUDACacheImpl):
        _locator_classes = [GpusimLocator]

    class GpusimCUDACache(CUDACache):
        """numba-cuda's kernel cache, keyed also by the kernel's fingerprint."""

        _impl_class = GpusimCacheImpl

        def _index_key(self, sig, codegen):
            return (*super()._index_key(sig, codegen), ("gpusim", digest))

    try:
        return GpusimCUDACache(py_func)
    except Exception:  # no writable directory, a source file that cannot be found: no disk cache
        return None


# -- the first compile's line --------------------------------------------------------------------------------------
_EXPECTED: dict[str, int] = {}
_BARS: dict[str, Any] = {}


#: (backend, the kernels' ids) found all compiled on this machine: not looked up again in this process (a call's
#: host time is counted in microseconds on a GPU).
_SETTLED: set[tuple] = set()


def uncached(backend: str, kernels: Iterable[Any]) -> int:
    """How many of ``kernels`` (with declared signatures) were never compiled for ``backend`` on this machine."""
    kernels = tuple(kernels)
    settled = (backend, cache_dir(backend), tuple(map(id, kernels)))
    if settled in _SETTLED:
        return 0
    count = 0
    for kernel in kernels:
        if kernel.signature is None:
            continue
        digest = _kernel_digest(kernel, backend)
        if not compiled_here(backend, ledger_key(digest, ((p.dtype, p.is_array) for p in kernel.signature))):
            count += 1
    if count == 0:
        _SETTLED.add(settled)  # the kernels stay alive in the registry: their ids are not reused
    return count


def _kernel_digest(kernel: Any, backend: str) -> str:
    from gpusim.language.fingerprint import fingerprint

    return fingerprint(kernel, language_stamp(backend))


@contextlib.contextmanager
def expecting(backend: str, kernels: Iterable[Any]) -> Iterator[None]:
    """Within: a first compile on ``backend`` counts ``kernels`` (an algorithm's, from the registry) that are not
    compiled on this machine yet, for its line; after: the line's bar is closed."""
    if backend not in ("numba", "cupy"):
        yield
        return
    _EXPECTED[backend] = uncached(backend, kernels)
    try:
        yield
    finally:
        _EXPECTED.pop(backend, None)
        bar = _BARS.pop(backend, None)
        if bar is not None:
            bar.close()


def compile_progress(backend: str) -> Any:
    """The bar of ``backend``'s first compiles in this process (made on the first kernel compiled that the ledger
    does not hold): one line on stderr, ``compiling N kernels for BACKEND, first run on this machine``."""
    bar = _BARS.get(backend)
    if bar is None:
        from tqdm.auto import tqdm

        total = _EXPECTED.get(backend) or None
        what = f"{total} kernels" if total else "kernels"
        description = f"compiling {what} for {backend}, first run on this machine"
        interactive = sys.stderr.isatty()
        if not interactive:
            print(description, file=sys.stderr, flush=True)
        bar = _BARS[backend] = tqdm(total=total, desc=description, unit="kernel", file=sys.stderr, leave=False,
                                    disable=not interactive)
    return bar
