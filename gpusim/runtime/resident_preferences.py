"""Device-resident preference lists taken by a stable marriage driver: adopted without a copy, checked once.

:func:`resident_instance` is what the GPU drivers of Manne et al. (CSC 2016) §4 call on their input (as
:func:`gpusim.runtime.resident_graphs.resident` for graphs): a host
:class:`~gpusim.types.preferences.PreferenceInstance` passes through unchanged (the driver copies its
lists as before); a :class:`~gpusim.types.device_preferences.DevicePreferenceInstance` comes back with its
arrays adopted by the device (no copy), its contents checked by the kernels of
:mod:`gpusim.runtime.device_preference_checks` the first time.

>>> import numpy as np
>>> from gpusim.types.device_preferences import DevicePreferenceInstance
>>> dev = Device("sim")
>>> a = lambda *x: dev.array(np.array(x, np.int32))
>>> resident_instance(dev, DevicePreferenceInstance(2, 2, a(0, 2, 3), a(0, 1, 0), a(1, 0, 2)))
Traceback (most recent call last):
...
gpusim.errors.InvalidArgument: men_rank_by_woman[2]=2 is not in [0, 2): woman 0 is listed by 2 men (man 1's entry)
"""

from __future__ import annotations

from typing import Any

from gpusim.errors import InvalidArgument
from gpusim.runtime.device import Device
from gpusim.runtime.device_preference_checks import preference_problem
from gpusim.runtime.resident_graphs import adopt, backend_where
from gpusim.types.device_preferences import ARRAYS, DevicePreferenceInstance

__all__ = ["instance_backend", "is_device_instance", "resident_instance"]


def is_device_instance(instance: Any) -> bool:
    """Whether ``instance`` is a device-resident :class:`~gpusim.types.device_preferences.DevicePreferenceInstance`."""
    return isinstance(instance, DevicePreferenceInstance)


def resident_instance(dev: Device, instance: Any) -> Any:
    """``instance`` ready for ``dev``: a host instance unchanged; a device instance adopted and checked (once).

    The instance itself comes back when ``dev`` uses its arrays as they are (the usual case); a view of
    them (numba viewing CuPy's arrays, say) comes back as a new instance sharing its ``host``.
    """
    if not isinstance(instance, DevicePreferenceInstance):
        return instance
    arrays = [adopt(dev, name, a) for name, a in zip(ARRAYS, instance.arrays, strict=True)]
    if not instance.checked:
        problem = preference_problem(dev, instance.n_men, instance.n_women, *arrays)
        if problem is not None:
            raise InvalidArgument(problem)
        instance.checked = True
    if all(a is b for a, b in zip(arrays, instance.arrays, strict=True)):
        return instance
    adopted = DevicePreferenceInstance(instance.n_men, instance.n_women, *arrays)
    adopted.checked, adopted.host = True, instance.host
    return adopted


def instance_backend(instance: DevicePreferenceInstance, backend: str) -> str:
    """The backend for a device-resident ``instance``: ``"auto"`` takes the one whose memory it is in (CuPy
    for any other CUDA array); ``"cpu"`` is refused — its lists are not on the host.

    >>> import numpy as np
    >>> from gpusim.types.preferences import PreferenceInstance
    >>> d = DevicePreferenceInstance.from_instance(PreferenceInstance([[0]], [[0]]), Device("sim"))
    >>> instance_backend(d, "auto")
    'sim'
    """
    return backend_where(instance.memory, backend,
                         f"the preference lists live in {instance.memory} memory: the sequential algorithms "
                         "(backend='cpu') need a PreferenceInstance; run mw-gpu or gs-rounds on its device, or copy "
                         "it to the host first (DevicePreferenceInstance.to_host)")
