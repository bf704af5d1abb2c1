"""The KB as negative samplers read it: the adjacency index and the facts of the scenario's predicate."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from factforge.sparql.adjacency import Adjacency
from factforge.sparql.store import Store

from ..facts import Fact
from .nearness import sorted_member


@dataclass
class KBView:
    store: Store
    adjacency: Adjacency
    predicate: str
    kb_pairs: set[tuple[str, str]]  # every (s, o) of the predicate in the KB
    sorted_pairs: list[tuple[str, str]] | None = None  # kb_pairs in (s, o) order, when the caller has it
    _subjects: np.ndarray | None = None  # by entity id: has p-facts of its own
    _objects: np.ndarray | None = None  # by entity id: is the object of a p-fact
    _nodes: dict[str, int] = field(default_factory=dict)
    _pair_codes: np.ndarray | None = None  # kb_pairs as sorted s * |entities| + o (index ids)

    @property
    def subjects_mask(self) -> np.ndarray:
        """By entity id, whether the KB gives it p-facts: LCWA asks this of every in-neighbour of
        a popular object (a capital has thousands), so it is one array, not a lookup per entity."""
        if self._subjects is None:
            self._subjects = self._predicate_mask(self.adjacency.src)
        return self._subjects

    @property
    def objects_mask(self) -> np.ndarray:
        """By entity id, whether the KB uses it as an object of the predicate."""
        if self._objects is None:
            self._objects = self._predicate_mask(self.adjacency.dst)
        return self._objects

    def _predicate_mask(self, ends: np.ndarray) -> np.ndarray:
        """By entity id, whether it is at ``ends`` (the index's src or dst) of some p link."""
        index = self.adjacency
        mask = np.zeros(len(index.entities), dtype=bool)
        pid = index.pindex.get(self.predicate)
        if pid is not None:
            mask[ends[index.pred == pid]] = True
        return mask

    def in_kb(self, fact: Fact) -> bool:
        if fact.p == self.predicate:
            return fact.pair in self.kb_pairs
        # Other predicates' links between entities are all in the adjacency index.
        return self.adjacency.has_link(fact.s, fact.p, fact.o)

    def in_kb_nodes(self, s: np.ndarray, o: np.ndarray) -> np.ndarray:
        """``in_kb`` of the facts p(s[i], o[i]) given by index ids, in one binary search."""
        index = self.adjacency
        n = len(index.entities)
        if self._pair_codes is None:
            # kb_pairs are the predicate's links of this index (positives.kb_pairs): read as ids from its
            # arrays, not by looking each name up: on a large KB that lookup was most of a scenario's
            # matching (docs/performance.md, the 10M warm-scenario target)
            pid = index.pindex.get(self.predicate)
            mask = index.pred == pid if pid is not None else np.zeros(index.pred.size, dtype=bool)
            self._pair_codes = np.sort(index.src[mask].astype(np.int64) * n + index.dst[mask])
        return sorted_member(s.astype(np.int64) * n + o, self._pair_codes)

    def node(self, entity: str) -> int:
        """An entity's index id, or -1; memoized, as samplers offer the same objects again and again."""
        node = self._nodes.get(entity)
        if node is None:
            found = self.adjacency.id(entity)
            node = self._nodes[entity] = -1 if found is None else found
        return node

    def pairs_in_order(self) -> list[tuple[str, str]]:
        """``kb_pairs`` sorted, worked out once."""
        if self.sorted_pairs is None:
            self.sorted_pairs = sorted(self.kb_pairs)
        return self.sorted_pairs

    def other_pairs(self, exclude: set[tuple[str, str]], rng):
        """The KB's (s, o) pairs of the predicate outside ``exclude``, in a seeded random order,
        lazily: a fallback usually needs a few hundred of millions."""
        pairs = self.pairs_in_order()
        for i in rng.permutation(len(pairs)).tolist():
            if pairs[i] not in exclude:
                yield pairs[i]

    def observed_range(self) -> tuple[list[str], np.ndarray]:
        """The predicate's objects in the KB, in index order, with how many of its facts each is
        the object of."""
        index = self.adjacency
        pid = index.pindex.get(self.predicate)
        if pid is None:
            return [], np.zeros(0, dtype=np.int64)
        ids, counts = np.unique(index.dst[index.pred == pid], return_counts=True)
        return [index.entities[i] for i in ids.tolist()], counts

    def objects_of(self, subject: str) -> list[str]:
        """The objects the KB gives ``subject`` for the predicate, read from the adjacency index."""
        index = self.adjacency
        node, pid = index.id(subject), index.pindex.get(self.predicate)
        if node is None or pid is None:
            return []
        return [index.entities[i] for i in index.follow(node, pid + 1).tolist()]

    def used_on(self, entity: str, side: str) -> bool:
        """Does the KB have a fact of the predicate with ``entity`` on this side?"""
        node = self.adjacency.id(entity)
        mask = self.subjects_mask if side == "subject" else self.objects_mask
        return node is not None and bool(mask[node])
