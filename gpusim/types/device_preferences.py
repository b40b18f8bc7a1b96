"""Stable marriage instances whose lists already live in device memory: no copy in.

:class:`DevicePreferenceInstance` is :class:`~gpusim.types.preferences.PreferenceInstance`'s twin for the
GPU stable marriage algorithms of Manne et al. (CSC 2016) §4 (``mw-gpu``, ``gs-rounds``): it holds exactly
what their kernels read — the *mutual* men's lists as CSR, ``men_ptr`` and ``men_list``, and beside each
entry the rank the woman gives the man, ``men_rank_by_woman`` (Manne et al., CSC 2016 §2's linear-space ranking
precomputation) — as int32 arrays of any device: CuPy arrays, numba device arrays, anything with
``__cuda_array_interface__``, or the simulator's arrays.  With host input the n^2 entries of a complete
instance cross PCIe on every call; built once on the device, a pipeline pays that copy once, or never.

Building one checks only what costs nothing (counts, lengths, dtypes).  The contents are checked on the
device, by kernels, when an algorithm first takes the instance
(:func:`gpusim.runtime.resident_preferences.resident_instance`), with a one-line
:class:`~gpusim.errors.InvalidArgument` naming the offending entry and its value: offsets monotone from
0 to ``len(men_list)``, every woman id in ``[0, n_women)``, no woman twice in one man's list, and the
ranks of each woman ``w`` a permutation of ``0 .. c(w) - 1``, where ``c(w)`` is the number of men who
list her — so that her own (mutual, strict) list is well defined: the man of rank ``r`` first.  Every
valid instance is therefore a mutual instance, and :meth:`DevicePreferenceInstance.to_host` gives the
:class:`~gpusim.types.preferences.PreferenceInstance` it stands for.

>>> import numpy as np
>>> from gpusim import Device
>>> from gpusim.types.preferences import PreferenceInstance
>>> dev = Device("sim")
>>> inst = PreferenceInstance([[0, 1], [0]], [[1, 0], [0]])
>>> d = DevicePreferenceInstance.from_instance(inst, dev)
>>> d, d.checked
(DevicePreferenceInstance(n_men=2, n_women=2, n_pairs=3, memory='sim'), True)
>>> a = lambda *x: dev.array(np.array(x, np.int32))
>>> e = DevicePreferenceInstance(2, 2, a(0, 2, 3), a(0, 1, 0), a(1, 0, 0))
>>> e.to_host(dev) == inst
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.types.arguments import check_count, type_name
from gpusim.types.device_graphs import checked_device_array, memory_of
from gpusim.types.preferences import PreferenceInstance

__all__ = ["DevicePreferenceInstance", "host_instance_from_arrays"]

#: The names of the three device arrays, in the order the constructor takes them.
ARRAYS = ("men_ptr", "men_list", "men_rank_by_woman")


def _checked(name: str, array: Any, length: int | None) -> Any:
    return checked_device_array(name, array, length, host_home="PreferenceInstance (or "
                                "DevicePreferenceInstance.from_instance)", holder="device preference lists")


class DevicePreferenceInstance:
    """A stable marriage instance's mutual men's lists, with the women's ranks, in device memory.

    Parameters
    ----------
    n_men, n_women : int
    men_ptr, men_list
        Device arrays of int32: man ``m``'s acceptable women, best first, are
        ``men_list[men_ptr[m]:men_ptr[m + 1]]`` (every pair mutual: each ranks the other).
    men_rank_by_woman
        A device array of int32, one per entry of ``men_list``: the rank woman ``men_list[k]`` gives the
        list's owner (0 = her best), as :attr:`PreferenceInstance.men_rank_by_woman
        <gpusim.types.preferences.PreferenceInstance.men_rank_by_woman>`.

    Attributes
    ----------
    n_men, n_women, men_ptr, men_list, men_rank_by_woman
        As given (the arrays on the device).
    n_pairs : int
        Mutually acceptable pairs: the length of ``men_list`` (no copy).
    memory : str
        Whose memory the arrays are in (:func:`~gpusim.types.device_graphs.memory_of` of ``men_list``).
    host : PreferenceInstance or None
        The host instance it was copied from (:meth:`from_instance`) or built into (:meth:`to_host`).
    checked : bool
        Set once the contents were checked on a device (the check is then not repeated).
    derived : dict
        The work arrays the algorithms keep between calls on a GPU (:mod:`gpusim.runtime.workspace`).

    Raises
    ------
    InvalidArgumentType
        A host array (NumPy, list) where a device array is expected.
    InvalidArgument
        A wrong dtype (not int32), shape or length; the contents are checked on the device later.

    Examples
    --------
    >>> import numpy as np
    >>> from gpusim import Device
    >>> dev = Device("sim")
    >>> DevicePreferenceInstance(1, 1, dev.array(np.array([0, 1], np.int32)), dev.array(np.array([0])),
    ...                          dev.array(np.array([0], np.int32)))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gpusim.errors.InvalidArgument: men_list has dtype int64; device preference lists hold int32 (convert ...)
    """

    __slots__ = ("_n_men", "_n_women", "_arrays", "checked", "host", "derived")

    def __init__(self, n_men: int, n_women: int, men_ptr: Any, men_list: Any, men_rank_by_woman: Any):
        n_men, n_women = check_count("n_men", n_men), check_count("n_women", n_women)
        men_ptr = _checked("men_ptr", men_ptr, n_men + 1)
        men_list = _checked("men_list", men_list, None)
        men_rank_by_woman = _checked("men_rank_by_woman", men_rank_by_woman, int(men_list.shape[0]))
        self._n_men, self._n_women = n_men, n_women
        self._arrays = (men_ptr, men_list, men_rank_by_woman)
        self.checked = False
        self.host: PreferenceInstance | None = None
        self.derived: dict[tuple, Any] = {}

    @classmethod
    def from_instance(cls, instance: PreferenceInstance, device: Any) -> DevicePreferenceInstance:
        """``instance``'s mutual lists and ranks copied to ``device`` (a :class:`gpusim.Device`) once.

        For pipelines and benchmarks that time calls with the input already on the device; the copy is
        valid by construction (``checked``), and keeps ``instance`` as ``host`` for validation.

        >>> from gpusim import Device
        >>> from gpusim.types.preferences import PreferenceInstance
        >>> d = DevicePreferenceInstance.from_instance(PreferenceInstance([[0]], [[0]]), Device("sim"))
        >>> d.n_pairs, d.host.n_men
        (1, 1)
        """
        if not isinstance(instance, PreferenceInstance):
            raise InvalidArgumentType(f"instance must be a PreferenceInstance, got {type_name(instance)}")
        if not callable(getattr(device, "array", None)):
            raise InvalidArgumentType(f"device must be a gpusim.Device, got {type_name(device)}")
        arrays = (instance.men_ptr, instance.men_list, instance.men_rank_by_woman)
        copied = cls(instance.n_men, instance.n_women, *(device.array(np.asarray(a, np.int32)) for a in arrays))
        copied.checked = True
        copied.host = instance
        return copied

    n_men = property(lambda self: self._n_men, doc="Number of men.")
    n_women = property(lambda self: self._n_women, doc="Number of women.")
    men_ptr = property(lambda self: self._arrays[0], doc="CSR offsets of the mutual men's lists (device, int32).")
    men_list = property(lambda self: self._arrays[1], doc="Women ids of the mutual men's lists (device, int32).")
    men_rank_by_woman = property(lambda self: self._arrays[2],
                                 doc="Rank that woman ``men_list[k]`` gives the list's owner (device, int32).")

    @property
    def arrays(self) -> tuple[Any, Any, Any]:
        """``(men_ptr, men_list, men_rank_by_woman)``."""
        return self._arrays

    @property
    def n_pairs(self) -> int:
        """Mutually acceptable pairs (the length of ``men_list``: no copy)."""
        return int(self._arrays[1].shape[0])

    @property
    def memory(self) -> str:
        return memory_of(self._arrays[1])

    @property
    def nbytes(self) -> int:
        """Bytes of the three arrays."""
        return 4 * (self._n_men + 1 + 2 * self.n_pairs)

    def to_host(self, device: Any) -> PreferenceInstance:
        """The :class:`~gpusim.types.preferences.PreferenceInstance` these lists stand for, copied back by
        ``device`` (a :class:`gpusim.Device` that holds the arrays) on first use, then kept as ``host``.

        The women's lists are rebuilt from the ranks (woman ``w``'s man of rank ``r`` is the owner of the
        entry naming ``w`` with rank ``r``) and the whole checked again on the host.

        Raises
        ------
        InvalidArgument
            The lists are not a valid instance (as the device check would say, in the host's words).
        """
        if self.host is None:
            arrays = [np.asarray(device.to_host(a)) for a in self._arrays]
            arrays[1:] = [a[:self.n_pairs] for a in arrays[1:]]
            self.host = host_instance_from_arrays(self._n_men, self._n_women, *arrays)
        return self.host

    def __repr__(self) -> str:
        return (f"DevicePreferenceInstance(n_men={self._n_men}, n_women={self._n_women}, n_pairs={self.n_pairs}, "
                f"memory={self.memory!r})")


def host_instance_from_arrays(n_men: int, n_women: int, men_ptr: np.ndarray, men_list: np.ndarray,
                              men_rank_by_woman: np.ndarray) -> PreferenceInstance:
    """The mutual instance given by the men's lists and the women's ranks of them, built and checked on the host.

    >>> import numpy as np
    >>> inst = host_instance_from_arrays(2, 2, np.array([0, 2, 3]), np.array([0, 1, 0]), np.array([1, 0, 0]))
    >>> inst.men_prefs, inst.women_prefs
    ([[0, 1], [0]], [[1, 0], [0]])
    >>> host_instance_from_arrays(2, 1, np.array([0, 1, 2]), np.array([0, 0]), np.array([0, 0]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gpusim.errors.InvalidArgument: men_rank_by_woman[1]=0 repeats men_rank_by_woman[0]: woman 0 would rank both ...
    """
    ptr = np.asarray(men_ptr, np.int64)
    women = np.asarray(men_list, np.int64)
    ranks = np.asarray(men_rank_by_woman, np.int64)
    if ptr.shape != (n_men + 1,) or ranks.shape != women.shape:
        raise InvalidArgument(f"men_ptr must have {n_men + 1} entries and men_rank_by_woman one per men_list entry")
    if ptr[0] != 0 or ptr[-1] != women.size or (np.diff(ptr) < 0).any():
        raise InvalidArgument(f"men_ptr must run from 0 up to len(men_list)={women.size} without decreasing")
    owner = np.repeat(np.arange(n_men, dtype=np.int64), np.diff(ptr))
    bad = np.flatnonzero((women < 0) | (women >= n_women))
    if bad.size:
        k = int(bad[0])
        raise InvalidArgument(f"men_list[{k}]={int(women[k])} (man {int(owner[k])}'s list) is not a woman id "
                              f"in [0, {n_women})")
    count = np.bincount(women, minlength=n_women)
    women_ptr = np.zeros(n_women + 1, np.int64)
    np.cumsum(count, out=women_ptr[1:])
    bad = np.flatnonzero((ranks < 0) | (ranks >= count[women]))
    if bad.size:
        k = int(bad[0])
        w = int(women[k])
        raise InvalidArgument(f"men_rank_by_woman[{k}]={int(ranks[k])} is not in [0, {int(count[w])}): "
                              f"woman {w} is listed by {int(count[w])} men (man {int(owner[k])}'s entry)")
    place = women_ptr[women] + ranks
    first = np.full(women.size, women.size, np.int64)
    np.minimum.at(first, place, np.arange(women.size, dtype=np.int64))
    bad = np.flatnonzero(first[place] != np.arange(women.size))
    if bad.size:
        k = int(bad[0])
        j = int(first[place[k]])
        raise InvalidArgument(f"men_rank_by_woman[{k}]={int(ranks[k])} repeats men_rank_by_woman[{j}]: woman "
                              f"{int(women[k])} would rank both man {int(owner[j])} and man {int(owner[k])} at "
                              f"{int(ranks[k])} (ranks must be distinct)")
    women_list = np.empty(women.size, np.int64)
    women_list[place] = owner
    return PreferenceInstance.from_csr(ptr, women, women_ptr, women_list)
