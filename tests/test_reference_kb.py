"""R is one object (``generators.reference_kb.ReferenceKB``) whoever reads it: the reference.nt a
scenario writes, the PyKEEN reference.tsv, the checkers' links derived again from the written files
and the claims' evidence dump hold the same triples; and R's N-Triples, cut from the KB's sorted
dump cached once per KB, are byte for byte the sorted distinct lines of the store minus the
removed triples, with line numbers that are R's own."""
from __future__ import annotations

import io

import pytest
from pyoxigraph import Literal, NamedNode

from conftest import store_from_text
from factforge.claims.reference_dump import write_dump
from factforge.evaluation.labelled import read_scenario
from factforge.evaluation.reference_graph import scenario_reference
from factforge.generators.reference_kb import ReferenceKB
from factforge.generators.restatements import term_key
from factforge.generators.scenario import generate
from factforge.generators.spec import ScenarioSpec
from factforge.publish.scenario_files import write_scenario
from factforge.sparql.adjacency import adjacency as load_adjacency
from factforge.sparql.cache import StatsCache
from factforge.sparql.loading import load_files
from factforge.sparql.sorted_dump import TEXT
from factforge.sparql.store import open_store

from test_reference_statements import AWARD, factbench_awards, statement_nodes  # noqa: F401 (a fixture)


def sorted_lines(store, removed) -> bytes:
    """R's dump by its definition: every distinct triple of the store but the removed, as N-Triples
    lines in code point order."""
    drop = set(removed)
    lines = {f"{s} {p} {o} .\n" for s, p, o in store.triples() if (s.value, p.value, term_key(o)) not in drop}
    return "".join(sorted(lines)).encode("utf-8")


def test_writers_checkers_and_claims_see_the_same_r(factbench_awards, tmp_path):
    store = factbench_awards
    scenario = generate(store, ScenarioSpec(predicate=AWARD, size=20, train_size=20, transparency=0.5,
                                            ambiguous="random_walk", leakage="pair", seed=3))
    nodes = {n for item in scenario.test for n in statement_nodes(store, item.fact)}
    assert nodes, "no test fact has a statement node: the test would prove nothing"
    folder = tmp_path / "out"
    write_scenario(scenario, folder, ["tsv", "pykeen"], store=store, reference_from=store)

    index = load_adjacency(store)
    fresh = open_store(None)
    load_files(fresh, [folder / "reference.nt"], progress=False)
    written = {(q.subject.value, q.predicate.value, term_key(q.object))
               for q in fresh.db.quads_for_pattern(None, None, None, None)}
    written_links = {t for t in written if t[1] in index.pindex and index.id(t[2]) is not None}
    pykeen = {tuple(line.split("\t")) for line in (folder / "pykeen" / "reference.tsv").read_text().splitlines()}
    checkers = scenario_reference(read_scenario(folder), store)
    src, pred, dst = checkers.links
    checker_links = {(index.entities[s], index.predicates[p], index.entities[o])
                     for s, p, o in zip(src.tolist(), pred.tolist(), dst.tolist())}
    assert written_links == pykeen == checker_links
    assert not {n for t in checker_links for n in (t[0], t[2])} & nodes  # the nodes went whole
    assert len(written) < store.triple_count() and len(pykeen) < index.size

    # the claims' dump of the same removals is the scenario's reference.nt, and so is R's definition
    size, lines = write_dump(ReferenceKB.of(store, scenario.removed), tmp_path / "claims.nt", [])
    assert (tmp_path / "claims.nt").read_bytes() == (folder / "reference.nt").read_bytes() \
        == sorted_lines(store, scenario.removed)
    assert size == len(written) == (folder / "reference.nt").read_bytes().count(b"\n")


EX = "http://example.org/"
KB = """@prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:b ex:p ex:c . ex:a ex:p ex:c . ex:a ex:q ex:b .
ex:a ex:born "1990-01-02"^^xsd:date . ex:a ex:name "A \\"the first\\""@en . ex:a ex:name "\u00e9t\u00e9" .
_:n ex:says ex:a . _:n ex:when "2001" .
ex:z ex:p ex:a .
"""


@pytest.fixture
def small(tmp_path):
    return store_from_text(tmp_path, "small.ttl", KB)


def lines_of(text: bytes) -> list[bytes]:
    return text.splitlines(keepends=True)


def test_r_is_the_sorted_store_minus_the_removed_with_its_own_line_numbers(small):
    blank = next(q.subject for q in small.db.quads_for_pattern(None, NamedNode(EX + "says"), None, None))
    date = str(Literal("1990-01-02", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#date")))
    removed = [(EX + "a", EX + "p", EX + "c"), (blank.value, EX + "when", '"2001"'), (EX + "x", EX + "p", EX + "y")]
    out = io.BytesIO()
    size = ReferenceKB.of(small, removed).write_ntriples(out)
    assert out.getvalue() == sorted_lines(small, removed)
    assert size == len(lines_of(out.getvalue())) == small.triple_count() - 2  # the absent triple removes nothing

    wanted = [(EX + "b", EX + "p", EX + "c"), (EX + "a", EX + "born", date), (EX + "z", EX + "p", EX + "a"),
              (EX + "a", EX + "p", EX + "c"), (EX + "x", EX + "p", EX + "y")]
    numbers = ReferenceKB.of(small, removed).line_numbers(wanted)
    assert set(numbers) == set(wanted[:3])  # a removed triple and an absent one have no line
    lines = lines_of(out.getvalue())
    for (s, p, o), number in numbers.items():
        assert lines[number] == f"<{s}> <{p}> {o if o.startswith(chr(34)) else f'<{o}>'} .\n".encode()


def test_the_kb_dump_is_cached_once_and_a_damaged_one_is_rebuilt(tmp_path):
    store = store_from_text(tmp_path, "plain.ttl", KB.split("_:n")[0])  # no blank node
    removed = [(EX + "a", EX + "q", EX + "b")]
    expected = sorted_lines(store, removed)
    cached = StatsCache(store).root / TEXT
    out = io.BytesIO()
    ReferenceKB.of(store, removed).write_ntriples(out)
    assert cached.is_file() and out.getvalue() == expected
    cached.write_bytes(cached.read_bytes()[:-10])  # cut short: no longer what its index describes
    again = io.BytesIO()
    ReferenceKB.of(store, removed).write_ntriples(again)
    assert again.getvalue() == expected and cached.read_bytes() == sorted_lines(store, ())


def test_a_kb_with_blank_nodes_gets_the_labels_of_its_own_load(tmp_path):
    """Two loads of the same file share a fingerprint but not their blank node labels: a dump cached
    by the first would give the second R with labels its store does not have."""
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    first, second = store_from_text(tmp_path / "one", "small.ttl", KB), store_from_text(tmp_path / "two", "small.ttl", KB)
    assert first.fingerprint() == second.fingerprint() and sorted_lines(first, ()) != sorted_lines(second, ())
    for store in (first, second):
        out = io.BytesIO()
        ReferenceKB.of(store, ()).write_ntriples(out)
        assert out.getvalue() == sorted_lines(store, ())
    assert not (StatsCache(first).root / TEXT).exists()


def test_r_answers_has_and_objects_as_the_kb_links_minus_the_removed(small):
    index = ReferenceKB.of(small).index
    links = {(index.entities[s], index.predicates[p], index.entities[o])
             for s, p, o in zip(index.src.tolist(), index.pred.tolist(), index.dst.tolist())}
    removed = [(EX + "a", EX + "p", EX + "c"), (EX + "x", EX + "p", EX + "y"), (EX + "a", EX + "name", '"été"')]
    reference = ReferenceKB(index, removed, store=small)
    assert (EX + "a", EX + "p", EX + "c") in links and (EX + "a", EX + "q", EX + "b") in links
    entities = sorted({e for s, _, o in links for e in (s, o)} | {EX + "x"})
    for s in entities:
        for p in index.predicates + [EX + "nothing"]:
            for o in entities:
                assert reference.has((s, p, o)) == ((s, p, o) in links and (s, p, o) not in removed), (s, p, o)
            assert reference.objects(s, p) == sorted(o for o in entities if (s, p, o) in links
                                                     and (s, p, o) not in removed)
    # holds: has of many triples in one search, in their order, unknown terms and removed links included
    every = [(s, p, o) for s in entities for p in index.predicates + [EX + "nothing"] for o in entities]
    every = every[::-1] + [(EX + "a", EX + "p", EX + "c")] * 2 + [(EX + "x", EX + "p", EX + "a")]
    assert reference.holds(every) == [reference.has(t) for t in every]
    assert True in reference.holds(every) and reference.holds([]) == []


def test_r_finds_its_links_without_the_kb_wide_lookup_tables(small):
    """R's removed links and ``holds`` find entities by bisection in the sorted entities and links by
    their codes in the out-link view: on a 10M-triple KB the entity dict (a key an entity) and the
    in-link codes each take longer to make than a claims set's lookups, so neither is made."""
    import dataclasses

    index = dataclasses.replace(ReferenceKB.of(small).index)  # fresh: nothing made on it yet
    reference = ReferenceKB(index, [(EX + "a", EX + "p", EX + "c"), (EX + "x", EX + "p", EX + "y")], store=small)
    asked = [(EX + "a", EX + "p", EX + "c"), (EX + "a", EX + "q", EX + "b"), (EX + "x", EX + "p", EX + "a"),
             (EX + "a", EX + "nothing", EX + "b")]
    assert reference.holds(asked) == [False, True, False, False]
    assert int(reference.keep.sum()) == index.size - 1
    assert "index" not in index.__dict__ and "in_codes" not in index.__dict__
