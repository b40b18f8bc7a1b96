"""Louvain community detection on the GPU (Naim et al., IPDPS 2017) beside the CPU codes, side by side in one run.

Programs, on each generated graph (the optional ones only where installed and within their size limit):

- gpusim on ``numba`` and ``cupy``, ``layout="buckets"`` (the paper's) at the paper's thresholds and at each other
  ``--bin-thresholds`` value (``t_bin``, the threshold while more than 100,000 vertices have an edge), and
  ``"thread"`` (one thread a vertex) at the paper's thresholds: ``seconds`` is the whole call (copies in, every level,
  the labels read back; the dendrogram stays on the device until asked for), the best of :data:`REPEATS` rounds
  after one untimed call of each (compiling, growing the memory pool to the graph), each round calling every gpusim
  row once in turn (:func:`gpusim_rows`); beside it the whole call from device-resident input (``gpusim resident``:
  a ``DeviceWeightedGraph``; ``gpusim from a cupyx CSR``: a ``cupyx.scipy.sparse`` matrix, converted and checked in
  every call); ``device_seconds`` the synchronised phases of the host loop (optimise and aggregate: the kernels and
  the counters read back between them), which is what the paper times, and the refinement on the input graph that
  gpusim adds (``refine``);
- the sequential references on the CPU: the bucket-synchronous emulation (the GPU's decisions) and
  Blondel et al.'s original one-vertex-at-a-time Louvain, both compiled with numba — the paper's
  speed-ups (2.7 to 312, average 41.7 at t_bin = 1e-2, t_final = 1e-6; Table 1) are over the original;
- ν-Louvain (CUDA) and GVE-Louvain (OpenMP, all host cores), Sahu's code built with nvcc from
  ``../shared/anchors/nu-louvain`` (``benchmarks/nu_louvain.py``; skipped with a message without nvcc or the
  sources): each method's own timer, the graph already read, the mean of 3 runs (``-DREPEAT_METHOD=3``), and the
  modularity it reports;
- NetworKit's PLM with its refinement (``networkit.community.PLM(refine=True)``, all host cores, up to
  ``--plm-edges``), igraph's ``community_multilevel`` (up to
  ``--igraph-edges``), NetworkX's ``louvain_communities`` (up to ``--networkx-edges``).

Graphs: planted partition (communities of 64 to 1024 vertices), R-MAT (a = 0.57, b = c = 0.19), random
geometric in the unit square, and LFR (NetworkX's generator, small sizes only: it rarely converges beyond).
Every row reports the modularity (recomputed by gpusim's independent check for gpusim's results, by the
program's own modularity otherwise) and its ratio to PLM's (or to the best CPU program when PLM is
missing).  Usage::

    python -m benchmarks louvain [--quick] [--sizes 20,22,24] [--graphs planted,rmat] [--out DIR]
    python -m benchmarks louvain --sizes 23 --degree 24 --graphs rmat,planted --reference-edges 0 --no-thread
    python -m benchmarks louvain --sizes 22 --family-degrees rmat=16,planted=20 --paper-rules --bin-thresholds 1e-2

``--paper-rules`` adds gpusim with the paper's stopping rules and no pruning beside its defaults; for graphs of
10^8 edges and more, ``--graph-cache DIR`` keeps each generated graph (``.npz``) for the next run, ``--no-resident``
leaves out the device-resident rows and ``--repeats 2`` times fewer calls.  Each row says when it was measured
(``at``: seconds since the run began), so a run cut by a time limit shows where its time went.

``--sizes`` are log2 of the vertex counts (average degree about 10, so 2^20 vertices is about 10^7 edges).
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.timing import timed
from gpusim import Device
from gpusim.algorithms.louvain import T_BIN, LouvainGraph, blondel_louvain, bucket_louvain, louvain, modularity
from gpusim.algorithms.louvain.driver import PAPER_RULES
from gpusim.backends import GPU_BACKENDS, gpu_status
from gpusim.types.generators import sorted_unique

#: gpusim's calls timed per program and graph (``--repeats``): the best counts.
REPEATS = 3
_START = time.perf_counter()
#: NetworKit's PLM with its refinement (PLMR), on every host core: the CPU program the modularity is compared with.
PLM = "networkit PLMR"


def _from_pairs(u: np.ndarray, v: np.ndarray, n: int) -> LouvainGraph:
    """An unweighted simple graph from endpoint arrays (self-loops dropped, duplicates merged)."""
    keep = u != v
    lo, hi = np.minimum(u[keep], v[keep]).astype(np.int64), np.maximum(u[keep], v[keep]).astype(np.int64)
    keys = sorted_unique(lo * n + hi)
    return LouvainGraph.from_edges(keys // n, keys % n, n=n)


def planted_partition(n: int, degree: float, seed: int) -> tuple[LouvainGraph, np.ndarray]:
    """Communities of 64 to 1024 vertices; 80 % of each vertex's edges inside its community."""
    rng = np.random.default_rng(seed)
    sizes, total = [], 0
    while total < n:
        sizes.append(int(rng.integers(64, 1025)))
        total += sizes[-1]
    sizes[-1] -= sum(sizes) - n
    truth = np.repeat(np.arange(len(sizes)), sizes)
    start = np.concatenate([[0], np.cumsum(sizes)])
    m = int(n * degree / 2)
    u = rng.integers(0, n, m)
    inside = rng.random(m) < 0.8
    community = truth[u]
    v = np.where(inside, start[community] + (rng.random(m) * np.asarray(sizes)[community]).astype(np.int64),
                 rng.integers(0, n, m))
    return _from_pairs(u, v, n), truth


def rmat(scale: int, degree: float, seed: int) -> LouvainGraph:
    """R-MAT (Chakrabarti et al.) with a = 0.57, b = c = 0.19, vertex ids permuted."""
    rng = np.random.default_rng(seed)
    m = int((1 << scale) * degree / 2)
    u = np.zeros(m, np.int64)
    v = np.zeros(m, np.int64)
    for bit in range(scale):
        r = rng.random(m)
        right = (r >= 0.57) & (r < 0.76) | (r >= 0.95)
        down = r >= 0.76
        u |= down.astype(np.int64) << bit
        v |= right.astype(np.int64) << bit
    perm = rng.permutation(1 << scale)
    return _from_pairs(perm[u], perm[v], 1 << scale)


def rmat_on_gpu(scale: int, degree: float, seed: int) -> LouvainGraph:
    """:func:`rmat`'s law drawn with CuPy on the GPU, the CSR built there too: 5·10^8 edges in seconds where NumPy
    takes minutes.  Another random stream than NumPy's, so another graph of the same law for a seed."""
    import cupy as cp

    rng = cp.random.default_rng(seed)
    n, m = 1 << scale, int((1 << scale) * degree / 2)
    u, v = cp.zeros(m, cp.int64), cp.zeros(m, cp.int64)
    for bit in range(scale):
        r = rng.random(m, dtype=cp.float32)
        u |= (r >= 0.76).astype(cp.int64) << bit
        v |= (((r >= 0.57) & (r < 0.76)) | (r >= 0.95)).astype(cp.int64) << bit
    del r
    perm = cp.asarray(np.random.default_rng(seed).permutation(n))
    u, v = perm[u], perm[v]
    keep = u != v
    keys = cp.unique(cp.minimum(u, v)[keep] * n + cp.maximum(u, v)[keep])  # each edge once, lo * n + hi
    del u, v, keep, perm
    entries = cp.concatenate([keys, keys % n * n + keys // n])  # both directions, row * n + column
    del keys
    entries.sort()
    ptr = cp.searchsorted(entries, cp.arange(n + 1, dtype=cp.int64) * n).astype(cp.int32)  # row r from r * n
    adj = (entries % n).astype(cp.int32)
    del entries
    graph = LouvainGraph(n, cp.asnumpy(ptr), cp.asnumpy(adj), np.ones(int(adj.size)))
    del ptr, adj
    cp.get_default_memory_pool().free_all_blocks()
    return graph


def random_geometric(n: int, degree: float, seed: int) -> LouvainGraph:
    """Points in the unit square joined within the radius that gives ``degree`` on average (a k-d tree)."""
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(seed)
    points = rng.random((n, 2))
    pairs = cKDTree(points).query_pairs(math.sqrt(degree / (math.pi * n)), output_type="ndarray")
    return _from_pairs(pairs[:, 0], pairs[:, 1], n)


def lfr(n: int, seed: int) -> LouvainGraph | None:
    import networkx as nx

    try:
        G = nx.LFR_benchmark_graph(n, 3, 1.5, 0.1, average_degree=10, max_degree=50, min_community=20,
                                   max_community=200, seed=seed)
    except nx.ExceededMaxIterations:
        return None
    G.remove_edges_from(nx.selfloop_edges(G))
    return LouvainGraph.from_networkx(G)


def _edges(graph: LouvainGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return graph.edges()


def networkit_plm(graph: LouvainGraph):
    import networkit as nk

    u, v, w = _edges(graph)
    if hasattr(nk, "GraphFromCoo"):
        G = nk.GraphFromCoo((w, (u, v)), n=graph.n, weighted=True, directed=False)
    else:
        G = nk.Graph(graph.n, weighted=True)
        for a, b, c in zip(u.tolist(), v.tolist(), w.tolist(), strict=True):
            G.addEdge(a, b, c)
    start = time.perf_counter()
    partition = nk.community.detectCommunities(G, algo=nk.community.PLM(G, refine=True), inspect=False)
    seconds = time.perf_counter() - start
    return seconds, np.array(partition.getVector(), np.int64)


def igraph_multilevel(graph: LouvainGraph):
    import igraph as ig

    u, v, w = _edges(graph)
    G = ig.Graph(n=graph.n, edges=np.column_stack([u, v]).tolist())
    start = time.perf_counter()
    clustering = G.community_multilevel(weights=w.tolist())
    return time.perf_counter() - start, np.array(clustering.membership, np.int64)


def networkx_louvain(graph: LouvainGraph):
    import networkx as nx

    G = graph.to_networkx()
    start = time.perf_counter()
    communities = nx.community.louvain_communities(G, seed=0, threshold=1e-6)
    seconds = time.perf_counter() - start
    labels = np.zeros(graph.n, np.int64)
    for c, members in enumerate(communities):
        labels[list(members)] = c
    return seconds, labels


def _measured(rows: list[dict], row: dict) -> None:
    """Keep ``row`` and print it at once (stderr): a run stopped by a time limit keeps what it measured."""
    row["at"] = round(time.perf_counter() - _START, 1)
    rows.append(row)
    print("measured:", json.dumps(row, default=float), file=sys.stderr, flush=True)


def graphs_of(makers: dict, families: set, n: int, scale: int):
    """Each family's graph of this size, made when its turn comes (a run stopped by a time limit keeps the rows
    of the graphs before)."""
    for key, (label, make) in makers.items():
        if key in families:
            yield label, make()
    if scale <= 14:
        graph = lfr(n, scale)
        if graph is not None:
            yield "lfr", graph


def anchor_rows(rows: list[dict], base: dict, graph: LouvainGraph, binary) -> None:
    """ν-Louvain's and GVE-Louvain's rows on ``graph`` (one process runs both); a failure is printed, not raised."""
    from benchmarks import nu_louvain

    u, v, _ = _edges(graph)
    with tempfile.TemporaryDirectory(prefix="gpusim-nu-louvain-") as scratch:
        try:
            found = nu_louvain.run(binary, nu_louvain.write_mtx(u, v, graph.n, Path(scratch) / "graph.mtx"))
        except nu_louvain.AnchorError as exc:
            print(f"louvain: {base['graph']}: {exc}", file=sys.stderr)
            return
    for program, figures in found.items():
        backend = "cuda" if program == "nu-Louvain" else f"{figures['threads']} threads"
        _measured(rows, {**base, "program": program, "backend": backend, **figures})


def cached(path: Path, make) -> LouvainGraph:
    """The unweighted graph kept at ``path`` (its CSR offsets and lists), else ``make()`` kept there."""
    if path.exists():
        with np.load(path) as kept:
            ptr, adj = kept["ptr"], kept["adj"]
        return LouvainGraph(len(ptr) - 1, ptr, adj, np.ones(adj.size))
    graph = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, ptr=graph.ptr, adj=graph.adj)
    return graph


def rows_for(name: str, graph: LouvainGraph, backends: list[str], options: argparse.Namespace) -> list[dict]:
    base = {"graph": name, "n": graph.n, "edges": int(graph.edges()[0].size)}
    rows = []
    for program, run in (("bucket reference", lambda: bucket_louvain(graph)),
                         ("blondel reference", lambda: blondel_louvain(graph))):
        if graph.n_entries <= options.reference_edges * 2:
            seconds, result = timed(run)
            _measured(rows, {**base, "program": program, "backend": "cpu", "seconds": seconds,
                         "modularity": result.modularity, "communities": result.n_communities, "valid": result.valid})
    optional = ((PLM, "networkit", networkit_plm, options.plm_edges),
                ("igraph multilevel", "igraph", igraph_multilevel, options.igraph_edges),
                ("networkx louvain", "networkx", networkx_louvain, options.networkx_edges))
    for program, module, run, limit in optional:
        if importlib.util.find_spec(module) is None or base["edges"] > limit:
            continue
        seconds, labels = run(graph)
        _, labels = np.unique(labels, return_inverse=True)
        _measured(rows, {**base, "program": program, "backend": "cpu", "seconds": seconds,
                     "modularity": modularity(graph, labels), "communities": int(labels.max()) + 1})
    if options.anchor is not None:
        anchor_rows(rows, base, graph, options.anchor)
    gpusim_rows(rows, base, graph, backends, options)
    best = {r["program"]: r for r in rows}
    anchor = best.get(PLM) or max((r for r in rows if r["backend"] == "cpu"),
                                              key=lambda r: r["modularity"], default=None)
    blondel, nu = best.get("blondel reference"), best.get("nu-Louvain")
    for row in rows:
        if nu is not None:
            row["speedup_vs_nu"] = nu["seconds"] / row["seconds"]
        if anchor is not None:
            row["modularity_vs_" + ("plm" if PLM in best else "best_cpu")] = row["modularity"] / max(
                anchor["modularity"], 1e-12)
            row["speedup_vs_" + ("plm" if PLM in best else "best_cpu")] = anchor["seconds"] / row["seconds"]
        if blondel is not None:
            row["speedup_vs_blondel"] = blondel["seconds"] / row["seconds"]
            if "device_seconds" in row:
                row["device_speedup_vs_blondel"] = blondel["seconds"] / row["device_seconds"]
    return rows


def gpusim_rows(rows: list[dict], base: dict, graph: LouvainGraph, backends: list[str],
                options: argparse.Namespace) -> None:
    """gpusim's rows of ``graph``: each setting on each backend, then the device-resident inputs, timed in rounds.

    Every call is made once untimed first (compiling its kernels, growing the memory pool to the graph, checking a
    device-resident graph once); then each of ``options.repeats`` rounds calls every one once, in turn, so that
    the drift of the GPU's clocks and of the host over a run falls on all of them alike.  A row's ``seconds`` is
    its best round."""
    settings = [("gpusim buckets", {}), ("gpusim paper tables", {"kernels": "paper"})]
    settings += [(f"gpusim buckets t_bin={t:g}", {"bin_threshold": t}) for t in options.bin_thresholds if t != T_BIN]
    settings += [("gpusim paper rules", PAPER_RULES)] if options.paper_rules else []
    settings += [("gpusim thread", {"layout": "thread"})] if options.thread else []
    calls = []  # (the row's fields, the call, the row's fields from a result)
    for backend in backends:
        device = Device(backend)
        for program, here in settings:
            calls.append(({"program": program, "backend": backend, "bin_threshold": here.get("bin_threshold", T_BIN)},
                          functools.partial(louvain, graph, device=device, **here), host_fields))
    for backend in backends if options.resident else ():
        for program, given in resident_inputs(graph, Device(backend)):
            calls.append(({"program": program, "backend": backend}, functools.partial(louvain, given),
                          functools.partial(resident_fields, graph)))
    best: list[dict | None] = [None] * len(calls)
    for _, call, _ in calls:
        call()
    for _ in range(options.repeats):
        for position, (_, call, fields) in enumerate(calls):
            seconds, result = timed(call)
            if best[position] is None or seconds < best[position]["seconds"]:
                best[position] = {"seconds": seconds, **fields(result)}
            del result  # its labels and levels, before the next call allocates its own
    for (fields, _, _), measured in zip(calls, best, strict=True):
        _measured(rows, {**base, **fields, **measured})


def host_fields(result) -> dict:
    """A call's row fields beyond its time: its phases (``device_seconds``: what the paper times), modularity,
    communities, levels, sweeps and launches."""
    phases = result.stats["seconds"]
    return {"device_seconds": sum(phases.get(p, 0.0) for p in ("optimise", "aggregate", "refine")),
            "refine_sweeps": result.stats.get("refine_sweeps"), "modularity": result.modularity,
            "communities": result.n_communities, "levels": result.stats["levels"], "sweeps": result.stats["sweeps"],
            "valid": result.valid, "phase_seconds": phases, "launches": result.stats["launches"]}


def resident_fields(graph: LouvainGraph, result) -> dict:
    """A device-resident call's row fields beyond its time: the modularity recomputed from its labels on ``graph``."""
    return {"modularity": modularity(graph, np.asarray(result.labels)), "communities": result.n_communities,
            "valid": result.valid}


def resident_inputs(graph: LouvainGraph, device: Device) -> list[tuple[str, object]]:
    """``graph`` on ``device`` as a user may hold it there: a ``DeviceWeightedGraph`` of its arrays, and on CuPy a
    ``cupyx.scipy.sparse`` CSR matrix (converted and checked in every call)."""
    from gpusim.types.device_graphs import DeviceWeightedGraph

    inputs = [("gpusim resident", DeviceWeightedGraph(graph.n, device.array(graph.ptr), device.array(graph.adj),
                                                      device.array(graph.weights)))]
    if device.backend == "cupy":
        import cupy
        import cupyx.scipy.sparse as csp

        inputs.append(("gpusim from a cupyx CSR", csp.csr_matrix(
            (cupy.asarray(graph.weights), cupy.asarray(graph.adj), cupy.asarray(graph.ptr)), shape=(graph.n, graph.n))))
    return inputs


def picture(rows: list[dict], path) -> None:
    """Each program's whole-call speedup over ν-Louvain (else NetworKit PLM, else the best CPU program), per graph."""
    from benchmarks.plots import bars

    key = next((k for k in ("speedup_vs_nu", "speedup_vs_plm") if any(k in r for r in rows)), "speedup_vs_best_cpu")
    groups = list(dict.fromkeys(f"{r['graph']} ({r['edges']:.2g} edges)" for r in rows))
    programs = list(dict.fromkeys((r["program"], r["backend"]) for r in rows))
    series = {f"{p} ({b})": [next((r.get(key) for r in rows if f"{r['graph']} ({r['edges']:.2g} edges)" == g
                                   and (r["program"], r["backend"]) == (p, b)), None) for g in groups]
              for p, b in programs}
    over = {"speedup_vs_nu": "ν-Louvain", "speedup_vs_plm": "NetworKit PLMR"}.get(key, "the best CPU program")
    bars(path, f"Louvain: whole call, speedup over {over}", groups, series, "speedup (log)", line=1.0)


def main(argv: list[str] | None = None) -> int:
    """The ``louvain`` area: rows in ``DIR/louvain.json``, the speedups in ``DIR/louvain.png``."""
    from benchmarks import machine, nu_louvain

    parser = argparse.ArgumentParser(prog="python -m benchmarks louvain", description=__doc__.split("\n\n")[0])
    machine.add_out(parser)
    parser.add_argument("--sizes", default="16,18,20,22", help="log2 of the vertex counts (default 16,18,20,22)")
    parser.add_argument("--degree", type=float, default=10.0, help="average degree (default 10)")
    parser.add_argument("--family-degrees", default="",
                        help="average degree by family, over --degree: e.g. rmat=16,planted=20")
    parser.add_argument("--plm-edges", type=float, default=math.inf, help="NetworKit PLMR only up to this many edges")
    parser.add_argument("--paper-rules", action="store_true",
                        help="also gpusim with the paper's stopping rules and no pruning (tolerance_drop=None, "
                             "prune=False, aggregation_tolerance=None)")
    parser.add_argument("--igraph-edges", type=float, default=1e7, help="igraph only up to this many edges")
    parser.add_argument("--networkx-edges", type=float, default=1e6, help="networkx only up to this many edges")
    parser.add_argument("--reference-edges", type=float, default=3e7, help="sequential references up to this")
    parser.add_argument("--graphs", default="planted,rmat,geometric",
                        help="families to generate: planted, rmat, geometric (default all three; LFR at 2^12-2^14)")
    parser.add_argument("--bin-thresholds", default="1e-2,1e-4",
                        help="gpusim buckets is run with each t_bin (default 1e-2, the paper's, and 1e-4)")
    parser.add_argument("--backends", default=",".join(GPU_BACKENDS),
                        help="GPU backends to run, where they work (default numba,cupy)")
    parser.add_argument("--repeats", type=int, default=REPEATS, help=f"gpusim's calls timed a row (default {REPEATS})")
    parser.add_argument("--no-resident", dest="resident", action="store_false",
                        help="leave out gpusim from device-resident input")
    parser.add_argument("--rmat-on-gpu", action="store_true",
                        help="draw the R-MAT graphs on the GPU (CuPy): 5e8 edges in seconds, not minutes; another "
                             "random stream than NumPy's")
    parser.add_argument("--graph-cache", type=Path, help="keep generated graphs here, and read them back next time")
    parser.add_argument("--no-thread", dest="thread", action="store_false",
                        help="leave out layout='thread' (one thread a vertex, the paper's baseline)")
    parser.add_argument("--anchor-dir", help="nu-Louvain's sources (default .anchors/nu-louvain, then "
                                             "../shared/anchors/nu-louvain)")
    parser.add_argument("--anchor-build", default=str(Path(tempfile.gettempdir()) / "gpusim-nu-louvain-build"),
                        help="where nu-Louvain is built (kept between runs)")
    options = parser.parse_args(argv)
    json_path, png_path = machine.outputs(options, "louvain")
    try:
        options.anchor = nu_louvain.build(nu_louvain.find_sources(options.anchor_dir), Path(options.anchor_build))
    except nu_louvain.AnchorError as exc:
        print(f"louvain: nu-Louvain and GVE-Louvain skipped: {exc}", file=sys.stderr)
        options.anchor = None
    options.bin_thresholds = [float(t) for t in options.bin_thresholds.split(",")]
    families = set(options.graphs.split(","))
    if families - {"planted", "rmat", "geometric"}:
        parser.error(f"--graphs: unknown families {sorted(families - {'planted', 'rmat', 'geometric'})}")
    sizes = [12, 14] if options.quick else [int(s) for s in options.sizes.split(",")]
    degree = {family: options.degree for family in ("planted", "rmat", "geometric")}
    for pair in filter(None, options.family_degrees.split(",")):
        family, _, value = pair.partition("=")
        if family not in degree:
            parser.error(f"--family-degrees: unknown family {family!r}")
        degree[family] = float(value)
    backends = [b for b in options.backends.split(",") if b in GPU_BACKENDS and gpu_status(b)[0]]
    if not backends:
        print("no GPU backend works here: only the CPU programs run", file=sys.stderr)
    warm = planted_partition(4096, options.degree, 0)[0]
    for backend in backends:  # compile every kernel before timing
        for layout in ("buckets", "thread"):
            louvain(warm, device=Device(backend), layout=layout, bin_threshold=1e-6)
    rows = []
    meta = {**machine.stamp("louvain", argv), "quick": options.quick,
            "backends": {b: gpu_status(b)[1] for b in GPU_BACKENDS}}

    def save() -> None:
        json_path.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1, default=float))
        picture(rows, png_path)

    make_rmat, drawn = (rmat_on_gpu, "-gpu") if options.rmat_on_gpu else (rmat, "")
    for scale in sizes:
        n = 1 << scale
        makers = {"planted": ("planted partition", lambda n=n, s=scale: planted_partition(n, degree["planted"], s)[0]),
                  "rmat": ("rmat", lambda s=scale: make_rmat(s, degree["rmat"], s)),
                  "geometric": ("random geometric", lambda n=n, s=scale: random_geometric(n, degree["geometric"], s))}
        if options.graph_cache:  # read back where an earlier run kept it, else made and kept
            kept = {key: options.graph_cache / f"{key}-{scale}-{degree[key]:g}{drawn if key == 'rmat' else ''}.npz"
                    for key in makers}
            makers = {key: (label, functools.partial(cached, kept[key], make)) for key, (label, make) in makers.items()}
        for name, graph in graphs_of(makers, families, n, scale):
            for row in rows_for(name, graph, backends, options):
                rows.append(row)
                print(json.dumps(row, default=float), flush=True)
            save()  # after every graph: a run stopped by a time limit keeps what it measured
    save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
