"""A hub's links through an endpoint in answers of at most ``ROW_CAP`` rows (issue 17): at 10M
triples one VALUES batch holding a country returned more rows than Virtuoso gives (it cuts at
2^20 without saying so). Lowered here so that the demo KB's United States, the object of every
state's ``dbo:country``, is such a hub; the scenario is still the embedded store's, byte for byte."""
from __future__ import annotations

from conftest import SparqlProxy, served_demo_kb
from test_neighbourhood import fresh_cache, written  # noqa: F401 - fresh_cache is a fixture

from factforge.generators.scenario import generate
from factforge.generators.spec import ScenarioSpec
from factforge.sparql import neighbourhood
from factforge.sparql.neighbourhood import NeighbourhoodReader
from factforge.sparql.store import open_store
from factforge.sparql.templates import load, names

CAP = 40
HUB = "http://dbpedia.org/resource/United_States"
# the neighbourhood link queries, by their text up to the first parameter
LINK_QUERIES = tuple(load(name).body.split("$", 1)[0] for name in ("entity_links", "entity_in_links", "entity_out_links")
                     if name in names())
SPEC = dict(predicate="dbo:capital", size=40, transparency=0.5, ambiguous="random_walk", train_size=10, seed=3)


def test_a_hub_with_more_links_than_the_row_cap_comes_in_answers_below_it(tmp_path, fresh_cache, monkeypatch):  # noqa: F811
    monkeypatch.setattr(neighbourhood, "ROW_CAP", CAP, raising=False)
    with served_demo_kb(tmp_path) as (local, remote):
        proxy = SparqlProxy(remote[1])
        try:
            with open_store(local, read_only=True) as store:
                here = written(generate(store, ScenarioSpec.from_dict(SPEC)), tmp_path / "here", store)
            endpoint = open_store(endpoint=proxy.url, fingerprint=remote[-1])
            scenario = generate(endpoint, ScenarioSpec.from_dict(SPEC))
            there = written(scenario, tmp_path / "there", endpoint)
            in_scenario = _link_answers(proxy)
            # the hub itself, read whole: its links are far more than one answer may hold
            reader = NeighbourhoodReader(endpoint, SPEC["predicate"].replace("dbo:", "http://dbpedia.org/ontology/"),
                                         degrees=False)
            reader.fetch_links([HUB])
            index = reader.index()
        finally:
            proxy.close()
    hub = index.id(HUB)
    assert index.complete[hub] and index.degree(hub) > 3 * CAP
    hub_answers = _link_answers(proxy)[len(in_scenario):]
    assert len(hub_answers) > 3 and max(hub_answers) == CAP  # paged at the cap
    assert in_scenario and max(in_scenario) <= CAP
    assert here == there


def _link_answers(proxy: SparqlProxy) -> list[int]:
    return [rows for query, rows in proxy.answers if any(words in query for words in LINK_QUERIES)]
