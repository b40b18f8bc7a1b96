"""The ``gpusim`` command line (also ``python -m gpusim``).

``gpusim match FILE`` computes a maximum bipartite matching of a Matrix Market file (rows one
side, columns the other) with one of the papers' algorithms, certifies it, and prints it as text
or ``--json``; ``--example NAME`` takes a bundled matrix instead of a file.
``gpusim demo`` finds a lost update in a racy counter on the simulator and shows the
interleaving, its replay token and (``--png``) a swimlane picture; ``gpusim demo --replay TOKEN``
replays it, and ``--html PAGE`` writes the run as a page to step through in a browser.
``gpusim bench sim`` measures the simulator against numba's CUDA simulator.
``gpusim algorithms`` lists the registered algorithms, their papers, backends and guarantees.
``gpusim exercise`` lists the exercises, shows one, or checks a learner's kernel against one.
``gpusim compile`` builds every algorithm's kernels ahead, into the GPU backends' disk caches.
Errors are one line on stderr, exit status 2 for bad usage and 1 for a failed run
(:mod:`gpusim.cli.common`); ``--debug`` shows the traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from gpusim import __version__
from gpusim.cli.algorithms import register_algorithms
from gpusim.cli.bench import register_bench
from gpusim.cli.common import Parser, common_options, run_checked
from gpusim.cli.compile_kernels import register_compile
from gpusim.cli.demo import register_demo
from gpusim.cli.exercise import register_exercise
from gpusim.cli.explore import register_explore
from gpusim.cli.louvain import register_louvain
from gpusim.cli.match import register_match
from gpusim.cli.mutate import register_mutate
from gpusim.cli.stable import register_stable

__all__ = ["main"]

#: The subcommands, in the order ``gpusim --help`` lists them: each module adds its own parser.
SUBCOMMANDS = (register_match, register_demo, register_bench, register_explore, register_stable, register_louvain,
               register_algorithms, register_exercise, register_compile, register_mutate)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 success, 1 a failed run, 2 bad usage).

    Every error is one line on stderr naming the offending value; ``--debug`` (or ``GPUSIM_DEBUG=1``)
    adds its traceback.
    """
    parser = _parser()
    options = parser.parse_args(argv)
    if not hasattr(options, "run"):
        parser.print_help(sys.stderr)
        return 2
    return run_checked(options)


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="gpusim", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"gpusim {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error (for a bug report)")
    commands = parser.add_subparsers(title="commands")
    common = common_options()
    for register in SUBCOMMANDS:
        register(commands, common)
    return parser


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
