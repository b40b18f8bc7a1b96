"""The kernel language ``T``: the contract every backend implements.

A kernel refers to the hardware only through the global name ``T``.  Each backend provides a
module with exactly the members listed in :data:`MEMBERS`, and binds it into a clone of the
kernel (see :mod:`gpusim.language.kernels`).  Launches are one-dimensional: a grid of blocks, each a
row of threads; a warp is 32 consecutive threads of a block.

Integers returned by the index functions are ``int32``.  Arrays are one-dimensional and
indexed with non-negative integers.  Atomics return the value held *before* the operation.

Example
-------
>>> from gpusim.language import MEMBERS
>>> MEMBERS["atomic_cas"].signature
'atomic_cas(array, index, expected, new) -> old'
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["DTYPES", "MEETINGS", "MEMBERS", "WARP_SIZE", "Member"]

WARP_SIZE = 32


class Member(NamedTuple):
    kind: str  # "index", "barrier", "shuffle", "vote", "reduction", "atomic", "memory", "cast"
    signature: str
    doc: str


_M = Member
#: Every member of ``T``: its signature, its kind and what it means.
MEMBERS: dict[str, Member] = {
    # indices and sizes (1-D launches)
    "thread_id": _M("index", "thread_id() -> int32", "threadIdx.x: the thread's index in its block"),
    "block_id": _M("index", "block_id() -> int32", "blockIdx.x: the block's index in the grid"),
    "block_size": _M("index", "block_size() -> int32", "blockDim.x: threads per block"),
    "grid_size": _M("index", "grid_size() -> int32", "gridDim.x: blocks in the grid"),
    "gtid": _M("index", "gtid() -> int32", "global thread id: block_id() * block_size() + thread_id()"),
    "num_threads": _M("index", "num_threads() -> int32", "threads in the grid: grid_size() * block_size()"),
    "lane_id": _M("index", "lane_id() -> int32", "the thread's lane in its warp: thread_id() % 32"),
    "warp_id": _M("index", "warp_id() -> int32", "the warp's index in its block: thread_id() // 32"),
    "warp_size": _M("index", "warp_size() -> int32", "32"),
    # barriers and fences
    "syncthreads": _M("barrier", "syncthreads()", "block barrier: every thread of the block must reach it"),
    "syncwarp": _M("barrier", "syncwarp()", "warp barrier of all 32 lanes, ordering their memory as no shuffle does"),
    "threadfence": _M("barrier", "threadfence()", "orders this thread's memory operations device-wide"),
    # warp shuffles (full mask; values i32/i64/f32/f64)
    "shfl_down": _M("shuffle", "shfl_down(value, delta) -> value", "value of lane + delta (own if out of range)"),
    "shfl_up": _M("shuffle", "shfl_up(value, delta) -> value", "value of lane - delta (own if out of range)"),
    "shfl_xor": _M("shuffle", "shfl_xor(value, lane_mask) -> value", "value of lane ^ lane_mask (butterfly)"),
    "shfl_idx": _M("shuffle", "shfl_idx(value, src_lane) -> value", "value of lane src_lane"),
    # warp votes (full mask)
    "ballot": _M("vote", "ballot(predicate) -> uint32", "bit i set when lane i's predicate is true"),
    "any": _M("vote", "any(predicate) -> int32", "1 when some lane's predicate is true, else 0"),
    "all": _M("vote", "all(predicate) -> int32", "1 when every lane's predicate is true, else 0"),
    # warp reductions (full mask; values i32/i64/f32/f64): the butterfly of shfl_xor over
    # offsets 16, 8, 4, 2, 1 (gpusim.language.reductions writes it out), as one collective
    "reduce_add": _M("reduction", "reduce_add(value) -> value",
                     "the sum over the 32 lanes, in every lane, added in butterfly order"),
    "reduce_max": _M("reduction", "reduce_max(value) -> value", "the maximum over the 32 lanes, in every lane"),
    "reduce_min": _M("reduction", "reduce_min(value) -> value", "the minimum over the 32 lanes, in every lane"),
    # atomics on global or shared arrays; each returns the old value
    "atomic_cas": _M("atomic", "atomic_cas(array, index, expected, new) -> old",
                     "store new if array[index] == expected; i32, u32, u64"),
    "atomic_add": _M("atomic", "atomic_add(array, index, value) -> old", "i32, u32, u64, f32, f64"),
    "atomic_min": _M("atomic", "atomic_min(array, index, value) -> old", "i32, u32, u64"),
    "atomic_max": _M("atomic", "atomic_max(array, index, value) -> old", "i32, u32, u64"),
    "atomic_exch": _M("atomic", "atomic_exch(array, index, value) -> old", "i32, u32, u64"),
    "atomic_load": _M("atomic", "atomic_load(array, index) -> value",
                      "an atomic read: poll flags with it, never with a plain load; i32, u32, u64"),
    # memory
    "shared_array": _M("memory", "shared_array(size, dtype) -> array",
                       "block-shared array; size a compile-time constant; at most one per line"),
    "local_array": _M("memory", "local_array(size, dtype) -> array", "per-thread array; size a constant"),
    # explicit casts; also the dtypes of shared_array / local_array
    "i32": _M("cast", "i32(x) -> int32", "cast to int32 (wraps)"),
    "i64": _M("cast", "i64(x) -> int64", "cast to int64 (wraps)"),
    "u32": _M("cast", "u32(x) -> uint32", "cast to uint32 (wraps)"),
    "u64": _M("cast", "u64(x) -> uint64", "cast to uint64 (wraps)"),
    "f32": _M("cast", "f32(x) -> float32", "cast to float32 (rounds)"),
    "f64": _M("cast", "f64(x) -> float64", "cast to float64"),
}

#: The casts that double as dtypes, with the NumPy dtype each stands for.
DTYPES = {"i32": "int32", "i64": "int64", "u32": "uint32", "u64": "uint64", "f32": "float32", "f64": "float64"}

#: The members where threads meet: the block barrier, ``syncwarp`` and the warp collectives (shuffles, votes,
#: reductions), where every lane of the warp (thread of the block) must arrive before any goes on.
MEETINGS: tuple[str, ...] = ("syncthreads", "syncwarp") + tuple(
    name for name, member in MEMBERS.items() if member.kind in ("shuffle", "vote", "reduction"))
