"""Stable marriage on the GPU beside the sequential algorithms, side by side in one run (Manne et al., CSC 2016 §4).

GPU McVitie-Wilson (a thread per man, CAS) and round-based Gale-Shapley (a kernel per round) on
numba and cupy (whichever work), against sequential Gale-Shapley (queue, Alg. 1) and
McVitie-Wilson (stack), both ``numba.njit``, on the paper's instances:

- *easy*: each man ranks (1 + ε) ln n random women, women rank exactly the men who rank them;
  n = 10^4 … 10^7 (``--quick``: up to 10^5);
- *hard*: one complete random ranking shared by all men, one by all women; n = 10^3 … 4·10^4
  (``--quick``: up to 5·10^3).  The paper goes to n = 5·10^4 on the GPU; here complete lists are
  stored as CSR with int32 offsets (T's index rule), so n·n entries must stay below 2^31:
  n ≤ 46340, and 4·10^4 (1.6·10^9 entries, 6.4 GB per array) is the largest size used.

Reported per run: ``seconds`` (the whole call: copies in and out, kernels), ``device_seconds``
(the kernels and the flags read between rounds, what the paper times), proposals (women
considered: the paper's count, the same for every algorithm), proposals per second, and the
speedup over sequential Gale-Shapley, ``validate_seconds`` (the check of a marriage against the lists,
:func:`gpusim.types.check.blocking_pairs`, that the CLI runs on every result: timed once per instance, on
Gale-Shapley's marriage, which every GPU row must equal to count as right), and ``whole_over_device`` (the
whole call over its device time: the goal for ``mw-gpu`` on hard instances is at most 2, summarised at the end
of the run).

With host input the n^2 entries of a hard instance cross PCIe on every call, so each GPU row also times the
call with the lists already on the device: a
:class:`~gpusim.types.device_preferences.DevicePreferenceInstance` built once before timing
(``from_instance``), a first call untimed (it compiles and is checked against Gale-Shapley), then the timed
call with ``output="device"`` (the wives stay on the device): ``resident_seconds``, its device time
``resident_device_seconds`` and ``resident_over_device``.  Every GPU result, resident ones included, must
equal sequential Gale-Shapley's.
Usage::

    python -m benchmarks stable [--quick] [--easy-max N] [--hard-max N] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys

from benchmarks.timing import timed, validation_row
from gpusim import Device
from gpusim.algorithms import stable
from gpusim.algorithms.stable import gale_shapley, mcvitie_wilson
from gpusim.backends import GPU_BACKENDS, gpu_status
from gpusim.runtime.registry import algorithms
from gpusim.types.device_preferences import DevicePreferenceInstance
from gpusim.types.preference_generators import easy_instance, hard_instance

#: The registry's GPU stable-marriage algorithms (gs-rounds, mw-gpu), each timed on every working GPU backend.
GPU_STABLE = tuple(entry.name for entry in algorithms("stable") if entry.gpu)


def rows_for(family: str, n: int, instance, backends: list[str]) -> list[dict]:
    gs_seconds, reference = timed(lambda: gale_shapley(instance))
    expected = reference.wife
    proposals = reference.stats["proposals"]
    base = {"family": family, "n": n, "pairs": int(instance.men_list.size), "proposals": proposals,
            "married": reference.size}
    rows = []

    def add(program, backend, seconds, device_seconds, result):
        ok = bool((result.wife == expected).all())
        rows.append(dict(base, program=program, backend=backend, seconds=seconds, device_seconds=device_seconds,
                         proposals_per_second=proposals / max(device_seconds, 1e-12),
                         speedup_vs_gs=gs_seconds / max(seconds, 1e-12),
                         device_speedup_vs_gs=reference.stats["seconds"]["gs"] / max(device_seconds, 1e-12), ok=ok))
        print(f"{family:<5} n={n:<9} {program:<10} {backend:<6} {seconds:>9.4f} s  device {device_seconds:>9.4f} s  "
              f"{rows[-1]['proposals_per_second']:>10.3g} proposals/s  x{rows[-1]['speedup_vs_gs']:>6.2f} vs gs  "
              f"{'ok' if ok else 'WRONG'}", flush=True)

    add("gs", "cpu", gs_seconds, reference.stats["seconds"]["gs"], reference)
    check = validation_row(reference, 0.0)  # what a user's check of any equal marriage costs, timed once
    seconds, result = timed(lambda: mcvitie_wilson(instance))
    add("mw", "cpu", seconds, result.stats["seconds"]["mw"], result)
    for backend in backends:
        dev = Device(backend)
        resident = DevicePreferenceInstance.from_instance(instance, dev)  # copied once, before any timing
        for algorithm in GPU_STABLE:
            seconds, result = timed(lambda: stable.stable_marriage(instance, algorithm, backend))  # noqa: B023
            add(algorithm, backend, seconds, result.stats["seconds"].get("proposals", 0.0), result)
            rows[-1].update(rounds=result.stats["rounds"], validate_seconds=check["validate_seconds"],
                            seconds_validated=seconds + check["validate_seconds"], valid=check["valid"],
                            whole_over_device=seconds / max(rows[-1]["device_seconds"], 1e-12))
            rows[-1]["ok"] = rows[-1]["ok"] and rows[-1]["valid"]
            rows[-1].update(resident_row(resident, algorithm, dev, expected))
            rows[-1]["ok"] = rows[-1]["ok"] and rows[-1]["resident_ok"]
            print(f"{'':<5} {'':<11} {algorithm:<10} {backend:<6} {rows[-1]['resident_seconds']:>9.4f} s  device "
                  f"{rows[-1]['resident_device_seconds']:>9.4f} s  resident input, device output  "
                  f"{'ok' if rows[-1]['resident_ok'] else 'WRONG'}", flush=True)
        del resident
    return rows


def resident_row(resident: DevicePreferenceInstance, algorithm: str, dev: Device, expected) -> dict:
    """The call with the lists already on ``dev`` and the wives left there: a first call untimed (compiles,
    checked against ``expected``), then the timed one."""
    def call():
        return stable.stable_marriage(resident, algorithm, device=dev, output="device")

    first = call()
    ok = bool((dev.to_host(first.wife) == expected).all())
    seconds, result = timed(call)
    device_seconds = result.stats["seconds"].get("proposals", 0.0)
    ok = ok and bool((dev.to_host(result.wife) == expected).all())
    return {"resident_seconds": seconds, "resident_device_seconds": device_seconds,
            "resident_over_device": seconds / max(device_seconds, 1e-12), "resident_ok": ok}


def picture(rows: list[dict], path) -> None:
    """Each GPU program's device-time speedup over sequential Gale-Shapley, per instance."""
    from benchmarks.plots import bars

    groups = list(dict.fromkeys(f"{r['family']} n={r['n']:,}" for r in rows))
    programs = list(dict.fromkeys((r["program"], r["backend"]) for r in rows if r["backend"] != "cpu"))
    series = {f"{p} ({b})": [next((r.get("device_speedup_vs_gs", r["speedup_vs_gs"])
                                   for r in rows if f"{r['family']} n={r['n']:,}" == g
                                   and (r["program"], r["backend"]) == (p, b)), None) for g in groups]
              for p, b in programs}
    bars(path, "stable marriage: speedup over sequential Gale-Shapley", groups, series, "speedup (log)", line=1.0)


def main(argv: list[str] | None = None) -> int:
    """The ``stable`` area: rows in ``DIR/stable.json`` (after every size), speedups in ``DIR/stable.png``."""
    from benchmarks import machine

    parser = argparse.ArgumentParser(prog="python -m benchmarks stable", description=__doc__.split("\n\n")[0])
    machine.add_out(parser)
    parser.add_argument("--easy-max", type=int, default=None, help="largest easy n (default 1e7, quick 1e5)")
    parser.add_argument("--hard-max", type=int, default=None, help="largest hard n (default 4e4, quick 5e3)")
    options = parser.parse_args(argv)
    easy_max = options.easy_max or (10**5 if options.quick else 10**7)
    hard_max = options.hard_max or (5000 if options.quick else 40_000)
    backends = []
    for name in GPU_BACKENDS:
        ok, why = gpu_status(name)
        if ok:
            backends.append(name)
        else:
            print(f"skipping {name}: {why}", file=sys.stderr)
    warm = easy_instance(100, seed=0)
    gale_shapley(warm), mcvitie_wilson(warm)  # compile the sequential algorithms before timing
    for name in backends:  # and every kernel
        for algorithm in GPU_STABLE:
            stable.stable_marriage(warm, algorithm, device=Device(name))
    plan = [("easy", n) for n in (10**4, 10**5, 10**6, 10**7) if n <= easy_max]
    plan += [("hard", n) for n in (1000, 5000, 10_000, 20_000, 40_000) if n <= hard_max]
    rows = []
    json_path, png_path = machine.outputs(options, "stable")
    meta = {**machine.stamp("stable", argv), "quick": options.quick}
    for family, n in plan:
        seconds, instance = timed(lambda: (easy_instance if family == "easy" else hard_instance)(n, seed=1))  # noqa: B023
        print(f"{family} n={n}: generated in {seconds:.1f} s", flush=True)
        rows += rows_for(family, n, instance, backends)
        del instance
        json_path.write_text(json.dumps({**meta, "rows": rows}, indent=1) + "\n")
    picture(rows, png_path)
    summary = [r for r in rows if r["program"] in GPU_STABLE and r["family"] == "hard"]
    summary.sort(key=lambda r: (r["program"] != "mw-gpu", r["program"], r["n"], r["backend"]))
    if summary:
        print("GPU stable marriage on hard instances, whole call / device time (goal for mw-gpu: at most 2), "
              "host input and device-resident input with device output:")
    for r in summary:
        print(f"  {r['program']:<9} n={r['n']:<7} {r['backend']:<6} whole {r['seconds']:.4f} s, device "
              f"{r['device_seconds']:.4f} s, ratio {r['whole_over_device']:.2f}; resident "
              f"{r['resident_seconds']:.4f} s, device {r['resident_device_seconds']:.4f} s, "
              f"ratio {r['resident_over_device']:.2f}")
    wrong = [r for r in rows if not r["ok"]]
    print(f"{len(rows)} runs, {len(wrong)} wrong")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
