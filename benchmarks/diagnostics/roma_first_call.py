"""ROMA 2 (block) called twice in a row on numba and cupy at n = 16384 and 32768: device and whole seconds of
each call, CuPy's 64-bit-indexing flag for the n x n matrix, and the CUDA source cupyx generates for the phase
kernel with 32- and 64-bit indexing (``benchmarks/RESULTS.md``, "ROMA 2 on CuPy at n = 32768").

Usage, on the GPU machine: ``python3 -P benchmarks/diagnostics/roma_first_call.py OUT_DIR``
"""

import json
import sys
import time

import numpy as np

from gpusim.algorithms.weighted import kernels_roma, roma
from gpusim.backends.cupy import transpile_kernel


def main(out: str) -> None:
    for n in (16384, 32768):
        w = np.random.default_rng(1).random((n, n))
        w = np.triu(w, 1)
        w = w + w.T
        for backend in ("numba", "cupy"):
            roma(w[:256, :256].copy(), backend=backend)  # warm-up on a small corner, as the benchmark did
            for attempt in (1, 2):
                start = time.perf_counter()
                result = roma(w, backend=backend, variant="block")
                whole = time.perf_counter() - start
                print(json.dumps({"n": n, "backend": backend, "attempt": attempt, "whole": whole,
                                  "seconds": result.stats.get("seconds"), "launches": result.stats.get("launches")},
                                 default=str), flush=True)
            if backend == "cupy":
                import cupy

                print("index_32_bits of n*n float64:", cupy.empty(w.size, cupy.float64)._index_32_bits, flush=True)
    phase = kernels_roma.roma_block_phase
    types_ = tuple((s.dtype, s.is_array) for s in phase.signature)
    for index_32 in (True, False):
        code = transpile_kernel(phase, types_, tuple(index_32 if a else True for _, a in types_)).code
        with open(f"{out}/cupy-roma-block-{'i32' if index_32 else 'i64'}.cu", "w") as file:
            file.write(code)


if __name__ == "__main__":
    main(sys.argv[1])
