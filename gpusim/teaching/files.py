"""Output files written whole or not at all, and their paths checked before the work.

A picture or page is written to a temporary file beside its target and renamed over it, so a reader
never sees half a file.  :func:`check_output_folder` refuses, before any work, a place where no file
can be made (a missing folder, a read-only one, ``/proc``): it makes and removes an empty probe file
there, which ``os.access`` alone cannot tell for a read-only mount or a pseudo file system (and
``os.access`` is always true for root).  :func:`write_whole` turns a failure after the work (a full
disk) into :class:`~gpusim.errors.OutputNotWritten` naming the path the user gave, with nothing left
behind.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> write_whole(os.path.join(folder, "a.txt"), lambda partial: open(partial, "w").write("hello"))
'...a.txt'
>>> sorted(os.listdir(folder))
['a.txt']
>>> write_whole("/proc/a.txt", lambda partial: open(partial, "w").write("hello"))
Traceback (most recent call last):
...
gpusim.errors.OutputNotWritten: cannot write '/proc/a.txt': No such file or directory
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpusim.errors import InvalidArgument, OutputNotWritten

__all__ = ["check_output_folder", "write_whole"]


def check_output_folder(path: str | os.PathLike, option: str) -> None:
    """Refuse (``InvalidArgument``, exit status 2 on the command line) a ``path`` no file can be written at.

    >>> check_output_folder("/proc/x.png", "--png")
    Traceback (most recent call last):
    ...
    gpusim.errors.InvalidArgument: --png '/proc/x.png': cannot write a file in '/proc' (...)
    """
    target = Path(path)
    folder = target.parent
    if not folder.is_dir():
        raise InvalidArgument(f"{option} {str(path)!r}: no folder {str(folder)!r} to write it in")
    if target.exists() and not os.access(target, os.W_OK):
        raise InvalidArgument(f"{option} {str(path)!r}: not allowed to write there")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=f".{target.name}.", suffix=".probe"):
            pass
    except OSError as error:
        raise InvalidArgument(f"{option} {str(path)!r}: cannot write a file in {str(folder)!r} "
                              f"({error.strerror or error})") from None


def write_whole(path: str | os.PathLike, write: Callable[[str], Any]) -> str:
    """Call ``write(partial)`` on a temporary file beside ``path``, then rename it to ``path``; return ``path``.

    Any ``OSError`` (a full disk, a folder that refuses files) becomes :class:`OutputNotWritten` naming
    ``path``, and the temporary file is removed whatever happens.
    """
    target = Path(path)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        write(str(partial))
        os.replace(partial, target)
    except OSError as error:
        raise OutputNotWritten(str(path), error.strerror or str(error)) from error
    finally:
        try:
            partial.unlink(missing_ok=True)
        except OSError:
            pass
    return str(path)
