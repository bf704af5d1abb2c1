"""The reference KB R: the KB without the test facts, at a chosen leakage level.

* ``triple``: remove each true test fact (s, p, o).
* ``inverse``: also (o, p, s) and (o, q, s) for every q that is an inverse of p, declared
  (``owl:inverseOf`` either way) or observed (at least half of p's facts have (o, q, s)).
* ``pair``: also every direct link between s and o, either way, whatever the predicate.

R is never written into the original store: it is the original minus a list of triples, exported
as N-Triples by streaming the store predicate by predicate and skipping the removed ones.
"""
from __future__ import annotations

from typing import IO, Iterable

from pyoxigraph import Literal, NamedNode

from sparql.adjacency import Adjacency
from sparql.store import Store
from sparql.terms import iri

from .facts import Fact

OBSERVED_INVERSE_SHARE = 0.5


def inverse_predicates(store: Store, adjacency: Adjacency, predicate: str, kb_pairs: set[tuple[str, str]]) -> list[str]:
    declared = {row["q"].value for row in store.select("declared_inverses", predicate=iri(predicate))}
    observed = set()
    if kb_pairs:
        counts: dict[int, int] = {}
        for s, o in kb_pairs:
            oi, si = adjacency.id(o), adjacency.id(s)
            if oi is None or si is None:
                continue
            nodes, preds = adjacency.out(oi)
            for q in set(preds[nodes == si].tolist()):
                counts[q] = counts.get(q, 0) + 1
        observed = {adjacency.predicates[q] for q, n in counts.items() if n >= OBSERVED_INVERSE_SHARE * len(kb_pairs)}
    return sorted(declared | observed)


def removed_triples(store: Store, adjacency: Adjacency, test_true: Iterable[Fact], level: str,
                    kb_pairs: set[tuple[str, str]]) -> list[tuple[str, str, str]]:
    facts = list(test_true)
    removed = {f.triple for f in facts}
    if level in ("inverse", "pair") and facts:
        predicate = facts[0].p
        inverses = inverse_predicates(store, adjacency, predicate, kb_pairs)
        for f in facts:
            for q in [predicate, *inverses]:
                if (q == predicate and (f.o, f.s) in kb_pairs) or (q != predicate and adjacency.has_link(f.o, q, f.s)):
                    removed.add((f.o, q, f.s))
    if level == "pair":
        for f in facts:
            removed.update(adjacency.links_between(f.s, f.o))
    return sorted(removed)


def write_reference(store: Store, removed: Iterable[tuple[str, str, str]], out: IO[bytes]) -> int:
    """Write R as N-Triples, one line a distinct triple, sorted (reproducible bytes); returns its size."""
    drop = set(removed)
    lines = set()
    for s, p, o in _triples(store):
        if isinstance(o, Literal) or (s.value, p.value, o.value) not in drop:
            lines.add(f"{s} {p} {o} .\n")
    ordered = sorted(lines)
    for start in range(0, len(ordered), 100_000):
        out.write("".join(ordered[start:start + 100_000]).encode("utf-8"))
    return len(ordered)


def _triples(store: Store):
    """Every triple of every graph. Embedded: a plain scan (one ordered query per predicate was
    ten times slower on disk); an endpoint: predicate by predicate."""
    db = getattr(store, "db", None)
    if db is not None:
        for quad in db.quads_for_pattern(None, None, None, None):
            yield quad.subject, quad.predicate, quad.object
        return
    for predicate in sorted(row["p"].value for row in store.select("predicate_counts")):
        p = NamedNode(predicate)
        for row in store.select("predicate_facts", predicate=p):
            yield row["s"], p, row["o"]
