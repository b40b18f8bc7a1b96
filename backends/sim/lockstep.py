"""Lockstep warps (``Device("sim", warps="lockstep")``): the SIMT stack of GPUs before Volta.

With independent thread scheduling (the default, Volta and later) every lane of a warp has its
own program counter.  Before Volta a warp had one: its lanes followed one path at a time.  At a
branch where lanes disagree, the warp runs one side (the ``if`` side, or the lanes that stay in
a loop) until it reaches the *reconvergence point* — the end of the ``if``/``while``/``for``
statement, its immediate post-dominator — then the other side; there the lanes reconverge.  The
classic consequence is the intra-warp spin-lock deadlock::

    while T.atomic_cas(lock, 0, 0, 1) != 0:   # one lane wins and leaves the loop ...
        pass                                  # ... and waits at the loop's end for the others,
    counter[0] += 1                           # which spin forever on the lock it holds
    T.atomic_exch(lock, 0, 0)

How it is simulated.  :func:`lockstep_bind` rewrites the kernel's source (and its ``@device``
helpers') so that every ``if``, ``while`` and ``for`` tells the scheduler where a branch is taken
and where the statement ends (``break``, ``continue`` and ``return`` report the ends they jump
past).  Each branch is a rendezvous of the warp's active lanes; a :class:`Lockstep` keeps one SIMT
stack per warp (reconvergence point and lane mask per entry) and blocks every lane that is not on
the path being run.  A helper with a ``return`` inside an ``if``, ``while`` or ``for`` is run as
the one iteration of a loop: the helper is inlined on the GPU, and its exit, which post-dominates an
early ``return``, is where a lane that returned early waits for the lanes still inside it (not the
caller's next collective).  Between branches, the active lanes' memory operations interleave as the
policy chooses (a real warp issues each instruction for all its active lanes together: the
simulator allows those orders and more).  Warp collectives and barriers work as in the default
mode, but for one thing: every warp collective (a shuffle or vote too, not only ``syncwarp``) orders
the lanes' accesses for the race detector, the lanes having run each instruction together up to it
(with independent warps only ``syncwarp`` does, as CUDA promises since Volta).  The independent
mode runs the kernel unchanged, at no cost.
"""

from __future__ import annotations

import ast
import textwrap
import types

from greenlet import getcurrent

from gpusim.errors import GpusimError, KernelSyntaxError
from gpusim.language import WARP_SIZE
from gpusim.language.kernels import bind
from gpusim.language.sources import getsource

__all__ = ["HOOKS", "Lockstep", "lockstep_bind"]

_HOOKS_NAME = "_gpusim_simt"
_RESULT_NAME = "_gpusim_returned"


# -- the source transformation -----------------------------------------------------------------------
class _Reconvergence(ast.NodeTransformer):
    """Insert the branch and reconvergence hooks into one function."""

    def __init__(self, filename: str, helper: bool):
        self.filename = filename
        self.helper = helper  # a @device function (inlined on the GPU), not the kernel
        self.enclosing: list[tuple[str, str]] = []  # ("if" | "loop", site), innermost last
        self.exit = ""  # the site of a helper's exit, where its lanes reconverge; "" for none

    def _site(self, node) -> str:
        return f"{self.filename.rsplit('/', 1)[-1]}:{node.lineno}"

    def _call(self, hook: str, *args, node) -> ast.Call:
        call = ast.Call(ast.Attribute(ast.Name(_HOOKS_NAME, ast.Load()), hook, ast.Load()), list(args), [])
        return ast.copy_location(call, node)

    def _end(self, site: str, node) -> ast.Expr:
        return ast.copy_location(ast.Expr(self._call("end", ast.Constant(site), node=node)), node)

    def _body(self, statements: list) -> list:
        out = []
        for statement in statements:
            result = self.visit(statement)
            out.extend(result if isinstance(result, list) else [result])
        return out

    def visit_FunctionDef(self, node):
        node.decorator_list = []
        nested_return = any(isinstance(inner, ast.Return) for statement in node.body
                            if isinstance(statement, (ast.If, ast.While, ast.For)) for inner in ast.walk(statement))
        if not (self.helper and nested_return):
            node.body = self._body(node.body)
            return node
        self.exit = self._site(node)
        enter = ast.copy_location(ast.Expr(self._call("call", ast.Constant(self.exit), node=node)), node)
        node.body = [enter, *self._body(node.body)]
        if not isinstance(node.body[-1], ast.Return):
            node.body.append(self._leave(node))
        return node

    def _leave(self, node) -> ast.Expr:
        return ast.copy_location(ast.Expr(self._call("leave", ast.Constant(self.exit), node=node)), node)

    def visit_If(self, node):
        site = self._site(node)
        node.test = self._call("if_branch", ast.Constant(site), node.test, node=node)
        self.enclosing.append(("if", site))
        node.body = self._body(node.body)
        node.orelse = self._body(node.orelse)
        self.enclosing.pop()
        return [node, self._end(site, node)]

    def _loop(self, node):
        site = self._site(node)
        if node.orelse:
            raise KernelSyntaxError(f"{site}: a loop with an else clause is outside the kernel language")
        self.enclosing.append(("loop", site))
        node.body = self._body(node.body) + [self._end(site + "/iteration", node)]
        self.enclosing.pop()
        return site

    def visit_While(self, node):
        node.test = self._call("loop_branch", ast.Constant(self._site(node)), node.test, node=node)
        site = self._loop(node)
        return [node, self._end(site, node)]

    def visit_For(self, node):
        node.iter = self._call("loop", ast.Constant(self._site(node)), node.iter, node=node)
        site = self._loop(node)
        return [node, self._end(site, node)]

    def _ends_until_loop(self, node) -> list:
        ends = []
        for kind, site in reversed(self.enclosing):
            if kind == "loop":
                ends.append(self._end(site + "/iteration", node))
                break
            ends.append(self._end(site, node))
        return ends

    def visit_Break(self, node):
        return self._ends_until_loop(node) + [node]

    def visit_Continue(self, node):
        return self._ends_until_loop(node) + [node]

    def visit_Return(self, node):
        ends = []
        for kind, site in reversed(self.enclosing):
            if kind == "loop":
                ends.append(self._end(site + "/iteration", node))
            ends.append(self._end(site, node))
        if self.exit:
            ends.append(self._leave(node))
        if not ends:
            return node
        value = node.value if node.value is not None else ast.Constant(None)
        keep = ast.copy_location(ast.Assign([ast.Name(_RESULT_NAME, ast.Store())], value), node)
        node.value = ast.Name(_RESULT_NAME, ast.Load())
        return [keep, *ends, node]


def _transform(fn: types.FunctionType, namespace: dict, helper: bool) -> types.FunctionType:
    namespace[_HOOKS_NAME] = HOOKS
    try:
        source = textwrap.dedent(getsource(fn))
    except (OSError, TypeError):
        raise GpusimError(f"warps='lockstep' needs the source of {fn.__qualname__}; define it in a file") from None
    tree = ast.parse(source)
    ast.increment_lineno(tree, fn.__code__.co_firstlineno - 1)
    function = tree.body[0]
    tree.body[0] = _Reconvergence(fn.__code__.co_filename, helper).visit(function)
    ast.fix_missing_locations(tree)
    scope: dict = {}
    exec(compile(tree, fn.__code__.co_filename, "exec"), namespace, scope)  # noqa: S102 - the kernel's own source
    clone = scope[fn.__name__]
    clone.__qualname__ = fn.__qualname__
    clone.__module__ = fn.__module__
    return clone


def lockstep_bind(compiled, language: types.ModuleType) -> types.FunctionType:
    """Like :func:`gpusim.language.kernels.bind`, with the reconvergence hooks inserted (recursively into helpers)."""
    return bind(compiled, language, clone=lambda fn, namespace: _transform(fn, namespace, fn is not compiled.fn))


# -- the SIMT stack ---------------------------------------------------------------------------------------
class _Entry:
    """One SIMT-stack entry: lanes ``mask`` run until they reach reconvergence point ``site``."""

    __slots__ = ("site", "mask", "waiting", "held")

    def __init__(self, site: str, mask: set, held: bool = False):
        self.site = site
        self.mask = set(mask)
        self.waiting: set = set()  # lanes that reached the reconvergence point
        self.held = held  # an else side: its lanes wait at the branch until this entry is on top


class _Warp:
    __slots__ = ("live", "stack", "arrived")

    def __init__(self, lanes: range):
        self.live = set(lanes)
        self.stack: list[_Entry] = []
        self.arrived: dict[int, tuple[str, bool, bool]] = {}  # lane -> (site, condition, is_loop)


class Lockstep:
    """The SIMT stacks of one launch's warps; the hooks the rewritten kernel calls land here."""

    def __init__(self, sim):
        self.sim = sim
        self.warps: dict[tuple[int, int], _Warp] = {}
        self._entering = -1  # the lane inside a hook right now, not yet blocked
        self._released = False

    def _warp(self, index: int) -> _Warp:
        block, tid = divmod(index, self.sim.block)
        key = (block, tid // WARP_SIZE)
        warp = self.warps.get(key)
        if warp is None:
            first = block * self.sim.block + key[1] * WARP_SIZE
            last = min(first + WARP_SIZE, (block + 1) * self.sim.block)
            warp = self.warps[key] = _Warp(range(first, last))
        return warp

    # -- hooks -------------------------------------------------------------------------------------------
    def branch(self, thread, site: str, condition, is_loop: bool):
        self.sim.point()
        warp = self._warp(thread.index)
        warp.arrived[thread.index] = (site, bool(condition), is_loop)
        return self._wait(thread, warp, ("a branch (lockstep warp)", site))

    def end(self, thread, site: str) -> None:
        self.sim.point()
        warp = self._warp(thread.index)
        if not warp.stack or warp.stack[-1].site != site:
            return  # no divergence at this statement: nothing to wait for
        warp.stack[-1].waiting.add(thread.index)
        where = site.replace("/iteration", "")
        self._wait(thread, warp, ("the reconvergence point (lockstep warp)", f"end of the statement at {where}"))

    def exited(self, index: int) -> None:
        """A lane finished: it no longer holds its warp back."""
        block, tid = divmod(index, self.sim.block)
        warp = self.warps.get((block, tid // WARP_SIZE))
        if warp is None:
            return
        warp.live.discard(index)
        warp.arrived.pop(index, None)
        for entry in warp.stack:
            entry.mask.discard(index)
            entry.waiting.discard(index)
        self._resolve(warp)

    # -- the rule --------------------------------------------------------------------------------------
    def _wait(self, thread, warp: _Warp, what: tuple[str, str]):
        self._entering, self._released = thread.index, False
        self._resolve(warp)
        self._entering = -1
        if not self._released:
            self.sim._block_current(thread, what)
        return thread.result

    def _release(self, index: int, result) -> None:
        self.sim.threads[index].result = result
        if index == self._entering:
            self._released = True
        else:
            self.sim._unblock(index)

    def _resolve(self, warp: _Warp) -> None:
        while True:
            top = warp.stack[-1] if warp.stack else None
            active = (top.mask - top.waiting) if top is not None else set(warp.live)
            if top is not None and not active:
                self._pop(warp)
                continue
            if active and all(lane in warp.arrived for lane in active):
                self._split(warp, top, active)
                continue
            return

    def _pop(self, warp: _Warp) -> None:
        done = warp.stack.pop()
        below = warp.stack[-1] if warp.stack else None
        if below is not None and below.site == done.site:
            below.waiting |= done.waiting  # both sides of an if reconverge at the same point
        else:
            for lane in sorted(done.waiting):
                self._release(lane, False)
        if below is not None and below.held:
            below.held = False
            for lane in sorted(below.mask - below.waiting):
                self._release(lane, False)

    def _split(self, warp: _Warp, top: _Entry | None, active: set) -> None:
        arrived = {lane: warp.arrived.pop(lane) for lane in active}
        site, _, is_loop = arrived[min(active)]
        if any(value[0] != site for value in arrived.values()):
            for lane, value in arrived.items():
                if value[0] != site:
                    warp.arrived[lane] = value  # lanes at another branch wait for their turn
            active = {lane for lane, value in arrived.items() if value[0] == site}
        taken = {lane for lane in active if arrived[lane][1]}
        others = active - taken
        if is_loop:
            if top is None or top.site != site:
                top = _Entry(site, active)
                warp.stack.append(top)
            top.waiting |= others  # lanes leaving the loop wait at its end for the rest
            if taken:
                warp.stack.append(_Entry(site + "/iteration", taken))
        elif taken and others:
            warp.stack.append(_Entry(site, active))
            warp.stack.append(_Entry(site, others, held=True))
            warp.stack.append(_Entry(site, taken))
        else:
            for lane in sorted(others):
                self._release(lane, False)
        for lane in sorted(taken):
            self._release(lane, True)

    # -- reports ---------------------------------------------------------------------------------------
    def describe(self) -> str:
        """Warps whose lanes wait at a reconvergence point for lanes of the same warp (for Livelock)."""
        lines = []
        for (block, warp_index), warp in sorted(self.warps.items()):
            for entry in warp.stack:
                if not entry.waiting:
                    continue
                running = sorted(lane % WARP_SIZE for lane in entry.mask - entry.waiting)
                waiting = sorted(lane % WARP_SIZE for lane in entry.waiting)
                where = entry.site.replace("/iteration", "")
                lines.append(
                    f"intra-warp livelock (lockstep warps, as before Volta): in block {block}, warp {warp_index}, "
                    f"lanes {waiting} wait at the reconvergence point after the statement at {where} for lanes "
                    f"{running} of the same warp, which keep running inside it (the warp runs one side of a "
                    f"branch at a time: a lane that leaves a spin loop holding a lock waits there for the lanes "
                    f"spinning on it)")
                break
        return "\n".join(lines)


class _Hooks:
    """The calls :func:`lockstep_bind` inserts (as the global ``_gpusim_simt``)."""

    @staticmethod
    def if_branch(site: str, condition):
        thread = getcurrent()
        return thread.sim.lockstep.branch(thread, site, condition, False)

    @staticmethod
    def loop_branch(site: str, condition):
        thread = getcurrent()
        return thread.sim.lockstep.branch(thread, site, condition, True)

    @staticmethod
    def loop(site: str, iterable):
        thread = getcurrent()
        lockstep = thread.sim.lockstep
        for value in iterable:
            lockstep.branch(thread, site, True, True)
            yield value
        lockstep.branch(thread, site, False, True)

    @staticmethod
    def end(site: str) -> None:
        thread = getcurrent()
        thread.sim.lockstep.end(thread, site)

    @staticmethod
    def call(site: str) -> None:
        """Entering a helper that returns early: its lanes run it as a loop's one iteration."""
        thread = getcurrent()
        thread.sim.lockstep.branch(thread, site, True, True)

    @staticmethod
    def leave(site: str) -> None:
        """Leaving it (a ``return`` or its last statement): wait for its other lanes at its exit."""
        thread = getcurrent()
        thread.sim.lockstep.end(thread, site + "/iteration")
        thread.sim.lockstep.end(thread, site)


HOOKS = _Hooks()
