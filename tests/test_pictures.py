"""The pictures say what they show: every label legible, no key over an event, nothing hidden silently.

Found before: the demo picture drew 32 of its 64 threads without saying so and its labels overlapped;
tutorial 6's legend covered the bug event; a fence was labelled "warp collective"; the stable
marriage picture named rows and columns.  Each test draws the picture and measures it.
"""

from __future__ import annotations

import itertools

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from gpusim import Device, T, kernel  # noqa: E402
from gpusim.teaching import drawings  # noqa: E402
from gpusim.teaching.demo import find_lost_update  # noqa: E402
from gpusim.teaching.plots import bipartite_matching_picture, operation_kind, swimlanes_figure  # noqa: E402
from gpusim.types.graphs import BipartiteGraph  # noqa: E402


@kernel
def fenced_count(counter, flag):
    i = T.gtid()
    counter[i] = counter[i] + 1
    T.threadfence()
    T.atomic_exch(flag, 0, 1)


def fenced_trace():
    dev = Device("sim", policy="random", seed=1)
    run = dev.launch(fenced_count, grid=1, block=4, args=(dev.zeros(4, np.int32), dev.zeros(1, np.int32)))
    return run.trace


def legend_texts(figure) -> list[str]:
    return [text.get_text() for text in figure.axes[0].get_legend().get_texts()]


def extents(figure, artists):
    renderer = figure.canvas.get_renderer()
    return [a.get_window_extent(renderer) for a in artists if a.get_visible() and a.get_text()]


def test_a_fence_is_labelled_a_fence_not_a_warp_collective():
    assert operation_kind("threadfence") == "fence"
    assert operation_kind("shfl_down") == operation_kind("ballot") == "warp collective"
    figure = swimlanes_figure(fenced_trace())
    try:
        labels = legend_texts(figure)
        assert "fence" in labels
        assert "warp collective" not in labels  # this kernel has no shuffle, vote or syncwarp
        assert {"load", "store", "atomic"} <= set(labels)
    finally:
        plt.close(figure)


def test_the_key_lies_outside_the_lanes_and_covers_no_highlighted_event():
    found = find_lost_update(threads=64, block=32, seed=0)
    figure = swimlanes_figure(found.run.trace, highlight=found.collision)
    try:
        figure.canvas.draw()
        axes = figure.axes[0]
        box = axes.get_legend().get_window_extent()
        assert not box.overlaps(axes.get_window_extent())
        lanes = {(int(t.get_text().strip("()").split(",")[0]), int(t.get_text().strip("()").split(",")[1])): t
                 for t in axes.get_yticklabels()}
        for event in found.collision:
            row = sorted(lanes).index((event.block, event.thread))
            x, y = axes.transData.transform((event.step, row))
            assert not box.contains(x, y), event
        # every highlighted event is named in the key, with its value
        for event in found.collision:
            assert any(f"step {event.step}," in text and f"= {event.value}" in text for text in legend_texts(figure))
    finally:
        plt.close(figure)


def test_the_title_says_how_many_threads_are_not_drawn():
    found = find_lost_update(threads=64, block=32, seed=0)
    cut = swimlanes_figure(found.run.trace, highlight=found.collision)
    whole = swimlanes_figure(found.run.trace, highlight=found.collision, max_threads=64)
    try:
        highlighted = len({(e.block, e.thread) for e in found.collision})
        assert len(cut.axes[0].get_yticklabels()) == 32
        assert cut.axes[0].get_title().endswith(
            f"32 of 64 threads drawn (the {highlighted} highlighted, then the busiest); 32 not drawn")
        assert len(whole.axes[0].get_yticklabels()) == 64
        assert "not drawn" not in whole.axes[0].get_title()
    finally:
        plt.close(cut)
        plt.close(whole)


def test_no_two_labels_of_the_demo_picture_overlap():
    found = find_lost_update(threads=64, block=32, seed=0)
    figure = swimlanes_figure(found.run.trace, highlight=found.collision,
                              title=f"lost update: 64 increments, counter = {found.counter}")
    try:
        figure.canvas.draw()
        axes = figure.axes[0]
        texts = [axes.title, axes.xaxis.label, axes.yaxis.label, *axes.get_yticklabels(), *axes.get_xticklabels(),
                 *axes.get_legend().get_texts()]
        boxes = extents(figure, texts)
        assert len(boxes) > 40
        for a, b in itertools.combinations(boxes, 2):
            assert not a.overlaps(b), (a, b)
    finally:
        plt.close(figure)


@pytest.mark.parametrize("size", [3, 60])  # drawn as two columns of vertices; as a matrix pattern
def test_the_stable_marriage_picture_names_men_and_women(tmp_path, size):
    rng = np.random.default_rng(size)
    men, women = np.nonzero(rng.random((size, size)) < 0.5)
    graph = BipartiteGraph.from_edges(men, women, n_rows=size, n_cols=size)
    wife = np.full(size, -1)
    wife[men[0]] = women[0]
    path = tmp_path / "stable.svg"
    with plt.rc_context({"svg.fonttype": "none"}):  # keep the words as text in the SVG
        bipartite_matching_picture(graph, wife, str(path), sides=("man", "woman"))
    svg = path.read_text()
    assert ">men<" in svg and ">women<" in svg
    assert "row" not in svg and "column" not in svg


@pytest.mark.parametrize("name", sorted(drawings.DRAWINGS))
def test_every_algorithm_drawing_is_drawn_with_legible_labels(tmp_path, name):
    figure = drawings.DRAWINGS[name]()
    try:
        figure.canvas.draw()
        assert all(axes.texts for axes in figure.axes), f"{name}: a panel without labels"
        assert all(axes.get_title() for axes in figure.axes), f"{name}: a panel without a title"
        texts = [*figure.texts] + [t for axes in figure.axes for t in (axes.title, *axes.texts)]
        boxes = extents(figure, texts)
        for a, b in itertools.combinations(boxes, 2):  # labels, panel titles and the figure's title
            assert not a.overlaps(b), (name, a, b)
    finally:
        plt.close(figure)
    out = tmp_path / f"{name}.png"
    assert drawings.draw(name, str(out)) == str(out) and out.stat().st_size > 5000


def test_no_edge_is_drawn_through_a_vertex_it_does_not_join():
    """The karate graph's spring layout runs edge 24-27 through vertex 15; the pictures' layout does not."""
    import networkx as nx

    from gpusim.algorithms.louvain import karate
    from gpusim.teaching.layout import clear_layout, edge_crossings

    graph = karate().to_networkx()
    spring = nx.spring_layout(graph, seed=1)
    assert (15, (24, 27)) in edge_crossings(spring, graph.edges())
    cleared = clear_layout(spring, graph.edges())
    assert edge_crossings(cleared, graph.edges()) == []
    assert max(abs(cleared[v][k] - spring[v][k]) for v in graph for k in (0, 1)) < 0.5  # the picture is kept
