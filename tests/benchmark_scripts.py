"""The modules of the ``benchmarks`` package (``python -m benchmarks``), for the tests of their CPU half."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"


def load(name: str):
    """``benchmarks.<name>``, imported with the repository's root on ``sys.path`` (appended: an installed gpusim
    stays first)."""
    if str(ROOT) not in sys.path:
        sys.path.append(str(ROOT))
    return importlib.import_module(f"benchmarks.{name}")


class Released:
    """A call's result that writes ``"released"`` to ``events`` when it is freed: the timing loops' tests see when
    each result goes, against when each call starts."""

    def __init__(self, events: list[str]):
        self.events, self.stats = events, {"seconds": {"work": 1e-9}}

    def __del__(self):
        self.events.append("released")
