"""Broken twin of the cheap matching kernel: the claim of a row a plain write instead of a CAS.

The twin replaces one step of :func:`~gpusim.algorithms.bipartite.kernels_cheap.cheap_claim`,
:func:`~gpusim.algorithms.bipartite.kernels_cheap.claim_row`, with :func:`claim_row_without_cas`: two
columns that both read a row as free both write themselves into it and both believe they won, so one
column is matched to a row that is matched to the other.  The zoo entry ``cheap_claim_no_cas`` explores it
on two columns that share their only row.

>>> sorted(cheap_claim_without_cas)
['claim_row']
>>> from gpusim.zoo import ZOO
>>> ZOO["cheap_claim_no_cas"].fixed.name
'cheap_claim_no_cas.fixed'
"""

from __future__ import annotations

import numpy as np

from gpusim import device
from gpusim.algorithms.bipartite.kernels_cheap import cheap_claim
from gpusim.language.variants import with_devices
from gpusim.runtime.device import Device
from gpusim.types.graphs import BipartiteGraph

from .entry import add_entry

__all__ = ["cheap_claim_without_cas", "claim_row_without_cas"]


@device
def claim_row_without_cas(row_match, row, col):
    """:func:`~gpusim.algorithms.bipartite.kernels_cheap.claim_row` with its compare-and-swap turned into a
    plain write: the column always believes it won the row it read as free, even when another column's
    write came between its read and its own write."""
    row_match[row] = col
    return 1


#: The cheap matching kernel without the CAS: ``with_devices(cheap_claim, cheap_claim_without_cas)``.
cheap_claim_without_cas = {"claim_row": claim_row_without_cas}

#: Two columns whose only row is row 0, and a third column with rows 0 and 1.
_SHARED_ROW = BipartiteGraph.from_edges([0, 0, 0, 1], [0, 1, 2, 2])


def _claim(variant: dict):
    def run(dev: Device) -> str | None:
        graph = _SHARED_ROW
        nr, nc = graph.n_rows, graph.n_cols
        rm, cm = dev.full(nr, -1, np.int32), dev.full(nc, -1, np.int32)
        args = (dev.array(graph.col_ptr), dev.array(graph.col_adj), rm, cm, nc)
        dev.launch(with_devices(cheap_claim, variant), 1, 32, args)
        r, c = dev.to_host(rm), dev.to_host(cm)
        bad = [col for col in range(nc) if c[col] >= 0 and r[c[col]] != col]
        return f"columns {bad} are matched to rows matched to other columns: row_match = {r.tolist()}" if bad else None
    return run


add_entry(
    "cheap_claim_no_cas", _claim(cheap_claim_without_cas), _claim({}), threads=32,
    source="the cheap matching (Deveci et al., Euro-Par 2013 §4 and ICPP 2013 §IV) as a kernel: "
           "kernels_cheap.cheap_claim, claim_row's CAS",
    wrong="two columns read one row as free and both write themselves into it; both keep the row, and the "
          "matching is inconsistent",
    fix="claim the row with a compare-and-swap from -1: exactly one column wins, the other reads on",
)
