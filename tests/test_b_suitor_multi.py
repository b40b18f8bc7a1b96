"""b-Suitor over several devices (seed 003, Paper II): the same b-matching as one-device b-Suitor, on simulated
devices, on several parts of one simulated device under explored schedules, and on a Dask cluster of CPU workers."""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpusim import Device, T, kernel
from gpusim.algorithms.weighted import b_suitor, suitor
from gpusim.algorithms.weighted.b_suitor_parts import PartInput, b_matching_of, message_room, split_by_edges
from gpusim.algorithms.weighted.driver_b_suitor_multi import b_suitor_multi
from gpusim.algorithms.weighted.reference_b_suitor import greedy_b_matching
from gpusim.backends.sim import RandomWalk
from gpusim.errors import GpusimError, GpusimInternalError, InvalidArgument, InvalidArgumentType, WorkerLost
from gpusim.testing.strategies import weighted_graphs
from gpusim.types.graphs import WeightedGraph
from gpusim.types.partitioned_graphs import PartitionedGraph

distributed = pytest.importorskip("distributed")


@st.composite
def cases(draw, max_vertices=10):
    """A graph with tied weights (1..5), ``b`` in 1..4 (or one per vertex in 0..4), and 2 to 4 devices."""
    graph = draw(weighted_graphs(max_vertices=max_vertices))
    b = draw(st.one_of(st.integers(1, 4), st.lists(st.integers(0, 4), min_size=graph.n, max_size=graph.n)))
    return graph, b, draw(st.integers(2, 4))


def one_device(graph, b):
    """One-device b-Suitor on the simulator, checked against the sequential greedy b-matching (independent)."""
    found = b_suitor(graph, b, backend="sim")
    assert found.partners.tolist() == greedy_b_matching(graph, b).partners.tolist()
    return found


@settings(max_examples=25, deadline=None)
@given(case=cases())
def test_simulated_devices_equal_one_device(case):
    graph, b, k = case
    expected = one_device(graph, b)
    found = b_suitor_multi(graph, b, devices=k, backend="sim")
    assert found.partners.tolist() == expected.partners.tolist()
    assert found.weight == pytest.approx(expected.weight)
    assert found.stats["devices"] == k
    seconds = found.stats["seconds"]
    assert min(seconds.values()) >= 0
    assert seconds["call"] == pytest.approx(seconds["parts"] + seconds["rounds"] + seconds["table"])


@settings(max_examples=20, deadline=None)
@given(case=cases(), seed=st.integers(0, 2**32 - 1))
def test_parts_on_one_device_under_any_schedule(case, seed):
    graph, b, k = case
    dev = Device("sim", policy=RandomWalk(seed=seed), trace=False)
    found = b_suitor_multi(graph, b, devices=[0] * k, device=dev)
    assert found.partners.tolist() == greedy_b_matching(graph, b).partners.tolist()


def test_every_b_and_device_count_on_a_graph_of_ties():
    """b = 1..4 on 2, 3 and 4 devices, a graph whose weights are nearly all tied (the tie rule decides)."""
    rng = np.random.default_rng(5)
    pairs = np.array([(u, v) for u in range(14) for v in range(u + 1, 14) if rng.random() < 0.45]).T
    graph = WeightedGraph.from_edges(pairs[0], pairs[1], rng.integers(1, 3, pairs.shape[1]).astype(float), 14)
    for b in range(1, 5):
        expected = one_device(graph, b).partners.tolist()
        for k in (2, 3, 4):
            assert b_suitor(graph, b, devices=k, backend="sim").partners.tolist() == expected, (b, k)


def test_more_devices_than_vertices_and_empty_graphs():
    g = WeightedGraph.from_edges([0], [1], [2.0])
    assert b_suitor(g, 1, devices=4, backend="sim").partners.tolist() == [[1], [0]]
    empty = WeightedGraph.from_edges([], [], [], 3)
    assert b_suitor(empty, 2, devices=2, backend="sim").partners.shape == (3, 0)


def test_suitor_on_several_devices_returns_what_suitor_returns():
    graph = WeightedGraph.from_edges([0, 1, 2, 0], [1, 2, 3, 3], [1.0, 3.0, 1.0, 3.0])
    one, several = suitor(graph, backend="sim"), suitor(graph, devices=3, backend="sim")
    assert type(several) is type(one)
    assert several.mate.tolist() == one.mate.tolist()
    assert several.weight == one.weight and several.valid and several.certified


def test_parts_are_balanced_by_edges_and_rooms_bounded():
    star = WeightedGraph.from_edges(np.zeros(8, np.int64), np.arange(1, 9), np.ones(8), 9)
    bounds = split_by_edges(star.ptr, 2)
    assert bounds.tolist() == [0, 1, 9]   # the hub alone holds half the entries
    parts = [PartInput.of(star, p, bounds, 2) for p in range(2)]
    assert sum(p.adj.size for p in parts) == 2 * star.n_edges
    assert parts[0].cross(bounds).tolist() == [0, 8]
    assert message_room(parts[0].cross(bounds), parts[0].slots, np.array([2, 8])).tolist() == [0, 12]


@given(cases())
@settings(max_examples=60, deadline=None)
def test_the_table_of_the_parts_rows(case):
    """The parts' rows give the sequential greedy b-matching's table and the sum of their weights; a partner
    dropped from one side, held twice, out of order or after the padding is an internal error."""
    graph, b, k = case
    expected = greedy_b_matching(graph, b)
    bounds = split_by_edges(graph.ptr, k)
    weights, pairs = [expected.weight] + [0.0] * (k - 1), [expected.stats["size"]] + [0] * (k - 1)

    def table_of(partners):
        blocks = [(partners[bounds[p]:bounds[p + 1]], weights[p], pairs[p]) for p in range(k)]
        return b_matching_of(graph, b, blocks, {"algorithm": "b_suitor", "devices": k})

    found = table_of(expected.partners)
    assert found.partners.tolist() == expected.partners.tolist()
    assert found.weight == expected.weight and found.stats["size"] == expected.stats["size"]
    rows = [v for v in range(graph.n) if expected.partners.shape[1] and expected.partners[v, 0] >= 0]
    broken = []
    for v in rows[:1]:
        dropped = expected.partners.copy()
        dropped[v] = np.append(dropped[v, 1:], -1)            # v no longer holds its first partner's offer
        broken.append(dropped)
        if expected.partners.shape[1] > 1 and expected.partners[v, 1] >= 0:
            for row in ([expected.partners[v, 0]] * 2, expected.partners[v, 1::-1]):   # held twice, out of order
                bad = expected.partners.copy()
                bad[v, :2] = row
                broken.append(bad)
        if expected.partners.shape[1] > 1 and expected.partners[v, 1] < 0:
            bad = expected.partners.copy()
            bad[v, :2] = bad[v, 1::-1]                          # the partner after the padding
            broken.append(bad)
    for partners in broken:
        with pytest.raises(GpusimInternalError):
            table_of(partners)


@pytest.mark.parametrize(("kwargs", "error", "text"), [
    ({"devices": 0}, InvalidArgument, "devices=0 must be at least 1"),
    ({"devices": "some"}, InvalidArgument, "devices='some'"),
    ({"devices": 2.5}, InvalidArgumentType, "devices must be a number"),
    ({"devices": [-1]}, InvalidArgument, "GPU ids are non-negative"),
    ({"devices": "all"}, InvalidArgument, "every GPU of the host"),
    ({"devices": 2, "device": "sim"}, InvalidArgument, "not both"),
    ({"devices": 2, "output": "device"}, InvalidArgument, "output='device'"),
    ({"devices": 2, "kernels": {"b_suitor_round": None}}, InvalidArgument, "neither a kernel"),
])
def test_bad_arguments_are_one_line(kwargs, error, text):
    graph = WeightedGraph.from_edges([0], [1], [1.0])
    if kwargs.get("device") == "sim":
        kwargs = {**kwargs, "device": Device("sim")}
    with pytest.raises(error, match=text):
        b_suitor(graph, 1, backend="sim", **kwargs)


def test_a_broken_exchange_step_is_caught():
    """A planted mutation of a step the exchange relies on (every offer sent to part 0) breaks the result:
    the driver's own checks or the comparison see it."""
    from gpusim import device

    @device
    def owner_of(bounds, parts, x):
        return 0

    graph = WeightedGraph.from_edges([0, 1, 2, 3], [1, 2, 3, 4], [1.0, 5.0, 2.0, 4.0])
    try:
        found = b_suitor_multi(graph, 1, devices=3, backend="sim", kernels={"owner_of": owner_of})
        caught = found.partners.tolist() != greedy_b_matching(graph, 1).partners.tolist()
    except GpusimError:   # a kernel fault on the simulator (an offer to a vertex part 0 does not own)
        caught = True
    assert caught


def test_dask_cluster_in_threads_gives_the_same_matching():
    graph = WeightedGraph.from_edges([0, 0, 1, 2, 3], [1, 2, 2, 3, 4], [2.0, 2.0, 1.0, 3.0, 3.0])
    with distributed.LocalCluster(n_workers=3, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        for b in (1, 2):
            found = b_suitor(graph, b, devices=3, client=client, backend="sim")
            assert found.partners.tolist() == greedy_b_matching(graph, b).partners.tolist()
            assert found.stats["exchange"] == "sim" and len(found.stats["workers"]) == 3
        assert b_suitor(graph, 1, devices="all", client=client, backend="sim").stats["devices"] == 3
        with pytest.raises(InvalidArgument, match="has 3 workers"):
            b_suitor(graph, 1, devices=4, client=client, backend="sim")
        with pytest.raises(InvalidArgument, match="with client= give a count"):
            b_suitor(graph, 1, devices=[0, 1], client=client, backend="sim")
        assert not any(client.has_what().values())   # every part let go


def _random_graph(n: int, edges: int, seed: int) -> WeightedGraph:
    rng = np.random.default_rng(seed)
    u, v = rng.integers(0, n, edges), rng.integers(0, n, edges)
    pairs = np.unique(np.stack([np.minimum(u, v), np.maximum(u, v)])[:, u != v], axis=1)
    return WeightedGraph.from_edges(pairs[0], pairs[1], rng.integers(1, 5, pairs.shape[1]).astype(float), n)


@pytest.mark.slow
def test_a_killed_worker_is_a_clear_error_within_seconds():
    graph = _random_graph(300, 3000, 0)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        pids = client.run(os.getpid)
        outcome: dict = {}

        def run():
            try:
                outcome["result"] = b_suitor(graph, 2, devices=2, client=client, backend="sim")
            except Exception as error:  # noqa: BLE001 - the test looks at it
                outcome["error"] = error
            outcome["at"] = time.monotonic()

        thread = threading.Thread(target=run)
        thread.start()
        deadline = time.monotonic() + 60
        while sum(any("PartActor" in str(key) for key in keys) for keys in client.has_what().values()) < 2:
            assert time.monotonic() < deadline, "the parts never reached the workers"
            time.sleep(0.05)
        time.sleep(0.3)   # a round or so in
        victim = sorted(pids)[1]
        killed = time.monotonic()
        os.kill(pids[victim], signal.SIGKILL)
        thread.join(30)
        assert not thread.is_alive()
        assert "result" not in outcome
        assert isinstance(outcome["error"], WorkerLost)
        assert victim in str(outcome["error"]) and "part 1 of 2" in str(outcome["error"])
        assert outcome["at"] - killed < 5
        deadline = time.monotonic() + 5
        while any(client.has_what().values()):   # the other part let go too
            assert time.monotonic() < deadline, client.has_what()
            time.sleep(0.05)


@kernel(signature="int32[:], int32, int32[:], int32, int32")
def copy_all_but_last(source, source_start, target, target_start, count):
    """A broken exchange: the last message of each batch is lost."""
    i = T.gtid()
    while i < count - 1:
        target[target_start + i] = source[source_start + i]
        i += T.num_threads()


def test_an_exploration_of_parts_on_one_device_finds_a_broken_exchange():
    from gpusim.explore import algorithm_scenario

    options = {"devices": 3, "b": 2}
    clean = algorithm_scenario("bsuitor", input_seed=4, options=options)
    assert clean.name == "algorithm:bsuitor:seed=4:b=2:devices=3"
    assert all(clean.attempt(policy="random", seed=seed) is None for seed in range(3))
    failures = [algorithm_scenario("bsuitor", input_seed=seed, options=options,
                                   kernels={"copy_range": copy_all_but_last}).attempt(policy="random", seed=0)
                for seed in range(4)]
    assert any(failure is not None for failure in failures)


@settings(max_examples=15, deadline=None)
@given(case=cases())
def test_a_graph_given_block_by_block(case):
    """A graph made part by part (a block of rows a device, never one array) gives the same b-matching."""
    graph, b, k = case
    blocks = PartitionedGraph.of(graph, k)
    found = b_suitor(blocks, b, devices=k, backend="sim")
    expected = greedy_b_matching(graph, b)
    assert found.partners.tolist() == expected.partners.tolist()
    assert found.weight == pytest.approx(expected.weight)


@pytest.mark.parametrize(("n", "blocks", "text"), [
    (3, [([0, 1], [2], [1.0]), ([0, 0, 0], [], [])], "not symmetric"),
    (2, [([0, 1], [0], [1.0]), ([0, 1], [0], [1.0])], "self loop"),
    (3, [([0, 1], [1], [1.0])], "the graph has n=3"),
    (2, [([0, 1], [1], [-1.0]), ([0, 1], [0], [-1.0])], "weights\\[0\\]=-1.0 is negative"),
    (2, [], "non-empty list"),
])
def test_bad_blocks_are_one_line(n, blocks, text):
    with pytest.raises(InvalidArgument, match=text):
        PartitionedGraph(n, blocks)


def test_blocks_and_devices_must_agree():
    blocks = PartitionedGraph.of(WeightedGraph.from_edges([0, 1], [1, 2], [1.0, 2.0]), 2)
    with pytest.raises(InvalidArgument, match="held in 2 blocks"):
        b_suitor(blocks, 1, devices=3, backend="sim")


def test_match_on_several_simulated_devices(capsys):
    from gpusim.cli import main

    assert main(["match", "--example", "karate", "--algorithm", "bsuitor", "--b", "2", "--devices", "3",
                 "--backend", "sim", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["certified"] and record["valid"] and record["stats"]["devices"] == 3


@pytest.mark.parametrize(("argv", "text"), [
    (["--algorithm", "suitor", "--devices", "2"], "--devices 2 is for --algorithm bsuitor only"),
    (["--algorithm", "bsuitor", "--devices", "0"], "--devices 0 must be at least 1"),
    (["--algorithm", "bsuitor", "--devices", "2", "--backend", "cpu"], "not with --backend cpu"),
    (["--algorithm", "bsuitor", "--scheduler", "tcp://127.0.0.1:1"], "goes with --devices"),
    (["--algorithm", "bsuitor", "--devices", "2", "--scheduler", "nowhere"], "not a scheduler address"),
])
def test_match_devices_errors_are_one_line(capsys, argv, text):
    from gpusim.cli import main

    assert main(["match", "--example", "karate", *argv]) == 2
    error = capsys.readouterr().err.strip()
    assert text in error and "\n" not in error


def test_explore_devices(capsys):
    from gpusim.cli import main

    assert main(["explore", "--algorithm", "bsuitor", "--devices", "3", "--random-inputs", "2", "--budget", "4",
                 "--option", "b=2", "--json"]) == 0
    assert main(["explore", "--algorithm", "suitor", "--devices", "3", "--random-inputs", "2"]) == 2
    assert "for --algorithm bsuitor only" in capsys.readouterr().err
