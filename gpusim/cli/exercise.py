"""``gpusim exercise``: list the exercises, show one, or check a kernel against one.

``gpusim exercise list`` lists them; ``gpusim exercise N`` prints exercise N's statement, hint and
stub (``--stub``: the stub alone, to save as a file); ``gpusim exercise N FILE.py`` checks the
kernel in FILE.py under many schedules with the race detector on (exit status 0 when it is correct,
1 when not); ``--replay TOKEN`` runs the one schedule a failed check printed, and ``--html PAGE``
writes that failure as a page to step through in a browser.
"""

from __future__ import annotations

import argparse

from gpusim.cli.common import emit
from gpusim.errors import InvalidArgument

__all__ = ["register_exercise"]


def register_exercise(commands, common: argparse.ArgumentParser) -> None:
    """Add the ``exercise`` subcommand to ``gpusim``'s subparsers (``common``: the shared options)."""
    parser = commands.add_parser("exercise", parents=[common],
                                 help="practise: list the exercises, show one, or check your kernel")
    parser.add_argument("number", metavar="N|list", help="an exercise number, or 'list'")
    parser.add_argument("file", nargs="?", metavar="FILE.py", help="your kernel, to check against exercise N")
    parser.add_argument("--stub", action="store_true", help="print exercise N's stub alone (to save as FILE.py)")
    parser.add_argument("--schedules", type=int, default=None,
                        help="schedules of each search (systematic, then random; default: the exercise's)")
    parser.add_argument("--seed", type=int, default=0, help="first seed of the random schedules (default 0)")
    parser.add_argument("--replay", metavar="TOKEN", help="replay the schedule of a token an earlier check printed")
    parser.add_argument("--html", metavar="PAGE", help="write the failing run as an interactive HTML page")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.set_defaults(run=_exercise)


def _exercise(options: argparse.Namespace) -> int:
    from gpusim.exercises import get_exercise, list_exercises, show

    if options.number == "list":
        if options.file is not None:
            raise InvalidArgument(f"'gpusim exercise list' takes no file, got {options.file!r}")
        exercises = list_exercises()
        options.record["exercises"] = [{"number": ex.number, "slug": ex.slug, "title": ex.title} for ex in exercises]
        return emit(options, 0, lambda: print("\n".join(f"{ex.number:>3}  {ex.title}" for ex in exercises)))
    try:
        number = int(options.number)
    except ValueError:
        raise InvalidArgument(f"N={options.number!r} is neither an exercise number nor 'list'") from None
    exercise = get_exercise(number)
    if options.file is None:
        for given in ("replay", "html", "schedules"):
            if getattr(options, given) is not None:
                raise InvalidArgument(f"--{given} needs a FILE.py to check")
        options.record.update({"number": exercise.number, "title": exercise.title, "statement": exercise.statement,
                               "hint": exercise.hint, "stub": exercise.stub()})
        return emit(options, 0, lambda: print(exercise.stub() if options.stub else show(number), end=""))
    if options.stub:
        raise InvalidArgument(f"--stub prints exercise {number}'s stub; it takes no FILE.py (got {options.file!r})")
    return _check(options, number)


def _check(options: argparse.Namespace, number: int) -> int:
    from gpusim.exercises import check

    if options.schedules is not None and options.schedules < 1:
        raise InvalidArgument(f"--schedules must be at least 1, got {options.schedules}")
    if options.html:
        from gpusim.teaching.trace_page import check_page_path

        check_page_path(options.html)
    verdict = check(number, options.file, schedules=options.schedules, seed=options.seed, replay=options.replay)
    options.record.update(verdict.to_dict())
    status = 0 if verdict.passed else 1

    def draw() -> str:
        from gpusim.teaching.trace_page import write_trace_html

        return write_trace_html(verdict, options.html, title=f"exercise {number}: {verdict.status}")

    def show_text() -> None:
        print(verdict.report(options.file))
        if options.html and not verdict.trace:
            print(f"no failing run to show: {options.html} not written")

    return emit(options, status, show_text, draw if options.html and verdict.trace else None)
