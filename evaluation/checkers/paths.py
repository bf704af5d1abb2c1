"""Path features (the PRA / SFE / KG-Miner family): which predicate paths lead from s to o in R.

A feature is a sequence of signed steps of length <= ``max_length`` between s and o, e.g.
``dbo:birthPlace/^dbo:deathPlace/dbo:birthPlace``; its value is 1 (``counts=False``, as SFE) or
log(1 + the number of such paths). Paths are simple at their ends: no inner node is s or o. The
target predicate is excluded as a one-step path, and the scored facts' own triples are taken out
of R while their paths are found (a true train fact is in R; it must not be its own path).
A seeded logistic regression learns the features' weights on the scenario's train split.

Paths are found by meeting in the middle on the arrays of R (``Reference.expand``): s's links,
o's links, and, for length 3, the links of s's neighbours joined with o's neighbours.
"""
from __future__ import annotations

import math

import numpy as np

from ..reference_graph import spans
from .base import FeatureChecker, own_triples


class PathFeatures(FeatureChecker):
    name = "path_features"

    def __init__(self, *, seed: int = 0, max_length: int = 3, counts: bool = False):
        super().__init__(seed=seed)
        if max_length not in (1, 2, 3):
            raise ValueError(f"max_length: {max_length} is not 1, 2 or 3")
        self.max_length = max_length
        self.counts = counts
        # a path of length 3 goes s -> x -> z -> o: the links of s's neighbours x are read too
        self.reads = (2, 1) if max_length == 3 else (1, 1)

    def features(self, records: list[dict]) -> list[dict[str, float]]:
        ref = self.reference.without(own_triples(records))
        s_ids = ref.ids(r["subject"] for r in records)
        o_ids = ref.ids(r["object"] for r in records)
        names: dict[tuple[int, ...], str] = {}
        out = []
        for record, s, o in zip(records, s_ids.tolist(), o_ids.tolist()):
            target = ref.index.pindex.get(record["predicate"])
            found = path_counts(ref, s, o, self.max_length) if s >= 0 and o >= 0 and s != o else {}
            row = {}
            for path, n in found.items():
                if len(path) == 1 and target is not None and abs(path[0]) == target + 1:
                    continue
                if path not in names:
                    names[path] = "/".join(ref.step_name(step) for step in path)
                row[names[path]] = math.log1p(n) if self.counts else 1.0
            out.append(row)
        return out


def path_counts(ref, s: int, o: int, max_length: int) -> dict[tuple[int, ...], int]:
    """Every path of length <= max_length from s to o, with how many node sequences realize it."""
    found: dict[tuple[int, ...], int] = {}
    _, x, a = ref.expand([s])          # s -a-> x
    _add(found, [a[x == o]])
    if max_length < 2:
        return found
    inner_x = (x != s) & (x != o)
    x, a = x[inner_x], a[inner_x]
    _, y, c = ref.expand([o])          # o -c-> y, so y -(-c)-> o
    inner_y = (y != s) & (y != o)
    y, back = y[inner_y], -c[inner_y]
    i, j = _join(x, y)
    _add(found, [a[i], back[j]])
    if max_length < 3 or not x.size or not y.size:
        return found
    origin, z, b = ref.expand(x)       # x -b-> z, z = y
    k, j = _join(z, y)
    _add(found, [a[origin[k]], b[k], back[j]])
    return found


def _join(left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (i, j) with left[i] == right[j]."""
    order = np.argsort(right, kind="stable")
    ordered = right[order]
    lo = np.searchsorted(ordered, left, "left")
    i, offsets = spans(lo, np.searchsorted(ordered, left, "right") - lo)
    return i, order[offsets]


def _add(found: dict, columns: list[np.ndarray]) -> None:
    if not columns[0].size:
        return
    paths, n = np.unique(np.stack(columns, axis=1), axis=0, return_counts=True)
    for path, count in zip(map(tuple, paths.tolist()), n.tolist()):
        found[path] = found.get(path, 0) + count
