"""The language T: the subset checker, casts, and binding one source to a backend."""

from __future__ import annotations

import types

import numpy as np
import pytest

import gpusim.backends.sim.language as sim_T
from gpusim import T, device, kernel
from gpusim.errors import GpusimError, KernelSyntaxError
from gpusim.language import MEMBERS
from gpusim.language.kernels import DeviceFunction, Kernel, bind, registry
from gpusim.language.subset import violations


def test_every_member_of_the_language_is_in_the_simulator():
    assert set(MEMBERS) <= set(dir(sim_T))
    assert set(MEMBERS) == set(sim_T.__all__)


def _rules(fn):
    return [rule for _, _, rule in violations(fn)]


def _bad_loops(a, n):
    for i in [1, 2]:
        a[i] = 0
    while n > 0:
        n = n - 1
    else:
        n = 3


def _bad_expressions(a, n):
    a[-1] = 0 < n < 3
    b = (n, n)
    a[0] = len(b)
    print(n)
    a.fill(0)
    x = T.no_such_member()
    return x


def _bad_statements(a, n):
    try:
        a[0] = 1
    except IndexError:
        pass
    f = lambda v: v  # noqa: E731
    a[0:2] = f(n)


def _names_cupyx_corrupts(a):
    gain1 = a[0]  # cupyx turns "gain1 > a[1]" into "gaa[1] > a[1]" (its template fills in0, in1 by text)
    a[2] = gain1 > a[1]


def _two_shared_arrays_on_one_line(a):
    s = T.shared_array(4, T.i32); t = T.shared_array(4, T.i32)  # noqa: E702
    a[0] = s[0] + t[0]


@pytest.mark.parametrize("fn, expected", [
    (_bad_loops, ["for loops must iterate over range(...)", "list literals", "while-else"]),
    (_bad_expressions, ["negative indices", "chained comparisons", "tuples are not portable", "builtin len()",
                        "print is not portable", "attribute access .fill", "T has no member 'no_such_member'",
                        "kernels return nothing"]),
    (_bad_statements, ["try/except", "lambdas", "slices"]),
    (_two_shared_arrays_on_one_line, ["at most one T.shared_array per line"]),
    (_names_cupyx_corrupts, ["the name 'gain1' is not portable"]),
])
def test_checker_names_each_rule(fn, expected):
    found = " | ".join(_rules(fn))
    for fragment in expected:
        assert fragment in found, (fragment, found)


def test_checker_reports_file_and_line():
    (file, line, rule), *_ = violations(_bad_statements)
    assert file.endswith("test_language.py")
    assert line == _bad_statements.__code__.co_firstlineno + 1
    assert rule.startswith("try/except")


def test_decorator_refuses_a_kernel_outside_the_subset():
    with pytest.raises(KernelSyntaxError) as caught:
        kernel(_bad_loops)
    assert "test_language.py:" in str(caught.value)
    assert caught.value.violations


def test_portable_kernel_passes_and_docstrings_are_allowed():
    @kernel(signature="int32[:], int32")
    def fine(a, n):
        """A docstring is fine."""
        i = T.gtid()
        for k in range(3):
            if i < n and k != 1:
                a[i] = max(a[i], k)
        a[0] = T.i32(a[0]) if n > 0 else 0

    assert isinstance(fine, Kernel)
    assert fine.checked
    assert fine in registry()
    with pytest.raises(TypeError, match="Device.launch"):
        fine(None, 1)


def test_casts_wrap_and_round_like_the_hardware():
    assert T.i32(2**31) == -(2**31)
    assert T.i32(-1) == -1
    assert T.u32(-1) == 2**32 - 1
    assert T.u64(-1) == 2**64 - 1
    assert T.i64(2**63) == -(2**63)
    assert T.f32(0.1) == float(np.float32(0.1))
    assert T.f64(3) == 3.0
    assert T.i32.dtype == np.int32


def test_language_outside_a_launch_says_so():
    with pytest.raises(GpusimError, match="outside a kernel launch"):
        T.thread_id()


@device
def _helper(x):
    return _inner(x) + 1


@device
def _inner(x):
    return x * 2


@kernel
def _uses_helper(a):
    a[0] = _helper(a[0])


def test_bind_rebinds_T_in_kernel_and_its_device_functions_recursively():
    fake_T = types.ModuleType("fake_T")
    clone = bind(_uses_helper, fake_T)
    assert clone.__globals__["T"] is fake_T
    helper_clone = clone.__globals__["_helper"]
    assert isinstance(helper_clone, types.FunctionType)
    assert helper_clone.__globals__["T"] is fake_T
    assert isinstance(helper_clone.__globals__["_inner"], types.FunctionType)
    assert isinstance(_uses_helper.fn.__globals__["_helper"], DeviceFunction)  # the original is untouched
    memory = [5]
    clone(memory)
    assert memory == [11]
