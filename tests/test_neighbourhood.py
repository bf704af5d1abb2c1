"""Neighbourhood generation (an endpoint's KB is never copied): the scenario is the embedded store's,
byte for byte, through a real `oxigraph serve`; what it fetches grows with the scenario, not the KB."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import OxigraphServer, served_demo_kb
from test_cli import factforge

from factforge.generators.scenario import generate
from factforge.generators.spec import ScenarioSpec
from factforge.publish.scenario_files import write_scenario
from factforge.sparql.adjacency import build
from factforge.sparql.demo_kb import demo_kb_path
from factforge.sparql.neighbourhood import NeighbourhoodReader
from factforge.sparql.store import open_store

# A part of the KB no scenario of the demo KB's predicates can reach: its own entities, its own predicate.
UNRELATED = "".join(f"<http://unrelated.example/e{i}> <http://unrelated.example/linked> "
                    f"<http://unrelated.example/e{(i * 7 + 1) % 1500}> .\n" for i in range(3000))


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """No statistic cached by an earlier test: every row is fetched here."""
    monkeypatch.setenv("FACTFORGE_CACHE", str(tmp_path / "cache"))


def written(scenario, folder, store) -> dict[str, bytes]:
    write_scenario(scenario, folder, ["tsv", "jsonl"], store=store)
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def test_a_lookup_of_links_not_fetched_is_noted_and_fetching_gives_the_whole_index_answer(demo_kb_store):
    """The reader works on any store; the embedded demo KB's whole index is the reference."""
    whole = build(demo_kb_store, use_table=False)
    reader = NeighbourhoodReader(demo_kb_store, "http://dbpedia.org/ontology/birthPlace")
    entity = "http://dbpedia.org/resource/Albert_Einstein"
    index = reader.index()
    node = index.id(entity)
    assert node is not None and not index.missing  # a subject of the predicate: its facts are there
    index.out(node)
    assert index.missing == {entity}
    assert reader.fetch(index) == 1
    index = reader.index()
    nodes, preds = index.out(index.id(entity))
    expected_nodes, expected_preds = whole.out(whole.id(entity))
    assert [(index.entities[n], index.predicates[p]) for n, p in zip(nodes.tolist(), preds.tolist())] == \
        [(whole.entities[n], whole.predicates[p]) for n, p in zip(expected_nodes.tolist(), expected_preds.tolist())]
    assert not index.missing
    # degrees of the predicate's entities were counted in the store, equal to the whole index's
    for name in ("http://dbpedia.org/resource/Ulm", entity):
        assert index.degrees[index.id(name)] == whole.degrees[whole.id(name)]
    # an entity fetched whole with no link at all is known absent, not missing
    reader.fetch_links(["http://example.org/nothing-here"])
    index = reader.index()
    assert index.id("http://example.org/nothing-here") is None and not index.missing


SPECS = {
    "walk": dict(predicate="dbo:capital", size=40, transparency=0.5, ambiguous="random_walk", train_size=10, seed=3),
    "lcwa-pair": dict(predicate="dbo:birthPlace", size=60, transparency=0.3, ambiguous="lcwa", leakage="pair",
                      seed=5),
    "walk-3-inverse": dict(predicate="dbo:birthPlace", size=40, transparency=0.0, ambiguous="random_walk",
                           max_path_length=3, popularity="popular", leakage="inverse", seed=8),
}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_demo_kb_scenario_through_oxigraph_serve_is_the_embedded_one(name, tmp_path, fresh_cache):
    """Every file `generate` writes (facts, answers, manifest with its audit) through the command line."""
    with served_demo_kb(tmp_path) as (local, remote):
        knobs = [x for key, value in SPECS[name].items() for x in (f"--{key.replace('_', '-')}", value)]
        factforge("generate", "--store", local, *knobs, "--out", tmp_path / "here")
        there = factforge("generate", *remote, *knobs, "--out", tmp_path / "there")
        assert "false facts" in there.stdout or "true" in there.stdout
        files = sorted(p.name for p in (tmp_path / "here").iterdir())
        assert files == sorted(p.name for p in (tmp_path / "there").iterdir()) and "manifest.json" in files
        for file in files:
            assert (tmp_path / "here" / file).read_bytes() == (tmp_path / "there" / file).read_bytes(), file


@pytest.mark.parametrize("knobs", [
    dict(predicate="dbo:birthPlace", size=100, transparency=0.3, ambiguous="random_walk", seed=1),
    dict(predicate="dbo:team", size=80, transparency=0.0, ambiguous="random_walk", max_path_length=3,
         popularity="popular", leakage="pair", seed=2),
    dict(predicate="dbo:starring", size=60, transparency=0.5, ambiguous="lcwa", leakage="inverse",
         popularity="unpopular", seed=4),
], ids=["birthPlace-walk", "team-walk3-pair", "starring-lcwa-inverse"])
def test_dbpedia50_scenario_through_oxigraph_serve_is_the_embedded_one(knobs, dbpedia_server, dbpedia_store, tmp_path):
    spec = ScenarioSpec.from_dict(knobs)
    remote = open_store(endpoint=dbpedia_server.query_url, fingerprint=dbpedia_store.fingerprint())
    there = generate(remote, spec)
    assert there.fetched["rounds"] >= 2  # it did fetch neighbourhoods, round by round
    here = generate(dbpedia_store, spec)
    assert written(here, tmp_path / "here", dbpedia_store) == written(there, tmp_path / "there", remote)
    # far less than the KB's 43k links came over
    assert there.fetched["links"] < len(build(dbpedia_store).src) / 2


def _rows(server: OxigraphServer, knobs: dict, *, copy: bool = False):
    # a fingerprint per server: what is kept per fingerprint in this process (statement nodes) is
    # not carried from one KB to the other
    remote = open_store(endpoint=server.query_url, fingerprint=f"pinned-{server.port}", copy=copy)
    scenario = generate(remote, ScenarioSpec.from_dict(knobs))
    return scenario, remote.rows_read


def test_rows_fetched_grow_with_the_scenario_not_with_the_kb(tmp_path, fresh_cache, monkeypatch):
    """The same KB with 3,000 unrelated triples added: the same scenario from the same neighbourhood
    rows; only the per-predicate rows of the whole-KB aggregates grow (one predicate more). The old
    full copy moves every added link; a larger scenario moves more rows."""
    (tmp_path / "plain").mkdir()
    (tmp_path / "grown").mkdir()
    extra = tmp_path / "unrelated.nt"
    extra.write_text(UNRELATED)
    plain = OxigraphServer(tmp_path / "plain", [(demo_kb_path(), None)])
    grown = OxigraphServer(tmp_path / "grown", [(demo_kb_path(), None), (extra, None)])
    knobs = dict(predicate="dbo:birthPlace", size=40, transparency=0.3, ambiguous="random_walk", seed=6)
    try:
        runs = {}
        for name, server in (("plain", plain), ("grown", grown)):
            monkeypatch.setenv("FACTFORGE_CACHE", str(tmp_path / f"cache-{name}"))
            runs[name] = _rows(server, knobs)
        (small, small_rows), (same, grown_rows) = runs["plain"], runs["grown"]
        assert [(f.id, f.fact, f.label) for f in small.facts] == [(f.id, f.fact, f.label) for f in same.facts]
        assert small.answers == same.answers and small.removed == same.removed
        assert small.fetched["rows"] == same.fetched["rows"] > 0
        assert 0 <= grown_rows - small_rows <= 20  # one predicate's rows in counts, types, degrees, sample
        monkeypatch.setenv("FACTFORGE_CACHE", str(tmp_path / "cache-copy-plain"))
        copied_plain = _rows(plain, knobs, copy=True)[1]
        monkeypatch.setenv("FACTFORGE_CACHE", str(tmp_path / "cache-copy-grown"))
        copied_grown = _rows(grown, knobs, copy=True)[1]
        assert copied_grown - copied_plain >= 3000  # the old way copies every link
        monkeypatch.setenv("FACTFORGE_CACHE", str(tmp_path / "cache-larger"))
        larger, larger_rows = _rows(plain, {**knobs, "size": 120})
        assert larger.fetched["rows"] > small.fetched["rows"] and larger_rows > small_rows
    finally:
        plain.stop()
        grown.stop()


def test_homogeneity_through_an_endpoint_needs_the_full_copy(tmp_path, fresh_cache):
    (tmp_path / "kb").mkdir()
    server = OxigraphServer(tmp_path / "kb", [(demo_kb_path(), None)])
    try:
        args = ["generate", "--endpoint", server.query_url, "--predicate", "dbo:birthPlace", "--size", "30",
                "--homogeneity", "0.5"]
        refused = factforge(*args, "--out", tmp_path / "a", check=False)
        assert refused.returncode != 0 and "homogeneity" in refused.stderr and "--endpoint-copy" in refused.stderr
        assert "Traceback" not in refused.stderr
        factforge(*args, "--endpoint-copy", "--out", tmp_path / "b")
        assert (tmp_path / "b" / "manifest.json").exists()
        alone = factforge("generate", "--store", tmp_path, "--endpoint-copy", "--predicate", "dbo:birthPlace",
                          "--out", tmp_path / "c", check=False)
        assert alone.returncode != 0 and "--endpoint-copy: only with --endpoint" in alone.stderr
    finally:
        server.stop()


def test_the_whole_index_and_a_neighbourhood_count_link_subjects_alike(demo_kb_store):
    """Nearness's chance estimate: per predicate, distinct subjects of its links; the neighbourhood
    asks the store for the whole KB's, the whole index counts its own."""
    whole = build(demo_kb_store, use_table=False)
    index = NeighbourhoodReader(demo_kb_store, "http://dbpedia.org/ontology/birthPlace").index()
    assert np.array_equal(index.link_subjects, whole.link_subjects)
    assert index.predicates == whole.predicates


# The whole-KB aggregates that join every triple (types and degrees of every predicate): at 10M
# triples they did not finish in the time a scenario has. Told apart by their text.
WHOLE_KB_JOINS = {"predicate_subject_types": "?s ?p ?o . ?s a ?type", "predicate_object_types": "?s ?p ?o . ?o a ?type",
                  "predicate_mean_degree": "SELECT DISTINCT ?p ?e",
                  # every predicate's link subjects in one grouped scan (over 77 s of server CPU at 10M)
                  "predicate_link_subjects (whole KB)": "WHERE { ?s ?q ?o FILTER(!isLiteral(?o)) }"}


def test_a_cold_scenario_asks_only_its_own_predicates_statistics(tmp_path, monkeypatch):
    """Through a real `oxigraph serve` behind a proxy that records every query, a cold client's
    random-walk scenario sends none of the whole-KB type, degree and link-subject aggregates (link
    subjects are asked only of the predicates nearness reads); its predicate's mean
    degree (one per-predicate query) is asked only when popularity ranks the facts. The files are the
    embedded store's all the same."""
    from conftest import SparqlProxy

    from factforge.sparql.templates import load

    own_degree = load("predicate_degree_sum").body.split("WHERE")[0].strip()
    with served_demo_kb(tmp_path) as (local, remote):
        proxy = SparqlProxy(remote[1])
        try:
            for popularity, degree_queries in (("random", 0), ("popular", 1)):
                knobs = ["--predicate", "dbo:birthPlace", "--size", "40", "--transparency", "0.3", "--ambiguous",
                         "random_walk", "--popularity", popularity, "--seed", "2"]
                monkeypatch.setenv("FACTFORGE_CACHE", str(tmp_path / f"cache-here-{popularity}"))
                factforge("generate", "--store", local, *knobs, "--out", tmp_path / f"here-{popularity}")
                monkeypatch.setenv("FACTFORGE_CACHE", str(tmp_path / f"cache-there-{popularity}"))  # a cold client
                del proxy.queries[:]
                factforge("generate", "--endpoint", proxy.url, *remote[2:], *knobs, "--out", tmp_path / f"there-{popularity}")
                assert proxy.queries
                for name, text in WHOLE_KB_JOINS.items():
                    assert not [q for q in proxy.queries if text in q], name
                assert sum(own_degree in q for q in proxy.queries) == degree_queries
                for name in ("test.tsv", "test.jsonl", "answers.json", "manifest.json"):
                    assert (tmp_path / f"here-{popularity}" / name).read_bytes() == \
                        (tmp_path / f"there-{popularity}" / name).read_bytes(), name
        finally:
            proxy.close()


def test_links_kept_between_rounds_index_like_the_strings_sorted_afresh():
    """Names arrive out of IRI order and links twice, over several rounds: each round's arrays are
    the distinct (subject, predicate, object) strings sorted and numbered in IRI order anew."""
    from factforge.sparql.fetched_links import FetchedLinks

    rng = np.random.default_rng(4)
    names = [f"http://example.org/e{i}" for i in rng.permutation(300).tolist()]
    links, seen = FetchedLinks(5), set()
    for _ in range(4):
        for _ in range(200):
            s, o = rng.choice(names, 2).tolist()
            p = int(rng.integers(5))
            links.add(s, p, o)
            seen.add((s, p, o))
        entities, src, pred, dst, _ = links.arrays()
        expected = sorted(seen)
        assert entities == sorted({e for s, _, o in expected for e in (s, o)})
        assert [(entities[a], p, entities[b]) for a, p, b in zip(src.tolist(), pred.tolist(), dst.tolist())] == expected
        assert len(links) == len(expected)


def test_a_neighbourhoods_types_are_the_stores_and_are_asked_once(dbpedia_store, monkeypatch):
    """``Neighbourhood.entity_types`` keeps what it asked over the rounds (each round's index shares the
    reader's) and reads its argument once: an iterator gives the same answer as a list."""
    from factforge.sparql import profiles

    reader = NeighbourhoodReader(dbpedia_store, "http://dbpedia.org/ontology/birthPlace", degrees=False)
    people = sorted({e for e in reader.links.names if "/resource/" in e})[:50]
    expected = {e: t for e, t in profiles.entity_types(dbpedia_store, people).items() if t}
    assert expected  # DBpedia50 types its people
    assert reader.index().entity_types(dbpedia_store, iter(people)) == expected
    asked = []
    select = dbpedia_store.select
    monkeypatch.setattr(dbpedia_store, "select",
                        lambda template, **params: (asked.append(template), select(template, **params))[1])
    assert reader.index().entity_types(dbpedia_store, people) == expected  # a new round's index
    assert "entity_types" not in asked
