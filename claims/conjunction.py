"""Conjunctions: a claim's fact and, joined by "and", another fact of its subject that R holds.

The companion (s, q, x) is a link of the subject in R through another predicate, to an entity no
input fact of that subject points at (so what leaves R around the claims' facts never takes it),
never to a statement node (FactBench links each subject to its models' nodes: such a link states
no fact of its own, and said as one it read "the death of X is X 1"), chosen by a keyed hash of
(subject, predicate): the same for a true and a false fact of a subject.
A conjunction with a companion R holds has its fact's label: SUPPORTS with both triples as one
evidence set, REFUTES with the fact's contradiction, NOT ENOUGH INFO otherwise. As for negation,
the same number of conjunctions is made of each label within each predicate, so "and" says nothing
about the label.
"""
from __future__ import annotations

from collections import defaultdict

from factforge.generators.restatements import statement_nodes
from factforge.sparql.terms import is_schema_predicate

from .contradictions import ReferenceView
from .keyed import keyed_index
from .labelling import choose_plain

Triple = tuple[str, str, str]


def companions(final: ReferenceView, facts, seed: int) -> dict[tuple[str, str], Triple]:
    """By (subject, predicate) of the claims' facts: the companion triple, where the subject has one."""
    index = final.adjacency
    taken = defaultdict(set)
    for fact in facts:
        taken[fact.s].add(fact.o)
    found = {}
    stated = statement_nodes(final.store)
    for s, p in sorted({(f.s, f.p) for f in facts}):
        si = index.id(s)
        if si is None:
            continue
        nodes, preds = index.out(si)
        options = sorted({(s, index.predicates[q], index.entities[x]) for x, q in zip(nodes.tolist(), preds.tolist())
                          if index.predicates[q] != p and not is_schema_predicate(index.predicates[q])
                          and index.entities[x] not in taken[s] and index.entities[x] != s
                          and index.entities[x] not in stated})
        options = [t for t in options if final.has(t)]
        if options:
            found[(s, p)] = options[keyed_index(seed, "companion", s, p, len(options))]
    return found


def choose(claims, share: float, found: dict, key: bytes) -> set[str]:
    """The ids of the plain claims (neither negated) to conjoin: as many of each label in each predicate."""
    return choose_plain(claims, share, key, "conjunction", lambda c: (c.item.fact.s, c.item.fact.p) in found)
