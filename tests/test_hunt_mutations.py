"""Planted mutations of the real kernels, found by hunting the whole algorithm.

Each mutant of :mod:`hunt_mutants` (CAS -> exchange, atomic -> plain read-modify-write, a barrier removed, a
repair step removed, a lock released early, a wrong shuffle lane; across G-PR, APFB, Suitor, b-Suitor, ROMA
and McVitie-Wilson) is passed to the driver through ``kernels=`` — no file is edited — and hunted on random
inputs: found within 60 s, with a replay token that replays it, shrunk to at most 3 preemptions.  Three
run on every test run (the fast ones); the rest are marked slow.  The command line is tested on one, through
``--kernels MODULE.NAME``.
"""

from __future__ import annotations

import json
import re
import time

import pytest
from hunt_mutants import MUTANTS

from gpusim.cli import main
from gpusim.explore import hunt, replay
from gpusim.explore.algorithm import algorithm_scenario

FAST = ("apfb_repair_removed", "bsuitor_lock_released_early", "suitor_cas_to_exchange")
#: The shrinker's own time budget: on a loaded 2-core CI machine b-Suitor's batched rounds took more than 20 s.
SHRINK_SECONDS = 45


def _hunted(name: str):
    algorithm, kernels, keywords = MUTANTS[name]
    start = time.perf_counter()
    found = hunt(algorithm, random_inputs=8, budget=400, kernels=kernels, shrink_time=SHRINK_SECONDS, **keywords)
    return found, time.perf_counter() - start


@pytest.mark.parametrize("name", [pytest.param(name, marks=() if name in FAST else pytest.mark.slow)
                                  for name in MUTANTS])
def test_a_planted_mutation_is_found_shrunk_and_replayed(name):
    found, seconds = _hunted(name)
    assert found.found, found.verdict
    failure = found.failure
    assert seconds - failure.shrink_report["seconds"] < 60   # found within a minute; shrinking has its own budget
    assert failure.preemptions <= 3, failure.shrink_report
    assert failure.shrink_report["finished"]
    algorithm, kernels, keywords = MUTANTS[name]
    scenario = algorithm_scenario(algorithm, input_seed=int(failure.scenario.split("seed=")[1].split(":")[0]),
                                  kernels=kernels, start=keywords.get("start"), options=keywords.get("options"))
    assert scenario.name == failure.scenario
    assert replay(failure.token, scenario).kind == failure.kind


def test_the_unmutated_algorithms_pass_the_same_hunts():
    for name in FAST:
        algorithm, _, keywords = MUTANTS[name]
        clean = hunt(algorithm, random_inputs=4, budget=24, **keywords)
        assert not clean.found, clean.failure and clean.failure.report()


def test_the_command_line_hunts_a_planted_mutation_and_replays_its_token(capsys):
    status = main(["explore", "--algorithm", "apfb", "--random-inputs", "4", "--start", "empty", "--kernels",
                   "hunt_mutants.APFB_REPAIR", "--budget", "40", "--json", "--quiet"])
    assert status == 1
    found = json.loads(capsys.readouterr().out)
    assert found["found"] and found["failure"]["preemptions"] <= 3
    assert found["scenario"].startswith("algorithm:apfb:seed=")
    assert found["scenario"].endswith(":initial=empty:kernels=hunt_mutants.APFB_REPAIR")
    assert found["coverage"]["races_checked"] and "fix_rows_skipped" in found["coverage"]["kernels"]
    assert main(["explore", "--replay", found["failure"]["replay"], "--json"]) == 1
    again = json.loads(capsys.readouterr().out)
    assert again["kind"] == found["failure"]["kind"] and again["token"] == found["failure"]["token"]


def test_the_command_line_hunt_without_a_bug_prints_its_coverage(capsys):
    assert main(["explore", "--algorithm", "mw-gpu", "--random-inputs", "2", "--budget", "6", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "no failure in 6 schedule(s) of random over 2 random input(s)" in out
    assert re.search(r"kernels launched: (\w+ x6, )*mcvitie_wilson_gpu x6", out) and "data races reported: none" in out


@pytest.mark.parametrize("argv, message", [
    (["--algorithm", "nope", "--random-inputs"],
     "--algorithm 'nope' is not a registered GPU algorithm; choose one of apfb"),
    (["--algorithm", "gpr", "no/such/file.mtx"], "no such file: 'no/such/file.mtx'"),
    (["--algorithm", "gpr"], "give one of FILE, --example NAME or --random-inputs"),
    (["--algorithm", "gpr", "--random-inputs", "--kernels", "no_such_module.X"], "cannot import 'no_such_module'"),
    (["--algorithm", "gpr", "--random-inputs", "--option", "shrink_at"], "--option 'shrink_at' is not KEY=VALUE"),
    (["lost_update", "--races", "bogus"], "invalid choice: 'bogus'"),
])
def test_bad_hunts_on_the_command_line_are_one_line_errors(argv, message, capsys):
    try:
        status = main(["explore", *argv, "--quiet"])
    except SystemExit as stopped:  # argparse's own check (--races choices)
        status = stopped.code
    assert status == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
