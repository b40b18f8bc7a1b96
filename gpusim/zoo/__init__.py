"""The bug zoo: broken twins of real kernels, each beside its fixed twin, as explorable scenarios.

Each entry (:class:`ZooEntry`) registers two scenarios, ``name`` (the broken twin) and
``name.fixed``, and documents the paper (seed and algorithm number) or the classic source, what goes
wrong and what the fix is.  ``gpusim explore --zoo`` runs them all.

>>> "lost_update" in ZOO and ZOO["lost_update"].fixed.name
'lost_update.fixed'
"""

from __future__ import annotations

from . import cheap_twins, classic, louvain_twins, seeds  # noqa: F401  (register the entries)
from .entry import ZOO, ZooEntry

__all__ = ["ZOO", "ZooEntry"]
