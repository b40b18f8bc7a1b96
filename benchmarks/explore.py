"""Schedules per second of the explorer on both engines, and the cost of the race detector and of weak memory.

The ``explore`` area: this table (``engines``) and campaigns on 1 to 16 Dask workers (``scaling``,
``benchmarks/explore_scaling.py``), no GPU::

    python -m benchmarks explore [--quick] [--parts engines,scaling] [--workers 1,2,4,8,16] [--scale 1.0]

Every row runs the same scenario under random
schedules with tracing off, side by side in one process: the reference simulator plain, with the
happens-before race detector, with weak memory, and the compiled engine
(``Device("sim", engine="compiled")``; its one-off compile is timed apart, and runs before the timing).
"32 threads x 200 steps" is measured two ways: 200 scheduling steps per schedule spread over 32 threads,
and 200 steps *per thread* (6,400 per schedule).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

import numpy as np

from gpusim import Device, T, kernel
from gpusim.explore import explore
from gpusim.explore.scenario import Scenario


@kernel(signature="int32[:], int32, int32")
def _steps(data, n, per_thread):
    i = T.gtid()
    if i < n:
        for _ in range(per_thread):
            data[i] = data[i] + 1


def _workload(threads: int, per_thread: int):
    def run(dev: Device):
        data = dev.zeros(threads, np.int32)
        dev.launch(_steps, 1, threads, (data, threads, per_thread // 2))
        got = dev.to_host(data)
        return None if (got == per_thread // 2).all() else f"data = {got.tolist()}"
    return run


def _rate(scenario: Scenario, budget: int, engine: str, repeats: int) -> float:
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        result = explore(scenario, "random", budget=budget, shrink=False, engine=engine)
        assert not result.found, result.failure
        best = max(best, budget / (time.perf_counter() - start))
    return best


MODES = [("reference", {}, "reference"), ("race detector", {"races": "report"}, "reference"),
         ("weak memory", {"memory": "weak"}, "reference"), ("compiled", {}, "compiled")]
WORKLOADS = [("32 threads, 200 steps per schedule", 32, 200 // 32 + 1, 300, 20_000),
             ("32 threads x 200 steps each", 32, 200, 20, 2_000),
             ("3 threads x 2 steps (lost_update's size)", 3, 2, 2000, 50_000)]


def engines(quick: bool) -> dict:
    """Schedules per second of each workload in each mode (best of 3; of 1 with a tenth of the budgets, quick)."""
    rows = []
    for label, threads, per_thread, budget, compiled_budget in WORKLOADS:
        plain = None
        for mode, options, engine in MODES:
            scenario = Scenario(f"bench.{label}.{mode}", _workload(threads, per_thread), options, threads)
            compile_seconds = None
            if engine == "compiled":
                start = time.perf_counter()
                scenario.attempt(engine="compiled", trace=False)
                compile_seconds = round(time.perf_counter() - start, 2)
            budget_here = compiled_budget if engine == "compiled" else budget
            rate = _rate(scenario, max(budget_here // 10, 10) if quick else budget_here, engine, 1 if quick else 3)
            steps = scenario.execute(policy="sequential")[1].runs[0].steps
            plain = plain or rate
            rows.append({"workload": label, "mode": mode, "steps_per_schedule": steps,
                         "schedules_per_second": round(rate, 1), "vs_reference": round(rate / plain, 2),
                         "first_call_seconds": compile_seconds})
            print(f"{label:<42} {mode:<14} {steps:>6} {rate:>12,.1f} {rate / plain:>12.2f}x", flush=True)
    return {"machine": platform.processor() or platform.machine(), "python": sys.version.split()[0], "rows": rows}


def main(argv: list[str] | None = None) -> int:
    """The ``explore`` area: ``DIR/explore.json`` (engines and scaling) and ``DIR/explore.png``."""
    from benchmarks import explore_scaling, machine
    from benchmarks.plots import bars

    parser = argparse.ArgumentParser(prog="python -m benchmarks explore", description=__doc__.splitlines()[0])
    machine.add_out(parser)
    parser.add_argument("--parts", default="engines,scaling", help="engines, scaling or both (default both)")
    parser.add_argument("--workers", default=None, help="worker counts of the scaling part (default 1,2,4,8,16; "
                                                        "quick 1,2)")
    parser.add_argument("--scale", type=float, default=None, help="multiply the campaign's budgets (default 1; "
                                                                  "quick 0.05)")
    options = parser.parse_args(argv)
    parts = set(options.parts.split(","))
    counts = [int(p) for p in (options.workers or ("1,2" if options.quick else "1,2,4,8,16")).split(",") if p.strip()]
    scale = options.scale or (0.05 if options.quick else 1.0)
    if parts - {"engines", "scaling"} or not counts or min(counts) < 1 or scale <= 0:
        parser.error(f"--parts {options.parts!r} (engines, scaling), --workers {counts} (>= 1), --scale {scale} (> 0)")
    json_path, png_path = machine.outputs(options, "explore")
    report = {**machine.stamp("explore", argv), "quick": options.quick}
    if "engines" in parts:
        print(f"{'workload':<42} {'mode':<14} {'steps':>6} {'schedules/s':>12} {'vs reference':>13}")
        report["engines"] = engines(options.quick)
        json_path.write_text(json.dumps(report, indent=1) + "\n")
    if "scaling" in parts:
        report["scaling"] = explore_scaling.run(counts, scale)
        json_path.write_text(json.dumps(report, indent=1) + "\n")
        explore_scaling.plot(report["scaling"]["runs"], str(png_path))
    else:
        rows = report["engines"]["rows"]
        groups = list(dict.fromkeys(r["workload"] for r in rows))
        bars(png_path, "explorer: schedules per second per engine", groups,
             {mode: [next(r["schedules_per_second"] for r in rows if r["workload"] == g and r["mode"] == mode)
                     for g in groups] for mode, _, _ in MODES}, "schedules/s (log)")
    print(f"written: {json_path}")
    return 0 if report.get("scaling", {}).get("same_answer_for_every_worker_count", True) else 1


if __name__ == "__main__":
    sys.exit(main())
