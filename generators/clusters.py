"""Clusters of facts for homogeneity (Huynh & Papotti, CIKM'19): Eq. 2 distance, average linkage, elbow.

Distance between entities: cosine distance ``1 - cos(u, v)`` of their RDF2Vec vectors
(``generators.embeddings``). Cosine rather than Euclidean because word2vec vector norms grow
with a word's frequency (here: an entity's degree), and homogeneity is about what facts are
about, not about how popular their entities are; popularity is a knob of its own. An entity
without a vector has a zero row, which is at cosine distance 1 from everything.

Distance between facts (the paper's Eq. 2), for facts i = (s_i, o_i) and j = (s_j, o_j)::

    d(i, j) = ( d(s_i, s_j) + d(o_i, o_j) + d(s_i, o_j) + d(o_i, s_j) ) / 4

With unit rows ŝ, ô the four cosines add up to (ŝ_i + ô_i) · (ŝ_j + ô_j), so the whole matrix
is ``1 - U Uᵀ / 4`` with ``U = Ŝ + Ô``: one matrix product, no loop. Eq. 2 gives a fact a
non-zero distance to itself ((1 - cos(s_i, o_i)) / 2); the diagonal is set to 0, as a
clustering needs.

Clustering: bottom-up, average linkage (scipy's ``linkage`` on the condensed matrix, which is
what ``sklearn.cluster.AgglomerativeClustering(metric="precomputed", linkage="average")`` does).
One run gives every merge height h_1 <= ... <= h_{n-1} (average linkage never inverts), and
cutting at threshold t leaves ``n - #{m : h_m <= t}`` clusters: that is the elbow curve.

Elbow rule: the curve points (h_m, n - m), m = 1..n-1, are scaled to [0, 1] on both axes
(threshold by its first and last merge height, count by n-1 and 1); the knee is the point
farthest below the chord from the first point to the last one (largest ``1 - x - y``),
the first such point on ties. The cut keeps every merge up to that height (ties included).
Below three facts, or when every merge has the same height, there is no knee to find and the
rule gives one cluster.

Labels are numbered 0..k-1 by first occurrence in the input order. Labels of a list of pairs
are cached by KB fingerprint, the embedding parameters, the seed and a hash of the pairs.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import numpy as np

from factforge.sparql.cache import StatsCache
from factforge.sparql.store import Store

from .embeddings import DEFAULT, VERSION, Params, entity_embeddings


@dataclass
class Clustering:
    labels: list[int]
    thresholds: np.ndarray  # merge heights, ascending (the elbow curve's x)
    counts: np.ndarray      # clusters left after each merge (the elbow curve's y)
    knee: int               # index of the knee in the curve, -1 when there is no curve
    threshold: float        # distance threshold of the cut

    @property
    def k(self) -> int:
        return len(set(self.labels))


# --- distances ----------------------------------------------------------------------------------
def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def cosine_distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``1 - cos`` between every row of a and every row of b (a zero row: distance 1)."""
    return 1.0 - _unit(a) @ _unit(b).T


def pair_distances(subjects: np.ndarray, objects: np.ndarray) -> np.ndarray:
    """The (n x n) Eq. 2 distance between facts (subjects[i], objects[i]), zero diagonal."""
    u = _unit(subjects) + _unit(objects)
    d = 1.0 - (u @ u.T) / 4.0
    d = (d + d.T) / 2.0  # exactly symmetric, whatever the matrix product did
    np.clip(d, 0.0, 2.0, out=d)
    np.fill_diagonal(d, 0.0)
    return d


# --- clustering ---------------------------------------------------------------------------------
def _linkage(distances: np.ndarray) -> np.ndarray:
    from scipy.cluster.hierarchy import linkage
    from scipy.spatial.distance import squareform

    return linkage(squareform(distances, checks=False), method="average")


def elbow_curve(distances: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(merge heights, clusters left after each merge): the number of clusters against the threshold."""
    n = distances.shape[0]
    if n < 2:
        return np.zeros(0), np.zeros(0, dtype=np.int64)
    merges = _linkage(distances)
    return merges[:, 2].copy(), n - np.arange(1, n, dtype=np.int64)


def knee(thresholds: np.ndarray, counts: np.ndarray) -> int:
    """Index of the curve point farthest below the chord between its first and last points."""
    if len(thresholds) == 0:
        return -1
    span_x = thresholds[-1] - thresholds[0]
    span_y = counts[0] - counts[-1]
    x = (thresholds - thresholds[0]) / span_x if span_x > 0 else np.zeros(len(thresholds))
    y = (counts - counts[-1]) / span_y if span_y > 0 else np.zeros(len(counts))
    return int(np.argmax(1.0 - x - y))


def cluster_distances(distances: np.ndarray) -> Clustering:
    """Average-linkage clusters of a precomputed distance matrix, cut at the elbow."""
    distances = np.asarray(distances, dtype=np.float64)
    n = distances.shape[0]
    if n < 3:
        return Clustering([0] * n, np.zeros(0), np.zeros(0, dtype=np.int64), -1,
                          float(distances.max()) if n else 0.0)
    merges = _linkage(distances)
    heights = merges[:, 2]
    counts = n - np.arange(1, n, dtype=np.int64)
    at = knee(heights, counts)
    threshold = float(heights[at])
    applied = int(np.searchsorted(heights, threshold, side="right"))  # every merge up to the cut, ties too
    return Clustering(_labels(merges, n, applied), heights.copy(), counts, at, threshold)


def cluster_vectors(subjects: np.ndarray, objects: np.ndarray) -> Clustering:
    """Clusters of facts given as subject and object vectors (row i is fact i)."""
    return cluster_distances(pair_distances(subjects, objects))


def _labels(merges: np.ndarray, n: int, applied: int) -> list[int]:
    """Labels after the first ``applied`` merges, numbered by first occurrence."""
    parent = np.arange(n + applied, dtype=np.int64)
    for m in range(applied):
        a, b = int(merges[m, 0]), int(merges[m, 1])
        parent[a] = parent[b] = n + m
    root = parent.copy()
    for node in range(n + applied - 1, -1, -1):  # a parent's id is always above its children's
        root[node] = root[parent[node]]
    roots = root[:n].tolist()
    first: dict[int, int] = {}
    return [first.setdefault(r, len(first)) for r in roots]


# --- facts of a KB --------------------------------------------------------------------------------
def cluster_key(store: Store, pairs: list[tuple[str, str]], *, seed: int = 0, params: Params = DEFAULT) -> str:
    digest = hashlib.sha256(json.dumps([VERSION, params.key(), int(seed), [list(p) for p in pairs]],
                                       separators=(",", ":")).encode()).hexdigest()[:24]
    return f"clusters-{digest}"


def pair_vectors(store: Store, pairs: list[tuple[str, str]], *, seed: int = 0, progress: bool = False,
                 params: Params = DEFAULT) -> tuple[np.ndarray, np.ndarray]:
    embeddings = entity_embeddings(store, seed=seed, progress=progress, params=params)
    return embeddings.vectors([s for s, _ in pairs]), embeddings.vectors([o for _, o in pairs])


def cluster_details(store: Store, pairs: list[tuple[str, str]], *, seed: int = 0, progress: bool = False,
                    params: Params = DEFAULT) -> Clustering:
    """The clustering of ``pairs`` with its elbow curve (not cached: for tests and diagnostics)."""
    return cluster_vectors(*pair_vectors(store, pairs, seed=seed, progress=progress, params=params))


def cluster_facts(store: Store, pairs: list[tuple[str, str]], *, seed: int = 0, progress: bool = False,
                  params: Params = DEFAULT) -> list[int]:
    """One cluster label per (subject, object) pair, 0..k-1 by first occurrence; cached."""
    pairs = [(str(s), str(o)) for s, o in pairs]

    def compute() -> list[int]:
        return cluster_details(store, pairs, seed=seed, progress=progress, params=params).labels

    return [int(label) for label in StatsCache(store).get_or_compute(
        cluster_key(store, pairs, seed=seed, params=params), compute)]
