"""A per-KB adjacency index: every link between entities as integer arrays, cached by fingerprint.

Path enumeration, random walks, embeddings and the "is this pair linked?" checks would cost one
query per entity, or a slow SPARQL path query per pair (seconds each on a 10M-triple KB). Instead
the links of all non-schema predicates to non-literals are read once, per predicate, into
compressed sparse rows (out-links and in-links), and saved as ``adjacency.npz`` in the KB's cache
folder. Later runs load the arrays in a fraction of a second.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pyoxigraph import Literal
from tqdm import tqdm

from .cache import StatsCache
from .profiles import predicate_profiles
from .store import Store
from .terms import iri

FILE = "adjacency.npz"
_LOADED: dict[str, "Adjacency"] = {}  # the index last used in this process, by cache path


@dataclass
class Adjacency:
    entities: list[str]
    predicates: list[str]
    src: np.ndarray  # int32, links sorted by (src, pred, dst)
    pred: np.ndarray
    dst: np.ndarray

    def __post_init__(self):
        self.index = {e: i for i, e in enumerate(self.entities)}
        self.pindex = {p: i for i, p in enumerate(self.predicates)}
        n = len(self.entities)
        self.out_ptr = _pointers(self.src, n)
        order = np.lexsort((self.src, self.pred, self.dst))
        self.in_src = self.src[order]
        self.in_pred = self.pred[order]
        self.in_ptr = _pointers(self.dst[order], n)

    # --- lookups ------------------------------------------------------------------------------
    def id(self, entity: str) -> int | None:
        return self.index.get(entity)

    def out(self, node: int) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = self.out_ptr[node], self.out_ptr[node + 1]
        return self.dst[lo:hi], self.pred[lo:hi]

    def inbound(self, node: int) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = self.in_ptr[node], self.in_ptr[node + 1]
        return self.in_src[lo:hi], self.in_pred[lo:hi]

    def steps(self, node: int) -> tuple[np.ndarray, np.ndarray]:
        """Neighbours in both directions with signed predicates: +(p+1) forward, -(p+1) inverse."""
        out_n, out_p = self.out(node)
        in_n, in_p = self.inbound(node)
        return np.concatenate([out_n, in_n]), np.concatenate([out_p + 1, -(in_p + 1)])

    def follow(self, node: int, step: int) -> np.ndarray:
        """The nodes reached from ``node`` by one signed step.

        Links are sorted by (node, predicate, other node) in both directions, so one predicate's
        links of a node are a contiguous run found by binary search: a hub costs a log factor."""
        if step > 0:
            lo, hi, preds, others, pred = self.out_ptr[node], self.out_ptr[node + 1], self.pred, self.dst, step - 1
        else:
            lo, hi, preds, others, pred = self.in_ptr[node], self.in_ptr[node + 1], self.in_pred, self.in_src, -step - 1
        run = preds[lo:hi]
        key = run.dtype.type(pred)  # a Python int would make numpy convert the whole run first
        return others[lo + np.searchsorted(run, key, "left"): lo + np.searchsorted(run, key, "right")]

    def has_link(self, s: str, p: str, o: str) -> bool:
        si, oi, pi = self.index.get(s), self.index.get(o), self.pindex.get(p)
        if si is None or oi is None or pi is None:
            return False
        targets = self.follow(si, pi + 1)  # sorted by node id
        at = int(np.searchsorted(targets, targets.dtype.type(oi)))
        return at < targets.size and int(targets[at]) == oi

    def links_between(self, a: str, b: str) -> list[tuple[str, str, str]]:
        """Every direct link between a and b, either way, as (subject, predicate, object)."""
        ai, bi = self.index.get(a), self.index.get(b)
        if ai is None or bi is None:
            return []
        found = []
        for x, y, xi, yi in ((a, b, ai, bi), (b, a, bi, ai)):
            nodes, preds = self.out(xi)
            found += [(x, self.predicates[p], y) for p in preds[nodes == yi].tolist()]
        return found

    def degree(self, node: int) -> int:
        return int(self.out_ptr[node + 1] - self.out_ptr[node] + self.in_ptr[node + 1] - self.in_ptr[node])

    def step_name(self, step: int) -> str:
        """A signed step as text: ``dbo:team`` forward, ``^dbo:team`` inverse (SPARQL path syntax)."""
        from .terms import compact

        name = compact(self.predicates[abs(step) - 1])
        return name if step > 0 else f"^{name}"

    @property
    def size(self) -> int:
        return int(self.src.size)


def _pointers(sorted_ids: np.ndarray, n: int) -> np.ndarray:
    counts = np.bincount(sorted_ids, minlength=n) if sorted_ids.size else np.zeros(n, dtype=np.int64)
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)


def build(store: Store, *, progress: bool = False) -> Adjacency:
    predicates = sorted(p["predicate"] for p in predicate_profiles(store) if not p["schema"])
    triples: list[tuple[str, int, str]] = []
    for pid, predicate in enumerate(tqdm(predicates, desc="adjacency", disable=not progress, leave=False)):
        for row in store.select("predicate_facts", predicate=iri(predicate)):
            if not isinstance(row["o"], Literal):
                triples.append((row["s"].value, pid, row["o"].value))
    entities = sorted({t[0] for t in triples} | {t[2] for t in triples})
    index = {e: i for i, e in enumerate(entities)}
    src = np.fromiter((index[t[0]] for t in triples), dtype=np.int32, count=len(triples))
    pred = np.fromiter((t[1] for t in triples), dtype=np.int32, count=len(triples))
    dst = np.fromiter((index[t[2]] for t in triples), dtype=np.int32, count=len(triples))
    order = np.lexsort((dst, pred, src))
    return Adjacency(entities, predicates, src[order], pred[order], dst[order])


def adjacency(store: Store, *, progress: bool = False) -> Adjacency:
    """The KB's adjacency index, from the cache when this fingerprint has one."""
    cache = StatsCache(store)
    path = cache.root / FILE
    if str(path) in _LOADED:
        return _LOADED[str(path)]
    index = None
    if path.exists():
        try:
            index = _read(path)
        except (OSError, ValueError, KeyError):
            index = None  # a damaged cache file is rebuilt, never trusted
    if index is None:
        index = build(store, progress=progress)
        try:
            _write(index, path)
        except OSError:
            pass
    _LOADED.clear()  # one KB's index at a time: it can take gigabytes
    _LOADED[str(path)] = index
    return index


def _write(index: Adjacency, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz.tmp")
    os.close(handle)
    try:
        with open(tmp, "wb") as out:
            np.savez(out, entities=np.frombuffer("\n".join(index.entities).encode(), dtype=np.uint8),
                     predicates=np.frombuffer("\n".join(index.predicates).encode(), dtype=np.uint8),
                     src=index.src, pred=index.pred, dst=index.dst)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def _read(path: Path) -> Adjacency:
    with np.load(path) as data:
        text = lambda key: data[key].tobytes().decode().split("\n") if data[key].size else []  # noqa: E731
        return Adjacency(text("entities"), text("predicates"), data["src"], data["pred"], data["dst"])
