"""Schedules per second of the explorer on both engines, and the cost of the race detector and of weak memory.

Run: ``python benchmarks/explore.py [--json]`` (no GPU).  Every row runs the same scenario under random
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


def _rate(scenario: Scenario, budget: int, engine: str, repeats: int = 3) -> float:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args()
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
            rate = _rate(scenario, compiled_budget if engine == "compiled" else budget, engine)
            steps = scenario.execute(policy="sequential")[1].runs[0].steps
            plain = plain or rate
            rows.append({"workload": label, "mode": mode, "steps_per_schedule": steps,
                         "schedules_per_second": round(rate, 1), "vs_reference": round(rate / plain, 2),
                         "first_call_seconds": compile_seconds})
    report = {"machine": platform.processor() or platform.machine(), "python": sys.version.split()[0], "rows": rows}
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{'workload':<42} {'mode':<14} {'steps':>6} {'schedules/s':>12} {'vs reference':>13}")
    for row in rows:
        print(f"{row['workload']:<42} {row['mode']:<14} {row['steps_per_schedule']:>6} "
              f"{row['schedules_per_second']:>12,.1f} {row['vs_reference']:>12.2f}x")


if __name__ == "__main__":
    main()
