"""G-PR's active lists are compacted by every block at once, tile by tile, in id order (Deveci et al., ICPP 2013,
§III-C2): checked against NumPy's compaction on lists of several tiles, with blocks that take several tiles in turn
and the race detector on."""

from __future__ import annotations

import numpy as np
import pytest

from gpusim import Device
from gpusim.algorithms.bipartite.kernels_push_relabel import (
    COMPACT_TILE,
    compact_active,
    count_tiles,
    list_free_columns,
    offset_tiles,
)


def _compact(dev, source, free_columns, writer, targets, grid):
    n = source.size
    tiles = -(-n // COMPACT_TILE)
    counts, length = dev.zeros(tiles + 1, np.int32), dev.zeros(1, np.int32)
    src = dev.array(source)
    dev.launch(count_tiles, grid, COMPACT_TILE // 8, (src, n, free_columns, counts))
    dev.launch(offset_tiles, 1, 64, (counts, tiles, length))
    dev.launch(writer, grid, COMPACT_TILE // 8, (src, *targets, n, counts))
    return int(dev.to_host(length)[0])


@pytest.mark.parametrize("n, grid", [(0, 1), (5, 1), (COMPACT_TILE, 1), (2 * COMPACT_TILE + 37, 2), (3000, 3),
                                     (5 * COMPACT_TILE + 3, 2)])  # a block takes three tiles in turn
def test_the_active_columns_are_packed_in_order(n, grid):
    rng = np.random.default_rng(n)
    source = np.where(rng.random(n) < 0.4, -1, rng.permutation(n)).astype(np.int32)
    dev = Device("sim", races="raise", seed=1)
    target = dev.array(np.full(max(n, 1), -7, np.int32))
    kept = source[source != -1]
    assert _compact(dev, source, 0, compact_active, (target,), grid) == kept.size
    packed = dev.to_host(target)
    assert packed[:kept.size].tolist() == kept.tolist()
    assert (packed[kept.size:] == -7).all()  # nothing written past the new length


@pytest.mark.parametrize("n, grid", [(1, 1), (2 * COMPACT_TILE + 5, 2)])
def test_the_free_columns_are_listed_in_id_order_in_both_lists(n, grid):
    rng = np.random.default_rng(7)
    cmatch = np.where(rng.random(n) < 0.3, -1, rng.integers(0, n, n)).astype(np.int32)
    dev = Device("sim", races="raise", seed=2)
    a_c, a_p = (dev.array(np.full(n, -7, np.int32)) for _ in range(2))
    free = np.flatnonzero(cmatch == -1)
    assert _compact(dev, cmatch, 1, list_free_columns, (a_c, a_p), grid) == free.size
    assert dev.to_host(a_c)[:free.size].tolist() == dev.to_host(a_p)[:free.size].tolist() == free.tolist()
