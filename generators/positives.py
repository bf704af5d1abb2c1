"""True facts: chosen from the whole predicate by popularity, then shaped by homogeneity.

* ``popular`` / ``unpopular``: the facts ranked by Eq. 1 popularity, highest / lowest first
  (ties broken by subject and object, so the ranking is total); ``random``: a seeded permutation.
* Homogeneity h: the candidate pool (the head of the ranking, at most ``POOL_LIMIT`` facts) is
  clustered by the embedding distance of the paper's Eq. 2; a share h of the facts comes from one
  cluster (the largest, ties by label), the rest is spread over the other clusters in proportion to
  their sizes, each cluster giving its best-ranked facts first. Cluster labels are per split
  ("test-3"), since each split clusters its own pool. With h = 0 no clustering is needed and
  the head of the ranking is taken as is.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from factforge.sparql.fact_popularity import fact_arrays, scores
from factforge.sparql.store import Store

from .facts import Fact
from .random_state import stream
from .restatements import statement_nodes
from .spec import ScenarioSpec

POOL_FACTOR = 4
POOL_LIMIT = 2000  # clustering is quadratic in the pool
# Embeddings describe the KB, not a scenario: one training per KB fingerprint, whatever the
# scenario's seed (which still decides the ranking, the split and every negative).
EMBEDDING_SEED = 0


class NotEnoughFacts(ValueError):
    """Fewer facts could be made than asked; the message says how many and which knob to turn."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.field = field


class RankedFacts(Sequence):
    """The facts of a predicate in ranking order, made into ``Fact`` objects only when read.

    A predicate of a large KB has millions of facts and a scenario reads a few hundred of them:
    the ranking itself is an index array."""

    def __init__(self, pairs: Sequence, order: np.ndarray, predicate: str):
        self._pairs, self._order, self._predicate = pairs, order, predicate

    def __len__(self) -> int:
        return int(self._order.size)

    def __getitem__(self, item):
        if isinstance(item, slice):
            return [self._fact(i) for i in self._order[item].tolist()]
        return self._fact(int(self._order[item]))

    def __iter__(self):
        for i in self._order.tolist():
            yield self._fact(i)

    def _fact(self, i: int) -> Fact:
        s, o = self._pairs[i]
        return Fact(s, self._predicate, o)


@dataclass
class Ranked:
    facts: RankedFacts
    popularity: np.ndarray | None  # aligned with the facts sorted by (s, o); None for a random ranking


class PairList(Sequence):
    """(s, o) pairs backed by id arrays of the adjacency index, made into strings on access."""

    def __init__(self, entities: list[str], src: np.ndarray, dst: np.ndarray):
        self._entities, self._src, self._dst = entities, src, dst

    def __len__(self) -> int:
        return int(self._src.size)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return self._entities[int(self._src[i])], self._entities[int(self._dst[i])]

    def __iter__(self):
        entities = self._entities
        for a, b in zip(self._src.tolist(), self._dst.tolist()):
            yield entities[a], entities[b]


_TABLES: dict[tuple, tuple[PairList, np.ndarray, np.ndarray]] = {}


def _table(store: Store, predicate: str, progress: bool, index=None):
    """(pairs sorted by (s, o), their popularity (a function, computed on first call), which have
    s != o and no statement node at either end), kept for the last predicate. ``index``: the adjacency index to read (a neighbourhood's),
    else the KB's whole one."""
    key = (store.fingerprint(), predicate, id(index))
    table = _TABLES.get(key)
    if table is None or table[3] is not index:
        found, src, dst, _ = fact_arrays(store, predicate, progress=progress, index=index, scored=False)
        # only a popularity ranking reads the scores, and behind an endpoint their mean degree is a query
        popularity = cache(lambda: scores(store, predicate, found, src, dst))
        # A statement node is a subject of p where the store holds its model's fact as a direct
        # triple too (FactBench): it is no entity, and never a true fact's end.
        node = np.zeros(len(found.entities), dtype=bool)
        node[[i for i in map(found.id, statement_nodes(store)) if i is not None]] = True
        table = (PairList(found.entities, src, dst), popularity, (src != dst) & ~node[src] & ~node[dst], index)
        _TABLES.clear()  # one table at a time (another thread's may go: it is made again)
        _TABLES[key] = table
    return table[:3]


def kb_pairs(store: Store, predicate: str, *, progress: bool = False, index=None) -> frozenset[tuple[str, str]]:
    """Every (s, o) of the predicate between entities, as a set (kept with the fact table)."""
    pairs, popularity, valid = _table(store, predicate, progress, index)
    if _PAIR_SETS.get("pairs_of") is not pairs:
        _PAIR_SETS.clear()
        _PAIR_SETS.update(pairs_of=pairs, pairs=frozenset(pairs))
    return _PAIR_SETS["pairs"]


_PAIR_SETS: dict = {}


def sorted_pairs(store: Store, predicate: str, index=None) -> PairList:
    """The predicate's (s, o) pairs sorted, shared with the fact table (do not mutate)."""
    return _table(store, predicate, False, index)[0]


def ranking(store: Store, spec: ScenarioSpec, *, progress: bool = False, index=None) -> Ranked:
    pairs, popularity, valid = _table(store, spec.predicate, progress, index)
    scored = popularity() if spec.popularity != "random" else None
    if spec.popularity == "popular":
        order = np.argsort(-scored, kind="stable")  # ties keep (s, o) order
    elif spec.popularity == "unpopular":
        order = np.argsort(scored, kind="stable")
    else:
        order = stream(spec.seed, "positives/ranking").permutation(len(pairs))
    order = order[valid[order]]
    return Ranked(RankedFacts(pairs, order, spec.predicate), scored)


def select(ranked: list[Fact], count: int, spec: ScenarioSpec, *, store: Store, purpose: str,
           progress: bool = False) -> tuple[list[Fact], dict[Fact, str]]:
    """``count`` facts from ``ranked`` (already filtered for the split); their cluster labels if any."""
    if len(ranked) < count:
        raise NotEnoughFacts(
            f"only {len(ranked)} true facts of {spec.predicate} are available for the {purpose} set, "
            f"{count} asked: lower size/train_size or raise ratio's false share", "size")
    if spec.homogeneity <= 0 or count == 0:
        return ranked[:count], {}
    from .clusters import cluster_facts

    pool = ranked[: min(len(ranked), max(POOL_FACTOR * count, count), POOL_LIMIT)]
    if len(pool) < count:
        raise NotEnoughFacts(f"homogeneity needs a pool of at least {count} facts; "
                             f"at most {POOL_LIMIT} can be clustered: lower size", "size")
    labels = cluster_facts(store, [f.pair for f in pool], seed=EMBEDDING_SEED, progress=progress)
    members: dict[int, list[int]] = {}
    for position, label in enumerate(labels):
        members.setdefault(int(label), []).append(position)
    target = max(sorted(members), key=lambda label: len(members[label]))
    from_target = int(round(spec.homogeneity * count))
    if len(members[target]) < from_target:
        raise NotEnoughFacts(
            f"homogeneity {spec.homogeneity:g} needs {from_target} true {purpose} facts from one cluster, but the "
            f"largest cluster of the {len(pool)} candidates has {len(members[target])}: lower homogeneity or size",
            "homogeneity")
    chosen = members[target][:from_target]
    # The rest is spread over the *other* clusters in proportion, so exactly a share h comes
    # from the target cluster (when they run dry, the target's next facts fill the gap).
    others = {label: len(m) for label, m in members.items() if label != target}
    quota = _proportional(count - from_target, others)
    for label in sorted(others):
        chosen += members[label][: quota[label]]
    if len(chosen) < count:
        taken = set(chosen)
        spare = [i for label in sorted(others) for i in members[label] if i not in taken]
        spare += [i for i in members[target] if i not in taken]
        chosen += spare[: count - len(chosen)]
    chosen.sort()
    return [pool[i] for i in chosen], {pool[i]: f"{purpose}-{labels[i]}" for i in chosen}


def _proportional(total: int, sizes: dict[int, int]) -> dict[int, int]:
    """Largest-remainder apportionment: exact total, each share as close to proportional as can be."""
    whole = sum(sizes.values())
    if whole == 0:
        return {label: 0 for label in sizes}
    raw = {label: total * size / whole for label, size in sizes.items()}
    quota = {label: int(np.floor(value)) for label, value in raw.items()}
    left = total - sum(quota.values())
    for label in sorted(raw, key=lambda k: (-(raw[k] - quota[k]), k))[:left]:
        quota[label] += 1
    return quota
