"""What a scenario's false facts have used so far: the bookkeeping that keeps them apart and balanced."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from factforge.sparql.adjacency import Adjacency

from ..facts import Fact, Negative


@dataclass
class Ledger:
    used: set[tuple] = field(default_factory=set)  # (s, p, o), and (s, p, o, start, end), already in the scenario
    forbidden: set[str] = field(default_factory=set)  # entities the split being made must not use
    never: frozenset[str] = frozenset()  # what no false fact may use: the KB's statement nodes
    # False facts per subject so far: samplers prefer the least-used subjects, because a subject
    # that appears in the set only once would otherwise mark its fact as true (see round_robin).
    subject_uses: Counter = field(default_factory=Counter)
    # The same within the split being made: what "no subject more often false than true" counts,
    # since a split is published and audited on its own (a subject true in both splits has its
    # test false facts in ``subject_uses`` already, and would get none in train).
    split_uses: Counter = field(default_factory=Counter)
    # False facts per true fact so far, over the FactBench kinds (``factbench.FactBenchSampler``).
    source_uses: Counter = field(default_factory=Counter)
    split_made: list[Negative] = field(default_factory=list)  # false facts of the split being made, so far
    split_false: int | None = None  # false facts the split being made will hold in all
    _avoided: tuple | None = None  # (forbidden, its size, the mask avoided() made of it)

    def start_split(self, n: int) -> list[Negative]:
        """A new split of ``n`` false facts: the list its makers add to (``ObjectBalance`` reads it)."""
        self.split_made, self.split_false, self.split_uses = [], n, Counter()
        return self.split_made

    def allows(self, fact: Fact, *, dated: bool = False) -> bool:
        """s != o, not in the scenario yet (a date corruption by its dates), no entity the split
        must avoid, and no statement node."""
        if fact.s == fact.o or ((*fact.triple, fact.start, fact.end) if dated else fact.triple) in self.used:
            return False
        return not ({fact.s, fact.o} & self.forbidden or {fact.s, fact.o} & self.never)

    def avoided(self, index) -> np.ndarray:
        """By index id: an entity ``allows`` refuses (the split must avoid it, or a statement
        node). Made again when ``forbidden`` is another set or has grown."""
        if self._avoided is None or self._avoided[0] is not self.forbidden or self._avoided[1] != len(self.forbidden):
            mask = np.zeros(len(index.entities), dtype=bool)
            # the base lookup: a neighbourhood index would note an entity it lacks as one to fetch
            ids = [Adjacency.id(index, e) for e in self.forbidden | self.never]
            mask[[i for i in ids if i is not None]] = True
            self._avoided = self.forbidden, len(self.forbidden), mask
        return self._avoided[2]

    def take(self, negative: Negative) -> None:
        self.subject_uses[negative.fact.s] += 1
        self.split_uses[negative.fact.s] += 1
        self.used.add(negative.fact.triple)
        self.used.add((*negative.fact.triple, negative.fact.start, negative.fact.end))  # dates tell date corruptions apart

    def release(self, negative: Negative) -> None:
        """Undo ``take``: a sampler that trades a false fact for another (``debt_paths``) gives
        the first back. ``acceptable`` refuses a fact already used, so no other take added it."""
        self.subject_uses[negative.fact.s] -= 1
        self.split_uses[negative.fact.s] -= 1
        self.used.discard(negative.fact.triple)
        self.used.discard((*negative.fact.triple, negative.fact.start, negative.fact.end))
