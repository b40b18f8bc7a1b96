"""Stable marriage with device-resident input and output (seed 003, Paper IV §4).

On the CPU everything runs on the simulator, whose arrays are device arrays too: a
:class:`DevicePreferenceInstance` built from them is taken by ``mw-gpu`` and ``gs-rounds`` without a copy,
checked on the device once, and ``output="device"`` leaves the wives there.  Every result must equal the
host input's (the man-optimal stable matching is unique, so the same wife array).  The cases marked
``gpu`` do the same with CuPy arrays and numba device arrays.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from gpusim import Device
from gpusim.algorithms.stable import gale_shapley, gs_rounds, mw_gpu, stable_marriage
from gpusim.algorithms.stable.device_result import DeviceStableMatching, ResidentStableMatching
from gpusim.algorithms.stable.result import StableMatching
from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.runtime.resident_preferences import resident_instance
from gpusim.types.device_preferences import DevicePreferenceInstance, host_instance_from_arrays
from gpusim.types.preference_generators import easy_instance, hard_instance
from gpusim.types.preferences import PreferenceInstance

DRIVERS = {"mw-gpu": mw_gpu, "gs-rounds": gs_rounds}


def incomplete_instance(n_men: int, n_women: int, seed: int) -> PreferenceInstance:
    """Random incomplete lists, not all mutual (the device instance holds the mutual part)."""
    rng = np.random.default_rng(seed)
    men = [rng.permutation(n_women)[:rng.integers(0, n_women + 1)].tolist() for _ in range(n_men)]
    women = [rng.permutation(n_men)[:rng.integers(0, n_men + 1)].tolist() for _ in range(n_women)]
    return PreferenceInstance(men, women)


INSTANCES = {
    "easy": lambda: easy_instance(60, seed=3),
    "hard": lambda: hard_instance(16, seed=4),
    "incomplete": lambda: incomplete_instance(13, 9, seed=5),
    "unequal": lambda: incomplete_instance(5, 11, seed=6),
}


def on_device(dev: Device, inst: PreferenceInstance) -> DevicePreferenceInstance:
    """The instance's lists as device arrays made by hand (unchecked, as a user would build them)."""
    arrays = (inst.men_ptr, inst.men_list, inst.men_rank_by_woman)
    return DevicePreferenceInstance(inst.n_men, inst.n_women, *(dev.array(np.asarray(a, np.int32)) for a in arrays))


# -- the same wives as host input ---------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(INSTANCES))
@pytest.mark.parametrize("algorithm", sorted(DRIVERS))
@pytest.mark.parametrize("capacities", [None, "varied"])
def test_device_input_gives_the_host_inputs_wives(name, algorithm, capacities):
    inst = INSTANCES[name]()
    b = None if capacities is None else [1 + w % 3 for w in range(inst.n_women)]
    dev = Device("sim", seed=1)
    run = DRIVERS[algorithm]
    expected = run(inst, backend="sim", capacities=b)
    assert np.array_equal(expected.wife, gale_shapley(inst, b).wife)
    d = on_device(dev, inst)
    host_out = run(d, device=dev, capacities=b)
    assert isinstance(host_out, StableMatching) and isinstance(host_out, ResidentStableMatching)
    assert np.array_equal(host_out.wife, expected.wife) and d.checked
    assert host_out.size == expected.size and host_out.proposals == expected.stats["proposals"]
    assert d.host is None                       # nothing copied back before a check asks
    assert host_out.valid and host_out.stable and host_out.blocking_pairs == []
    assert d.host is not None and d.host == inst.mutual()
    device_out = run(d, device=dev, capacities=b, output="device")
    assert isinstance(device_out, DeviceStableMatching) and type(device_out.wife).__name__ == "SimArray"
    assert np.array_equal(dev.to_host(device_out.wife), expected.wife)
    assert device_out.size == expected.size and device_out.proposals == expected.stats["proposals"]
    assert device_out.valid and device_out.stable and device_out.certified
    assert np.array_equal(device_out.to_host().wife, expected.wife)
    assert device_out.capacities.tolist() == (b or [1] * inst.n_women)


@pytest.mark.parametrize("algorithm", sorted(DRIVERS))
def test_host_input_with_device_output_and_the_copy_made_once(algorithm):
    inst = INSTANCES["incomplete"]()
    dev = Device("sim", seed=2)
    m = DRIVERS[algorithm](inst, device=dev, output="device")
    assert isinstance(m, DeviceStableMatching) and m.instance is inst
    host = m.to_host()
    assert type(host) is StableMatching and host.instance is inst and host.stable
    assert np.array_equal(host.wife, gale_shapley(inst).wife) and m.husbands(0) == host.husbands(0)
    d = DevicePreferenceInstance.from_instance(inst, dev)
    assert d.checked and d.host is inst and d.n_pairs == inst.men_list.size
    assert d.nbytes == 4 * (inst.n_men + 1 + 2 * d.n_pairs)
    r = DRIVERS[algorithm](d, device=dev)
    assert r.instance is inst and r.stable       # validated against the instance it was copied from


def test_stable_marriage_dispatches_device_instances_and_output():
    inst = INSTANCES["easy"]()
    dev = Device("sim")
    d = on_device(dev, inst)
    expected = gale_shapley(inst).wife
    for algorithm in DRIVERS:
        m = stable_marriage(d, algorithm)       # "auto": where the lists live
        assert m.backend == "sim" and np.array_equal(m.wife, expected)
        m = stable_marriage(d, algorithm, device=dev, output="device")
        assert np.array_equal(dev.to_host(m.wife), expected) and m.stats["chosen"] == "the device given"
    with pytest.raises(InvalidArgument, match="the sequential algorithms .* need a PreferenceInstance"):
        stable_marriage(d, "gs")
    with pytest.raises(InvalidArgument, match="the sequential algorithms"):
        stable_marriage(d, "mw-gpu", backend="cpu")
    with pytest.raises(InvalidArgument, match="output='device' needs a GPU algorithm"):
        stable_marriage(inst, "mw", output="device")
    with pytest.raises(InvalidArgument, match="output='device' needs a GPU algorithm"):
        stable_marriage(inst, "mw-gpu", backend="cpu", output="device")
    with pytest.raises(InvalidArgument, match="output='disk' is not one of"):
        mw_gpu(inst, backend="sim", output="disk")
    with pytest.raises(InvalidArgumentType, match="PreferenceInstance or a DevicePreferenceInstance"):
        mw_gpu([[0]], backend="sim")


@pytest.mark.parametrize("inst", [PreferenceInstance([], []), PreferenceInstance([[], []], [[]]),
                                  PreferenceInstance([], [[], []]), PreferenceInstance([[0]], [[0]])],
                         ids=["empty", "no-pairs", "no-men", "one-pair"])
@pytest.mark.parametrize("algorithm", sorted(DRIVERS))
def test_empty_and_tiny_device_instances(inst, algorithm):
    dev = Device("sim")
    d = on_device(dev, inst)
    m = DRIVERS[algorithm](d, device=dev, output="device")
    assert dev.to_host(m.wife).tolist() == gale_shapley(inst).wife.tolist()
    assert m.size == gale_shapley(inst).size
    assert m.valid and m.stable and d.checked
    assert DRIVERS[algorithm](d, device=dev).wife.tolist() == gale_shapley(inst).wife.tolist()


# -- bad device instances: one line naming the entry and its value ------------------------------------


def _a(dev: Device, *values: int):
    return dev.array(np.array(values, np.int32))


BAD = [  # (n_men, n_women, men_ptr, men_list, men_rank_by_woman), the message
    ((2, 2, (0, 3, 2), (0, 1, 0), (0, 0, 1)), "men_ptr must not decrease: men_ptr[1]=3 > men_ptr[2]=2"),
    ((2, 2, (1, 2, 3), (0, 1, 0), (0, 0, 1)), "men_ptr must start at 0 and end at len(men_list)=3, got men_ptr[0]=1"),
    ((2, 2, (0, 2, 2), (0, 1, 0), (0, 0, 1)), "men_ptr must start at 0 and end at len(men_list)=3, got men_ptr[2]=2"),
    ((2, 2, (0, 2, 3), (0, 5, 0), (1, 0, 0)), "men_list[1]=5 (man 0's list) is not a woman id in [0, 2)"),
    ((2, 2, (0, 2, 3), (0, 1, -1), (1, 0, 0)), "men_list[2]=-1 (man 1's list) is not a woman id in [0, 2)"),
    ((2, 2, (0, 1, 3), (1, 0, 0), (0, 0, 1)),
     "men_list[2]=0 repeats men_list[1]: man 1 lists woman 0 twice (a preference list names each woman at most once)"),
    ((3, 2, (0, 2, 2, 3), (0, 1, 0), (1, 0, 2)),
     "men_rank_by_woman[2]=2 is not in [0, 2): woman 0 is listed by 2 men (man 2's entry)"),
    ((2, 2, (0, 2, 3), (0, 1, 0), (-1, 0, 0)), "men_rank_by_woman[0]=-1 is not in [0, 2)"),
    ((3, 2, (0, 1, 2, 3), (1, 0, 1), (0, 0, 0)),
     "men_rank_by_woman[2]=0 repeats men_rank_by_woman[0]: woman 1 would rank both man 0 and man 2 at 0 "
     "(ranks must be distinct)"),
]


@pytest.mark.parametrize("case, message", BAD, ids=[str(i) for i in range(len(BAD))])
def test_a_bad_device_instance_is_refused_in_one_line_naming_the_entry(case, message):
    dev = Device("sim")
    n_men, n_women, *arrays = case
    d = DevicePreferenceInstance(n_men, n_women, *(_a(dev, *a) for a in arrays))
    for attempt in (lambda: resident_instance(dev, d), lambda: mw_gpu(d, device=dev),
                    lambda: gs_rounds(d, device=dev, output="device"), lambda: stable_marriage(d, "mw-gpu")):
        with pytest.raises(InvalidArgument, match=re.escape(message)) as info:
            attempt()
        assert "\n" not in str(info.value)
    assert not d.checked
    with pytest.raises(InvalidArgument):     # the host's own check of the same lists agrees
        host_instance_from_arrays(n_men, n_women, *(np.array(a) for a in arrays))


def test_construction_checks_metadata_in_one_line():
    dev = Device("sim")
    ptr, women, ranks = _a(dev, 0, 1), _a(dev, 0), _a(dev, 0)
    cases = [
        (lambda: DevicePreferenceInstance(1, 1, np.array([0, 1], np.int32), women, ranks), InvalidArgumentType,
         "men_ptr must be a device array"),
        (lambda: DevicePreferenceInstance(1, 1, ptr, [0], ranks), InvalidArgumentType,
         "men_list must be a device array"),
        (lambda: DevicePreferenceInstance(1, 1, ptr, dev.array(np.array([0])), ranks), InvalidArgument,
         "men_list has dtype int64; device preference lists hold int32"),
        (lambda: DevicePreferenceInstance(2, 1, ptr, women, ranks), InvalidArgument,
         "men_ptr must have 3 entries, got 2"),
        (lambda: DevicePreferenceInstance(1, 1, ptr, women, _a(dev, 0, 0)), InvalidArgument,
         "men_rank_by_woman must have 1 entries, got 2"),
        (lambda: DevicePreferenceInstance(-1, 1, ptr, women, ranks), InvalidArgument, "n_men"),
        (lambda: DevicePreferenceInstance.from_instance([[0]], dev), InvalidArgumentType,
         "instance must be a PreferenceInstance"),
    ]
    for build, error, message in cases:
        with pytest.raises(error, match=re.escape(message)) as info:
            build()
        assert "\n" not in str(info.value)


def test_a_valid_device_instance_is_checked_once():
    dev = Device("sim")
    d = on_device(dev, INSTANCES["hard"]())
    assert not d.checked and resident_instance(dev, d) is d and d.checked
    launches = []
    original = dev.launch
    dev.launch = lambda kernel, *a, **k: (launches.append(kernel.name), original(kernel, *a, **k))[1]
    mw_gpu(d, device=dev)
    assert "women_counted" not in launches and "list_starts" in launches and "mcvitie_wilson_gpu" in launches
    assert repr(d) == "DevicePreferenceInstance(n_men=16, n_women=16, n_pairs=256, memory='sim')"


def test_a_device_result_with_a_wrong_wife_is_not_valid():
    inst = PreferenceInstance([[0, 1], [0]], [[1, 0], [0]])
    dev = Device("sim")
    m = mw_gpu(on_device(dev, inst), device=dev, output="device")
    m.wife.data[:] = [0, 0]         # both men to woman 0, who takes one
    assert not m.valid and "woman 0" in m.problem and not m.stable


# -- on a GPU (the device machine) ---------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("algorithm", sorted(DRIVERS))
@pytest.mark.parametrize("family", ["easy", "hard"])
def test_gpu_arrays_are_taken_without_a_copy(gpu_backend, algorithm, family):
    import cupy

    inst = easy_instance(5000, seed=1) if family == "easy" else hard_instance(300, seed=2)
    expected = gale_shapley(inst).wife
    arrays = [cupy.asarray(np.asarray(a, np.int32)) for a in (inst.men_ptr, inst.men_list, inst.men_rank_by_woman)]
    d = DevicePreferenceInstance(inst.n_men, inst.n_women, *arrays)
    m = DRIVERS[algorithm](d, backend=gpu_backend, output="device")
    assert d.checked and m.backend == gpu_backend
    assert type(m.wife).__module__.startswith("cupy" if gpu_backend == "cupy" else "numba")
    assert np.array_equal(Device(gpu_backend).to_host(m.wife), expected) and m.size == int((expected >= 0).sum())
    assert m.stable
    host = DRIVERS[algorithm](d, backend=gpu_backend)
    assert np.array_equal(host.wife, expected) and host.stable


@pytest.mark.gpu
def test_bad_gpu_instances_are_refused_on_the_gpu(gpu_backend):
    import cupy

    a = lambda *x: cupy.asarray(np.array(x, np.int32))  # noqa: E731
    for case, message in BAD:
        n_men, n_women, *arrays = case
        with pytest.raises(InvalidArgument, match=re.escape(message)):
            mw_gpu(DevicePreferenceInstance(n_men, n_women, *(a(*x) for x in arrays)), backend=gpu_backend)
    big = hard_instance(200, seed=3)
    women = np.asarray(big.men_list, np.int32).copy()
    women[5 * 200 + 7] = women[5 * 200 + 3]
    d = DevicePreferenceInstance(200, 200, a(*big.men_ptr), cupy.asarray(women),
                                 cupy.asarray(np.asarray(big.men_rank_by_woman, np.int32)))
    with pytest.raises(InvalidArgument, match=re.escape(f"men_list[1007]={int(women[1003])} repeats men_list[1003]")):
        mw_gpu(d, backend=gpu_backend)
