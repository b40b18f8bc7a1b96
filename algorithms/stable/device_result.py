"""What the GPU stable marriage drivers return for device-resident input or ``output="device"``.

- :class:`DeviceStableMatching` (``output="device"``): ``wife`` stays an array of the backend (a CuPy
  array on ``"cupy"``, a numba device array on ``"numba"``, a simulator array on ``"sim"``), so a
  pipeline pays no copy out; ``size`` and ``proposals`` were counted on the device.  ``valid``,
  ``stable`` and ``blocking_pairs`` copy the wives (and, for a device instance, the lists: once) to the
  host and run the host checks of :func:`gpusim.types.check.blocking_pairs`; :meth:`~DeviceStableMatching.to_host`
  gives the :class:`~gpusim.algorithms.stable.result.StableMatching`.
- :class:`ResidentStableMatching` (a device instance, ``output="host"``): a
  :class:`~gpusim.algorithms.stable.result.StableMatching` whose ``instance`` is copied back from the
  device only when a check asks for it.

The drivers are in :mod:`gpusim.algorithms.stable.gpu` (Manne et al., CSC 2016 §4).

Example
-------
>>> import numpy as np
>>> from gpusim.types.preferences import PreferenceInstance
>>> inst = PreferenceInstance([[0, 1], [0]], [[1, 0], [0]])
>>> m = DeviceStableMatching(inst, "W", 2, 3, "mw-gpu", "sim", capacities=np.ones(2, np.int32),
...                          host_wife=lambda: np.array([1, 0], np.int32), host_instance=lambda: inst)
>>> m.size, m.valid, m.stable, m.to_host().wife.tolist()
(2, True, True, [1, 0])
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any

import numpy as np

from gpusim.types.preferences import PreferenceInstance
from gpusim.types.results import CheckedResult

from .result import StableMatching

__all__ = ["DeviceStableMatching", "ResidentStableMatching"]


class ResidentStableMatching(StableMatching):
    """A :class:`~gpusim.algorithms.stable.result.StableMatching` of a device-resident instance.

    ``wife`` is on the host; ``instance`` (a :class:`~gpusim.types.preferences.PreferenceInstance`) is
    built by ``instance_of()`` — a copy of the device lists, made once — only when first read, as the
    checks (``valid``, ``stable``, ``blocking_pairs``) do.  ``proposals`` is the count made on the device.

    >>> import numpy as np
    >>> from gpusim.types.preferences import PreferenceInstance
    >>> asked = []
    >>> m = ResidentStableMatching(lambda: asked.append(1) or PreferenceInstance([[0]], [[0]]), 1,
    ...                            np.array([0], np.int32), "mw-gpu", "sim", proposals=1)
    >>> m.size, m.proposals, asked
    (1, 1, [])
    >>> m.stable, asked
    (True, [1])
    """

    def __init__(self, instance_of: Callable[[], PreferenceInstance], n_women: int, wife: np.ndarray,
                 algorithm: str, backend: str, stats: dict | None = None, capacities: np.ndarray | None = None,
                 *, proposals: int):
        # StableMatching's attributes, but ``instance`` lazily (the cached property below).
        self._instance_of = instance_of
        self.wife = np.asarray(wife, np.int32)
        self.capacities = np.ones(n_women, np.int32) if capacities is None else np.asarray(capacities, np.int32)
        self.algorithm, self.backend = algorithm, backend
        self.stats = dict(stats or {})
        self.__dict__["proposals"] = int(proposals)

    @cached_property
    def instance(self) -> PreferenceInstance:  # type: ignore[override]
        """The instance on the host, copied from the device on first use."""
        return self._instance_of()


class DeviceStableMatching(CheckedResult):
    """A stable marriage (or hospitals/residents assignment) whose wives stay on the device.

    Attributes
    ----------
    instance:
        What it solves: a host :class:`~gpusim.types.preferences.PreferenceInstance` or a device-resident
        :class:`~gpusim.types.device_preferences.DevicePreferenceInstance`.
    wife:
        A device array of the backend, ``n_men`` long: ``wife[m]`` the woman of man ``m``, -1 when single.
    capacities:
        ``b(w)`` per woman (host, int32); made on first use when the call gave none (one each).
    size, proposals:
        Married men and women considered, counted on the device.
    valid, problem, blocking_pairs, stable, certified:
        As for :class:`~gpusim.algorithms.stable.result.StableMatching`, checked on the host on demand
        (``host``).
    algorithm, backend, stats:
        What computed it.
    """

    def __init__(self, instance: Any, wife: Any, size: int, proposals: int, algorithm: str, backend: str,
                 stats: dict | None = None, *, capacities: np.ndarray | None,
                 host_wife: Callable[[], np.ndarray], host_instance: Callable[[], PreferenceInstance]):
        self.instance = instance
        self.wife = wife
        self.size, self.proposals = int(size), int(proposals)
        self.algorithm, self.backend = algorithm, backend
        self.stats = dict(stats or {})
        self._capacities = capacities
        self._host_wife, self._host_instance = host_wife, host_instance

    @cached_property
    def capacities(self) -> np.ndarray:
        given = self._capacities
        return np.ones(self.instance.n_women, np.int32) if given is None else np.asarray(given, np.int32)

    @cached_property
    def host(self) -> StableMatching:
        """The same matching with its wives copied to the host; the instance follows only when a check needs it."""
        wife = self._host_wife()
        if isinstance(self.instance, PreferenceInstance):
            return StableMatching(self.instance, wife, self.algorithm, self.backend, self.stats, self.capacities)
        return ResidentStableMatching(self._host_instance, self.instance.n_women, wife, self.algorithm,
                                      self.backend, self.stats, self.capacities, proposals=self.proposals)

    def to_host(self) -> StableMatching:
        """``host``: a :class:`~gpusim.algorithms.stable.result.StableMatching` of host arrays."""
        return self.host

    def husbands(self, woman: int) -> list[int]:
        """The men married to ``woman``, in increasing id order (from ``host``)."""
        return self.host.husbands(woman)

    @property
    def blocking_pairs(self) -> list[tuple[int, int]]:
        return self.host.blocking_pairs

    def _check(self) -> list[tuple[int, int]]:
        return self.host.blocking_pairs

    @property
    def stable(self) -> bool:
        return self.valid and not self.host.blocking_pairs

    def certificate(self) -> list[tuple[int, int]]:
        """The blocking pairs (none proves the matching stable), found on the host."""
        return self.host.certificate()

    @property
    def certified(self) -> bool:
        return self.stable

    def __repr__(self) -> str:
        return (f"DeviceStableMatching(size={self.size}, algorithm={self.algorithm!r}, "
                f"backend={self.backend!r})")
