"""The portable-subset checker: refuse, before any backend sees it, what one of them cannot compile.

The rules are the common subset of ``numba.cuda.jit`` and ``cupyx.jit.rawkernel`` (see
DESIGN.md): 1-D arrays indexed by one non-negative integer, ``if``/``while``/``for … in
range``/``break``/``continue``/early ``return``, calls only to ``T`` members, ``range``, ``min``,
``max`` and ``@device`` functions, and at most one ``shared_array`` per line.  Each violation is
reported as ``file:line: rule``.

Example
-------
>>> from gpusim.language.subset import violations
>>> def bad(a, n):
...     for i in [1, 2]:
...         a[i] = 0 < n < 3
>>> [rule for _, _, rule in violations(bad)]  # doctest: +NORMALIZE_WHITESPACE
['for loops must iterate over range(...)', 'list literals are not portable',
 'chained comparisons (a < b < c) are not portable; write (a < b) and (b < c)']
"""

from __future__ import annotations

import ast
import re
import textwrap
import types

from gpusim.errors import InvalidArgument, KernelSyntaxError
from gpusim.language import MEMBERS
from gpusim.language.sources import getsource

__all__ = ["check_function", "source_available", "violations"]

_ALLOWED_BUILTINS = {"range", "min", "max"}
_FORBIDDEN_NODES: dict[type, str] = {
    ast.Try: "try/except is not portable",
    ast.With: "with is not portable",
    ast.Raise: "raise is not portable; report errors through a flag array",
    ast.Assert: "assert is not portable",
    ast.Delete: "del is not portable",
    ast.Global: "global is not portable",
    ast.Nonlocal: "nonlocal is not portable",
    ast.Lambda: "lambdas are not portable",
    ast.FunctionDef: "nested functions are not portable; use a module-level @device function",
    ast.AsyncFunctionDef: "nested functions are not portable",
    ast.ClassDef: "classes are not portable",
    ast.Import: "imports inside kernels are not portable",
    ast.ImportFrom: "imports inside kernels are not portable",
    ast.Yield: "generators are not portable",
    ast.YieldFrom: "generators are not portable",
    ast.Await: "async is not portable",
    ast.ListComp: "comprehensions are not portable",
    ast.SetComp: "comprehensions are not portable",
    ast.DictComp: "comprehensions are not portable",
    ast.GeneratorExp: "generator expressions are not portable",
    ast.List: "list literals are not portable",
    ast.Dict: "dict literals are not portable",
    ast.Set: "set literals are not portable",
    ast.Tuple: "tuples are not portable; pack two values into one 64-bit word",
    ast.JoinedStr: "strings are not portable",
    ast.Starred: "starred arguments are not portable",
    ast.NamedExpr: "the walrus operator is not portable",
    ast.Slice: "slices are not portable; index one element at a time",
}


def source_available(fn: types.FunctionType) -> bool:
    """Whether ``fn``'s source can be read (not for code typed at a plain ``python`` prompt)."""
    try:
        getsource(fn)
    except (OSError, TypeError):
        return False
    return True


def violations(fn: types.FunctionType, *, is_kernel: bool = True) -> list[tuple[str, int, str]]:
    """Return ``(filename, line, rule)`` for every construct of ``fn`` outside the portable subset."""
    try:
        source = textwrap.dedent(getsource(fn))
    except (OSError, TypeError) as exc:
        raise InvalidArgument(
            f"cannot read the source of {fn.__qualname__!r} ({exc}); kernels must live in a file"
        ) from None
    tree = ast.parse(source)
    func = tree.body[0]
    if not isinstance(func, ast.FunctionDef):
        raise InvalidArgument(f"{fn.__qualname__!r} is not defined by a def statement")
    checker = _Checker(fn, is_kernel, offset=fn.__code__.co_firstlineno - func.lineno)
    checker.check_signature(func)
    body = func.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]  # the docstring
    for statement in body:
        checker.visit(statement)
    return checker.found


def check_function(fn: types.FunctionType, *, is_kernel: bool = True) -> None:
    """Raise :class:`~gpusim.errors.KernelSyntaxError` listing every violation in ``fn``."""
    found = violations(fn, is_kernel=is_kernel)
    if found:
        lines = "\n".join(f"  {file}:{line}: {rule}" for file, line, rule in found)
        kind = "kernel" if is_kernel else "device function"
        raise KernelSyntaxError(
            f"{kind} {fn.__qualname__!r} uses constructs outside the portable subset of T:\n{lines}", found
        )


class _Checker(ast.NodeVisitor):
    def __init__(self, fn: types.FunctionType, is_kernel: bool, offset: int):
        self.fn = fn
        self.is_kernel = is_kernel
        self.offset = offset
        self.found: list[tuple[str, int, str]] = []
        self.shared_lines: set[int] = set()

    def report(self, node: ast.AST, rule: str) -> None:
        line = getattr(node, "lineno", 0) + self.offset
        self.found.append((self.fn.__code__.co_filename, line, rule))

    def check_signature(self, func: ast.FunctionDef) -> None:
        args = func.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            self.report(func, "only plain positional parameters are portable")
        if args.defaults:
            self.report(func, "default parameter values are not portable")
        if func.decorator_list and len(func.decorator_list) > 1:
            self.report(func, "a kernel takes exactly one decorator (@kernel or @device)")

    def generic_visit(self, node: ast.AST) -> None:
        rule = _FORBIDDEN_NODES.get(type(node))
        if rule is not None:
            self.report(node, rule)
            return
        super().generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if not isinstance(node.value, (int, float, bool)):
            self.report(node, f"constant {node.value!r} is not portable: only numbers and True/False")

    def visit_Compare(self, node: ast.Compare) -> None:
        if len(node.ops) > 1:
            self.report(node, "chained comparisons (a < b < c) are not portable; write (a < b) and (b < c)")
        for op in node.ops:
            if isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
                self.report(node, f"the operator {type(op).__name__} is not portable")
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        if node.orelse:
            self.report(node, "for-else is not portable")
        call = node.iter
        is_range = (
            isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "range"
        )
        if not is_range:
            self.report(node, "for loops must iterate over range(...)")
        if not isinstance(node.target, ast.Name):
            self.report(node, "a for loop's target must be one name")
        self.generic_visit(node)

    def visit_While(self, node: ast.While) -> None:
        if node.orelse:
            self.report(node, "while-else is not portable")
        self.generic_visit(node)

    def visit_Return(self, node: ast.Return) -> None:
        if self.is_kernel and node.value is not None:
            self.report(node, "kernels return nothing; write results to an array")
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        index = node.slice
        if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
            self.report(node, "negative indices are not portable (numba wraps, cupyx reads out of bounds)")
        elif isinstance(index, ast.Constant) and isinstance(index.value, int) and index.value < 0:
            self.report(node, "negative indices are not portable (numba wraps, cupyx reads out of bounds)")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if not (isinstance(node.value, ast.Name) and node.value.id == "T"):
            self.report(node, f"attribute access .{node.attr} is not portable: only T.<member>")
        elif node.attr not in MEMBERS:
            self.report(node, f"T has no member {node.attr!r}")
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id == "T" and isinstance(node.ctx, ast.Store):
            self.report(node, "T must not be assigned")
        elif node.id == "print":
            self.report(node, "print is not portable")
        elif _CUPYX_TEMPLATE_NAME.search(node.id) and isinstance(node.ctx, ast.Store):
            self.report(node, f"the name {node.id!r} is not portable: cupyx writes an operator as a template "
                              "('in0 > in1') and fills it by text replacement, so a name holding 'in' and a "
                              "digit (gain1, min2) is corrupted; rename it")

    def visit_Call(self, node: ast.Call) -> None:
        if node.keywords:
            self.report(node, "keyword arguments are not portable")
        callee = node.func
        if isinstance(callee, ast.Name):
            if callee.id == self.fn.__name__:
                self.report(node, "recursion is not portable")
            elif callee.id == "print":
                self.report(node, "print is not portable")
            elif callee.id in _BUILTIN_NAMES and callee.id not in _ALLOWED_BUILTINS:
                self.report(node, f"the builtin {callee.id}() is not portable (allowed: range, min, max)")
        elif isinstance(callee, ast.Attribute):
            if isinstance(callee.value, ast.Name) and callee.value.id == "T" and callee.attr == "shared_array":
                line = node.lineno + self.offset
                if line in self.shared_lines:
                    self.report(node, "at most one T.shared_array per line")
                self.shared_lines.add(line)
        else:
            self.report(node, "only named functions and T members can be called")
        self.generic_visit(node)


#: cupyx.jit (cupyx/jit/_compile.py) fills an operator's template by ``expr.replace(f"in{i}", operand)``.
_CUPYX_TEMPLATE_NAME = re.compile(r"in[1-9]")
_BUILTIN_NAMES = {name for name in dir(__import__("builtins")) if not name.startswith("_")}
