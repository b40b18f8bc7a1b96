"""Basic GPU figures for gpusim's GPU backends, all measured in one run on one machine.

- launch overhead: microseconds per launch of an empty kernel followed by a synchronize (median
  of many, after warm-up), through ``Device.launch`` and through the library's own launch call;
  and per launch when many launches are queued before one synchronize; beside them, in the same
  run, the native CUDA launch of an empty CUDA C kernel through CuPy's ``RawKernel`` (the floor any
  Python launch can reach), and each backend's figures over it;
- compilation: the first launch of a kernel (bind, compile, load, run) against a cached launch;
- device-to-device copy bandwidth, counting bytes read plus bytes written, timed with CUDA events:
  ``cudaMemcpy`` through CuPy and through numba, and a gpusim grid-stride copy kernel on each
  backend.

Usage (``scripts/gpu-check --area gpu-basics`` runs it on a GPU machine)::

    python -m benchmarks gpu-basics [--quick] [--out DIR]

It prints a table and writes every figure, the device and the versions as JSON.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import platform
import statistics
import sys
import time

import numpy as np

from gpusim import Device, T, kernel
from gpusim.backends import gpu_status


@kernel(signature="int32[:]")
def empty_kernel(a):
    """Does nothing: its launch costs only the launch."""
    pass


@kernel(signature="float32[:], float32[:], float32, int32")
def saxpy(x, y, alpha, n):
    """y = alpha x + y: the kernel whose compilation is timed."""
    i = T.gtid()
    if i < n:
        y[i] = alpha * x[i] + y[i]


@kernel(signature="float32[:], float32[:], int32")
def copy_kernel(src, dst, n):
    """dst = src, grid-stride."""
    i = T.gtid()
    stride = T.num_threads()
    while i < n:
        dst[i] = src[i]
        i += stride


def _median_us(fn, reps: int, warm: int) -> float:
    for _ in range(warm):
        fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


class _Events:
    """CUDA events of one library, to time device work."""

    def __init__(self, backend: str):
        self.backend = backend
        if backend == "numba":
            from numba import cuda

            self._cuda = cuda
        else:
            import cupy

            self._cupy = cupy

    def time_ms(self, fn, reps: int, warm: int) -> float:
        """Median milliseconds of ``fn`` between two events."""
        for _ in range(warm):
            fn()
        out = []
        for _ in range(reps):
            if self.backend == "numba":
                start, end = self._cuda.event(), self._cuda.event()
                start.record()
                fn()
                end.record()
                end.synchronize()
                out.append(self._cuda.event_elapsed_time(start, end))
            else:
                start, end = self._cupy.cuda.Event(), self._cupy.cuda.Event()
                start.record()
                fn()
                end.record()
                end.synchronize()
                out.append(self._cupy.cuda.get_elapsed_time(start, end))
        return statistics.median(out)


def launch_overhead(backend: str, reps: int) -> dict:
    dev = Device(backend)
    impl = dev._impl
    a = dev.zeros(32, np.int32)
    dev.launch(empty_kernel, 1, 32, (a,))
    dev.synchronize()
    figures = {
        "launch_sync_us": _median_us(lambda: (dev.launch(empty_kernel, 1, 32, (a,)), dev.synchronize()), reps, 100),
    }
    if backend == "numba":
        from numba import cuda

        compiled = impl.compiled(empty_kernel, impl.signature((a,)))
        figures["raw_launch_sync_us"] = _median_us(lambda: (compiled[1, 32](a), cuda.synchronize()), reps, 100)
    else:
        import cupy

        function, _ = impl.compiled(empty_kernel, impl.signature((a,)))
        device = cupy.cuda.Device()
        figures["raw_launch_sync_us"] = _median_us(
            lambda: (function((1, 1, 1), (32, 1, 1), (a,)), device.synchronize()), reps, 100
        )
    batch = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(reps):
            dev.launch(empty_kernel, 1, 32, (a,))
        dev.synchronize()
        batch.append((time.perf_counter() - start) / reps * 1e6)
    figures["launch_queued_us"] = statistics.median(batch)
    return figures


#: The native comparison: an empty CUDA C kernel, launched through CuPy's ``RawKernel`` (``cuLaunchKernel``).
NATIVE_EMPTY = 'extern "C" __global__ void native_empty(int* a) {}'


def native_launch_overhead(reps: int) -> dict:
    """Microseconds per launch+synchronize, and per queued launch, of :data:`NATIVE_EMPTY` (needs CuPy)."""
    import cupy

    kernel = cupy.RawKernel(NATIVE_EMPTY, "native_empty")
    a = cupy.zeros(32, cupy.int32)
    device = cupy.cuda.Device()
    kernel((1,), (32,), (a,))  # compiles and loads
    device.synchronize()
    figures = {"launch_sync_us": _median_us(lambda: (kernel((1,), (32,), (a,)), device.synchronize()), reps, 100)}
    batch = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(reps):
            kernel((1,), (32,), (a,))
        device.synchronize()
        batch.append((time.perf_counter() - start) / reps * 1e6)
    figures["launch_queued_us"] = statistics.median(batch)
    return figures


def compile_times(backend: str, reps: int) -> dict:
    dev = Device(backend)
    n = 1 << 20
    x, y = dev.full(n, 1.0, np.float32), dev.full(n, 2.0, np.float32)
    before = dev._impl.compile_count
    start = time.perf_counter()
    dev.launch(saxpy, (n + 255) // 256, 256, (x, y, np.float32(3.0), np.int32(n)))
    dev.synchronize()
    first = time.perf_counter() - start
    cached = _median_us(
        lambda: (dev.launch(saxpy, (n + 255) // 256, 256, (x, y, np.float32(0.0), np.int32(n))), dev.synchronize()),
        reps, 10,
    )
    assert dev._impl.compile_count == before + 1, "a cached launch recompiled"
    assert float(dev.to_host(y)[0]) == 5.0
    return {"first_launch_s": first, "cached_launch_us": cached}


def bandwidth(backend: str, nbytes: int, reps: int) -> dict:
    dev = Device(backend)
    n = nbytes // 4
    src = dev.array(np.arange(n, dtype=np.float32))
    dst = dev.full(n, -1.0, np.float32)
    events = _Events(backend)
    moved = 2 * n * 4  # bytes read plus bytes written
    if backend == "numba":
        from numba import cuda

        stream = cuda.default_stream()  # with a stream object numba copies with cuMemcpyDtoDAsync
        memcpy = lambda: dst.copy_to_device(src, stream=stream)  # noqa: E731
    else:
        import cupy

        stream = cupy.cuda.get_current_stream()
        memcpy = lambda: cupy.cuda.runtime.memcpyAsync(  # noqa: E731
            dst.data.ptr, src.data.ptr, n * 4, cupy.cuda.runtime.memcpyDeviceToDevice, stream.ptr
        )
    figures = {"memcpy_GBps": moved / (events.time_ms(memcpy, reps, 3) * 1e-3) / 1e9}
    dst_check = dev.full(n, -1.0, np.float32)
    dev.launch(copy_kernel, 4 * 132, 1024, (src, dst_check, np.int32(n)))
    dev.synchronize()
    got = dev.to_host(dst_check)
    if not np.array_equal(got, np.arange(n, dtype=np.float32)):
        raise AssertionError(f"the copy kernel on {backend} copied wrongly")
    for blocks in (132 * 4, 132 * 16):
        ms = events.time_ms(lambda b=blocks: dev.launch(copy_kernel, b, 1024, (src, dst, np.int32(n))), reps, 3)
        figures[f"copy_kernel_{blocks}x1024_GBps"] = moved / (ms * 1e-3) / 1e9
    return figures


def _device_name() -> str:
    try:
        import cupy

        name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
        return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:
        from numba import cuda

        name = cuda.get_current_device().name
        return name.decode() if isinstance(name, bytes) else str(name)


def _versions() -> dict:
    out = {"python": platform.python_version()}
    for dist in ("numpy", "numba", "numba-cuda", "cupy-cuda13x", "cupy-cuda12x"):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            pass
    return out


def picture(results: dict, path) -> None:
    """Launch overheads in µs per backend (and native CUDA C through CuPy's RawKernel)."""
    from benchmarks.plots import bars

    keys = {"launch_sync_us": "launch + synchronize", "launch_queued_us": "queued launch",
            "cached_launch_us": "cached saxpy launch"}
    groups = list(keys.values())
    series = {f"{backend} through Device": [figures.get(key) for key in keys]
              for backend, figures in results["backends"].items()}
    if "native_rawkernel" in results:
        series["native RawKernel"] = [results["native_rawkernel"].get(key) for key in keys]
    bars(path, f"launch overhead on {results['device']}", groups, series, "µs", log=False)


def main(argv: list[str] | None = None) -> int:
    """The ``gpu-basics`` area: figures in ``DIR/gpu-basics.json``, launch overheads in ``DIR/gpu-basics.png``."""
    from benchmarks import machine

    parser = argparse.ArgumentParser(prog="python -m benchmarks gpu-basics", description=__doc__.splitlines()[0])
    machine.add_out(parser)
    args = parser.parse_args(argv)
    reps = 200 if args.quick else 2000
    nbytes = (64 if args.quick else 1024) << 20
    backends = [b for b in ("numba", "cupy") if gpu_status(b)[0]]
    if not backends:
        print("no GPU backend works here: " + "; ".join(f"{b}: {gpu_status(b)[1]}" for b in ("numba", "cupy")))
        return 1
    results: dict = {
        **machine.stamp("gpu-basics", argv),
        "device": _device_name(),
        "versions": _versions(),
        "buffer_bytes": nbytes,
        "backends": {},
    }
    for backend in backends:
        figures = {}
        figures.update(launch_overhead(backend, reps))
        figures.update(compile_times(backend, max(reps // 10, 20)))
        figures.update(bandwidth(backend, nbytes, 20))
        results["backends"][backend] = figures
    if "cupy" in backends:
        native = native_launch_overhead(reps)
        results["native_rawkernel"] = native
        for figures in results["backends"].values():
            figures["launch_sync_over_native"] = figures["launch_sync_us"] / native["launch_sync_us"]
            figures["launch_queued_over_native"] = figures["launch_queued_us"] / native["launch_queued_us"]
    table = []
    if "native_rawkernel" in results:
        native = results["native_rawkernel"]
        table += [["native: empty RawKernel launch+sync (us)", f"{native['launch_sync_us']:.1f}"],
                  ["native: queued RawKernel launch (us)", f"{native['launch_queued_us']:.1f}"]]
    for backend, figures in results["backends"].items():
        table += [
            [f"{backend}: empty launch+sync, Device (us)", f"{figures['launch_sync_us']:.1f}"],
            [f"{backend}: empty launch+sync, raw (us)", f"{figures['raw_launch_sync_us']:.1f}"],
            [f"{backend}: queued launch, Device (us)", f"{figures['launch_queued_us']:.1f}"],
        ]
        if "launch_sync_over_native" in figures:
            table += [[f"{backend}: launch+sync, Device / native", f"{figures['launch_sync_over_native']:.2f}x"],
                      [f"{backend}: queued launch, Device / native", f"{figures['launch_queued_over_native']:.2f}x"]]
        table += [
            [f"{backend}: first launch of saxpy, compiles (s)", f"{figures['first_launch_s']:.3f}"],
            [f"{backend}: cached launch+sync of saxpy (us)", f"{figures['cached_launch_us']:.1f}"],
            [f"{backend}: memcpy D2D (GB/s, r+w)", f"{figures['memcpy_GBps']:.0f}"],
        ]
        table += [
            [f"{backend}: copy kernel {key.split('_')[2]} (GB/s)", f"{value:.0f}"]
            for key, value in figures.items() if key.startswith("copy_kernel")
        ]
    results["table"] = table
    print(f"gpu_basics on {results['device']}, {results['date']}, buffer {nbytes >> 20} MiB")
    for label, value in table:
        print(f"  {label:<44}{value:>12}")
    json_path, png_path = machine.outputs(args, "gpu-basics")
    json_path.write_text(json.dumps(results, indent=2) + "\n")
    picture(results, png_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
