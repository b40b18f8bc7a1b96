"""Parallel ROMA on complete graphs: 4-cycle augmentation with lock-protected flips (seed 002, Alg. 6–8).

A perfect matching of a complete graph (weights a dense ``n × n`` matrix, stored flat) is
improved in phases ([002]_).  In a phase every matching edge ``(u, M[u])`` with ``u < M[u]`` looks for
the other matching edge ``(x, M[x])`` whose swap — to ``(u, x), (M[u], M[x])`` or to
``(u, M[x]), (M[u], x)`` — gains most, and swaps them with atomicFlip (Alg. 7): lock, check that
both mates are unchanged, flip, fence, unlock.  Lemma 4.1.1: while a positive-gain 4-cycle exists,
some thread of every phase flips.  The kernels are in :mod:`gpusim.algorithms.weighted.kernels_roma`.

References
----------
.. [002] S. Hovland, "Maximum weighted matching on a GPU", MSc thesis, University of Bergen,
   2020 (seed 002), §4.1: Alg. 6 (a thread per matching edge), Alg. 7 (atomicFlip), Alg. 8 (a
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

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType, InvariantViolation
from gpusim.language.kernels import DeviceFunction
from gpusim.language.variants import with_devices
from gpusim.runtime.device import Device
from gpusim.runtime.launcher import Launcher, fill

from .kernels_roma import roma_block_phase, roma_thread_phase
from .result import WeightedMatching
from .start_matchings import prepare_augmentation, unpad
from .swaps import best_gain

__all__ = ["ROMA_BLOCK", "roma"]


#: Threads per block for :func:`~gpusim.algorithms.weighted.kernels_roma.roma_block_phase` per backend (a power of
#: two, at most 256).
ROMA_BLOCK = {"sim": 32, "numba": 256, "cupy": 256}


def roma(weights, mate="i,i+1", *, backend: str = "auto", variant: str = "block", threshold: float = 1e-5,
         max_phases: int | None = None, pad: bool = False, seed: int = 0, device: Device | None = None,
         check_invariants: bool = False, max_memory: int | None = None,
         kernels: Mapping[str, DeviceFunction] | None = None) -> WeightedMatching:
    """Parallel ROMA (seed 002, Alg. 9 with the phase of Alg. 6 or Alg. 8) on a GPU backend.

    Parameters
    ----------
    weights:
        A symmetric non-negative ``n × n`` matrix: the complete graph (seed 002's setting: every
        pair of distinct vertices is an edge, those of weight 0 included, and the result is a
        perfect matching of it).  For a sparse graph,
        :func:`gpusim.algorithms.weighted.maximum_weight_matching` runs ROMA on its dense matrix
        (non-edges weigh 0) and then drops the pairs that are not edges of the graph.
    mate:
        The start matching: a perfect matching array, or one of ``"i,i+1"``, ``"i,i+n/2"``,
        ``"shuffled"``, ``"greedy"``, ``"gpa"`` (:func:`~gpusim.algorithms.weighted.start_matchings.start_matching`).
    variant:
        ``"block"``: ROMA 2, a block per matching edge with a block reduction (Alg. 8, the
        thesis's faster one); ``"thread"``: ROMA 1, a thread per matching edge (Alg. 6).
    threshold:
        A swap must gain more than this (the thesis's 10^-5); 0 runs to full convergence.
    max_phases:
        Stop after this many phases (None: when a phase flips nothing).
    pad:
        For odd ``n``, add a dummy vertex whose edges weigh 0; its partner comes back as -1.
    check_invariants:
        After every phase, check the matching is still perfect and its weight did not decrease,
        and that a phase without flips leaves no 4-cycle of gain above ``threshold`` (Lemma
        4.1.1); raise :class:`~gpusim.errors.InvariantViolation` otherwise.
    max_memory:
        Refuse (``InvalidArgument``, before allocating) when the padded copy and the device copy
        of the matrix would take more bytes
        (:func:`~gpusim.algorithms.weighted.start_matchings.augmentation_bytes`); default half the memory
        available.
    kernels:
        Device functions to run in place of the phase's own steps, by name (e.g. atomicFlip's
        ``{"lock_order": ...}``; :func:`gpusim.language.variants.with_devices`): how the zoo's broken
        twins run.

    Returns
    -------
    WeightedMatching
        ``stats["phase_weights"]`` lists the weight before the first phase and after each one;
        ``stats["phase_flips"]`` the flips per phase.

    Examples
    --------
    >>> import numpy as np
    >>> roma(np.zeros((0, 0)), backend="sim").mate.tolist()
    []
    """
    if variant not in ("block", "thread"):
        raise InvalidArgument(f"variant={variant!r} is not one of ('block', 'thread')")
    if not isinstance(check_invariants, bool):
        raise InvalidArgumentType(f"check_invariants must be True or False, got {check_invariants!r}")
    if device is not None and not isinstance(device, Device):
        raise InvalidArgumentType(f"device must be a gpusim.Device, got {device!r}")
    phase = with_devices(roma_block_phase if variant == "block" else roma_thread_phase, kernels or {})
    w, start, n, padded, threshold, max_phases, _ = prepare_augmentation(weights, mate, threshold, max_phases, pad,
                                                                         seed, max_memory, on_device=True)
    size = w.shape[0]
    dev = device if device is not None else Device(backend)
    dev.check_fits(8 * size * size + 16 * size, "roma", 'backend="cpu" (the sequential reference)')
    launch = Launcher(dev)
    # mate[v]: v's partner in the perfect matching; locks[v]: -1 free, else the locking thread's vertex.
    flat = dev.array(np.ascontiguousarray(w, np.float64).ravel() if size else np.zeros(1))
    mate_dev = dev.array(start if size else np.full(1, -1, np.int32))
    locks = dev.full(max(size, 1), -1, np.int32)
    flips = dev.zeros(1, np.int32)
    # CuPy copies host arrays asynchronously: without this wait the first phase's time would include the
    # tail of the matrix's copy (8 GiB at n = 32768, issue 18), which numba's synchronous copy does not
    dev.synchronize()
    weights_after = [_weight(w, start)]
    flips_per_phase: list[int] = []
    while size and (max_phases is None or len(flips_per_phase) < max_phases):
        with launch.phase("phases"):
            launch(fill, 1, 32, flips, 0, 1)
            if variant == "block":
                block = ROMA_BLOCK[dev.backend]
                launch(phase, size, block, flat, mate_dev, locks, size, threshold, flips)
            else:
                block = 32 if dev.backend == "sim" else 256
                launch(phase, Device.grid_for(size, block), block, flat, mate_dev, locks, size, threshold, flips)
            flipped = launch.flag(flips)
        current = dev.to_host(mate_dev)[:size]
        flips_per_phase.append(flipped)
        weights_after.append(_weight(w, current))
        if check_invariants:
            _check_phase(dev, w, current, weights_after, flipped, threshold)
        if flipped == 0:
            break
    final = dev.to_host(mate_dev)[:size] if size else np.zeros(0, np.int32)
    stats = {"variant": variant, "phases": len(flips_per_phase), "phase_weights": weights_after,
             "phase_flips": flips_per_phase, "threshold": threshold, "launches": dict(launch.launches),
             "seconds": dict(launch.seconds)}
    return WeightedMatching(unpad(final, n, padded), weights_after[-1], "roma", dev.backend, stats, w[:n, :n])


def _weight(w: np.ndarray, mate: np.ndarray) -> float:
    first = np.flatnonzero(np.arange(mate.size) < mate)
    return math.fsum(w[first, mate[first]].tolist())


def _check_phase(dev, w, mate, weights_after, flipped, threshold) -> None:
    size = mate.size
    problem = None
    if not (np.array_equal(mate[mate], np.arange(size)) and not (mate == np.arange(size)).any()):
        problem = "the matching is no longer perfect (some vertex's mate does not point back)"
    elif weights_after[-1] < weights_after[-2] - 1e-9 * max(1.0, abs(weights_after[-2])):
        problem = f"the weight decreased from {weights_after[-2]} to {weights_after[-1]}"
    elif flipped == 0 and best_gain(w, mate) > threshold:
        problem = (f"a phase flipped nothing though a 4-cycle of gain {best_gain(w, mate):.6g} > {threshold} exists "
                   f"(Lemma 4.1.1 says some thread always flips)")
    if problem is not None:
        phase = len(weights_after) - 1
        raise InvariantViolation(f"InvariantViolation: after ROMA phase {phase}: {problem}",
                                 token=dev.token if dev.backend == "sim" else None)
