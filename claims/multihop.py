"""Multi-hop claims: a 2-hop path s -p-> m -q-> o said as one claim about s and o, m left unnamed
(q's template with a phrase of p for m: "The birthplace of X is in Y"; ``verbalize.say``).

The claim says: some m has p(s, m) and q(m, o). Against R:
- SUPPORTS: R holds p(s, m) and q(m, o) for some m; each such pair of triples is one evidence set.
- REFUTES: p is functional, R gives s one p-object m, q is functional and R gives m a q-object
  other than o: those two triples are the evidence.
- NOT ENOUGH INFO: neither (a hop was taken out of R, or R has nothing to contradict it with).

The second hop starts at the claim's own object (the fact's m) and is a link of m in R through a
functional predicate q (declared or observed), for every label alike, so q says nothing about the
label. Never one to a statement node (FactBench's model nodes, an rdf:Statement): it states a fact
again rather than name a thing (the same rule as a conjunction's companion). Which hop, among those
that keep the fact's label, is chosen by a keyed hash of (subject, predicate). As for negation, as many multi-hop claims are made of each label within each predicate.
"""
from __future__ import annotations

import numpy as np

from factforge.generators.restatements import statement_nodes
from factforge.sparql.neighbourhood import Neighbourhood
from factforge.sparql.terms import is_schema_predicate

from .contradictions import ReferenceView, load_schema
from .keyed import keyed_index
from .labelling import NEI, REFUTES, SUPPORTS, choose_plain

Triple = tuple[str, str, str]


def label(final: ReferenceView, functional, s: str, p: str, q: str, o: str) -> tuple[str, list[list[Triple]]]:
    """(label, evidence sets) of "some m has p(s, m) and q(m, o)" against R."""
    middles = final.objects(s, p)
    found = [[(s, p, m), (m, q, o)] for m in middles if final.has((m, q, o))]
    if found:
        return SUPPORTS, found
    if p in functional and q in functional and len(middles) == 1:
        others = [x for x in final.objects(middles[0], q) if x != o]
        if others:
            return REFUTES, [[(s, p, middles[0]), (middles[0], q, x)] for x in others]
    return NEI, []


def functional_predicates(store, adjacency) -> set[str]:
    """Every link predicate declared or observed functional: second hops use only these. Over a
    ``Neighbourhood`` (an endpoint's KB, fetched in part) only the predicates of its links, each
    counted in the store: a second hop is a link of a fetched middle, so no other can be one."""
    if isinstance(adjacency, Neighbourhood):
        used = [adjacency.predicates[q] for q in np.unique(adjacency.pred).tolist()]
        return set(load_schema(store, None, [p for p in used if not is_schema_predicate(p)]).functional)
    predicates = [p for p in adjacency.predicates if not is_schema_predicate(p)]
    return set(load_schema(store, adjacency, predicates).functional)


def hops(final: ReferenceView, functional: set[str], claims, seed: int) -> dict[str, tuple[Triple, str, list]]:
    """By claim id: (second hop, label, evidence) for the plain claims whose path keeps their label."""
    index = final.adjacency
    stated = statement_nodes(final.store)
    found = {}
    for c in claims:
        s, p, m = c.item.fact.triple
        mi = index.id(m)
        if mi is None:
            continue
        nodes, preds = index.out(mi)
        options = []
        for x, q in sorted({(index.entities[x], index.predicates[q]) for x, q in zip(nodes.tolist(), preds.tolist())}):
            if q in functional and q != p and x not in (s, m) and x not in stated and final.has((m, q, x)):
                got, evidence = label(final, functional, s, p, q, x)
                if got == c.label:
                    options.append(((m, q, x), got, evidence))
        if options:
            found[c.item.id] = options[keyed_index(seed, "hop", s, p, len(options))]
    return found


def choose(claims, share: float, found: dict, key: bytes) -> set[str]:
    """The ids of the plain claims to say as paths: as many of each label in each predicate."""
    return choose_plain(claims, share, key, "multi-hop", lambda c: c.item.id in found)



def candidates(claims, found: dict) -> dict[str, dict[str, dict[str, int]]]:
    """By predicate and label: the plain claims, and those with a 2-hop path in R that keeps their
    label (``hops``), which ``choose`` takes as many of for each label."""
    counts: dict[str, dict[str, dict[str, int]]] = {}
    for c, kind in claims:
        if kind == "one-hop":
            row = counts.setdefault(c.item.fact.p, {}).setdefault(c.label, {"plain": 0, "with_path": 0})
            row["plain"] += 1
            row["with_path"] += c.item.id in found
    return counts


def none_made(counts: dict | None, per_label: int) -> dict:
    """The manifest's word on the candidates, and why no multi-hop claim was made when none was: a
    label of a predicate none of whose claims has a path (FactBench's R has no second hops; a path
    through a predicate that is not functional is never REFUTES)."""
    if counts is None:
        return {}
    said: dict = {"candidates": counts}
    if not per_label:
        lacking = [f"{label} in {p} (0 of {row['plain']})" for p, rows in sorted(counts.items())
                   for label, row in rows.items() if row["plain"] and not row["with_path"]]
        plain = sum(row["plain"] for rows in counts.values() for row in rows.values())
        if not any(row["with_path"] for rows in counts.values() for row in rows.values()):
            said["none_made"] = (f"none of the {plain} plain claims has a 2-hop path in R that keeps its label "
                                 f"(R links none of their objects on through a functional predicate)")
            return said
        said["none_made"] = ("the share of the smallest label's claims with a path rounds to none in every predicate"
                             if not lacking else
                             "as many of each label are taken in a predicate, and no claim of " + ", ".join(lacking)
                             + " has a 2-hop path in R that keeps its label (R refutes a path only when both of "
                               "its predicates are functional and R gives the subject one middle)")
    return said
