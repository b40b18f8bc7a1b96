"""Small kernels and host helpers every algorithm uses: filling arrays, counting launches.

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> dev = Device("sim", seed=0)
>>> a = dev.zeros(5, np.int32)
>>> _ = dev.launch(fill, grid=1, block=32, args=(a, 7, 5))
>>> dev.to_host(a).tolist()
[7, 7, 7, 7, 7]
"""

from __future__ import annotations

import time
from collections import defaultdict

from tqdm import tqdm

from gpusim.errors import BackendUnavailable
from gpusim.language import interface as T
from gpusim.language.kernels import kernel
from gpusim.runtime.device import Device, choose_backend

__all__ = ["Launcher", "count_up", "fill", "own_device"]


def own_device(backend: str) -> Device:
    """The device a call makes for itself when it is given none: ``Device(backend)``, with the simulator's race
    detector off (nobody reads the runs of a device the call keeps to itself; a caller who wants the races
    passes ``device=Device("sim")``, which reports them).  ``"auto"`` is a GPU that works, never the simulator,
    which runs only when asked: without a GPU it is a one-line :class:`~gpusim.errors.BackendUnavailable` that
    names what to call instead.

    >>> own_device("sim").runs, own_device("sim")._impl.races
    ([], 'off')
    """
    if backend == "auto":
        chosen, why = choose_backend("auto")
        if chosen == "cpu":
            raise BackendUnavailable(
                f"backend='auto' found no GPU here ({why.split(';')[0].removeprefix('auto: ')}): these kernels run "
                f"on a GPU, or on the simulator when "
                f"asked (backend='sim'); for the answer on the CPU engine call maximum_bipartite_matching, "
                f"maximum_weight_matching, stable_marriage or louvain (backend='auto' or 'cpu')")
        return Device(chosen)
    dev = Device(backend)
    return Device("sim", races="off") if dev.backend == "sim" else dev


@kernel(signature="int32[:], int32, int32")
def fill(array, value, n):
    """``array[i] = value`` for every ``i < n`` (a grid-stride loop)."""
    i = T.gtid()
    while i < n:
        array[i] = value
        i += T.num_threads()


@kernel(signature="int32[:], int32")
def count_up(values, n):
    """``values[i] = i`` for every ``i < n`` (a grid-stride loop): a queue of every vertex, the slot offsets of
    one slot each."""
    i = T.gtid()
    while i < n:
        values[i] = i
        i += T.num_threads()


class Launcher:
    """Launch kernels on ``device``, counting launches per kernel and timing phases.

    >>> from gpusim import Device
    >>> launcher = Launcher(Device("sim", seed=0))
    >>> with launcher.phase("setup"):
    ...     flags = launcher.device.zeros(2, "int32")
    ...     launcher(fill, 1, 32, flags, 3, 2)
    >>> launcher.launches["fill"], sorted(launcher.seconds)
    (1, ['setup'])
    """

    def __init__(self, device: Device, progress: bool = False, description: str = ""):
        self.device, self.progress, self.description = device, progress, description
        self._open: _Phase | None = None  # the phase running now (phases may nest: G-PR's shrink in its loop)
        # defaultdicts, not Counters: one is made every call, and a Counter costs about a microsecond more to make
        self.launches: defaultdict[str, int] = defaultdict(int)
        self.seconds: defaultdict[str, float] = defaultdict(float)
        # no bar object at all without progress: a disabled tqdm still costs about 10 us a call to make
        self.bar = tqdm(desc=description, unit="iteration", leave=False) if progress else None

    def fresh(self) -> Launcher:
        """A new launcher like this one (same device, progress bar and description), with nothing counted or
        timed: for the next call of a kept plan (:mod:`gpusim.runtime.plans`)."""
        return Launcher(self.device, self.progress, self.description)

    def tick(self, **status) -> None:
        """One iteration of the host loop is done: advance the progress bar, showing ``status``."""
        if self.bar is not None:
            self.bar.update(1)
            if status:
                self.bar.set_postfix(status, refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def __call__(self, kernel, grid: int, block: int, *args) -> None:
        self.launches[kernel.name] += 1
        self.device.launch(kernel, grid, block, args)

    def flag(self, array) -> int:
        """Read a one-element device flag back to the host (a synchronising copy, as on a GPU)."""
        return int(self.device.to_host(array)[0])

    def phase(self, name: str) -> _Phase:
        """A ``with`` block whose wall time (synchronised at its end) is added to phase ``name``.  A phase opened
        inside another is that one's no longer: its time is taken off the outer phase, so that the phases add up
        to no more than the call.

        >>> launcher = Launcher(Device("sim"))
        >>> with launcher.phase("loop"):
        ...     with launcher.phase("shrink"):
        ...         time.sleep(0.01)
        >>> launcher.seconds["shrink"] >= 0.01 > launcher.seconds["loop"] >= 0
        True
        """
        return _Phase(self, name)


class _Phase:
    """:meth:`Launcher.phase`: a class, not a generator, because a small call opens several phases and a
    ``contextlib.contextmanager`` costs about a microsecond more each time."""

    __slots__ = ("launcher", "name", "start", "outer")

    def __init__(self, launcher: Launcher, name: str):
        self.launcher, self.name = launcher, name

    def __enter__(self) -> None:
        self.outer, self.launcher._open = self.launcher._open, self
        self.start = time.perf_counter()

    def __exit__(self, *exc_info) -> None:
        launcher = self.launcher
        launcher.device.synchronize()
        elapsed = time.perf_counter() - self.start
        launcher.seconds[self.name] += elapsed
        if self.outer is not None:
            launcher.seconds[self.outer.name] -= elapsed
        launcher._open = self.outer
