"""What the reference KB R lacks: the test facts, and what a chosen leakage level removes around them.

* ``triple``: remove each true test fact (s, p, o).
* ``inverse``: also (o, p, s) and (o, q, s) for every q that is an inverse of p, declared
  (``owl:inverseOf`` either way) or observed (at least half of p's facts have (o, q, s)).
* ``pair``: also every direct link between s and o, either way, whatever the predicate, and
  every statement node that links s and o by any predicate (with no direct triple beside it).

What a level removes around a true test fact's (s, o) it removes around a false one's too: had
only true facts lost their links, "s and o are linked in R" would tell a false fact (LCWA's
p(s, o') comes from a link s -p'-> o') from a true one. A false fact itself is not in the KB, so
``triple`` removes nothing for it.

At every level, a statement node that states a removed triple or a test fact again (an
rdf:Statement, a FactBench model's node) goes with it, whole (``restatements``).

R itself, the KB minus these triples as every writer and checker reads it, is ``reference_kb``'s
``ReferenceKB``.
"""
from __future__ import annotations

from typing import Iterable

from factforge.sparql.adjacency import Adjacency
from factforge.sparql.store import Store
from factforge.sparql.terms import iri

from .facts import Fact
from .restatements import restatements

OBSERVED_INVERSE_SHARE = 0.5


def inverse_predicates(store: Store, adjacency: Adjacency, predicate: str, kb_pairs: set[tuple[str, str]]) -> list[str]:
    declared = {row["q"].value for row in store.select("declared_inverses", predicate=iri(predicate))}
    observed = set()
    if kb_pairs:
        counts = adjacency.reverse_link_counts(predicate, kb_pairs)
        observed = {adjacency.predicates[q] for q, n in counts.items() if n >= OBSERVED_INVERSE_SHARE * len(kb_pairs)}
    return sorted(declared | observed)


def removed_triples(store: Store, adjacency: Adjacency, test_facts: Iterable[Fact], level: str,
                    kb_pairs: set[tuple[str, str]], predicate: str | None = None) -> list[tuple[str, str, str]]:
    """The triples R lacks: around every test fact, true or false, alike. ``predicate`` is the
    scenario's (default: the first fact's); a FactBench false fact may carry another one."""
    facts = list(test_facts)
    if not facts:
        return []
    predicate = predicate or facts[0].p
    removed = {f.triple for f in facts if _in_kb(adjacency, f, predicate, kb_pairs)}
    if level in ("inverse", "pair"):
        inverses = inverse_predicates(store, adjacency, predicate, kb_pairs)
        for f in facts:
            for q in [predicate, *inverses]:
                if (q == predicate and (f.o, f.s) in kb_pairs) or (q != predicate and adjacency.has_link(f.o, q, f.s)):
                    removed.add((f.o, q, f.s))
    stated = {f.triple for f in facts}
    if level == "pair":
        for f in facts:
            removed.update(adjacency.links_between(f.s, f.o))
        # a link between s and o that only a statement node states, by any predicate, either way
        stated |= {(a, None, b) for f in facts for a, b in (f.pair, f.pair[::-1])}
    removed |= restatements(store, removed | stated)
    return sorted(removed)


def _in_kb(adjacency: Adjacency, fact: Fact, predicate: str, kb_pairs: set[tuple[str, str]]) -> bool:
    return fact.pair in kb_pairs if fact.p == predicate else adjacency.has_link(fact.s, fact.p, fact.o)
