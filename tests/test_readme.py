"""The README's sample outputs are what its commands print today, and its commands are the ones CI runs.

Each ```console block of README.md is a list of ``$ command`` lines, each followed by the output the README shows.
The command is run (on the simulator, in a temporary folder) and its output compared line by line with the shown
one after normalising what changes from run to run or with unrelated edits: times (``0.112 s``), the folder of the
bundled examples, replay tokens (``gs1-...``), source line numbers (``demo.py:39``) and runs of spaces. ``...`` in a
shown line stands for any text, as in a doctest.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, flags=re.M | re.S)


def _samples() -> list[tuple[str, list[str]]]:
    """``(command, shown output lines)`` of every ``$ command`` in the console blocks."""
    samples = []
    for block in _blocks("console"):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, *shown = chunk.rstrip("\n").split("\n")
            samples.append((command, shown))
    return samples


def normalise(line: str) -> str:
    """A line with what changes between runs replaced: times, the examples' folder, replay tokens, spacing."""
    line = re.sub(r"\S*(gpusim/examples/)", r"\1", line)
    line = re.sub(r"\b\d+\.\d+ s\b", "<t> s", line)
    line = re.sub(r"gs1-\S+", "gs1-...", line)
    line = re.sub(r"(\w\.py):\d+", r"\1:N", line)  # a source line number moves when the file is edited
    return re.sub(r"\s+", " ", line).strip()


def matches(shown: str, real: str) -> bool:
    """Whether a real output line is the shown one, ``...`` in the shown line matching any text."""
    pattern = ".*".join(re.escape(part) for part in normalise(shown).split("..."))
    return re.fullmatch(pattern, normalise(real)) is not None


def test_the_readme_shows_console_samples():
    commands = [command for command, _ in _samples()]
    assert any(c.startswith("gpusim match --example west0067 --algorithm apfb --backend sim") for c in commands)
    assert "gpusim demo" in commands


@pytest.mark.parametrize(("command", "shown"), _samples(), ids=[c for c, _ in _samples()])
def test_each_sample_prints_what_the_readme_shows(tmp_path, command, shown):
    assert command.startswith("gpusim "), command
    argv = [sys.executable, "-m", "gpusim", *command.split()[1:]]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    real = done.stdout.rstrip("\n").split("\n")
    assert len(real) == len(shown), f"{command}: {len(real)} lines printed, the README shows {len(shown)}:\n" \
        + done.stdout
    for want, got in zip(shown, real, strict=True):
        assert matches(want, got), f"{command}:\n  README: {want}\n  now:    {got}"
    if "--png" in command:
        assert (tmp_path / command.split("--png")[1].split()[0]).stat().st_size > 0


def test_the_run_command_is_the_sample_and_the_test_command_is_what_ci_runs():
    run, test = _blocks("bash")[:2]
    samples = [command for command, _ in _samples()]
    assert run.strip().endswith(samples[0]), "the Run it command and its sample output differ"
    assert run.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install -e . && ")
    ci = (ROOT / ".ci" / "run").read_text().replace(" -q ", " ")
    install, _, tests = test.strip().rpartition(" && ")
    assert tests == "pytest -n auto" and tests in ci
    assert install.split(" && ")[-1] in ci, "CI installs otherwise than the README says"
    assert "gpusim match --example west0067 --algorithm apfb" in ci


def test_the_first_kernel_runs_as_shown(tmp_path):
    code = next(block for block in _blocks("python") if "def count(counter, n)" in block)
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    first = done.stdout.split("\n")[0]
    assert 0 < int(first) < 64  # the lost updates the comment promises under this seed


def test_normalising_keeps_what_must_not_change():
    assert matches("matching of size 67, valid; 0.112 s", "matching of size 67, valid; 3.5 s")
    assert not matches("matching of size 67, valid", "matching of size 66, valid")
    assert matches("row-column pairs: 0-17 ... (47 more)", "row-column pairs: 0-17 1-8 2-9 (47 more)")
    assert matches("gpusim/examples/west0067.mtx: 67 rows", "/x/y/gpusim/examples/west0067.mtx: 67 rows")
    assert matches("0  (1,5)    load   counter[0]  0  demo.py:39", "0 (1,5) load counter[0] 0 demo.py:41")
    assert not matches("0  (1,5)    load   counter[0]  0  demo.py:39", "0 (1,4) load counter[0] 0 demo.py:39")
