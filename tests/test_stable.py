"""Stable marriage (seed 003, Paper IV): every algorithm, backend and schedule gives the man-optimal stable matching.

Oracles: the blocking-pair checker of :mod:`gpusim.types.check` (reads the lists as given) and, on tiny
instances, a brute-force enumeration of every stable matching (man-optimality by definition).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gpusim.algorithms.stable as stable
from gpusim import Device
from gpusim.algorithms.stable import gale_shapley, mcvitie_wilson
from gpusim.algorithms.weighted import maximum_weight_matching
from gpusim.algorithms.weighted.reference_greedy import greedy as greedy_matching
from gpusim.backends.sim import PCT, RandomWalk
from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.testing.strategies import preference_instances, schedules, weighted_graphs
from gpusim.types.check import blocking_pairs
from gpusim.types.graphs import WeightedGraph
from gpusim.types.preference_generators import easy_instance, hard_instance
from gpusim.types.preferences import PreferenceInstance
from gpusim.zoo.stable_twins import mcvitie_wilson_no_cas

GPU_ALGORITHMS = ("mw-gpu", "gs-rounds")
policies = st.one_of(schedules(max_preemptions=4, max_step=3000),
                     st.integers(0, 2**32 - 1).map(lambda seed: RandomWalk(seed=seed)),
                     st.integers(0, 2**32 - 1).map(lambda seed: PCT(seed=seed, depth=3)))


def capacities_for(draw_data, inst):
    return draw_data.draw(st.one_of(st.none(), st.lists(st.integers(1, 3), min_size=inst.n_women,
                                                        max_size=inst.n_women)))


def stable_matchings(inst, capacities):
    """Every stable assignment of a tiny instance, by enumerating all assignments of men to acceptable women."""
    b = [1] * inst.n_women if capacities is None else list(capacities)
    options = [[-1] + [w for w in inst.men_prefs[m] if m in inst.women_prefs[w]] for m in range(inst.n_men)]
    found = []
    for wife in itertools.product(*options):
        if all(wife.count(w) <= b[w] for w in range(inst.n_women)) and not blocking_pairs(inst, list(wife), b):
            found.append(wife)
    return found


def man_rank(inst, m, w):
    return len(inst.men_prefs[m]) if w < 0 else inst.men_prefs[m].index(w)


@settings(max_examples=40)
@given(inst=preference_instances(max_n=4), data=st.data())
def test_gale_shapley_is_man_optimal_by_enumeration(inst, data):
    capacities = capacities_for(data, inst)
    result = gale_shapley(inst, capacities)
    everything = stable_matchings(inst, capacities)
    assert tuple(result.wife.tolist()) in everything
    for wife in everything:  # every man does at least as well as in any stable matching
        assert all(man_rank(inst, m, result.wife[m]) <= man_rank(inst, m, wife[m]) for m in range(inst.n_men))


@settings(max_examples=40)
@given(inst=st.one_of(preference_instances(max_n=12), preference_instances(max_n=8, complete=True)), data=st.data())
def test_mcvitie_wilson_equals_gale_shapley_and_is_stable(inst, data):
    capacities = capacities_for(data, inst)
    expected = gale_shapley(inst, capacities)
    result = mcvitie_wilson(inst, capacities)
    assert result.wife.tolist() == expected.wife.tolist()
    assert result.stable and blocking_pairs(inst, expected.wife, capacities) == []
    assert result.proposals == expected.proposals == result.stats["proposals"]


@settings(max_examples=30)
@pytest.mark.parametrize("algorithm", GPU_ALGORITHMS)
@given(inst=st.one_of(preference_instances(max_n=8), preference_instances(max_n=5, complete=True)),
       policy=policies, data=st.data())
def test_gpu_versions_equal_gale_shapley_under_any_schedule(algorithm, inst, policy, data):
    capacities = capacities_for(data, inst)
    result = stable.stable_marriage(inst, algorithm, device=Device("sim", policy=policy, trace=False, races="off"),
                                    capacities=capacities)
    assert result.wife.tolist() == gale_shapley(inst, capacities).wife.tolist()
    assert blocking_pairs(inst, result.wife, capacities) == []
    assert result.stats["proposals"] == result.proposals


@pytest.mark.parametrize("algorithm", GPU_ALGORITHMS)
@pytest.mark.parametrize("make", [lambda: easy_instance(300, seed=4), lambda: hard_instance(40, seed=4)],
                         ids=["easy", "hard"])
def test_on_every_backend(algorithm, make, backend):
    inst = make()
    options = {"policy": "random", "seed": 1, "trace": False} if backend == "sim" else {}
    for capacities in (None, 2):
        result = stable.stable_marriage(inst, algorithm, device=Device(backend, **options), capacities=capacities)
        assert result.wife.tolist() == gale_shapley(inst, capacities).wife.tolist()
        assert result.stable


def smi_from_weighted_graph(graph: WeightedGraph) -> PreferenceInstance:
    """Seed 003 Paper IV §3: man l_i and woman r_i both rank v_i's neighbours by decreasing edge weight."""
    lists = []
    for v in range(graph.n):
        start, end = int(graph.ptr[v]), int(graph.ptr[v + 1])
        order = np.argsort(-graph.weights[start:end], kind="stable")
        lists.append(graph.adj[start:end][order].tolist())
    return PreferenceInstance(lists, lists)


@settings(max_examples=30)
@given(graph=weighted_graphs(max_vertices=10, allow_ties=False),
       policy=st.integers(0, 2**32 - 1).map(lambda seed: RandomWalk(seed=seed)))
def test_lemma_3_1_greedy_is_the_unique_stable_solution(graph, policy):
    inst = smi_from_weighted_graph(graph)
    greedy = greedy_matching(graph).mate.tolist()
    assert gale_shapley(inst).wife.tolist() == greedy  # pairs (l_u, r_v) and (l_v, r_u) per greedy edge
    gpu = stable.stable_marriage(inst, "mw-gpu", device=Device("sim", policy=policy, trace=False, races="off"))
    assert gpu.wife.tolist() == greedy
    suitor = maximum_weight_matching(graph, "suitor", "sim")
    assert suitor.mate.tolist() == greedy
    if graph.n <= 6:  # unique: the enumeration finds no other stable matching
        assert stable_matchings(inst, None) == [tuple(greedy)]


def test_lemma_3_1_on_every_backend(backend):
    rng = np.random.default_rng(3)
    u, v = np.triu_indices(40, 1)
    keep = rng.random(u.size) < 0.2
    graph = WeightedGraph.from_edges(u[keep], v[keep], rng.permutation(int(keep.sum())) + 1.0, n=40)
    greedy = greedy_matching(graph).mate.tolist()
    options = {"policy": "random", "seed": 2, "trace": False} if backend == "sim" else {}
    wife = stable.stable_marriage(smi_from_weighted_graph(graph), "mw-gpu", device=Device(backend, **options)).wife
    assert wife.tolist() == greedy
    assert maximum_weight_matching(graph, "suitor", backend).mate.tolist() == greedy


@pytest.mark.quality
def test_mcvitie_wilson_without_cas_is_caught():
    # Four men with the same first choice propose at once: without the CAS two of them both "win" her.
    inst = PreferenceInstance([[0, 1], [0, 1], [0, 1], [0, 1]], [[3, 2, 1, 0], [0, 1, 2, 3]])
    expected = gale_shapley(inst).wife.tolist()

    def explore(kernels=None):
        for seed in range(200):
            result = stable.stable_marriage(inst, "mw-gpu", device=Device("sim", policy="random", seed=seed,
                                                                           trace=False), kernels=kernels)
            if result.wife.tolist() != expected:
                return result
        return None

    assert explore() is None
    found = explore(mcvitie_wilson_no_cas)
    assert found is not None, "the explorer should find a schedule where a man is lost or a woman has two husbands"
    assert found.size < len(expected) - expected.count(-1) or not found.stable


def test_checker_finds_blocking_pairs_and_invalid_marriages():
    inst = PreferenceInstance([[0, 1], [1, 0]], [[1, 0], [0, 1]])
    assert blocking_pairs(inst, [0, 1]) == [] and blocking_pairs(inst, [1, 0]) == []
    assert set(blocking_pairs(inst, [-1, 1])) == {(0, 0), (0, 1)}  # w1 prefers the single m0 to m1
    assert set(blocking_pairs(inst, [0, -1], capacities=[1, 1])) == {(1, 0), (1, 1)}
    assert blocking_pairs(inst, [0, 0], capacities=[2, 1]) == [(1, 1)]
    with pytest.raises(InvalidArgument, match="2 husbands"):
        blocking_pairs(inst, [0, 0])
    with pytest.raises(InvalidArgument, match="do not rank each other"):
        blocking_pairs(PreferenceInstance([[0]], [[]]), [0])


@settings(max_examples=200)
@given(inst=preference_instances(max_n=5), data=st.data())
def test_checker_equals_the_definition_on_any_marriage(inst, data):
    """Any assignment, valid or not, against the definition written out pair by pair from the lists as given."""
    capacities = capacities_for(data, inst)
    b = [1] * inst.n_women if capacities is None else capacities
    wife = data.draw(st.lists(st.integers(-1, inst.n_women - 1), min_size=inst.n_men, max_size=inst.n_men))
    men, women = inst.men_prefs, inst.women_prefs
    unranked = [m for m in range(inst.n_men) if wife[m] >= 0 and (wife[m] not in men[m] or m not in women[wife[m]])]
    if unranked:
        with pytest.raises(InvalidArgument, match=f"wife\\[{unranked[0]}\\]=.*do not rank each other"):
            blocking_pairs(inst, wife, capacities)
        return
    if any(wife.count(w) > b[w] for w in range(inst.n_women)):
        with pytest.raises(InvalidArgument, match="husbands but capacity"):
            blocking_pairs(inst, wife, capacities)
        return

    def he_would(m, w):
        return wife[m] < 0 or men[m].index(w) < men[m].index(wife[m])

    def she_would(m, w):
        husbands = [h for h in range(inst.n_men) if wife[h] == w]
        return len(husbands) < b[w] or any(women[w].index(m) < women[w].index(h) for h in husbands)

    expected = [(m, w) for m in range(inst.n_men) for w in men[m]
                if m in women[w] and wife[m] != w and he_would(m, w) and she_would(m, w)]
    assert blocking_pairs(inst, wife, capacities) == expected


def test_generators_follow_the_paper():
    n = 2000
    inst = easy_instance(n, seed=7)
    lengths = np.diff(inst.men_ptr)
    assert lengths.min() >= round(np.log(n)) - 1 and lengths.max() <= round(2 * np.log(n)) + 1
    assert inst.mutual() == inst  # women rank exactly the men who rank them
    assert gale_shapley(inst).size >= 0.95 * n
    hard = hard_instance(30, seed=7)
    assert hard.is_complete and len({tuple(x) for x in hard.men_prefs}) == 1
    assert gale_shapley(hard).proposals == 30 * 31 // 2
    assert easy_instance(n, seed=7) == inst and easy_instance(n, seed=8) != inst


SMALL = PreferenceInstance([[0]], [[0]])
BAD = [
    ("man id out of range", lambda: PreferenceInstance([[0, 2]], [[0], [0]]), InvalidArgument, "men[0][1]=2"),
    ("negative id", lambda: PreferenceInstance([[-1]], [[0]]), InvalidArgument, "men[0][0]=-1"),
    ("listed twice", lambda: PreferenceInstance([[0]], [[0, 0]]), InvalidArgument, "women[0] lists man 0 twice"),
    ("tie", lambda: PreferenceInstance([[[0, 1]]], [[0], [0]]), InvalidArgument, "ties are not supported"),
    ("list not a list", lambda: PreferenceInstance([5], [[0]]), InvalidArgumentType, "men[0]"),
    ("lists not lists", lambda: PreferenceInstance("men", [[0]]), InvalidArgumentType, "men must be a list"),
    ("float id", lambda: PreferenceInstance([[0.0]], [[0]]), InvalidArgumentType, "men[0][0]=0.0"),
    ("csr twice", lambda: PreferenceInstance.from_csr([0, 2], [0, 0], [0, 1], [0]), InvalidArgument, "twice"),
    ("instance not an instance", lambda: stable.stable_marriage({"men": []}), InvalidArgumentType,
     "PreferenceInstance"),
    ("unknown algorithm", lambda: stable.stable_marriage(SMALL, "irving"), InvalidArgument, "algorithm='irving'"),
    ("unknown backend", lambda: stable.stable_marriage(SMALL, "mw-gpu", "tpu"), InvalidArgument, "backend='tpu'"),
    ("sequential on a GPU", lambda: stable.stable_marriage(SMALL, "gs", "numba"), InvalidArgument, "cpu backend"),
    ("zero capacity", lambda: stable.stable_marriage(SMALL, "gs", capacities=0), InvalidArgument, "capacities[0]=0"),
    ("capacities too short", lambda: gale_shapley(SMALL, [1, 1]), InvalidArgument, "2 entries but there are 1"),
    ("capacity a float", lambda: gale_shapley(SMALL, [1.5]), InvalidArgumentType, "capacities"),
    ("device not a Device", lambda: stable.stable_marriage(SMALL, device="sim"), InvalidArgumentType, "device"),
    ("hard too large", lambda: hard_instance(50_000), InvalidArgument, "n=50000"),
]


@pytest.mark.parametrize("what, call, exception, fragment", BAD, ids=[case[0] for case in BAD])
def test_bad_input(what, call, exception, fragment):
    with pytest.raises(exception) as caught:
        call()
    assert fragment in str(caught.value)
