"""``random``: re-pair the subject of one true fact with the object of another fact of the split
(a true one, or a false one the ambiguous kind made; ``object_from`` in the answers names it).

Unambiguous by design: nothing ties the new object to the subject, which is what the paper's
transparency counts as an easy false fact.
"""
from __future__ import annotations

from ..facts import Fact, Negative
from .base import NegativeContext, NegativeSampler

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
        # the ambiguous kind), each donor given once a round, least-used first. An object then gets
        # false facts in proportion to how often it already occurs in the set, so its count there
        # says nothing of the label (drawn at random, objects seen once meant "true": AUROC up to
        # 0.71 on small DBpedia50 sets; offering walk-made objects too keeps them from meaning "false").
        donors = list(sources) + [neg.fact for neg in context.split_made]
        donor_uses = [0] * len(donors)
        tries_left = n * ATTEMPTS_PER_FACT
        while len(chosen) < n and tries_left > 0:
            # Each round gives every subject at most one false fact, least-used subjects first
            # (ties in a seeded order): a subject's count in the set then says nothing of the label.
            order = sorted(range(count), key=lambda k: (context.subject_uses[sources[k].s], rank[k]))
            tie = rng.permutation(len(donors))
            objects = sorted(range(len(donors)), key=lambda j: (donor_uses[j], tie[j]))
            cursor = 0
            before = len(chosen)
            for i in order:
                if len(chosen) >= n or tries_left <= 0 or cursor >= len(objects):
                    break
                subject_fact = sources[i]
                for at in range(cursor, min(len(objects), cursor + TRIES_PER_SUBJECT)):
                    tries_left -= 1
                    donor = donors[objects[at]]
                    fact = Fact(subject_fact.s, context.predicate, donor.o)
                    if context.acceptable(fact):
                        negative = Negative(fact, self.name, subject_fact, {"object_from": {
                            "subject": donor.s, "predicate": donor.p, "object": donor.o}})
                        context.take(negative)
                        chosen.append(negative)
                        donor_uses[objects[at]] += 1
                        objects[cursor], objects[at] = objects[at], objects[cursor]
                        cursor += 1
                        break
            if len(chosen) == before:
                break
        return chosen
