"""R without the test facts must not state them again through a statement node, nor keep what is
left of one: the demo KB reifies every award, employer and spouse as an rdf:Statement, and every
FactBench model states its fact through a node (``subject -link-> node``, ``node p object`` with
dates). Checked in the reference.nt a scenario writes, in the PyKEEN reference.tsv and in R as the
checkers derive it from the written files, for true and false test facts alike."""
from __future__ import annotations

import pytest
from pyoxigraph import NamedNode

from conftest import FACTBENCH, need
from factforge.evaluation.checkers import checker
from factforge.evaluation.labelled import read_scenario
from factforge.evaluation.reference_graph import scenario_reference
from factforge.generators import positives
from factforge.generators.scenario import generate
from factforge.generators.spec import ScenarioSpec
from factforge.generators.writers import records as scenario_records
from factforge.publish.scenario_files import write_scenario
from factforge.sparql.adjacency import adjacency as load_adjacency
from factforge.sparql.embedded import EmbeddedStore
from factforge.sparql.factbench import load_factbench
from factforge.sparql.loading import load_files
from factforge.sparql.store import open_store

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
FROM = "http://dbpedia.org/ontology/from"
AWARD = "http://dbpedia.org/ontology/award"
MODELS = 75  # FactBench's award models (all of them) in a KB of their own: quick to load


def statement_nodes(store, fact) -> set[str]:
    """Every node of ``store`` that states ``fact``, found here without the project's query: an
    rdf:Statement of it, or a node the subject links to that carries the fact's predicate and object."""
    s, p, o = (NamedNode(x) for x in fact.triple)

    def has(node, predicate, value) -> bool:
        return bool(list(store.db.quads_for_pattern(node, NamedNode(predicate), value, None)))

    reified = {q.subject.value for q in store.db.quads_for_pattern(None, NamedNode(RDF + "subject"), s, None)
               if has(q.subject, RDF + "predicate", p) and has(q.subject, RDF + "object", o)}
    linked = {q.object for q in store.db.quads_for_pattern(s, None, None, None) if isinstance(q.object, NamedNode)}
    nodes = {q.subject.value for q in store.db.quads_for_pattern(None, p, o, None)
             if q.subject in linked and has(q.subject, FROM, None)}
    return reified | nodes


def in_r(folder) -> tuple[set[tuple[str, str, str]], str]:
    r = open_store(None)
    load_files(r, [folder / "reference.nt"], progress=False)
    triples = {(q.subject.value, q.predicate.value, q.object.value) for q in r.db.quads_for_pattern(None, None, None, None)}
    return triples, (folder / "reference.nt").read_text()


def assert_no_fact_is_restated(store, scenario, folder, *, indexed: bool):
    """``indexed``: the statement nodes are linked by non-schema predicates, so the adjacency index
    holds them (FactBench's; rdf:subject and rdf:object are schema, left out of the index)."""
    write_scenario(scenario, folder, ["tsv", "pykeen"], store=store, reference_from=store)
    triples, text = in_r(folder)
    nodes = {f"<{n}>" for item in scenario.test for n in statement_nodes(store, item.fact)}
    true_nodes = {n for item in scenario.test if item.label for n in statement_nodes(store, item.fact)}
    assert true_nodes, "no true test fact has a statement node: the test would prove nothing"
    for item in scenario.test:
        s, p, o = item.fact.triple
        assert (s, p, o) not in triples, item
        # no rdf:Statement and no model node states it in R
        assert not any((n, RDF + "subject", s) in triples and (n, RDF + "predicate", p) in triples
                       for n, q, obj in triples if (q, obj) == (RDF + "object", o)), item
        holders = {n for n, q, obj in triples if (q, obj) == (p, o) and any((n, FROM) == (a, b) for a, b, _ in triples)}
        assert not any(obj in holders for subject, _, obj in triples if subject == s), item
    # The node goes whole: a statement node left with its subject and predicate, or its link and
    # dates, would say "a fact of this subject was taken out", which only true facts' subjects get.
    for node in sorted(nodes):
        assert node not in text, f"{node} is still in R"

    # R as the checkers read it: the adjacency mask, derived again from the written files
    index = load_adjacency(store)
    ids = {index.id(n[1:-1]) for n in nodes} - {None}
    assert bool(ids) == indexed
    for reference in (scenario_reference(read_scenario(folder), store),):
        src, _, dst = reference.links
        assert not ids & set(src.tolist()) and not ids & set(dst.tolist())
        kept = set(zip(*(a.tolist() for a in reference.links)))
        for item in scenario.test:
            s, o = index.id(item.fact.s), index.id(item.fact.o)
            assert (s, index.pindex.get(item.fact.p), o) not in kept
    rows = (folder / "pykeen" / "reference.tsv").read_text().splitlines()
    assert len(rows) == int(reference.keep.sum())


@pytest.mark.parametrize("predicate, leakage", [("dbo:award", "triple"), ("dbo:spouse", "inverse")])
def test_demo_kb_r_states_no_test_fact_by_an_rdf_statement(demo_kb_store, tmp_path, predicate, leakage):
    scenario = generate(demo_kb_store, ScenarioSpec(predicate=predicate, size=20, transparency=0.5,
                                                    ambiguous="random_walk", leakage=leakage, seed=3))
    assert_no_fact_is_restated(demo_kb_store, scenario, tmp_path / "out", indexed=False)


@pytest.fixture(scope="module")
def factbench_awards(tmp_path_factory):
    """The award models of the FactBench train split, true ones only (a KB to generate from),
    loaded by the project's loader from a folder of links to them."""
    source = need(FACTBENCH) / "correct" / "award"
    root = tmp_path_factory.mktemp("fb") / "train"
    (root / "correct" / "award").mkdir(parents=True)
    for model in sorted(source.glob("*.ttl"))[:MODELS]:
        (root / "correct" / "award" / model.name).symlink_to(model)
    store = EmbeddedStore()
    load_factbench(store, root, progress=False, correct_only=True)
    return store


@pytest.mark.parametrize("leakage", ["triple", "pair"])
def test_factbench_r_states_no_test_fact_by_its_model_node(factbench_awards, tmp_path, leakage):
    scenario = generate(factbench_awards, ScenarioSpec(predicate=AWARD, size=20, train_size=20, transparency=0.5,
                                                       ambiguous="random_walk", leakage=leakage, seed=3))
    assert_no_fact_is_restated(factbench_awards, scenario, tmp_path / leakage, indexed=True)

    # A path checker reads R as the adjacency mask; the scored facts' own triples are taken out of
    # it (a true train fact is in R), and their nodes must go with them. Left in, the path
    # subject -link-> node -award-> object is found for true facts only.
    records = scenario_records(scenario, "all")
    paths = checker("path_features", seed=3)
    paths.reference = scenario_reference(read_scenario(tmp_path / leakage), factbench_awards)
    found = {label: set() for label in (True, False)}
    for record, features in zip(records, paths.features(records)):
        found[record["label"]].update(features)
    assert found[True] <= found[False], found


def model_nodes(store) -> set[str]:
    """The FactBench models' statement nodes, read off the store without the project's query: the
    nodes that carry the model's dates (entities carry none)."""
    return {q.subject.value for q in store.db.quads_for_pattern(None, NamedNode(FROM), None, None)}


@pytest.mark.parametrize("ambiguous, transparency", [("random_walk", 0.0), ("lcwa", 0.0), ("random_walk", 1.0)])
def test_factbench_statement_nodes_are_never_drawn_as_facts(factbench_awards, ambiguous, transparency):
    """The loader adds each model's fact as a direct triple, and the model's node carries the same
    predicate and object (``node dbo:award prize``), so the node is a subject of p too. It is no
    entity: no true fact may have it as subject or object, and no false fact may use it."""
    nodes = model_nodes(factbench_awards)
    pairs = positives.kb_pairs(factbench_awards, AWARD)
    assert {s for s, _ in pairs} & nodes, "no statement node is a subject of p: the test proves nothing"
    ranked = positives.ranking(factbench_awards, ScenarioSpec(predicate=AWARD, seed=1)).facts
    assert ranked and not {e for f in ranked for e in f.pair} & nodes
    scenario = generate(factbench_awards, ScenarioSpec(predicate=AWARD, size=40, train_size=40, popularity="random",
                                                       transparency=transparency, ambiguous=ambiguous, seed=1))
    used = {e for item in scenario.facts for e in item.fact.pair}
    assert not used & nodes, sorted(used & nodes)[:5]


# Ann is born in Mumbai (a true test fact), Bob not in Pune (a false one). Each pair is also linked
# only through statement nodes, by other predicates and either way: a FactBench-style node (linked
# to, with dates) and an rdf:Statement, with no direct triple beside them. Ann's node about Delhi
# is no link between a test fact's ends and stays.
NODES_KB = """@prefix ex: <http://example.org/> .
@prefix dbo: <http://dbpedia.org/ontology/> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
ex:ann ex:born ex:mumbai . ex:bob ex:born ex:delhi . ex:cat ex:born ex:pune .
ex:ann ex:stay ex:n1 . ex:n1 ex:residence ex:mumbai ; dbo:from "1900" .
ex:st1 a rdf:Statement ; rdf:subject ex:mumbai ; rdf:predicate ex:native ; rdf:object ex:ann .
ex:pune ex:guest ex:n2 . ex:n2 ex:visitor ex:bob ; dbo:from "1910" .
ex:st2 a rdf:Statement ; rdf:subject ex:bob ; rdf:predicate ex:visited ; rdf:object ex:pune .
ex:ann ex:stay ex:n3 . ex:n3 ex:residence ex:delhi ; dbo:from "1920" .
"""


@pytest.mark.parametrize("level", ["triple", "inverse", "pair"])
def test_pair_level_removes_links_stated_only_by_a_statement_node(tmp_path, level):
    """At level pair every link between a test fact's s and o leaves R, for true and false facts
    alike: also one that only a statement node states (no direct triple). At the other levels
    such a node stays (its link is no restatement of the fact itself)."""
    from factforge.generators.facts import Fact
    from factforge.generators.leakage import removed_triples
    from conftest import store_from_text

    ex = "http://example.org/"
    store = store_from_text(tmp_path, "kb.ttl", NODES_KB)
    born = ex + "born"
    facts = [Fact(ex + "ann", born, ex + "mumbai"), Fact(ex + "bob", born, ex + "pune")]
    kb_pairs = positives.kb_pairs(store, born)
    removed = set(removed_triples(store, load_adjacency(store), facts, level, kb_pairs, born))
    every = {(q.subject.value, q.predicate.value, str(q.object) if q.object.__class__.__name__ == "Literal"
              else q.object.value) for q in store.db.quads_for_pattern(None, None, None, None)}

    def triples_of(node: str) -> set:
        return {t for t in every if ex + node in (t[0], t[2])}

    between = ["n1", "st1", "n2", "st2"]
    for node in between:
        assert triples_of(node) <= removed if level == "pair" else not triples_of(node) & removed, (level, node)
    assert not triples_of("n3") & removed


BLANK_NODES_KB = """@prefix ex: <http://example.org/> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
ex:ann ex:born ex:mumbai . ex:bob ex:born ex:delhi . ex:cat ex:born ex:pune .
[] a rdf:Statement ; rdf:subject ex:ann ; rdf:predicate ex:born ; rdf:object ex:mumbai ; ex:year "1900" .
[] a rdf:Statement ; rdf:subject ex:bob ; rdf:predicate ex:born ; rdf:object ex:delhi ; ex:year "1910" .
"""


def test_blank_statement_nodes_behind_an_endpoint_are_an_error_not_a_leak(tmp_path):
    """A blank statement node's id changes from one query to the next behind an endpoint, so R,
    written by streaming the endpoint, cannot leave it out: the node would stay and state the test
    fact again. That is a clear error naming the cause; in a local store, whose blank ids are
    stable, the node leaves R."""
    from io import BytesIO

    from conftest import OxigraphServer
    from factforge.generators.facts import Fact
    from factforge.generators.leakage import removed_triples
    from factforge.generators.reference_kb import ReferenceKB
    from factforge.sparql.interface import StoreError
    from factforge.sparql.remote import EndpointStore

    ex = "http://example.org/"
    born, fact = ex + "born", Fact(ex + "ann", ex + "born", ex + "mumbai")
    kb = tmp_path / "kb.ttl"
    kb.write_text(BLANK_NODES_KB)
    local = open_store(None)
    load_files(local, [kb], progress=False)
    removed = removed_triples(local, load_adjacency(local), [fact], "triple", positives.kb_pairs(local, born), born)
    out = BytesIO()
    ReferenceKB.of(local, removed).write_ntriples(out)
    assert b'"1900"' not in out.getvalue() and b'"1910"' in out.getvalue()

    (tmp_path / "served").mkdir()
    server = OxigraphServer(tmp_path / "served", [(kb, None)])
    try:
        remote = EndpointStore(server.query_url)
        with pytest.raises(StoreError, match="blank") as error:
            removed_triples(remote, load_adjacency(remote), [fact], "triple", positives.kb_pairs(remote, born), born)
        assert ex + "ann" in str(error.value) and "local store" in str(error.value)
    finally:
        server.stop()
