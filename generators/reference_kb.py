"""The reference KB R as one object: the KB minus the triples removed around the test facts.

What a leakage level removes is ``leakage``'s; this is R itself, the one object every reader of R
takes: the scenario writers (``reference.nt``), the PyKEEN layout (``reference.tsv``), the
checkers (``evaluation.reference_graph.Reference`` adds their arrays to it) and the claims'
evidence dump. R is never written into the store; it is the KB and the sorted list of removed
triples, seen two ways:

* as entity links (``keep``, ``links``): the KB's adjacency index with a mask over its links, what
  the checkers and the PyKEEN layout read;
* as N-Triples (``write_ntriples``, ``line_numbers``): the KB's sorted dump (``sparql.sorted_dump``,
  written once per KB) without the removed triples' lines, one distinct triple a line in code
  point order.

A removed triple is (subject, predicate, object) strings, an IRI or blank node by its value, a
literal in N-Triples form (``restatements.term_key``).
"""
from __future__ import annotations

from functools import cached_property, partial
from typing import IO, Iterable

import numpy as np
from pyoxigraph import BlankNode, NamedNode

from factforge.sparql.adjacency import Adjacency
from factforge.sparql.adjacency import adjacency as load_adjacency
from factforge.sparql.sorted_dump import sorted_dump
from factforge.sparql.store import Store

from . import positives
from .facts import Fact
from .leakage import removed_triples
from .restatements import restatements

Triple = tuple[str, str, str]


class ReferenceKB:
    """R: ``index`` (the KB's adjacency index; read from ``store`` when None) minus ``removed``.
    ``keep`` is the link mask when the caller has it already."""

    def __init__(self, index: Adjacency | None, removed: Iterable[Triple] = (), *, store: Store | None = None,
                 keep: np.ndarray | None = None):
        if index is None and store is None:
            raise ValueError("a reference KB needs the KB: its adjacency index or its store")
        if index is not None:
            self.index = index
        self.store = store
        self.removed = sorted(set(removed))
        if keep is not None:
            self.keep = keep

    @classmethod
    def of(cls, store: Store, removed: Iterable[Triple] = ()):
        return cls(None, removed, store=store)

    @classmethod
    def around(cls, store: Store, test_facts: Iterable[Fact], level: str, predicate: str | None = None, *,
               index: Adjacency | None = None, kb_pairs=None):
        """R of a scenario: the KB minus what ``level`` removes around every test fact, true or false.
        ``predicate`` is the scenario's (default: the first fact's)."""
        facts = list(test_facts)
        index = index if index is not None else load_adjacency(store)
        predicate = predicate or (facts[0].p if facts else None)
        if facts and kb_pairs is None:
            kb_pairs = positives.kb_pairs(store, predicate)
        return cls(index, removed_triples(store, index, facts, level, kb_pairs, predicate) if facts else (),
                   store=store)

    def without(self, triples: Iterable[Triple]):
        """R minus more triples (those absent from the KB are ignored), and minus the statement
        nodes that state them again: a true train fact's node would be its own evidence."""
        triples = set(triples)
        if self.store is not None:
            triples |= restatements(self.store, triples)
        extra = kept_links(self.index, triples)
        if extra.all():
            return self
        return type(self)(self.index, self.removed, store=self.store, keep=self.keep & extra)

    # --- as entity links ----------------------------------------------------------------------
    @cached_property
    def index(self) -> Adjacency:
        return load_adjacency(self.store)

    @cached_property
    def keep(self) -> np.ndarray:
        """By link of the adjacency index: is it in R?"""
        return kept_links(self.index, self.removed)

    @cached_property
    def links(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(src, pred, dst) of every link in R, in the index's (src, pred, dst) order."""
        return self.index.src[self.keep], self.index.pred[self.keep], self.index.dst[self.keep]

    def has(self, triple: Triple) -> bool:
        """Does R hold this entity link?"""
        link = self.index.link(*triple)
        return link is not None and bool(self.keep[link])

    def holds(self, triples: list[Triple]) -> list[bool]:
        """``has`` of each of ``triples``, in one binary search over the links for all of them."""
        codes, known = _codes(self.index, triples)
        held = np.zeros(len(triples), dtype=bool)
        if codes.size:
            links = _link_codes(self.index)
            at = np.searchsorted(links, codes, "left")
            inside = at < links.size
            found = np.zeros(codes.size, dtype=bool)
            found[inside] = links[at[inside]] == codes[inside]
            found[found] = self.keep[at[found]]
            held[known] = found
        return held.tolist()

    def objects(self, subject: str, predicate: str) -> list[str]:
        """The objects R gives ``subject`` by ``predicate`` (entity links), sorted."""
        index = self.index
        si, pi = index.id(subject), index.pindex.get(predicate)
        if si is None or pi is None:
            return []
        lo, hi = index.out_run(si, pi)
        found = index.dst[lo:hi][self.keep[lo:hi]]
        return sorted(index.entities[n] for n in found.tolist())

    # --- as N-Triples -------------------------------------------------------------------------
    def write_ntriples(self, out: IO[bytes]) -> int:
        """Write R as N-Triples, one line a distinct triple, sorted (reproducible bytes); returns its size."""
        return self._dump.write_without(self._removed_lines, out)

    def write_removed(self, out: IO[bytes]) -> int:
        """Write what R lacks of the KB: the removed triples as N-Triples, one a line, sorted as
        ``write_ntriples`` sorts; returns how many."""
        lines = sorted({ntriples_line(triple) for triple in self.removed})
        out.write(b"".join(lines))
        return len(lines)

    def line_numbers(self, triples: Iterable[Triple]) -> dict[Triple, int]:
        """The 0-based line of each of ``triples`` (subject and predicate IRIs) in ``write_ntriples``'s
        output, for those R holds."""
        by_line = {ntriples_line(triple): triple for triple in set(triples)}
        found = self._dump.find(by_line)
        lines = sorted(found)
        numbers = np.array([found[line] for line in lines], dtype=np.int64)
        gone = np.isin(numbers, self._removed_lines)
        # a line's number in R: its number in the KB's dump less the removed lines before it
        numbers -= np.searchsorted(self._removed_lines, numbers)
        return {by_line[line]: n for line, n, g in zip(lines, numbers.tolist(), gone.tolist()) if not g}

    @cached_property
    def _dump(self):
        if self.store is None:
            raise ValueError("R as N-Triples needs the store, not only its adjacency index")
        return sorted_dump(self.store)

    @cached_property
    def _removed_lines(self) -> np.ndarray:
        """The KB dump's lines of the removed triples, sorted. A removed triple's subject or object
        value may name an IRI or a blank node: both lines go, as a value of either would."""
        candidates = {line for triple in self.removed for line in _lines(triple)}
        return np.unique(np.array(list(self._dump.find(candidates).values()), dtype=np.int64))


def kept_links(index: Adjacency, triples: Iterable[Triple]) -> np.ndarray:
    """By link of the adjacency index: is it outside ``triples`` (triples absent from the index
    are ignored)?"""
    keep = np.ones(index.size, dtype=bool)
    codes, _ = _codes(index, list(triples))
    if codes.size:
        # The links are sorted by (src, pred, dst), so their codes are too: each removed triple's
        # links are found by binary search, not by a pass over all.
        link_codes = _link_codes(index)
        lo, hi = np.searchsorted(link_codes, codes, "left"), np.searchsorted(link_codes, codes, "right")
        for a, b in zip(lo.tolist(), hi.tolist()):
            keep[a:b] = False
    return keep


def _codes(index: Adjacency, triples: list[Triple]) -> tuple[np.ndarray, np.ndarray]:
    """(one int64 code per triple whose terms the index has, which of ``triples`` those are).
    (src, pred, dst) fits for any KB below ~3 million entities x 1000 predicates x 3 million entities."""
    n, m = len(index.entities), max(len(index.predicates), 1)
    predicates = index.pindex
    # by bisection in the sorted entities, unless the entity dict is made already: making it (a key
    # an entity) takes longer on a large KB than a claims set's lookups; the base class's ``id``, as
    # a neighbourhood's notes what it lacks, which this lookup is not a read of
    made = index.__dict__.get("index")
    entity = made.get if made is not None else partial(Adjacency.id, index)
    codes, known = [], np.zeros(len(triples), dtype=bool)
    for k, (s, p, o) in enumerate(triples):
        si, pi, oi = entity(s), predicates.get(p), entity(o)
        if si is not None and pi is not None and oi is not None:
            codes.append((si * m + pi) * n + oi)
            known[k] = True
    return np.array(codes, dtype=np.int64), known


def _link_codes(index: Adjacency) -> np.ndarray:
    """``_codes`` of every link of the index, sorted as the links are."""
    n, m = len(index.entities), max(len(index.predicates), 1)
    return index.out_codes if index.out_codes is not None else \
        (index.src.astype(np.int64) * m + index.pred) * n + index.dst


def ntriples_line(triple: Triple) -> bytes:
    """A triple's N-Triples line, subject and predicate IRIs; a literal object is held in its N-Triples form."""
    s, p, o = triple
    obj = o if o.startswith('"') else NamedNode(o)
    return f"{NamedNode(s)} {NamedNode(p)} {obj} .\n".encode("utf-8")


def _lines(triple: Triple) -> list[bytes]:
    """Every line a removed triple may be in the dump: subject and object as an IRI or a blank node."""
    s, p, o = triple
    predicate = str(NamedNode(p))
    subjects = _nodes(s)
    objects = [o] if o.startswith('"') else _nodes(o)
    return [f"{a} {predicate} {b} .\n".encode("utf-8") for a in subjects for b in objects]


def _nodes(value: str) -> list[str]:
    found = []
    for kind in (NamedNode, BlankNode):
        try:
            found.append(str(kind(value)))
        except ValueError:
            pass
    return found
