"""The part of R the ``around`` dump holds: what each claim's said fields single out, whatever its label.

A claim says a subject, a predicate, an object (a multi-hop claim: a second hop's predicate and
object, its middle unsaid), dates when it is temporal. From those alone, and R:

* every entity link of R with a claim's subject at either end (a conjunction's companion and a
  functional predicate's other objects are among them);
* where the schema has disjoint classes: the rdf:type triples of the subjects and the said objects,
  the rdfs:domain/range triples of the claims' predicates, and the class hierarchy above all those
  classes with the owl:disjointWith triples between its classes;
* for a multi-hop claim s -p-> ? -q-> o: the q-links of every p-object R gives s;
* for a temporal claim: the date statements R holds of its triple, whole.

Evidence is looked for in that part, never added to it: a line there only because a claim has
evidence would be there only for SUPPORTS and REFUTES claims, and tell them from NOT ENOUGH INFO
ones without any checking. The hidden middle of a multi-hop claim is not typed: its types would
name it even where R has no first hop to it.
"""
from __future__ import annotations

from .contradictions import DISJOINT, DOMAIN, RANGE, RDF_TYPE, SUBCLASS, ReferenceView

Triple = tuple[str, str, str]


def around_triples(final: ReferenceView, claims, spans: dict) -> set[Triple]:
    """R around ``claims`` (``build.Claim``); ``spans``: by claim id, the KB's date statements of a
    temporal claim's triple (``temporal.Span``)."""
    facts = [c.base.item.fact for c in claims]
    subjects = {f.s for f in facts}
    triples = _links_of(final, subjects)
    said = {c.path[2] if c.path else c.base.item.fact.o for c in claims}
    triples |= _schema_part(final, subjects | said, {f.p for f in facts})
    # R is the KB less these: a date statement's node and literals are no entity link to look up
    removed = set(final.reference.removed) if any(c.kind == "temporal" for c in claims) else set()
    for c in claims:
        fact = c.base.item.fact
        if c.path:
            q = c.path[1]
            triples.update((m, q, x) for m in final.objects(fact.s, fact.p) for x in final.objects(m, q))
        if c.kind == "temporal":
            triples.update(t for span in spans.get(c.base.item.id, []) for t in span.evidence if t not in removed)
    return triples


def _links_of(final: ReferenceView, entities) -> set[Triple]:
    """Every entity link of R with one of ``entities`` at either end."""
    index, reference = final.adjacency, final.reference
    found = set()
    for entity in sorted(entities):
        node = index.id(entity)
        if node is None:
            continue
        for (nodes, preds), forward in ((index.out(node), True), (index.inbound(node), False)):
            for other, p in zip(nodes.tolist(), preds.tolist()):
                x, q = index.entities[other], index.predicates[p]
                triple = (entity, q, x) if forward else (x, q, entity)
                if reference.has(triple):
                    found.add(triple)
    return found


def _schema_part(final: ReferenceView, typed, predicates) -> set[Triple]:
    """The types of ``typed``, the domains and ranges of ``predicates`` and the hierarchy above them
    (none when the schema has no disjoint classes: then nothing is refuted by a type)."""
    schema = final.schema
    if not schema.disjoint:
        return set()
    final.load_types(typed)
    found = {(e, RDF_TYPE, cls) for e in typed for cls in final.types(e)}
    for p in predicates:
        found.update((p, DOMAIN, cls) for cls in schema.domain.get(p, []))
        found.update((p, RANGE, cls) for cls in schema.range.get(p, []))
    classes = {cls for _, _, cls in found}
    classes = {above for cls in classes for above in schema.ancestors(cls)}
    found.update((cls, SUBCLASS, parent) for cls in classes for parent in schema.parents.get(cls, []))
    found.update((a, DISJOINT, b) for a, b in schema.disjoint if a in classes and b in classes)
    return found
