"""What every negative sampler shares: the context it reads and the checks every false fact passes.

A sampler is a small class with a name and one method, ``sample(context, sources, n)``: it
returns up to ``n`` false facts made from the true facts ``sources``. It never returns a fact
that ``context.acceptable`` refuses, so every kind of negative gets the same guarantees:
s != o, not in the KB, not already used in the scenario (which also keeps train and test
apart), and no entity the split must avoid.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from sparql import profiles
from sparql.adjacency import Adjacency
from sparql.store import Store

from ..facts import Fact, Negative
from ..spec import ScenarioSpec


@dataclass
class NegativeContext:
    store: Store
    spec: ScenarioSpec
    adjacency: Adjacency
    kb_pairs: set[tuple[str, str]]  # every (s, o) of the predicate in the KB
    used: set[tuple[str, str, str]] = field(default_factory=set)  # (s, p, o) already in the scenario
    forbidden: set[str] = field(default_factory=set)  # entities this split must not use
    sorted_pairs: list[tuple[str, str]] | None = None  # kb_pairs in (s, o) order, when the caller has it
    _types: dict[str, frozenset[str]] = field(default_factory=dict)

    @property
    def predicate(self) -> str:
        return self.spec.predicate

    def in_kb(self, fact: Fact) -> bool:
        if fact.p == self.predicate:
            return fact.pair in self.kb_pairs
        # Other predicates' links between entities are all in the adjacency index.
        return self.adjacency.has_link(fact.s, fact.p, fact.o)

    def acceptable(self, fact: Fact, *, dated: bool = False) -> bool:
        """The checks every false fact passes, whatever made it."""
        if fact.s == fact.o or ((*fact.triple, fact.start, fact.end) if dated else fact.triple) in self.used:
            return False
        if fact.s in self.forbidden or fact.o in self.forbidden:
            return False
        # A date corruption keeps a true triple and changes its dates; any other kind must be
        # absent from the KB.
        if dated:
            return True
        return not self.in_kb(fact) and not self.next_to_known_object(fact)

    def next_to_known_object(self, fact: Fact) -> bool:
        """Is o' directly linked to an object the KB gives this subject for p?

        Born in Munich implies born in Germany: an object one link away from a known one (its
        country, region, or a part of it) is too often true for a false fact. On DBpedia50 with a
        fifth of birthPlace held out, this was where most false "false facts" came from.
        """
        if fact.p != self.predicate:
            return False
        index = self.adjacency
        candidate = index.id(fact.o)
        if candidate is None:
            return False
        for known in self.objects_of(fact.s):
            node = index.id(known)
            if node is None:
                continue
            # Scan the smaller neighbourhood of the two: one of them is often a hub (a country).
            small, other = (node, candidate) if index.degree(node) <= index.degree(candidate) else (candidate, node)
            if np.any(index.out(small)[0] == other) or np.any(index.inbound(small)[0] == other):
                return True
        return False

    def other_pairs(self, exclude: set[tuple[str, str]], rng):
        """The KB's (s, o) pairs of the predicate outside ``exclude``, in a seeded random order,
        lazily: a fallback usually needs a few hundred of millions."""
        if self.sorted_pairs is None:
            self.sorted_pairs = sorted(self.kb_pairs)
        pairs = self.sorted_pairs
        for i in rng.permutation(len(pairs)).tolist():
            if pairs[i] not in exclude:
                yield pairs[i]

    def has_facts(self, subject: str) -> bool:
        """Does the KB give ``subject`` any fact of the predicate? (LCWA's premise.)"""
        return bool(self.objects_of(subject))

    def objects_of(self, subject: str) -> list[str]:
        """The objects the KB gives ``subject`` for the predicate, read from the adjacency index."""
        index = self.adjacency
        node, pid = index.id(subject), index.pindex.get(self.predicate)
        if node is None or pid is None:
            return []
        return [index.entities[i] for i in index.follow(node, pid + 1).tolist()]

    def take(self, negative: Negative) -> None:
        self.used.add(negative.fact.triple)
        self.used.add((*negative.fact.triple, negative.fact.start, negative.fact.end))  # dates tell date corruptions apart

    # --- types ------------------------------------------------------------------------------------
    def load_types(self, entities) -> None:
        missing = [e for e in set(entities) if e not in self._types]
        if missing:
            paths = profiles.type_paths(self.store, missing)
            for e in missing:
                self._types[e] = frozenset(c for path in paths.get(e, []) for c in path)

    def types(self, entity: str) -> frozenset[str]:
        if entity not in self._types:
            self.load_types([entity])
        return self._types[entity]

    def type_consistent(self, original: str, candidate: str, side: str = "object") -> bool:
        """|T(o) ∩ T(o')| >= min(threshold, |T(o)|): the candidate shares enough of o's type path.

        An untyped original would let any candidate through (min(threshold, 0) = 0), so it
        stands in with the type path of the predicate's most frequent class on that side.
        """
        want = self.types(original) or self.typical_types(side)
        return len(want & self.types(candidate)) >= min(self.spec.type_overlap, len(want))

    def typical_types(self, side: str) -> frozenset[str]:
        key = f"__typical_{side}__"
        if key not in self._types:
            profile = profiles.predicate_profile(self.store, self.predicate)
            top = profile["subject_types" if side == "subject" else "object_types"]
            tree = profiles.class_tree(self.store)
            self._types[key] = frozenset(tree.chain(top[0]["type"])) if top else frozenset()
        return self._types[key]


class NegativeSampler:
    name = "abstract"

    def sample(self, context: NegativeContext, sources: list[Fact], n: int,
               rng: np.random.Generator) -> list[Negative]:
        raise NotImplementedError


def round_robin(candidates: list[list[Negative]], n: int, context: NegativeContext,
                rng: np.random.Generator, *, dated: bool = False) -> list[Negative]:
    """Take one candidate per source in turn (seeded order), so negatives spread over sources."""
    queues = [list(rng.permutation(len(c))) for c in candidates]
    order = list(rng.permutation(len(candidates)))
    chosen: list[Negative] = []
    while len(chosen) < n and order:
        still = []
        for i in order:
            while queues[i]:
                negative = candidates[i][queues[i].pop(0)]
                if context.acceptable(negative.fact, dated=dated):
                    context.take(negative)
                    chosen.append(negative)
                    break
            if queues[i]:
                still.append(i)
            if len(chosen) >= n:
                break
        order = still
    return chosen


SamplerFactory = Callable[[], NegativeSampler]
