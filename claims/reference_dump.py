"""The claims' R as a sorted N-Triples dump, and the line of each evidence triple in it.

FEVER points at evidence as (page, line); here the line is a triple's 0-based index in the dump,
one distinct triple per line in code point order (``generators.reference_kb.ReferenceKB``), so
the same KB and removals give the same lines on any machine. The dump is one of two (``SCOPES``):

* ``full``: all of R, the KB less the removed triples; written from the KB's sorted dump, which
  through an endpoint means reading every triple of the KB once;
* ``around``: the part of R that the claims' said fields single out, whatever their labels
  (``around``): their subjects' links, their types and the schema above them, a multi-hop claim's
  possible second hops, a temporal claim's date statements. Evidence is looked up in it, never
  added to it. Not the objects' links: an object is often a hub whose links would be most of the
  file and of what is read. It reads no more than the claims read, so it is the default through an
  endpoint; over a local store it is asked for by name and gives the same bytes.
"""
from __future__ import annotations

from pathlib import Path

from factforge.generators.reference_kb import ReferenceKB, ntriples_line

DUMP = "reference.sorted.nt"
SCOPES = {"full": "R: the KB less the removed triples",
          "around": "R around the claims, whatever their labels: every entity link of R with a claim's subject at "
                    "either end; when the schema has disjoint classes, the rdf:type triples of the claims' subjects "
                    "and said objects, the domains and ranges of their predicates and the class hierarchy above "
                    "those classes; the second-hop links of every middle R gives a multi-hop claim's subject; "
                    "the date statements R holds of a temporal claim's triple"}


def write_dump(reference: ReferenceKB, path: Path, wanted) -> tuple[int, dict]:
    """Write R; return its size and the line number of every ``wanted`` triple found in it (a
    literal object, a date statement's, is held in its N-Triples form)."""
    with open(path, "wb") as out:
        size = reference.write_ntriples(out)
    return size, reference.line_numbers(wanted)


def write_around(triples, path: Path) -> tuple[int, dict]:
    """Write R around the claims (``SCOPES["around"]``, the ``around.around_triples`` of them); return
    its size and the line of every triple in it."""
    lines = sorted((ntriples_line(t), t) for t in triples)
    with open(path, "wb") as out:
        out.write(b"".join(line for line, _ in lines))
    return len(lines), {t: n for n, (_, t) in enumerate(lines)}
