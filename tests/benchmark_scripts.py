"""The scripts of ``benchmarks/`` as modules, for the tests of their CPU half."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load(name: str):
    """``benchmarks/<name>.py`` as the module ``bench_<name>`` (registered, as a dataclass in it needs), with
    ``benchmarks/`` importable while it loads (the scripts import each other by name)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
    module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


class Released:
    """A call's result that writes ``"released"`` to ``events`` when it is freed: the timing loops' tests see when
    each result goes, against when each call starts."""

    def __init__(self, events: list[str]):
        self.events, self.stats = events, {"seconds": {"work": 1e-9}}

    def __del__(self):
        self.events.append("released")
