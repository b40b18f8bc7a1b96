"""The backends that run kernels: the simulator, Numba CUDA and CuPy.

A backend is an object with the methods of :class:`Backend`.  :func:`load_backend` imports one
lazily, so ``import gpusim`` never needs numba-cuda, CuPy, a driver or a GPU; a backend that
cannot run raises :class:`~gpusim.errors.BackendUnavailable` naming what is missing and the
extra to install.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
from typing import Any, Protocol

import numpy as np

from gpusim.errors import BackendUnavailable, InvalidArgument

__all__ = ["GPU_BACKENDS", "Backend", "cuda_driver_missing", "gpu_status", "load_backend", "start_driver_early"]

#: The GPU backends, in the order ``"auto"`` tries them.
GPU_BACKENDS = ("numba", "cupy")


class Backend(Protocol):
    """What ``Device`` needs from a backend.  Arguments arrive already checked."""

    name: str

    def full(self, n: int, value: Any, dtype: np.dtype) -> Any: ...
    def empty(self, n: int, dtype: np.dtype) -> Any: ...
    def fill(self, out: Any, value: Any, dtype: np.dtype, n: int) -> None: ...
    def array(self, host: np.ndarray) -> Any: ...
    def adopt(self, value: Any) -> Any: ...
    def free_memory(self) -> int | None: ...
    def to_host(self, array: Any) -> np.ndarray: ...
    def is_device_array(self, value: Any) -> bool: ...
    def launch(self, kernel: Any, grid: int, block: int, args: tuple) -> Any: ...
    def synchronize(self) -> None: ...


def _module(name: str):
    return importlib.import_module(f"gpusim.backends.{name}")


#: The CUDA driver library each system loads (what numba-cuda and CuPy load in turn).
_DRIVER_LIBRARIES = {"win32": "nvcuda.dll", "darwin": None}
_DRIVER: list[str | None] = []


def cuda_driver_missing() -> str | None:
    """Why there can be no GPU here, found without importing numba-cuda or CuPy (which take about two seconds to
    import): the CUDA driver library does not load.  ``None`` when it loads (the backends' own probes then say
    whether a GPU works) or when numba's CUDA simulator is asked for (``NUMBA_ENABLE_CUDASIM``).  Asked once
    per process: a driver installed while a process runs is not used by that process anyway.

    >>> cuda_driver_missing() is None or "CUDA driver" in cuda_driver_missing()
    True
    """
    if not _DRIVER:
        import ctypes

        library = _DRIVER_LIBRARIES.get(sys.platform, "libcuda.so.1")
        why = None
        if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
            why = None
        elif library is None:
            why = f"no CUDA driver exists for {sys.platform}"
        else:
            try:
                ctypes.CDLL(library)
            except OSError:
                why = f"no CUDA driver ({library} does not load)"
        _DRIVER.append(why)
    return _DRIVER[0]


def start_driver_early() -> None:
    """Start the CUDA driver and the first GPU's primary context on a background thread, while Python imports
    numba-cuda or CuPy: the 0.1-0.3 s the driver takes then passes beside the imports (a driver call releases the
    interpreter's lock) instead of after them.  numba-cuda and CuPy retain that same primary context.  Nothing
    happens where the driver does not load, and a failure here is left for the backend's own probe to report.
    The command line calls it for an explicit ``--backend numba`` or ``cupy`` on one GPU.
    """
    if cuda_driver_missing() is not None or os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        return
    threading.Thread(target=_retain_primary_context, name="gpusim-cuda-driver", daemon=True).start()


def _retain_primary_context() -> None:
    import ctypes

    try:
        driver = ctypes.CDLL(_DRIVER_LIBRARIES.get(sys.platform, "libcuda.so.1"))
        device, context = ctypes.c_int(), ctypes.c_void_p()
        if driver.cuInit(0) == 0 and driver.cuDeviceGet(ctypes.byref(device), 0) == 0:
            driver.cuDevicePrimaryCtxRetain(ctypes.byref(context), device)
    except (OSError, AttributeError):
        pass


def gpu_status(name: str) -> tuple[bool, str]:
    """Whether GPU backend ``name`` can launch kernels here, and if not, why (one line).  Without a CUDA driver
    the answer comes at once (:func:`cuda_driver_missing`), before numba-cuda or CuPy is imported."""
    if name not in GPU_BACKENDS:
        raise InvalidArgument(f"{name!r} is not a GPU backend; choose from {GPU_BACKENDS}")
    missing = cuda_driver_missing()
    if missing is not None:
        return False, f"{missing}; Device({name!r}) needs an NVIDIA GPU, its driver, and pip install 'gpusim[cuda]'"
    return _module(name).availability()


def load_backend(name: str, options: dict[str, Any]) -> Backend:
    """Instantiate backend ``name`` (``"sim"``, ``"numba"`` or ``"cupy"``) with ``options`` (the simulator's)."""
    if name == "sim":
        from gpusim.backends.sim import SimBackend

        return SimBackend(**options)
    if options:
        raise InvalidArgument(
            f"backend {name!r} takes no options; {sorted(options)} are simulator options"
        )
    ok, why = gpu_status(name)
    if not ok:
        raise BackendUnavailable(f"backend {name!r} cannot run here: {why}")
    return _module(name).create_backend()
