"""``--backend numba|cupy`` starts the CUDA driver on a background thread while the backend is imported.

Where the driver does not load nothing starts (the backend's probe then says why, one line); on a GPU the thread
retains the primary context that the backends then use, and the answer is the same.
"""

from __future__ import annotations

import threading

import pytest

import gpusim.backends
from gpusim.backends import GPU_BACKENDS, gpu_status, start_driver_early

THREAD = "gpusim-cuda-driver"


def _driver_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == THREAD]


def test_no_thread_starts_where_the_driver_does_not_load(monkeypatch):
    monkeypatch.setattr(gpusim.backends, "cuda_driver_missing", lambda: "no CUDA driver (made so by the test)")
    before = len(_driver_threads())
    start_driver_early()
    assert len(_driver_threads()) == before


def test_the_command_line_starts_it_only_for_an_explicit_gpu_backend(monkeypatch):
    from gpusim.cli import main

    started = []
    monkeypatch.setattr(gpusim.backends, "start_driver_early", lambda: started.append(True))
    assert main(["stable", "--example", "marriage", "--backend", "cpu", "--quiet"]) == 0
    assert not started
    main(["stable", "--example", "marriage", "--backend", "numba", "--quiet"])
    assert started == [True]


@pytest.mark.gpu
@pytest.mark.parametrize("backend", GPU_BACKENDS)
def test_a_gpu_call_after_the_early_start_gives_the_answer(backend):
    ok, why = gpu_status(backend)
    if not ok:
        pytest.skip(why)
    from gpusim.algorithms.stable import stable_marriage
    from gpusim.types.preferences import PreferenceInstance

    start_driver_early()
    instance = PreferenceInstance([[0, 1], [1, 0]], [[1, 0], [0, 1]])
    result = stable_marriage(instance, algorithm="mw-gpu", backend=backend)
    for thread in _driver_threads():
        thread.join(timeout=60)
        assert not thread.is_alive()
    assert result.wife.tolist() == [0, 1]
