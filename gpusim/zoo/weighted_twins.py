"""Broken twin of GPU Suitor: a proposal written with a plain load and store instead of a CAS."""

from __future__ import annotations

from gpusim import T, kernel


@kernel(signature="int32[:], int32[:], int64[:], int64[:], int32, int64")
def suitor_without_cas(ptr, adj, edge_key, ws, n, low):
    """Suitor (seed 003, Paper I, Alg. 3) with the lock (our CAS) removed: two suitors can both win."""
    u = T.gtid()
    while u < n:
        current = u
        while current >= 0:
            best = T.i64(0)
            for j in range(ptr[current], ptr[current + 1]):
                if edge_key[j] > 0:
                    if (edge_key[j] | T.i64(current)) > ws[adj[j]]:
                        best = max(best, edge_key[j] | T.i64(adj[j]))
            if best == 0:
                current = -1
            else:
                partner = T.i32(best & low)
                offer = (best - T.i64(partner)) | T.i64(current)
                held = ws[partner]
                if offer > held:
                    ws[partner] = offer
                    if held == 0:
                        current = -1
                    else:
                        current = T.i32(held & low)
        u += T.num_threads()
