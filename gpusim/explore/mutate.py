"""Mutation testing of the kernels: concurrency mutants made from each kernel's syntax tree, hunted by the explorer.

:func:`mutants` walks the syntax tree of every kernel a registered algorithm declares and of every ``@device``
step they call, and makes one mutant per site of each kind (:data:`KINDS`):

===================  ==================================================================================
kind                 change
===================  ==================================================================================
atomic-to-plain      ``T.atomic_add/min/exch/load(...)`` becomes a plain read(-modify-write)
cas-to-exchange      ``T.atomic_cas(a, i, expected, new)`` becomes ``T.atomic_exch(a, i, new)``
barrier-removed      a ``T.syncthreads()`` or ``T.syncwarp()`` statement removed
fence-removed        a ``T.threadfence()`` statement removed
shuffle-lane         ``T.shfl_idx(v, lane)`` reads lane ``(lane + 1) % 32``; ``T.shfl_xor(v, m)`` lane
                     ``m ^ 1``
lock-released-early  a lock's release (``T.atomic_exch(L, i, free)``, or a loop of them, on an array ``L``
                     that the function takes by ``T.atomic_cas``) moved up to just after the acquire:
                     before the writes it guards
extra-read           ``x = T.atomic_...(a, i, ...)`` followed by ``x = a[i]``: the value the atomic
                     returned replaced by a plain, unsynchronised read of the word
repair-removed       (only when asked) a repair or reset step made empty: a kernel that declares no
                     intended race of its own and writes an array another kernel of the algorithm races on
                     by design (APFB's FIXMATCHING, the BFS array's reset); launched, it does nothing
===================  ==================================================================================

Each mutant is planted through the algorithm's ``kernels=`` seam (:func:`gpusim.language.variants.planted`) —
no file is edited — and :func:`score` hunts it (:func:`~gpusim.explore.hunt.hunt` over the launch paths that
launch it, on random inputs; a removed fence under the weak memory model, a barrier or shuffle under lockstep
warps too) and sorts it: found, not found, equivalent (not found, and the change is one that may not be
observable: a CAS from one constant to another made an exchange, an atomic load made plain or re-read plainly,
or a site whose kernel argues so in a comment right above it, ``# equivalent KIND: reason``; the reason named) or
unreached (its function launches on no path of a small input: the reason named).  The score is found over found
and not found.

>>> found = mutants("mw-gpu")
>>> sorted({m.kind for m in found})
['atomic-to-plain', 'cas-to-exchange', 'extra-read', 'fence-removed']
>>> found[-1].name, found[-1].text
('propose_to:74:cas-to-exchange', 'elif T.atomic_cas(held, s, worst, offer) == worst:')
"""

from __future__ import annotations

import ast
import copy
import inspect
import linecache
import textwrap
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gpusim.errors import InvalidArgument, OutOfTime
from gpusim.language.kernels import DeviceFunction, Kernel, device, global_names, name_arrays

__all__ = ["DEFAULT_KINDS", "KINDS", "Mutant", "mutant_row", "mutants", "score"]

#: The mutation kinds, in the order a report lists them.
KINDS = ("atomic-to-plain", "cas-to-exchange", "barrier-removed", "fence-removed", "shuffle-lane",
         "lock-released-early", "extra-read", "repair-removed")
#: The kinds made unless others are asked for: all but ``repair-removed``, whose emptied step can leave a driver's
#: host loop relaunching kernels (G-PR without its relabelling start) until the simulator's ``max_launches``.
DEFAULT_KINDS = KINDS[:-1]

_PLAIN = {"atomic_add": "_mutant_plain_add", "atomic_min": "_mutant_plain_min", "atomic_exch": "_mutant_plain_exch",
          "atomic_load": "_mutant_plain_load"}
_STATEMENTS = {"syncthreads": "barrier-removed", "syncwarp": "barrier-removed", "threadfence": "fence-removed"}
_RETURNING = ("atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_exch", "atomic_cas", "atomic_load",
              "atomic_or", "atomic_and")


@device
def _mutant_plain_add(array, index, value):
    """``atomicAdd`` as a plain read-modify-write (a mutant's)."""
    old = array[index]
    array[index] = old + value
    return old


@device
def _mutant_plain_min(array, index, value):
    """``atomicMin`` as a plain read-modify-write (a mutant's)."""
    old = array[index]
    if value < old:
        array[index] = value
    return old


@device
def _mutant_plain_exch(array, index, value):
    """``atomicExch`` as a plain read and write (a mutant's)."""
    old = array[index]
    array[index] = value
    return old


@device
def _mutant_plain_load(array, index):
    """An atomic load as a plain one (a mutant's)."""
    return array[index]


_PLAIN_STEPS = {f.fn.__name__: f for f in (_mutant_plain_add, _mutant_plain_min, _mutant_plain_exch,
                                           _mutant_plain_load)}


@dataclass
class Mutant:
    """One mutant: ``function`` (a kernel's or a step's name) with one ``kind`` of change at source ``line``."""

    algorithm: str
    function: str
    kind: str
    line: int
    text: str
    replacement: Any = field(repr=False)
    equivalent_if_unfound: str | None = None  # why the change may not be observable, should no hunt find it

    @property
    def name(self) -> str:
        return f"{self.function}:{self.line}:{self.kind}"

    @property
    def kernels(self) -> dict[str, Any]:
        """The ``kernels=`` mapping that plants it."""
        return {self.function: self.replacement}


def _is_t_call(node: ast.AST, names) -> str | None:
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "T"):
        return node.func.attr
    return None


def _sites(tree: ast.AST) -> list[tuple[str, ast.AST]]:
    """Every mutation site of ``tree``: ``(kind, node)`` in source order."""
    found = []
    for node in ast.walk(tree):
        if _is_t_call(node, _PLAIN):
            found.append(("atomic-to-plain", node))
        elif _is_t_call(node, ("atomic_cas",)):
            found.append(("cas-to-exchange", node))
        elif _is_t_call(node, ("shfl_idx", "shfl_xor")):
            found.append(("shuffle-lane", node))
        elif isinstance(node, ast.Expr) and _is_t_call(node.value, _STATEMENTS):
            found.append((_STATEMENTS[node.value.func.attr], node))
        elif _extra_read(node) is not None:
            found.append(("extra-read", node))
    found += [("lock-released-early", release) for release, _ in _early_releases(tree)]
    return sorted(found, key=lambda site: (site[1].lineno, site[1].col_offset))


def _extra_read(node: ast.AST) -> ast.Assign | None:
    """``x = a[i]`` for a statement ``x = T.atomic_...(a, i, ...)`` (``a`` a name), else ``None``."""
    if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and _is_t_call(node.value, _RETURNING) and len(node.value.args) >= 2
            and isinstance(node.value.args[0], ast.Name)):
        array, index = node.value.args[:2]
        read = ast.Subscript(ast.Name(array.id, ast.Load()), copy.deepcopy(index), ast.Load())
        return ast.Assign([ast.Name(node.targets[0].id, ast.Store())], read)
    return None


def _cas_arrays(node: ast.AST) -> set[str]:
    """The arrays ``node`` takes by ``T.atomic_cas`` (its first argument, a name)."""
    return {n.args[0].id for n in ast.walk(node) if _is_t_call(n, ("atomic_cas",)) and n.args
            and isinstance(n.args[0], ast.Name)}


def _released(statement: ast.stmt) -> str | None:
    """The lock array ``statement`` releases: ``T.atomic_exch(L, ...)``, or a ``for`` loop of only those."""
    if isinstance(statement, ast.Expr) and _is_t_call(statement.value, ("atomic_exch",)):
        first = statement.value.args[0] if statement.value.args else None
        return first.id if isinstance(first, ast.Name) else None
    if isinstance(statement, ast.For) and not statement.orelse:
        arrays = {_released(inner) for inner in statement.body}
        return arrays.pop() if len(arrays) == 1 else None
    return None


def _early_releases(tree: ast.AST) -> list[tuple[ast.stmt, int]]:
    """Every lock release that can move up to just after its acquire: ``(release, new position)`` in its list.

    The acquire is the latest earlier statement of the same list that takes the array by ``T.atomic_cas``, or
    else the ``if`` whose test does (the release then moves to the top of its body); a release with nothing
    between it and its acquire is no site.
    """
    found = []
    for parent in ast.walk(tree):
        for field_name in ("body", "orelse"):
            statements = getattr(parent, field_name, None)
            if not isinstance(statements, list):
                continue
            guarded = _cas_arrays(parent.test) if isinstance(parent, ast.If) and field_name == "body" else set()
            for k, statement in enumerate(statements):
                lock = _released(statement)
                if lock is None:
                    continue
                earlier = [j for j in range(k) if lock in _cas_arrays(statements[j])]
                if earlier:
                    position = earlier[-1] + 1
                elif lock in guarded:
                    position = 0
                else:
                    continue
                if position < k:
                    found.append((statement, position))
    return found


class _Mutate(ast.NodeTransformer):
    """Apply one change at the site ``target`` (found again by its position)."""

    def _here(self, node: ast.AST) -> bool:
        return (node.lineno, node.col_offset) == self.target

    def __init__(self, target: tuple[int, int], kind: str):
        self.target, self.kind = target, kind

    def visit_Module(self, node: ast.Module) -> ast.AST:
        if self.kind == "repair-removed" and self._here(node.body[0]):
            node.body[0].body = [ast.copy_location(ast.Pass(), node.body[0].body[0])]
            return node
        if self.kind == "lock-released-early":  # the one change that moves a statement within its list
            for release, position in _early_releases(node):
                if self._here(release):
                    statements = next(getattr(p, f) for p in ast.walk(node) for f in ("body", "orelse")
                                      if isinstance(getattr(p, f, None), list) and release in getattr(p, f))
                    statements.remove(release)
                    statements.insert(position, release)
                    return node
        return self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        read = _extra_read(node) if self.kind == "extra-read" and self._here(node) else None
        if read is not None:
            return [node, ast.copy_location(read, node)]
        return self.generic_visit(node)

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        if self._here(node) and _is_t_call(node.value, _STATEMENTS):
            return ast.copy_location(ast.Pass(), node)
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if not self._here(node) or self.kind in ("extra-read", "lock-released-early"):
            return node
        name = _is_t_call(node, (*_PLAIN, "atomic_cas", "shfl_idx", "shfl_xor"))
        if name in _PLAIN:
            return ast.copy_location(ast.Call(ast.Name(_PLAIN[name], ast.Load()), node.args, []), node)
        if name == "atomic_cas":
            node.func.attr, node.args = "atomic_exch", [node.args[0], node.args[1], node.args[3]]
        elif name == "shfl_idx":
            node.args[1] = ast.BinOp(ast.BinOp(node.args[1], ast.Add(), ast.Constant(1)), ast.Mod(), ast.Constant(32))
        elif name == "shfl_xor":
            node.args[1] = ast.BinOp(node.args[1], ast.BitXor(), ast.Constant(1))
        return node


def _functions(name: str) -> dict[str, Kernel | DeviceFunction]:
    """The kernels algorithm ``name`` declares and every ``@device`` step they call, by the name they go by."""
    from .algorithm import algorithm_entry

    found: dict[str, Kernel | DeviceFunction] = {}
    pending = [k for k in algorithm_entry(name).kernels if isinstance(k, Kernel)]
    for k in pending:
        found.setdefault(k.name, k)
    while pending:
        fn = pending.pop().fn
        for called in global_names(fn.__code__):
            value = fn.__globals__.get(called)
            if isinstance(value, DeviceFunction) and called not in found:
                found[called] = value
                pending.append(value)
    return found


def _rebuilt(original: Kernel | DeviceFunction, tree: ast.Module, label: str):
    """``original`` compiled again from ``tree`` (its line numbers kept; traces name the mutant's file).

    The mutant's file, as :mod:`linecache` gives it, holds the mutated function's own text (``ast.unparse``)
    from its ``def`` line on: the compiled engine lowers a kernel from its source text, so it must read the
    mutant's, not the original's.  That text does not keep the tree's line numbers, so the names of its shared and
    local arrays, which the race detector judges by, are given from the tree (:func:`name_arrays`).
    """
    ast.fix_missing_locations(tree)
    filename = f"<mutant {label}>"
    text = ast.unparse(tree) + "\n"
    lines = ["\n"] * (tree.body[0].lineno - 1) + text.splitlines(keepends=True)
    linecache.cache[filename] = (sum(map(len, lines)), None, lines, filename)
    namespace = {**original.fn.__globals__, **_PLAIN_STEPS}
    exec(compile(tree, filename, "exec"), namespace)  # noqa: S102 - the kernel's own source, one node changed
    made: types.FunctionType = namespace[original.fn.__name__]
    if isinstance(original, Kernel):
        compiled = Kernel(made, check=False, intended_races=original.intended_races)
        compiled.signature = original.signature
    else:
        compiled = DeviceFunction(made, check=False)
    name_arrays(made, {node.lineno: node.targets[0].id for node in ast.walk(tree) if isinstance(node, ast.Assign)
                       and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                       and _is_t_call(node.value, ("shared_array", "local_array"))})
    return compiled


def _literal(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except ValueError:
        return _NOT_LITERAL


_NOT_LITERAL = object()


def _only_compared_with(word: str, free: Any, trees: list[ast.AST]) -> bool:
    """Whether every access of array ``word`` in ``trees`` is ``T.atomic_cas(word, i, free, x)`` or
    ``T.atomic_exch(word, i, free)``: a lock word only ever tested against, and set back to, its free value."""
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == word:
                return False
            called = (node.func.attr if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                      and isinstance(node.func.value, ast.Name) and node.func.value.id == "T" else None)
            if called is None or not node.args or not (isinstance(node.args[0], ast.Name) and node.args[0].id == word):
                continue
            position = {"atomic_cas": 2, "atomic_exch": 2}.get(called)
            if position is None or len(node.args) <= position or _literal(node.args[position]) != free:
                return False
    return True


def _maybe_equivalent(kind: str, node: ast.AST, trees: list[ast.AST] = ()) -> str | None:
    """Why a mutant at ``node`` may be equivalent (stated when no hunt finds it), or ``None``; ``trees``: every
    function of the algorithm, to see how else the word is used."""
    if kind == "cas-to-exchange" and all(isinstance(a, ast.Constant) for a in node.args[2:4]):
        return ("a test-and-set (CAS from one constant to another): exchanging the new constant in leaves a word "
                "that already holds it unchanged, so it is equivalent wherever the word holds only those two values")
    free = _literal(node.args[2]) if kind == "cas-to-exchange" and len(node.args) == 4 else _NOT_LITERAL
    if (free is not _NOT_LITERAL and isinstance(node.args[0], ast.Name)
            and _only_compared_with(node.args[0].id, free, trees)):
        return (f"a lock taken by CAS from its free value {free!r}, and every access of {node.args[0].id!r} in the "
                f"algorithm's kernels and steps a CAS from {free!r} or an exchange of {free!r}: where the CAS would "
                f"fail, the exchange writes a held value over a held one and returns it, so the thread backs off as "
                f"before, the word stays held until its holder writes {free!r}, and no access reads who holds it")
    if kind == "atomic-to-plain" and node.func.attr == "atomic_load":
        return ("an atomic load made plain reads the same value under sequential consistency; only the weak "
                "memory model or the race detector could tell them apart")
    if kind == "extra-read" and node.value.func.attr == "atomic_load":
        return ("a plain re-read right after an atomic load returns, under sequential consistency, what the load "
                "would have returned one step later, a schedule the unmutated kernel also runs; only the weak memory "
                "model or the race detector (on an array not declared racy) could tell them apart")
    return None


def mutants(name: str, kinds: tuple[str, ...] = DEFAULT_KINDS) -> list[Mutant]:
    """Every mutant of ``kinds`` of algorithm ``name``'s kernels and steps (see the module notes)."""
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise InvalidArgument(f"kinds={sorted(unknown)}: choose from {KINDS}")
    parsed = []
    for called, original in _functions(name).items():
        try:
            lines, first = inspect.getsourcelines(original.fn)
        except (OSError, TypeError):
            continue
        tree = ast.parse(textwrap.dedent("".join(lines)))
        tree.body[0].decorator_list = []
        ast.increment_lineno(tree, first - 1)
        parsed.append((called, original, tree, dict(enumerate(lines, start=first))))
    trees = [tree for _, _, tree, _ in parsed]
    made = []
    repairs = _repair_kernels(parsed) if "repair-removed" in kinds else set()
    for called, original, tree, text in parsed:
        sites = _sites(tree) + ([("repair-removed", tree.body[0])] if called in repairs else [])
        for kind, node in sites:
            if kind not in kinds:
                continue
            changed = _Mutate((node.lineno, node.col_offset), kind).visit(copy.deepcopy(tree))
            label = f"{called}:{node.lineno}:{kind}"
            made.append(Mutant(name, called, kind, node.lineno, text.get(node.lineno, "").strip(),
                               _rebuilt(original, changed, label),
                               _declared_equivalent(kind, node.lineno, text) or _maybe_equivalent(kind, node, trees)))
    return made


def _declared_equivalent(kind: str, line: int, text: dict[int, str]) -> str | None:
    """The reason a kernel's author gives, in the comment right above a site, for a mutant of ``kind`` there
    being equivalent: ``# equivalent KIND: reason``, continued on the comment lines below it.  It is stated only
    should no hunt find the mutant, as every other reason.

    >>> _declared_equivalent("fence-removed", 3, {1: "    # equivalent fence-removed: a stale read",
    ...                                           2: "    # only costs time", 3: "    T.threadfence()"})
    'declared by the kernel: a stale read only costs time'
    """
    above = line - 1
    while text.get(above, "").strip().startswith("#"):
        above -= 1
    comment = [text[k].strip().lstrip("#").strip() for k in range(above + 1, line)]
    head = f"equivalent {kind}:"
    if not comment or not comment[0].startswith(head):
        return None
    return "declared by the kernel: " + " ".join([comment[0][len(head):].strip(), *comment[1:]])


def _written(tree: ast.AST) -> set[str]:
    """The arrays ``tree`` writes: stores to ``a[i]`` and the first argument of every ``T.atomic_*`` but loads."""
    names = {n.value.id for n in ast.walk(tree) if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)
             and isinstance(n.value, ast.Name)}
    return names | {n.args[0].id for n in ast.walk(tree) if _is_t_call(n, set(_RETURNING) - {"atomic_load"})
                    and n.args and isinstance(n.args[0], ast.Name)}


def _repair_kernels(parsed: list) -> set[str]:
    """The kernels that repair or reset what other kernels race on by design: a kernel declaring no intended race
    of its own that writes (itself or through the steps it calls) an array another kernel of the algorithm names in
    its ``intended_races``."""
    trees = {called: tree for called, _, tree, _ in parsed}
    kernels = {called: original for called, original, _, _ in parsed if isinstance(original, Kernel)}
    found = set()
    for called, compiled in kernels.items():
        if compiled.intended_races:
            continue
        racy = set().union(*(set(other.intended_races or ()) for k, other in kernels.items() if k != called))
        writes = set().union(*(_written(trees[f]) for f in {called} | (_called(compiled) & set(trees))))
        if writes & racy:
            found.add(called)
    return found


def _models(mutant: Mutant) -> list[tuple[str, str]]:
    """The memory and warp models a mutant is hunted under: those where its kind of change can show."""
    if mutant.kind == "fence-removed":
        return [("weak", "independent")]
    if mutant.kind in ("barrier-removed", "shuffle-lane"):
        return [("sc", "independent"), ("sc", "lockstep")]
    if mutant.equivalent_if_unfound and mutant.kind in ("atomic-to-plain", "extra-read") \
            or mutant.kind == "lock-released-early":
        return [("sc", "independent"), ("weak", "independent")]
    return [("sc", "independent")]


def score(name: str, *, budget: int = 60, random_inputs: int = 4, races: str = "raise", seed: int = 0,
          kinds: tuple[str, ...] = DEFAULT_KINDS, progress: Callable[[Mutant, dict], None] | None = None,
          shrink_time: float | None = 30.0, client: Any = None, time_limit: float | None = 120.0) -> dict[str, Any]:
    """Hunt every mutant of algorithm ``name`` (:func:`mutants`) and sort it: the mutation score per kernel.

    Each mutant gets ``budget`` schedules over ``random_inputs`` inputs and the launch paths
    (:data:`.paths.LAUNCH_PATHS`) on which the unmutated algorithm launches a kernel that runs the mutated code,
    under the models its kind needs; ``races="raise"`` counts an undeclared data
    race as found, and a failure found is shrunk (``shrink_time`` seconds at most; ``None``: not shrunk).  A
    mutant's hunt, shrinking included, stops at ``time_limit`` seconds of wall-clock time (``None``: none), inside a
    run if need be (the simulator's ``deadline``); a mutant stopped so before any failure counts as not found, with
    that reason (undecided: only a larger limit decides it).  A hang is a finding of its own, replayable: a launch
    past ``max_steps``, or a run whose host code launches more than ``max_launches`` kernels (a driver loop
    relaunching for ever), is a ``Livelock``.  The
    unmutated algorithm is hunted first the same way: a finding there ends the run (``InvalidArgument``), as a
    mutation score means nothing over a false alarm.  With ``client`` (a ``dask.distributed.Client``) each
    mutant is hunted on a Dask worker, which makes it again from the kernels' source by its name.

    Returns
    -------
    dict
        ``rows`` (one per mutant: ``mutant``, ``function``, ``kind``, ``line``, ``text``, ``verdict`` —
        ``"found"``, ``"not found"``, ``"equivalent"`` or ``"unreached"`` —, ``reason``, ``seconds``,
        ``finding``, and for a mutant found ``preemptions`` (after shrinking) and ``preemptions_before``),
        ``per_function`` (counts of each verdict) and ``score`` (found over found + not found).
    """
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                   or not time_limit > 0):
        raise InvalidArgument(f"time_limit must be a number of seconds > 0 or None, got time_limit={time_limit!r}")
    settings = {"budget": budget, "random_inputs": random_inputs, "races": races, "seed": seed,
                "shrink_time": shrink_time, "time_limit": time_limit}
    launched = _control(name, settings)
    made = mutants(name, kinds)
    if client is None:
        rows = []
        for mutant in made:
            rows.append(mutant_row(name, mutant, launched, settings))
            if progress is not None:
                progress(mutant, rows[-1])
    else:
        from distributed import as_completed

        futures = {client.submit(mutant_row, name, mutant.name, launched, settings, pure=False): mutant
                   for mutant in made}
        done = {}
        for future in as_completed(futures):
            done[futures[future].name] = future.result()
            if progress is not None:
                progress(futures[future], done[futures[future].name])
        rows = [done[mutant.name] for mutant in made]
    per_function: dict[str, dict[str, int]] = {}
    for row in rows:
        counts = per_function.setdefault(row["function"], {"found": 0, "not found": 0, "equivalent": 0,
                                                           "unreached": 0})
        counts[row["verdict"]] += 1
    found = sum(row["verdict"] == "found" for row in rows)
    judged = found + sum(row["verdict"] == "not found" for row in rows)  # equivalent and unreached not judged
    return {"algorithm": name, "budget": budget, "random_inputs": random_inputs, "races": races,
            "shrink_time": shrink_time, "time_limit": time_limit, "rows": rows, "per_function": per_function,
            "found": found, "judged": judged, "score": round(found / judged, 3) if judged else None}


def _control(name: str, settings: dict[str, Any]) -> list[tuple[dict[str, Any], list[str], float]]:
    """Hunt the unmutated algorithm on each launch path, under every model, as a mutant is hunted: each path's
    options, the kernels it launched and its seconds a schedule.  A finding ends the run: no mutation score over a
    false alarm."""
    from .paths import paths_of

    paths = paths_of(name)
    share = {**settings, "budget": max(1, settings["budget"] // len(paths))}
    launched = []
    for path in paths:
        control = _hunted(name, None, "all", share, shrink=False, paths=[path])
        if control.found:
            raise InvalidArgument(f"the unmutated {name} fails its hunt ({control.failure.kind}: "
                                  f"{control.failure.message.splitlines()[0]}): no mutation score over a false alarm")
        launched.append((path, sorted(control.coverage.kernels), control.seconds / max(1, control.schedules)))
    return launched


def _hunted(name: str, kernels: Any, models: Any, settings: dict[str, Any], shrink: bool, paths: list[dict],
            deadline: float | None = None):
    from .hunt import hunt

    shrink_time = settings["shrink_time"]
    return hunt(name, random_inputs=settings["random_inputs"], budget=settings["budget"], seed=settings["seed"],
                kernels=kernels, races=settings["races"], models=models, paths=paths,
                shrink=shrink and shrink_time is not None, shrink_time=shrink_time or None,
                sim_options=None if deadline is None else {"deadline": deadline})


def mutant_row(name: str, mutant: Mutant | str, launched: list[tuple[dict[str, Any], list[str], float]],
               settings: dict[str, Any]) -> dict[str, Any]:
    """One row of :func:`score`: ``mutant`` of algorithm ``name`` (or its name: it is made again here, as on a
    Dask worker) hunted as ``settings`` say on the launch paths that launch a kernel calling it (``launched``: each
    path's options, the kernels the unmutated algorithm launched there and its seconds a schedule), the whole budget
    shared among them, the paths that launch the most such kernels first, the cheaper a schedule the sooner among
    equals; or unreached, when none does."""
    from .paths import NEEDS

    if isinstance(mutant, str):
        kind = mutant.rsplit(":", 1)[-1]
        mutant = next(m for m in mutants(name, (kind,)) if m.name == mutant)
    start = time.perf_counter()
    row = {"mutant": mutant.name, "function": mutant.function, "kind": mutant.kind, "line": mutant.line,
           "text": mutant.text, "finding": None, "reason": None}
    reaches = [k for k, f in _functions(name).items() if isinstance(f, Kernel)
               and (k == mutant.function or mutant.function in _called(f))]
    # the paths that launch the most kernels running the mutated code first; among those, the cheaper a schedule the
    # sooner: more schedules before the time limit (ROMA's thread per edge before its blocks, Louvain's one block
    # before its block kernels)
    paths = [path for path, kernels, _ in sorted(launched, key=lambda each: (-len(set(each[1]) & set(reaches)),
                                                                            each[2]))
             if set(kernels) & set(reaches)]
    if not paths:
        row["verdict"] = "unreached"
        row["reason"] = "; ".join(sorted({NEEDS.get(k, f"{k} never launched") for k in reaches}))
    else:
        limit = settings.get("time_limit")
        try:
            result = _hunted(name, mutant.kernels, _models(mutant), settings, shrink=True, paths=paths,
                             deadline=None if limit is None else start + limit)
        except OutOfTime:  # undecided: a hang shows as a Livelock (max_steps, max_launches), not as slowness
            result = None
            row["verdict"], row["timed_out"] = "not found", True
            row["reason"] = (f"its hunt ran past the time limit of {limit:g} s before any failure and was stopped "
                             f"there: undecided, not a hang (a run that never ends is a Livelock finding); a larger "
                             f"--time-limit decides it")
            if mutant.equivalent_if_unfound:  # unfound as far as it went, and argued unobservable
                row["verdict"] = "equivalent"
                row["reason"] += f"; {mutant.equivalent_if_unfound}"
        if result is not None:
            row["verdict"] = ("found" if result.found else "equivalent" if mutant.equivalent_if_unfound
                              else "not found")
        if result is not None and result.found:
            failure = result.failure
            report = failure.shrink_report
            row["preemptions"] = failure.preemptions
            row["preemptions_before"] = report.get("preemptions_before", failure.preemptions)
            shrunk = (f", shrunk from {row['preemptions_before']} to {failure.preemptions} preemption(s)"
                      + ("" if report.get("finished", True) else " (out of shrinking time)") if report.get("shrunk")
                      else f", {failure.preemptions} preemption(s), not shrunk")
            row["finding"] = f"{failure.kind} after {result.schedules} schedule(s){shrunk}"
        elif result is not None:
            row["reason"] = (f"no failure in {result.schedules} schedule(s) under {_models(mutant)}"
                             + (f"; {mutant.equivalent_if_unfound}" if mutant.equivalent_if_unfound else ""))
    row["seconds"] = round(time.perf_counter() - start, 2)
    return row


def _called(compiled: Kernel) -> set[str]:
    from gpusim.language.variants import device_names

    return device_names(compiled)
