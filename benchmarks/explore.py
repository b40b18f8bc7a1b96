"""Schedules per second of the explorer, and the cost of the race detector and of weak memory, side by side.

Run: ``python benchmarks/explore.py`` (no GPU).  Each row runs the same scenario under random schedules
with tracing off; "32 threads x 200 steps" is measured two ways: 200 scheduling steps per schedule
spread over 32 threads (the issue's target), and 200 steps *per thread* (6,400 per schedule).
"""

from __future__ import annotations

import json
import platform
import sys
import time

import numpy as np

from gpusim import Device, T, kernel
from gpusim.explore import explore
from gpusim.explore.scenario import Scenario, sim_supports


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
        return None
    return run


def _rate(scenario: Scenario, budget: int, repeats: int = 3) -> float:
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        explore(scenario, "random", budget=budget, shrink=False)
        best = max(best, budget / (time.perf_counter() - start))
    return best


def main() -> None:
    rows = []
    modes = [("plain", {})]
    if sim_supports("races", "report"):
        modes.append(("race detector", {"races": "report"}))
    if sim_supports("memory", "weak"):
        modes.append(("weak memory", {"memory": "weak"}))
    for label, threads, per_thread, budget in [("32 threads, 200 steps per schedule", 32, 200 // 32 * 1 + 1, 300),
                                               ("32 threads x 200 steps each", 32, 200, 20),
                                               ("lost_update (3 threads)", 3, 2, 2000)]:
        plain = None
        for mode, options in modes:
            scenario = Scenario(f"bench.{label}.{mode}", _workload(threads, per_thread), options, threads)
            rate = _rate(scenario, budget)
            steps = Scenario("s", _workload(threads, per_thread), options).execute(policy="sequential")[1].runs[0].steps
            plain = plain or rate
            rows.append({"workload": label, "mode": mode, "steps_per_schedule": steps,
                         "schedules_per_second": round(rate, 1), "cost_vs_plain": round(plain / rate, 2)})
    print(json.dumps({"machine": platform.processor() or platform.machine(), "python": sys.version.split()[0],
                      "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
