"""Lower a kernel written against ``T`` into a numba generator: one ``yield`` per scheduling point.

The compiled engine (:mod:`~gpusim.backends.sim.compiled`) runs each simulated thread as an instance
of this generator.  The rewrite keeps the reference simulator's semantics step for step: every load,
store and atomic, every fence and barrier is preceded by ``yield POINT`` (the scheduler decides there
who performs the next step), in the order Python evaluates them (a store's value before its index,
``a[i] += v`` as a load then a store).  Nested expressions are flattened so that each memory operation
gets its own temporary, ``and``/``or``/``x if c else y`` with memory operations inside become ``if``
statements (short-circuiting as before), a ``while`` whose condition reads memory becomes
``while True: ...; if not cond: break``, and ``@device`` functions are inlined, their ``return``
statements turned into a flag and ``break``.  Bounds are checked before the scheduling point, and
shared and local arrays carry an "initialised" mask, as the reference simulator checks them; a
violation yields ``FAIL`` and the engine replays the run on the reference simulator for the report.

A warp collective (shuffle, vote, reduction, ``syncwarp``) is a scheduling point then a rendezvous: the thread
leaves its operand in the engine's arrays (``_q_ci``/``_q_cf``: the value as an integer and as a float,
``_q_ca``: a shuffle's lane argument, or a reduction's operand type), yields ``COLLECTIVE + 16 × site +
operation``, and reads its result from the same arrays when the engine resumes it.  A ``for`` loop over
``range`` becomes a ``while`` loop (a numba range iterator keeps pointers into the stack, which the engine's
copied generators cannot follow); anything else a kernel may not say raises :class:`Unsupported` naming the line.

>>> from gpusim.zoo.classic_kernels import count_plain
>>> print(lower(count_plain, {"counter": "int32"}).source)  # doctest: +ELLIPSIS
@numba.njit
def _thread(_q_gt, _q_bs, _q_gs, _q_st, counter, n):
    ...
    i = _q_gt
    if i < n:
        _q_i1 = 0
        if _q_i1 < 0 or _q_i1 >= counter.shape[0]:
            yield FAIL
        yield POINT
        _q_v2 = counter[_q_i1]
        ...
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass, field

import numpy as np

from gpusim.language.kernels import DeviceFunction, Kernel, race_scopes

from .lowering_ast import (
    Unsupported,
    assign_name,
    bounds_check,
    file_line,
    is_t_call,
    parse_function,
    parse_stmt,
    truth,
    without_docstring,
    without_returns,
)
from .races import phase_bits

__all__ = ["BARRIER", "COLLECTIVE", "COLLECTIVES", "EXIT", "FAIL", "OPERATIONS", "POINT", "Lowered", "Unsupported",
           "lower"]

#: The codes a thread generator yields: it finished; it is at a scheduling point; it broke a rule
#: (out of bounds, an uninitialised read: the reference simulator replays it for the report); it
#: arrived at barrier number ``code - BARRIER``; at a warp collective (``code - COLLECTIVE`` is
#: ``16 × site + operation``, the operation's position in :data:`COLLECTIVES`).
EXIT, POINT, FAIL, BARRIER, COLLECTIVE = 0, 1, -1, 16, 1 << 24
#: The operations a race report names, by number (the compiled race detector's codes).
OPERATIONS = ("load", "store", "atomic_cas", "atomic_add", "atomic_min", "atomic_max", "atomic_exch", "atomic_load")
#: The warp collectives, in the order of their operation numbers.
COLLECTIVES = ("shfl_down", "shfl_up", "shfl_xor", "shfl_idx", "ballot", "any", "all", "syncwarp", "reduce_add",
               "reduce_max", "reduce_min")

_INDEX = {"gtid": "_q_gt", "thread_id": "_q_tid", "block_id": "_q_bid", "block_size": "_q_bs",
          "grid_size": "_q_gs", "num_threads": "(_q_bs * _q_gs)", "lane_id": "(_q_tid % 32)",
          "warp_id": "(_q_tid // 32)", "warp_size": "32"}
_CASTS = {"i32": "np.int32", "i64": "np.int64", "u32": "np.uint32", "u64": "np.uint64", "f32": "np.float32",
          "f64": "np.float64"}
_ATOMICS = {"atomic_cas": 4, "atomic_add": 3, "atomic_min": 3, "atomic_max": 3, "atomic_exch": 3,
            "atomic_load": 2}


@dataclass
class Lowered:
    """A lowered kernel: the generator's ``source``, the shared arrays it declares (``(size, dtype)``) and
    whether it uses warp collectives (then it takes the engine's operand arrays)."""

    source: str
    shared: list[tuple[int, str]] = field(default_factory=list)
    collectives: bool = False
    sites: list[str] = field(default_factory=list)  # "file.py:line" of each race-checked access, by number
    shared_names: list[str] = field(default_factory=list)  # each shared array's name, as the reference names it


def lower(kernel: Kernel, arrays: dict[str, str], races: bool = False) -> Lowered:
    """Lower ``kernel`` whose array parameters (name -> dtype name) are ``arrays``; the rest are scalars.

    With ``races``, every access to a global or shared array also calls the compiled race detector
    (:mod:`.compiled_races`): array number ``k`` is kernel parameter ``k``, and shared array number ``k``
    (in declaration order) of block ``b`` is array ``len(params) + k × grid + b``.
    """
    lowering = _Lowering(kernel, races)
    lowering.dtypes.update({name: np.dtype(dtype).name for name, dtype in arrays.items()})
    func = parse_function(kernel.fn)
    body = lowering.block(without_docstring(func.body), _Scope(kernel.fn, set(arrays), set(), ""))
    params = ", ".join(kernel.params)
    pools = "".join(f", _q_sh{k}, _q_sh{k}m" for k in range(len(lowering.shared)))
    operands = ", _q_ci, _q_cf, _q_ca" if lowering.collective_sites else ""
    fixed = f"_q_gt, _q_bs, _q_gs, _q_st{operands}{', _q_R' if races else ''}{pools}"
    # Not cached: a caller compiled in one process while another process had cached the generator only (two
    # test workers building one module) would find no lowering for a generator loaded from the cache.
    head = ["@numba.njit", f"def _thread({fixed}, {params}):" if params else f"def _thread({fixed}):",
            "    _q_bid = _q_gt // _q_bs", "    _q_tid = _q_gt % _q_bs"]
    module = ast.Module(body=body + [parse_stmt("yield EXIT")], type_ignores=[])
    text = ast.unparse(ast.fix_missing_locations(module))
    source = "\n".join(head + ["    " + line for line in text.splitlines()])
    return Lowered(source, lowering.shared, bool(lowering.collective_sites), list(lowering.sites),
                   lowering.shared_names)


@dataclass
class _Scope:
    """Names of one function being lowered: its globals, arrays, masked (shared/local) arrays, and prefix."""

    fn: object
    arrays: set[str]
    masked: set[str]
    prefix: str
    renamed: dict[str, str] = field(default_factory=dict)
    steps: int = 0  # the bits of the declared race steps (races.phase_bits) this function is inlined inside


class _Lowering:
    def __init__(self, kernel: Kernel, races: bool = False):
        self.kernel = kernel
        self.races = races
        self.sites: dict[str, int] = {}  # "file.py:line" -> site number (race reports)
        self.shared_names: list[str] = []
        self.shared_pool: dict[str, int] = {}  # lowered name of a shared array -> its number
        self.at: ast.AST | None = None  # the statement being lowered (the line of its accesses)
        self.counter = itertools.count(1)
        self.shared: list[tuple[int, str]] = []
        self.barrier_sites: dict[str, int] = {}  # "file.py:line" -> barrier number, as the reference names them
        self.collective_sites: dict[tuple[str, str], int] = {}  # (operation, "file.py:line") -> site number
        self.inlined = itertools.count(1)
        self.dtypes: dict[str, str] = {}  # array (lowered name) -> NumPy dtype name
        self.phase_bits = phase_bits(race_scopes(kernel.intended_races))  # the steps of within() declarations

    def fresh(self, kind: str) -> str:
        return f"_q_{kind}{next(self.counter)}"

    # -- statements --------------------------------------------------------------------------------
    def block(self, statements: list[ast.stmt], scope: _Scope) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for statement in statements:
            out.extend(self.statement(statement, scope))
        return out or [ast.Pass()]

    def statement(self, node: ast.stmt, scope: _Scope) -> list[ast.stmt]:
        self.at = (node, scope)
        if isinstance(node, ast.Assign):
            return self.assign(node, scope)
        if isinstance(node, ast.AugAssign):
            return self.aug_assign(node, scope)
        if isinstance(node, ast.Expr):
            pre, _ = self.expr(node.value, scope)
            return pre
        if isinstance(node, ast.If):
            pre, test = self.expr(node.test, scope)
            return pre + [ast.If(test, self.block(node.body, scope), self.block(node.orelse, scope)
                                 if node.orelse else [])]
        if isinstance(node, ast.While):
            pre, test = self.expr(node.test, scope)
            body = self.block(node.body, scope)
            if not pre:
                return [ast.While(test, body, [])]
            check = ast.If(ast.UnaryOp(ast.Not(), test), [ast.Break()], [])
            return [ast.While(ast.Constant(True), pre + [check] + body, [])]
        if isinstance(node, ast.For):
            return self.for_range(node, scope)
        if isinstance(node, (ast.Break, ast.Continue, ast.Pass)):
            return [node]
        if isinstance(node, ast.Return):
            if scope.prefix:  # inside an inlined device function: rewritten away by _without_returns
                raise Unsupported(self.where(node, scope, "a return left after inlining"))
            return [parse_stmt("yield EXIT"), ast.Return(None)]
        raise Unsupported(self.where(node, scope, f"{type(node).__name__} statements"))

    def for_range(self, node: ast.For, scope: _Scope) -> list[ast.stmt]:
        """``for x in range(a, b, c)`` as ``while``: bounds evaluated once, ``x`` set before the step."""
        call = node.iter
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "range"
                and "range" not in scope.renamed and 1 <= len(call.args) <= 3 and not call.keywords
                and isinstance(node.target, ast.Name) and not node.orelse):
            raise Unsupported(self.where(node, scope, "a for loop other than 'for name in range(...)'"))
        pre: list[ast.stmt] = []
        bounds = []
        for argument in call.args:
            argument_pre, value = self.expr(argument, scope)
            pre += argument_pre
            bounds.append(value)
        start, stop, step = ([ast.Constant(0)] if len(bounds) == 1 else []) + bounds + (
            [ast.Constant(1)] if len(bounds) < 3 else [])
        k, end, by = self.fresh("k"), self.fresh("e"), self.fresh("d")
        pre += [assign_name(k, start), assign_name(end, stop), assign_name(by, step)]
        constant = step.value if isinstance(step, ast.Constant) else None
        if constant is None:
            test = f"({by} > 0 and {k} < {end}) or ({by} < 0 and {k} > {end})"
        elif isinstance(constant, int) and not isinstance(constant, bool) and constant != 0:
            test = f"{k} < {end}" if constant > 0 else f"{k} > {end}"
        else:
            raise Unsupported(self.where(node, scope, f"range with step {constant!r}"))
        target = self.local(node.target.id, scope)
        body = [assign_name(target, ast.Name(k, ast.Load())), parse_stmt(f"{k} = {k} + {by}")]
        return pre + [ast.While(ast.parse(test, mode="eval").body, body + self.block(node.body, scope), [])]

    def assign(self, node: ast.Assign, scope: _Scope) -> list[ast.stmt]:
        if len(node.targets) != 1:
            raise Unsupported(self.where(node, scope, "multiple assignment targets"))
        target = node.targets[0]
        value = node.value
        if isinstance(target, ast.Name) and is_t_call(value, ("shared_array", "local_array")):
            return self.declare_array(target.id, value, scope)
        pre, value = self.expr(value, scope)
        if isinstance(target, ast.Name):
            return pre + [ast.Assign([ast.Name(self.local(target.id, scope), ast.Store())], value)]
        if isinstance(target, ast.Subscript):
            array = self.array_name(target.value, scope)
            index_pre, index = self.expr(target.slice, scope)
            return pre + index_pre + self.store(array, index, value, scope)
        raise Unsupported(self.where(node, scope, "this assignment target"))

    def aug_assign(self, node: ast.AugAssign, scope: _Scope) -> list[ast.stmt]:
        target = node.target
        if isinstance(target, ast.Name):
            name = self.local(target.id, scope)
            pre, value = self.expr(node.value, scope)
            combined = ast.BinOp(ast.Name(name, ast.Load()), node.op, value)
            return pre + [ast.Assign([ast.Name(name, ast.Store())], combined)]
        if isinstance(target, ast.Subscript):
            array = self.array_name(target.value, scope)
            pre, index = self.expr(target.slice, scope)
            slot = self.fresh("i")
            pre.append(assign_name(slot, index))
            load_pre, old = self.load(array, ast.Name(slot, ast.Load()), scope)
            value_pre, value = self.expr(node.value, scope)
            combined = ast.BinOp(old, node.op, value)
            return pre + load_pre + value_pre + self.store(array, ast.Name(slot, ast.Load()), combined, scope,
                                                           evaluated=True)
        raise Unsupported(self.where(node, scope, "this augmented assignment target"))

    def declare_array(self, name: str, call: ast.Call, scope: _Scope) -> list[ast.stmt]:
        kind = call.func.attr
        if len(call.args) != 2:
            raise Unsupported(self.where(call, scope, f"T.{kind} takes (size, dtype)"))
        size = self.constant(call.args[0], scope)
        dtype = call.args[1]
        if not (isinstance(dtype, ast.Attribute) and isinstance(dtype.value, ast.Name) and dtype.value.id == "T"
                and dtype.attr in _CASTS):
            raise Unsupported(self.where(call, scope, f"T.{kind}'s dtype must be T.i32, T.f64, ..."))
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise Unsupported(self.where(call, scope, f"T.{kind} size {size!r} (a positive integer constant)"))
        if kind == "shared_array" and scope.prefix:
            # The reference simulator keys a shared array by its declaring line: every call site of the
            # helper would share it, where inlining gives each its own.
            raise Unsupported(self.where(call, scope, "a shared array declared in a @device function"))
        local = self.local(name, scope)
        scope.arrays.add(local)
        scope.masked.add(local)
        numpy_dtype = _CASTS[dtype.attr]
        self.dtypes[local] = numpy_dtype[3:]
        if kind == "shared_array":
            k = len(self.shared)
            self.shared.append((size, numpy_dtype[3:]))
            self.shared_names.append(name)
            self.shared_pool[local] = k
            return [parse_stmt(f"{local} = _q_sh{k}[_q_bid]"), parse_stmt(f"{local}_qm = _q_sh{k}m[_q_bid]")]
        return [parse_stmt(f"{local} = np.zeros({size}, {numpy_dtype})"),
                parse_stmt(f"{local}_qm = np.zeros({size}, np.uint8)")]

    # -- memory operations -------------------------------------------------------------------------
    def checked_index(self, array: str, index: ast.expr) -> tuple[list[ast.stmt], ast.Name]:
        slot = self.fresh("i")
        return [assign_name(slot, index), bounds_check(slot, array)], ast.Name(slot, ast.Load())

    def load(self, array: str, index: ast.expr, scope: _Scope) -> tuple[list[ast.stmt], ast.Name]:
        pre, slot = self.checked_index(array, index)
        value = self.fresh("v")
        pre.append(parse_stmt("yield POINT"))
        if array in scope.masked:
            pre.append(parse_stmt(f"if {array}_qm[{slot.id}] == 0:\n    yield FAIL"))
        pre.append(parse_stmt(f"{value} = {array}[{slot.id}]"))
        pre += self.race_check(array, f"race_access(_q_R, _q_gt, {{code}}, {slot.id}, 0, False, {{site}}, False, "
                                      f"{{steps}})")
        return pre, ast.Name(value, ast.Load())

    def store(self, array: str, index: ast.expr, value: ast.expr, scope: _Scope, evaluated: bool = False
              ) -> list[ast.stmt]:
        """``array[index] = value``: the value is computed first (as Python does), then the index."""
        held = self.fresh("v")
        pre = [assign_name(held, value)]
        if evaluated:
            slot = index
            pre.append(bounds_check(slot.id, array))
        else:
            index_pre, slot = self.checked_index(array, index)
            pre += index_pre
        old = self.fresh("o")
        pre.append(parse_stmt("yield POINT"))
        pre.append(parse_stmt(f"{old} = {array}[{slot.id}]"))
        pre.append(parse_stmt(f"{array}[{slot.id}] = {held}"))
        if array in scope.masked:
            pre.append(parse_stmt(f"{array}_qm[{slot.id}] = 1"))
        pre.append(parse_stmt(f"if {array}[{slot.id}] != {old}:\n    _q_st[1] = _q_st[0]"))
        pre += self.race_check(array, f"race_access(_q_R, _q_gt, {{code}}, {slot.id}, 1, True, {{site}}, False, "
                                      f"{{steps}})")
        return pre

    def atomic(self, name: str, call: ast.Call, scope: _Scope) -> tuple[list[ast.stmt], ast.Name]:
        if len(call.args) != _ATOMICS[name] or call.keywords:
            raise Unsupported(self.where(call, scope, f"T.{name} with {len(call.args)} arguments"))
        array = self.array_name(call.args[0], scope)
        pre: list[ast.stmt] = []
        operands = []
        for argument in call.args[1:]:
            argument_pre, value = self.expr(argument, scope)
            pre += argument_pre
            slot = self.fresh("a")
            pre.append(assign_name(slot, value))
            operands.append(slot)
        index_pre, slot = self.checked_index(array, ast.Name(operands[0], ast.Load()))
        pre += index_pre
        old = self.fresh("o")
        cast = f"np.{self.dtypes[array]}"
        pre.append(parse_stmt("yield POINT"))
        if array in scope.masked:
            pre.append(parse_stmt(f"if {array}_qm[{slot.id}] == 0:\n    yield FAIL"))
        pre.append(parse_stmt(f"{old} = {array}[{slot.id}]"))
        at = f"{array}[{slot.id}]"
        if name == "atomic_cas":
            update = f"if {old} == {cast}({operands[1]}):\n    {at} = {operands[2]}"
        elif name == "atomic_add":
            update = f"{at} = {old} + {operands[1]}"
        elif name == "atomic_exch":
            update = f"{at} = {operands[1]}"
        elif name == "atomic_min":
            update = f"if {cast}({operands[1]}) < {old}:\n    {at} = {operands[1]}"
        elif name == "atomic_max":
            update = f"if {cast}({operands[1]}) > {old}:\n    {at} = {operands[1]}"
        else:
            update = "pass"
        pre.append(parse_stmt(update))
        if name != "atomic_load":
            pre.append(parse_stmt(f"if {at} != {old}:\n    _q_st[1] = _q_st[0]"))
        operation = OPERATIONS.index(name)
        pre += self.race_check(array, f"race_atomic(_q_R, _q_gt, {{code}}, {slot.id}, {operation}, {{site}}, "
                                      f"{{steps}})", call)
        return pre, ast.Name(old, ast.Load())

    def race_check(self, array: str, call: str, node: ast.AST | None = None) -> list[ast.stmt]:
        """With race detection, ``call`` (``{code}``: the array's number, ``{site}``: the line's, ``{steps}``: the
        declared race steps the access is inside) after an access to a global or shared array; a race in ``raise``
        mode makes the thread yield ``FAIL``."""
        if not self.races:
            return []
        if array in self.shared_pool:
            code = f"{len(self.kernel.params)} + {self.shared_pool[array]} * _q_gs + _q_bid"
        elif array in self.kernel.params:
            code = str(self.kernel.params.index(array))
        else:
            return []  # a local array: only its thread touches it
        statement, scope = self.at
        where = file_line(scope.fn, node if node is not None else statement)
        site = self.sites.setdefault(where, len(self.sites))
        return [parse_stmt(f"if {call.format(code=code, site=site, steps=scope.steps)}:\n    yield FAIL")]

    # -- expressions -----------------------------------------------------------------------------------
    def expr(self, node: ast.expr, scope: _Scope) -> tuple[list[ast.stmt], ast.expr]:
        """``(statements to run first, the expression left)``, keeping Python's evaluation order."""
        if isinstance(node, ast.Constant):
            return [], node
        if isinstance(node, ast.Name):
            return [], self.name(node, scope)
        if isinstance(node, ast.Subscript):
            array = self.array_name(node.value, scope)
            pre, index = self.expr(node.slice, scope)
            load_pre, value = self.load(array, index, scope)
            return pre + load_pre, value
        if isinstance(node, ast.BinOp):
            left_pre, left = self.expr(node.left, scope)
            right_pre, right = self.expr(node.right, scope)
            return left_pre + right_pre, ast.BinOp(left, node.op, right)
        if isinstance(node, ast.UnaryOp):
            pre, operand = self.expr(node.operand, scope)
            return pre, ast.UnaryOp(node.op, operand)
        if isinstance(node, ast.Compare):
            left_pre, left = self.expr(node.left, scope)
            right_pre, right = self.expr(node.comparators[0], scope)
            return left_pre + right_pre, ast.Compare(left, node.ops, [right])
        if isinstance(node, ast.BoolOp):
            return self.bool_op(node, scope)
        if isinstance(node, ast.IfExp):
            test_pre, test = self.expr(node.test, scope)
            body_pre, body = self.expr(node.body, scope)
            else_pre, orelse = self.expr(node.orelse, scope)
            if not body_pre and not else_pre:
                return test_pre, ast.IfExp(test, body, orelse)
            result = self.fresh("r")
            branches = ast.If(test, body_pre + [assign_name(result, body)], else_pre + [assign_name(result, orelse)])
            return test_pre + [branches], ast.Name(result, ast.Load())
        if isinstance(node, ast.Call):
            return self.call(node, scope)
        raise Unsupported(self.where(node, scope, f"{type(node).__name__} expressions"))

    def bool_op(self, node: ast.BoolOp, scope: _Scope) -> tuple[list[ast.stmt], ast.expr]:
        lowered = [self.expr(value, scope) for value in node.values]
        if not any(pre for pre, _ in lowered[1:]):
            return lowered[0][0], ast.BoolOp(node.op, [value for _, value in lowered])
        result = self.fresh("b")
        pre = lowered[0][0] + [assign_name(result, truth(lowered[0][1]))]
        nested: list[ast.stmt] = []
        for value_pre, value in reversed(lowered[1:]):
            step = value_pre + [assign_name(result, truth(value))] + nested
            test = ast.Name(result, ast.Load())
            if isinstance(node.op, ast.Or):
                test = ast.UnaryOp(ast.Not(), test)
            nested = [ast.If(test, step, [])]
        return pre + nested, ast.Name(result, ast.Load())

    def call(self, node: ast.Call, scope: _Scope) -> tuple[list[ast.stmt], ast.expr]:
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "T":
            return self.t_call(func.attr, node, scope)
        if isinstance(func, ast.Name) and func.id in ("range", "min", "max") and func.id not in scope.renamed:
            pre, args = [], []
            for argument in node.args:
                argument_pre, value = self.expr(argument, scope)
                pre += argument_pre
                args.append(value)
            return pre, ast.Call(ast.Name(func.id, ast.Load()), args, [])
        if isinstance(func, ast.Name):
            target = getattr(scope.fn, "__globals__", {}).get(func.id)
            if isinstance(target, DeviceFunction):
                return self.inline(target, node, scope)
        raise Unsupported(self.where(node, scope, f"the call {ast.unparse(func)}(...)"))

    def t_call(self, name: str, node: ast.Call, scope: _Scope) -> tuple[list[ast.stmt], ast.expr]:
        if name in _INDEX:
            return [], ast.parse(_INDEX[name], mode="eval").body
        if name in _CASTS:
            pre, value = self.expr(node.args[0], scope)
            return pre, ast.Call(ast.parse(_CASTS[name], mode="eval").body, [value], [])
        if name in _ATOMICS:
            return self.atomic(name, node, scope)
        if name == "threadfence":
            return [parse_stmt("yield POINT")] + ([parse_stmt("race_fence(_q_R, _q_gt)")] if self.races else []
                                                   ), ast.Constant(0)
        if name == "syncthreads":
            number = self.barrier_sites.setdefault(file_line(scope.fn, node), len(self.barrier_sites))
            return [parse_stmt("yield POINT"), parse_stmt(f"yield BARRIER + {number}")], ast.Constant(0)
        if name in COLLECTIVES:
            return self.collective(name, node, scope)
        raise Unsupported(self.where(node, scope, f"T.{name} here"))

    def collective(self, name: str, node: ast.Call, scope: _Scope) -> tuple[list[ast.stmt], ast.expr]:
        """A warp collective: operands left in the engine's arrays, a point, the rendezvous, the result read back."""
        reduction = name.startswith("reduce")
        wanted = 0 if name == "syncwarp" else 1 if name in ("ballot", "any", "all") or reduction else 2
        if len(node.args) != wanted or node.keywords:
            raise Unsupported(self.where(node, scope, f"T.{name} with {len(node.args)} arguments"))
        site = self.collective_sites.setdefault((name, file_line(scope.fn, node)), len(self.collective_sites))
        code = f"COLLECTIVE + {16 * site + COLLECTIVES.index(name)}"
        if name == "syncwarp":
            return [parse_stmt("yield POINT"), parse_stmt(f"yield {code}")], ast.Constant(0)
        pre: list[ast.stmt] = []
        operands = []
        for argument in node.args:
            argument_pre, value = self.expr(argument, scope)
            pre += argument_pre
            slot = self.fresh("a")
            pre.append(assign_name(slot, value))
            operands.append(slot)
        value = operands[0]
        if wanted == 1 and not reduction:
            pre.append(parse_stmt(f"{value} = 1 if {value} else 0"))
        # a shuffle's lane argument; a reduction's operand type (its butterfly wraps and rounds as that type)
        lane = operands[1] if wanted == 2 else f"operand_kind({value})" if reduction else "0"
        result = self.fresh("r")
        pre += [parse_stmt(f"_q_ci[_q_gt] = np.int64({value})"), parse_stmt(f"_q_cf[_q_gt] = {value}"),
                parse_stmt(f"_q_ca[_q_gt] = {lane}"), parse_stmt("yield POINT"), parse_stmt(f"yield {code}"),
                parse_stmt(f"{result} = like({value}, _q_ci[_q_gt], _q_cf[_q_gt])" if wanted == 2 or reduction
                            else f"{result} = _q_ci[_q_gt]")]
        return pre, ast.Name(result, ast.Load())

    def inline(self, function: DeviceFunction, call: ast.Call, scope: _Scope) -> tuple[list[ast.stmt], ast.expr]:
        definition = parse_function(function.fn)
        params = [argument.arg for argument in definition.args.args]
        if len(params) != len(call.args) or call.keywords:
            raise Unsupported(self.where(call, scope, f"the call of {function.name} with these arguments"))
        prefix = f"_q_f{next(self.inlined)}_"
        inner = _Scope(function.fn, set(), set(), prefix, steps=scope.steps | self.phase_bits.get(function.name, 0))
        pre: list[ast.stmt] = []
        for param, argument in zip(params, call.args, strict=True):
            if isinstance(argument, ast.Name) and self.local_name(argument.id, scope) in scope.arrays:
                outer = self.local_name(argument.id, scope)
                inner.renamed[param] = outer  # an array: the same memory under the parameter's name
                inner.arrays.add(outer)
                if outer in scope.masked:
                    inner.masked.add(outer)
                continue
            argument_pre, value = self.expr(argument, scope)
            pre += argument_pre
            inner.renamed[param] = prefix + param
            pre.append(assign_name(prefix + param, value))
        result, done = prefix + "ret", prefix + "done"
        body = without_returns(without_docstring(definition.body), result, done, in_loop=False)
        pre.append(assign_name(done, ast.Constant(False)))
        pre.extend(self.block(body, inner))
        return pre, ast.Name(result, ast.Load())

    # -- names -------------------------------------------------------------------------------------
    def local(self, name: str, scope: _Scope) -> str:
        """The lowered name of a local variable (inlined functions' locals get their prefix)."""
        if name in scope.renamed:
            return scope.renamed[name]
        renamed = scope.prefix + name if scope.prefix and not name.startswith("_q_f") else name
        scope.renamed[name] = renamed
        return renamed

    def local_name(self, name: str, scope: _Scope) -> str:
        return scope.renamed.get(name, name)

    def name(self, node: ast.Name, scope: _Scope) -> ast.expr:
        if node.id in scope.renamed:
            return ast.Name(scope.renamed[node.id], ast.Load())
        if not scope.prefix and (node.id in self.kernel.params or node.id.startswith("_q_")):
            return ast.Name(node.id, ast.Load())
        value = getattr(scope.fn, "__globals__", {}).get(node.id, _MISSING)
        if isinstance(value, (bool, int, float, np.integer, np.floating)):
            return ast.Constant(value.item() if isinstance(value, np.generic) else value)
        if value is _MISSING and not scope.prefix:
            return ast.Name(node.id, ast.Load())  # a kernel local, assigned before (numba checks)
        raise Unsupported(f"{file_line(scope.fn, node)}: the name {node.id!r} (only numeric module constants "
                          f"are lowered)")

    def array_name(self, node: ast.expr, scope: _Scope) -> str:
        if isinstance(node, ast.Name):
            name = self.local_name(node.id, scope)
            if name in scope.arrays:
                return name
        raise Unsupported(self.where(node, scope, f"indexing {ast.unparse(node)}, which is not an array"))

    def constant(self, node: ast.expr, scope: _Scope):
        if isinstance(node, ast.Constant):
            return node.value
        lowered = self.name(node, scope) if isinstance(node, ast.Name) else None
        if isinstance(lowered, ast.Constant):
            return lowered.value
        raise Unsupported(self.where(node, scope, "an array size that is not a constant"))

    def where(self, node, scope: _Scope, what: str) -> str:
        return f"{file_line(scope.fn, node)}: the compiled engine does not lower {what}"


_MISSING = object()
