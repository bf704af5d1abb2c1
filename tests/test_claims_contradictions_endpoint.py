"""What the claims' contradictions read of R, through a real `oxigraph serve` without copying the KB:
functionality counted by an aggregate in the store, a functional predicate's other objects and the
disjoint types fetched for the facts' subjects and objects in VALUES batches; the same schema and
the same evidence sets as over the embedded store's whole index, from far fewer rows than the KB."""
from __future__ import annotations

import pytest

from conftest import served_demo_kb

from factforge.claims.contradictions import ReferenceView, load_schema, view_around
from factforge.generators.scenario import generate
from factforge.generators.spec import ScenarioSpec
from factforge.sparql.adjacency import adjacency, build
from factforge.sparql.store import open_store


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FACTFORGE_CACHE", str(tmp_path / "cache"))


def _compare(local, remote, specs: list[dict], *, removing: bool = True) -> int:
    """Both stores' schema and every evidence set of the specs' test facts (true and false, with R
    less each scenario's removed triples, or the KB when not ``removing``); how many evidence sets
    there were."""
    found = 0
    for knobs in specs:
        scenario = generate(local, ScenarioSpec.from_dict(knobs))
        facts = [item.fact for item in scenario.test]
        predicates = {fact.p for fact in facts}
        index = adjacency(local)
        here_schema = load_schema(local, index, predicates)
        there_schema = load_schema(remote, None, predicates)
        assert there_schema == here_schema
        removed = scenario.removed if removing else ()
        here = ReferenceView(local, index, here_schema, removed)
        there = view_around(remote, there_schema, facts, removed)
        for fact in facts:
            expected = here.contradictions(fact)
            assert there.contradictions(fact) == expected, fact
            found += len(expected)
        assert not there.adjacency.missing  # every lookup was of an entity fetched whole
    return found


def test_dbpedia50_contradictions_through_oxigraph_serve_are_the_embedded_ones(dbpedia_server, dbpedia_store,
                                                                              fresh_cache):
    remote = open_store(endpoint=dbpedia_server.query_url, fingerprint=dbpedia_store.fingerprint())
    specs = [dict(predicate="dbo:birthPlace", size=60, transparency=0.5, ambiguous="random_walk", leakage="pair",
                  seed=3),
             dict(predicate="dbo:team", size=60, transparency=0.0, ambiguous="lcwa", seed=4)]
    assert _compare(dbpedia_store, remote, specs) > 0
    assert remote.rows_read < len(build(dbpedia_store).src) / 2


def test_demo_kb_contradictions_through_oxigraph_serve_are_the_embedded_ones(tmp_path, fresh_cache):
    with served_demo_kb(tmp_path) as (folder, flags):
        remote = open_store(endpoint=flags[1], fingerprint=flags[-1])
        with open_store(folder, read_only=True) as local:
            specs = [dict(predicate="dbo:birthPlace", size=30, transparency=0.5, ambiguous="random_walk",
                          leakage="pair", seed=4),
                     dict(predicate="dbo:capital", size=10, transparency=0.5, seed=1)]
            # the scenarios' removed triples take every contradiction of the demo's functional
            # predicates out of R: against the KB, the false facts are contradicted
            assert _compare(local, remote, specs, removing=False) > 0
