"""The one dispatcher: run a registered algorithm on the backend asked for, or the one ``"auto"`` chooses.

``backend="cpu"`` is a choice of the dispatcher, not a :class:`~gpusim.runtime.device.Device`: a
sequential reference runs there, and a GPU algorithm asked to run there runs its sequential
counterpart (``on_cpu``) or its own reference.  ``stats["chosen"]`` of every result says what ran
and why.

>>> import gpusim.algorithms
>>> from gpusim.types.graphs import BipartiteGraph
>>> graph = BipartiteGraph.from_edges([0, 1, 1], [0, 0, 1])
>>> result = dispatch("bipartite", graph, "gpr", "cpu", size=graph.n_edges)
>>> result.algorithm, result.size, result.stats["chosen"]
('pr', 2, 'asked for: ran its sequential counterpart pr')
"""

from __future__ import annotations

from typing import Any

from gpusim.errors import InvalidArgument
from gpusim.runtime.device import BACKEND_CHOICES, choose_backend
from gpusim.runtime.registry import lookup

__all__ = ["dispatch"]


def dispatch(problem: str, data: Any, algorithm: str, backend: str = "auto", *, size: int, **options) -> Any:
    """Run ``algorithm`` of ``problem`` on ``data``; ``size`` (edges, list entries) guides ``"auto"``
    (:func:`~gpusim.runtime.device.choose_backend`)."""
    entry = lookup(problem, algorithm)
    if backend not in BACKEND_CHOICES:
        raise InvalidArgument(f"backend={backend!r} is not one of {BACKEND_CHOICES}")
    if not entry.gpu:
        if backend not in ("auto", "cpu"):
            raise InvalidArgument(
                f"{algorithm!r} is a sequential reference: it runs on the cpu backend, not {backend!r}")
        chosen, reason = "cpu", "a sequential reference runs on cpu"
    elif backend == "cpu":
        chosen, reason = "cpu", "asked for"
    elif backend == "auto" and options.get("device") is not None:
        chosen, reason = options["device"].backend, "the device given"
    else:
        chosen, reason = choose_backend(backend, None if _needs_a_device(options) else size)
    if chosen == "cpu" and "cpu" not in entry.backends:
        entry = lookup(problem, entry.on_cpu)
        reason = f"{reason}: ran its sequential counterpart {entry.name}"
    result = _run(entry, data, chosen, options)
    _stats(result)["chosen"] = reason
    return result


def _needs_a_device(options: dict) -> bool:
    """Whether the options ask for something only a device gives (a result left on it, several GPUs, a kernel
    variant): then ``"auto"`` does not send a small input to the CPU engine."""
    return (options.get("output") == "device" or options.get("devices") is not None
            or options.get("client") is not None or options.get("kernels") is not None)


def _run(entry: Any, data: Any, chosen: str, options: dict) -> Any:
    """``entry.run`` on ``chosen``; on a GPU backend (given or a device's) the first compile of the entry's kernels on
    this machine says how many there are (:func:`gpusim.backends.kernel_cache.expecting`)."""
    device = options.get("device")
    where = getattr(device, "backend", chosen)
    if where not in ("numba", "cupy") or not entry.kernels:
        return entry.run(data, backend=chosen, **options)
    from gpusim.backends.kernel_cache import expecting

    with expecting(where, entry.kernels):
        return entry.run(data, backend=chosen, **options)


def _stats(result: Any) -> dict:
    """A result's ``stats`` dictionary (a result object's attribute, or a plain dict's key)."""
    return result["stats"] if isinstance(result, dict) else result.stats
