"""Parallel ROMA on complete graphs: 4-cycle augmentation with lock-protected flips (Hovland, MSc thesis 2020, Alg.
6–8).

A perfect matching of a complete graph (weights a dense ``n × n`` matrix, stored flat) is
improved in phases ([002]_).  In a phase every matching edge ``(u, M[u])`` with ``u < M[u]`` looks for
the other matching edge ``(x, M[x])`` whose swap — to ``(u, x), (M[u], M[x])`` or to
``(u, M[x]), (M[u], x)`` — gains most, and swaps them with atomicFlip (Alg. 7): lock, check that
both mates are unchanged, flip, fence, unlock.  Lemma 4.1.1: while a positive-gain 4-cycle exists,
some thread of every phase flips.  The kernels are in :mod:`gpusim.algorithms.weighted.kernels_roma`.

Alg. 9's loop stays on the device: after each phase the matching's weight and the phase's
flips are added there (:mod:`gpusim.algorithms.weighted.kernels_roma_resident`) and read back together,
two numbers a phase, never the matching.  The matrix may already be on the device (a CuPy or numba
array, ``__cuda_array_interface__``, a flat simulator array): it is checked and padded there
(:mod:`gpusim.algorithms.weighted.resident_matrix`), and ``output="device"`` leaves the matching there too.

References
----------
.. [002] S. Hovland, "Maximum weighted matching on a GPU", MSc thesis, University of Bergen,
   2020, §4.1: Alg. 6 (a thread per matching edge), Alg. 7 (atomicFlip), Alg. 8 (a
   block per matching edge with a block reduction of (a, b, gain)).

Example
-------
>>> import numpy as np
>>> w = np.array([[0, 1, 5, 0], [1, 0, 0, 5], [5, 0, 0, 1], [0, 5, 1, 0]], float)
>>> result = roma(w, "i,i+1", backend="sim")
>>> result.mate.tolist(), result.weight, result.stats["phase_weights"]
([2, 3, 0, 1], 10.0, [2.0, 10.0, 10.0])
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType, InvariantViolation
from gpusim.language.kernels import DeviceFunction
from gpusim.language.variants import with_devices
from gpusim.runtime.device import Device
from gpusim.runtime.launcher import Launcher, fill, own_device
from gpusim.runtime.resident_graphs import adopt, check_output
from gpusim.types.arguments import check_int
from gpusim.types.complete_graphs import check_memory, dense_bytes
from gpusim.types.numeric import weight_sum

from .device_result import exactly
from .kernels_roma import roma_block_phase, roma_thread_phase
from .kernels_roma_resident import phase_weight
from .resident_matrix import (
    DenseInput,
    DeviceRomaMatching,
    ResidentRomaMatching,
    adopt_matrix,
    is_device_matrix,
    matrix_backend,
    matrix_problem,
    padded_on_device,
    unpadded_on_device,
)
from .result import WeightedMatching
from .start_matchings import augmentation_options, needs_padding, perfect_start, prepare_augmentation, unpad
from .swaps import best_gain

__all__ = ["ROMA_BLOCK", "roma"]


#: Threads per block for :func:`~gpusim.algorithms.weighted.kernels_roma.roma_block_phase` per backend (a power of
#: two, at most 256).
ROMA_BLOCK = {"sim": 32, "numba": 256, "cupy": 256}
#: What to run instead when the device lacks the memory.
_ALTERNATIVE = 'backend="cpu" (the sequential reference)'


def roma(weights: Any, mate: Any = "i,i+1", *, backend: str = "auto", variant: str = "block",
         threshold: float = 1e-5, max_phases: int | None = None, pad: bool = False, seed: int = 0,
         device: Device | None = None, check_invariants: bool = False, max_memory: int | None = None,
         kernels: Mapping[str, DeviceFunction] | None = None, output: str = "host", max_grid: int | None = None
         ) -> WeightedMatching | DeviceRomaMatching:
    """Parallel ROMA (Hovland, MSc thesis 2020, Alg. 9 with the phase of Alg. 6 or Alg. 8) on a GPU backend.

    Parameters
    ----------
    weights:
        A symmetric non-negative ``n × n`` matrix: the complete graph (Hovland, MSc thesis 2020's setting: every
        pair of distinct vertices is an edge, those of weight 0 included, and the result is a
        perfect matching of it).  A host array is copied to the device; a float64 array already
        on one (CuPy, numba, ``__cuda_array_interface__``: ``(n, n)`` C-contiguous or its ``n * n``
        entries flat; on ``"sim"`` a flat simulator array) is used where it lies, checked there
        (:mod:`gpusim.algorithms.weighted.resident_matrix`), and ``backend="auto"`` runs on its
        device.  For a sparse graph, :func:`gpusim.algorithms.weighted.maximum_weight_matching`
        runs ROMA on its dense matrix (non-edges weigh 0) and then drops the pairs that are not
        edges of the graph.
    mate:
        The start matching: a perfect matching array, or one of ``"i,i+1"``, ``"i,i+n/2"``,
        ``"shuffled"``, ``"greedy"``, ``"gpa"`` (:func:`~gpusim.algorithms.weighted.start_matchings.start_matching`).
        ``"greedy"`` and ``"gpa"`` build the complete graph on the host: refused for a device matrix.
    variant:
        ``"block"``: ROMA 2, a block per matching edge with a block reduction (Alg. 8, the
        thesis's faster one); ``"thread"``: ROMA 1, a thread per matching edge (Alg. 6).
    threshold:
        A swap must gain more than this (the thesis's 10^-5); 0 runs to full convergence.
    max_phases:
        Stop after this many phases (None: when a phase flips nothing).
    pad:
        For odd ``n``, add a dummy vertex whose edges weigh 0 (for a device matrix, a padded
        copy made on the device); its partner comes back as -1.
    check_invariants:
        After every phase, copy the matching back and check it is still perfect, its weight
        did not decrease and is the one added on the device, and that a phase without flips
        leaves no 4-cycle of gain above ``threshold`` (Lemma 4.1.1); raise
        :class:`~gpusim.errors.InvariantViolation` otherwise.  (A device matrix is copied back once.)
    max_memory:
        Refuse (``InvalidArgument``, before allocating) when the padded copy and the device copy
        of a host matrix would take more host bytes
        (:func:`~gpusim.algorithms.weighted.start_matchings.augmentation_bytes`); default half the memory
        available.  A device matrix takes no host memory (only ``check_invariants``'s host copy
        counts); the device's own free memory is checked before allocating, counting for a device
        matrix only what is new (the padded copy, the matching and its locks).
    kernels:
        Device functions to run in place of the phase's own steps, by name (e.g. atomicFlip's
        ``{"lock_order": ...}``; :func:`gpusim.language.variants.with_devices`): how the zoo's broken
        twins run.
    output:
        ``"host"`` (default): a :class:`~gpusim.algorithms.weighted.WeightedMatching` of host arrays;
        ``"device"``: a :class:`~gpusim.algorithms.weighted.resident_matrix.DeviceRomaMatching` whose
        ``mate`` stays on the device (weight and size known; validated on demand).
    max_grid:
        Launch at most this many blocks a phase (None: a block per vertex for ``"block"``, enough threads
        for ``"thread"``): the phase's grid-stride loop then gives a block (or thread) several matching
        edges in turn, as on a GPU with fewer blocks resident than edges (what the explorer's launch paths use
        to reach the loop's second turn).

    Returns
    -------
    WeightedMatching or DeviceRomaMatching
        ``stats["phase_weights"]`` lists the weight before the first phase and after each one:
        the start's added where the matrix is (``math.fsum`` on the host for a host matrix), the
        others on the device (:func:`~gpusim.algorithms.weighted.kernels_roma_resident.phase_weight`:
        the host reads two numbers a phase, the weight and the flips; a phase without flips keeps
        the weight before it); ``stats["phase_flips"]`` the flips per phase.

    Examples
    --------
    >>> import numpy as np
    >>> roma(np.zeros((0, 0)), backend="sim").mate.tolist()
    []
    >>> dev = Device("sim")
    >>> w = np.array([[0, 1, 5, 0], [1, 0, 0, 5], [5, 0, 0, 1], [0, 5, 1, 0]], float)
    >>> m = roma(dev.array(w.ravel()), device=dev, output="device")
    >>> m.weight, m.size, type(m.mate).__name__, m.valid, m.to_host().mate.tolist()
    (10.0, 2, 'SimArray', True, [2, 3, 0, 1])
    """
    if variant not in ("block", "thread"):
        raise InvalidArgument(f"variant={variant!r} is not one of ('block', 'thread')")
    if not isinstance(check_invariants, bool):
        raise InvalidArgumentType(f"check_invariants must be True or False, got {check_invariants!r}")
    if device is not None and not isinstance(device, Device):
        raise InvalidArgumentType(f"device must be a gpusim.Device, got {device!r}")
    check_output(output)
    if max_grid is not None:
        check_int("max_grid", max_grid, 1, None)
    phase = with_devices(roma_block_phase if variant == "block" else roma_thread_phase, kernels or {})
    options = (mate, threshold, max_phases, pad, seed, max_memory)
    if is_device_matrix(weights):
        run = _device_input(weights, options, device or own_device(matrix_backend(weights, backend)), check_invariants)
    else:
        run = _host_input(weights, options, device, backend)
    return _phases(run, phase, variant, check_invariants, output, weights, max_grid)


class _Run(NamedTuple):
    """A ROMA call's checked input on its device: ``flat`` the ``size x size`` weights (padded when ``padded``),
    ``start`` the perfect start matching on the host, ``matrix`` the ``n x n`` input (for the result's checks),
    ``start_weight`` the start's weight when the host has the matrix (else None: it is added on the device)."""

    launch: Launcher
    flat: Any
    start: np.ndarray
    n: int
    padded: bool
    threshold: float
    max_phases: int | None
    matrix: DenseInput
    start_weight: float | None


def _host_input(weights: Any, options: tuple, device: Device | None, backend: str) -> _Run:
    """A host matrix checked on the host (:func:`~gpusim.algorithms.weighted.start_matchings.prepare_augmentation`)
    and copied to the device."""
    w, start, n, padded, threshold, max_phases, _ = prepare_augmentation(weights, *options, on_device=True)
    size = w.shape[0]
    dev = device if device is not None else own_device(backend)
    dev.check_fits(8 * size * size + 16 * size, "roma", _ALTERNATIVE)
    flat = dev.array(np.ascontiguousarray(w, np.float64).ravel() if size else np.zeros(1))
    # CuPy copies host arrays asynchronously: without this wait the first phase's time would include the
    # tail of the matrix's copy (8 GiB at n = 32768), which numba's synchronous copy does not
    dev.synchronize()
    return _Run(Launcher(dev), flat, start, n, padded, threshold, max_phases, DenseInput(dev, flat, n, w[:n, :n]),
                _weight(w, start))


def _device_input(weights: Any, options: tuple, dev: Device, check_invariants: bool) -> _Run:
    """A device matrix taken where it lies: its metadata checked here, its entries by a kernel, padded there for
    odd ``n``; only the start matching (O(n)) is built on the host and copied in."""
    mate, threshold, max_phases, pad, seed, max_memory = options
    flat, n = adopt_matrix(dev, weights)
    threshold, max_phases, pad, seed = augmentation_options(threshold, max_phases, pad, seed)
    padded = needs_padding(n, pad)
    size = n + int(padded)
    check_memory(dense_bytes(size) if check_invariants else 0, max_memory,
                 f"check_invariants=True on {n} vertices: a host copy of the {n} x {n} weight matrix")
    if not isinstance(mate, str) and is_device_matrix(mate):
        mate = dev.to_host(adopt(dev, "mate", mate))
    start = perfect_start(mate, n, size, seed, None)
    dev.check_fits((8 * size * size if padded else 0) + 16 * size, "roma", _ALTERNATIVE)
    launch = Launcher(dev)
    with launch.phase("input"):
        problem = matrix_problem(dev, flat, n, launch)
    if problem is not None:
        raise InvalidArgument(problem)
    matrix = DenseInput(dev, flat, n)
    if padded:
        with launch.phase("input"):
            flat = padded_on_device(launch, flat, n)
    return _Run(launch, flat if size else dev.zeros(1, np.float64), start, n, padded, threshold, max_phases,
                matrix, None)


def _phases(run: _Run, phase, variant: str, check_invariants: bool, output: str, given: Any,
            max_grid: int | None = None) -> WeightedMatching | DeviceRomaMatching:
    """Alg. 9: phases until one flips nothing (or ``max_phases``), each followed by its weight and flip count,
    added on the device and read back together (:class:`_Sums`)."""
    launch, flat, n, padded = run.launch, run.flat, run.n, run.padded
    dev, size = launch.device, run.start.size
    # mate[v]: v's partner in the perfect matching; locks[v]: -1 free, else the locking thread's vertex.
    locks, flips = dev.empty(max(size, 1), np.int32), dev.empty(1, np.int32)
    with launch.phase("start"):  # the start on the device, and its weight where the matrix is
        mate_dev = dev.array(run.start if size else np.full(1, -1, np.int32))
        dev.fill(locks, -1)
        dev.fill(flips, 0)
        sums = _Sums(launch, flat, mate_dev, size, flips)
        # summed on the host for a host matrix, on the device for a device one
        weights_after = [run.start_weight if run.start_weight is not None else sums.weight_and_flips()[0]]
    flips_per_phase: list[int] = []
    host_w = None
    while size and (run.max_phases is None or len(flips_per_phase) < run.max_phases):
        with launch.phase("phases"):
            if run.start_weight is not None and not flips_per_phase:
                # the flip counter zeroed before the first phase (phase_weight resets it after each phase): one
                # launch before each phase, as before phase_weight, so the phases keep their launch numbers, which
                # seed the simulator's schedules (the runs the tutorials show)
                launch(fill, 1, 32, flips, 0, 1)
            if variant == "block":
                block = ROMA_BLOCK[dev.backend]
                launch(phase, min(size, max_grid or size), block, flat, mate_dev, locks, size, run.threshold, flips)
            else:
                block = 32 if dev.backend == "sim" else 256
                launch(phase, Device.grid_for(size, block, max_grid), block, flat, mate_dev, locks, size,
                       run.threshold, flips)
            weight, flipped = sums.weight_and_flips()  # and flips reset for the next phase
        if flipped == 0:
            weight = weights_after[-1]  # nothing flipped: the same matching, the same weight
        flips_per_phase.append(flipped)
        weights_after.append(weight)
        if check_invariants:
            host_w = _padded_host(run.matrix, padded) if host_w is None else host_w
            _check_phase(dev, host_w, dev.to_host(mate_dev)[:size], weights_after, flipped, run.threshold)
        if flipped == 0:
            break
    stats = {"variant": variant, "phases": len(flips_per_phase), "phase_weights": weights_after,
             "phase_flips": flips_per_phase, "threshold": run.threshold, "launches": dict(launch.launches),
             "seconds": dict(launch.seconds)}
    on_device = is_device_matrix(given)
    if output == "device":
        mate_out = unpadded_on_device(launch, mate_dev, n) if padded else mate_dev
        stats["launches"] = dict(launch.launches)
        return DeviceRomaMatching(given if on_device else run.matrix.to_host(), run.matrix, exactly(dev, mate_out, n),
                                  weights_after[-1], size // 2 - int(padded), stats)
    final = unpad(dev.to_host(mate_dev)[:size] if size else np.zeros(0, np.int32), n, padded)
    if on_device:
        return ResidentRomaMatching(final, weights_after[-1], stats, given, run.matrix)
    return WeightedMatching(final, weights_after[-1], "roma", dev.backend, stats, run.matrix.to_host())


class _Sums:
    """The weight of the matching and the phase's flips, added on the device by one launch of
    :func:`~gpusim.algorithms.weighted.kernels_roma_resident.phase_weight` (which also resets the flip counter)
    and read back in one copy of two numbers."""

    def __init__(self, launch: Launcher, flat: Any, mate: Any, size: int, flips: Any):
        self.launch, self.args, self.size = launch, (flat, mate, size, flips), size
        self.block = 32 if launch.device.backend == "sim" else 1024
        self.totals = launch.device.empty(2, np.float64)  # phase_weight writes both

    def weight_and_flips(self) -> tuple[float, int]:
        if not self.size:
            return 0.0, 0
        self.launch(phase_weight, 1, self.block, *self.args, self.totals)
        weight, flipped = self.launch.device.to_host(self.totals)
        return float(weight), int(flipped)


def _padded_host(matrix: DenseInput, padded: bool) -> np.ndarray:
    w = matrix.to_host()
    return np.pad(w, ((0, 1), (0, 1))) if padded else w


def _weight(w: np.ndarray, mate: np.ndarray) -> float:
    first = np.flatnonzero(np.arange(mate.size) < mate)
    return weight_sum(w[first, mate[first]])


def _check_phase(dev, w, mate, weights_after, flipped, threshold) -> None:
    size = mate.size
    problem = None
    if not (np.array_equal(mate[mate], np.arange(size)) and not (mate == np.arange(size)).any()):
        problem = "the matching is no longer perfect (some vertex's mate does not point back)"
    elif weights_after[-1] < weights_after[-2] - 1e-9 * max(1.0, abs(weights_after[-2])):
        problem = f"the weight decreased from {weights_after[-2]} to {weights_after[-1]}"
    elif not math.isclose(weights_after[-1], _weight(w, mate), rel_tol=1e-9, abs_tol=1e-12):
        problem = f"the weight added on the device, {weights_after[-1]}, is not the pairs' {_weight(w, mate)}"
    elif flipped == 0 and best_gain(w, mate) > threshold:
        problem = (f"a phase flipped nothing though a 4-cycle of gain {best_gain(w, mate):.6g} > {threshold} exists "
                   f"(Lemma 4.1.1 says some thread always flips)")
    if problem is not None:
        phase = len(weights_after) - 1
        raise InvariantViolation(f"InvariantViolation: after ROMA phase {phase}: {problem}",
                                 token=dev.token if dev.backend == "sim" else None)
