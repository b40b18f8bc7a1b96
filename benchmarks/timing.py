"""Timing helpers shared by the benchmark scripts (run as ``python benchmarks/NAME.py``)."""

from __future__ import annotations

import time


def timed(function):
    """``(seconds, result)`` of one call of ``function()``."""
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def validation_row(result, seconds: float) -> dict:
    """The result's check against its input (``result.validate()``, lazy: the call itself never waits for it;
    the CLI and the tests always run it), timed beside the call: ``validate_seconds``, the whole call
    ``seconds_validated`` with it, and ``valid``."""
    check_seconds, _ = timed(lambda: result.problem)
    return {"validate_seconds": check_seconds, "seconds_validated": seconds + check_seconds, "valid": result.valid}
