"""``stable_marriage``: the stable marriage family's entry, one call to the dispatcher.

It checks the input types and hands the rest to :func:`gpusim.runtime.dispatch.dispatch`; a
``device`` given runs a GPU algorithm on that device.

Example
-------
>>> STABLE_ALGORITHMS
('gs', 'mw', 'gs-rounds', 'mw-gpu')
>>> from gpusim.types.preferences import PreferenceInstance
>>> inst = PreferenceInstance([[0, 1], [0]], [[1, 0], [0]])
>>> stable_marriage(inst, "mw-gpu", backend="sim").wife.tolist()
[1, 0]
"""

from __future__ import annotations

from typing import Any

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.runtime.device import Device, choose_backend
from gpusim.runtime.dispatch import dispatch
from gpusim.runtime.registry import lookup, names
from gpusim.runtime.resident_graphs import check_output
from gpusim.runtime.resident_preferences import instance_backend
from gpusim.types.device_preferences import DevicePreferenceInstance
from gpusim.types.preferences import PreferenceInstance

# isort: off
# The order of registration is the order of STABLE_ALGORITHMS: the sequential ones, then the GPU ones.
from . import reference, gpu  # noqa: F401
# isort: on
from .device_result import DeviceStableMatching
from .result import StableMatching

__all__ = ["STABLE_ALGORITHMS", "stable_marriage"]

#: Every stable marriage algorithm by its CLI name (the registry's).
STABLE_ALGORITHMS = names("stable")


def stable_marriage(instance: PreferenceInstance | DevicePreferenceInstance, algorithm: str = "mw-gpu",
                    backend: str = "auto", *, capacities: Any = None, device: Device | None = None,
                    progress: bool = False, kernels: dict | None = None, output: str = "host"
                    ) -> StableMatching | DeviceStableMatching:
    """The man-optimal stable matching of ``instance`` by ``algorithm`` on ``backend``.

    Parameters
    ----------
    instance:
        Preference lists, complete (SM) or incomplete (SMI): a
        :class:`~gpusim.types.preferences.PreferenceInstance`, or for ``mw-gpu`` and ``gs-rounds`` a
        :class:`~gpusim.types.device_preferences.DevicePreferenceInstance` already on the device (no copy
        in; ``"auto"`` runs it where it lives).
    algorithm:
        ``"gs"`` (Gale-Shapley with a queue, Alg. 1) and ``"mw"`` (McVitie-Wilson with a
        stack) run sequentially on ``cpu``; ``"mw-gpu"`` (a thread per man, CAS) and
        ``"gs-rounds"`` (a kernel per round) run on ``sim``, ``numba`` or ``cupy``, or with
        ``backend="cpu"`` as their sequential counterparts (``mw``, ``gs``; ``stats["chosen"]`` says so).
        Each is registered (:mod:`gpusim.runtime.registry`) and run by :func:`gpusim.runtime.dispatch.dispatch`.
    backend, device:
        Where to run (``device`` wins); ``"auto"`` as :func:`gpusim.runtime.device.choose_backend`.
    capacities:
        ``b(w)``, how many men each woman may take: ``None`` (1), an int, or one per woman.
    progress:
        A tqdm bar over the rounds of ``gs-rounds``.
    kernels:
        For ``mw-gpu`` and ``gs-rounds``: kernels to launch in the place of the paper's, by name
        (``{"mcvitie_wilson_gpu": twin}``; :func:`gpusim.language.variants.kernel_table`).
    output:
        ``"host"`` (the default) or, for a GPU algorithm on a GPU backend, ``"device"``: the wives left on
        the device.

    Returns
    -------
    StableMatching or DeviceStableMatching
        ``wife[m]``: man ``m``'s woman or -1; ``stats["chosen"]`` says which backend ran and why.

    Raises
    ------
    InvalidArgumentType
        ``instance`` not a :class:`PreferenceInstance` (or device instance), ``device`` not a Device, bad
        ``capacities``.
    InvalidArgument
        An unknown algorithm or backend; a sequential algorithm asked to run on a GPU backend, on a device
        instance or with ``output="device"``; a device instance whose lists are not valid (checked on the
        device, once).

    Notes
    -----
    Threads write ``held`` only by ``atomic_cas`` (a woman never loses an offer to a race) and
    ``man_next[m]`` only while they hold man ``m`` (he is no woman's suitor then).  The
    plain reads of ``held`` in :func:`~gpusim.algorithms.stable.kernels.next_candidate` race with the CAS on purpose.

    Examples
    --------
    >>> from gpusim.types.preferences import PreferenceInstance
    >>> inst = PreferenceInstance([[0, 1], [0, 1], [1]], [[1, 0], [2, 0, 1]])
    >>> stable_marriage(inst, "gs-rounds", backend="sim").wife.tolist()
    [-1, 0, 1]
    >>> stable_marriage(inst, "mw-gpu", backend="sim", capacities=[1, 2]).wife.tolist()
    [1, 0, 1]
    >>> stable_marriage(PreferenceInstance([], []), "gs", backend="cpu").wife.tolist()
    []
    >>> from gpusim.types.device_preferences import DevicePreferenceInstance
    >>> dev = Device("sim")
    >>> m = stable_marriage(DevicePreferenceInstance.from_instance(inst, dev), "mw-gpu", device=dev, output="device")
    >>> m.size, m.stable, dev.to_host(m.wife).tolist()
    (2, True, [-1, 0, 1])
    """
    if not isinstance(instance, (PreferenceInstance, DevicePreferenceInstance)):
        raise InvalidArgumentType(
            f"instance must be a PreferenceInstance or a DevicePreferenceInstance, got {type(instance).__name__}")
    if device is not None and not isinstance(device, Device):
        raise InvalidArgumentType(f"device must be a gpusim.Device, got {device!r}")
    check_output(output)
    on_gpu = lookup("stable", algorithm).gpu
    size = instance.n_pairs if isinstance(instance, DevicePreferenceInstance) else int(instance.men_list.size)
    if isinstance(instance, DevicePreferenceInstance):
        resolved = instance_backend(instance, backend if on_gpu else "cpu")  # refuses the sequential ones
        backend = backend if device is not None else resolved
    options = {"capacities": capacities, "device": device, "progress": progress}
    if kernels is not None:
        options["kernels"] = kernels
    on_device = device is not None and on_gpu
    if output == "device":
        where = device.backend if on_device else choose_backend(backend, size)[0]
        if not on_gpu or where == "cpu":
            raise InvalidArgument(f"output='device' needs a GPU algorithm on a GPU backend; {algorithm!r} runs on "
                                  f"cpu here (run mw-gpu or gs-rounds on sim, numba or cupy)")
        options["output"] = output
    result = dispatch("stable", instance, algorithm, device.backend if on_device else backend, size=size, **options)
    if on_device:
        result.stats["chosen"] = "the device given"
    return result
