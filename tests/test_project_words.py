"""The repository speaks of gpusim only: no tracked file tells how the work on it was organised.

Every file ``git ls-files`` lists (binaries, raw ``.json`` data and third-party ``.mtx`` matrices skipped) is
searched for words about the organisation of the work rather than about the library: work sessions, machine
leases, sprints, agents, worktrees, "the lead", and references to tracker items ("issue 18", "#18" in a Markdown
heading, "the issue's goal"). The patterns leave the field's own words alone: ``requests.Session`` or a
``Session(`` object, "release", "please", "reduction #1" (Harris), CSS colours (``#222``), a journal's "Vol. 21,
Issue 3", a git or a kernel's "branch", "hypothesis".
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: name -> pattern (case-insensitive) of a word about how the work was organised.
WORDS = {
    "session": r"(?<![\w.])sessions?\b(?!\()",
    "lease": r"\bleas(?:e|es|ed|ing)\b",
    "subagent": r"\bsub-?agents?\b",
    "helper agent": r"\bhelper agents?\b",
    "sprint": r"\bsprints?\b",
    "worktree": r"\bwork-?trees?\b",
    "the lead": r"\bthe lead(?:'s| engineer)\b",
    "issue N": r"(?<!\d, )\bissues? #?\d+",  # not a journal's "Vol. 21, Issue 3"
    "the issue": r"\bthe issue(?:'s)?\b",
    "numbered stretch": r"\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth) (?:stretch|session|lease)\b",
}
PATTERN = re.compile("|".join(f"(?P<w{i}>{p})" for i, p in enumerate(WORDS.values())), re.IGNORECASE | re.MULTILINE)
NAMES = list(WORDS)
#: A Markdown heading naming a tracker item ("## Louvain (#17)"); in Markdown files only (a Python comment may cite
#: "reduction #1").
HEADING = re.compile(r"^#+ .*(?<![\w/])#\d+\b", re.MULTILINE)


def _tracked_text_files() -> list[Path]:
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    files = []
    for name in filter(None, listed.decode().split("\0")):
        path = ROOT / name
        if name.endswith((".json", ".mtx")) or Path(name).resolve() == Path(__file__).resolve() or not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue  # a binary
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        files.append(path)
    return files


def offences(text: str, markdown: bool = True) -> list[tuple[int, str, str]]:
    """``(line, word, the line)`` of every word about the organisation of the work in ``text``."""
    found = []
    for match in PATTERN.finditer(text):
        name = NAMES[int(next(key for key, value in match.groupdict().items() if value is not None)[1:])]
        found.append((match.start(), name))
    found += [(match.start(), "#N heading") for match in HEADING.finditer(text)] if markdown else []
    lines = text.splitlines()
    return [(text.count("\n", 0, at) + 1, name, lines[text.count("\n", 0, at)].strip()) for at, name in found]


def test_no_tracked_file_speaks_of_how_the_work_was_organised():
    files = _tracked_text_files()
    assert len(files) > 100, "git ls-files listed too few files to be this repository"
    bad = [f"{path.relative_to(ROOT)}:{line}: {name!r} in {text[:120]!r}"
           for path in files
           for line, name, text in offences(path.read_text(encoding="utf-8"), markdown=path.suffix == ".md")]
    assert not bad, "words about how the work was organised, not about gpusim:\n" + "\n".join(bad)


@pytest.mark.parametrize("text", [
    "the sixth session's section", "three calls over two leases", "(issue 18)", "issue #15 asked for",
    "## Louvain (#17)", "the issue's goal", "a subagent wrote it", "the lead's H100 run", "this sprint",
])
def test_the_words_are_found(text):
    assert offences(text), text


@pytest.mark.parametrize("text", [
    "s = requests.Session()", "Session(", "the lock is released", "please see", "reduction #1",
    "color:#222", "Vol. 21, Issue 3", "a branch of the kernel", "the hypothesis holds", "scipy/scipy#26147",
    "a run of the campaign",
])
def test_legitimate_uses_pass(text):
    assert not offences(text), text


def test_a_tracker_heading_is_a_markdown_thing():
    assert offences("## Louvain (#17)") and not offences("# -- a reduction (Harris 2007, reduction #1)", markdown=False)
