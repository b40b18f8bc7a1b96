"""``gpusim compile``: build every registered algorithm's kernels ahead of time, for CI images and clusters.

With a GPU, each kernel is compiled by the backend as a launch would compile it, into the backend's disk cache
(:mod:`gpusim.backends.kernel_cache`: numba-cuda's in ``NUMBA_CACHE_DIR`` or ``~/.cache/gpusim/numba``, CuPy's in
``CUPY_CACHE_DIR`` or ``~/.cupy/kernel_cache``), so that no later process on the machine compiles it.  Without a GPU
the kernels are compiled headless (:mod:`gpusim.runtime.compile`): numba's PTX, cupyx's CUDA source (and its PTX
where NVRTC loads), which checks that they compile and caches nothing a launch would use.

``--backend numba|cupy|all`` (default all), ``--algorithm NAME`` for one algorithm's kernels, ``--cc 9.0`` the
compute capability of a headless compile; ``--json`` prints one object.  Exit status 1 when a kernel does not
compile.
"""

from __future__ import annotations

import argparse
import time

from gpusim.cli.common import emit, progress_wanted
from gpusim.errors import InvalidArgument

__all__ = ["register_compile"]

_BACKENDS = ("numba", "cupy")


def register_compile(commands, common: argparse.ArgumentParser) -> None:
    """Add the ``compile`` subcommand to ``gpusim``'s subparsers (``common``: the shared options)."""
    build = commands.add_parser("compile", parents=[common],
                                help="compile every algorithm's kernels ahead, into the GPU backends' disk caches")
    build.add_argument("--backend", default="all", help="numba, cupy or all (default all)")
    build.add_argument("--algorithm", metavar="NAME", default=None,
                       help="only this registered algorithm's kernels (default: every algorithm's)")
    build.add_argument("--cc", default="8.0", help="compute capability of a compile without a GPU (default 8.0)")
    build.add_argument("--json", action="store_true", help="print one JSON object")
    build.set_defaults(run=_compile)


def _chosen_backends(name: str) -> tuple[str, ...]:
    if name == "all":
        return _BACKENDS
    if name not in _BACKENDS:
        raise InvalidArgument(f"--backend {name!r} is not one of numba, cupy, all")
    return (name,)


def _compute_capability(text: str) -> tuple[int, int]:
    major, dot, minor = text.partition(".")
    if not (major.isdigit() and (not dot or minor.isdigit())):
        raise InvalidArgument(f"--cc {text!r} is not a compute capability such as 8.0 or 9.0")
    return int(major), int(minor or 0)


def _kernels(algorithm: str | None) -> list:
    """The kernels of every registered algorithm (or of ``algorithm``), each once, those with a signature."""
    import gpusim.algorithms  # noqa: F401  (the families register their algorithms)
    from gpusim.runtime.registry import algorithms

    entries = [entry for entry in algorithms() if algorithm is None or entry.name == algorithm]
    if not entries:
        names = ", ".join(sorted({entry.name for entry in algorithms() if entry.kernels}))
        raise InvalidArgument(f"--algorithm {algorithm!r} is not a registered algorithm; those with kernels: {names}")
    found: dict[int, object] = {}
    for entry in entries:
        for kernel in entry.kernels:
            if kernel.signature is not None:
                found.setdefault(id(kernel), kernel)
    return list(found.values())


def _on_the_gpu(backend: str, kernels: list, show: bool) -> list[dict]:
    """Each kernel compiled by ``backend`` as a launch compiles it (into its disk cache)."""
    from gpusim.backends import load_backend
    from gpusim.backends.kernel_cache import expecting

    impl = load_backend(backend, {})
    rows = []
    with expecting(backend, kernels if show else ()):
        for kernel in kernels:
            start, error = time.perf_counter(), None
            try:
                impl.compiled(kernel, impl.declared_signature(kernel))
            except Exception as exc:  # one kernel's failure is reported with the others
                error = " ".join(str(exc).split())[:500]
            rows.append({"kernel": kernel.name, "ok": error is None, "seconds": time.perf_counter() - start,
                         "error": error})
    return rows


def _headless(backend: str, kernels: list, cc: tuple[int, int], show: bool) -> tuple[list[dict], str]:
    """Each kernel compiled without a GPU (:func:`gpusim.runtime.compile.compile_all`); the stage reached."""
    from tqdm.auto import tqdm

    from gpusim.runtime.compile import compile_all

    rows, stage = [], "ptx"
    for kernel in tqdm(kernels, desc=f"compiling {len(kernels)} kernels for {backend} (no GPU: headless)",
                       unit="kernel", disable=not show, leave=False):
        (result,) = compile_all([kernel], (backend,), cc)
        stage = result.stage
        rows.append({"kernel": result.name, "ok": result.ok, "seconds": result.seconds, "error": result.error})
    return rows, stage


def _compile(options: argparse.Namespace) -> int:
    from gpusim.backends import gpu_status
    from gpusim.backends.kernel_cache import cache_dir

    backends = _chosen_backends(options.backend)
    cc = _compute_capability(options.cc)
    kernels = _kernels(options.algorithm)
    show = progress_wanted(options)
    report = []
    for backend in backends:
        start = time.perf_counter()
        ok, why = gpu_status(backend)
        if ok:
            rows, how = _on_the_gpu(backend, kernels, show), f"compiled and cached in {cache_dir(backend)}"
        else:
            rows, stage = _headless(backend, kernels, cc, show)
            what = "PTX" if stage == "ptx" else "CUDA source"
            how = f"compiled headless to {what} for cc {cc[0]}.{cc[1]}, nothing cached (no GPU: {why.split(';')[0]})"
        report.append({"backend": backend, "gpu": ok, "how": how, "kernels": len(rows),
                       "failed": [row for row in rows if not row["ok"]], "seconds": time.perf_counter() - start,
                       "rows": rows})
    failed = sum(len(item["failed"]) for item in report)
    options.record.update({"backends": report, "kernels": len(kernels), "failed": failed})

    def show_text() -> None:
        for item in report:
            print(f"{item['backend']}: {item['kernels'] - len(item['failed'])} of {item['kernels']} kernels "
                  f"{item['how']} ({item['seconds']:.1f} s)")
            for row in item["failed"]:
                print(f"  {row['kernel']}: {row['error']}")

    return emit(options, 1 if failed else 0, show_text)
