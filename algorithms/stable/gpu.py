"""The host loops of stable marriage on GPUs (Manne et al., CSC 2016 §4): McVitie-Wilson in one launch,
Gale-Shapley in a launch per round — written once against :class:`~gpusim.Device`.

The kernels are in :mod:`gpusim.algorithms.stable.kernels`; ``kernels=`` launches a variant in the
place of one of them, or replaces a step they call (the bug zoo's broken twin replaces ``propose_to``).
Every order of proposals gives the man-optimal stable matching, so the result equals sequential
Gale-Shapley's on every schedule.

Both drivers take a host :class:`~gpusim.types.preferences.PreferenceInstance` (its lists copied in) or a
:class:`~gpusim.types.device_preferences.DevicePreferenceInstance` whose lists already live on the device
(no copy in: the "copy in" phase only allocates the work arrays; checked on the device the first time),
and return the wives on the host (``output="host"``) or left on the device (``output="device"``, a
:class:`~gpusim.algorithms.stable.device_result.DeviceStableMatching`).

Example
-------
>>> from gpusim import Device
>>> from gpusim.types.device_preferences import DevicePreferenceInstance
>>> from gpusim.types.preferences import PreferenceInstance
>>> inst = PreferenceInstance([[0, 1], [0]], [[1, 0], [0]])
>>> mw_gpu(inst, backend="sim").wife.tolist(), gs_rounds(inst, backend="sim").wife.tolist()
([1, 0], [1, 0])
>>> dev = Device("sim")
>>> m = mw_gpu(DevicePreferenceInstance.from_instance(inst, dev), device=dev, output="device")
>>> m.size, dev.to_host(m.wife).tolist(), m.stable
(2, [1, 0], True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.errors import InvalidArgumentType
from gpusim.language.variants import kernel_table
from gpusim.runtime.device import Device
from gpusim.runtime.device_checks import matched_count
from gpusim.runtime.launcher import Launcher, count_up, fill, own_device
from gpusim.runtime.registry import register
from gpusim.runtime.resident_graphs import check_output
from gpusim.runtime.resident_preferences import instance_backend, resident_instance
from gpusim.runtime.workspace import Workspace, workspace
from gpusim.types.device_preferences import DevicePreferenceInstance
from gpusim.types.preferences import PreferenceInstance

from .device_result import DeviceStableMatching, ResidentStableMatching
from .kernels import gale_shapley_round, mcvitie_wilson_gpu
from .kernels_result import list_starts, proposals_made, sum_warps, wives_from_held
from .result import StableMatching
from .slots import EMPTY, LOW, capacity_array, slot_offsets

__all__ = ["gs_rounds", "mw_gpu"]

#: The most blocks the result kernels run (grid-stride): their warps' sums are added by one warp.
REDUCE_GRID = 1024
#: The kernels the two drivers launch, by name; ``kernels=`` replaces either.
KERNELS = {k.name: k for k in (mcvitie_wilson_gpu, gale_shapley_round)}
#: What the drivers take: preference lists on the host, or already on the device.
Instance = PreferenceInstance | DevicePreferenceInstance
#: What they return: the wives on the host, or (``output="device"``) on the device.
Result = StableMatching | DeviceStableMatching


@register("stable", "gs-rounds", backends=("sim", "numba", "cupy"), on_cpu="gs",
          title="Gale-Shapley in rounds: a kernel per round, CAS proposals",
          paper="manne2016stable", where="§2 and §4", guarantees="man-optimal stable",
          kernels=(gale_shapley_round,))
def gs_rounds(instance: Instance, backend: str = "auto", *, capacities: Any = None, device: Device | None = None,
              progress: bool = False, kernels: dict | None = None, output: str = "host") -> Result:
    """Gale-Shapley in rounds on ``backend`` (or ``device``): each round a thread per free man.

    ``instance``: a :class:`~gpusim.types.preferences.PreferenceInstance`, or a
    :class:`~gpusim.types.device_preferences.DevicePreferenceInstance` already on the device (no copy in;
    ``backend="auto"`` then runs where it lives); ``capacities``: ``b(w)`` as
    :func:`~gpusim.algorithms.stable.slots.capacity_array` (host values, one per woman); ``progress``: a
    tqdm bar over the rounds; ``kernels``: ``{"gale_shapley_round": variant}`` or ``{"propose_to": step}``
    (:func:`~gpusim.language.variants.kernel_table`); ``output``: ``"host"`` (a
    :class:`~gpusim.algorithms.stable.result.StableMatching`) or ``"device"`` (a
    :class:`~gpusim.algorithms.stable.device_result.DeviceStableMatching`, its wives left on the device).

    >>> from gpusim.types.preferences import PreferenceInstance
    >>> gs_rounds(PreferenceInstance([[0, 1], [0]], [[1, 0], [0]]), backend="sim", capacities=2).wife.tolist()
    [0, 0]
    """
    return _run(instance, "gs-rounds", backend, capacities, device, progress, kernels, output)


@register("stable", "mw-gpu", backends=("sim", "numba", "cupy"), on_cpu="mw",
          title="McVitie-Wilson on the GPU: a thread per man, CAS on each woman's suitor",
          paper="manne2016stable", where="§4", guarantees="man-optimal stable",
          kernels=(mcvitie_wilson_gpu,))
def mw_gpu(instance: Instance, backend: str = "auto", *, capacities: Any = None, device: Device | None = None,
           progress: bool = False, kernels: dict | None = None, output: str = "host") -> Result:
    """McVitie-Wilson on ``backend`` (or ``device``) in one launch; options as :func:`gs_rounds`
    (``kernels``: ``{"mcvitie_wilson_gpu": variant}``, or ``{"propose_to": step}`` as the bug zoo's twin
    without the CAS does).

    >>> from gpusim.types.preferences import PreferenceInstance
    >>> mw_gpu(PreferenceInstance([[0, 1], [0, 1], [1]], [[1, 0], [2, 0, 1]]), backend="sim").wife.tolist()
    [-1, 0, 1]
    """
    return _run(instance, "mw-gpu", backend, capacities, device, progress, kernels, output)


def _run(instance: Instance, algorithm: str, backend: str, capacities: Any, device: Device | None,
         progress: bool, kernels: dict | None, output: str) -> Result:
    if not isinstance(instance, (PreferenceInstance, DevicePreferenceInstance)):
        raise InvalidArgumentType(
            f"instance must be a PreferenceInstance or a DevicePreferenceInstance, got {type(instance).__name__}")
    if device is not None and not isinstance(device, Device):
        raise InvalidArgumentType(f"device must be a gpusim.Device, got {device!r}")
    check_output(output)
    on_device = isinstance(instance, DevicePreferenceInstance)
    b = None if capacities is None else capacity_array(instance, capacities)  # None: one slot a woman
    kernels = kernel_table(KERNELS, kernels)
    if device is None:
        device = own_device(instance_backend(instance, backend) if on_device else backend)
    dev = device
    lists = resident_instance(dev, instance)  # a device instance: adopted (no copy) and checked, once
    n_men, n_women = instance.n_men, instance.n_women
    slot_ptr_host = None if b is None else slot_offsets(b)
    n_slots = n_women if b is None else int(slot_ptr_host[-1])
    launch = Launcher(dev, progress=progress, description=f"{algorithm} rounds")
    block = 32 if dev.backend == "sim" else 256
    scratch = workspace(dev, instance, algorithm)  # a device instance keeps its work arrays between calls
    with launch.phase("copy in"):
        if on_device:  # the lists are there already: only the work arrays are made
            men_ptr = lists.men_ptr
            men_list, men_rank = (lists.men_list, lists.men_rank_by_woman) if lists.n_pairs else (
                dev.zeros(1, np.int32), dev.zeros(1, np.int32))
            # man_next[m]: the next position of man m's list he will consider (list_starts sets each).
            man_next = scratch.empty("man_next", max(n_men, 1))
            if n_men:
                launch(list_starts, Device.grid_for(n_men, block, max_grid=REDUCE_GRID), block, men_ptr, n_men,
                       man_next)
        else:
            men_ptr = dev.array(instance.men_ptr)
            men_list = dev.array(_nonempty(instance.men_list))
            men_rank = dev.array(_nonempty(instance.men_rank_by_woman))
            man_next = dev.array(_nonempty(instance.men_ptr[:-1].copy()))
        if b is None:  # woman w's one slot is slot w: the offsets 0, 1, ..., n_women, made on the device
            slot_ptr = scratch.empty("slot_ptr", n_women + 1)
            launch(count_up, Device.grid_for(n_women + 1, block, max_grid=REDUCE_GRID), block, slot_ptr, n_women + 1)
        else:
            slot_ptr = dev.array(slot_ptr_host)
        # held[s]: the offer in slot s, rank << 32 | man (smaller is better); EMPTY when free.
        held = scratch.empty("held", max(n_slots, 1), np.int64)
        dev.fill(held, EMPTY)
    rounds = 0
    if n_men and algorithm == "mw-gpu":
        with launch.phase("proposals"):
            launch(kernels["mcvitie_wilson_gpu"], Device.grid_for(n_men, block), block, men_ptr, men_list, men_rank,
                   slot_ptr, held, man_next, n_men, LOW, EMPTY)
        rounds = 1
    elif n_men:
        # free: the men proposing this round, every man at first (count_up); rejected: those displaced in it (the
        # next round's free men), written by the round before they are read; counter: how many, set every round
        free, rejected = scratch.empty("free", n_men), scratch.empty("rejected", n_men)
        counter = scratch.empty("counter", 1)
        n_free = n_men
        with launch.phase("proposals"):
            launch(count_up, Device.grid_for(n_men, block, max_grid=REDUCE_GRID), block, free, n_men)
            while n_free:
                rounds += 1
                launch(fill, 1, 32, counter, 0, 1)
                launch(kernels["gale_shapley_round"], Device.grid_for(n_free, block), block, men_ptr, men_list,
                       men_rank, slot_ptr, held, man_next, free, n_free, rejected, counter, LOW, EMPTY)
                n_free = launch.flag(counter)
                free, rejected = rejected, free
                launch.tick(free=n_free)
    launch.close()
    wife, total = _result(launch, scratch, held, slot_ptr, man_next, men_ptr, n_women, n_men, block)
    if output == "device":
        with launch.phase("result"):
            size = matched_count(dev, wife, n_men)
        with launch.phase("copy out"):
            proposals = int(dev.to_host(total)[0])
        wife = wife if n_men else dev.zeros(0, np.int32)
    else:
        with launch.phase("copy out"):
            wife, proposals = dev.to_host(wife)[:n_men], int(dev.to_host(total)[0])
    stats = {"rounds": rounds, "launches": dict(launch.launches), "seconds": dict(launch.seconds),
             "proposals": proposals}
    if output == "device":
        return DeviceStableMatching(instance, wife, size, proposals, algorithm, dev.backend, stats, capacities=b,
                                    host_wife=lambda: dev.to_host(wife)[:n_men],
                                    host_instance=lambda: _host_instance(instance, lists, dev))
    if on_device:
        return ResidentStableMatching(lambda: _host_instance(instance, lists, dev), n_women, wife,
                                      algorithm, dev.backend, stats, b, proposals=proposals)
    return StableMatching(instance, wife, algorithm, dev.backend, stats, b)


def _host_instance(instance: Instance, lists: Instance, dev: Device) -> PreferenceInstance:
    """The host instance of a result: ``instance`` itself, or the device lists copied back (once: kept on
    ``instance`` as its ``host``)."""
    if isinstance(instance, PreferenceInstance):
        return instance
    if instance.host is None:
        instance.host = lists.to_host(dev)
    return instance.host


def _result(launch: Launcher, scratch: Workspace, held, slot_ptr, man_next, men_ptr, n_women: int, n_men: int,
            block: int) -> tuple[Any, Any]:
    """Each man's wife and the proposals made, built on the device (:mod:`gpusim.algorithms.stable.kernels_result`):
    device arrays of ``max(n_men, 1)`` wives (new each call) and one total (a work array of ``scratch``), for the
    host to copy back or leave there."""
    dev = launch.device
    grid = Device.grid_for(max(n_women, n_men), block, max_grid=REDUCE_GRID)
    wife = dev.empty(max(n_men, 1), np.int32)  # -1 for a man without a wife, set in the phase
    # every warp stores its sum
    partial, total = scratch.empty("partial", grid * block // 32, np.int64), scratch.empty("total", 1, np.int64)
    with launch.phase("result"):
        dev.fill(wife, -1)
        launch(wives_from_held, grid, block, held, slot_ptr, n_women, wife, LOW, EMPTY)
        launch(proposals_made, grid, block, men_ptr, man_next, n_men, partial)
        launch(sum_warps, 1, 32, partial, grid * block // 32, total)
    return wife, total


def _nonempty(host: np.ndarray) -> np.ndarray:
    return host if host.size else np.zeros(1, host.dtype)
