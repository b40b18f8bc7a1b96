"""The launch paths of each registered algorithm: the driver options under which it launches each kernel.

A hunt with the default options explores one path of the driver: APFB from the cheap start never launches
its repair steps, the one-block kernel or the warp BFS.  :data:`LAUNCH_PATHS` lists, per algorithm, option
sets that together launch every kernel it has on a small input (``tests/test_hunt_paths.py`` checks each
claim), so that :func:`~gpusim.explore.hunt.hunt` with ``paths=True`` (``gpusim explore --algorithm NAME
--all-paths``) visits every one, and the coverage note names the option that reaches a kernel never launched
(:func:`hint`).  A path may also widen what a kernel already launched does: a grid smaller than the work, so a
grid-stride loop turns more than once (its barrier at the loop's end then matters), or a capacity ``b = 2``, so
that a vertex has an offer out while it makes another (two threads then update its counter at once).  Louvain's
block-per-vertex and block-per-community kernels serve degrees above 84 and 127 on a GPU; its third path lowers
the bucket bounds (``degree_buckets``, ``community_buckets``) so that a small input's hub takes them.
:data:`NEEDS` says what no option on a small input reaches.

>>> hint("apfb", "augment_in_one_block")
'--option launches=one-block --start empty'
>>> hint("apfb", "fix_rows")
'--start empty'
>>> hint("louvain", "move_block_global")
'--option degree_buckets=1,2,3,4,4,6 --option community_buckets=3,6,12 --option max_grid=2'
"""

from __future__ import annotations

from typing import Any

__all__ = ["LAUNCH_PATHS", "NEEDS", "hint", "paths_of"]

_BFS = (
    ({}, ("cheap_claim", "init_bfs_array", "gpubfs_wr")),
    ({"initial": "empty"}, ("alternate", "fix_rows", "fix_columns")),
    ({"initial": "proposals"}, ("count_row_degrees", "propose_to_lightest_row", "accept_lowest_offer")),
    ({"initial": "empty", "bfs": "plain"}, ("gpubfs",)),
    ({"warp_degree": 1}, ("gpubfs_wr_warp",)),
    ({"direction": "bottom-up"}, ("gpubfs_wr_bottom_up",)),
    # the row side on the device (bottom-up levels scan it): the proposals read the rows' degrees from its pointers
    ({"direction": "bottom-up", "initial": "proposals"}, ("row_degrees",)),
    ({"direction": "auto"}, ("count_level",)),
    # the frontier listed, as on a GPU; warp degree 2 so that a small input has columns for the warp and hubs (degree
    # 4 and more) for the grid
    ({"frontier": "queue", "warp_degree": 2}, ("init_bfs_queue", "gpubfs_wr_queue", "expand_hubs")),
    # from the empty matching: on a small input the cheap start leaves the one block no augmenting path to alternate
    ({"launches": "one-block", "initial": "empty"}, ("augment_in_one_block",)),
)

#: Per algorithm: ``(driver options, kernels those options launch on a small input)``; the first is the default.
LAUNCH_PATHS: dict[str, tuple[tuple[dict[str, Any], tuple[str, ...]], ...]] = {
    "apfb": _BFS,
    "apsb": _BFS,
    "gpr": (
        ({}, ("cheap_claim", "count_tiles", "offset_tiles", "list_free_columns", "fix_columns")),
        ({"initial": "empty"}, ("init_relabel", "global_relabel_level", "init_active", "push_active")),
        ({"initial": "empty", "shrink_at": 1}, ("compact_active",)),
        ({"variant": "first"}, ("push_relabel_all",)),
        ({"initial": "proposals"}, ("row_degrees", "propose_to_lightest_row", "accept_lowest_offer")),
    ),
    "suitor": (
        ({}, ("gpu_suitor",)),
        ({"variant": "syncnolb"}, ()),
        ({"variant": "synclb"}, ()),
        ({"variant": "hybrid"}, ()),
        ({"layout": "thread"}, ("suitor_thread_per_vertex",)),
    ),
    "bsuitor": (
        ({}, ("b_suitor_round",)),
        ({"b": 2}, ()),  # a vertex with two offers out: one displaced while it makes the other
    ),
    "roma": (
        ({}, ("roma_block_phase",)),
        ({"max_grid": 1}, ("roma_block_phase",)),  # the grid-stride loop's later turns: a block takes every edge
        ({"variant": "thread"}, ("roma_thread_phase",)),
    ),
    "louvain": (
        ({}, ("move_by_shuffles", "merge_warp")),
        # the paper's tables, one block a launch: each subwarp group takes several vertices in turn (it clears its
        # table between them)
        ({"kernels": "paper", "max_grid": 1}, ("move_subwarp", "merge_warp")),
        ({"layout": "thread"}, ("move_thread",)),
        ({"max_grid": 1}, ("move_by_shuffles",)),
        # the wider groups of §4.1 from small degrees (a random input's hub, degree n - 1, gets a block), two blocks
        # a launch so that each takes several vertices or communities in turn, and both the chunks of one community
        ({"degree_buckets": "1,2,3,4,4,6", "community_buckets": "3,6,12", "max_grid": 2},
         ("move_block_shared", "move_block_global", "merge_block_shared", "merge_block_global", "merge_chunks")),
    ),
}

#: Kernels no option launches on a small input, and what does.
NEEDS = {
    "has_hub": "a GPU backend: warp_degree='auto' asks it there",
    "move_by_counts": "an unweighted input, every weight 1 (--example karate); the drawn inputs are weighted",
}


def paths_of(name: str) -> list[dict[str, Any]]:
    """The option sets of algorithm ``name``'s launch paths (``[{}]``: one path)."""
    return [dict(options) for options, _ in LAUNCH_PATHS.get(name, (({}, ()),))]


def _option_text(options: dict[str, Any]) -> str:
    return " ".join(f"--start {value}" if key == "initial" else f"--option {key}={value}"
                    for key, value in options.items())


def hint(name: str, kernel: str) -> str | None:
    """What launches ``kernel`` of algorithm ``name``: the command-line options of its path, or :data:`NEEDS`."""
    for options, reaches in LAUNCH_PATHS.get(name, ()):
        if kernel in reaches:
            return _option_text(options)
    return NEEDS.get(kernel)
