"""Knowledge Linker (Ciampaglia et al., 2015): how close s and o are in R, whatever the predicates.

R is taken as an undirected graph (any link, either way, makes two nodes neighbours). A path's cost
is the sum of log k(v) over its inner nodes (k: the node's number of neighbours), so paths
through hubs are expensive; the score is 1 / (1 + the cheapest cost), 1 for a direct link, 0 when
s and o are not connected. Dijkstra (SciPy) runs from the distinct subjects of a batch at once on
a sparse matrix whose entry (u, v) is log k(v): a path's weight is then the cost of every node it
enters, and the object's own log k(o) is subtracted.

The facts being scored are taken out of R first (their own triples, with their predicate): a true
test fact is already absent at any leakage level, a true train fact would otherwise be its own
direct link.
"""
from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from factforge.sparql.scan import unique

from .base import Checker, own_triples

# A degree-1 node costs log 1 = 0; csgraph must not mistake that for "no edge". Only the object can
# have one link, and its cost is subtracted again, so this never shows in a score.
MIN_WEIGHT = 1e-9
CELLS_PER_CHUNK = 20_000_000  # distances held at once: sources x nodes (160 MB of float64)


class KnowledgeLinker(Checker):
    name = "knowledge_linker"
    reads = None
    whole_kb_reason = "it searches the cheapest path between s and o over all of R, however long"

    def __init__(self, *, seed: int = 0, limit: float | None = None):
        super().__init__(seed=seed)
        self.limit = limit  # the largest path cost searched (None: everything reachable)

    def score(self, records: list[dict]) -> np.ndarray:
        ref = self.reference.without(own_triples(records))
        s = ref.ids(r["subject"] for r in records)
        o = ref.ids(r["object"] for r in records)
        cost = np.full(len(records), np.inf)
        known = (s >= 0) & (o >= 0) & (s != o)
        if known.any():
            graph, log_k = _graph(ref)
            sources = unique(s[known])
            chunk = max(1, CELLS_PER_CHUNK // max(ref.n, 1))
            for start in range(0, sources.size, chunk):
                batch = sources[start:start + chunk]
                dist = dijkstra(graph, directed=True, indices=batch,
                                limit=np.inf if self.limit is None else self.limit)
                rows = np.searchsorted(batch, s)
                inside = known & np.isin(s, batch)
                cost[inside] = dist[rows[inside], o[inside]] - log_k[o[inside]]
        cost = np.maximum(cost, 0.0)  # a direct link costs MIN_WEIGHT - log k(o) when k(o) = 1
        return np.where(np.isfinite(cost), 1.0 / (1.0 + cost), 0.0)


def _graph(ref) -> tuple[csr_matrix, np.ndarray]:
    src, _, dst = ref.links
    a = np.concatenate([src, dst]).astype(np.int64)
    b = np.concatenate([dst, src]).astype(np.int64)
    pairs = unique(a[a != b] * ref.n + b[a != b])
    u, v = pairs // ref.n, pairs % ref.n
    k = np.bincount(u, minlength=ref.n)
    log_k = np.log(np.maximum(k, 1)).astype(np.float64)
    weights = np.maximum(log_k[v], MIN_WEIGHT)
    return csr_matrix((weights, (u, v)), shape=(ref.n, ref.n)), log_k
