"""The deterministic interleaving simulator (``Device("sim")``).

Modules: :mod:`.language` (``T`` for simulated threads), :mod:`.memory` (arrays whose every
access is a scheduling point), :mod:`.policies` (who runs next), :mod:`.scheduler` (the
execution state and the detectors), :mod:`.trace` (runs and traces), :mod:`.tokens` (replay
tokens and their format versions) and :mod:`.backend` (the ``Device`` backend).

The names below are the simulator's public surface: what the explorer, the teaching helpers and the
tests build on, without reaching into its modules.

- Policies (who runs next): :class:`Policy`, the base a policy derives from (``start``, ``choose``,
  ``finish``); :class:`Sequential`, :class:`RoundRobin`, :class:`RandomWalk`, :class:`PCT`,
  :class:`Preemptions`, :class:`Replay`; :func:`make_policy` (a name or a policy object to a policy);
  :data:`NEVER` (a ``choose`` that needs no call before the run's end returns it as its next step).
- Running: :class:`SimBackend` (``Device("sim")``), :data:`ENGINES` (the values of ``engine=``),
  :class:`Limits` (the step budgets), :class:`SimArray`.
- What a run leaves: :class:`Run`, :class:`TraceEvent`, :func:`format_events`.
- Replay tokens: :func:`encode_token`, :func:`decode_token`, :func:`read_token` (a :class:`Token`: format,
  the gpusim version that made it, launches), :data:`TOKEN_FORMAT`.

>>> from gpusim.backends.sim import ENGINES, TOKEN_FORMAT
>>> ENGINES, TOKEN_FORMAT
(('reference', 'compiled', 'auto'), 2)
"""

from . import language
from .backend import ENGINES, SimBackend
from .memory import SimArray
from .policies import NEVER, PCT, Policy, Preemptions, RandomWalk, Replay, RoundRobin, Sequential, make_policy
from .scheduler import Limits
from .tokens import TOKEN_FORMAT, Token, decode_token, encode_token, read_token
from .trace import Run, TraceEvent, format_events

__all__ = [
    "ENGINES", "NEVER", "PCT", "TOKEN_FORMAT", "Limits", "Policy", "Preemptions", "RandomWalk", "Replay", "RoundRobin",
    "Run", "Sequential", "SimArray", "SimBackend", "Token", "TraceEvent", "decode_token", "encode_token",
    "format_events", "language", "make_policy", "read_token",
]
