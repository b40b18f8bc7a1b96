"""The ``sim`` area: the simulator's scheduling points per second, beside numba's CUDA simulator.

It runs ``gpusim bench sim --json`` (every policy, tracing on and off, the reference and the compiled engine, on a
memory-bound and a barrier-bound kernel; numba-cuda's simulator, ``NUMBA_ENABLE_CUDASIM=1``, on the same loop in a
subprocess of the same run) and keeps its rows.  ``--quick``: 256 threads of 50 points each instead of 1,024 of 100.
No GPU::

    python -m benchmarks sim [--quick] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys


def picture(rows: list[dict], path) -> None:
    """Points per second of each simulator and policy, per workload."""
    from benchmarks.plots import bars

    groups = list(dict.fromkeys(r["workload"] for r in rows))
    labels = list(dict.fromkeys(f"{r['simulator']}, {r['policy']}" + (", trace" if r["trace"] else "")
                                for r in rows))
    series = {label: [next((r["points_per_second"] for r in rows if r["workload"] == g
                            and f"{r['simulator']}, {r['policy']}" + (", trace" if r["trace"] else "") == label), None)
                      for g in groups] for label in labels}
    bars(path, f"simulator throughput, {rows[0]['threads']} threads", groups, series, "scheduling points/s (log)")


def main(argv: list[str] | None = None) -> int:
    """Run ``gpusim bench sim``; rows in ``DIR/sim.json``, the chart in ``DIR/sim.png``."""
    from benchmarks import machine

    parser = argparse.ArgumentParser(prog="python -m benchmarks sim", description=__doc__.splitlines()[0])
    machine.add_out(parser)
    parser.add_argument("--no-cudasim", action="store_true", help="skip numba's simulator")
    options = parser.parse_args(argv)
    json_path, png_path = machine.outputs(options, "sim")
    size = ["--threads", "256", "--ops", "50"] if options.quick else ["--threads", "1024", "--ops", "100"]
    command = [sys.executable, "-m", "gpusim", "bench", "sim", "--json", "--quiet", *size]
    command += ["--no-cudasim"] if options.no_cudasim else []
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        print(f"sim: gpusim bench sim failed ({done.returncode}): {done.stderr.strip()[-400:]}", file=sys.stderr)
        return 1
    rows = json.loads(done.stdout.strip().splitlines()[-1])
    report = {**machine.stamp("sim", argv), "quick": options.quick,
              "gpusim_command": " ".join(["gpusim", *command[3:]]), "rows": rows}
    json_path.write_text(json.dumps(report, indent=1) + "\n")
    picture(rows, png_path)
    print(f"{'workload':<8} {'simulator':<16} {'policy':<12} {'trace':<6} {'points/s':>12} {'x cudasim':>10}")
    for r in rows:
        ratio = f"{r['vs_numba_cudasim']:.1f}" if r.get("vs_numba_cudasim") else "-"
        print(f"{r['workload']:<8} {r['simulator']:<16} {r['policy']:<12} {r['trace']!s:<6} "
              f"{r['points_per_second']:>12,.0f} {ratio:>10}")
    print(f"written: {json_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
