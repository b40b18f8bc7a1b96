"""``gpusim bench sim``: the simulator's scheduling points per second, against numba's CUDA simulator."""

from __future__ import annotations

import argparse
import json

from gpusim.cli.common import progress_disabled

__all__ = ["register_bench"]


def register_bench(commands, common: argparse.ArgumentParser) -> None:
    """Add the ``bench`` subcommand to ``gpusim``'s subparsers (``common``: the shared options)."""
    bench = commands.add_parser("bench", parents=[common], help="benchmarks; 'gpusim bench sim' times the simulator")
    bench.add_argument("target", choices=["sim"], help="what to measure")
    bench.add_argument("--threads", type=int, default=1024, help="threads (default 1024)")
    bench.add_argument("--ops", type=int, default=100, help="scheduling points per thread (default 100)")
    bench.add_argument("--block", type=int, default=256, help="threads per block (default 256)")
    bench.add_argument("--no-cudasim", action="store_true", help="skip numba's simulator")
    bench.add_argument("--json", action="store_true", help="print one JSON list")
    bench.set_defaults(run=_bench)


def _bench(options: argparse.Namespace) -> int:
    from tqdm import tqdm

    from gpusim.teaching.bench import POLICIES, check_workload, numba_cudasim_throughput, sim_throughput

    for workload in ("memory", "barrier"):
        check_workload(options.threads, options.ops, options.block, workload)
    # every row without the race detector, and the reference engine's random schedules again with it
    # (races="report", Device("sim")'s default there): what finding races costs, side by side
    plan = [("memory", [(engine, policy, trace, "off") for policy in POLICIES for trace in (False, True)
                        for engine in ("reference", "compiled")
                        if engine == "reference" or (not trace and policy != "round_robin")]
             + [("reference", "random", False, "report"), ("compiled", "random", False, "report")]),
            ("barrier", [("reference", "sequential", False, "off"), ("reference", "random", False, "off"),
                         ("reference", "random", False, "report"),
                         ("compiled", "sequential", False, "off"), ("compiled", "random", False, "off")])]
    measurements = sum(len(runs) + (not options.no_cudasim) for _, runs in plan)
    rows = []
    with tqdm(total=measurements, desc="gpusim bench sim", unit="measurement",
              disable=progress_disabled(options), leave=False) as bar:
        for workload, runs in plan:
            mine = []
            for engine, policy, trace, races in runs:
                bar.set_postfix(workload=workload, engine=engine, policy=policy, trace=trace, races=races,
                                refresh=True)
                mine += sim_throughput(threads=options.threads, ops=options.ops, block=options.block,
                                       policies=(policy,), traces=(trace,), workload=workload, engine=engine,
                                       races=races)
                bar.update(1)
            reference = None
            if not options.no_cudasim:
                bar.set_postfix(workload=workload, simulator="numba cudasim", refresh=True)
                reference = numba_cudasim_throughput(threads=options.threads, ops=options.ops, block=options.block,
                                                     workload=workload)
                bar.update(1)
            for row in mine + ([reference] if reference else []):
                row["vs_numba_cudasim"] = (row["points_per_second"] / reference["points_per_second"]
                                           if reference else None)
                rows.append(row)
    if options.json:
        print(json.dumps(rows))
        return 0
    print(f"{'workload':<8} {'simulator':<16} {'policy':<12} {'trace':<6} {'races':<7} {'points':>8} "
          f"{'seconds':>8} {'points/s':>12} {'× cudasim':>10}")
    for row in rows:
        ratio = f"{row['vs_numba_cudasim']:.1f}" if row["vs_numba_cudasim"] else "-"
        print(f"{row['workload']:<8} {row['simulator']:<16} {row['policy']:<12} {row['trace']!s:<6} "
              f"{row.get('races', '-'):<7} {row['points']:>8} {row['seconds']:>8.3f} "
              f"{row['points_per_second']:>12,.0f} {ratio:>10}")
    for row in rows:
        if (row["simulator"] == "gpusim compiled" and row["policy"] == "random" and row["vs_numba_cudasim"]
                and row.get("races") == "off"):
            print(f"compiled engine / numba's simulator, {row['workload']}, {row['threads']} threads, random "
                  f"schedules: {row['vs_numba_cudasim']:.1f}x")
    for workload in ("memory", "barrier"):
        pair = {row["races"]: row for row in rows if row["workload"] == workload and row["simulator"] == "gpusim"
                and row["policy"] == "random" and not row["trace"]}
        if {"off", "report"} <= set(pair):
            cost = pair["off"]["points_per_second"] / pair["report"]["points_per_second"]
            print(f"race detector (races='report', the default of Device('sim')) on the reference engine, "
                  f"{workload}, random schedules: {cost:.1f}x the time without it (races='off')")
    return 0
