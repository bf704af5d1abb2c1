"""When R contradicts a fact: another object of a functional predicate, or a type disjoint with
the predicate's domain or range (``owl:disjointWith``, through ``rdfs:subClassOf``).

A predicate is functional when the KB declares it ``owl:FunctionalProperty`` or when it is
observed so: at least ``OBSERVED_FUNCTIONAL`` of its subjects have exactly one object. The
manifest says which, per predicate. Each contradiction is one evidence set: the triples of R that,
together with the fact, are inconsistent.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from factforge.sparql.adjacency import Adjacency
from factforge.sparql.neighbourhood import NeighbourhoodReader
from factforge.sparql.profiles import entity_types
from factforge.sparql.store import Store
from factforge.sparql.terms import PREFIXES, iri, is_schema_predicate

from factforge.evaluation.reference_input import fetch_around
from factforge.generators.facts import Fact
from factforge.generators.reference_kb import ReferenceKB, kept_links

OBSERVED_FUNCTIONAL = 0.95
RDF_TYPE = PREFIXES["rdf"] + "type"
SUBCLASS = PREFIXES["rdfs"] + "subClassOf"
DOMAIN, RANGE = PREFIXES["rdfs"] + "domain", PREFIXES["rdfs"] + "range"
DISJOINT = PREFIXES["owl"] + "disjointWith"

Triple = tuple[str, str, str]


@dataclass
class Schema:
    functional: dict[str, dict] = field(default_factory=dict)  # predicate -> {"source": ..., "share": ...}
    disjoint: set[tuple[str, str]] = field(default_factory=set)  # as declared (a disjointWith b)
    domain: dict[str, list[str]] = field(default_factory=dict)
    range: dict[str, list[str]] = field(default_factory=dict)
    parents: dict[str, list[str]] = field(default_factory=dict)

    def chain(self, start: str, goal: str) -> list[Triple] | None:
        """The rdfs:subClassOf triples from ``start`` up to ``goal`` (empty when equal), or None."""
        back: dict[str, tuple[str, str] | None] = {start: None}
        queue = deque([start])
        while queue:
            node = queue.popleft()
            if node == goal:
                path = []
                while back[node] is not None:
                    child, _ = back[node]
                    path.append((child, SUBCLASS, node))
                    node = child
                return path[::-1]
            for parent in self.parents.get(node, []):
                if parent not in back:
                    back[parent] = (node, parent)
                    queue.append(parent)
        return None

    def ancestors(self, cls: str) -> list[str]:
        seen, queue = [cls], deque([cls])
        while queue:
            for parent in self.parents.get(queue.popleft(), []):
                if parent not in seen:
                    seen.append(parent)
                    queue.append(parent)
        return seen


def load_schema(store: Store, adjacency: Adjacency | None, predicates) -> Schema:
    """``adjacency``: the KB's whole index, or None to have each predicate's functionality counted
    in the store (``counted_functionality``: an endpoint's KB, which is not copied)."""
    schema = Schema()
    declared = set()
    for kind, a, b in _schema_rows(store):
        if kind == "functional":
            declared.add(a)
        elif kind == "disjoint":
            schema.disjoint.add((a, b))
        elif kind in ("domain", "range"):
            getattr(schema, kind).setdefault(a, []).append(b)
        elif kind == "subclass" and a != b:
            schema.parents.setdefault(a, []).append(b)
    for values in (*schema.domain.values(), *schema.range.values(), *schema.parents.values()):
        values.sort()
    for predicate in sorted(set(predicates)):
        share = observed_functionality(adjacency, predicate) if adjacency is not None else \
            counted_functionality(store, predicate)
        if predicate in declared:
            schema.functional[predicate] = {"source": "declared owl:FunctionalProperty", "share_single_object": share}
        elif share is not None and share >= OBSERVED_FUNCTIONAL:
            schema.functional[predicate] = {"source": f"observed (at least {OBSERVED_FUNCTIONAL:g} of subjects have "
                                                      f"one object)", "share_single_object": share}
    return schema


def _schema_rows(store: Store) -> list[tuple[str, str, str | None]]:
    """``claim_schema``'s (kind, a, b) rows, kept for the last KB read: claims through an endpoint
    load the schema once a run and run again until nothing was missing, and the schema is ontology-sized."""
    key = store.fingerprint()
    rows = _SCHEMA_ROWS.get(key)
    if rows is None:  # a server's threads may race here: each then reads the same rows
        rows = [(row["kind"].value, row["a"].value, row["b"].value if "b" in row else None)
                for row in store.select("claim_schema")]
        _SCHEMA_ROWS.clear()
        _SCHEMA_ROWS[key] = rows
    return rows


_SCHEMA_ROWS: dict[str, list] = {}
_COUNTED: dict[str, dict[str, float | None]] = {}


def observed_functionality(adjacency: Adjacency, predicate: str) -> float | None:
    """The share of the predicate's subjects that have exactly one object (None: no fact)."""
    pid = adjacency.pindex.get(predicate)
    if pid is None:
        return None
    subjects = adjacency.src[adjacency.pred == pid]
    if not subjects.size:
        return None
    _, counts = np.unique(subjects, return_counts=True)
    return round(float((counts == 1).mean()), 4)


def counted_functionality(store: Store, predicate: str) -> float | None:
    """``observed_functionality`` as an aggregate the store computes over all the predicate's facts
    (``predicate_functionality``): one row, whatever the KB's size."""
    if is_schema_predicate(predicate):  # the whole index holds no schema links either
        return None
    key = store.fingerprint()
    known = _COUNTED.get(key)
    if known is None:  # one KB's counts at a time, as the schema rows
        known = {}
        _COUNTED.clear()
        _COUNTED[key] = known
    if predicate not in known:
        known[predicate] = _counted(store, predicate)
    return known[predicate]


def _counted(store: Store, predicate: str) -> float | None:
    row = next(iter(store.select("predicate_functionality", predicate=iri(predicate))), None)
    subjects = int(row["subjects"].value) if row is not None and "subjects" in row else 0
    if not subjects:
        return None
    return round(int(row["single"].value) / subjects, 4)


def view_around(store: Store, schema: Schema, facts, removed=()) -> "ReferenceView":
    """R as the contradictions of ``facts`` read it, from an endpoint without copying its KB: every
    link of the facts' subjects (a VALUES batch of entities a query), minus ``removed``: a
    functional predicate's other objects are the subject's links. Disjoint types are read by
    entity (``entity_types``, VALUES batches) as over the whole KB. Only ``contradictions`` reads
    this view: other lookups of R may find entities not fetched (noted in ``adjacency.missing``)."""
    reader = NeighbourhoodReader(store, None, degrees=False)
    fetch_around(reader, {fact.s for fact in facts}, 1)
    return ReferenceView(store, reader.index(), schema, removed)


class ReferenceView:
    """R as the claims see it: the one reference KB object (``ReferenceKB``, the KB's links minus
    ``removed``), with the schema and entity types."""

    def __init__(self, store: Store, adjacency: Adjacency, schema: Schema, removed=(), *, reference=None):
        self.store, self.adjacency, self.schema = store, adjacency, schema
        self.reference = reference if reference is not None else ReferenceKB(adjacency, removed, store=store)
        self._types: dict[str, list[str]] = {}

    def without(self, removed) -> "ReferenceView":
        removed = set(removed)
        r = self.reference
        more = ReferenceKB(self.adjacency, {*r.removed, *removed}, store=self.store,
                           keep=r.keep & kept_links(self.adjacency, removed))
        view = ReferenceView(self.store, self.adjacency, self.schema, reference=more)
        view._types = self._types
        return view

    def has(self, triple: Triple) -> bool:
        return self.reference.has(triple)

    def holds(self, triples: list[Triple]) -> list[bool]:
        return self.reference.holds(triples)

    def objects(self, subject: str, predicate: str) -> list[str]:
        return self.reference.objects(subject, predicate)

    def load_types(self, entities) -> None:
        wanted = sorted(set(entities) - set(self._types))
        if wanted and self.schema.disjoint:
            found = entity_types(self.store, wanted)
            for entity in wanted:
                self._types[entity] = found.get(entity, [])

    def types(self, entity: str) -> list[str]:
        """The entity's classes as loaded for disjointness (none when the schema has no disjoint classes)."""
        return self._types.get(entity, [])

    def contradictions(self, fact: Fact) -> list[list[Triple]]:
        """Every evidence set of R against the fact, in a fixed order."""
        sets: list[list[Triple]] = []
        if fact.p in self.schema.functional:
            sets += [[(fact.s, fact.p, other)] for other in self.objects(fact.s, fact.p) if other != fact.o]
        if self.schema.disjoint:
            sets += self._disjoint(fact.o, fact.p, RANGE, self.schema.range)
            sets += self._disjoint(fact.s, fact.p, DOMAIN, self.schema.domain)
        return sets

    def _disjoint(self, entity: str, predicate: str, relation: str, declared: dict[str, list[str]]) -> list[list[Triple]]:
        self.load_types([entity])
        sets = []
        for expected in declared.get(predicate, []):
            wanted = self.schema.ancestors(expected)
            for cls in self._types.get(entity, []):
                for x in self.schema.ancestors(cls):
                    for y in wanted:
                        pair = (x, y) if (x, y) in self.schema.disjoint else (y, x) if (y, x) in self.schema.disjoint else None
                        if pair is None:
                            continue
                        sets.append([(entity, RDF_TYPE, cls), *self.schema.chain(cls, x), (predicate, relation, expected),
                                     *self.schema.chain(expected, y), (pair[0], DISJOINT, pair[1])])
                        break
                    else:
                        continue
                    break
        return sets
