"""The claims' R as a sorted N-Triples dump, and the line of each evidence triple in it.

FEVER points at evidence as (page, line); here the line is a triple's 0-based index in the dump,
one distinct triple per line in code point order (``generators.reference_kb.ReferenceKB``), so
the same KB and removals give the same lines on any machine.
"""
from __future__ import annotations

from pathlib import Path

from factforge.generators.reference_kb import ReferenceKB

DUMP = "reference.sorted.nt"


def write_dump(reference: ReferenceKB, path: Path, wanted) -> tuple[int, dict]:
    """Write R; return its size and the line number of every ``wanted`` triple found in it (a
    literal object, a date statement's, is held in its N-Triples form)."""
    with open(path, "wb") as out:
        size = reference.write_ntriples(out)
    return size, reference.line_numbers(wanted)
