"""Walks that fetch what they lack in a round that has lacked nothing so far (issue 17,
``sparql.walk_ahead``): they draw what the whole index's walks draw, and the rounds a scenario
takes no longer grow with its sources (one seeded generator walks them one after another)."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import SparqlProxy, served_demo_kb
from test_neighbourhood import fresh_cache, written  # noqa: F401 - fresh_cache is a fixture

from factforge.generators.negatives.random_walk import meta_paths, walk_ends
from factforge.generators.neighbourhood import generate_around
from factforge.generators.scenario import generate
from factforge.generators.spec import ScenarioSpec
from factforge.sparql.adjacency import Adjacency, build
from factforge.sparql.neighbourhood import HUB_LINKS, Neighbourhood, NeighbourhoodReader
from factforge.sparql.store import open_store
from factforge.sparql.templates import load
from factforge.sparql.walk_ahead import WalkAhead, WalksLack

BIRTHPLACE = "http://dbpedia.org/ontology/birthPlace"


def test_walks_that_fetch_what_they_lack_draw_what_the_whole_index_draws(demo_kb_store):
    """From the predicate's facts alone (nothing else fetched), each fact's walks along its paths of
    length up to 3 end where the whole index's end, and leave the seeded generator in the same
    state: a run's length is known before the draw, the drawn node fetched after it."""
    whole = build(demo_kb_store, use_table=False)
    reader = NeighbourhoodReader(demo_kb_store, BIRTHPLACE, degrees=False)
    index = reader.index()
    assert index.predicates == whole.predicates  # signed steps mean the same in both
    index.walk_reader = reader
    walker = index.walker()
    assert isinstance(walker, WalkAhead)
    p = whole.pindex[BIRTHPLACE]
    facts = np.flatnonzero(whole.pred == p)[::3][:100]
    walked = 0
    for seed, at in enumerate(facts.tolist()):
        s, o = int(whole.src[at]), int(whole.dst[at])
        paths = meta_paths(whole, s, o, 3, p + 1)
        here, there = np.random.default_rng(seed), np.random.default_rng(seed)
        expected = walk_ends(whole, s, paths, (s, o), here)
        names = (whole.entities[s], whole.entities[o])
        got = walk_ends(walker, walker.node(names[0]), paths, (walker.node(names[0]), walker.node(names[1])), there)
        assert [None if end is None else walker.entities[end] for end in got] == \
            [None if end is None else whole.entities[end] for end in expected], whole.entities[s]
        assert here.bit_generator.state == there.bit_generator.state
        walked += sum(end is not None for end in expected)
    assert walked > 60 and walker.fetches > 0 and index.walked_ahead == walker.fetches
    # the round's index lacks what its walks fetched: the next index holds it
    assert not index.lacks_links and reader.index().complete.sum() + len(reader.runs) > index.complete.sum()


def test_a_walk_step_that_lacks_runs_costs_one_round_trip(demo_kb_store, tmp_path, fresh_cache):  # noqa: F811
    """Through a real `oxigraph serve`: each walk step that lacks runs asks one query
    (``entity_walk_runs``: the runs' lengths and, below ``HUB_LINKS``, their links), where counting
    the entity's links and then reading its in- and out-runs took up to three; the walks still
    end where the whole index's do."""
    whole = build(demo_kb_store, use_table=False)
    assert whole.degrees.max() <= HUB_LINKS  # no hub: a step's draw needs nothing after its query
    p = whole.pindex[BIRTHPLACE]
    facts = np.flatnonzero(whole.pred == p)[::3][:60]
    with served_demo_kb(tmp_path) as (_, remote):
        proxy = SparqlProxy(remote[1])
        try:
            reader = NeighbourhoodReader(open_store(endpoint=proxy.url, fingerprint=remote[-1]), BIRTHPLACE,
                                         degrees=False)
            index = reader.index()
            index.walk_reader = reader
            walker = index.walker()
            before = len(proxy.queries)
            for seed, at in enumerate(facts.tolist()):
                s, o = int(whole.src[at]), int(whole.dst[at])
                paths = meta_paths(whole, s, o, 3, p + 1)
                expected = walk_ends(whole, s, paths, (s, o), np.random.default_rng(seed))
                names = (whole.entities[s], whole.entities[o])
                got = walk_ends(walker, walker.node(names[0]), paths, (walker.node(names[0]), walker.node(names[1])),
                                np.random.default_rng(seed))
                assert [None if end is None else walker.entities[end] for end in got] == \
                    [None if end is None else whole.entities[end] for end in expected], names[0]
            queries = proxy.queries[before:]
        finally:
            proxy.close()
    steps = load("entity_walk_runs").body.split("$", 1)[0]
    assert walker.fetches > 20 and len(queries) == walker.fetches
    assert all(steps in query for query in queries)


def test_a_round_that_lacked_something_ends_before_its_walks(demo_kb_store):
    """Once a lookup lacked links, walks would not draw what the whole index's draw: the round ends
    there (``WalksLack``, which ``generate_around`` takes as a round that lacked links), fetching
    nothing. Outside a round the index walks over what it has, noting what it lacks."""
    reader = NeighbourhoodReader(demo_kb_store, BIRTHPLACE, degrees=False)
    index = reader.index()
    index.out(index.id("http://dbpedia.org/resource/Albert_Einstein"))
    assert index.lacks_links and index.walker() is index and Adjacency.walker(index) is index
    index.walk_reader = reader
    with pytest.raises(WalksLack):
        index.walker()
    assert index.walked_ahead == 0


def test_a_scenario_takes_fewer_rounds_and_is_the_whole_index_one(demo_kb_store, tmp_path, fresh_cache,  # noqa: F811
                                                                  monkeypatch):
    """Length-3 random walks over the demo KB: the scenario made round by round from neighbourhoods
    is the whole index's, byte for byte, and takes fewer rounds than with walks that only note what
    they lack and go on (then a round put right the walks of a few more sources)."""
    spec = ScenarioSpec.from_dict(dict(predicate="dbo:birthPlace", size=60, transparency=0.0,
                                       ambiguous="random_walk", max_path_length=3, seed=1))
    expected = written(generate(demo_kb_store, spec), tmp_path / "whole", demo_kb_store)
    ahead = generate_around(demo_kb_store, spec, lambda part: generate(demo_kb_store, spec, index=part))
    monkeypatch.setattr(Neighbourhood, "walker", Adjacency.walker)
    noted = generate_around(demo_kb_store, spec, lambda part: generate(demo_kb_store, spec, index=part))
    assert written(ahead, tmp_path / "ahead", demo_kb_store) == expected
    assert written(noted, tmp_path / "noted", demo_kb_store) == expected
    assert ahead.fetched["rounds"] < noted.fetched["rounds"]
