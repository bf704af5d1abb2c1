"""Negatives are parameterized SPARQL plus Python post-filters: each registered kind names a query
under sparql/queries (``NegativeSampler.query``) that gives its candidate false facts for a
predicate and a list of true facts. On the demo KB, for every kind and several predicates, the
candidates the numpy path draws from (``candidates``) are exactly the query's answer after the
kind's Python post-filters (``post_filter``: types, the scenario's ledger, nearness), and every
false fact a sampler makes is among them. Only the post-filters are shared by both sides: the
structure of a kind and "not in the KB" are checked independently."""
from __future__ import annotations

import pytest

from factforge.generators import positives
from factforge.generators.facts import Fact, Negative
from factforge.generators.negatives import NegativeContext, registry
from factforge.generators.negatives.kb_view import KBView
from factforge.generators.negatives.nearness_memo import NearnessMemo
from factforge.generators.random_state import stream
from factforge.generators.scenario import _with_dates
from factforge.generators.spec import ScenarioSpec
from factforge.sparql import profiles, templates
from factforge.sparql.adjacency import adjacency
from factforge.sparql.terms import iri

DBO = "http://dbpedia.org/ontology/"
# one-to-one (capital), many subjects per object (birthPlace), several objects per subject
# (officialLanguage, nationality), and dated facts (award, employer)
PREDICATES = ["capital", "birthPlace", "officialLanguage", "nationality", "award", "employer"]
SOURCES = 5
KINDS = sorted(registry.SAMPLERS)
# kinds that pair every subject with every object (and predicate) of p: fewer sources, as each
# gives thousands of candidates
SOURCES_OF_KIND = {"factbench:domainrange": 2, "factbench:random": 1}


def sources_of(store, predicate: str, count: int = SOURCES) -> list[Fact]:
    """Facts spread over the predicate's sorted facts, with the KB's dates where it has them."""
    pairs = sorted(positives.kb_pairs(store, predicate))
    facts = [Fact(s, predicate, o) for s, o in pairs[::max(1, len(pairs) // count)][:count]]
    dated = {f.pair: f for f in _with_dates(store, ScenarioSpec(predicate), facts)}
    return [dated.get(f.pair, f) for f in facts]


def context_for(store, predicate: str, sources: list[Fact], **spec) -> NegativeContext:
    """A fresh context, as the scenario gives the samplers one: its true facts already used."""
    context = NegativeContext.build(store, ScenarioSpec(predicate, **spec), adjacency(store),
                                    positives.kb_pairs(store, predicate))
    context.ledger.used = {f.triple for f in sources}
    return context


def key(negative: Negative) -> tuple:
    return (negative.source.pair, negative.fact.triple, negative.detail.get("side"), negative.detail.get("via"))


def by_numpy(store, name: str, predicate: str, sources: list[Fact], **spec) -> set[tuple]:
    context = context_for(store, predicate, sources, **spec)
    return {key(n) for n in registry.sampler(name).candidates(context, sources)}


def by_query(store, name: str, predicate: str, sources: list[Fact], **spec) -> set[tuple]:
    """The kind's query, each row kept when the kind's Python post-filters take it."""
    maker = registry.sampler(name)
    context = context_for(store, predicate, sources, **spec)
    template = templates.load(maker.query)
    params = {"predicate": iri(predicate), "sources": [(iri(f.s), iri(f.o)) for f in sources]}
    if "links" in template.params:
        params["links"] = profiles.degree_predicates(store)
    if "max_path_length" in template.params:
        params["max_path_length"] = context.spec.max_path_length
    rows = []
    for row in store.select(maker.query, **params):
        detail = {name: row[name].value for name in ("side", "via") if name in row}
        source = Fact(row["source_s"].value, predicate, row["source_o"].value)
        rows.append(Negative(Fact(row["s"].value, row["p"].value, row["o"].value), maker.kind, source, detail))
    context.near.screen(negative.fact for negative in rows)  # nearness in one batch: a memo, same answers
    return {key(negative) for negative in rows if maker.post_filter(context, negative)}


def test_every_kind_has_a_query_with_the_shared_parameters():
    for name in KINDS:
        template = templates.load(registry.SAMPLERS[name].query)
        assert {"predicate", "sources"} <= set(template.params), name
        assert template.form == "SELECT" and template.description, name


@pytest.mark.parametrize("predicate", PREDICATES)
@pytest.mark.parametrize("name", KINDS)
def test_the_numpy_candidates_are_the_querys_after_the_post_filters(demo_kb_store, name, predicate):
    sources = sources_of(demo_kb_store, DBO + predicate, SOURCES_OF_KIND.get(name, SOURCES))
    numpy = by_numpy(demo_kb_store, name, DBO + predicate, sources)
    assert numpy == by_query(demo_kb_store, name, DBO + predicate, sources)
    if predicate == "employer":  # every kind has candidates here: the comparisons are not all between empty sets
        assert numpy


@pytest.mark.parametrize("length", [1, 2, 3])
@pytest.mark.parametrize("predicate", ["capital", "birthPlace", "nationality"])
def test_random_walk_candidates_follow_the_path_length(demo_kb_store, predicate, length):
    sources = sources_of(demo_kb_store, DBO + predicate)
    numpy = by_numpy(demo_kb_store, "random_walk", DBO + predicate, sources, max_path_length=length)
    assert numpy == by_query(demo_kb_store, "random_walk", DBO + predicate, sources, max_path_length=length)
    longer = by_numpy(demo_kb_store, "random_walk", DBO + predicate, sources, max_path_length=length + 1)
    assert numpy <= longer


@pytest.mark.parametrize("predicate", PREDICATES)
@pytest.mark.parametrize("name", KINDS)
def test_every_sampled_false_fact_is_a_query_candidate(demo_kb_store, name, predicate):
    """What ``sample`` makes, whatever it drew, is in the query's answer for its sources (a
    false fact LCWA made around a true fact outside the list comes with that fact as its
    source); a random walk's fallback is a re-pairing with the object of another true fact, and
    LCWA's a candidate of its own source (side "range")."""
    sources = sources_of(demo_kb_store, DBO + predicate, SOURCES_OF_KIND.get(name, SOURCES))
    context = context_for(demo_kb_store, DBO + predicate, sources)
    maker = registry.sampler(name)
    made = maker.sample(context, sources, 4, stream(0, f"negatives/test/{name}"))
    made_from = list(dict.fromkeys(sources + [n.source for n in made]))
    allowed = by_query(demo_kb_store, name, DBO + predicate, made_from)
    for negative in made:
        if negative.detail.get("fallback") and "object_from" in negative.detail:
            donor = negative.detail["object_from"]
            donors = made_from + [Fact(donor["subject"], DBO + predicate, donor["object"])]
            assert key(negative) in by_query(demo_kb_store, "random", DBO + predicate, donors), negative
        elif negative.detail.get("borrowed"):
            # walked along another fact's path: not a candidate of its own source, but a false fact
            assert not context.kb.in_kb(negative.fact) and maker.post_filter(
                context_for(demo_kb_store, DBO + predicate, sources), negative), negative
        else:
            assert key(negative) in allowed, negative
        if maker.dated:
            known = {(row["start"].value, row["end"].value if "end" in row else row["start"].value)
                     for row in demo_kb_store.select("fact_dates", predicate=iri(DBO + predicate))
                     if (row["s"].value, row["o"].value) == negative.fact.pair}
            assert (negative.fact.start, negative.fact.end) not in known


@pytest.mark.parametrize("name", [name for name in KINDS if not registry.SAMPLERS[name].dated])
def test_a_sampler_that_lets_kb_facts_through_is_caught(demo_kb_store, monkeypatch, name):
    """A numpy path that lets facts of the KB through (no not-in-KB check, and no nearness refusal
    of them, which would hide most) gives candidates the query does not, and all of them are
    facts of the KB. (A date corruption keeps a true triple by design.)"""
    predicates = ["officialLanguage", "nationality", "award", "employer"]  # several objects per subject
    chosen = {p: sources_of(demo_kb_store, DBO + p, SOURCES_OF_KIND.get(name, SOURCES)) for p in predicates}
    honest = {p: by_query(demo_kb_store, name, DBO + p, chosen[p]) for p in predicates}
    near = NearnessMemo.next_to_known_object
    monkeypatch.setattr(KBView, "in_kb", lambda self, fact: False)
    monkeypatch.setattr(NearnessMemo, "next_to_known_object",
                        lambda self, fact: near(self, fact) and fact.pair not in self.kb.kb_pairs)
    extra = set()
    for p in predicates:
        extra |= by_numpy(demo_kb_store, name, DBO + p, chosen[p]) - honest[p]
    index = adjacency(demo_kb_store)
    assert extra and all(index.has_link(s, p, o) for _, (s, p, o), _, _ in extra)


@pytest.mark.parametrize("predicate", ["capital", "birthPlace", "nationality"])
def test_lcwa_candidates_include_the_range_fallback_and_the_query_gives_them(demo_kb_store, predicate):
    """LCWA's fallback, (s, p, o') with o' from p's observed range (an object of some p-fact, not
    s's own), is among the candidates, and the query gives the same ones (side "range", no via)."""
    sources = sources_of(demo_kb_store, DBO + predicate)
    numpy = by_numpy(demo_kb_store, "lcwa", DBO + predicate, sources)
    fallback = {k for k in numpy if k[2] == "range"}
    assert fallback, "no range candidate: the comparison would prove nothing"
    pairs = positives.kb_pairs(demo_kb_store, DBO + predicate)
    objects = {o for _, o in pairs}
    for (source_s, _), (s, p, o), _, via in fallback:
        assert via is None and s == source_s and p == DBO + predicate
        assert o in objects and (s, o) not in pairs and s != o
    assert numpy == by_query(demo_kb_store, "lcwa", DBO + predicate, sources)
