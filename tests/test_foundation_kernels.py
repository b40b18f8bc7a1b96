"""The foundation's kernels on every backend: the same source gives the same answers everywhere."""

from __future__ import annotations

import numpy as np
import sim_kernels as K


def _device(backend):
    from gpusim import Device

    return Device(backend, policy="random", seed=4) if backend == "sim" else Device(backend)


def test_atomic_counter_is_exact(backend):
    dev = _device(backend)
    counter = dev.zeros(1, np.int32)
    dev.launch(K.atomic_count, grid=4, block=64, args=(counter, 250))
    assert dev.to_host(counter)[0] == 250


def test_racy_counter_never_exceeds_the_thread_count(backend):
    dev = _device(backend)
    counter = dev.zeros(1, np.int32)
    dev.launch(K.racy_count, grid=4, block=64, args=(counter, 256))
    assert 1 <= dev.to_host(counter)[0] <= 256


def test_cas_spin_lock_counter_is_exact(backend):
    dev = _device(backend)
    lock, counter = dev.zeros(1, np.int32), dev.zeros(1, np.int32)
    dev.launch(K.locked_count, grid=2, block=32, args=(lock, counter, 64))
    assert dev.to_host(counter)[0] == 64 and dev.to_host(lock)[0] == 0


def test_warp_max_over_csr_neighbours(backend):
    rng = np.random.default_rng(7)
    degrees = rng.integers(0, 70, 9)
    ptr = np.concatenate([[0], np.cumsum(degrees)]).astype(np.int32)
    adj = rng.integers(0, 10**6, ptr[-1]).astype(np.int32)
    dev = _device(backend)
    out = dev.full(9, -7, np.int32)
    dev.launch(K.neighbour_max, grid=9, block=32, args=(dev.array(ptr), dev.array(adj), out, 9))
    expected = [adj[ptr[v]:ptr[v + 1]].max() if degrees[v] else -1 for v in range(9)]
    assert dev.to_host(out).tolist() == expected


def test_block_tree_reduction(backend):
    dev = _device(backend)
    out = dev.zeros(5, np.int32)
    dev.launch(K.block_sum, grid=5, block=64, args=(out,))
    assert dev.to_host(out).tolist() == [sum(range(64))] * 5


def test_votes(backend):
    values = np.random.default_rng(3).integers(-3, 3, 96).astype(np.int32)
    values[64:] = 2
    dev = _device(backend)
    ballots, flags = dev.zeros(3, np.uint32), dev.zeros(6, np.int32)
    dev.launch(K.warp_votes, grid=1, block=96, args=(dev.array(values), ballots, flags))
    positive = (values > 0).reshape(3, 32)
    assert dev.to_host(ballots).tolist() == [int(sum(1 << i for i in np.flatnonzero(w))) for w in positive]
    assert dev.to_host(flags).tolist() == [int(v) for w in positive for v in (w.any(), w.all())]
