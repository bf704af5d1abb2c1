"""R for what ``evaluate`` and ``audit`` read (``input_reference``): the KB's whole index, or, through
an endpoint, the neighbourhoods of the facts being scored, fetched instead of copying its KB.

A checker reads R only near the facts it scores (``Checker.reads``): the degree and direct-link
baselines read the links of each fact's subject and object, path features of length 3 also the
links of the subject's neighbours (a path s -> x -> z -> o meets o's links at z). Through an
endpoint R is therefore built over the KB's neighbourhood index (``sparql.neighbourhood``) holding
exactly those entities, each fetched whole (a VALUES batch of entities a query), so a checker
computes over it what it computes over the whole index. A scenario's removed triples are derived
over the same index: they lie between a test fact's ends, whose links are fetched first; any other
link the derivation reads is noted missing, fetched, and the derivation runs again.

Checkers that read every link of R (Knowledge Linker's cheapest paths, TransE's embeddings) cannot
run on it (``Checker.fit`` says so): they need the KB copied first (``--endpoint-copy``).
"""
from __future__ import annotations

from pyoxigraph import NamedNode

from factforge.generators.writers import records
from factforge.sparql.neighbourhood import Neighbourhood, NeighbourhoodReader
from factforge.sparql.store import Store

from .reference_graph import Reference, scenario_predicate, scenario_reference


def input_reference(files, store: Store, reads: tuple[int, int] = (1, 1)) -> Reference:
    """R for what ``labelled.read_input`` read: a scenario's R, or the whole KB for a FactBench folder
    or a labelled file (which say nothing of removed triples; checkers still take out the facts they score).
    Through an endpoint, only the neighbourhoods of the facts' ends that ``reads`` hops reach
    (``Checker.reads``; below), unless the store copies the KB."""
    if not store.whole_index:
        return reference_around(files, store, reads)
    return scenario_reference(files, store) if files.kind == "scenario" else Reference.of(store)


def reference_around(files, store: Store, reads: tuple[int, int]) -> Reference:
    """R of ``files`` (``labelled.ScenarioFiles``) over the neighbourhoods ``reads`` hops around the
    subjects and objects of its records."""
    scenario = files.kind == "scenario"
    reader = reader_around(store, scenario_predicate(files) if scenario else None, files.records, reads)
    while True:
        index = reader.index()
        reference = scenario_reference(files, store, index) if scenario else Reference(index, store=store)
        if not index.lacks_links:
            return reference
        reader.fetch(index)


def made_reference(store: Store, scenario, reads: tuple[int, int]) -> Reference:
    """R of a scenario made in this process (``grid``), whose removed triples are known: the KB's
    whole index minus them, or through an endpoint the neighbourhoods ``reads`` hops around its
    facts' subjects and objects minus them, starting from what generating it fetched."""
    if store.whole_index:
        return Reference.of(store, scenario.removed)
    index = scenario.index if isinstance(scenario.index, Neighbourhood) else None
    reader = reader_around(store, scenario.spec.predicate, records(scenario, "all"), reads, fetched=index)
    return Reference(reader.index(), scenario.removed, store=store)


def reader_around(store: Store, predicate: str | None, facts, reads: tuple[int, int], *,
                  fetched: Neighbourhood | None = None) -> NeighbourhoodReader:
    """A reader holding the links ``reads`` hops around the subjects and objects of ``facts`` (records)."""
    reader = NeighbourhoodReader(store, predicate, degrees=False, fetched=fetched)
    for side, hops in zip(("subject", "object"), reads):
        fetch_around(reader, {r[side] for r in facts}, hops)
    return reader


def reads_of(models) -> tuple[int, int]:
    """How far around the subject and the object the checkers ``models`` read R, together."""
    return tuple(max(hops) for hops in zip((0, 0), *(m.reads for m in models if m.reads is not None)))


def fetch_around(reader: NeighbourhoodReader, entities, hops: int) -> None:
    """The links of ``entities`` (literals and other values that name no IRI are passed over) and, for
    each further hop, of their neighbours."""
    frontier = {e for e in entities if _names_iri(e)}
    for hop in range(hops):
        reader.fetch_links(frontier)
        if hop + 1 == hops:
            return
        index = reader.index()
        nodes = [i for i in map(index.id, sorted(frontier)) if i is not None]
        frontier = {index.entities[n] for node in nodes for n in index.steps(node)[0].tolist()}


def _names_iri(value) -> bool:
    try:
        NamedNode(value)
    except (TypeError, ValueError):
        return False
    return True
