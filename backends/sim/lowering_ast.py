"""The syntax helpers of the lowering (:mod:`.lowering`): parsing a kernel's source, small statements, and
rewriting a ``@device`` function's ``return`` statements so that its body can be inlined.

>>> import ast
>>> print(ast.unparse(bounds_check("i", "a")))
if i < 0 or i >= a.shape[0]:
    yield FAIL
"""

from __future__ import annotations

import ast
import copy
import textwrap

from gpusim.errors import InvalidArgument
from gpusim.language.sources import getsource

__all__ = ["Unsupported", "assign_name", "bounds_check", "file_line", "has_return", "is_t_call", "parse_function",
           "parse_stmt", "truth", "without_docstring", "without_returns"]


class Unsupported(InvalidArgument):
    """The kernel uses something the compiled engine does not lower (the message says what)."""


def file_line(fn, node) -> str:
    code = fn.__code__
    return f"{code.co_filename.rsplit('/', 1)[-1]}:{code.co_firstlineno + getattr(node, 'lineno', 1) - 1}"


def parse_function(fn) -> ast.FunctionDef:
    source = textwrap.dedent(getsource(fn))
    func = ast.parse(source).body[0]
    if not isinstance(func, ast.FunctionDef):
        raise Unsupported(f"{fn.__qualname__} is not defined by a def statement")
    return func


def parse_stmt(text: str) -> ast.stmt:
    return ast.parse(text).body[0]


def assign_name(name: str, value: ast.expr) -> ast.Assign:
    return ast.Assign([ast.Name(name, ast.Store())], value)


def truth(value: ast.expr) -> ast.expr:
    return ast.Call(ast.Name("bool", ast.Load()), [value], [])


def bounds_check(slot: str, array: str) -> ast.stmt:
    """Out of bounds: the reference simulator checks before the scheduling point, so does this."""
    return parse_stmt(f"if {slot} < 0 or {slot} >= {array}.shape[0]:\n    yield FAIL")


def is_t_call(node: ast.expr, names: tuple[str, ...]) -> bool:
    func = getattr(node, "func", None)
    return (isinstance(node, ast.Call) and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.value.id == "T" and func.attr in names)


def without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[1:]
    return body


def has_return(node: ast.AST) -> bool:
    return any(isinstance(child, ast.Return) for child in ast.walk(node))


def without_returns(statements: list[ast.stmt], result: str, done: str, in_loop: bool) -> list[ast.stmt]:
    """Rewrite a device function's ``return`` into ``result = value; done = True`` (+ ``break`` in a loop),
    guarding what follows with ``if not done``, so the body can be inlined."""
    out: list[ast.stmt] = []
    for position, statement in enumerate(statements):
        if isinstance(statement, ast.Return):
            if statement.value is not None:
                out.append(assign_name(result, statement.value))
            out.append(assign_name(done, ast.Constant(True)))
            if in_loop:
                out.append(ast.Break())
            return out
        if not has_return(statement):
            out.append(statement)
            continue
        statement = copy.deepcopy(statement)
        if isinstance(statement, ast.If):
            statement.body = without_returns(statement.body, result, done, in_loop) or [ast.Pass()]
            statement.orelse = without_returns(statement.orelse, result, done, in_loop)
            out.append(statement)
        else:  # a loop
            statement.body = without_returns(statement.body, result, done, in_loop=True)
            out.append(statement)
            if in_loop:
                out.append(ast.If(ast.Name(done, ast.Load()), [ast.Break()], []))
        rest = without_returns(statements[position + 1:], result, done, in_loop)
        if rest:
            out.append(ast.If(ast.UnaryOp(ast.Not(), ast.Name(done, ast.Load())), rest, []))
        return out
    return out
