"""Checks of device-resident graphs and matchings, by kernels: no edge array is copied to the host.

A graph whose arrays already live on the GPU (:mod:`gpusim.types.device_graphs`) is validated where it
is, and a matching left on the device is validated against its device input the same way.  Each kernel
records the *smallest* offending position with ``atomic_min`` (the host reads back a few integers), then
:func:`peek` fetches the offending values for the one-line message.  Every kernel runs on the simulator.

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> dev = Device("sim", seed=0)
>>> ptr, adj = dev.array(np.array([0, 2, 3], np.int32)), dev.array(np.array([1, 0, 3], np.int32))
>>> csr_problem(dev, ptr, adj, 2, 4, "row_ptr", "row_adj")
'row_adj[1]=0 is not above row_adj[0]=1 in list 0 (unsorted or duplicate)'
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.language import interface as T
from gpusim.language.kernels import device, kernel
from gpusim.runtime.device import Device

__all__ = ["BLOCK", "MAX_GRID", "NONE", "check_grid", "count_matched", "csr_offsets_check", "csr_problem",
           "list_holding", "list_of", "lists_check", "matched_count", "matching_check", "matching_problem",
           "offsets_problem", "peek", "peek_weight", "position_in_list", "smallest_offenders", "symmetry_check",
           "transpose_check", "transpose_problem", "value_at", "weighted_problem"]

#: No offending position found (the atomic minima start here).
NONE = 2**31 - 1
#: Threads per block of the check kernels (a grid-stride loop covers any size).
BLOCK = {"sim": 32, "numba": 256, "cupy": 256}
MAX_GRID = {"sim": 4, "numba": 1024, "cupy": 1024}


@kernel(signature="int32[:], int32, int32, int32[:]")
def csr_offsets_check(ptr, n, m, bad):
    """``bad[0]``: the smallest ``i`` where CSR offsets break (``ptr[0] != 0``, ``ptr[i] > ptr[i + 1]``,
    ``ptr[n] != m``), the shape every CSR kernel of the source papers reads its lists through."""
    i = T.gtid()
    while i <= n:
        wrong = (i == 0 and ptr[0] != 0) or (i == n and ptr[n] != m) or (i < n and ptr[i] > ptr[i + 1])
        if wrong:
            T.atomic_min(bad, 0, i)
        i += T.num_threads()


@device
def list_of(ptr, n, k):
    """The list holding entry ``k`` of valid CSR offsets (``0 <= k < ptr[n]``): the largest ``u < n`` with
    ``ptr[u] <= k``, by binary search (an empty list's offset equals the next one's and is passed over)."""
    lo = 0
    hi = n - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if ptr[mid] <= k:
            lo = mid
        else:
            hi = mid - 1
    return lo


@kernel(signature="int32[:], int32[:], int32, int32, int32, int32[:]")
def lists_check(ptr, adj, n, n_dst, m, bad):
    """For valid offsets over ``m`` entries: ``bad[0]`` the smallest position of an id outside ``[0, n_dst)``,
    ``bad[1]`` the smallest position ``k`` with ``adj[k - 1] >= adj[k]`` inside one list (unsorted or duplicate).
    A thread an entry, its list found by :func:`list_of`: a hub's list is shared by many threads (a thread a list
    took a list of 10^5 entries alone)."""
    k = T.gtid()
    while k < m:
        if adj[k] < 0 or adj[k] >= n_dst:
            T.atomic_min(bad, 0, k)
        if k > ptr[list_of(ptr, n, k)] and adj[k - 1] >= adj[k]:
            T.atomic_min(bad, 1, k)
        k += T.num_threads()


@device
def position_in_list(adj, lo, hi, u):
    """Where ``u`` is, or would go, in the sorted list ``adj[lo:hi]`` (binary search; ``hi`` when every entry
    is smaller)."""
    while lo < hi:
        mid = (lo + hi) // 2
        if adj[mid] < u:
            lo = mid + 1
        else:
            hi = mid
    return lo


@kernel(signature="int32[:], int32[:], int32[:], int32[:], int32, int32, int32[:]")
def transpose_check(ptr, adj, t_ptr, t_adj, n, m, bad):
    """``bad[0]``: the smallest position ``k`` (of ``m``) of an entry ``(u, adj[k])`` missing from the other side's
    CSR (a binary search in the sorted list ``t_adj[t_ptr[v]:t_ptr[v + 1]]``, ``v = adj[k]``): the row
    and column CSR of Deveci et al. (Euro-Par 2013, ICPP 2013) must hold the same edges.  A thread an entry."""
    k = T.gtid()
    while k < m:
        u = list_of(ptr, n, k)
        v = adj[k]
        at = position_in_list(t_adj, t_ptr[v], t_ptr[v + 1], u)
        if at == t_ptr[v + 1] or t_adj[at] != u:
            T.atomic_min(bad, 0, k)
        k += T.num_threads()


@kernel(signature="int32[:], int32[:], int32[:], int32[:], int32, int32, int32[:]")
def matching_check(ptr, adj, mate_a, mate_b, n_a, n_b, bad):
    """A matching against one side's CSR (side ``a``): ``bad[0]`` the smallest ``a`` whose mate is out of
    range or does not point back, ``bad[1]`` the smallest ``a`` matched along a non-edge, ``bad[2]`` the
    smallest ``b`` whose mate is out of range or does not point back (Deveci et al., Euro-Par 2013 §2:
    ``rmatch``/``cmatch``)."""
    i = T.gtid()
    while i < n_a or i < n_b:
        if i < n_a and mate_a[i] != -1:
            b = mate_a[i]
            if b < 0 or b >= n_b:
                T.atomic_min(bad, 0, i)
            elif mate_b[b] != i:
                T.atomic_min(bad, 0, i)
            else:
                found = 0
                for k in range(ptr[i], ptr[i + 1]):
                    if adj[k] == b:
                        found = 1
                if found == 0:
                    T.atomic_min(bad, 1, i)
        if i < n_b and mate_b[i] != -1:
            a = mate_b[i]
            if a < 0 or a >= n_a:
                T.atomic_min(bad, 2, i)
            elif mate_a[a] != i:
                T.atomic_min(bad, 2, i)
        i += T.num_threads()


@kernel(signature="int32[:], int32[:], float64[:], int32, int32, int32[:]")
def symmetry_check(ptr, adj, weights, n, m, bad):
    """A weighted CSR with sorted lists (Naim et al., HiPC 2015's input) of ``m`` entries: ``bad[0]`` the smallest
    position of a self loop, ``bad[1]`` of a weight that is negative, NaN or infinite, ``bad[2]`` of an entry
    ``(u, v)`` whose mirror ``(v, u)`` is missing or weighs differently (binary search in ``v``'s list).  A thread
    an entry."""
    k = T.gtid()
    while k < m:
        u = list_of(ptr, n, k)
        v = adj[k]
        w = weights[k]
        if v == u:
            T.atomic_min(bad, 0, k)
        if not (w >= 0.0 and w - w == 0.0):
            T.atomic_min(bad, 1, k)
        at = position_in_list(adj, ptr[v], ptr[v + 1], u)
        if at == ptr[v + 1] or adj[at] != u or weights[at] != w:
            T.atomic_min(bad, 2, k)
        k += T.num_threads()


@kernel(signature="int32[:], int32, int32[:]")
def count_matched(mate, n, count):
    """``count[0]`` += the number of ``i < n`` with ``mate[i] >= 0`` (one atomic per matched vertex)."""
    i = T.gtid()
    while i < n:
        if mate[i] >= 0:
            T.atomic_add(count, 0, 1)
        i += T.num_threads()


@kernel(signature="int32[:], int32, int32[:]")
def peek(array, i, out):
    """``out[0] = array[i]``: one element for the host, without copying the array."""
    if T.gtid() == 0:
        out[0] = array[i]


@kernel(signature="float64[:], int32, float64[:]")
def peek_weight(array, i, out):
    """``out[0] = array[i]`` for float64 arrays."""
    if T.gtid() == 0:
        out[0] = array[i]


def check_grid(dev: Device, n: int) -> tuple[int, int]:
    """``(grid, block)`` of a grid-stride check kernel over ``n`` items."""
    block = BLOCK[dev.backend]
    return Device.grid_for(n, block, MAX_GRID[dev.backend]), block


def smallest_offenders(dev: Device, kernel_, n: int, slots: int, *args: Any) -> list[int]:
    """Launch ``kernel_(*args, bad)`` over ``n`` items, ``bad`` holding ``slots`` atomic minima: read back, each the
    smallest offending position of its kind or :data:`NONE`."""
    bad = dev.full(slots, NONE, np.int32)
    grid, block = check_grid(dev, n)
    dev.launch(kernel_, grid, block, (*args, bad))
    return dev.to_host(bad).tolist()


def value_at(dev: Device, array: Any, i: int) -> Any:
    """``array[i]`` read back alone (a one-element copy)."""
    weights = np.dtype(array.dtype) == np.float64
    out = dev.zeros(1, np.float64 if weights else np.int32)
    dev.launch(peek_weight if weights else peek, 1, 32, (array, int(i), out))
    value = dev.to_host(out)[0]
    return value.item()


def offsets_problem(dev: Device, ptr: Any, n: int, m: int, ptr_name: str, adj_name: str) -> str | None:
    """What is wrong with device CSR offsets ``ptr`` of ``n`` lists over ``m`` entries, or None."""
    if int(ptr.shape[0]) != n + 1:
        return f"{ptr_name} must have {n + 1} entries, got {int(ptr.shape[0])}"
    (i,) = smallest_offenders(dev, csr_offsets_check, n + 1, 1, ptr, n, m)
    if i == NONE:
        return None
    if i == 0 or i == n:
        return f"{ptr_name} must start at 0 and end at len({adj_name})={m}, got {ptr_name}[{i}]={value_at(dev, ptr, i)}"
    return (f"{ptr_name} must not decrease: {ptr_name}[{i}]={value_at(dev, ptr, i)} > "
            f"{ptr_name}[{i + 1}]={value_at(dev, ptr, i + 1)}")


def csr_problem(dev: Device, ptr: Any, adj: Any, n: int, n_dst: int, ptr_name: str, adj_name: str) -> str | None:
    """What is wrong with a device CSR (``n`` lists of ids below ``n_dst``, sorted), or None."""
    problem = offsets_problem(dev, ptr, n, int(adj.shape[0]), ptr_name, adj_name)
    if problem is not None:
        return problem
    m = int(adj.shape[0])
    out_of_range, unsorted = smallest_offenders(dev, lists_check, m, 2, ptr, adj, n, n_dst, m)
    if out_of_range != NONE:
        return f"{adj_name}[{out_of_range}]={value_at(dev, adj, out_of_range)} is not in [0, {n_dst})"
    if unsorted != NONE:
        k = unsorted
        return (f"{adj_name}[{k}]={value_at(dev, adj, k)} is not above {adj_name}[{k - 1}]="
                f"{value_at(dev, adj, k - 1)} in list {list_holding(dev, ptr, n, k)} (unsorted or duplicate)")
    return None


def list_holding(dev: Device, ptr: Any, n: int, k: int) -> int:
    """The list holding position ``k`` (a binary search over ``ptr``, one element read at a time)."""
    lo, hi = 0, n - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if value_at(dev, ptr, mid) <= k:
            lo = mid
        else:
            hi = mid - 1
    return lo


def transpose_problem(dev: Device, ptr: Any, adj: Any, t_ptr: Any, t_adj: Any, n: int, names: tuple[str, str]
                      ) -> str | None:
    """For two valid CSR sides with as many entries: the first entry of one that the other lacks, or None."""
    m = int(adj.shape[0])
    (k,) = smallest_offenders(dev, transpose_check, m, 1, ptr, adj, t_ptr, t_adj, n, m)
    if k == NONE:
        return None
    u, v = list_holding(dev, ptr, n, k), value_at(dev, adj, k)
    return f"{names[0]} lists edge ({u}, {v}) at position {k}, but {names[1]} does not: the two sides disagree"


def weighted_problem(dev: Device, n: int, ptr: Any, adj: Any, weights: Any) -> str | None:
    """What is wrong with a device weighted CSR (symmetric, no self loops, finite weights >= 0), or None."""
    problem = csr_problem(dev, ptr, adj, n, n, "ptr", "adj")
    if problem is not None:
        return problem
    if int(weights.shape[0]) != int(adj.shape[0]):
        return f"weights must have one entry per adjacency entry ({int(adj.shape[0])}), got {int(weights.shape[0])}"
    m = int(adj.shape[0])
    loop, weight, mirror = smallest_offenders(dev, symmetry_check, m, 3, ptr, adj, weights, n, m)
    if loop != NONE:
        return f"adj[{loop}]={value_at(dev, adj, loop)} is a self loop"
    if weight != NONE:
        return f"weights[{weight}]={value_at(dev, weights, weight)!r} is not finite and >= 0"
    if mirror != NONE:
        u, v = list_holding(dev, ptr, n, mirror), value_at(dev, adj, mirror)
        return (f"the adjacency is not symmetric: entry ({u}, {v}) of weight "
                f"{value_at(dev, weights, mirror)!r} has no mirror ({v}, {u}) of the same weight")
    return None


def matching_problem(dev: Device, ptr: Any, adj: Any, mate_a: Any, mate_b: Any, n_a: int, n_b: int,
                     a: str = "row", b: str = "column") -> str | None:
    """What is wrong with a device matching (``mate_a``, ``mate_b``) of a graph given by side ``a``'s CSR."""
    inconsistent, non_edge, back = smallest_offenders(dev, matching_check, max(n_a, n_b), 3, ptr, adj, mate_a, mate_b,
                                                      n_a, n_b)
    if inconsistent != NONE:
        mate = value_at(dev, mate_a, inconsistent)
        return f"{a} {inconsistent} is matched to {b} {mate}, which is out of range or not matched back to it"
    if non_edge != NONE:
        mate = value_at(dev, mate_a, non_edge)
        return f"{a} {non_edge} is matched to {b} {mate}, but ({a} {non_edge}, {b} {mate}) is not an edge"
    if back != NONE:
        mate = value_at(dev, mate_b, back)
        return f"{b} {back} is matched to {a} {mate}, which is out of range or not matched back to it"
    return None


def matched_count(dev: Device, mate: Any, n: int) -> int:
    """How many of the first ``n`` entries of the device array ``mate`` are matched (>= 0)."""
    count = dev.zeros(1, np.int32)
    grid, block = check_grid(dev, n)
    if n:
        dev.launch(count_matched, grid, block, (mate, n, count))
    return int(dev.to_host(count)[0])

