"""The reference KB R at each leakage level, read back from the reference.nt that write_files
exports, on DBpedia50 birthPlace; and the inverse-predicate detection on a hand-made KB."""
from __future__ import annotations

import pytest
from pyoxigraph import NamedNode

from conftest import DBPEDIA_NT, ONTOLOGY_GRAPH, ONTOLOGY_TTL, need, store_from_text
from factforge.generators import leakage, writers
from factforge.generators.facts import Fact
from factforge.generators.scenario import generate
from factforge.generators.spec import ScenarioSpec
from factforge.sparql.adjacency import adjacency as load_adjacency
from factforge.sparql.adjacency import build as build_adjacency
from factforge.sparql.fact_popularity import fact_popularity
from factforge.sparql.loading import load_files
from factforge.sparql.store import open_store

SPEC = dict(predicate="dbo:birthPlace", size=60, transparency=0.5, seed=5)


def triples_of(store) -> set[tuple[str, str, str]]:
    """Every distinct triple, whatever its graph (a triple in two graphs counts once)."""
    return {(q.subject.value, q.predicate.value, q.object.value if isinstance(q.object, NamedNode) else str(q.object))
            for q in store.db.quads_for_pattern(None, None, None, None)}


def export(store, scenario, folder):
    """write_files with reference_from=store, and reference.nt loaded into a fresh in-memory store."""
    manifest = writers.write_files(scenario, folder, ["tsv"], reference_from=store)
    assert "reference.nt" in manifest["files"]
    assert manifest["reference"] == {"leakage": scenario.spec.leakage, "removed_triples": len(scenario.removed)}
    fresh = open_store(None)
    load_files(fresh, [folder / "reference.nt"], progress=False)
    return fresh


def linked(store, a: str, b: str) -> list:
    return list(store.db.quads_for_pattern(NamedNode(a), None, NamedNode(b), None)) + \
        list(store.db.quads_for_pattern(NamedNode(b), None, NamedNode(a), None))


def true_test_facts(scenario) -> list[Fact]:
    return [i.fact for i in scenario.test if i.label]


@pytest.fixture(scope="module")
def memory_store():
    """The same files as ``dbpedia_store``, in memory: exporting R from it is much faster."""
    store = open_store(None)
    load_files(store, [need(DBPEDIA_NT)], progress=False)
    load_files(store, [need(ONTOLOGY_TTL)], graph=ONTOLOGY_GRAPH, progress=False)
    return store


def test_pair_level_unlinks_every_test_pair_and_leaves_the_store_alone(memory_store, dbpedia_store, tmp_path):
    # The in-memory copy: exporting R from the on-disk store is slow (see write_reference), too
    # slow for this suite; both stores have the same fingerprint.
    assert memory_store.fingerprint() == dbpedia_store.fingerprint()
    store = memory_store
    fingerprint, count = store.fingerprint(), store.triple_count()
    original = triples_of(store)
    assert len(original) <= count  # quads: a triple in two graphs is counted twice by the store
    scenario = generate(store, ScenarioSpec(**SPEC, leakage="pair"))
    r = export(store, scenario, tmp_path / "pair")

    for fact in true_test_facts(scenario):
        assert not linked(r, fact.s, fact.o), f"{fact.s} and {fact.o} are still linked in R"
    removed = set(scenario.removed)
    assert removed <= original
    assert len(removed) > len(true_test_facts(scenario))  # pair removes more than the facts here
    assert r.triple_count() == len(original) - len(removed)
    assert triples_of(r) == original - removed
    # the original store is untouched
    assert store.fingerprint() == fingerprint
    assert store.triple_count() == count
    assert triples_of(store) == original


def test_triple_level_removes_the_facts_and_keeps_other_links(memory_store, tmp_path):
    scenario = generate(memory_store, ScenarioSpec(**SPEC, leakage="triple"))
    facts = true_test_facts(scenario)
    assert set(scenario.removed) == {f.triple for f in facts}
    r = export(memory_store, scenario, tmp_path / "triple")
    index = load_adjacency(memory_store)
    kept = 0
    for fact in facts:
        assert not list(r.db.quads_for_pattern(NamedNode(fact.s), NamedNode(fact.p), NamedNode(fact.o), None))
        others = [t for t in index.links_between(fact.s, fact.o) if t != fact.triple]
        for s, p, o in others:  # e.g. the same place as dbo:deathPlace
            assert list(r.db.quads_for_pattern(NamedNode(s), NamedNode(p), NamedNode(o), None)), (s, p, o)
            kept += 1
    assert kept, "no test fact had another link between its subject and object: pick another seed"
    assert r.triple_count() == len(triples_of(memory_store)) - len(facts)


def test_inverse_level_removes_the_reverse_facts(memory_store, tmp_path):
    scenario = generate(memory_store, ScenarioSpec(**SPEC, leakage="inverse"))
    facts = true_test_facts(scenario)
    kb_pairs = {(f["s"], f["o"]) for f in fact_popularity(memory_store, scenario.spec.predicate)}
    index = load_adjacency(memory_store)
    inverses = leakage.inverse_predicates(memory_store, index, scenario.spec.predicate, kb_pairs)
    r = export(memory_store, scenario, tmp_path / "inverse")
    for fact in facts:
        for q in [fact.p, *inverses]:
            assert not list(r.db.quads_for_pattern(NamedNode(fact.o), NamedNode(q), NamedNode(fact.s), None))
        assert not list(r.db.quads_for_pattern(NamedNode(fact.s), NamedNode(fact.p), NamedNode(fact.o), None))
    assert set(scenario.removed) >= {f.triple for f in facts}
    assert r.triple_count() == len(triples_of(memory_store)) - len(scenario.removed)


def test_inverse_level_on_a_symmetric_predicate(memory_store, tmp_path):
    """birthPlace has no inverse in DBpedia50, so the test above cannot fail for want of removing
    one; dbo:spouse is mostly symmetric: (o, spouse, s) must go at "inverse" and stay at "triple"."""
    spec = dict(predicate="dbo:spouse", size=20, transparency=1.0, seed=5)
    original = triples_of(memory_store)
    for level in ("triple", "inverse"):
        scenario = generate(memory_store, ScenarioSpec(**spec, leakage=level))
        facts = true_test_facts(scenario)
        tested = {f.triple for f in facts}
        reverse = {(f.o, f.p, f.s) for f in facts} & original - tested
        assert reverse, "no reverse spouse fact in the KB for this seed"
        r = triples_of(export(memory_store, scenario, tmp_path / level))
        assert not tested & r
        assert (reverse & r) == (reverse if level == "triple" else set())


SMALL_KB = """@prefix ex: <http://example.org/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:a ex:parentOf ex:b . ex:b ex:childOf ex:a .
ex:c ex:parentOf ex:d . ex:d ex:childOf ex:c .
ex:e ex:parentOf ex:f . ex:f ex:childOf ex:e .
ex:g ex:parentOf ex:h .
ex:b ex:knows ex:a .
ex:employs owl:inverseOf ex:worksFor .
ex:acme ex:employs ex:a . ex:initech ex:employs ex:c .
"""
EX = "http://example.org/"


@pytest.fixture
def small_store(tmp_path):
    return store_from_text(tmp_path, "family.ttl", SMALL_KB)


def test_inverse_predicates_observed_and_declared(small_store):
    index = build_adjacency(small_store)
    parent_pairs = {(EX + s, EX + o) for s, o in (("a", "b"), ("c", "d"), ("e", "f"), ("g", "h"))}
    # childOf mirrors 3 of 4 parentOf facts (>= half): an inverse; knows mirrors 1 of 4: not one
    assert leakage.inverse_predicates(small_store, index, EX + "parentOf", parent_pairs) == [EX + "childOf"]
    employ_pairs = {(EX + "acme", EX + "a"), (EX + "initech", EX + "c")}
    assert leakage.inverse_predicates(small_store, index, EX + "employs", employ_pairs) == [EX + "worksFor"]
    assert leakage.inverse_predicates(small_store, index, EX + "worksFor", set()) == [EX + "employs"]

    fact = Fact(EX + "a", EX + "parentOf", EX + "b")
    by_level = {level: set(leakage.removed_triples(small_store, index, [fact], level, parent_pairs))
                for level in ("triple", "inverse", "pair")}
    assert by_level["triple"] == {fact.triple}
    assert by_level["inverse"] == {fact.triple, (EX + "b", EX + "childOf", EX + "a")}
    assert by_level["pair"] == by_level["inverse"] | {(EX + "b", EX + "knows", EX + "a")}


@pytest.mark.parametrize("ambiguous", ["lcwa", "random_walk"])
def test_pair_level_unlinks_false_test_facts_as_it_does_true_ones(memory_store, tmp_path, ambiguous):
    """Every LCWA false fact p(s, o') comes from a link s -p'-> o'. Had only true facts' pairs
    been unlinked, "s and o are linked in R" would give the label; no test fact, true or false,
    may keep a direct link. The evaluation derives the same R from the written files, and the
    PyKEEN reference holds it."""
    from factforge.evaluation.labelled import read_scenario
    from factforge.evaluation.reference_graph import Reference, scenario_reference

    scenario = generate(memory_store, ScenarioSpec(predicate="dbo:birthPlace", size=60, transparency=0.0,
                                                   ambiguous=ambiguous, leakage="pair", seed=5))
    index = load_adjacency(memory_store)
    false = [i for i in scenario.test if not i.label]
    linked = [bool(index.links_between(i.fact.s, i.fact.o)) for i in false]
    if ambiguous == "lcwa":  # by design, each false fact LCWA makes from s's neighbours (not its range fallback's)
        assert any(linked) and all(link for i, link in zip(false, linked) if scenario.answers[i.id]["side"] != "range")
    else:
        assert false and not all(linked)
    r = Reference(index, scenario.removed)
    src, _, dst = r.links
    linked_pairs = {frozenset(pair) for pair in zip(src.tolist(), dst.tolist())}
    for item in scenario.test:
        pair = frozenset((index.id(item.fact.s), index.id(item.fact.o)))
        assert pair not in linked_pairs, (item.label, item.fact)

    writers.write_files(scenario, tmp_path / "out", ["tsv", "pykeen"], store=memory_store)
    again = scenario_reference(read_scenario(tmp_path / "out"), memory_store)
    assert again.removed == sorted(set(scenario.removed))
    rows = (tmp_path / "out" / "pykeen" / "reference.tsv").read_text().splitlines()
    assert len(rows) == int(r.keep.sum())
