"""TransE (Bordes et al., 2013) in numpy, trained on R: s + p ≈ o for the links R holds.

Entities and predicates get ``dim``-dimensional vectors; a link's distance is ||s + p - o||_1, and
training pushes each link at least ``margin`` closer than a corrupted copy (head or tail replaced
by a uniformly drawn entity), with Adagrad steps and entity vectors renormalized to unit length
each epoch. Every draw comes from one ``numpy.random.Generator`` seeded with ``seed``, and the
updates run in a fixed order, so the same R and seed give the same vectors. The score of a fact is
minus its distance; an entity R does not know scores below every known fact.
"""
from __future__ import annotations

import numpy as np

from .base import Checker


class TransE(Checker):
    name = "transe"
    reads = None
    whole_kb_reason = "it trains embeddings on every link of R"

    def __init__(self, *, seed: int = 0, dim: int = 50, epochs: int = 50, learning_rate: float = 0.1,
                 margin: float = 1.0, batch_size: int = 2048):
        super().__init__(seed=seed)
        self.dim, self.epochs, self.learning_rate = dim, epochs, learning_rate
        self.margin, self.batch_size = margin, batch_size

    def fit(self, train_records: list[dict], reference) -> "TransE":
        super().fit(train_records, reference)
        src, pred, dst = reference.links
        self.entities, self.relations = train(
            src.astype(np.int64), pred.astype(np.int64), dst.astype(np.int64), reference.n,
            len(reference.index.predicates), seed=self.seed, dim=self.dim, epochs=self.epochs,
            learning_rate=self.learning_rate, margin=self.margin, batch_size=self.batch_size)
        return self

    def score(self, records: list[dict]) -> np.ndarray:
        ref = self.reference
        s = ref.ids(r["subject"] for r in records)
        o = ref.ids(r["object"] for r in records)
        p = np.array([ref.index.pindex.get(r["predicate"], -1) for r in records], dtype=np.int64)
        known = (s >= 0) & (o >= 0) & (p >= 0)
        score = np.full(len(records), np.nan)
        if known.any():
            diff = self.entities[s[known]] + self.relations[p[known]] - self.entities[o[known]]
            score[known] = -np.abs(diff).sum(axis=1)
        floor = np.nanmin(score) - 1.0 if known.any() else 0.0
        return np.where(np.isnan(score), floor, score)


def train(src: np.ndarray, pred: np.ndarray, dst: np.ndarray, n_entities: int, n_relations: int, *, seed: int,
          dim: int, epochs: int, learning_rate: float, margin: float, batch_size: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    bound = 6.0 / np.sqrt(dim)
    entities = rng.uniform(-bound, bound, (n_entities, dim))
    relations = rng.uniform(-bound, bound, (n_relations, dim))
    relations /= np.linalg.norm(relations, axis=1, keepdims=True)
    grad_e = np.zeros_like(entities)  # Adagrad's running sums of squared gradients
    grad_r = np.zeros_like(relations)
    m = src.size
    for _ in range(epochs):
        entities /= np.maximum(np.linalg.norm(entities, axis=1, keepdims=True), 1e-12)
        order = rng.permutation(m)
        for start in range(0, m, batch_size):
            batch = order[start:start + batch_size]
            h, r, t = src[batch], pred[batch], dst[batch]
            corrupt_head = rng.random(batch.size) < 0.5
            other = rng.integers(0, n_entities, batch.size)
            h2, t2 = np.where(corrupt_head, other, h), np.where(corrupt_head, t, other)
            pos = entities[h] + relations[r] - entities[t]
            neg = entities[h2] + relations[r] - entities[t2]
            active = margin + np.abs(pos).sum(1) - np.abs(neg).sum(1) > 0
            if not active.any():
                continue
            g_pos, g_neg = np.sign(pos[active]), np.sign(neg[active])
            _adagrad(entities, grad_e, np.concatenate([h[active], t[active], h2[active], t2[active]]),
                     np.concatenate([g_pos, -g_pos, -g_neg, g_neg]), learning_rate)
            _adagrad(relations, grad_r, r[active], g_pos - g_neg, learning_rate)
    return entities, relations


def _adagrad(weights: np.ndarray, squares: np.ndarray, rows: np.ndarray, grads: np.ndarray, rate: float) -> None:
    """One Adagrad step on the rows touched, summing the gradients of a row that occurs twice."""
    touched, where = np.unique(rows, return_inverse=True)
    total = np.zeros((touched.size, weights.shape[1]))
    np.add.at(total, where, grads)
    squares[touched] += total ** 2
    weights[touched] -= rate * total / (np.sqrt(squares[touched]) + 1e-8)
