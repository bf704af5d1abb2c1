"""``random``: re-pair the subject of one true fact with the object of another fact of the split
(a true one, or a false one the ambiguous kind made; ``object_from`` in the answers names it).

Unambiguous by design: nothing ties the new object to the subject, which is what the paper's
transparency counts as an easy false fact.

Every subject tries every object of the split (most owed first) before it is given up, so the
sampler makes every false fact the split's subjects and objects allow, up to the number asked.
When that is fewer, ``shortfall`` says how many (subject, object) pairs there were and what
refused the rest.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from ..facts import Fact, Negative
from .base import NegativeContext, NegativeSampler, ObjectBalance, first_acceptable


class RandomPairing(NegativeSampler):
    name = kind = "random"
    query = "negatives_random"
    transparent = True
    knob = "size"
    advice = ("lower transparency, or raise size: re-pairing swaps objects among the split's own "
              "facts, so more facts give it more pairs")

    def sample(self, context: NegativeContext, sources: list[Fact], n: int, rng) -> list[Negative]:
        chosen: list[Negative] = []
        self.shortfall = ""
        if len(sources) < 2:
            self.shortfall = f"re-pairing needs two true facts in the split, it has {len(sources)}"
            return chosen
        count = len(sources)
        rank = rng.permutation(count)
        # Objects come from donor facts: the split's true facts and the false facts made so far (by
        # the ambiguous kind), the objects most owed to the set first (ObjectBalance): an object
        # then gets false facts in proportion to its true facts, so its count in the set says
        # nothing of the label.
        donors: dict[str, Fact] = {}
        for fact in list(sources) + [neg.fact for neg in context.ledger.split_made]:
            donors.setdefault(fact.o, fact)
        tie = dict(zip(donors, rng.permutation(len(donors)).tolist()))
        balance = ObjectBalance(context.ledger, sources, n)
        # Acceptance only narrows as false facts are taken, so a subject with no acceptable object
        # left never gets one again in this call.
        spent: set[str] = set()
        while len(chosen) < n:
            # Each round gives every source at most one false fact, least-used subjects first
            # (ties in a seeded order): a subject's count in the set then says nothing of the label.
            order = sorted(range(count), key=lambda k: (context.ledger.subject_uses[sources[k].s], rank[k]))
            line = sorted(donors, key=balance.key(tie))
            ids = np.fromiter((context.kb.node(o) for o in line), dtype=np.int64, count=len(line))
            before = len(chosen)
            for i in order:
                if len(chosen) >= n:
                    break
                subject_fact = sources[i]
                if subject_fact.s in spent:
                    continue
                negative = self._first_acceptable(context, subject_fact, line, ids, donors)
                if negative is None:
                    spent.add(subject_fact.s)
                    continue
                context.ledger.take(negative)
                moved = line.index(negative.fact.o)
                balance.took(negative, line, tie)
                _move(ids, moved, line.index(negative.fact.o))
                chosen.append(negative)
            if len(chosen) == before:
                break
        if len(chosen) < n:
            self.shortfall = self._why(context, sources, donors, {neg.fact.pair for neg in chosen})
        return chosen

    def candidates(self, context: NegativeContext, sources: list[Fact]) -> list[Negative]:
        """Each source's subject with each donor object (see ``sample``) that ``acceptable`` takes."""
        objects = dict.fromkeys(f.o for f in list(sources) + [neg.fact for neg in context.ledger.split_made])
        found = []
        for source in sources:
            facts = [Fact(source.s, context.predicate, o) for o in objects]
            context.near.screen(facts)
            found += [Negative(fact, self.kind, source) for fact in facts if context.acceptable(fact)]
        return found

    def _first_acceptable(self, context: NegativeContext, subject_fact: Fact, line: list[str], ids: np.ndarray,
                          donors: dict[str, Fact]) -> Negative | None:
        fact = first_acceptable(context, subject_fact.s, line, ids)
        if fact is None:
            return None
        donor = donors[fact.o]
        return Negative(fact, self.name, subject_fact, {"object_from": {
            "subject": donor.s, "predicate": donor.p, "object": donor.o}})

    def _why(self, context: NegativeContext, sources: list[Fact], donors: dict[str, Fact],
             made: set[tuple[str, str]]) -> str:
        """What refused each (subject, object) pair of the split once nothing more could be made:
        counted over every pair, the first reason that applies to it."""
        subjects = sorted({f.s for f in sources})
        reasons: Counter = Counter()
        for s in subjects:
            for o in donors:
                fact = Fact(s, context.predicate, o)
                if (s, o) in made:
                    continue
                if s == o:
                    reasons["the same entity twice"] += 1
                elif fact.triple in context.ledger.used:
                    reasons["already in the scenario"] += 1
                elif s in context.ledger.forbidden or o in context.ledger.forbidden:
                    reasons["an entity the other split holds"] += 1
                elif context.kb.in_kb(fact):
                    reasons["in the KB"] += 1
                elif context.near.next_to_known_object(fact):
                    reasons["next to a known object of the subject"] += 1
        pairs = len(subjects) * len(donors)
        refused = ", ".join(f"{n} {why}" for why, n in sorted(reasons.items(), key=lambda item: (-item[1], item[0])))
        return (f"every one of the {pairs} (subject, object) pairs of the split's {len(subjects)} subjects and "
                f"{len(donors)} objects was tried: {len(made)} became false facts, the rest were refused ({refused})")


def _move(ids: np.ndarray, old: int, new: int) -> None:
    """Keep the line's index ids in step with the line, whose object at ``old`` moved to ``new``
    (``ObjectBalance.took``): the ids of a long line, looked up again after each false fact, were
    a dict lookup per object per subject."""
    moved = ids[old]
    if new > old:
        ids[old:new] = ids[old + 1:new + 1]
    elif new < old:
        ids[new + 1:old + 1] = ids[new:old]
    ids[new] = moved
