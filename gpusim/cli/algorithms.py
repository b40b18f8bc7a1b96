"""``gpusim algorithms``: the registry's algorithms — problem, name, title, paper, backends, guarantees.

Each paper is cited in full from the bibliography (:mod:`gpusim.runtime.references`): authors, title, venue,
year and a DOI or URL.

Every algorithm registers itself where it is defined (:mod:`gpusim.runtime.registry`); this lists them,
all or one problem's (``--problem bipartite``), as text or ``--json``.  "cpu runs" is what
``backend="cpu"`` runs: the algorithm itself (a sequential reference, or a GPU algorithm with a cpu
path of its own) or its sequential counterpart.
"""

from __future__ import annotations

import argparse
import textwrap

from gpusim.cli.common import emit
from gpusim.errors import InvalidArgument

__all__ = ["register_algorithms"]


def register_algorithms(commands, common: argparse.ArgumentParser) -> None:
    """Add the ``algorithms`` subcommand to ``gpusim``'s subparsers (``common``: the shared options)."""
    listing = commands.add_parser("algorithms", parents=[common],
                                  help="list the algorithms: problem, paper, backends, guarantees")
    listing.add_argument("--problem", metavar="P",
                         help="only the algorithms of problem P (default: every problem's)")
    listing.add_argument("--json", action="store_true", help="print one JSON object")
    listing.set_defaults(run=_algorithms)


def _row(entry) -> dict:
    """One algorithm as the JSON row (and the text block) shows it."""
    return {"problem": entry.problem, "name": entry.name, "title": entry.title, "paper": entry.citation,
            "references": [{"key": ref.key, "citation": ref.full, "link": ref.link} for ref in entry.references],
            "backends": list(entry.backends), "gpu": entry.gpu, "guarantees": entry.guarantees,
            "on_cpu": entry.name if "cpu" in entry.backends else entry.on_cpu,
            "kernels": [kernel.name for kernel in entry.kernels]}


def _algorithms(options: argparse.Namespace) -> int:
    import gpusim.algorithms  # noqa: F401  (the families register their algorithms)
    from gpusim.runtime.registry import algorithms, problems

    if options.problem is not None and options.problem not in problems():
        raise InvalidArgument(f"--problem {options.problem!r} is not one of {', '.join(problems())}")
    rows = [_row(entry) for entry in algorithms(options.problem)]
    options.record.update({"problems": sorted({row["problem"] for row in rows}, key=problems().index),
                           "algorithms": rows})

    def show_text() -> None:
        width = max(len(row["name"]) for row in rows) + 2
        for problem in options.record["problems"]:
            print(problem)
            for row in (row for row in rows if row["problem"] == problem):
                on_cpu = "itself" if row["on_cpu"] == row["name"] else row["on_cpu"]
                lines = [row["title"], f"paper: {row['paper']}",
                         *(f"  {ref['citation']}" for ref in row["references"]),
                         f"backends: {', '.join(row['backends'])}; cpu runs {on_cpu}",
                         f"guarantees: {row['guarantees'] or '-'}"]
                for number, line in enumerate(lines):
                    wrapped = textwrap.wrap(line, 100 - width, subsequent_indent="  ")
                    for part, text in enumerate(wrapped):
                        lead = row["name"] if number == part == 0 else ""
                        print(f"  {lead:<{width}}{text}")

    return emit(options, 0, show_text)
