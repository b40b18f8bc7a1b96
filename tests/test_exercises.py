"""The exercises: every solution passes its checker, every stub fails it, classic mistakes are named.

The checker runs a kernel under a systematic search and random schedules with the race detector on
(``gpusim.exercises.checker``).  Here: each shipped solution is "correct", each stub is not, and
the mistakes learners make — a plain ``+=`` instead of an atomic, a missing barrier, a missing
fence, a missing guard, a full-mask shuffle after lanes left — come back as a race, a wrong result
or a bug, with a replay token that reproduces the verdict.  The expected outputs below are worked
out by hand from the statements, not by the code under test.
"""

from __future__ import annotations

import textwrap

import pytest

from gpusim.errors import InvalidArgument
from gpusim.exercises import EXERCISES, check, get_exercise, list_exercises, load_kernel, show

NUMBERS = [ex.number for ex in EXERCISES]


def test_at_least_twelve_exercises_numbered_from_one():
    assert len(list_exercises()) >= 12
    assert NUMBERS == list(range(1, len(NUMBERS) + 1))
    assert {"map", "histogram", "block_sum", "warp_sum", "spin_lock", "publish", "matching_step"} <= {
        ex.slug for ex in EXERCISES}


@pytest.mark.parametrize("number", NUMBERS)
def test_the_solution_passes(number):
    ex = get_exercise(number)
    verdict = check(number, ex.solution_path)
    assert verdict.passed, verdict.report()
    assert verdict.status == "correct" and verdict.schedules > 1
    assert f"correct under {verdict.schedules} schedules" in verdict.message
    assert load_kernel(ex.solution_path).name == ex.kernel


@pytest.mark.parametrize("number", NUMBERS)
def test_the_stub_fails_and_is_shown(number):
    ex = get_exercise(number)
    verdict = check(number, ex.stub_path)
    assert not verdict.passed and verdict.status != "correct"
    assert load_kernel(ex.stub_path).name == ex.kernel
    text = show(number)
    assert text.startswith(f"Exercise {number}: {ex.title}") and ex.hint in text and ex.stub() in text
    assert "your code here" in ex.stub()


@pytest.mark.parametrize("number, outputs", [
    (1, {"out": [13, 11, 14, 11]}),
    (5, {"bins": [2, 2, 1, 3]}),
    (9, {"out": [3, 6, 2, 5, 1, 4, 3, 6, 2, 5, 1, 4, 3, 6, 2, 5, 1, 4] + [0] * 14, "count": [18]}),
    (12, {"offer": [-1, 42, 61, -1, -1, -1]}),
])
def test_the_references_give_what_the_statement_asks(number, outputs):
    ex = get_exercise(number)
    assert ex.expected(ex.inputs()) == outputs


def _kernel_file(tmp_path, name: str, body: str):
    path = tmp_path / f"{name}.py"
    path.write_text("from gpusim import T, kernel\n\n\n" + textwrap.dedent(body))
    return path


def test_a_plain_increment_instead_of_an_atomic_is_a_race(tmp_path):
    path = _kernel_file(tmp_path, "hist", """
        @kernel(signature="int32[:], int32[:]")
        def histogram(values, bins):
            i = T.gtid()
            bins[values[i]] = bins[values[i]] + 1
        """)
    verdict = check(5, path)
    assert verdict.status == "race" and verdict.kind == "DataRace"
    assert "hazard on global bins[" in verdict.message
    first, second = verdict.highlight[-2:]
    assert (first.array, first.index) == (second.array, second.index) and first.thread != second.thread
    assert verdict.token.startswith("exercise.5@gs1-")
    again = check(5, path, replay=verdict.token)
    assert (again.status, again.message) == (verdict.status, verdict.message)


def test_a_missing_barrier_is_a_race_on_shared_memory(tmp_path):
    solution = get_exercise(7).solution_path.read_text()
    broken = solution.replace("        T.syncthreads()\n        stride = stride // 2", "        stride = stride // 2")
    assert broken != solution
    path = tmp_path / "no_barrier.py"
    path.write_text(broken)
    verdict = check(7, path)
    assert verdict.status == "race" and "shared cache[" in verdict.message


def test_a_missing_fence_is_a_wrong_result_under_weak_memory(tmp_path):
    solution = get_exercise(11).solution_path.read_text()
    broken = solution.replace("        data[1] = 7\n        T.threadfence()\n", "        data[1] = 7\n")
    assert broken != solution
    path = tmp_path / "no_fence.py"
    path.write_text(broken)
    verdict = check(11, path)
    assert verdict.status == "wrong result", verdict.report()
    assert "expected seen=[42, 7]" in verdict.message and "with data=[0, 0]" in verdict.message
    assert any(event.op == "publish" for event in verdict.trace)  # the late store is in the replayed trace
    assert check(11, path, replay=verdict.token).status == "wrong result"


def test_a_missing_guard_is_an_out_of_bounds_bug(tmp_path):
    path = _kernel_file(tmp_path, "guard", """
        @kernel(signature="int32[:], int32[:], int32")
        def square_first_n(a, out, n):
            i = T.gtid()
            out[i] = a[i] * a[i]
        """)
    verdict = check(3, path)
    assert verdict.status == "bug" and verdict.kind == "OutOfBounds" and "a[5]" in verdict.message


def test_a_check_then_write_matching_is_a_race_and_a_forbidden_member_is_refused(tmp_path):
    path = _kernel_file(tmp_path, "match", """
        @kernel(signature="int32[:], int32[:], int32[:]")
        def match_edges(eu, ev, mate):
            u = eu[T.gtid()]
            v = ev[T.gtid()]
            if mate[u] == -1 and mate[v] == -1:
                mate[u] = v
                mate[v] = u
        """)
    assert check(13, path).status == "race"
    shortcut = _kernel_file(tmp_path, "shortcut", """
        @kernel(signature="int32[:], int32[:]")
        def max_by_cas(values, best):
            T.atomic_max(best, 0, values[T.gtid()])
        """)
    verdict = check(6, shortcut)
    assert verdict.status == "not allowed" and "T.atomic_max" in verdict.message


def test_a_wrong_result_names_inputs_expected_and_got():
    verdict = check(1, get_exercise(1).stub_path)
    assert verdict.status == "wrong result"
    assert verdict.message == ("wrong result: with a=[3, 1, 4, 1] the kernel left out=[0, 0, 0, 0]; "
                               "expected out=[13, 11, 14, 11]")


@pytest.mark.parametrize("content, fragment", [
    (None, "no such file"),
    ("def broken(:\n", "syntax error"),
    ("x = 1\n", "defines no @kernel function"),
    ("from gpusim import T, kernel\n\n\n@kernel\ndef a(x):\n    x[0] = 1\n\n\n@kernel\ndef b(x):\n    x[0] = 2\n",
     "defines several kernels (a, b)"),
    ("from gpusim import T, kernel\n\n\n@kernel\ndef add_ten(a):\n    a[0] = 1\n", "takes 1 parameter(s)"),
    ("raise RuntimeError('boom')\n", "importing it raised RuntimeError: boom"),
])
def test_bad_files_get_one_line(tmp_path, content, fragment):
    path = tmp_path / "mine.py"
    if content is not None:
        path.write_text(content)
    with pytest.raises(InvalidArgument) as caught:
        check(1, path)
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


def test_no_such_exercise():
    with pytest.raises(InvalidArgument, match="there is no exercise 99"):
        get_exercise(99)


def test_an_exception_in_the_kernel_is_an_error_verdict_with_its_line(tmp_path):
    path = _kernel_file(tmp_path, "typo", """
        @kernel(signature="int32[:], int32[:]")
        def add_ten(a, out):
            i = T.gtid()
            out[i] = a[i] + tenn
        """)
    verdict = check(1, path)
    assert verdict.status == "error" and not verdict.passed
    assert verdict.message == "the kernel raised NameError at typo.py:8: name 'tenn' is not defined"
