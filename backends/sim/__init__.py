"""The deterministic interleaving simulator (``Device("sim")``).

Modules: :mod:`.language` (``T`` for simulated threads), :mod:`.memory` (arrays whose every
access is a scheduling point), :mod:`.policies` (who runs next), :mod:`.scheduler` (the
execution state and the detectors), :mod:`.trace` (runs, traces, replay tokens) and
:mod:`.backend` (the ``Device`` backend).
"""

from . import language
from .backend import SimBackend
from .memory import SimArray
from .policies import PCT, Policy, Preemptions, RandomWalk, Replay, RoundRobin, Sequential, make_policy
from .scheduler import Limits
from .trace import Run, TraceEvent, decode_token, encode_token, format_events

__all__ = [
    "PCT", "Limits", "Policy", "Preemptions", "RandomWalk", "Replay", "RoundRobin", "Run", "Sequential",
    "SimArray", "SimBackend", "TraceEvent", "decode_token", "encode_token", "format_events", "language",
    "make_policy",
]
