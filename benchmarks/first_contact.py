"""First contact: what a new user waits for, each command in a fresh process, kernel caches empty and then warm.

Every subcommand on a bundled example (``gpusim match``, ``gpusim match --algorithm suitor``, ``gpusim louvain``,
``gpusim stable``), and NetworkX's ``louvain_communities(karate, backend="gpusim")``, runs in a new Python process
on each backend present (every GPU backend that works here, and ``cpu``): first with empty kernel caches
(``NUMBA_CACHE_DIR`` and ``CUPY_CACHE_DIR`` pointed at a new temporary folder: the first run on a machine), then
with the caches that run filled (every later run).  ``gpusim --help`` is timed the same way.  Wall-clock seconds
of the whole process, as a user's shell would see them.  Goals: warm ≤ 2 s for a bundled example, first-ever
≤ 10 s, ``gpusim --help`` ≤ 0.5 s.

Run: ``python -m benchmarks first-contact [--quick] [--out DIR]``; writes ``DIR/first-contact.json`` and
``DIR/first-contact.png`` (default ``DIR``: ``benchmarks/results/<device>/``) and prints a table.
``--quick``: one warm run per row instead of three.  Runs on a machine without a GPU too (``cpu`` rows only).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: Goals, in seconds of wall-clock time for a fresh process.
GOALS = {"warm": 2.0, "first": 10.0, "help": 0.5}

#: (row name, arguments of ``gpusim``); each runs with ``--backend B --quiet`` added.
COMMANDS = (
    ("match west0067 (gpr)", ["match", "--example", "west0067"]),
    ("match karate (suitor)", ["match", "--example", "karate", "--algorithm", "suitor"]),
    ("louvain karate", ["louvain", "--example", "karate"]),
    ("stable marriage (mw-gpu)", ["stable", "--example", "marriage"]),
)

_NETWORKX = ("import networkx as nx; G = nx.karate_club_graph(); "
             "c = nx.community.louvain_communities(G, backend='gpusim'); assert len(c) > 1")


def _gpusim() -> list[str]:
    """How a user starts gpusim here: the console script beside this Python, else ``python -m gpusim``."""
    script = Path(sys.executable).with_name("gpusim")
    return [str(script)] if script.exists() else [sys.executable, "-m", "gpusim"]


def _timed(command: list[str], env: dict) -> tuple[float, int, str, float]:
    """Seconds a fresh process of ``command`` takes, its exit status, its stderr's last line, and the CPU seconds
    (user and system) it used: on a machine others share, the CPU seconds show what the wait would be alone."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # from a folder of the user's, not the checkout (whose gpusim/ folder would shadow the installed package)
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800, cwd=tempfile.gettempdir())
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    last = (done.stderr.strip().splitlines() or [""])[-1]
    return seconds, done.returncode, last[:300], cpu


def _backends() -> list[str]:
    from gpusim.backends import GPU_BACKENDS, gpu_status

    return [name for name in GPU_BACKENDS if gpu_status(name)[0]] + ["cpu"]


def _device() -> str:
    from gpusim.backends import GPU_BACKENDS, gpu_status

    for name in GPU_BACKENDS:
        ok, why = gpu_status(name)
        if ok:
            return why
    return f"no GPU; {os.cpu_count()} CPU cores ({platform.processor() or platform.machine()})"


def measure(backends: list[str], warm_runs: int) -> list[dict]:
    """One row per (command, backend): seconds with empty caches, then the best of ``warm_runs`` warm runs."""
    rows = []
    gpusim = _gpusim()
    jobs = [("gpusim --help", None, [*gpusim, "--help"], "help")]
    for backend in backends:
        jobs += [(name, backend, [*gpusim, *args, "--backend", backend, "--quiet"], "example")
                 for name, args in COMMANDS]
    # NetworkX's call has no backend option: "auto" picks the GPU where there is one; hidden, it computes on cpu
    jobs += [("networkx louvain karate", backend, [sys.executable, "-c", _NETWORKX], "example")
             for backend in (["auto"] if len(backends) > 1 else []) + ["cpu"]]
    for name, backend, command, kind in jobs:
        folder = tempfile.mkdtemp(prefix="gpusim-first-contact-")
        env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(folder) / "numba"),
               "CUPY_CACHE_DIR": str(Path(folder) / "cupy"), "PYTHONWARNINGS": "ignore"}
        if name.startswith("networkx") and backend == "cpu":
            env["CUDA_VISIBLE_DEVICES"] = ""
        try:
            first, status, said, first_cpu = _timed(command, env)
            warm = [_timed(command, env) for _ in range(warm_runs)]
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        best, _, _, best_cpu = min(warm)
        failed = [s for _, s, _, _ in [(first, status, said, first_cpu), *warm] if s != 0]
        goal_first = GOALS["help"] if kind == "help" else GOALS["first"]
        goal_warm = GOALS["help"] if kind == "help" else GOALS["warm"]
        rows.append({"command": name, "backend": backend, "argv": command[1:] if command[0] != sys.executable
                     else command, "first_s": first, "warm_s": best, "warm_runs": [s for s, _, _, _ in warm],
                     "first_cpu_s": first_cpu, "warm_cpu_s": best_cpu,
                     "exit_status": failed[0] if failed else 0, "first_stderr": said,
                     "goal_first_s": goal_first, "goal_warm_s": goal_warm,
                     "first_met": first <= goal_first, "warm_met": best <= goal_warm})
    return rows


def picture(rows: list[dict], path: Path) -> None:
    """Bars of first and warm seconds per row, with the goals as lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [row["command"] + (f" [{row['backend']}]" if row["backend"] else "") for row in rows]
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(rows) + 1.5))
    y = range(len(rows))
    ax.barh([i + 0.2 for i in y], [row["first_s"] for row in rows], height=0.4, label="empty kernel cache")
    ax.barh([i - 0.2 for i in y], [row["warm_s"] for row in rows], height=0.4, label="warm kernel cache")
    for goal, style in ((GOALS["help"], ":"), (GOALS["warm"], "--"), (GOALS["first"], "-.")):
        ax.axvline(goal, color="grey", linestyle=style, linewidth=1)
    ax.set_yticks(list(y), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("seconds, a fresh process (goals: help 0.5 s, warm 2 s, first 10 s)")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    from benchmarks import machine

    parser = argparse.ArgumentParser(prog="python -m benchmarks first-contact", description=__doc__.splitlines()[0])
    machine.add_out(parser)
    args = parser.parse_args(argv)
    json_path, png_path = machine.outputs(args, "first-contact")
    backends = _backends()
    rows = measure(backends, 1 if args.quick else 3)
    report = {**machine.stamp("first-contact", argv), "device": _device(), "cpu_count": os.cpu_count(),
              "python": platform.python_version(), "backends": backends,
              "goals_s": GOALS, "rows": rows}
    json_path.write_text(json.dumps(report, indent=1))
    picture(rows, png_path)
    print(f"{report['device']}; {report['date']}; commit {report['commit']}")
    print(f"{'command':<28} {'backend':<7} {'first s':>8} {'warm s':>8} {'(cpu s)':>15}  goals")
    for row in rows:
        missed = [which for which in ("first", "warm") if not row[f"{which}_met"]]
        verdict = "met" if not missed else "MISSED " + " and ".join(missed)
        status = "" if row["exit_status"] == 0 else f"  exit {row['exit_status']}: {row['first_stderr']}"
        cpu = f"({row['first_cpu_s']:.2f}, {row['warm_cpu_s']:.2f})"
        print(f"{row['command']:<28} {row['backend'] or '-':<7} {row['first_s']:>8.2f} {row['warm_s']:>8.2f} "
              f"{cpu:>15}  {verdict}{status}")
    print(f"wrote {json_path} and {png_path}")
    return 1 if any(row["exit_status"] for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
