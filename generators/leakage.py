"""The reference KB R: the KB without the test facts, at a chosen leakage level.

* ``triple``: remove each true test fact (s, p, o).
* ``inverse``: also (o, p, s) and (o, q, s) for every q that is an inverse of p, declared
  (``owl:inverseOf`` either way) or observed (at least half of p's facts have (o, q, s)).
* ``pair``: also every direct link between s and o, either way, whatever the predicate.

What a level removes around a true test fact's (s, o) it removes around a false one's too: had
only true facts lost their links, "s and o are linked in R" would tell a false fact (LCWA's
p(s, o') comes from a link s -p'-> o') from a true one. A false fact itself is not in the KB, so
``triple`` removes nothing for it.

At every level, a statement node that states a removed triple or a test fact again (an
rdf:Statement, a FactBench model's node) goes with it, whole (``restatements``).

R is never written into the original store: it is the original minus a list of triples, exported
as N-Triples by streaming the store predicate by predicate and skipping the removed ones.
``kept_links`` is R as a mask over the adjacency index, for the writers and checkers that read
R from the index.
"""
from __future__ import annotations

from typing import IO, Iterable

import numpy as np

from factforge.sparql.adjacency import Adjacency
from factforge.sparql.store import Store
from factforge.sparql.terms import iri

from .facts import Fact
from .restatements import restatements, term_key

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
    if level == "pair":
        for f in facts:
            removed.update(adjacency.links_between(f.s, f.o))
    removed |= restatements(store, removed | {f.triple for f in facts})
    return sorted(removed)


def _in_kb(adjacency: Adjacency, fact: Fact, predicate: str, kb_pairs: set[tuple[str, str]]) -> bool:
    return fact.pair in kb_pairs if fact.p == predicate else adjacency.has_link(fact.s, fact.p, fact.o)


def kept_links(index: Adjacency, triples: Iterable[tuple[str, str, str]]) -> np.ndarray:
    """By link of the adjacency index: is it outside ``triples`` (triples absent from the index
    are ignored)?"""
    keep = np.ones(index.size, dtype=bool)
    codes = []
    n, m = len(index.entities), max(len(index.predicates), 1)
    for s, p, o in triples:
        si, pi, oi = index.index.get(s), index.pindex.get(p), index.index.get(o)
        if si is not None and pi is not None and oi is not None:
            codes.append((si * m + pi) * n + oi)
    if codes:
        # One int64 code per link: (src, pred, dst) fits for any KB below ~3 million entities x 1000
        # predicates x 3 million entities.
        link_codes = (index.src.astype(np.int64) * m + index.pred) * n + index.dst
        keep &= ~np.isin(link_codes, np.array(codes, dtype=np.int64))
    return keep


def write_reference(store: Store, removed: Iterable[tuple[str, str, str]], out: IO[bytes]) -> int:
    """Write R as N-Triples, one line a distinct triple, sorted (reproducible bytes); returns its size."""
    drop = set(removed)
    lines = set()
    for s, p, o in store.triples():
        if (s.value, p.value, term_key(o)) not in drop:
            lines.add(f"{s} {p} {o} .\n")
    ordered = sorted(lines)
    for start in range(0, len(ordered), 100_000):
        out.write("".join(ordered[start:start + 100_000]).encode("utf-8"))
    return len(ordered)


