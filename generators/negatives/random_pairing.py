"""``random``: re-pair the subject of one true fact with the object of another.

Unambiguous by design: nothing ties the new object to the subject, which is what the paper's
transparency counts as an easy false fact.
"""
from __future__ import annotations

from ..facts import Fact, Negative
from .base import NegativeContext, NegativeSampler

ATTEMPTS_PER_FACT = 50


class RandomPairing(NegativeSampler):
    name = "random"

    def sample(self, context: NegativeContext, sources: list[Fact], n: int, rng) -> list[Negative]:
        chosen: list[Negative] = []
        if len(sources) < 2:
            return chosen
        count = len(sources)
        for _ in range(n * ATTEMPTS_PER_FACT):
            if len(chosen) >= n:
                break
            i, j = rng.integers(count, size=2)
            if i == j:
                continue
            subject_fact, object_fact = sources[i], sources[j]
            fact = Fact(subject_fact.s, context.predicate, object_fact.o)
            if context.acceptable(fact):
                negative = Negative(fact, self.name, subject_fact, {"object_from": {
                    "subject": object_fact.s, "predicate": object_fact.p, "object": object_fact.o}})
                context.take(negative)
                chosen.append(negative)
        return chosen
