"""``random``: re-pair the subject of one true fact with the object of another fact of the split
(a true one, or a false one the ambiguous kind made; ``object_from`` in the answers names it).

Unambiguous by design: nothing ties the new object to the subject, which is what the paper's
transparency counts as an easy false fact.
"""
from __future__ import annotations

from ..facts import Fact, Negative
from .base import NegativeContext, NegativeSampler, ObjectBalance

ATTEMPTS_PER_FACT = 50
TRIES_PER_SUBJECT = 5  # objects tried for one subject in a round before the next subject's turn


class RandomPairing(NegativeSampler):
    name = "random"

    def sample(self, context: NegativeContext, sources: list[Fact], n: int, rng) -> list[Negative]:
        chosen: list[Negative] = []
        if len(sources) < 2:
            return chosen
        count = len(sources)
        rank = rng.permutation(count)
        # Objects come from donor facts: the split's true facts and the false facts made so far (by
        # the ambiguous kind), the objects most owed to the set first (ObjectBalance): an object
        # then gets false facts in proportion to its true facts, so its count in the set says
        # nothing of the label.
        donors: dict[str, Fact] = {}
        for fact in list(sources) + [neg.fact for neg in context.split_made]:
            donors.setdefault(fact.o, fact)
        tie = dict(zip(donors, rng.permutation(len(donors)).tolist()))
        balance = ObjectBalance(context, sources, n)
        tries_left = n * ATTEMPTS_PER_FACT
        while len(chosen) < n and tries_left > 0:
            # Each round gives every subject at most one false fact, least-used subjects first
            # (ties in a seeded order): a subject's count in the set then says nothing of the label.
            order = sorted(range(count), key=lambda k: (context.subject_uses[sources[k].s], rank[k]))
            objects = sorted(donors, key=balance.key(tie))
            before = len(chosen)
            for i in order:
                if len(chosen) >= n or tries_left <= 0:
                    break
                subject_fact = sources[i]
                for at in range(min(len(objects), TRIES_PER_SUBJECT)):
                    tries_left -= 1
                    donor = donors[objects[at]]
                    fact = Fact(subject_fact.s, context.predicate, donor.o)
                    if context.acceptable(fact):
                        negative = Negative(fact, self.name, subject_fact, {"object_from": {
                            "subject": donor.s, "predicate": donor.p, "object": donor.o}})
                        context.take(negative)
                        balance.took(negative, objects, tie)
                        chosen.append(negative)
                        break
            if len(chosen) == before:
                break
        return chosen
