"""What every ``gpusim`` subcommand shares: one-line errors and exit statuses, input and output checks, progress.

Exit status 0 is success, 1 a run that failed (a kernel bug found, a result not certified, a picture not
written), 2 bad usage (a bad value, a missing file, conflicting options).  Every error is one line on
stderr naming the offending value, never a traceback; ``--debug`` (or ``GPUSIM_DEBUG=1``) adds the
traceback for bug reports.  With ``--json`` the output is one JSON document even when a step fails: the
result so far (``options.record``) with an ``"error"`` field.

>>> classify(InvalidArgument("b=-3 must be non-negative"))
(2, 'b=-3 must be non-negative')
>>> classify(FileNotFoundError(2, "No such file or directory", "nosuch.mtx"))
(2, "cannot read 'nosuch.mtx': No such file or directory")
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from gpusim.errors import BackendUnavailable, GpusimInternalError, InvalidArgument, KernelBug, OutputNotWritten

__all__ = ["AlgorithmOption", "Parser", "add_max_memory", "algorithm_names", "check_algorithm",
           "check_header_memory", "check_picture_option", "classify", "common_options", "emit", "example_or_file",
           "memory_size", "progress_disabled", "progress_wanted", "report_failure", "run_checked", "simulator_progress",
           "write_json", "write_stdout"]

USAGE, FAILED = 2, 1


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line (``gpusim match: error: ...``), exit status 2."""

    def error(self, message: str):
        one_line = " ".join(message.split())
        self.exit(USAGE, f"{self.prog}: error: {one_line} (see '{self.prog} --help')\n")


def common_options() -> argparse.ArgumentParser:
    """The options every subcommand takes: ``--debug``, ``--quiet``, ``--progress``."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show the traceback of an error (for a bug report); also GPUSIM_DEBUG=1")
    common.add_argument("--quiet", "--no-progress", dest="quiet", action="store_true", default=False,
                        help="no progress bar")
    common.add_argument("--progress", action="store_true", default=False,
                        help="a progress bar even when stderr is not a terminal")
    return common


def algorithm_names(*problems: str) -> tuple[str, ...]:
    """The registry's algorithms of ``problems``, in the order they registered (every family imported first).

    >>> algorithm_names("stable")
    ('gs', 'mw', 'gs-rounds', 'mw-gpu')
    """
    import gpusim.algorithms  # noqa: F401  (the families register their algorithms)
    from gpusim.runtime.registry import names

    return tuple(name for problem in problems for name in names(problem))


def check_algorithm(name: str, *problems: str) -> None:
    """Refuse an ``--algorithm`` the registry does not hold for ``problems``, listing those it does."""
    choices = algorithm_names(*problems)
    if name not in choices:
        raise InvalidArgument(f"--algorithm {name!r} is not one of {', '.join(choices)}")


class AlgorithmOption(argparse.Action):
    """``--algorithm``: its help lists the registry's algorithms of ``problems`` (each with its ``label``),
    GPU ones first.  The list is read when the help is shown, so building the parser imports no algorithm.

    >>> parser = argparse.ArgumentParser(prog="p")
    >>> _ = parser.add_argument("--algorithm", action=AlgorithmOption, problems={"stable": ""}, default="mw-gpu")
    >>> "gs-rounds, mw-gpu (GPU), gs, mw (cpu); default mw-gpu" in " ".join(parser.format_help().split())
    True
    """

    def __init__(self, option_strings, dest, problems: dict[str, str], **options) -> None:
        super().__init__(option_strings, dest, **options)
        self.problems = problems

    @property
    def help(self) -> str:
        """``label: GPU algorithms (GPU), sequential ones (cpu)`` for each problem, then the default."""
        import gpusim.algorithms  # noqa: F401
        from gpusim.runtime.registry import algorithms

        parts = []
        for problem, label in self.problems.items():
            gpu = [entry.name for entry in algorithms(problem) if entry.gpu]
            cpu = [entry.name for entry in algorithms(problem) if not entry.gpu]
            listed = ", ".join(filter(None, (", ".join(gpu) + " (GPU)" if gpu else "",
                                              ", ".join(cpu) + " (cpu)" if cpu else "")))
            parts.append(f"{label}: {listed}" if label else listed)
        return "; ".join(parts) + f"; default {self.default}"

    @help.setter
    def help(self, _given: str | None) -> None:
        """The help is made from the registry; ``argparse`` sets ``None`` here."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, values)


def progress_disabled(options: argparse.Namespace) -> bool | None:
    """tqdm's ``disable``: off with ``--quiet``, forced on with ``--progress``, else on when stderr is a terminal."""
    if getattr(options, "quiet", False):
        return True
    return False if getattr(options, "progress", False) else None


def simulator_progress(options: argparse.Namespace, description: str):
    """A progress bar of simulator launches: scheduling points (their rate per second) and kernels done.

    Returns ``(bar, on_launch)``; pass ``on_launch`` as ``Device("sim", progress=on_launch)``.
    """
    from tqdm import tqdm

    bar = tqdm(desc=description, unit="point", unit_scale=True, disable=progress_disabled(options), leave=False)
    kernels = 0

    def on_launch(points: int, launch_finished: bool) -> None:
        nonlocal kernels
        if launch_finished:
            kernels += 1
            bar.set_postfix(kernels=kernels, refresh=False)
        bar.update(points)

    return bar, on_launch


def input_file(path: str) -> str:
    """``path`` if it names a readable, non-empty file; else a usage error naming it."""
    target = Path(path)
    if not target.exists():
        raise InvalidArgument(f"no such file: {path!r}")
    if target.is_dir():
        raise InvalidArgument(f"{path!r} is a folder, not a file")
    if not os.access(target, os.R_OK):
        raise InvalidArgument(f"cannot read {path!r}: permission denied")
    if target.stat().st_size == 0:
        raise InvalidArgument(f"{path!r} is empty")
    return path


def example_or_file(options: argparse.Namespace, suffix: str) -> str:
    """The input of ``FILE`` or ``--example NAME`` (exactly one), checked; the examples: bundled ``*suffix`` files."""
    from gpusim.types.graphs import example_path

    names = sorted(path.stem for path in example_path("karate").parent.glob(f"*{suffix}"))
    if options.file is not None and options.example is not None:
        raise InvalidArgument(f"give a FILE or --example NAME, not both ({options.file!r} and {options.example!r})")
    if options.file is None and options.example is None:
        raise InvalidArgument(f"give either a FILE or --example NAME (one of {', '.join(names)})")
    if options.file is not None:
        return input_file(options.file)
    name = options.example.removesuffix(suffix)
    if name not in names:
        raise InvalidArgument(f"--example: no bundled example named {options.example!r} for this subcommand; "
                              f"its examples are {', '.join(names)}")
    return str(example_path(name + suffix))


def classify(error: BaseException) -> tuple[int, str]:
    """The exit status and one-line message for ``error``."""
    if isinstance(error, KeyboardInterrupt):
        return 130, "interrupted"
    if isinstance(error, InvalidArgument):
        status, message = USAGE, str(error)
    elif isinstance(error, (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError)):
        status, message = USAGE, f"cannot read {error.filename!r}: {error.strerror}"
    elif isinstance(error, UnicodeDecodeError):
        status, message = USAGE, f"the input is not text: {error.reason} at byte {error.start}"
    elif isinstance(error, OutputNotWritten):  # after the work: the run succeeded, its output did not land
        status, message = FAILED, str(error)
    elif isinstance(error, KernelBug):   # a finding, not a mistake: its trace and replay token in full
        return FAILED, str(error).strip()
    elif isinstance(error, BackendUnavailable):
        status, message = FAILED, str(error)
    elif isinstance(error, MemoryError):
        status, message = FAILED, f"out of memory{': ' + str(error) if str(error) else ''}"
    elif isinstance(error, OSError):
        status, message = FAILED, f"{error.strerror or error} ({error.filename!r})" if error.filename else str(error)
    else:
        kind = "internal error" if isinstance(error, GpusimInternalError) else type(error).__name__
        return FAILED, (f"{kind}: {_one_line(str(error))} — this is a gpusim bug; rerun with --debug "
                        "(or GPUSIM_DEBUG=1) for the traceback and report it")
    return status, _one_line(message)


def _one_line(message: str) -> str:
    """The first line of ``message``, saying how many more there are (``--debug`` shows them)."""
    lines = [line for line in message.strip().splitlines() if line.strip()] or ["(no message)"]
    more = len(lines) - 1
    return lines[0] + (f" [{more} more line(s) with --debug]" if more else "")


def report_failure(options: argparse.Namespace, error: BaseException, debug: bool) -> int:
    """Print ``error`` as one line on stderr (and in the ``--json`` document); return the exit status."""
    status, message = classify(error)
    source = getattr(options, "file", None)
    if isinstance(error, UnicodeDecodeError) and source:
        message = f"{source!r}: {message}"
    if debug:
        traceback.print_exception(error, file=sys.stderr)
    stdout_lost = isinstance(error, OutputNotWritten) and error.path == "<stdout>"
    if getattr(options, "json", False) and not stdout_lost:
        record: dict[str, Any] = getattr(options, "record", {})
        try:
            write_json({**record, "error": message, "exit_status": status})
        except OutputNotWritten as lost:
            message = f"{message}; {lost}"
    print(f"gpusim: error: {message}", file=sys.stderr)
    return status


def write_stdout(text: str) -> None:
    """Print ``text`` and flush; a standard output that refuses it (a full disk, ``> /dev/full``) raises
    :class:`~gpusim.errors.OutputNotWritten`, and later writes to it are discarded, so the interpreter's
    own flush at exit finds nothing left to fail on."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader left (``| head``): not a failed write, the caller decides
        raise
    except OSError as error:
        _discard_stdout()
        raise OutputNotWritten("<stdout>", error.strerror or str(error)) from error


def _discard_stdout() -> None:
    """Point standard output at ``os.devnull`` (what is buffered is dropped)."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):  # no file descriptor (a test's StringIO): nothing to protect
        pass


def write_json(document: Any) -> None:
    """One JSON document and a newline on standard output, NumPy arrays written in pieces (a result of 10^8
    vertices is never a list of 10^8 Python objects); :func:`write_stdout`'s errors."""
    import numpy as np

    for piece in _json_pieces(document, np):
        write_stdout(piece)
    write_stdout("\n")


def _json_pieces(value: Any, np) -> Any:
    """The JSON text of ``value`` in pieces; arrays (and ``range``) 2^16 items at a time."""
    if isinstance(value, dict):
        yield "{"
        for index, (key, item) in enumerate(value.items()):
            yield ("" if index == 0 else ", ") + json.dumps(str(key)) + ": "
            yield from _json_pieces(item, np)
        yield "}"
    elif isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.kind in "iu":
        yield "["
        for start in range(0, value.size, 1 << 16):
            yield ("" if start == 0 else ", ") + ", ".join(map(str, value[start:start + (1 << 16)].tolist()))
        yield "]"
    else:
        yield json.dumps(value.tolist() if isinstance(value, np.ndarray) else value, default=str)


def run_checked(options: argparse.Namespace) -> int:
    """Run the chosen subcommand; a failure becomes one line and an exit status."""
    debug = getattr(options, "debug", False) or os.environ.get("GPUSIM_DEBUG", "") not in ("", "0")
    options.record = {}
    if getattr(options, "backend", None) in ("numba", "cupy") and getattr(options, "devices", None) is None:
        from gpusim.backends import start_driver_early

        start_driver_early()
    try:
        return options.run(options)
    except (Exception, KeyboardInterrupt) as error:
        return report_failure(options, error, debug)


def emit(options: argparse.Namespace, status: int, show_text, draw=None) -> int:
    """Hand the result over, never losing it: text first, then the picture (``draw()`` returns its path);
    with ``--json``, one document of ``options.record`` once the picture is drawn (a failure there still
    prints the record, with an ``"error"`` field, from :func:`report_failure`)."""
    if options.json:
        if draw is not None:
            options.record["picture"] = draw()
        write_json(options.record)
        return status
    try:
        show_text()
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        _discard_stdout()
        raise OutputNotWritten("<stdout>", error.strerror or str(error)) from error
    if draw is not None:
        write_stdout(f"drawn to {draw()}\n")
    return status


def check_picture_option(options: argparse.Namespace) -> None:
    """Refuse an unwritable ``--png`` path before any work starts."""
    if getattr(options, "png", None):
        from gpusim.teaching.plots import check_picture_path

        check_picture_path(options.png)


def progress_wanted(options: argparse.Namespace) -> bool:
    """For a ``progress=True/False`` parameter: :func:`progress_disabled`, with the terminal test done here."""
    disabled = progress_disabled(options)
    return disabled is False or (disabled is None and sys.stderr.isatty())


_MEMORY_UNITS = {"": 1, "B": 1, "K": 2**10, "KB": 2**10, "KIB": 2**10, "M": 2**20, "MB": 2**20, "MIB": 2**20,
                 "G": 2**30, "GB": 2**30, "GIB": 2**30, "T": 2**40, "TB": 2**40, "TIB": 2**40}


def add_max_memory(parser: argparse.ArgumentParser) -> None:
    """``--max-memory SIZE``: the limit on the arrays a run allocates, judged from the input's header."""
    parser.add_argument("--max-memory", metavar="SIZE", type=memory_size, default=None,
                        help="refuse, before reading the input's body, a run whose arrays (graph, per-vertex state, "
                             "dense matrices, partners tables) need more than SIZE bytes (suffixes K, M, G, T; "
                             "default half the memory this process may use: cgroup limit, RLIMIT_AS, MemAvailable)")


def check_header_memory(options: argparse.Namespace, source: str, command: str, algorithm: str,
                        b: int | None = None) -> None:
    """Judge a Matrix Market ``source`` by its header: refuse (usage error naming the declared size and the
    limit) a run whose arrays exceed ``--max-memory``, before the body is read."""
    from gpusim.types.memory import check_run_memory, matrix_market_header

    check_run_memory(source, matrix_market_header(source), command, algorithm, options.max_memory, b)


def memory_size(text: str) -> int:
    """A byte count from ``--max-memory``: a number with an optional binary suffix (``512M``, ``4GiB``).

    >>> memory_size("4GiB"), memory_size("1.5k"), memory_size("1000")
    (4294967296, 1536, 1000)
    """
    number = text.strip().rstrip("bBiIkKmMgGtT ")
    unit = text.strip()[len(number):].strip().upper()
    try:
        value = float(number)
    except ValueError:
        value = float("nan")
    if unit not in _MEMORY_UNITS or not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a memory size (bytes, or a number with K, M, G or T)")
    return int(value * _MEMORY_UNITS[unit])

