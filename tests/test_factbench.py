"""FactBench: reading the real train split from ../shared/data/factbench and loading it."""
from __future__ import annotations

import os
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from pyoxigraph import NamedNode

from factforge.sparql.embedded import EmbeddedStore
from factforge.sparql.factbench import FactRecord, load_factbench, model_graph, read_factbench, year
from factforge.sparql.loading import LoadError

DATA = Path(os.environ.get("FACTFORGE_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
TRAIN = DATA / "factbench" / "train"
KINDS = ("domain", "range", "domainrange", "property", "random", "date")
DEFACTO_LINK = "http://defacto.aksw.org/bnode/property"
ISO = re.compile(r"^\d{4}(-\d\d(-\d\d)?)?$")

needs_data = pytest.mark.skipif(not TRAIN.is_dir(), reason="../shared/data/factbench/train not present")


def count_files(pattern: str) -> int:
    return sum(1 for _ in TRAIN.glob(pattern))


@pytest.fixture(scope="module")
def records() -> list[FactRecord]:
    if not TRAIN.is_dir():
        pytest.skip("../shared/data/factbench/train not present")
    return read_factbench(TRAIN)


@pytest.fixture(scope="module")
def loaded(factbench_kb):
    return factbench_kb


# --- reading the real split ----------------------------------------------------------------------

@pytest.mark.slow
@needs_data
def test_counts_per_kind_match_the_files_and_the_readme(records):
    on_disk = {None: count_files("correct/*/*.ttl")}
    on_disk.update({kind: count_files(f"wrong/{kind}/*/*.ttl") for kind in KINDS})
    on_disk.update({f"mix/{kind}": count_files(f"wrong/mix/{kind}/*/*.ttl") for kind in KINDS})
    assert on_disk[None] == 750 and all(on_disk[k] == 750 for k in KINDS)           # README
    assert sum(on_disk[f"mix/{k}"] for k in KINDS) == 780
    assert sum(on_disk.values()) == count_files("**/*.ttl") == 6_030

    assert Counter(r.kind for r in records) == on_disk
    assert all(r.label == (r.kind is None) for r in records)
    assert {r.split for r in records} == {"train"}
    correct_per_relation = Counter(r.relation for r in records if r.label)
    assert len(correct_per_relation) == 10 and set(correct_per_relation.values()) == {75}


@pytest.mark.slow
@needs_data
def test_records_follow_their_files(records):
    relative = [Path(r.source_file).relative_to(TRAIN).as_posix() for r in records]
    assert relative == sorted(relative)
    for record, path in zip(records, relative):
        parts = path.split("/")
        assert record.relation == parts[-2]
        if record.label:
            assert parts[0] == "correct"
        else:
            assert parts[0] == "wrong" and "/".join(parts[1:-2]) == record.kind


@pytest.mark.slow
@needs_data
def test_dates_are_parsed(records):
    for r in records:
        assert r.start is not None and r.end is not None
        assert ISO.match(r.start) and ISO.match(r.end), r
    births = [r for r in records if r.label and r.relation == "birth"]
    assert len(births) == 75
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d", r.start) for r in births)
    # The gYear trap: wrong models give years only, correct ones mostly full dates.
    assert all(len(r.start) == 4 and len(r.end) == 4 for r in records if not r.label)
    assert sum(len(r.start) > 4 for r in records if r.label) > 400


@pytest.mark.slow
@needs_data
def test_date_kind_wrong_facts_change_the_years_of_a_correct_fact(records):
    correct: dict[tuple, list[FactRecord]] = {}
    for r in records:
        if r.label:
            correct.setdefault((r.subject, r.predicate, r.object), []).append(r)
    date_wrong = [r for r in records if r.kind in ("date", "mix/date")]
    matched = 0
    for r in date_wrong:
        for c in correct.get((r.subject, r.predicate, r.object), []):
            matched += 1
            assert (year(r.start), year(r.end)) != (year(c.start), year(c.end)), (r.source_file, c.source_file)
    # Every date-kind fact is a correct fact with other years: only the dates tell it apart.
    assert matched >= len(date_wrong) == 880


@pytest.mark.slow
@needs_data
def test_labels_and_entities(records):
    languages = Counter()
    unlabelled = set()
    for r in records:
        assert r.subject != r.object
        for entity in (r.subject, r.object):
            labels = r.labels.get(entity, {})
            assert all(text.strip() for text in labels.values())
            if not labels:
                unlabelled.add((Path(r.source_file).relative_to(TRAIN).as_posix(), entity))
            else:
                assert labels.get("en"), (r.source_file, entity)
            languages.update(labels)
    assert set(languages) == {"en", "de", "fr"}
    # One entity of one wrong model is labelled ""@en, ""@de, ""@fr: empty labels are dropped.
    assert unlabelled == {("wrong/range/starring/starring_00010.ttl", "http://dbpedia.org/resource/Liz_English")}
    # Not every entity has all three languages: ~80% of facts have en, de and fr on both sides.
    with_all_three = sum(all({"en", "de", "fr"} <= set(r.labels.get(e, {})) for e in (r.subject, r.object))
                         for r in records)
    assert 0.6 * len(records) < with_all_three < len(records)


# --- loading ---------------------------------------------------------------------------------------

@pytest.mark.slow
@needs_data
def test_load_holds_every_fact_in_its_own_model_graph(loaded, records):
    store, loaded_records, report = loaded
    assert loaded_records == records
    facts = {(r.subject, r.predicate, r.object) for r in records}
    rows = store.select("subject_facts", subjects=[NamedNode(s) for s in sorted({f[0] for f in facts})],
                        predicates=[NamedNode(p) for p in sorted({f[1] for f in facts})])
    held = {(row["s"].value, row["p"].value, row["o"].value) for row in rows}
    assert facts <= held

    graphs = set(store.named_graphs())
    assert len(graphs) == len(records) and {model_graph(r) for r in records} == graphs
    assert report.added == store.triple_count() > len(records)
    entry = report.files[0]
    assert entry["format"] == "factbench" and entry["models"] == len(records)

    # The linking-property trap, visible in the store: only wrong models use defacto's property.
    links = list(store.db.quads_for_pattern(None, NamedNode(DEFACTO_LINK), None, None))
    wrong_graphs = {model_graph(r) for r in records if not r.label}
    assert len(links) == len(wrong_graphs) and {q.graph_name.value for q in links} == wrong_graphs


# --- small copies: atomicity, graphs, determinism --------------------------------------------------

SUBSET = ["correct/birth/birth_00000.ttl", "correct/birth/birth_00002.ttl",
          "wrong/date/birth/birth_00000.ttl", "wrong/property/birth/birth_00000.ttl",
          "wrong/mix/date/award/award_00000.ttl"]


@pytest.fixture
def subset(tmp_path) -> Path:
    if not TRAIN.is_dir():
        pytest.skip("../shared/data/factbench/train not present")
    root = tmp_path / "factbench" / "train"
    for name in SUBSET:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(TRAIN / name, root / name)
    return root


def test_subset_loads_deterministically(subset, tmp_path):
    fingerprints = []
    for name in ("a", "b"):
        store = EmbeddedStore(tmp_path / name)
        loaded_records, report = load_factbench(store, subset, progress=False)
        assert [Path(r.source_file).relative_to(subset).as_posix() for r in loaded_records] == sorted(SUBSET)
        fingerprints.append(store.fingerprint())
        assert not list((tmp_path / name).glob(".factbench-load-*"))
    assert fingerprints[0] == fingerprints[1]
    kinds = [r.kind for r in read_factbench(subset)]
    assert kinds == [None, None, "date", "mix/date", "property"]


def test_correct_only_keeps_false_facts_out_of_the_kb(subset):
    store = EmbeddedStore()
    records, _ = load_factbench(store, subset, progress=False, correct_only=True)
    assert len(records) == len(SUBSET)  # every record is still read and returned
    present = {(q.subject.value, q.predicate.value, q.object.value)
               for q in store.db.quads_for_pattern(None, None, None, None)}
    assert all((r.subject, r.predicate, r.object) in present for r in records if r.label)
    wrong_graphs = [g for g in store.named_graphs() if "/wrong/" in g]
    assert wrong_graphs == [] and store.named_graphs()
    # The property-corrupted fact is FactBench's own false fact: it must not be in the KB.
    corrupted = next(r for r in records if r.kind == "property")
    assert (corrupted.subject, corrupted.predicate, corrupted.object) not in present


def test_one_graph_on_request(subset):
    store = EmbeddedStore()
    records, _ = load_factbench(store, subset, graph="http://example.org/factbench", progress=False)
    assert store.named_graphs() == ["http://example.org/factbench"]
    # In one graph, models that share a statement node merge: George_W._Bush__1 gets both dates.
    dates = {q.object.value for q in store.db.quads_for_pattern(
        NamedNode("http://dbpedia.org/resource/George_W._Bush__1"),
        NamedNode("http://dbpedia.org/ontology/from"), None, None)}
    assert {"1946-07-06", "1942"} <= dates


@pytest.mark.parametrize("text, where", [
    ("@prefix dbo: <http://dbpedia.org/ontology/> .\n<http://a> dbo:x <http://b> ;\n   dbo:y \"open .\n",
     "line 3"),
    ("@prefix dbo: <http://dbpedia.org/ontology/> .\n<http://a> dbo:x <http://b> .\n",
     "not a FactBench model"),
])
def test_a_malformed_model_changes_nothing(subset, tmp_path, text, where):
    store = EmbeddedStore(tmp_path / "kb")
    load_factbench(store, subset, progress=False)
    before = (store.triple_count(), store.fingerprint(), store.meta())

    bad = subset / "correct" / "death" / "death_99999.ttl"
    bad.parent.mkdir(parents=True)
    bad.write_text(text, encoding="utf-8")
    for attempt in (lambda: read_factbench(subset), lambda: load_factbench(store, subset, progress=False)):
        with pytest.raises(LoadError) as caught:
            attempt()
        assert str(bad) in str(caught.value) and where in str(caught.value)
    assert (store.triple_count(), store.fingerprint(), store.meta()) == before
    store.reopen()
    assert (store.triple_count(), store.fingerprint()) == before[:2]


def test_a_file_outside_the_layout_is_refused(subset):
    stray = subset / "correct" / "stray.ttl"
    shutil.copyfile(subset / SUBSET[0], stray)
    with pytest.raises(LoadError, match="stray.ttl: not in the FactBench layout"):
        read_factbench(subset)


SYNTHETIC = """@prefix dbo: <http://dbpedia.org/ontology/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<http://example.org/Ada> rdfs:label "Ada"@en , ""@de ; dbo:birth _:fact .
_:fact dbo:birthPlace <http://example.org/London> ;
       dbo:from "1815-12-10T08:00:00Z"^^xsd:dateTime .
<http://example.org/London> rdfs:label "London"@en , "Londres"@fr .
"""


def test_blank_statement_node_and_other_date_types(tmp_path):
    root = tmp_path / "fb" / "test"
    (root / "correct" / "birth").mkdir(parents=True)
    (root / "correct" / "birth" / "birth_00000.ttl").write_text(SYNTHETIC, encoding="utf-8")
    (record,) = read_factbench(tmp_path / "fb")  # a folder of splits works too
    assert (record.subject, record.predicate, record.object) == (
        "http://example.org/Ada", "http://dbpedia.org/ontology/birthPlace", "http://example.org/London")
    assert (record.start, record.end, record.split, record.label) == ("1815-12-10", None, "test", True)
    assert record.labels == {"http://example.org/Ada": {"en": "Ada"},
                             "http://example.org/London": {"en": "London", "fr": "Londres"}}
    fingerprints = set()
    for _ in range(2):
        store = EmbeddedStore()
        load_factbench(store, tmp_path / "fb", progress=False)
        fingerprints.add(store.fingerprint())
    assert len(fingerprints) == 1, "blank node ids are stable, so the fingerprint is"
    assert store.named_graphs() == ["https://w3id.org/factforge/graph/factbench/test/correct/birth/birth_00000"]


# A model of FactBench 1.0's test split (wrong/domain/subsidiary): the domain corruption drew the
# fact's own object as the new subject, so one company is stated as its own subsidiary and the
# entity node is also the object of the statement node.
SELF_SUBSIDIARY = """@prefix rdfs:  <http://www.w3.org/2000/01/rdf-schema#> .
@prefix dbo:   <http://dbpedia.org/ontology/> .
@prefix owl:   <http://www.w3.org/2002/07/owl#> .
@prefix xsd:   <http://www.w3.org/2001/XMLSchema#> .
@prefix skos:  <http://www.w3.org/2004/02/skos/core#> .

<http://rdf.freebase.com/ns/m.0test1>
        rdfs:label     "Acme Holdings"@en , "Acme Holdings"@fr , "Acme Holdings"@de ;
        <http://defacto.aksw.org/bnode/property>
                <http://rdf.freebase.com/ns/m.0test1__1> ;
        owl:sameAs     <http://dbpedia.org/resource/Acme_Holdings> ;
        skos:altLabel  "Acme"@en , "Acme Inc."@de .

<http://rdf.freebase.com/ns/m.0test1__1>
        dbo:from        "2004"^^xsd:gYear ;
        dbo:subsidiary  <http://rdf.freebase.com/ns/m.0test1> ;
        dbo:to          "2004"^^xsd:gYear .
"""
ACME = "http://rdf.freebase.com/ns/m.0test1"


def write_model(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_company_stated_as_its_own_subsidiary_reads_and_loads(tmp_path):
    root = tmp_path / "factbench" / "test"
    write_model(root, "wrong/domain/subsidiary/subsidiary_00000.ttl", SELF_SUBSIDIARY)
    (record,) = read_factbench(root)
    assert (record.subject, record.predicate, record.object) == (ACME, "http://dbpedia.org/ontology/subsidiary", ACME)
    assert (record.start, record.end, record.label, record.kind, record.split) == ("2004", "2004", False, "domain", "test")
    assert record.labels == {ACME: {"en": "Acme Holdings", "fr": "Acme Holdings", "de": "Acme Holdings"}}

    store = EmbeddedStore(tmp_path / "kb")
    load_factbench(store, root, progress=False)
    graph = NamedNode(model_graph(record))
    assert list(store.db.quads_for_pattern(NamedNode(ACME), NamedNode(record.predicate), NamedNode(ACME), graph))


def test_two_fact_stating_nodes_that_are_both_described_are_still_refused(tmp_path):
    # Only an undescribed (no label, no sameAs) node can be the statement node: two labelled
    # entities pointing at each other are no FactBench model.
    root = tmp_path / "factbench" / "test"
    bad = write_model(root, "correct/subsidiary/subsidiary_00000.ttl", SELF_SUBSIDIARY.replace(
        "<http://rdf.freebase.com/ns/m.0test1__1>\n        dbo:from",
        "<http://rdf.freebase.com/ns/m.0test1__1>\n        rdfs:label \"a statement\"@en ;\n        dbo:from"))
    with pytest.raises(LoadError, match="expected one statement node") as caught:
        read_factbench(root)
    assert str(bad) in str(caught.value)


def test_skipping_bad_models_names_them_and_loads_the_rest(subset, tmp_path):
    bad = write_model(subset, "correct/death/death_99999.ttl",
                      "@prefix dbo: <http://dbpedia.org/ontology/> .\n<http://a> dbo:x <http://b> .\n")
    broken = write_model(subset, "wrong/date/death/death_99999.ttl", "<http://a> <http://b> <oops\n")
    store = EmbeddedStore(tmp_path / "kb")
    with pytest.raises(LoadError):  # the default stays all or nothing
        load_factbench(store, subset, progress=False)
    assert store.triple_count() == 0 and store.meta() == {"loads": []}

    skipped: list[str] = []
    records, report = load_factbench(store, subset, progress=False, skipped=skipped)
    assert [Path(r.source_file).relative_to(subset).as_posix() for r in records] == sorted(SUBSET)
    assert len(skipped) == 2
    assert str(bad) in skipped[0] and "not a FactBench model" in skipped[0]
    assert str(broken) in skipped[1] and "line 1" in skipped[1]
    assert report.files[0]["skipped"] == ["correct/death/death_99999.ttl", "wrong/date/death/death_99999.ttl"]
    assert set(store.named_graphs()) == {model_graph(r) for r in records}

    read_skipped: list[str] = []
    assert [r.source_file for r in read_factbench(subset, skipped=read_skipped)] == [r.source_file for r in records]
    assert read_skipped == skipped


def test_skipping_when_nothing_can_be_read_is_an_error(tmp_path):
    root = tmp_path / "factbench" / "train"
    write_model(root, "correct/death/death_00000.ttl", "<http://a> <http://b> <oops\n")
    with pytest.raises(LoadError, match="no FactBench model could be read"):
        read_factbench(root, skipped=[])
