"""ROMA's dense weight matrix in device memory (Hovland, MSc thesis 2020, Alg. 9): taken without a copy, checked
there.

:func:`~gpusim.algorithms.weighted.driver_roma.roma` takes its ``n x n`` matrix as a host array (copied in) or
as an array already on a device: a CuPy array, a numba device array or any object with
``__cuda_array_interface__``, either ``(n, n)`` and C-contiguous or its ``n * n`` entries flat; on the simulator,
whose arrays are 1-D, the flat entries (``Device("sim").array(w.ravel())``).  The entries must be float64 (the
kernels' type; a float32 matrix is refused rather than widened into a second copy).

:func:`adopt_matrix` checks what costs nothing (shape, dtype, layout) and views the matrix flat on the device;
:func:`matrix_problem` checks its entries there, by
:func:`~gpusim.algorithms.weighted.kernels_roma_resident.weight_matrix_check`, with the rules and the one-line
messages of the host path (``gpusim.types.complete_graphs.check_weight_matrix``): the first entry that is not
finite, else the first negative one, else the first asymmetric pair, in row-major order.
:func:`padded_on_device` adds Hovland (MSc thesis 2020) §5.1's dummy vertex for odd ``n`` (a zeroed ``(n + 1) x (n +
1)`` copy, on
the device).  The results, :class:`ResidentRomaMatching` and :class:`DeviceRomaMatching`, copy the matrix back
only when a check asks (``valid``, ``problem``, ``certificate()``).

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> dev = Device("sim")
>>> w = np.array([[0, 1, 2], [1, 0, 3], [2, -3, 0]], float)
>>> flat, n = adopt_matrix(dev, dev.array(w.ravel()))
>>> n, matrix_problem(dev, flat, n)
(3, 'weights[2, 1]=-3.0 is negative: weights must be finite and >= 0')
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import Any

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.runtime.device import Device
from gpusim.runtime.device_checks import BLOCK, MAX_GRID, NONE, value_at
from gpusim.runtime.resident_graphs import adopt, backend_where
from gpusim.types.device_graphs import is_device_sparse, memory_of

from .device_result import DeviceWeightedMatching
from .kernels_roma_resident import pad_matrix, unpadded_mate, weight_matrix_check
from .result import WeightedMatching

__all__ = ["DenseInput", "DeviceRomaMatching", "ResidentRomaMatching", "adopt_matrix", "is_device_matrix",
           "matrix_backend", "matrix_problem", "padded_on_device", "unpadded_on_device"]


def is_device_matrix(weights: Any) -> bool:
    """Whether ``weights`` lives in device memory (CuPy, numba, ``__cuda_array_interface__``, the simulator).

    >>> is_device_matrix(np.zeros((2, 2))), is_device_matrix(Device("sim").zeros(4, np.float64))
    (False, True)
    """
    return memory_of(weights) != "host"


def matrix_backend(weights: Any, backend: str) -> str:
    """The backend for a device matrix: ``"auto"`` takes the one whose memory it is in (CuPy for any other CUDA
    array); ``"cpu"`` is refused, its entries are not on the host.

    >>> matrix_backend(Device("sim").zeros(4, np.float64), "auto")
    'sim'
    """
    memory = memory_of(weights)
    return backend_where(memory, backend,
                         f"weights lives in {memory} memory, and backend='cpu' runs on the host: run roma on the "
                         "device that holds the matrix (backend='auto'), or copy the matrix to the host first")


class _FlatView:
    """A 1-D view of a C-contiguous 2-D CUDA array through ``__cuda_array_interface__``: the same memory, no copy.
    It holds the array, so the memory lives as long as whatever a backend makes of the view."""

    def __init__(self, array: Any, interface: dict, length: int):
        self.array = array
        self.__cuda_array_interface__ = {**interface, "shape": (length,), "strides": None}


def _flat(weights: Any, n: int) -> Any:
    interface = getattr(weights, "__cuda_array_interface__", None)
    if interface is None:
        raise InvalidArgument(f"weights is a 2-D array in {memory_of(weights)} memory, which has no "
                              "__cuda_array_interface__: give its n * n entries flat (the simulator's arrays are "
                              "1-D: dev.array(w.ravel()))")
    strides = interface.get("strides")
    if n > 1 and strides is not None and tuple(strides) != (8 * n, 8):
        raise InvalidArgument(f"weights must be C-contiguous on the device (row after row), got strides "
                              f"{tuple(strides)}: make a contiguous copy first (e.g. cupy.ascontiguousarray(weights))")
    if memory_of(weights) in ("cupy", "numba"):
        return weights.ravel()  # a view of the contiguous array, of the array's own type
    return _FlatView(weights, interface, n * n)


def adopt_matrix(dev: Device, weights: Any) -> tuple[Any, int]:
    """``weights`` (a device array, ``(n, n)`` or flat) checked by its metadata and taken by ``dev`` without a copy:
    ``(flat, n)``, ``flat`` a 1-D device array of the ``n * n`` entries row after row."""
    if is_device_sparse(weights):
        raise InvalidArgumentType(f"weights must be a dense n x n array, got a cupyx sparse {type(weights).__name__}; "
                                  "use .toarray()")
    interface = getattr(weights, "__cuda_array_interface__", None) or {}
    shape = tuple(int(s) for s in getattr(weights, "shape", interface.get("shape", ())))
    if len(shape) not in (1, 2) or (len(shape) == 2 and shape[0] != shape[1]):
        raise InvalidArgument(f"weights must be a square n x n matrix, got shape {shape}")
    n = shape[0] if len(shape) == 2 else math.isqrt(shape[0])
    if len(shape) == 1 and n * n != shape[0]:
        raise InvalidArgument(f"weights must be a square n x n matrix, or on a device its n * n entries flat; got "
                              f"{shape[0]} entries flat, which is no square")
    dtype = np.dtype(weights.dtype if hasattr(weights, "dtype") else interface.get("typestr"))
    if dtype != np.float64:
        raise InvalidArgument(f"weights has dtype {dtype.name}; ROMA's kernels read float64 weights (convert on the "
                              "device, e.g. weights.astype('float64'), or pass a host array)")
    return adopt(dev, "weights", weights if len(shape) == 1 else _flat(weights, n)), n


def _rows_grid(dev: Device, n: int) -> tuple[int, int]:
    """``(grid, block)`` of a kernel with a block per row (grid-stride) of an ``n x n`` matrix."""
    return Device.grid_for(n, 1, MAX_GRID[dev.backend]), BLOCK[dev.backend]


def matrix_problem(dev: Device, flat: Any, n: int, launch: Any = None) -> str | None:
    """What is wrong with the device matrix ``flat`` (``n x n``), as the host path says it, or None.  ``launch``:
    a :class:`~gpusim.runtime.launcher.Launcher` to count the check's launch (default ``dev.launch``)."""
    if n == 0:
        return None
    bad = dev.full(3, NONE, np.int32)
    grid, block = _rows_grid(dev, n)
    if launch is None:
        dev.launch(weight_matrix_check, grid, block, (flat, n, bad))
    else:
        launch(weight_matrix_check, grid, block, flat, n, bad)
    not_finite, negative, asymmetric = dev.to_host(bad).tolist()
    for position, what in ((not_finite, "is not finite"), (negative, "is negative")):
        if position != NONE:
            i, j = divmod(position, n)
            return f"weights[{i}, {j}]={value_at(dev, flat, position)!r} {what}: weights must be finite and >= 0"
    if asymmetric != NONE:
        i, j = divmod(asymmetric, n)
        return (f"weights is not symmetric: weights[{i}, {j}]={value_at(dev, flat, asymmetric)!r} but "
                f"weights[{j}, {i}]={value_at(dev, flat, j * n + i)!r}")
    return None


def padded_on_device(launch: Any, flat: Any, n: int) -> Any:
    """The ``(n + 1) x (n + 1)`` matrix of Hovland (MSc thesis 2020) §5.1 (a dummy vertex whose edges weigh 0), built
    on the device
    by :func:`~gpusim.algorithms.weighted.kernels_roma_resident.pad_matrix` from the ``n x n`` one."""
    dev = launch.device
    padded = dev.zeros((n + 1) * (n + 1), np.float64)
    grid, block = _rows_grid(dev, n)
    launch(pad_matrix, grid, block, flat, n, padded)
    return padded


def unpadded_on_device(launch: Any, mate: Any, n: int) -> Any:
    """The mates of the ``n`` real vertices, in a new device array, the dummy's partner -1
    (:func:`~gpusim.algorithms.weighted.kernels_roma_resident.unpadded_mate`)."""
    dev = launch.device
    out = dev.full(max(n, 1), -1, np.int32)
    block = 32 if dev.backend == "sim" else 256
    launch(unpadded_mate, Device.grid_for(n, block), block, mate, n, out)
    return out


class DenseInput:
    """ROMA's ``n x n`` weights as the driver holds them: ``flat`` on ``device`` (the matrix given, before
    padding) and the host matrix, given or copied back once when :meth:`to_host` is first called."""

    def __init__(self, device: Device, flat: Any, n: int, host: np.ndarray | None = None):
        self.device, self.flat, self.n, self._host = device, flat, n, host

    def to_host(self) -> np.ndarray:
        """The ``n x n`` matrix on the host (for a device input, copied back the first time)."""
        if self._host is None:
            n = self.n
            self._host = self.device.to_host(self.flat)[:n * n].reshape(n, n) if n else np.zeros((0, 0))
        return self._host

    def __repr__(self) -> str:
        return f"DenseInput(n={self.n}, memory={memory_of(self.flat)!r}, on_host={self._host is not None})"


class ResidentRomaMatching(WeightedMatching):
    """ROMA's matching copied to the host (``output="host"``) from a matrix that stays on the device: ``graph`` is
    the device array given; the checks (``valid``, ``problem``, ``certificate()``) copy the matrix back, once."""

    def __init__(self, mate: np.ndarray, weight: float, stats: dict, graph: Any, matrix: DenseInput):
        super().__init__(mate, weight, "roma", matrix.device.backend, stats, graph)
        self.matrix = matrix

    @cached_property
    def input_graph(self) -> np.ndarray:
        """The matrix on the host, copied back on first use."""
        return self.matrix.to_host()


class DeviceRomaMatching(DeviceWeightedMatching):
    """ROMA's perfect matching left on the device (``output="device"``): a
    :class:`~gpusim.algorithms.weighted.device_result.DeviceWeightedMatching` whose input is a dense matrix.
    ``mate`` has ``n`` entries (the dummy vertex's partner -1 after padding); ``weight`` and ``size`` were added
    on the device; :meth:`to_host` copies ``mate`` (and a device matrix) back on demand."""

    def __init__(self, graph: Any, matrix: DenseInput, mate: Any, weight: float, size: int, stats: dict):
        super().__init__(graph, matrix.device, mate, weight, size, "roma", stats)
        self.matrix = matrix

    @cached_property
    def host(self) -> WeightedMatching:
        """The same result with host arrays, equal to what ``output="host"`` returns (copied once, when asked)."""
        n = self.matrix.n
        mate = self.device.to_host(self.mate)[:n] if n else np.zeros(0, np.int32)
        return WeightedMatching(mate, self.weight, "roma", self.backend, self.stats, self.matrix.to_host(),
                                pairs=self.size)
