"""benchmarks/resident.py and benchmarks/profile.py on the simulator: the timing loop charges each
call its own work only, and the gaps' printout names where the time outside the phases went."""

from __future__ import annotations

import os
import subprocess
import sys

import benchmark_scripts

from gpusim import Device

BENCHMARKS = benchmark_scripts.BENCHMARKS
resident = benchmark_scripts.load("resident")


def test_each_repeat_releases_the_last_result_before_its_call_starts():
    events: list[str] = []

    def call(_data, _dev):
        events.append("called")
        return benchmark_scripts.Released(events)

    case = resident.Case("weighted", "fake", "none", 0, lambda dev: None, call, lambda result: True)
    row = resident.measure(case, Device("sim"), 3)
    assert row["ok"] and "error" not in row
    # the warm-up's result is dropped at once; each repeat's result is released before the next call, never during it
    assert events[:-1] == ["called", "released"] + ["called", "released"] * 2 + ["called"]


def test_a_real_case_is_timed_and_checked_on_the_simulator():
    case = resident.case_named("weighted:suitor", large=False, quick=True)
    row = resident.measure(case, Device("sim", seed=0, trace=False), 2)
    assert row["ok"] and row["output"] == "device"
    assert row["whole_seconds"] >= row["device_seconds"] > 0


def test_the_profiler_prints_the_release_and_each_named_step():
    steps = "gpusim.runtime.device:Device.empty,gpusim.runtime.workspace:workspace"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-m", "benchmarks.profile", "sim", "quick", "weighted:suitor", "--steps",
                          steps], capture_output=True, text=True, timeout=600, env=env, check=True,
                         cwd=BENCHMARKS.parent).stdout
    assert "== sim suitor on random, 40 vertices" in out
    assert "release of the result (after the call)" in out
    assert "step Device.empty" in out and "step workspace" in out
