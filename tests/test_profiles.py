"""Profiles: Eq. 1, the functionality rule, type paths, and DBpedia50 statistics recomputed
independently from the file."""
import json
import math
import re
from collections import Counter

import pytest

from conftest import DBPEDIA_NT
from factforge.sparql import profiles
from factforge.sparql.fact_popularity import fact_popularity
from factforge.sparql.cache import StatsCache
from factforge.sparql.profiles import UnknownPredicate, functionality, popularities, popularity
from factforge.sparql.terms import is_schema_predicate

LINE = re.compile(r"^<([^>]*)> <([^>]*)> (.*) \.$")


@pytest.mark.parametrize("gs,go,mean,expected", [(942, 23298, 1452, 16056), (1101, 1144, 1452, 1968),
                                                 (205, 328, 1452, 251)])
def test_popularity_matches_the_papers_worked_example(gs, go, mean, expected):
    assert math.floor(popularity(gs, go, mean)) == expected
    assert popularity(go, gs, mean) == popularity(gs, go, mean)


def test_the_scalar_and_the_array_eq1_agree_on_random_degrees():
    import numpy as np

    rng = np.random.default_rng(7)
    degree_s, degree_o = rng.integers(0, 10**6, 2000), rng.integers(0, 10**6, 2000)
    for mean in (0.5, 1.0, 1452.0, rng.uniform(0.01, 10**5)):
        scores = popularities(degree_s, degree_o, mean)
        assert scores.shape == (2000,)
        assert scores.tolist() == [popularity(int(s), int(o), mean) for s, o in zip(degree_s, degree_o)]
        # symmetric in subject and object, as the paper's min/max reads
        assert popularities(degree_o, degree_s, mean).tolist() == scores.tolist()


@pytest.mark.parametrize("facts,subjects,objects,expected", [
    (100, 100, 100, "1-1"), (100, 20, 100, "1-N"), (100, 100, 10, "N-1"), (100, 10, 10, "N-N"),
    (149, 100, 100, "1-1"), (150, 100, 150, "1-N")])
def test_functionality_rule(facts, subjects, objects, expected):
    assert functionality(facts, subjects, objects) == expected


def independent_stats(predicate):
    """Facts, subjects, objects and the mean degree of a predicate's entities, from the raw file."""
    facts, degree = [], Counter()
    for line in DBPEDIA_NT.read_text(encoding="utf-8").splitlines():
        s, p, o = LINE.match(line).groups()
        if not o.startswith("<"):
            continue
        if not is_schema_predicate(p):
            degree[s] += 1
            degree[o[1:-1]] += 1
        if p == predicate:
            facts.append((s, o[1:-1]))
    entities = {e for fact in facts for e in fact}
    return facts, sum(degree[e] for e in entities) / len(entities), degree


@pytest.mark.parametrize("name", ["birthPlace", "team"])
def test_predicate_profile_matches_the_file(dbpedia_store, name):
    predicate = f"http://dbpedia.org/ontology/{name}"
    facts, mean, _ = independent_stats(predicate)
    profile = profiles.predicate_profile(dbpedia_store, f"dbo:{name}")
    subjects, objects = len({s for s, _ in facts}), len({o for _, o in facts})
    assert (profile["facts"], profile["subjects"], profile["objects"]) == (len(set(facts)), subjects, objects)
    assert profile["functionality"] == functionality(len(facts), subjects, objects)
    assert profile["mean_degree"] == pytest.approx(mean, rel=1e-4)
    assert profile["subject_types"] and profile["object_types"]


def test_fact_popularity_uses_real_degrees(dbpedia_store):
    facts, mean, degree = independent_stats("http://dbpedia.org/ontology/birthPlace")
    scored = fact_popularity(dbpedia_store, "dbo:birthPlace")
    assert len(scored) == len(facts)
    for fact in scored[:: max(1, len(scored) // 50)]:
        assert fact["degree_s"] == degree[fact["s"]] and fact["degree_o"] == degree[fact["o"]]
        assert fact["popularity"] == pytest.approx(popularity(degree[fact["s"]], degree[fact["o"]], mean), rel=1e-4)


def test_type_paths_checked_by_hand(dbpedia_store):
    paths = profiles.type_paths(dbpedia_store, ["http://dbpedia.org/resource/Albert_Einstein",
                                                "http://dbpedia.org/resource/London"])
    assert [profiles.path_text(p) for p in paths["http://dbpedia.org/resource/Albert_Einstein"]] == [
        "Thing/Agent/Person/Scientist"]
    assert "Thing/Place/PopulatedPlace/Settlement/City" in [
        profiles.path_text(p) for p in paths["http://dbpedia.org/resource/London"]]


def test_profiles_are_cached_by_fingerprint(dbpedia_store):
    first = profiles.predicate_profiles(dbpedia_store)
    cache = StatsCache(dbpedia_store)
    assert dbpedia_store.fingerprint() in str(cache.path("predicate-profiles"))
    stored = json.loads(cache.path("predicate-profiles").read_text())
    assert stored == first
    # A doctored cache entry is what gets read back: proof the second call does not recompute.
    stored[0]["facts"] = -1
    cache.put("predicate-profiles", stored)
    assert profiles.predicate_profiles(dbpedia_store)[0]["facts"] == -1
    cache.put("predicate-profiles", first)


def test_unknown_and_malformed_predicates(dbpedia_store):
    with pytest.raises(UnknownPredicate, match="no fact of"):
        profiles.predicate_profile(dbpedia_store, "dbo:noSuchPredicate")
    with pytest.raises(UnknownPredicate, match="predicate: .*not a valid absolute IRI"):
        profiles.predicate_profile(dbpedia_store, "birth place")


# --- the quad-table path (scan + quadstats) against the aggregate queries -------------------------------
def test_table_profiles_equal_the_aggregate_queries_on_dbpedia(dbpedia_store):
    from factforge.sparql.scan import kb_table

    assert kb_table(dbpedia_store) is not None  # the fast path is the one under test
    assert profiles._compute_profiles(dbpedia_store, False) == profiles._compute_profiles(
        dbpedia_store, False, use_table=False)


def test_table_profiles_equal_the_aggregate_queries_on_the_demo_kb(tmp_path):
    from importlib import resources

    from factforge.sparql.loading import load_files
    from factforge.sparql.scan import kb_table
    from factforge.sparql.store import open_store

    store = open_store(tmp_path / "demo")
    load_files(store, [resources.files("factforge.sparql") / "demo" / "demo.ttl"], progress=False)
    load_files(store, [DBPEDIA_NT], graph="http://example.org/graph/copy", progress=False)  # same triples twice
    assert kb_table(store) is not None
    assert profiles._compute_profiles(store, False) == profiles._compute_profiles(store, False, use_table=False)


def test_blank_nodes_fall_back_to_the_aggregate_queries(tmp_path):
    from factforge.sparql.loading import load_files
    from factforge.sparql.scan import kb_table
    from factforge.sparql.store import open_store

    source = tmp_path / "b.nt"
    source.write_text('<http://example.org/a> <http://example.org/p> _:x .\n'
                      '_:x <http://example.org/p> <http://example.org/c> .\n', encoding="utf-8")
    store = open_store(tmp_path / "kb")
    load_files(store, [source], progress=False)
    assert kb_table(store) is None
    [profile] = profiles.predicate_profiles(store)
    assert (profile["facts"], profile["subjects"], profile["objects"]) == (2, 2, 2)


# --- one predicate by its own queries (what a scenario behind an endpoint asks) --------------------------
def test_one_predicates_own_queries_give_its_whole_kb_profile(dbpedia_store, tmp_path, monkeypatch):
    """``predicate_types`` and ``predicate_degree_sum`` about one predicate give the numbers of the
    whole-KB aggregates, on DBpedia50 and on the demo KB held twice (two graphs)."""
    from importlib import resources

    from factforge.sparql.loading import load_files
    from factforge.sparql.store import open_store

    monkeypatch.setenv("FACTFORGE_CACHE", str(tmp_path / "cache"))
    twice = open_store(tmp_path / "demo")
    load_files(twice, [resources.files("factforge.sparql") / "demo" / "demo.ttl"], progress=False)
    load_files(twice, [DBPEDIA_NT], graph="http://example.org/graph/copy", progress=False)
    for store, limit in ((twice, 3), (dbpedia_store, 2)):
        whole = [p for p in profiles._compute_profiles(store, False, use_table=False) if not p["schema"]][:limit]
        assert any(p["mean_degree"] for p in whole) and any(p["object_types"] for p in whole)
        for expected in whole:
            assert profiles._endpoint_profile(store, expected["predicate"], degree=True) == expected
            without = profiles._endpoint_profile(store, expected["predicate"], degree=False)
            assert without == {**expected, "mean_degree": None}
