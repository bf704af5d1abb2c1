"""Temporal claims: a dated fact said with its dates, labelled by the dates R gives the same triple.

- SUPPORTS: R holds the triple with a date statement whose span is the claim's (the same dates).
- REFUTES: R holds the triple and every span it gives it is disjoint from the claim's even when both
  are said by year, so whatever granularity the claim is said at (a FactBench date corruption whose
  years do not meet the true ones). Corruptions whose span overlaps R's are not used: R neither
  entails nor contradicts them in a way a reader could check.
- NOT ENOUGH INFO: R lacks the triple (a true fact taken out of R, or a false fact R does not
  contradict), so it says nothing about the dates.

Evidence: the triple, the triples that tie its statement node to it, and the node's date triples
(their literal objects written as in N-Triples, which is how the dump's lines hold them). As for
negation and conjunction, as many temporal claims are made of each label within each predicate.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from pyoxigraph import NamedNode

from factforge.sparql.profiles import batched
from factforge.sparql.terms import PREFIXES, iri

from .dates import _ISO
from .labelling import LABELS, NEI, REFUTES, SUPPORTS, Labelled, fact_fields, per_label_per_predicate

Triple = tuple[str, str, str]
RDF = PREFIXES["rdf"]


@dataclass(frozen=True)
class Span:
    start: str
    end: str | None
    evidence: tuple[Triple, ...]  # what ties the statement node to the fact, and its date triples

    @property
    def years(self) -> tuple[int, int]:
        return _year(self.start), _year(self.end or self.start)


def _year(value: str) -> int:
    return int(_ISO.match(value).group(1))


def date_statements(store, triples) -> dict[Triple, list[Span]]:
    """The spans the KB gives each triple, from its statement nodes (IRIs only: a dump line needs one)."""
    found: dict[Triple, set[Span]] = defaultdict(set)
    for batch in batched(sorted(set(triples))):
        rows = [tuple(iri(x) for x in triple) for triple in batch]
        for row in store.select("claim_date_statements", facts=rows):
            st = row["st"]
            if not isinstance(st, NamedNode) or _ISO.match(row["start"].value) is None:
                continue
            s, p, o, node = row["s"].value, row["p"].value, row["o"].value, st.value
            end = row["end"] if "end" in row else None
            if end is not None and _ISO.match(end.value) is None:
                end = None
            if row["shape"].value == "statement":
                tie = [(node, RDF + "subject", s), (node, RDF + "predicate", p), (node, RDF + "object", o)]
            else:
                tie = [(s, row["link"].value, node), (node, p, o)]
            dated = [(node, row["sp"].value, str(row["start"]))]
            if end is not None:
                dated.append((node, row["ep"].value, str(end)))
            found[(s, p, o)].add(Span(row["start"].value, end.value if end is not None else None, tuple(tie + dated)))
    return {t: sorted(spans, key=lambda x: (x.start, x.end or "", x.evidence)) for t, spans in found.items()}


def matches(fact, span: Span) -> bool:
    return fact.start == span.start and (fact.end or fact.start) == (span.end or span.start)


def disjoint(fact, span: Span) -> bool:
    first, last = _year(fact.start), _year(fact.end or fact.start)
    low, high = span.years
    return last < low or high < first


def label(reference, fact, spans: list[Span]) -> tuple[str, list[list[Triple]]]:
    """(label, evidence sets) of a dated fact against R: ``spans`` are the KB's for its triple."""
    if not reference.has(fact.triple):
        return NEI, []
    matching = [s for s in spans if matches(fact, s)]
    if matching:
        return SUPPORTS, [[fact.triple, *s.evidence] for s in matching]
    if spans and all(disjoint(fact, s) for s in spans):
        return REFUTES, [[fact.triple, *(t for s in spans for t in s.evidence)]]
    return "neither: R holds the triple with other, overlapping dates", []


def choose(planned: list[Labelled], eligible: list[Labelled], corruptions: list[Labelled], share: float,
           key: bytes) -> dict[str, list[Labelled]]:
    """The temporal claims, by label: within each predicate m of each, m the share of the smallest
    label's count among its ``planned`` claims (or as many as the pools give). ``eligible``: planned
    SUPPORTS and NEI claims of dated facts, labelled as temporal claims (SUPPORTS ones with R's matching dates as evidence);
    the REFUTES ones are date corruptions (``corruptions``, labelled against R), which take the
    place of as many planned REFUTES claims."""
    if not share:
        return {label: [] for label in LABELS}
    pools = defaultdict(list, {REFUTES: list(corruptions)})
    for c in eligible:
        pools[c.label].append(c)
    return per_label_per_predicate(planned, pools, share, key, "temporal", rank=lambda c: fact_fields(c.item.fact))
