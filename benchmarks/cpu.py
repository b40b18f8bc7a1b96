"""The CPU engine beside NetworkX, SciPy and NetworKit: every problem at 10^3 to 10^7 edges, no GPU.

Each problem runs in a fresh child process with the GPUs hidden (``CUDA_VISIBLE_DEVICES=``), so gpusim's
``backend="auto"`` computes on the CPU engine; every row records ``stats["chosen"]`` (what ``auto`` chose,
and why; where ``auto`` would choose the simulator the row runs ``backend="cpu"`` and says so).  In the same
child, on the same cores and inputs, the peers that have the problem run: NetworkX
(``hopcroft_karp_matching``, ``max_weight_matching`` up to 10^4 edges, ``louvain_communities``; capped at
10^6 edges and ``--timeout`` seconds), SciPy (``maximum_bipartite_matching``) and NetworKit
(``SuitorMatcher``, ``BSuitorMatcher``, ``PLM``, on every core).  gpusim's calls are timed warm (one untimed
call first, so nothing is compiled in the timing; the best of a few calls) and its first call in the fresh
process is reported too (``first_call_seconds``: numba's on-disk cache as it is; ``first_call_cold_seconds``
in another process with an empty ``NUMBA_CACHE_DIR``: everything compiled).  A ratio is the peer's seconds
over gpusim's (above 1: gpusim is faster).  ``goals`` checks the targets: never slower than NetworkX, at
least 10 times NetworkX at 10^5 edges, within 2 times SciPy and NetworKit at 10^6 to 10^7 edges, Louvain's
modularity within 1 % of NetworKit PLM's (both measured by NetworKit's ``Modularity``).

Usage: ``python -m benchmarks cpu [--quick] [--out DIR] [--problems P,...] [--timeout S] [--merge FILE]`` writes
``DIR/cpu.json`` and ``DIR/cpu.png`` (default ``benchmarks/results/<device>/``; ``--quick``: up to 10^5 edges)
after every problem, so that a run stopped part-way keeps the problems it finished (``problems_finished``);
``--merge FILE`` keeps an earlier file's rows of the other problems, so a table can be measured in parts, each
row naming the commit it was measured at.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

PROBLEMS = ("bipartite", "suitor", "ld", "bsuitor", "roma", "stable", "louvain")
SIZES = (10**3, 10**4, 10**5, 10**6, 10**7)
QUICK_SIZES = SIZES[:3]
NETWORKX_MAX = 10**6
NETWORKX_WEIGHTED_MAX = 10**4
B = 3   # b of the b-matchings


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout


def timed_once(call, timeout: float | None = None) -> tuple[float | None, object]:
    """``(seconds, result)`` of one call; ``(None, "timeout")`` past ``timeout`` seconds (SIGALRM: a Python peer)."""
    if timeout:
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        start = time.perf_counter()
        result = call()
        return time.perf_counter() - start, result
    except _Timeout:
        return None, "timeout"
    finally:
        if timeout:
            signal.setitimer(signal.ITIMER_REAL, 0)


def timed_warm(call, budget: float = 0.5, most: int = 5) -> tuple[float, object]:
    """The best of a few calls after one untimed call (calls until ``budget`` seconds, at most ``most``)."""
    result = call()
    best, spent, calls = math.inf, 0.0, 0
    while calls < most and (calls == 0 or spent < budget):
        seconds, result = timed_once(call)
        best, spent, calls = min(best, seconds), spent + seconds, calls + 1
    return best, result


# ---------------------------------------------------------------------------------------------------------
# inputs


def random_pairs(n: int, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``m`` distinct undirected pairs ``u < v`` on ``n`` vertices (fewer if there are not that many)."""
    from gpusim.types.generators import sorted_unique

    rng = np.random.default_rng(seed)
    u = rng.integers(0, n, int(m * 1.3) + 10)
    v = rng.integers(0, n, u.size)
    keep = u != v
    keys = sorted_unique(np.minimum(u[keep], v[keep]).astype(np.int64) * n + np.maximum(u[keep], v[keep]))
    keys = np.sort(rng.permutation(keys)[:m])
    return keys // n, keys % n


def community_pairs(n: int, m: int, seed: int, block: int = 64, inside: float = 0.9):
    """A planted partition: blocks of ``block`` vertices, a fraction ``inside`` of the edges within a block."""
    from gpusim.types.generators import sorted_unique

    rng = np.random.default_rng(seed)
    u = rng.integers(0, n, int(m * 1.3) + 10)
    v = np.where(rng.random(u.size) < inside, (u // block) * block + rng.integers(0, block, u.size),
                 rng.integers(0, n, u.size))
    v = np.minimum(v, n - 1)
    keep = u != v
    keys = sorted_unique(np.minimum(u[keep], v[keep]).astype(np.int64) * n + np.maximum(u[keep], v[keep]))
    keys = np.sort(rng.permutation(keys)[:m])
    return keys // n, keys % n


def stable_size(entries: int) -> int:
    """Men (and women) of an easy instance (about ``1.5 n ln n`` list entries) with about ``entries`` entries."""
    n = max(entries // 10, 8)
    for _ in range(30):
        n = max(int(entries / (1.5 * math.log(max(n, 3)))), 8)
    return n


# ---------------------------------------------------------------------------------------------------------
# one problem, in a child process


def networkit_graph(n, u, v, w=None):
    import networkit as nk
    from networkit.graph import GraphFromCoo

    nk.setNumberOfThreads(os.cpu_count() or 1)
    data = np.ones(u.size) if w is None else np.ascontiguousarray(w, np.float64)
    return GraphFromCoo((data, (u.astype(np.uint64), v.astype(np.uint64))), n=n, weighted=w is not None)


def run_problem(problem: str, edges: int, timeout: float, first: bool, side: str) -> dict:
    """One row's half: gpusim (``auto``) or the peers, on one input of about ``edges`` edges.  The halves run in
    separate processes: NetworKit's OpenMP threads, left waiting in a process, slowed numba's parallel loops
    there 17-fold (10^5 edges, 2 cores), and numba's would slow NetworKit."""
    from gpusim.runtime.device import choose_backend

    row: dict = {"problem": problem, "edges": edges}
    auto, why = choose_backend("auto", edges)
    backend = "auto" if auto == "cpu" else "cpu"
    ours, peers = _PROBLEMS[problem](edges, backend, timeout, side)
    if side == "gpusim":
        row["backend_asked"] = backend
        if backend != "auto":
            row["note"] = f"auto would choose {auto} ({why}); ran backend='cpu'"
        if first:
            row["first_call_seconds"], _ = timed_once(ours)
        row["gpusim_seconds"], result = timed_warm(ours)
        row["chosen"] = result.stats.get("chosen")
        row["engine"] = result.stats.get("engine")
        row["valid"] = bool(result.valid)
        row.update(_summary(problem, result))
        return row
    for name, call, limit in peers:
        if limit is not None and edges > limit:
            row[f"{name}_seconds"] = None
            row[f"{name}_note"] = f"not run above {limit} edges"
            continue
        seconds, found = timed_once(call, timeout if name == "networkx" else None)
        row[f"{name}_seconds"] = seconds
        if seconds is None:
            row[f"{name}_note"] = f"timed out after {timeout} s"
        else:
            row[f"{name}_answer"] = found
    return row


def _summary(problem: str, result) -> dict:
    if problem == "louvain":
        return {"gpusim_answer": result.modularity, "communities": int(result.n_communities)}
    if problem == "stable":
        return {"gpusim_answer": int((result.wife >= 0).sum())}
    if problem == "bipartite":
        return {"gpusim_answer": int(result.size)}
    return {"gpusim_answer": float(result.weight)}


def _bipartite(edges, backend, timeout, side):
    import networkx as nx
    from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_matching

    from gpusim.algorithms.bipartite import maximum_bipartite_matching
    from gpusim.types.generators import uniform_random

    n = max(edges // 4, 2)
    graph = uniform_random(n, n, edges, seed=1)
    if side == "gpusim":
        return (lambda: maximum_bipartite_matching(graph, "apfb", backend)), []
    csr = graph.to_scipy()
    peers = [("scipy", lambda: int((scipy_matching(csr, perm_type="column") >= 0).sum()), None)]
    if edges <= NETWORKX_MAX:
        G = graph.to_networkx()
        top = [node for node, part in G.nodes(data="bipartite") if part == 0]
        peers.append(("networkx", lambda: len(nx.bipartite.hopcroft_karp_matching(G, top)) // 2, NETWORKX_MAX))
    return (lambda: maximum_bipartite_matching(graph, "apfb", backend)), peers


def _weighted(algorithm):
    def build(edges, backend, timeout, side):
        import networkx as nx

        from gpusim.algorithms.weighted import maximum_weight_matching
        from gpusim.types.graphs import WeightedGraph

        n = max(edges // 8, 4)
        u, v = random_pairs(n, edges, seed=2)
        w = np.random.default_rng(3).random(u.size)
        graph = WeightedGraph.from_edges(u, v, w, n=n)
        options = {"b": B} if algorithm == "bsuitor" else {}
        if side == "gpusim":
            return (lambda: maximum_weight_matching(graph, algorithm, backend, **options)), []
        G = networkit_graph(n, u, v, w)
        import networkit as nk

        def networkit():
            if algorithm == "bsuitor":
                matcher = nk.matching.BSuitorMatcher(G, B)
                matcher.run()
                return matcher.getBMatching().weight()
            matcher = nk.matching.SuitorMatcher(G, False)
            matcher.run()
            return matcher.getMatching().weight(G)

        peers = [("networkit", networkit, None)]
        if algorithm != "bsuitor" and edges <= NETWORKX_WEIGHTED_MAX:
            H = nx.Graph()
            H.add_weighted_edges_from(zip(u.tolist(), v.tolist(), w.tolist(), strict=True))
            peers.append(("networkx", lambda: sum(H[a][c]["weight"] for a, c in nx.max_weight_matching(H)),
                          NETWORKX_WEIGHTED_MAX))
        return None, peers
    return build


def _roma(edges, backend, timeout, side):
    from gpusim.algorithms.weighted import maximum_weight_matching
    from gpusim.types.graphs import WeightedGraph

    n = max(int((1 + math.sqrt(1 + 8 * edges)) / 2), 4)
    n -= n % 2
    u, v = np.triu_indices(n, 1)
    graph = WeightedGraph.from_edges(u, v, np.random.default_rng(4).random(u.size) + 0.01, n=n)
    return (lambda: maximum_weight_matching(graph, "roma", backend)), []


def _stable(edges, backend, timeout, side):
    from gpusim.algorithms.stable import stable_marriage
    from gpusim.types.preference_generators import easy_instance

    instance = easy_instance(stable_size(edges), seed=5)
    return (lambda: stable_marriage(instance, "gs-rounds", backend)), []


def _louvain(edges, backend, timeout, side):
    import networkit as nk
    import networkx as nx

    from gpusim.algorithms.louvain import louvain
    from gpusim.algorithms.louvain.graph import LouvainGraph, karate

    if edges == 78:   # Zachary's karate club
        graph = karate()
        if side == "gpusim":
            return (lambda: louvain(graph, backend=backend)), []
        G = nx.karate_club_graph()
        nkG = nk.nxadapter.nx2nk(G)
        n = G.number_of_nodes()
    else:
        n = max(edges // 8, 8)
        u, v = community_pairs(n, edges, seed=6)
        graph = LouvainGraph.from_edges(u, v, n=n)
        if side == "gpusim":
            return (lambda: louvain(graph, backend=backend)), []
        nkG = networkit_graph(n, u, v)
        G = None
        if edges <= NETWORKX_MAX:
            G = nx.Graph()
            G.add_nodes_from(range(n))
            G.add_edges_from(zip(u.tolist(), v.tolist(), strict=True))
    quality = nk.community.Modularity()

    def plm():
        algorithm = nk.community.PLM(nkG)
        algorithm.run()
        return quality.getQuality(algorithm.getPartition(), nkG)

    def networkx():
        found = nx.community.louvain_communities(G, weight=None, seed=0)
        return nx.community.modularity(G, found, weight=None) if n <= 10**5 else len(found)

    peers = [("networkit", plm, None)]
    if G is not None:
        peers.append(("networkx", networkx, NETWORKX_MAX))
    return None, peers


_PROBLEMS = {"bipartite": _bipartite, "suitor": _weighted("suitor"), "ld": _weighted("ld"),
             "bsuitor": _weighted("bsuitor"), "roma": _roma, "stable": _stable, "louvain": _louvain}


def child(problem: str, sizes: list[int], timeout: float, first_only: bool, side: str) -> list[dict]:
    rows = []
    for i, edges in enumerate(sizes):
        if first_only:
            ours, _ = _PROBLEMS[problem](edges, "cpu", timeout, "gpusim")
            seconds, _ = timed_once(ours)
            return [{"problem": problem, "edges": edges, "first_call_cold_seconds": seconds}]
        rows.append(run_problem(problem, edges, timeout, first=i == 0, side=side))
        print(json.dumps(rows[-1], default=float), file=sys.stderr, flush=True)
    return rows


# ---------------------------------------------------------------------------------------------------------
# the parent: children, goals, files


def _spawn(problem: str, sizes: list[int], timeout: float, cold: bool = False, side: str = "gpusim") -> list[dict]:
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}
    command = [sys.executable, str(Path(__file__).resolve()), "--child", problem, "--side", side,
               "--sizes", ",".join(map(str, sizes)), "--timeout", str(timeout)]
    with tempfile.TemporaryDirectory() as empty:
        if cold:
            env["NUMBA_CACHE_DIR"] = empty
            command.append("--first-only")
        done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        return [{"problem": problem, "error": done.stderr.strip().splitlines()[-1:] or ["exit status"]}]
    return json.loads(done.stdout)


def _merge(ours: list[dict], theirs: list[dict]) -> None:
    """The peers' columns into gpusim's rows (by size), with ``ratio_vs_PEER``: the peer's seconds over gpusim's."""
    by_size = {r.get("edges"): r for r in theirs}
    for row in ours:
        peer = by_size.get(row.get("edges"), {})
        row.update({k: v for k, v in peer.items() if k not in ("problem", "edges")})
        for name in ("networkx", "scipy", "networkit"):
            if row.get(f"{name}_seconds") and row.get("gpusim_seconds"):
                row[f"ratio_vs_{name}"] = row[f"{name}_seconds"] / row["gpusim_seconds"]


def goals(rows: list[dict]) -> dict:
    """The targets, each with the rows it holds for (``None`` where no row measures it)."""
    def check(predicate, selected):
        selected = [r for r in selected if r is not None]
        return {"met": all(predicate(r) for r in selected) if selected else None,
                "rows": [(r["problem"], r["edges"], round(_ratio(r), 3)) for r in selected]}

    def _ratio(r):
        return r.get("_ratio", math.nan)

    vs_nx = [dict(r, _ratio=r["ratio_vs_networkx"]) for r in rows if r.get("ratio_vs_networkx") is not None]
    at_1e5 = [r for r in vs_nx if r["edges"] == 10**5]
    big = [dict(r, _ratio=r[f"ratio_vs_{p}"]) for r in rows for p in ("scipy", "networkit")
           if r.get("edges", 0) >= 10**6 and r.get(f"ratio_vs_{p}") is not None]
    q = [dict(r, _ratio=r["gpusim_answer"] / r["networkit_answer"]) for r in rows
         if r.get("problem") == "louvain" and r.get("networkit_answer")]
    return {"never slower than NetworkX": check(lambda r: r["_ratio"] >= 1.0, vs_nx),
            "at least 10x NetworkX at 10^5 edges": check(lambda r: r["_ratio"] >= 10.0, at_1e5),
            "within 2x of SciPy and NetworKit at 10^6-10^7 edges": check(lambda r: r["_ratio"] >= 0.5, big),
            "Louvain modularity within 1% of NetworKit PLM": check(lambda r: r["_ratio"] >= 0.99, q)}


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    problems = [p for p in PROBLEMS if any(r.get("problem") == p and "edges" in r for r in rows)]
    fig, axes = plt.subplots(1, len(problems), figsize=(3.2 * len(problems), 3.2), squeeze=False)
    for ax, problem in zip(axes[0], problems, strict=True):
        mine = sorted((r for r in rows if r.get("problem") == problem and r.get("gpusim_seconds")),
                      key=lambda r: r["edges"])
        for name, style, colour in (("gpusim", "o-", "C0"), ("networkx", "s--", "C1"), ("scipy", "^--", "C2"),
                                    ("networkit", "d--", "C3")):
            points = [(r["edges"], r[f"{name}_seconds"]) for r in mine if r.get(f"{name}_seconds")]
            if points:
                ax.loglog(*zip(*points, strict=True), style, color=colour,
                          label="gpusim auto (cpu)" if name == "gpusim" else name)
        ax.set_title(problem)
        ax.set_xlabel("edges")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("seconds (gpusim warm; peers one call)")
    labels = {}
    for ax in axes[0]:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            labels.setdefault(label, handle)
    fig.legend(list(labels.values()), list(labels), loc="upper center", ncol=len(labels), fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes up to 10^5 edges")
    parser.add_argument("--out", metavar="DIR", default=None,
                        help="write DIR/cpu.json and DIR/cpu.png (default benchmarks/results/<device>/)")
    parser.add_argument("--problems", default=",".join(PROBLEMS), help="a comma-separated subset")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds a NetworkX call may take")
    parser.add_argument("--merge", metavar="FILE", type=Path,
                        help="keep FILE's rows of the problems not rerun (each row names its commit)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--sizes", help=argparse.SUPPRESS)
    parser.add_argument("--first-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--side", default="gpusim", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        sizes = [int(s) for s in args.sizes.split(",")]
        print(json.dumps(child(args.child, sizes, args.timeout, args.first_only, args.side), default=float))
        return 0
    problems = [p.strip() for p in args.problems.split(",") if p.strip()]
    unknown = [p for p in problems if p not in PROBLEMS]
    if unknown:
        print(f"cpu.py: --problems has {unknown[0]!r}, not one of {','.join(PROBLEMS)}", file=sys.stderr)
        return 2
    from benchmarks import machine

    json_path, png_path = machine.outputs(args, "cpu")
    sizes = list(QUICK_SIZES if args.quick else SIZES)
    rows: list[dict] = []
    started, load_before = time.time(), os.getloadavg()
    stamp = machine.stamp("cpu", argv)
    try:
        kept = _kept_rows(args.merge, problems, stamp["device"])
    except ValueError as exc:
        print(f"cpu.py: --merge {args.merge}: {exc}", file=sys.stderr)
        return 2
    for done, problem in enumerate(problems, 1):
        print(f"cpu.py: {problem} at {sizes[0]}..{sizes[-1]} edges", file=sys.stderr, flush=True)
        these = _spawn(problem, ([78] if problem == "louvain" else []) + sizes, args.timeout)
        theirs = _spawn(problem, ([78] if problem == "louvain" else []) + sizes, args.timeout, side="peers")
        _merge(these, theirs)
        cold = _spawn(problem, sizes[:1], args.timeout, cold=True)
        if these and cold and "first_call_cold_seconds" in cold[0]:
            first = next((r for r in these if r.get("edges") == sizes[0]), None)
            if first is not None:
                first["first_call_cold_seconds"] = cold[0]["first_call_cold_seconds"]
        rows += [{**row, "commit": stamp.get("commit"), "date": stamp.get("date")} for row in these]
        # written after every problem: a run stopped part-way keeps the problems it finished
        report = {**stamp, **_report(started, load_before, kept + rows, finished=problems[:done], planned=problems)}
        json_path.write_text(json.dumps(report, indent=1, default=float) + "\n")
        plot(kept + rows, png_path)
    for name, goal in report["goals"].items():
        print(f"{name}: {goal['met']} {goal['rows']}")
    return 0


def _kept_rows(path: Path | None, rerun: list[str], device: str) -> list[dict]:
    """The rows of ``path`` (an earlier cpu.json of ``device``) whose problem is not rerun, each stamped with that
    run's commit; ``ValueError`` saying why when the file cannot be merged."""
    if path is None:
        return []
    try:
        earlier = json.loads(path.read_text())
        rows = earlier["rows"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"not a cpu.json this area wrote ({type(exc).__name__}: {exc})") from None
    if earlier.get("device") != device:
        raise ValueError(f"measured on {earlier.get('device')!r}, not on this machine ({device!r})")
    return [{"commit": earlier.get("commit"), "date": earlier.get("date"), **row}
            for row in rows if row.get("problem") not in rerun]


def _report(started: float, load_before: tuple, rows: list[dict], finished: list[str], planned: list[str]) -> dict:
    """The rows so far, which problems they cover, the machine, and the goals they meet."""
    return {"started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(started)),
            "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "load_average_before": load_before,
                        "load_average_after": os.getloadavg(), "numba_threads": _numba_threads()},
            "seconds": time.time() - started, "problems_finished": finished, "problems_planned": planned,
            "rows": rows, "goals": goals(rows)}


def _numba_threads() -> int:
    import numba

    return numba.config.NUMBA_NUM_THREADS


if __name__ == "__main__":
    sys.exit(main())
