"""The one registry of algorithms: what each is, where it runs, and the paper it comes from.

An algorithm registers itself where it is defined, with :func:`register` (as NetworkX's
``_dispatchable`` does), so this module sits low and imports no algorithm.  The command line's
algorithm lists, the documentation's algorithm index and the cross-backend tests read it;
:func:`gpusim.runtime.dispatch.dispatch` runs what it holds.

>>> import gpusim.algorithms                     # the families register their algorithms
>>> from gpusim.runtime.registry import lookup
>>> gpr = lookup("bipartite", "gpr")
>>> gpr.backends, gpr.on_cpu, gpr.gpu
(('sim', 'numba', 'cupy'), 'pr', True)
>>> gpr.citation
'Deveci et al., ICPP 2013, Alg. 3-9'
>>> print(gpr.references[0].full)              # doctest: +NORMALIZE_WHITESPACE
M. Deveci, K. Kaya, B. Uçar, Ü. V. Çatalyürek. A push-relabel-based maximum cardinality bipartite matching
algorithm on GPUs. ICPP, 42nd International Conference on Parallel Processing, pp. 21-29, IEEE, 2013.
https://doi.org/10.1109/ICPP.2013.11
>>> lookup("communities", "triple")
Traceback (most recent call last):
gpusim.errors.InvalidArgument: algorithm='triple' is not one of ('blondel', 'louvain') for communities
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from typing import Any

from gpusim.errors import InvalidArgument
from gpusim.runtime.references import Reference, citations

__all__ = ["DEVICE_BACKENDS", "Algorithm", "algorithms", "defer", "lookup", "names", "problems", "register"]

#: The backends that launch kernels; an algorithm that runs on them is a GPU algorithm.
DEVICE_BACKENDS = ("sim", "numba", "cupy")


@dataclass(frozen=True)
class Algorithm:
    """One registered algorithm.

    ``run(data, backend=..., **options)`` returns the result; ``backends`` are those it runs on
    (``"cpu"`` for a sequential reference); ``on_cpu`` names the registered algorithm that
    ``backend="cpu"`` runs instead of a GPU algorithm that has no ``"cpu"`` of its own.  ``paper`` holds the
    keys of its papers in the bibliography (:mod:`gpusim.runtime.references`), ``where`` the algorithms or
    sections of the first that it follows.
    """

    problem: str
    name: str
    run: Callable[..., Any]
    backends: tuple[str, ...]
    title: str
    paper: tuple[str, ...]
    guarantees: str = ""
    on_cpu: str | None = None
    kernels: tuple = ()
    where: str = ""

    @property
    def references(self) -> list[Reference]:
        """Its papers, from the bibliography (:data:`gpusim.runtime.references.REFERENCES`)."""
        return citations(self.paper)

    @property
    def citation(self) -> str:
        """One line: the first paper's short citation and ``where`` in it, then the others', separated by semicolons."""
        first, *others = self.references
        return "; ".join([f"{first.short}, {self.where}" if self.where else first.short,
                          *(other.short for other in others)])

    @property
    def pseudocode(self) -> str:
        """The paper's pseudo-code of the algorithm, as text: each algorithm of the paper headed by its citation
        and algorithm number ("" when there is none).

        The text sits in ``gpusim/runtime/pseudocode/PROBLEM-NAME.txt``; the kernel pages of the
        documentation show it beside the kernels' source.

        >>> import gpusim.algorithms
        >>> print(lookup("bipartite", "apsb").pseudocode.splitlines()[0])
        Deveci et al., Euro-Par 2013, Algorithm 1: SHORTEST AUGMENTING PATHS (APsB)
        """
        text = resources.files(__package__).joinpath("pseudocode", f"{self.problem}-{self.name}.txt")
        return text.read_text(encoding="utf-8") if text.is_file() else ""

    @cached_property
    def gpu(self) -> bool:
        """Whether it launches kernels (on the simulator or a GPU); worked out once, as every call asks it."""
        return any(backend in DEVICE_BACKENDS for backend in self.backends)


_REGISTRY: dict[str, dict[str, Algorithm]] = {}


def register(problem: str, name: str, *, backends: tuple[str, ...], title: str, paper: str | tuple[str, ...],
             where: str = "", guarantees: str = "", on_cpu: str | None = None, kernels: tuple = ()) -> Callable:
    """Decorator: register the function as algorithm ``name`` of ``problem`` (the function is unchanged).

    ``paper`` is a key of the bibliography or several (:mod:`gpusim.runtime.references`; an unknown key is
    refused), ``where`` the algorithms or sections of the first paper that it follows.
    """
    paper = (paper,) if isinstance(paper, str) else tuple(paper)
    citations(paper)

    def decorate(run: Callable) -> Callable:
        family = _REGISTRY.setdefault(problem, {})
        if name in family and family[name].run.__wrapped__ is not run:
            raise ValueError(f"algorithm {name!r} of {problem} is registered twice")
        family[name] = Algorithm(problem, name, _seam(run, tuple(kernels)), tuple(backends), title, paper,
                                 guarantees, on_cpu, tuple(kernels), where)
        return run

    return decorate


def _seam(run: Callable, declared: tuple) -> Callable:
    """``run`` taking ``kernels=`` the same way in every family: a mapping from the name of a kernel it launches
    (or of a ``@device`` step one calls) to its replacement, planted in every launch of the call
    (:func:`gpusim.language.variants.planted`); anything else (a family's own table) goes to ``run`` as is."""

    @functools.wraps(run)
    def seamed(*args: Any, kernels: Any = None, **options: Any) -> Any:
        if kernels is None:
            return run(*args, **options)
        if not isinstance(kernels, Mapping):
            return run(*args, kernels=kernels, **options)
        from gpusim.errors import GpusimInternalError, InvariantViolation
        from gpusim.language.variants import planted

        try:
            with planted(kernels, declared):
                return run(*args, **options)
        except GpusimInternalError as found:  # the driver's own check of its result: the planted kernels' fault
            said = str(found).removeprefix("[gpusim internal bug] ").split(" -- this is a bug in gpusim")[0]
            raise InvariantViolation(f"with kernels {sorted(kernels)} planted: {said}") from None

    return seamed


#: What imports the family of a problem not asked about yet (:func:`defer`), by problem.
_DEFERRED: dict[str, Callable[[], object]] = {}


def defer(problem: str, load: Callable[[], object]) -> None:
    """Have ``load()``, which imports the family that registers ``problem``'s algorithms, run when the registry is
    first asked about ``problem`` (or about every problem): a command about stable marriage imports no Louvain."""
    _DEFERRED.setdefault(problem, load)


def _settle(problem: str | None = None) -> None:
    for asked in (list(_DEFERRED) if problem is None else [problem]):
        load = _DEFERRED.pop(asked, None)
        if load is not None:
            load()


def problems() -> tuple[str, ...]:
    """The problems with registered algorithms, in the order they were registered."""
    _settle()
    return tuple(_REGISTRY)


def algorithms(problem: str | None = None) -> list[Algorithm]:
    """The registered algorithms of ``problem`` (of every problem when ``None``)."""
    _settle(problem)
    families = [_REGISTRY.get(problem, {})] if problem else list(_REGISTRY.values())
    return [entry for family in families for entry in family.values()]


def names(problem: str) -> tuple[str, ...]:
    """The names of the registered algorithms of ``problem``."""
    _settle(problem)
    return tuple(_REGISTRY.get(problem, {}))


def lookup(problem: str, name: Any) -> Algorithm:
    """The algorithm ``name`` of ``problem``; an unknown name is an ``InvalidArgument`` naming the choices."""
    _settle(problem)
    family = _REGISTRY.get(problem, {})
    if not isinstance(name, str) or name not in family:
        raise InvalidArgument(f"algorithm={name!r} is not one of {tuple(family)} for {problem}")
    return family[name]
