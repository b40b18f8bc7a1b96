"""What a learner reads is right: the events a verdict shows are those of the fault it names, a race message
names both sides and the fix, papers are cited from the bibliography, the simulator reports races by default,
a closed output pipe ends ``gpusim`` quietly, and ``gpusim explore --list`` says what each entry is.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gpusim.algorithms  # noqa: F401  (the families register their algorithms)
from gpusim import Device, T, kernel
from gpusim.cli import main
from gpusim.exercises import check
from gpusim.explore import explore
from gpusim.runtime.launcher import own_device
from gpusim.runtime.references import REFERENCES, references_rst
from gpusim.runtime.registry import algorithms

ROOT = Path(__file__).resolve().parent.parent
#: Internal labels of the source papers, which a reader must not meet (tests/test_docs.py greps the site for them).
INTERNAL_LABELS = re.compile(r"[Ss]eeds? 00\d|\b00\d_[0-9a-f]{16}\b|\bPaper (?:I|II|III|IV)\b")

HEADER = "from gpusim import T, kernel\n\n\n"


def _kernel_file(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(HEADER + body)
    return path


@kernel
def _count(counter, n):
    i = T.gtid()
    if i < n:
        counter[0] = counter[0] + 1


# -- the events of the fault, and the words ----------------------------------------------------------------------

def test_a_race_with_an_atomic_side_names_both_sides_and_the_atomic_load_fix(tmp_path):
    path = _kernel_file(tmp_path, "cas_max", '@kernel(signature="int32[:], int32[:]")\ndef max_by_cas(values, best):\n'
                        "    mine = values[T.gtid()]\n    if mine > best[0]:\n"
                        "        T.atomic_cas(best, 0, best[0], mine)\n")
    verdict = check(6, path)
    assert verdict.status == "race"
    assert "no atomic on this cell" not in verdict.message
    assert "a plain load of best[0]" in verdict.message and "an atomic_cas of it" in verdict.message
    assert "T.atomic_load(best, 0)" in verdict.message
    assert {e.op for e in verdict.highlight} == {"load", "atomic_cas"} and len(verdict.highlight) == 2
    assert all((e.array, e.index) == ("best", 0) for e in verdict.highlight)
    assert len({(e.block, e.thread) for e in verdict.highlight}) == 2
    assert "T.atomic_load" in verdict.report(str(path))


def test_a_divergent_barrier_shows_the_barrier_and_the_thread_that_left(tmp_path):
    path = _kernel_file(tmp_path, "block_sum", '@kernel(signature="int32[:], int32[:]")\n'
                        "def block_sum(values, total):\n"
                        "    cache = T.shared_array(8, T.i32)\n    t = T.thread_id()\n    cache[t] = values[t]\n"
                        "    T.syncthreads()\n    stride = T.block_size() // 2\n    while stride > 0:\n"
                        "        if t < stride:\n            cache[t] = cache[t] + cache[t + stride]\n"
                        "            T.syncthreads()\n        stride = stride // 2\n"
                        "    if t == 0:\n        total[0] = cache[0]\n")
    verdict = check(7, path)
    assert verdict.status == "bug" and verdict.kind == "BarrierDivergence"
    barrier_line = f"{path.name}:14"  # the syncthreads inside `if t < stride`
    named = {(int(b), int(t)) for b, t in re.findall(r"thread \(block (\d+), thread (\d+)\)", verdict.message)}
    left = {(int(b), int(t)) for b, t in re.findall(r"thread \(block (\d+), thread (\d+)\) finished", verdict.message)}
    assert left and barrier_line in verdict.message
    assert any(e.op == "syncthreads" and e.location == barrier_line for e in verdict.highlight)
    assert {(e.block, e.thread) for e in verdict.highlight} <= named
    assert left <= {(e.block, e.thread) for e in verdict.highlight}  # the thread that left is shown
    assert not any(e.array == "cache" for e in verdict.highlight)  # not an unrelated store or load of cache[4]


def test_a_weak_memory_failure_shows_the_stale_load_and_the_store_it_missed(tmp_path):
    path = _kernel_file(tmp_path, "publish", '@kernel(signature="int32[:], int32[:], int32[:]")\n'
                        "def publish(data, flag, seen):\n    if T.gtid() == 0:\n        data[0] = 42\n"
                        "        data[1] = 7\n        T.threadfence()\n        T.atomic_exch(flag, 0, 1)\n"
                        "    elif T.gtid() == 1:\n        while T.atomic_load(flag, 0) == 0:\n            pass\n"
                        "        seen[0] = data[0]\n        seen[1] = data[1]\n")
    verdict = check(11, path)
    assert verdict.status == "wrong result"
    store, load = verdict.highlight
    assert (store.op, load.op) == ("store", "load") and (store.array, store.index) == (load.array, load.index)
    assert store.value != load.value and store.step < load.step and store.thread != load.thread
    assert "not yet visible to the reader" in verdict.message
    assert "fence" in verdict.message and "atomic load" in verdict.message


def test_the_explorer_shows_the_barrier_events_of_a_divergent_barrier():
    failure = explore("barrier_in_divergent_code", policy="random", budget=20, seed=0).failure
    assert failure is not None and failure.kind == "BarrierDivergence"
    events = failure.interleaving()
    assert events and all(e.op == "syncthreads" or not e.array for e in events[:-1])
    named = {(int(b), int(t)) for b, t in re.findall(r"thread \(block (\d+), thread (\d+)\)", failure.message)}
    assert {(e.block, e.thread) for e in events} <= named


def test_the_simulators_race_error_names_both_sides_and_the_fix():
    from gpusim.errors import DataRace

    dev = Device("sim", policy="round_robin", races="raise")
    with pytest.raises(DataRace) as raised:
        dev.launch(_count, grid=2, block=4, args=(dev.zeros(1, np.int32), 8))
    text = str(raised.value)
    assert re.search(r"a plain (load|store) of counter\[0\]", text) and re.search(r"a plain (load|store) of it", text)
    assert "T.atomic_add(counter, 0, 1)" in text


# -- races on the simulator by default --------------------------------------------------------------------------

def test_the_simulator_reports_races_by_default_and_skips_them_when_told():
    dev = Device("sim", policy="random", seed=7)
    run = dev.launch(_count, grid=1, block=8, args=(dev.zeros(1, np.int32), 8))
    assert run.races and {r.array for r in run.races} == {"counter"}
    quiet = Device("sim", policy="random", seed=7, races="off")
    assert quiet.launch(_count, grid=1, block=8, args=(quiet.zeros(1, np.int32), 8)).races == []
    assert own_device("sim")._impl.races == "off"  # a call's own device: nobody reads its races
    assert Device("sim", engine="auto", trace=False)._impl.races == "off"  # the fast engines ask for it


def test_the_papers_kernels_with_declared_races_report_none_by_default():
    from gpusim.algorithms.bipartite.augmenting import apfb
    from gpusim.algorithms.weighted.driver_suitor import suitor
    from gpusim.types.bipartite_graph import BipartiteGraph
    from gpusim.types.graphs import WeightedGraph

    dev = Device("sim", seed=1)
    matching = apfb(BipartiteGraph.from_edges([0, 0, 1, 2, 2], [0, 1, 1, 1, 2]), device=dev)
    assert matching.size == 3 and dev.runs and all(run.races == [] for run in dev.runs)
    dev = Device("sim", seed=2)
    suitor(WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [3.0, 2.0, 1.0]), device=dev)
    assert dev.runs and all(run.races == [] for run in dev.runs)


# -- the bibliography -------------------------------------------------------------------------------------------

def test_the_bibliography_is_whole_and_the_docs_page_is_generated_from_it():
    assert (ROOT / "docs" / "references.rst").read_text(encoding="utf-8") == references_rst()
    for reference in REFERENCES.values():
        assert reference.authors and reference.title and reference.venue and 1950 < reference.year < 2030
        assert reference.link.startswith("https://"), reference.key
    for entry in algorithms():
        assert entry.references and entry.citation.startswith(entry.references[0].short), entry.name


def _help_texts() -> dict[str, str]:
    from gpusim.cli.app import _parser

    parser = _parser()
    texts = {"gpusim --help": parser.format_help()}
    commands = next(action for action in parser._actions if action.__class__.__name__ == "_SubParsersAction")
    for name, sub in commands.choices.items():
        texts[f"gpusim {name} --help"] = sub.format_help()
        for action in sub._actions:
            if action.__class__.__name__ == "_SubParsersAction":
                for inner, parser_of in action.choices.items():
                    texts[f"gpusim {name} {inner} --help"] = parser_of.format_help()
    return texts


def test_no_internal_paper_labels_in_gpusim_algorithms_or_any_help(capsys):
    assert main(["algorithms"]) == 0
    shown = {"gpusim algorithms": capsys.readouterr().out}
    assert main(["algorithms", "--json"]) == 0
    shown["gpusim algorithms --json"] = capsys.readouterr().out
    shown.update(_help_texts())
    assert len(shown) > 10
    found = [f"{where}: {hit.group(0)!r}" for where, text in shown.items() for hit in INTERNAL_LABELS.finditer(text)]
    assert found == []
    assert "https://doi.org/10.1109/ICPP.2013.11" in shown["gpusim algorithms"]
    row = json.loads(shown["gpusim algorithms --json"])["algorithms"][0]
    assert row["references"][0]["link"].startswith("https://")


def test_no_internal_paper_labels_in_the_readme():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert [hit.group(0) for hit in INTERNAL_LABELS.finditer(text)] == []


# -- the command line ---------------------------------------------------------------------------------------------

def test_a_closed_output_pipe_ends_gpusim_silently_with_status_0():
    """The documented status (docs/howto/use-the-command-line.rst): 0, nothing on stderr."""
    proc = subprocess.Popen([sys.executable, "-m", "gpusim", "algorithms"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader leaves before gpusim writes a line
    status = proc.wait(timeout=120)
    assert (status, proc.stderr.read()) == (0, b"")


def test_explore_list_gives_one_line_of_description_each(capsys):
    from gpusim.explore.scenario import scenario_names

    assert main(["explore", "--list"]) == 0
    names = scenario_names()
    lines = capsys.readouterr().out.strip().splitlines()[:len(names)]
    for line, name in zip(lines, names, strict=True):
        assert line.startswith(name) and len(line.split(maxsplit=1)) == 2, line
    assert main(["explore", "--list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["described"]
    assert [row["name"] for row in rows] == names and all(row["description"] for row in rows)
