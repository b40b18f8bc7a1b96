"""How fast a host array reaches the device by ``Device.array``, from pageable memory against pages registered for
the copy (``gpusim.backends.gpu.REGISTER_BYTES``, issue 18), per size, on numba and CuPy: the figures that set the
threshold.  Each time is the best of 20 copies, the device synchronised after each.

Usage, on the GPU machine: ``python3 -P benchmarks/diagnostics/copy_in.py``
"""

import time

import numpy as np

import gpusim.backends.gpu as gpu
from gpusim import Device

SIZES = (1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26, 1 << 28)


def best(dev: Device, host: np.ndarray, register_bytes: int) -> float:
    gpu.REGISTER_BYTES = register_bytes
    times = []
    for _ in range(20):
        start = time.perf_counter()
        dev.array(host)
        dev.synchronize()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    default = gpu.REGISTER_BYTES
    print(f"REGISTER_BYTES = {default}")
    print(f"{'backend':<7} {'bytes':>11} {'pageable ms':>12} {'GB/s':>6} {'registered ms':>14} {'GB/s':>6}")
    for backend in ("cupy", "numba"):
        dev = Device(backend)
        for size in SIZES:
            host = np.arange(size // 4, dtype=np.int32)
            pageable, registered = best(dev, host, 1 << 62), best(dev, host, 0)
            print(f"{backend:<7} {size:>11} {pageable * 1e3:>12.3f} {size / pageable / 1e9:>6.1f} "
                  f"{registered * 1e3:>14.3f} {size / registered / 1e9:>6.1f}", flush=True)
    gpu.REGISTER_BYTES = default


if __name__ == "__main__":
    main()
