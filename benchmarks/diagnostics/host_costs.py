"""What each host step of a gpusim call costs on one backend (issue 18): the steps a small device-resident call
is made of — allocations, a memset, a launch, a synchronisation, a read back of two numbers, the memory check —
each timed alone, the median of ``REPEATS`` runs, in microseconds.  The device is idle before each step (it is
synchronised first), so a step's figure is its host time plus whatever wait it has of its own.

Usage, on the GPU machine, from the repository root::

    python3 -P benchmarks/diagnostics/host_costs.py BACKEND [...]
"""

import statistics
import sys
import time

import numpy as np

from gpusim import Device
from gpusim.runtime.launcher import Launcher, fill

REPEATS = 200


def median_us(step, dev: Device) -> float:
    """The median host time of ``step()``, in microseconds, each run starting on an idle device."""
    times = []
    for _ in range(REPEATS):
        dev.synchronize()
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    dev.synchronize()
    return statistics.median(times) * 1e6


def steps(dev: Device) -> dict:
    a = dev.zeros(1000, np.int32)
    pair = dev.zeros(2, np.float64)
    launcher = Launcher(dev)

    def in_a_phase():
        with launcher.phase("x"):
            pass

    return {
        "Device(backend)": lambda: Device(dev.backend),
        "Launcher(device)": lambda: Launcher(dev),
        "backend empty(1000)": lambda: dev._impl.empty(1000, np.dtype(np.int32)),
        "zeros(1000)": lambda: dev.zeros(1000, np.int32),
        "full(1000, -1)": lambda: dev.full(1000, -1, np.int32),
        "full(1000, 7)": lambda: dev.full(1000, 7, np.int32),
        "free_memory()": dev.free_memory,
        "check_fits(1000)": lambda: dev.check_fits(1000, "x"),
        "launch fill, 1 block": lambda: dev.launch(fill, 1, 32, (a, 7, 1000)),
        "launch fill + synchronize": lambda: (dev.launch(fill, 1, 32, (a, 7, 1000)), dev.synchronize()),
        "Launcher call (fill)": lambda: launcher(fill, 1, 32, a, 7, 1000),
        "empty phase (synchronised)": in_a_phase,
        "synchronize (idle)": dev.synchronize,
        "to_host(2 float64)": lambda: dev.to_host(pair),
        "to_host(1000 int32)": lambda: dev.to_host(a),
    }


def main() -> None:
    for backend in sys.argv[1:]:
        dev = Device(backend)
        table = steps(dev)
        for step in table.values():  # warm: compile, first allocations
            step()
        print(f"\n== {backend}: host time of each step, median of {REPEATS}")
        for name, step in table.items():
            print(f"  {name:<30} {median_us(step, dev):8.1f} us")


if __name__ == "__main__":
    main()
