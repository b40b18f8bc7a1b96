"""The test suite's own mutation score: each mutant of :mod:`.mutate` planted while a fast subset of tests runs.

:func:`suite_score` runs, for each mutant of an algorithm, ``python -m pytest`` on a chosen subset of the
project's test files (:data:`TEST_SUBSETS`, or the files given) in a fresh process, with this module loaded as a
pytest plugin (``-p gpusim.explore.mutate_tests``).  The plugin plants the mutant around every test's call
(:func:`gpusim.language.variants.planted`: every ``Device.launch`` in the test resolves the mutated kernel or
step in place of the real one, on whichever backend the test launches on) and records which tests launched it
and which failed.  A mutant is *found* when a test fails (or the run passes its time limit: a hang counts as
caught, as in every mutation tool); *not found* when every test passes with it launched; *unreached* when no
test of the subset launched the function it changes; a mutant named equivalent by :mod:`.mutate` that no test
catches is *equivalent*.  The unmutated subset runs first and must pass.

What this measures, and what not: the tests of the subset only (not the whole suite, which takes minutes a
mutant), each test as written (its own inputs and schedules; a Hypothesis test draws its examples as usual).
Tests that launch kernels in other processes (Dask workers) run them unmutated.

>>> sorted(TEST_SUBSETS)[:3]
['apfb', 'apsb', 'bsuitor']
>>> _plant_spec("mw-gpu", "propose_to:74:cas-to-exchange")
'mw-gpu|propose_to:74:cas-to-exchange'
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gpusim.errors import InvalidArgument

__all__ = ["TEST_SUBSETS", "suite_score"]

_BIPARTITE = ("tests/test_paper_kernels_race_free.py", "tests/test_bipartite_one_block.py",
              "tests/test_bipartite_warp_bfs.py", "tests/test_bipartite_proposals.py",
              "tests/test_bipartite_frontier_queue.py")
#: The fast subset of the project's tests each algorithm's mutants run against (paths from the checkout's root).
TEST_SUBSETS: dict[str, tuple[str, ...]] = {
    "apfb": _BIPARTITE,
    "apsb": _BIPARTITE,
    "gpr": ("tests/test_paper_kernels_race_free.py", "tests/test_bipartite_proposals.py"),
    "mw-gpu": ("tests/test_stable.py", "tests/test_paper_kernels_race_free.py"),
    "gs-rounds": ("tests/test_stable.py", "tests/test_paper_kernels_race_free.py"),
    "suitor": ("tests/test_weighted.py", "tests/test_paper_kernels_race_free.py"),
    "ld": ("tests/test_weighted.py", "tests/test_paper_kernels_race_free.py"),
    "bsuitor": ("tests/test_b_suitor.py", "tests/test_paper_kernels_race_free.py"),
    "roma": ("tests/test_roma.py", "tests/test_paper_kernels_race_free.py"),
    "louvain": ("tests/test_paper_kernels_race_free.py", "tests/test_louvain.py"),  # the fast file first
}
_SPEC, _REPORT = "GPUSIM_PLANT", "GPUSIM_PLANT_REPORT"


def _plant_spec(name: str, mutant: str) -> str:
    return f"{name}|{mutant}"


def _run(files: Sequence[str], spec: str | None, timeout: float) -> tuple[str, dict[str, Any]]:
    """Run pytest on ``files`` in a fresh process, planting ``spec``: ``("passed" | "failed" | "timed out",
    what the plugin recorded)``."""
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        env = {**os.environ, _REPORT: str(report)}
        env.pop(_SPEC, None)
        if spec is not None:
            env[_SPEC] = spec
        command = [sys.executable, "-m", "pytest", "-x", "-q", "-m", "not slow and not gpu", "-p", "no:cacheprovider",
                   "-p", "gpusim.explore.mutate_tests", *files]
        try:
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return "timed out", {}
        recorded = json.loads(report.read_text()) if report.exists() else {}
        if done.returncode not in (0, 1):
            tail = (done.stdout + done.stderr).strip().splitlines()[-1:] or [""]
            raise InvalidArgument(f"the tests {' '.join(files)} did not run (pytest exit {done.returncode}: "
                                  f"{tail[0][:200]})")
        return ("passed" if done.returncode == 0 else "failed"), recorded


def suite_score(name: str, *, kinds: tuple[str, ...] | None = None, files: Sequence[str] | None = None,
               timeout: float = 300.0, progress: Callable[[Any, dict], None] | None = None) -> dict[str, Any]:
    """The mutation score of the test subset ``files`` (default :data:`TEST_SUBSETS`) on algorithm ``name``'s
    mutants (see the module notes): rows as :func:`.mutate.score`'s, with ``test`` (the first failing test)."""
    from .mutate import DEFAULT_KINDS, mutants

    files = list(files or TEST_SUBSETS.get(name, ()))
    missing = [f for f in files if not Path(f).is_file()]
    if not files or missing:
        raise InvalidArgument(f"--tests: {missing or 'no test files'} not found here; run from the gpusim "
                              f"checkout's root or name the test files")
    outcome, _ = _run(files, None, timeout)
    if outcome != "passed":
        raise InvalidArgument(f"the unmutated tests {' '.join(files)} {outcome}: no mutation score over them")
    rows = []
    for mutant in mutants(name, kinds or DEFAULT_KINDS):
        start = time.perf_counter()
        outcome, recorded = _run(files, _plant_spec(name, mutant.name), timeout)
        row = {"mutant": mutant.name, "function": mutant.function, "kind": mutant.kind, "test": recorded.get("failed"),
               "reason": None}
        if outcome == "timed out":
            row["verdict"], row["reason"] = "found", f"the tests ran past {timeout:g} s (a hang counts as caught)"
        elif outcome == "failed":
            row["verdict"] = "found"
        elif not recorded.get("launched"):
            row["verdict"], row["reason"] = "unreached", f"no test of {' '.join(files)} launched {mutant.function}"
        else:
            row["verdict"] = "equivalent" if mutant.equivalent_if_unfound else "not found"
            row["reason"] = f"{recorded['launched']} test(s) launched it and passed"
        row["seconds"] = round(time.perf_counter() - start, 2)
        rows.append(row)
        if progress is not None:
            progress(mutant, row)
    found = sum(row["verdict"] == "found" for row in rows)
    judged = found + sum(row["verdict"] == "not found" for row in rows)
    return {"algorithm": name, "files": files, "rows": rows, "found": found, "judged": judged,
            "score": round(found / judged, 3) if judged else None}


# -- the pytest plugin (loaded in the test process by ``-p gpusim.explore.mutate_tests``) ----------------------

_STATE: dict[str, Any] = {"kernels": None, "launched": 0, "failed": None}


def pytest_configure(config) -> None:
    """Make the mutant named by ``GPUSIM_PLANT`` (``ALGORITHM|MUTANT``), once, for every test of the run."""
    spec = os.environ.get(_SPEC)
    if spec:
        from .mutate import mutants

        name, wanted = spec.split("|", 1)
        kind = wanted.rsplit(":", 1)[-1]
        _STATE["kernels"] = next(m for m in mutants(name, (kind,)) if m.name == wanted).kernels


def _wrap_call():
    import pytest

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(item):
        kernels = _STATE["kernels"]
        if kernels is None:
            yield
            return
        from gpusim.language.variants import KernelsRefused, planted

        scope = planted(kernels)
        planting = scope.__enter__()
        try:
            yield
        finally:
            if planting is not None and planting.used:
                _STATE["launched"] += 1
            try:
                scope.__exit__(None, None, None)
            except KernelsRefused:  # this test launched nothing the mutant changes
                pass

    return pytest_runtest_call


pytest_runtest_call = _wrap_call() if "pytest" in sys.modules else None


def pytest_runtest_logreport(report) -> None:
    """Remember the first failing test."""
    if report.failed and _STATE["failed"] is None:
        _STATE["failed"] = report.nodeid


def pytest_unconfigure(config) -> None:
    """Write what was recorded where ``GPUSIM_PLANT_REPORT`` says."""
    path = os.environ.get(_REPORT)
    if path:
        Path(path).write_text(json.dumps({"launched": _STATE["launched"], "failed": _STATE["failed"]}))
