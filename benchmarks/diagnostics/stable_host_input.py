"""Where a stable-marriage call from host input spends its time (``benchmarks/RESULTS.md``, issue 18): McVitie-Wilson
on the GPU on a hard instance (complete lists, n = 5,000: 2 x 25·10^6 int32 cross PCIe every call), its phases, and
beside it what the copies alone cost — pageable int32 (as the driver copies today), pageable int16 (half the bytes),
page-locked int32 — and NumPy's narrowing of one array to int16 on the host.

Usage, on the GPU machine: ``python3 -P benchmarks/diagnostics/stable_host_input.py [n]``
"""

import sys
import time

import numpy as np

from gpusim.algorithms.stable import mw_gpu
from gpusim.types.preference_generators import hard_instance


def best(call, repeats=5):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    instance = hard_instance(n, seed=1)
    men_list, men_rank = instance.men_list, instance.men_rank_by_woman
    print(f"hard n = {n}: {men_list.nbytes / 1e6:.0f} MB + {men_rank.nbytes / 1e6:.0f} MB of lists", flush=True)
    for backend in ("cupy", "numba"):
        mw_gpu(instance, backend)
        runs = [(time.perf_counter(), mw_gpu(instance, backend), time.perf_counter()) for _ in range(3)]
        for start, result, end in runs:
            phases = {k: round(v * 1e3, 3) for k, v in result.stats["seconds"].items()}
            print(f"{backend}: whole {1e3 * (end - start):.2f} ms, phases (ms) {phases}", flush=True)
    import cupy

    narrow = men_list.astype(np.int16)
    print(f"numpy astype int16 of one array: {1e3 * best(lambda: men_list.astype(np.int16)):.2f} ms")
    sync = cupy.cuda.Device().synchronize
    print(f"cupy.asarray pageable int32, both arrays: "
          f"{1e3 * best(lambda: (cupy.asarray(men_list), cupy.asarray(men_rank), sync())):.2f} ms")
    print(f"cupy.asarray pageable int16, both arrays: "
          f"{1e3 * best(lambda: (cupy.asarray(narrow), cupy.asarray(narrow), sync())):.2f} ms")
    pinned = cupy.cuda.alloc_pinned_memory(men_list.nbytes)
    staged = np.frombuffer(pinned, np.int32, men_list.size)
    staged[:] = men_list
    out = cupy.empty(men_list.size, np.int32)
    print(f"page-locked int32 to device, both arrays: "
          f"{1e3 * best(lambda: (out.set(staged), out.set(staged), sync())):.2f} ms")
    start = time.perf_counter()
    cupy.cuda.runtime.hostRegister(men_rank.ctypes.data, men_rank.nbytes, 0)
    print(f"cudaHostRegister of one array (once): {1e3 * (time.perf_counter() - start):.2f} ms")
    print(f"registered int32 to device, one array: {1e3 * best(lambda: (out.set(men_rank), sync())):.2f} ms")
    cupy.cuda.runtime.hostUnregister(men_rank.ctypes.data)


if __name__ == "__main__":
    main()
