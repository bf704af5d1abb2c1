"""What else states a fact than its triple: statement nodes, which R must lose with the fact.

A KB can say (s, p, o) again through a node: an ``rdf:Statement`` (the demo KB reifies every
award, employer and spouse so, with dates), or a FactBench model's node (``s -link-> node``,
``node p o`` with ``dbo:from``/``dbo:to``). R without the triple but with the node would still
state the fact; R without only the node's ``p o`` would keep a node with a subject and dates and
no object, which says "a fact of s was taken out" and nothing of the kind for a false fact's
subject. So the node goes whole: every triple it is the subject or object of, literals included.

Such a node is no entity either: ``statement_nodes`` lists them, and no true or false fact of a
scenario has one as its subject or object.

Removed triples are (subject, predicate, object) strings: an IRI or blank node by its value, a
literal in N-Triples form (``term_key``), which no IRI can be mistaken for (IRIs hold no ``"``).
"""
from __future__ import annotations

from typing import Iterable

from pyoxigraph import BlankNode, Literal

from factforge.sparql.interface import StoreError
from factforge.sparql.profiles import batched
from factforge.sparql.store import Store
from factforge.sparql.terms import TermError, iri


def term_key(term) -> str:
    return str(term) if isinstance(term, Literal) else term.value


def restatements(store: Store, triples: Iterable[tuple[str, str | None, str]]) -> set[tuple[str, str, str]]:
    """Every triple of every statement node that states one of ``triples``; a predicate None
    stands for any (those with a blank node, which no query can name, are passed over)."""
    found = set()
    if not statement_nodes(store):  # every node the query finds is one (kept per KB): a KB without any skips it
        return found
    for batch in batched(sorted(set(triples), key=lambda triple: tuple(x or "" for x in triple))):
        rows = []
        for triple in batch:
            try:
                rows.append(tuple(None if x is None else iri(x) for x in triple))
            except TermError:
                continue
        answer = [(row["a"], row["q"], row["b"]) for row in store.select("restatements", facts=rows)]
        if not store.stable_blank_ids:
            _refuse_blank_nodes(store, answer)
        found.update((term_key(a), q.value, term_key(b)) for a, q, b in answer)
    return found


def _refuse_blank_nodes(store: Store, answer: list[tuple]) -> None:
    """Behind an endpoint a blank node's id holds for one answer only: R, written by streaming the
    endpoint, could not leave such a statement node out, and it would state a test fact again."""
    blank = sorted({x for a, _, b in answer for x in (a, b) if isinstance(x, BlankNode)}, key=str)
    if not blank:
        return
    said = sorted(f"{a} {q} {b}" for a, q, b in answer
                  if blank[0] in (a, b) and not isinstance(a if b == blank[0] else b, (BlankNode, Literal)))
    raise StoreError(f"{len(blank)} statement node(s) of the test facts behind {getattr(store, 'url', 'the endpoint')} "
                     f"are blank nodes (one: {'; '.join(said[:3])}): their ids change from one query to the next, "
                     f"so R cannot leave them out and they would state the facts again; load the KB into a local "
                     f"store (factforge load) or give statement nodes IRIs")


_NODES: dict[str, frozenset[str]] = {}  # by store fingerprint, the last store's only


def statement_nodes(store: Store) -> frozenset[str]:
    """The KB's statement nodes (rdf:Statement, FactBench model nodes), by value."""
    key = store.fingerprint()
    if key not in _NODES:
        _NODES.clear()
        _NODES[key] = frozenset(row["node"].value for row in store.select("statement_nodes"))
    return _NODES[key]
