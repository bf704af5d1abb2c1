"""The claims' R as a sorted N-Triples dump, and the line of each evidence triple in it.

FEVER points at evidence as (page, line); here the line is a triple's 0-based index in the dump,
one distinct triple per line in code point order (``generators.reference_kb.ReferenceKB``), so
the same KB and removals give the same lines on any machine. The dump is one of two (``SCOPES``):

* ``full``: all of R, the KB less the removed triples; written from the KB's sorted dump, which
  through an endpoint means reading every triple of the KB once;
* ``around``: the part of R around the claims, which the claims alone determine: every entity link
  of R with a claim's subject at either end (for every claim, whatever its label, so what the file
  holds of an entity says nothing of its claims' labels), the rdf:type triples of the claims'
  subjects and objects where the schema has disjoint classes (the same for every label), and every
  evidence triple (schema chains, a path's second hop, date statements). Not the objects' links:
  an object is often a hub whose links would be most of the file and of what is read. It reads no
  more than the claims read, so it is the default through an endpoint; over a local store it is
  asked for by name and gives the same bytes.
"""
from __future__ import annotations

from pathlib import Path

from factforge.generators.reference_kb import ReferenceKB, ntriples_line
from factforge.sparql.terms import PREFIXES

DUMP = "reference.sorted.nt"
SCOPES = {"full": "R: the KB less the removed triples",
          "around": "R around the claims: every entity link of R with a claim's subject at either end, the "
                    "rdf:type triples of the claims' subjects and objects when the schema has disjoint classes, "
                    "and every evidence triple"}
RDF_TYPE = PREFIXES["rdf"] + "type"


def write_dump(reference: ReferenceKB, path: Path, wanted) -> tuple[int, dict]:
    """Write R; return its size and the line number of every ``wanted`` triple found in it (a
    literal object, a date statement's, is held in its N-Triples form)."""
    with open(path, "wb") as out:
        size = reference.write_ntriples(out)
    return size, reference.line_numbers(wanted)


def write_around(final, subjects, typed, wanted, path: Path) -> tuple[int, dict]:
    """Write R around the claims (``SCOPES["around"]``) from ``final`` (the claims' ``ReferenceView``,
    whose index holds every link of ``subjects``), with the types of ``typed``; return its size and
    the line of every ``wanted`` triple."""
    index, reference = final.adjacency, final.reference
    triples = set(wanted)
    triples.update((entity, RDF_TYPE, cls) for entity in typed for cls in final.types(entity))
    for entity in sorted(subjects):
        node = index.id(entity)
        if node is None:
            continue
        for (nodes, preds), forward in ((index.out(node), True), (index.inbound(node), False)):
            for other, p in zip(nodes.tolist(), preds.tolist()):
                x, q = index.entities[other], index.predicates[p]
                triple = (entity, q, x) if forward else (x, q, entity)
                if reference.has(triple):
                    triples.add(triple)
    lines = sorted((ntriples_line(t), t) for t in triples)
    with open(path, "wb") as out:
        out.write(b"".join(line for line, _ in lines))
    return len(lines), {t: n for n, (_, t) in enumerate(lines)}
