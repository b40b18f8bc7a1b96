"""The ``gpusim`` command line: one module per subcommand, :mod:`~gpusim.cli.app` ties them together.

Run as the ``gpusim`` command (no ``argv``), it ends silently with status 0 when its reader stops reading
(``gpusim algorithms | head -2``): what was asked for was read, and nothing went wrong on gpusim's side.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

from gpusim.cli.app import main as _main

__all__ = ["main"]


def _reader_left() -> None:
    """The output pipe closed: point stdout at the null device (so nothing flushes into the closed pipe) and
    leave with status 0."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.__stdout__.fileno())
    os._exit(0)


class _Output:
    """``sys.stdout`` that leaves quietly (:func:`_reader_left`) when the pipe it writes to closes."""

    def __init__(self, stream: Any):
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            _reader_left()
            raise

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            _reader_left()
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line (see :func:`gpusim.cli.app.main`); as the ``gpusim`` command (``argv`` None), a closed
    output pipe ends it silently with status 0."""
    if argv is not None or sys.stdout is not sys.__stdout__:
        return _main(argv)
    sys.stdout = _Output(sys.stdout)
    try:
        status = _main(argv)
        sys.stdout.flush()
        return status
    finally:
        sys.stdout = sys.__stdout__
