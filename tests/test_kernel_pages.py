"""Every algorithm of the registry has a kernel page: its pseudo-code, its kernels' real source, their steps,
races and the zoo's twins (docs/_ext/kernel_pages.py), written here into a temporary folder.

tests/test_docs.py builds the site and checks the pages are in it; here the generator's text is
checked against the registry and the zoo directly, without Sphinx.
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import pytest

import gpusim.algorithms  # noqa: F401  (the families register their algorithms)
from gpusim.explore.scenario import scenario_names
from gpusim.runtime.registry import algorithms, lookup
from gpusim.zoo import ZOO

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "docs" / "_ext"))
import kernel_pages  # noqa: E402  (docs/_ext is not a package)

#: Algorithms whose papers print no pseudo-code: b-Suitor is cited from Khan et al. 2016 (Manne et al., CSC 2016 §3).
NO_PSEUDOCODE_IN_THE_SEEDS = {("weighted", "bsuitor")}


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("docs")
    written = kernel_pages.write_pages(folder)
    return {path.relative_to(folder).with_suffix("").as_posix(): path.read_text() for path in written}


def test_every_algorithm_has_a_page_in_the_index(pages):
    entries = algorithms()
    assert len(entries) >= 19
    for entry in entries:
        assert kernel_pages.page_name(entry) in pages, entry.name
        assert re.search(rf"^   {entry.problem}-{re.escape(entry.name)}$", pages["kernels/index"], re.MULTILINE)
    assert ".. algorithm-index::" in pages["kernels/index"]


@pytest.mark.parametrize("entry", algorithms(), ids=lambda e: f"{e.problem}-{e.name}")
def test_the_page_shows_the_pseudocode_and_the_real_source(pages, entry):
    page = pages[kernel_pages.page_name(entry)]
    if entry.kernels:
        for compiled in entry.kernels:
            source = inspect.getsource(compiled.fn)
            assert f"def {compiled.name}(" in source
            for line in source.splitlines():  # every line of the kernel, indented into its code block
                assert line.strip() == "" or f"      {line}\n" in page, (compiled.name, line)
            for array, why in compiled.intended_races.items():
                assert f"``{array}``" in page and why in page, (compiled.name, array)
        for name, step in kernel_pages.steps_of(entry.kernels).items():
            assert f"``{name}``: ``" in page and inspect.getsource(step.fn).splitlines()[1] in page, name
    else:
        assert f"def {entry.run.__name__}(" in page
        for callee in kernel_pages.callees(entry.run):  # the function the registered one hands the work to
            assert f"def {callee.__name__}(" in page, callee.__name__
    if (entry.problem, entry.name) in NO_PSEUDOCODE_IN_THE_SEEDS or not entry.gpu:
        return
    text = entry.pseudocode
    # headed by the paper's short citation (the bibliography's) and the algorithm's number
    assert any(re.match(re.escape(ref.short) + r",[^:]*?Algorithm \d+[: ]", text, re.DOTALL)
               for ref in entry.references), text.splitlines()[0]
    for line in text.splitlines():
        assert line.strip() == "" or f"   {line}\n" in page, line


def test_every_seed_entry_of_the_zoo_is_on_its_algorithm_page_with_a_diff_and_the_command(pages):
    twins = kernel_pages.zoo_twins()
    shown = {twin.entry for found in twins.values() for twin in found}
    seeds = {name for name, entry in ZOO.items() if entry.source.startswith("seed")}
    assert seeds <= shown, sorted(seeds - shown)
    for (problem, name), found in twins.items():
        page = pages[kernel_pages.page_name(lookup(problem, name))]
        steps = kernel_pages.steps_of(lookup(problem, name).kernels)
        for twin in found:
            zoo = ZOO[twin.entry]
            assert f"$ gpusim explore {zoo.name}" in page and {zoo.name, f"{zoo.name}.fixed"} <= set(scenario_names())
            for step, replacement in twin.steps.items():
                assert step in steps, (twin.entry, step)  # the twin replaces a step the kernels really call
                diff = kernel_pages.twin_diff(steps[step], replacement)
                assert diff.startswith("--- ") and "\n-" in diff and "\n+" in diff
                assert diff.splitlines()[3] in page


def test_a_twin_diff_names_both_functions_and_changes_only_what_differs():
    from gpusim.algorithms.weighted.kernels_suitor import propose
    from gpusim.zoo.weighted_twins import propose_without_cas

    diff = kernel_pages.twin_diff(propose, propose_without_cas).splitlines()
    assert diff[0].startswith("--- gpusim.algorithms.weighted.kernels_suitor.propose")
    assert diff[1].startswith("+++ gpusim.zoo.weighted_twins.propose_without_cas")
    assert "-        held = T.atomic_load(ws, partner)" in diff
    assert " @device" in diff  # a line both share is context, not a change


def test_the_explore_command_names_the_explorer_that_finds_the_bug():
    assert kernel_pages.explore_command(ZOO["suitor_no_cas"]) == "gpusim explore suitor_no_cas"
    if "atomic_flip_no_fence" in ZOO:
        assert kernel_pages.explore_command(ZOO["atomic_flip_no_fence"]).endswith("--policy pct")


def test_a_sequential_algorithm_shows_the_function_its_registered_one_hands_the_work_to():
    from gpusim.algorithms.bipartite.reference_hk import hopcroft_karp

    entry = lookup("bipartite", "hk")
    assert kernel_pages.callees(entry.run) == [hopcroft_karp]
    assert "def hopcroft_karp(" in kernel_pages.page_text(entry, [])


@pytest.mark.parametrize("name", [("bipartite", "apfb"), ("bipartite", "gpr"), ("communities", "louvain")],
                         ids=lambda n: "-".join(n))
def test_pseudocode_line_numbers_link_to_the_kernels_that_cite_them(pages, name):
    entry = lookup(*name)
    page = pages[kernel_pages.page_name(entry)]
    targets = re.findall(r'class="pseudo-line" href="#([\w-]+)" title="implemented in (\w+)">(\d+)</a>', page)
    assert len(targets) >= 5, targets
    for target, step, _ in targets:
        assert f'<span id="{target}"></span>' in page and target == kernel_pages.anchor(entry, step)
        listed = {**{k.name: k for k in entry.kernels}, **kernel_pages.steps_of(entry.kernels)}
        fn = listed[step].fn
        assert re.search(r"Alg(orithm)?\.? ?\d+,? lines? \d+", inspect.getdoc(fn)), step  # the docstring cites it
