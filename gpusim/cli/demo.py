"""``gpusim demo``: find, show and replay a lost update in a racy counter on the simulator.

It prints the interleaving of the two colliding threads and the run's replay token (``--png``: a swimlane
picture; ``--html``: a page to step through the run in a browser, :mod:`gpusim.teaching.trace_page`);
``gpusim demo --replay TOKEN`` replays that token exactly.
"""

from __future__ import annotations

import argparse

import numpy as np

from gpusim.cli.common import check_picture_option, emit, simulator_progress
from gpusim.errors import InvalidArgument

__all__ = ["register_demo"]


def register_demo(commands, common: argparse.ArgumentParser) -> None:
    """Add the ``demo`` subcommand to ``gpusim``'s subparsers (``common``: the shared options)."""
    demo = commands.add_parser("demo", parents=[common], help="find, show and replay a lost update on the simulator")
    demo.add_argument("--threads", type=int, default=64, help="threads incrementing the counter (default 64)")
    demo.add_argument("--block", type=int, default=32, help="threads per block (default 32)")
    demo.add_argument("--seed", type=int, default=None, help="first seed of the random schedules (default 0)")
    demo.add_argument("--policy", default=None, help="random (default), round_robin, pct or sequential")
    demo.add_argument("--replay", metavar="TOKEN", help="replay a token printed by an earlier demo")
    demo.add_argument("--png", metavar="FILE", help="also draw the interleaving as swimlanes (PNG, SVG or PDF)")
    demo.add_argument("--html", metavar="PAGE",
                      help="also write the run as one self-contained HTML page to step through in a browser")
    demo.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    demo.set_defaults(run=_demo)


def _demo(options: argparse.Namespace) -> int:
    from gpusim.teaching.demo import check_demo_sizes

    check_demo_sizes(options.threads, options.block)
    if options.replay and (options.seed is not None or options.policy is not None):
        given = "--seed" if options.seed is not None else "--policy"
        raise InvalidArgument(f"{given} conflicts with --replay: the token fixes the schedule")
    check_picture_option(options)
    if options.html:
        from gpusim.teaching.trace_page import check_page_path

        check_page_path(options.html)
    found = _replay_demo(options) if options.replay else _find_demo(options)
    found_counter, trace, token, seed, tried, collision = found
    options.record.update({
        "kernel": "racy_count", "backend": "sim", "threads": options.threads, "counter": found_counter,
        "lost_updates": options.threads - found_counter, "seed": seed, "schedules_tried": tried,
        "token": token, "collision": [event._asdict() for event in collision], "picture": None, "page": None,
    })
    if options.html:
        from gpusim.teaching.trace_page import write_trace_html

        options.record["page"] = write_trace_html(
            trace, options.html, highlight=collision, token=token,
            title=f"lost update: {options.threads} increments, counter = {found_counter}",
            message=f"{options.threads} threads each did counter[0] = counter[0] + 1; "
                    f"{options.threads - found_counter} update(s) lost")

    def show_text() -> None:
        print(f"racy counter: {options.threads} threads each did counter[0] = counter[0] + 1")
        print(f"counter = {found_counter}: {options.threads - found_counter} update(s) lost"
              + (f" (seed {seed}, after {tried} schedule(s))" if seed is not None else " (replayed)"))
        if collision:
            from gpusim.backends.sim import format_events

            first, second = collision[0], collision[1]
            print(f"\nthe collision: threads ({first.block},{first.thread}) and ({second.block},{second.thread}) "
                  f"both loaded {first.value} before either stored, so one increment overwrote the other:")
            print(format_events(collision, None))
        print(f"\nreplay it exactly:\n  gpusim demo --threads {options.threads} --block {options.block} "
              f"--replay {token}\n")
        if options.record["page"]:
            print(f"step through it in a browser: {options.record['page']}")

    def draw() -> str:
        from gpusim.teaching.plots import swimlanes

        return swimlanes(trace, options.png, highlight=collision,
                         title=f"lost update: {options.threads} increments, counter = {found_counter}")

    return emit(options, 0, show_text, draw if options.png else None)


def _find_demo(options: argparse.Namespace) -> tuple:
    from gpusim.teaching.demo import find_lost_update

    bar, on_launch = simulator_progress(options, "demo: schedules on the simulator")
    try:
        found = find_lost_update(options.threads, options.block, 0 if options.seed is None else options.seed,
                                 options.policy or "random", progress=on_launch)
    finally:
        bar.close()
    return found.counter, found.run.trace, found.token, found.seed, found.schedules_tried, found.collision


def _replay_demo(options: argparse.Namespace) -> tuple:
    from gpusim.runtime.device import Device
    from gpusim.teaching.demo import collision, racy_count

    dev = Device("sim", schedule=options.replay)
    counter = dev.zeros(1, np.int32)
    run = dev.launch(racy_count, grid=-(-options.threads // options.block), block=options.block,
                     args=(counter, options.threads))
    return int(dev.to_host(counter)[0]), run.trace, dev.token, None, 1, collision(run.trace)
