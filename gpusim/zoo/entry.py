"""A zoo entry: a broken twin and its fixed twin, each a registered scenario, and where the bug comes from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpusim.explore.scenario import Scenario, register
from gpusim.runtime.device import Device

__all__ = ["ZOO", "ZooEntry", "add_entry"]


@dataclass(frozen=True)
class ZooEntry:
    """A bug of the zoo: ``broken`` (scenario ``name``) and ``fixed`` (scenario ``name.fixed``).

    ``source`` cites the paper (seed and algorithm number) or the classic source; ``wrong`` says what
    goes wrong and ``fix`` what repairs it.  ``expect_found`` is ``False`` for a documented non-bug:
    a twin one might expect to fail that is correct.  ``needs`` names the simulator features it uses
    (``"weak"`` memory, ``"lockstep"`` warps).
    """

    name: str
    broken: Scenario
    fixed: Scenario
    source: str
    wrong: str
    fix: str
    expect_found: bool = True
    needs: tuple[str, ...] = ()
    policy: str = "random"  # the explorer that finds it within 1,000 schedules

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, "wrong": self.wrong, "fix": self.fix,
                "expect_found": self.expect_found, "needs": list(self.needs), "policy": self.policy}


ZOO: dict[str, ZooEntry] = {}


def add_entry(name: str, broken: Callable[[Device], str | None], fixed: Callable[[Device], str | None], *,
              source: str, wrong: str, fix: str, threads: int, options: dict[str, Any] | None = None,
              expect_found: bool = True, needs: tuple[str, ...] = (), policy: str = "random") -> ZooEntry:
    """Register ``name`` (broken) and ``name.fixed`` as scenarios and the pair as a zoo entry."""
    options = dict(options or {})
    entry = ZooEntry(
        name,
        register(Scenario(name, broken, options, threads, f"broken: {wrong}")),
        register(Scenario(f"{name}.fixed", fixed, options, threads, f"fixed: {fix}")),
        source, wrong, fix, expect_found, needs, policy,
    )
    ZOO[name] = entry
    return entry
