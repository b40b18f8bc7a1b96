"""Preference instances: validation, JSON, the mutual purge and the ranking arrays (seed 003, Paper IV §2).

The oracle for the ranking arrays is a direct pure-Python reading of the lists, independent of the
vectorised precomputation.
"""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest
from hypothesis import given

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.testing.strategies import preference_instances
from gpusim.types import preference_lists
from gpusim.types.graphs import example_path
from gpusim.types.preferences import PreferenceInstance


def oracle_mutual(men, women):
    """Mutual lists by definition: w stays in m's list iff m is in w's list (order kept)."""
    mutual_men = [[w for w in lst if m in women[w]] for m, lst in enumerate(men)]
    mutual_women = [[m for m in lst if w in men[m]] for w, lst in enumerate(women)]
    return mutual_men, mutual_women


def check_against_oracle(inst: PreferenceInstance) -> None:
    mm, mw = oracle_mutual(inst.men_prefs, inst.women_prefs)
    assert inst.men_ptr.tolist() == [0, *np.cumsum([len(x) for x in mm]).tolist()]
    assert inst.men_list.tolist() == [w for lst in mm for w in lst]
    assert inst.men_rank_by_woman.tolist() == [mw[w].index(m) for m, lst in enumerate(mm) for w in lst]
    assert inst.women_ptr.tolist() == [0, *np.cumsum([len(x) for x in mw]).tolist()]
    assert inst.women_list.tolist() == [m for lst in mw for m in lst]
    assert inst.women_rank_by_man.tolist() == [mm[m].index(w) for w, lst in enumerate(mw) for m in lst]
    for arr in (inst.men_ptr, inst.men_list, inst.men_rank_by_woman, inst.women_ptr, inst.women_list,
                inst.women_rank_by_man):
        assert arr.dtype == np.int32 and not arr.flags.writeable
    for w, lst in enumerate(mw):
        for r, m in enumerate(lst):
            assert inst.women_rank(w, m) == r and inst.men_rank(m, w) == mm[m].index(w)
    mutual = inst.mutual()
    assert (mutual.men_prefs, mutual.women_prefs) == (mm, mw)
    assert mutual.mutual() == mutual
    assert set(zip(*[a.tolist() for a in inst.acceptable_graph().edges()], strict=True)) == {
        (m, w) for m, lst in enumerate(mm) for w in lst
    }


def test_bundled_example():
    inst = PreferenceInstance.from_json(example_path("marriage.json"))
    assert (inst.n_men, inst.n_women) == (4, 4) and not inst.is_complete
    check_against_oracle(inst)
    assert inst.mutual().men_prefs == [[1, 0, 2], [0, 1], [0], [2]]  # man 2's woman 3 never ranks him
    assert inst.women_rank(3, 1) is None  # woman 3 ranks man 1, who does not rank her


@given(preference_instances())
def test_ranking_arrays_match_oracle_smi(inst):
    check_against_oracle(inst)


@pytest.fixture
def compiled_always():
    """Every instance takes the compiled linear-time passes, as one of at least ``COMPILED_FROM`` entries does."""
    before = preference_lists.COMPILED_FROM
    preference_lists.COMPILED_FROM = 0
    yield
    preference_lists.COMPILED_FROM = before


@pytest.mark.parametrize("seed", range(40))
def test_the_compiled_passes_match_the_oracle(compiled_always, seed):
    rng = np.random.default_rng(seed)
    n_men, n_women = (int(x) for x in rng.integers(0, 7, 2))
    men = [rng.permutation(n_women)[:rng.integers(0, n_women + 1)].tolist() for _ in range(n_men)]
    women = [rng.permutation(n_men)[:rng.integers(0, n_men + 1)].tolist() for _ in range(n_women)]
    check_against_oracle(PreferenceInstance(men, women))


@pytest.mark.parametrize("compiled", [False, True])
def test_first_repeat_finds_the_first_entry_seen_before_in_its_list(compiled, monkeypatch):
    monkeypatch.setattr(preference_lists, "COMPILED_FROM", 0 if compiled else 1 << 16)
    rng = np.random.default_rng(7)
    for _ in range(200):
        lengths = rng.integers(0, 5, rng.integers(1, 5))
        ptr = np.concatenate(([0], np.cumsum(lengths)))
        flat = rng.integers(0, 6, ptr[-1])
        expected = next((k for i in range(len(lengths)) for k in range(ptr[i], ptr[i + 1])
                         if flat[k] in flat[ptr[i]:k]), -1)
        assert preference_lists.first_repeat(ptr, flat, 6) == expected


@given(preference_instances(max_n=5, complete=True))
def test_ranking_arrays_match_oracle_sm(inst):
    assert inst.is_complete and inst.mutual() == inst
    check_against_oracle(inst)


@given(preference_instances())
def test_json_round_trip(inst):
    text = inst.to_json()
    assert json.loads(text) == {"men": inst.men_prefs, "women": inst.women_prefs}
    assert PreferenceInstance.from_json(text) == inst
    assert PreferenceInstance.from_json(io.StringIO(text)) == inst


def test_json_file_round_trip(tmp_path):
    inst = PreferenceInstance([[1, 0], []], [[0], [0, 1]])
    path = tmp_path / "inst.json"
    inst.to_json(path)
    assert PreferenceInstance.from_json(path) == inst
    assert PreferenceInstance.from_json(str(path)) == inst


@pytest.mark.parametrize("men, women", [
    ([], []),
    ([], [[], []]),
    ([[], []], []),
    ([[]], [[]]),
    ((), ()),
    (np.zeros((0, 0), np.int64), np.zeros((0, 0), np.int64)),
], ids=["none", "women only", "men only", "empty lists", "tuples", "arrays"])
def test_empty_inputs_are_valid(men, women):
    inst = PreferenceInstance(men, women)
    assert inst.men_list.size == 0 and inst.women_list.size == 0
    assert inst.men_ptr.tolist() == [0] * (len(men) + 1)
    check_against_oracle(inst)


def test_accepts_tuples_arrays_and_numpy_integers():
    a = PreferenceInstance(([np.int64(1), 0], (0,)), np.array([[0, 1], [1, 0]]))
    b = PreferenceInstance([[1, 0], [0]], [[0, 1], [1, 0]])
    assert a == b and type(a.men_prefs[0][0]) is int
    assert PreferenceInstance.from_lists([[0, 1], [1, 0]], [[1, 0], [0, 1]], complete=True).is_complete


# ---------------------------------------------------------------------------------------------
# Bad input: one table

P = PreferenceInstance
INST = P([[0]], [[0]])

PREFERENCES_BAD = [
    (P, ([[5]], [[0]]), {}, InvalidArgument, "men[0][0]=5 is out of range: woman ids run from 0 to 0"),
    (P, ([[0]], [[0, -1]]), {}, InvalidArgument, "women[0][1]=-1 is out of range: man ids run from 0 to 0"),
    (P, ([[0]], []), {}, InvalidArgument, "men[0][0]=0 is out of range: there are no women"),
    (P, ([[0, 0]], [[0]]), {}, InvalidArgument, "men[0] lists woman 0 twice, at positions 0 and 1"),
    (P, ([[], [1, 0, 1]], [[1], [1]]), {}, InvalidArgument,
     "men[1] lists woman 1 twice, at positions 0 and 2"),
    (P, ([[0]], [[0.0]]), {}, InvalidArgumentType, "women[0][0]=0.0 (float) is not an integer man id"),
    (P, ([[0, 1.5]], [[0], [0]]), {}, InvalidArgumentType, "men[0][1]=1.5 (float) is not an integer"),
    (P, ([[True]], [[0]]), {}, InvalidArgumentType, "men[0][0]=True (bool) is not an integer woman id"),
    (P, ([["0"]], [[0]]), {}, InvalidArgumentType, "men[0][0]='0' (str) is not an integer"),
    (P, ([[None]], [[0]]), {}, InvalidArgumentType, "men[0][0]=None (NoneType)"),
    (P, ([np.array([0.0])], [[0]]), {}, InvalidArgumentType, "men[0][0]=0.0 (float)"),
    (P, ([[2**70]], [[0]]), {}, InvalidArgument, "is out of range"),
    (P, ([[[0, 1]]], [[0], [0]]), {}, InvalidArgument, "ties are not supported: men[0][0]=[0, 1] is a"),
    (P, ([[0, (1, 2)]], [[0], [0], [0]]), {}, InvalidArgument, "ties are not supported: men[0][1]=(1, 2)"),
    (P, ([np.array([[0, 1]])], [[0], [0]]), {}, InvalidArgument, "ties are not supported: men[0] is an"),
    (P, ([0], [[0]]), {}, InvalidArgumentType, "men[0] must be a list of woman ids (best first), got 0"),
    (P, ([[0]], ["0"]), {}, InvalidArgumentType, "women[0] must be a list of man ids (best first), got '0'"),
    (P, ("abc", []), {}, InvalidArgumentType, "men must be a list of preference lists, one per person"),
    (P, ([[0]], {0: [0]}), {}, InvalidArgumentType, "women must be a list of preference lists"),
    (P, (None, None), {}, InvalidArgumentType, "men must be a list of preference lists"),
    (P, ([[0, 1], [0]], [[0, 1], [1, 0]]), {"complete": True}, InvalidArgument,
     "men[1] ranks 1 people but complete=True needs all 2: the lists are ragged"),
    (P, ([[0]], [[0], []]), {"complete": True}, InvalidArgument, "complete=True needs equal sides, got 1"),
    (P, ([[0]], [[0]]), {"complete": "yes"}, InvalidArgumentType, "complete must be a bool"),
    (P.from_json, ("{not json",), {}, InvalidArgument, "preference JSON is not valid JSON"),
    (P.from_json, ("[1, 2]",), {}, InvalidArgument, '{"men": [...], "women": [...]}, got a list'),
    (P.from_json, ('{"men": []}',), {}, InvalidArgument, "missing ['women'], unknown []"),
    (P.from_json, ('{"men": [], "women": [], "ties": true}',), {}, InvalidArgument, "unknown ['ties']"),
    (P.from_json, ('{"men": [[0, [1, 2]]], "women": [[0], [0], [0]]}',), {}, InvalidArgument,
     "ties are not supported: men[0][1]=[1, 2]"),
    (P.from_json, ('{"men": {"0": [0]}, "women": []}',), {}, InvalidArgumentType, "men must be a list"),
    (P.from_json, ('{"men": [[0], [0]], "women": [[0], [2]]}',), {}, InvalidArgument,
     "women[1][0]=2 is out of range: man ids run from 0 to 1"),
    (P.from_json, ('{"men": [[0]], "women": [[0.5]]}',), {}, InvalidArgumentType, "women[0][0]=0.5 (float)"),
    (P.from_json, (42,), {}, InvalidArgumentType, "must be JSON text, a path or an open file, got int"),
    (P.from_json, ("/nonexistent/prefs.json",), {}, FileNotFoundError, "prefs.json"),
    (INST.women_rank, (5, 0), {}, InvalidArgument, "w=5 is out of range 0..0"),
    (INST.men_rank, (0, 0.0), {}, InvalidArgumentType, "w must be an integer id, got 0.0 (float)"),
]


@pytest.mark.parametrize(
    "fn, args, kwargs, exc, fragment",
    [pytest.param(*row, id=f"{row[0].__qualname__}-{row[4][:40]}") for row in PREFERENCES_BAD],
)
def test_rejects_bad_input(fn, args, kwargs, exc, fragment):
    with pytest.raises(exc, match=re.escape(fragment)) as info:
        fn(*args, **kwargs)
    assert type(info.value) is exc, f"expected exactly {exc.__name__}, got {type(info.value).__name__}"
