"""The source of a kernel or step, read once per file: what ``inspect.getsource`` gives, without its cost.

``inspect.getsourcelines`` tokenizes a function's block on every call; gpusim reads each kernel's source several
times (the subset check when it is defined, the names of its arrays, the simulator's and the lockstep warps'
rewrites, the fingerprint of its disk cache), and importing the algorithms defines about 170 kernels and steps.
Here each file is parsed once (for as long as its text is unchanged) into the spans of its ``def`` statements, and a
function's lines are cut from the file's lines by its span; whatever the file does not show (a function typed at
a prompt, a doctest's, a lambda) falls back to :mod:`inspect`, which raises ``OSError`` or ``TypeError`` as usual.

>>> from gpusim.language.sources import getsource
>>> def double(x):
...     return 2 * x
>>> print(getsource(double), end="")
def double(x):
    return 2 * x
"""

from __future__ import annotations

import ast
import functools
import inspect
import linecache
import types
from typing import Any

__all__ = ["getsource", "getsourcelines"]


@functools.lru_cache(maxsize=256)
def _spans(filename: str, text: str) -> dict[int, int]:
    """``{first line: last line}`` of every ``def`` of a file, its first line the first decorator's (as
    ``co_firstlineno`` has it)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    return {min([node.lineno, *(d.lineno for d in node.decorator_list)]): node.end_lineno
            for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}


def getsourcelines(obj: Any) -> tuple[list[str], int]:
    """``(lines, first line)`` of a function's (or code object's) source, as :func:`inspect.getsourcelines`."""
    target = inspect.unwrap(obj) if callable(obj) else obj
    code = getattr(target, "__code__", target)
    if isinstance(code, types.CodeType) and code.co_name != "<lambda>":
        lines = linecache.getlines(code.co_filename)
        if lines:
            last = _spans(code.co_filename, "".join(lines)).get(code.co_firstlineno)
            if last is not None:
                return lines[code.co_firstlineno - 1:last], code.co_firstlineno
    return inspect.getsourcelines(obj)


def getsource(obj: Any) -> str:
    """A function's (or code object's) source, as :func:`inspect.getsource`."""
    return "".join(getsourcelines(obj)[0])
