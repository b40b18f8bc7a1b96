"""Scenarios: a set-up, one or more launches, and an invariant over the results, found by name.

A :class:`Scenario` is what the explorer runs once per schedule: ``run(device)`` allocates and fills
arrays on the given simulator ``Device``, launches kernels, copies results back and returns ``None``
when the invariant holds or a message saying what went wrong.  A :class:`~gpusim.errors.KernelBug`
raised by the simulator (deadlock, livelock, out-of-bounds, divergence, a data race) is a failure
too, and so is any other exception (a driver's own check, host code, the oracle): its class name is the
failure's kind — except those that say gpusim cannot run the scenario as asked (an engine's refusal, a
replay token that does not fit, a kernel outside the language), which end the exploration.  Scenarios
are registered by name so that the command line and replay tokens can find them.

Example
-------
>>> import numpy as np
>>> from gpusim import T, kernel
>>> @kernel(signature="int32[:]")
... def bump(counter):
...     T.atomic_add(counter, 0, 1)
>>> def body(dev):
...     counter = dev.zeros(1, np.int32)
...     dev.launch(bump, grid=1, block=4, args=(counter,))
...     total = int(dev.to_host(counter)[0])
...     return None if total == 4 else f"counter = {total}, expected 4"
>>> scenario = Scenario("doc.bump", body, threads=4)
>>> scenario.attempt(policy="random", seed=3) is None
True
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from gpusim.errors import (
    BackendUnavailable,
    InvalidArgument,
    InvalidArgumentType,
    KernelBug,
    KernelSyntaxError,
    OutOfTime,
    ReplayMismatch,
)
from gpusim.language.variants import KernelsRefused
from gpusim.runtime.device import Device

__all__ = ["Outcome", "Scenario", "get_scenario", "register", "scenario_names", "sim_supports"]

_REGISTRY: dict[str, Scenario] = {}
#: Exceptions that say gpusim cannot run the scenario as asked, not that the code under test failed: they
#: end the exploration with their one-line message (as do the engines' own refusals); ``OutOfTime`` (a caller's
#: deadline passed) ends it for the caller to report.
_NOT_FINDINGS = (ReplayMismatch, KernelSyntaxError, BackendUnavailable, KernelsRefused, OutOfTime)


class Outcome(NamedTuple):
    """A failing run: the kind (``"invariant"`` or the ``KernelBug`` class name), the message, the device."""

    kind: str
    message: str
    device: Device


@dataclass(frozen=True)
class Scenario:
    """Set-up, launches and invariant: ``run(device) -> None | message``.

    Parameters
    ----------
    name:
        Unique name (the zoo uses ``entry`` and ``entry.fixed``).
    run:
        ``run(device)`` does the set-up and the launches on ``device`` and returns ``None`` when the
        invariant holds, else a message.  It must be deterministic given the device's schedule.
    options:
        Extra simulator options for ``Device("sim", ...)``: ``max_steps``, ``livelock_steps``, and
        the memory model or warp mode (``memory="weak"``, ``warps="lockstep"``, ``races="raise"``).
    threads:
        Threads per launch (an upper estimate), for the Hypothesis schedule strategy.
    description:
        One line for listings.
    kernels:
        The names of the kernels it can launch (an algorithm's), so that the coverage note can say
        which were never launched.
    """

    name: str
    run: Callable[[Device], str | None]
    options: dict[str, Any] = field(default_factory=dict)
    threads: int = 32
    description: str = ""
    kernels: tuple[str, ...] = ()

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise InvalidArgumentType(f"a scenario name must be a non-empty string, got {self.name!r}")
        if not callable(self.run):
            raise InvalidArgumentType(f"scenario {self.name!r}: run must be callable, got {self.run!r}")

    def device(self, **sim_options: Any) -> Device:
        """A fresh simulator device with this scenario's options (``sim_options`` override them)."""
        return Device("sim", **{"races": "off", **self.options, **sim_options})  # explore asks for races itself

    def attempt(self, **sim_options: Any) -> Outcome | None:
        """Run once on ``self.device(**sim_options)``; the failure, or ``None`` when the invariant held."""
        return self.execute(**sim_options)[0]

    def execute(self, **sim_options: Any) -> tuple[Outcome | None, Device]:
        """Run once; the failure (or ``None``) and the device, whose ``runs`` hold what happened."""
        dev = self.device(**sim_options)
        try:
            message = self.run(dev)
        except KernelBug as bug:
            return Outcome(type(bug).__name__, bug.summary, dev), dev
        except _NOT_FINDINGS:
            raise
        except Exception as error:  # noqa: BLE001 - host code, an oracle, a driver's own check: a finding too
            if type(error).__module__.startswith("gpusim.backends."):
                raise  # an engine refusing the launch (the compiled engine's limits), not the code under test
            text = str(error).splitlines()[0] if str(error) else ""
            where = f" in {dev.runs[-1].kernel}" if dev.runs else ""
            return Outcome(type(error).__name__, f"{type(error).__name__} raised after launch {len(dev.runs)}"
                           f"{where}: {text}", dev), dev
        if message is None:
            return None, dev
        return Outcome("invariant", str(message), dev), dev


def register(scenario: Scenario, replace: bool = False) -> Scenario:
    """Add ``scenario`` to the registry (so ``replay`` and the command line find it by name); return it."""
    if not isinstance(scenario, Scenario):
        raise InvalidArgumentType(f"register expects a Scenario, got {scenario!r}")
    if scenario.name in _REGISTRY and not replace and _REGISTRY[scenario.name] is not scenario:
        raise InvalidArgument(f"a scenario named {scenario.name!r} is already registered")
    _REGISTRY[scenario.name] = scenario
    return scenario


#: Modules that build scenarios from their names, by prefix: ``algorithm:NAME:...`` is a registered
#: algorithm on a named input (:mod:`gpusim.explore.algorithm`), so its replay tokens find it again.
SCENARIO_BUILDERS = {"algorithm:": "gpusim.explore.algorithm"}

#: Modules whose import registers scenarios: the zoo's broken and fixed twins.  Loaded by name on the
#: first lookup, so that every name resolves while the explorer depends on no catalogue (the zoo
#: builds on the explorer; ``lint-imports`` keeps it that way, docs/architecture.md).
SCENARIO_CATALOGUES = ("gpusim.zoo",)


def _load_catalogues() -> None:
    for module in SCENARIO_CATALOGUES:
        importlib.import_module(module)


def get_scenario(name: str | Scenario) -> Scenario:
    """The registered scenario ``name`` (the zoo's are always there), or ``name`` itself if a Scenario."""
    if isinstance(name, Scenario):
        return name
    if not isinstance(name, str):
        raise InvalidArgumentType(f"scenario must be a name or a Scenario, got {name!r}")
    _load_catalogues()
    for prefix, module in SCENARIO_BUILDERS.items():
        if name.startswith(prefix) and name not in _REGISTRY:
            return importlib.import_module(module).scenario_from_name(name)
    if name not in _REGISTRY:
        raise InvalidArgument(f"scenario={name!r} is not registered; known: {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name]


def scenario_names() -> list[str]:
    """Every registered scenario's name, sorted."""
    _load_catalogues()
    return sorted(_REGISTRY)


def sim_supports(option: str, value: str | None = None) -> bool:
    """Whether this build's simulator takes ``Device("sim", option=value)`` and can launch with it."""
    from gpusim.backends.sim import SimBackend

    if option not in inspect.signature(SimBackend.__init__).parameters:
        return False
    if value is None:
        return True
    from gpusim.teaching.demo import racy_count

    try:
        dev = Device("sim", **{option: value})
        dev.launch(racy_count, grid=1, block=2, args=(dev.zeros(1, "int32"), 2))
    except Exception:  # noqa: BLE001 - a feature still being built: leave its entries out
        return False
    return True
