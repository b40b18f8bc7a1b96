"""The Hypothesis strategy for schedules (re-exported as ``gpusim.testing.strategies.schedules``).

A schedule is drawn as a *few* choices — a short list of preemptions, or the seed and depth of
a PCT run — never one draw per step, so that Hypothesis shrinks a failing schedule to the
fewest preemptions at the earliest steps.
"""

from __future__ import annotations

from hypothesis import strategies as st

from gpusim.errors import InvalidArgument

from .policies import PCT, Policy, Preemptions

__all__ = ["schedules"]


def schedules(max_preemptions: int = 3, max_step: int = 4096, max_threads: int = 64,
              pct: bool = True) -> st.SearchStrategy[Policy]:
    """Draw a scheduling policy to pass as ``Device("sim", policy=...)``.

    Parameters
    ----------
    max_preemptions:
        At most this many preemptions in a drawn :class:`~gpusim.backends.sim.policies.Preemptions`.
    max_step:
        Preemption steps are drawn from ``[0, max_step]`` (global steps, across launches).
    max_threads:
        Thread choices are drawn from ``[0, max_threads)`` (taken modulo the runnable threads).
    pct:
        Also draw :class:`~gpusim.backends.sim.policies.PCT` policies (seed, depth 1–3).

    Shrinking: toward ``Preemptions([])`` (the sequential schedule), then fewer preemptions,
    earlier steps, and lower-numbered threads; PCT draws shrink toward seed 0 and depth 1.

    Example
    -------
    >>> from hypothesis import given
    >>> @given(schedule=schedules(max_preemptions=1, pct=False))
    ... def at_most_one(schedule):
    ...     assert len(schedule.preemptions) <= 1
    >>> at_most_one()
    """
    for name, value, low in (("max_preemptions", max_preemptions, 0), ("max_step", max_step, 0),
                             ("max_threads", max_threads, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise InvalidArgument(f"{name} must be an integer >= {low}, got {name}={value!r}")
    preemption = st.tuples(st.integers(0, max_step), st.integers(0, max_threads - 1))
    lists = st.lists(preemption, max_size=max_preemptions).map(Preemptions)
    if not pct:
        return lists
    return lists | st.builds(PCT, seed=st.integers(0, 2**32 - 1), depth=st.integers(1, 3))
