"""The kernels of Locally-Dominant matching on a GPU (Naim et al., HiPC 2015, Alg. 1–2): a thread per vertex.

Each round, every free vertex points at its heaviest free neighbour (:func:`ld_candidates`), and two
vertices pointing at each other match (:func:`ld_match`); rounds repeat until none matches.  Both do
nothing once ``live[0]`` is clear (:func:`~gpusim.algorithms.weighted.kernels_rounds.ld_close_round`), so
the host can launch rounds in batches and read ``live`` once per batch.

Example
-------
>>> ld_candidates.name, ld_match.name
('ld_candidates', 'ld_match')
"""

from __future__ import annotations

from gpusim import T, kernel

__all__ = ["ld_candidates", "ld_match"]


@kernel(signature="int32[:], int32[:], float64[:], int32[:], int32[:], int32, int32[:]")
def ld_candidates(ptr, adj, weights, mate, candidate, n, live):
    """ProcessVertex, first half (Naim et al., HiPC 2015, Alg. 2 lines 2–8): each free vertex points at its
    heaviest free neighbour (ties to the larger id); -1 when it has none."""
    s = T.gtid()
    while s < n and live[0] == 1:
        if mate[s] == -1:
            best_w = 0.0
            best = -1
            for j in range(ptr[s], ptr[s + 1]):
                w = weights[j]
                a = adj[j]
                if w > 0.0 and mate[a] == -1:
                    if w > best_w or (w == best_w and a > best):
                        best_w = w
                        best = a
            candidate[s] = best
        s += T.num_threads()


@kernel(signature="int32[:], int32[:], int32, int32[:], int32[:]",
        intended_races={"matched": "a flag: every writer writes 1"})
def ld_match(mate, candidate, n, matched, live):
    """ProcessVertex, second half (Alg. 2 lines 9–12): two vertices pointing at each other form a
    locally-dominant edge and match.  Each vertex writes only its own ``mate``: no race."""
    s = T.gtid()
    while s < n and live[0] == 1:
        if mate[s] == -1:
            c = candidate[s]
            if c >= 0:
                if candidate[c] == s:
                    mate[s] = c
                    matched[0] = 1
        s += T.num_threads()
