"""Scenarios on real data (DBpedia50 + the DBpedia ontology): every promise rechecked here
independently of ``check_invariants``, by batch queries over the store and from the raw file."""
from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from collections import Counter
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from conftest import DBPEDIA_NT, ONTOLOGY_GRAPH, ONTOLOGY_TTL, store_from_text
from factforge.generators.positives import NotEnoughFacts
from factforge.generators.scenario import Scenario, generate
from factforge.generators.spec import ScenarioSpec, SpecError
from factforge.generators.writers import render
from factforge.sparql import profiles
from factforge.sparql.profiles import UnknownPredicate
from factforge.sparql.terms import PREFIXES, iri

DBO = PREFIXES["dbo"]
RDF_TYPE = PREFIXES["rdf"] + "type"
BIRTH_PLACE = DBO + "birthPlace"
TEAM = DBO + "team"
LINE = re.compile(r"^<([^>]*)> <([^>]*)> (.*) \.$")
KNOBS = ("size", "train_size", "ratio", "transparency", "type_overlap", "max_path_length", "ambiguous", "homogeneity")
HAS_CLUSTERS = importlib.util.find_spec("factforge.generators.clusters") is not None


# --- the raw file, read once ---------------------------------------------------------------------
@lru_cache(maxsize=None)
def raw_facts(predicate: str) -> frozenset[tuple[str, str]]:
    facts = set()
    for line in DBPEDIA_NT.read_text(encoding="utf-8").splitlines():
        s, p, o = LINE.match(line).groups()
        if p == predicate and o.startswith("<"):
            facts.add((s, o[1:-1]))
    return frozenset(facts)


@lru_cache(maxsize=None)
def raw_types() -> dict[str, frozenset[str]]:
    types: dict[str, set[str]] = {}
    for line in DBPEDIA_NT.read_text(encoding="utf-8").splitlines():
        s, p, o = LINE.match(line).groups()
        if p == RDF_TYPE and o.startswith("<"):
            types.setdefault(s, set()).add(o[1:-1])
    return {e: frozenset(t) for e, t in types.items()}


# --- scenarios, made once per spec ------------------------------------------------------------------
@pytest.fixture(scope="module")
def make(dbpedia_store):
    made: dict[ScenarioSpec, Scenario] = {}

    def _make(**fields) -> Scenario:
        spec = ScenarioSpec(**fields)
        if spec not in made:
            made[spec] = generate(dbpedia_store, spec)
        return made[spec]

    return _make


# --- independent checks -----------------------------------------------------------------------------
def kb_triples(store, facts) -> set[tuple[str, str, str]]:
    """Every KB triple (s, p, o) of the facts' subjects and predicates, by batched template queries."""
    subjects = sorted({f.s for f in facts})
    predicates = [iri(p) for p in sorted({f.p for f in facts})]
    found = set()
    for batch in profiles.batched(subjects, 400):
        for row in store.select("subject_facts", subjects=[iri(s) for s in batch], predicates=predicates):
            found.add((row["s"].value, row["p"].value, row["o"].value))
    return found


def recheck(store, scenario: Scenario) -> None:
    spec = scenario.spec
    facts = scenario.facts
    # ids: one per fact, numbered per split, every id answered with the fact's label
    for split, prefix, items in (("test", "te", scenario.test), ("train", "tr", scenario.train)):
        assert [i.id for i in items] == [f"{prefix}{n:05d}" for n in range(1, len(items) + 1)]
        assert all(i.split == split for i in items)
    assert set(scenario.answers) == {i.id for i in facts}
    assert all(scenario.answers[i.id]["label"] == i.label for i in facts)
    assert all(i.fact.p == spec.predicate for i in facts)
    # true facts in the KB, false facts not, s != o, no duplicate
    in_kb = kb_triples(store, [i.fact for i in facts])
    for item in facts:
        assert item.fact.s != item.fact.o, item
        assert (item.fact.triple in in_kb) == item.label, item
    triples = [i.fact.triple for i in facts]
    assert len(triples) == len(set(triples))
    # no (s, o) pair in both splits; no entity either when asked
    assert not {i.fact.pair for i in scenario.test} & {i.fact.pair for i in scenario.train}
    if spec.entity_disjoint:
        test_entities = {e for i in scenario.test for e in i.fact.pair}
        train_entities = {e for i in scenario.train for e in i.fact.pair}
        assert not test_entities & train_entities
    # counts exact, transparency exact up to rounding, each false fact made from a true one of its split
    for items, (n_true, n_false) in ((scenario.test, spec.test_counts), (scenario.train, spec.train_counts)):
        false = [i for i in items if not i.label]
        assert sum(i.label for i in items) == n_true and len(false) == n_false
        kinds = Counter(scenario.answers[i.id]["kind"] for i in false)
        n_random = int(round(spec.transparency * n_false))
        assert kinds["random"] == n_random
        assert kinds[spec.ambiguous] == n_false - n_random
        assert sum(kinds.values()) == n_false
        true_triples = {i.fact.triple for i in items if i.label}
        for item in false:
            answer = scenario.answers[item.id]
            source = (answer["source"]["subject"], answer["source"]["predicate"], answer["source"]["object"])
            if answer.get("source_outside_scenario"):  # LCWA borrowing a KB fact: true, but not in this split
                assert source not in true_triples and store.ask_query(
                    f"ASK {{ {iri(source[0])} {iri(source[1])} {iri(source[2])} }}")
            else:
                assert source in true_triples
    assert scenario.summary["counts"]["test"]["true"] == spec.test_counts[0]
    assert scenario.summary["counts"]["train"]["false"] == spec.train_counts[1]


def typical_chain(store, predicate: str, side: str) -> frozenset[str]:
    """The documented stand-in for an untyped original: the type path of the predicate's most
    frequent class on that side (by facts, ties by IRI), counted here from the raw file."""
    counts: Counter = Counter()
    types = raw_types()
    for s, o in raw_facts(predicate):
        for t in types.get(s if side == "subject" else o, ()):
            counts[t] += 1
    if not counts:
        return frozenset()
    top = min(counts, key=lambda t: (-counts[t], t))
    return frozenset(profiles.class_tree(store).chain(top))


def recheck_types(store, scenario: Scenario) -> dict:
    """|T(o) ∩ T(o')| >= min(k, |T(o)|) for every LCWA and random-walk false fact, T from type_paths.

    min(k, 0) = 0 would let anything through for an untyped original. It takes an untyped candidate
    that the raw file uses on the same side of p (a type-only check must not tell them apart), and
    for LCWA, which has no fallback, the documented stand-in: the type path of p's most frequent
    class on that side."""
    spec = scenario.spec
    checked, kinds = [], {}
    for item in scenario.facts:
        answer = scenario.answers[item.id]
        if answer["kind"] not in ("lcwa", "random_walk"):
            continue
        side = answer.get("side", "object")
        source = answer["source"]
        original = source["subject"] if side == "subject" else source["object"]
        candidate = item.fact.s if side == "subject" else item.fact.o
        if side == "subject":
            assert item.fact.o == source["object"]
        else:
            assert item.fact.s == source["subject"]
        checked.append((original, candidate, side))
        kinds[(original, candidate, side)] = answer["kind"]
    entities = {e for original, candidate, _ in checked for e in (original, candidate)}
    paths = profiles.type_paths(store, entities)
    types = {e: frozenset(c for path in paths.get(e, []) for c in path) for e in entities}
    raw = raw_types()
    on_side = {"subject": {s for s, _ in raw_facts(spec.predicate)}, "object": {o for _, o in raw_facts(spec.predicate)}}
    untyped = 0
    for original, candidate, side in checked:
        want = types[original]
        if not want:
            untyped += 1
            if not types[candidate]:
                # the range fallback's o' replaces the object, as the object side's does
                on = "subject" if side == "subject" else "object"
                assert not raw.get(candidate) and candidate in on_side[on], (original, candidate, side)
                continue
            assert kinds[(original, candidate, side)] == "lcwa", (original, candidate, side)
            want = typical_chain(store, spec.predicate, side)
            assert want, "the stand-in must not let every candidate through"
        assert len(want & types[candidate]) >= min(spec.type_overlap, len(want)), (original, candidate, side)
    return {"checked": len(checked), "untyped_originals": untyped}


def expected_drift(scenario: Scenario):
    alternatives = Counter()
    for answer in scenario.answers.values():
        if answer["kind"] in ("lcwa", "random_walk"):
            value = answer.get("via") or answer.get("path")
            if value:  # the summary names predicates the way paths do: dbo:deathPlace
                alternatives[value.replace(PREFIXES["dbo"], "dbo:")] += 1
    return alternatives


# --- the grid ------------------------------------------------------------------------------------------
GRID = [(p, c, amb) for p in (BIRTH_PLACE, TEAM) for c in (0.0, 0.5, 1.0) for amb in ("lcwa", "random_walk")]


def grid_spec(predicate, c, ambiguous, homogeneity=0.0) -> dict:
    if ambiguous == "lcwa" and c == 0:
        # LCWA needs the false fact's subject to have p-facts of its own; on sparse DBpedia50 only
        # some true facts have such an alternative (about half of dbo:team's, fewer of birthPlace's),
        # so these cells ask fewer false facts per true fact.
        return dict(predicate=predicate, size=40, ratio=3.0, transparency=c, ambiguous=ambiguous,
                    homogeneity=homogeneity, train_size=20, seed=11)
    return dict(predicate=predicate, size=60, transparency=c, ambiguous=ambiguous, homogeneity=homogeneity,
                train_size=20, seed=11)


@pytest.mark.parametrize("predicate,c,ambiguous", GRID, ids=[f"{p[len(DBO):]}-c{c}-{a}" for p, c, a in GRID])
def test_invariants_hold(dbpedia_store, make, predicate, c, ambiguous):
    scenario = make(**grid_spec(predicate, c, ambiguous))
    recheck(dbpedia_store, scenario)
    assert scenario.id == scenario.spec.scenario_id(dbpedia_store.fingerprint(), scenario.version)
    made = scenario.summary["transparency"]["made"]
    n_false = sum(not i.label for i in scenario.facts)
    assert made == round(sum(a["kind"] == "random" for a in scenario.answers.values()) / n_false, 4)


@pytest.mark.skipif(not HAS_CLUSTERS, reason="generators/clusters.py (homogeneity) is not there yet; "
                                             "homogeneity=1 is covered with it by its own tests")
@pytest.mark.parametrize("ambiguous", ["lcwa", "random_walk"])
def test_invariants_hold_at_full_homogeneity(dbpedia_store, make, ambiguous):
    # One cluster's facts have few LCWA alternatives and may share their object (then re-pairing
    # finds nothing): ask fewer false facts per true fact.
    scenario = make(**{**grid_spec(BIRTH_PLACE, 0.5, ambiguous, homogeneity=1.0), "size": 40, "ratio": 3.0})
    recheck(dbpedia_store, scenario)
    recheck_types(dbpedia_store, scenario)
    assert all("cluster" in a for a in scenario.answers.values() if a["label"])


@pytest.mark.parametrize("predicate,c,ambiguous", [g for g in GRID if g[1] < 1],
                         ids=[f"{p[len(DBO):]}-c{c}-{a}" for p, c, a in GRID if c < 1])
def test_ambiguous_false_facts_pass_the_type_check(dbpedia_store, make, predicate, c, ambiguous):
    scenario = make(**grid_spec(predicate, c, ambiguous))
    seen = recheck_types(dbpedia_store, scenario)
    n_false = sum(not i.label for i in scenario.facts)
    fallback = sum(a.get("fallback") is not None for a in scenario.answers.values())
    assert seen["checked"] == n_false - sum(a["kind"] == "random" for a in scenario.answers.values())
    assert fallback <= seen["checked"]


@pytest.mark.parametrize("predicate", [BIRTH_PLACE, TEAM])
def test_lcwa_false_facts_have_subjects_with_known_facts(dbpedia_store, make, predicate):
    """The closed world is local to the false fact's subject: it must have p-facts in the KB."""
    scenario = make(**grid_spec(predicate, 0.0, "lcwa"))
    subjects = {r["s"].value for r in dbpedia_store.select("predicate_facts", predicate=iri(predicate))}
    lcwa = [i.fact for i in scenario.facts if not i.label and scenario.answers[i.id]["kind"] == "lcwa"]
    assert lcwa and all(f.s in subjects for f in lcwa)
    assert any(scenario.answers[i.id].get("side") == "subject" for i in scenario.facts if not i.label)


def test_type_check_covers_untyped_originals(dbpedia_store, make):
    """About a fifth of DBpedia50's entities have no class: the fallback path must be exercised."""
    found = 0
    for seed in range(4):
        scenario = make(predicate=BIRTH_PLACE, size=120, ratio=3.0, transparency=0.0, ambiguous="lcwa", seed=seed)
        found += recheck_types(dbpedia_store, scenario)["untyped_originals"]
        if found:
            break
    assert found, "no LCWA false fact came from an untyped original in four scenarios"


@pytest.mark.parametrize("predicate,c", [(BIRTH_PLACE, 0.0), (BIRTH_PLACE, 0.5), (TEAM, 0.5)])
def test_location_drift_is_reported_as_recomputed(make, predicate, c):
    scenario = make(**grid_spec(predicate, c, "lcwa"))
    alternatives = expected_drift(scenario)
    lcwa = [a for a in scenario.answers.values() if a["kind"] == "lcwa" and not a.get("fallback")]
    # every neighbour-made LCWA false fact names its alternative (range fallbacks have none: no link led to o')
    assert sum(alternatives.values()) == len(lcwa) > 0
    drift = scenario.summary["drift"]
    top = max(alternatives.values())
    assert drift["share"] == round(top / len(lcwa), 4)
    assert alternatives[drift["top"]] == top
    assert all(a["via"] != predicate for a in lcwa)  # an *alternative* predicate, never p itself
    assert 0 < drift["share"] <= 1


def test_summary_and_audit_name_the_same_drift_when_paths_tie(make, dbpedia_store):
    """Random-walk paths often tie for the most frequent; the CLI prints the summary's and the
    audit's drift one above the other, so they must break the tie the same way."""
    from factforge.evaluation.audit import audit_scenario

    # a seed whose two most frequent paths tie (which one each false fact took moves with the
    # sampler: seed 3 tied until owed objects were matched to subjects by reach, seed 6 until the
    # matching asked acceptance of the pairs it holds only, seed 16 until walks could take any end
    # their paths reach)
    scenario = make(predicate=TEAM, size=200, transparency=0.3, homogeneity=0.8, ambiguous="random_walk",
                    leakage="pair", train_size=100, entity_disjoint=True, seed=22)
    counts = Counter(a["path"] for a in scenario.answers.values() if a.get("path"))
    assert sorted(counts.values())[-2:] == [max(counts.values())] * 2, "no tie here: the test shows nothing"
    assert scenario.summary["drift"]["top"] == audit_scenario(scenario, dbpedia_store)["drift"]["top"]


def test_drift_is_none_without_ambiguous_false_facts(make):
    assert make(**grid_spec(BIRTH_PLACE, 1.0, "lcwa")).summary["drift"] is None


def test_walk_made_share_is_reported_apart_from_fallback(make, dbpedia_store, tmp_path):
    """At c = 0 most random-walk false facts of spouse are fallback re-pairings, which the
    transparency (0) does not show: the summary, manifest and CLI give the walk-made share."""
    scenario = make(predicate=DBO + "spouse", size=160, transparency=0.0, ambiguous="random_walk", seed=0)
    answers = [scenario.answers[i.id] for i in scenario.facts if not i.label]
    fallback = sum(bool(a.get("fallback")) for a in answers)
    walk = scenario.summary["random_walk"]
    assert 0 < fallback < len(answers), "this spec should mix walks and fallback"
    assert (walk["false_facts"], walk["walk_made"], walk["fallback"]) == (len(answers), len(answers) - fallback, fallback)
    assert walk["walk_share"] == round((len(answers) - fallback) / len(answers), 4)
    assert "not" in walk["note"] and scenario.manifest()["random_walk"] == walk
    assert make(**grid_spec(BIRTH_PLACE, 1.0, "random_walk")).summary["random_walk"] is None  # no walk asked
    from factforge.cli.generate import print_summary
    import contextlib
    import io

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        print_summary(scenario, {"files": {}}, str(tmp_path), 0.0)
    assert (f"random walk: {len(answers) - fallback} of {len(answers)} false facts reached by a walk"
            in printed.getvalue())
    assert f"the other {fallback} are fallback re-pairings" in printed.getvalue()


@pytest.mark.parametrize("ambiguous", ["lcwa", "random_walk"])
def test_entity_disjoint_splits_share_no_entity(dbpedia_store, make, ambiguous):
    scenario = make(predicate=BIRTH_PLACE, size=60, train_size=40, entity_disjoint=True, transparency=0.5,
                    ambiguous=ambiguous, seed=5)
    assert scenario.train
    recheck(dbpedia_store, scenario)
    test_entities = {e for i in scenario.test for e in i.fact.pair}
    assert not test_entities & {e for i in scenario.train for e in i.fact.pair}


# --- determinism ------------------------------------------------------------------------------------------
DETERMINISM = dict(predicate=BIRTH_PLACE, size=60, transparency=0.5, ambiguous="random_walk", train_size=20,
                   leakage="inverse", seed=2024)


def test_same_spec_and_seed_give_the_same_scenario(dbpedia_store):
    spec = ScenarioSpec(**DETERMINISM)
    a, b = generate(dbpedia_store, spec), generate(dbpedia_store, spec)
    assert a.id == b.id
    assert a.test == b.test and a.train == b.train
    assert a.answers == b.answers and a.removed == b.removed and a.summary == b.summary
    assert render(a, "tsv") == render(b, "tsv") and render(a, "tsv", "train") == render(b, "tsv", "train")


def test_other_seed_gives_other_test_facts(make):
    a = make(**DETERMINISM)
    b = make(**{**DETERMINISM, "seed": 2025})
    assert a.id != b.id
    assert {i.fact for i in a.test} != {i.fact for i in b.test}
    assert {i.fact for i in a.test if i.label} != {i.fact for i in b.test if i.label}


SUBPROCESS = r"""
import json, sys
from pathlib import Path
from factforge.sparql.store import open_store
from factforge.sparql.loading import load_files
from factforge.generators.scenario import generate
from factforge.generators.spec import ScenarioSpec
from factforge.generators.writers import render

nt, ontology, graph, spec = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
store = open_store(None)
load_files(store, [Path(nt)], progress=False)
load_files(store, [Path(ontology)], graph=graph, progress=False)
scenario = generate(store, ScenarioSpec.from_dict(spec))
sys.stdout.buffer.write(json.dumps({"id": scenario.id, "test": render(scenario, "tsv").decode(),
                                    "train": render(scenario, "tsv", "train").decode(),
                                    "answers": scenario.answers}).encode())
"""


def test_bytes_do_not_depend_on_the_hash_seed_or_the_cache(dbpedia_store, make, tmp_path):
    """Another process, another PYTHONHASHSEED, an in-memory store and a cold cache: same bytes."""
    here = make(**DETERMINISM)
    hash_seed = "271828" if os.environ.get("PYTHONHASHSEED") != "271828" else "314159"
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "FACTFORGE_CACHE": str(tmp_path / "cold-cache")}
    done = subprocess.run([sys.executable, "-c", SUBPROCESS, str(DBPEDIA_NT), str(ONTOLOGY_TTL), ONTOLOGY_GRAPH,
                           here.spec.canonical_json()], env=env, capture_output=True, timeout=110)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    there = json.loads(done.stdout)
    assert there["id"] == here.id
    assert there["test"].encode() == render(here, "tsv")
    assert there["train"].encode() == render(here, "tsv", "train")
    assert there["answers"] == json.loads(json.dumps(here.answers))


# --- property: a valid scenario or a clean NotEnoughFacts, nothing else --------------------------------
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(10, 80), ratio=st.floats(0.5, 2.0),
       transparency=st.floats(0.0, 1.0), ambiguous=st.sampled_from(["lcwa", "random_walk"]),
       leakage=st.sampled_from(["triple", "inverse", "pair"]), train_size=st.integers(0, 40),
       entity_disjoint=st.booleans(), predicate=st.sampled_from([BIRTH_PLACE, TEAM]))
def test_any_spec_gives_a_valid_scenario_or_a_clean_error(dbpedia_store, seed, size, ratio, transparency, ambiguous,
                                                          leakage, train_size, entity_disjoint, predicate):
    try:
        spec = ScenarioSpec(predicate, size=size, ratio=ratio, transparency=transparency, ambiguous=ambiguous,
                            leakage=leakage, train_size=train_size, entity_disjoint=entity_disjoint, seed=seed)
    except SpecError as error:  # refused up front (e.g. a training set too small for both labels)
        event(f"SpecError on {error.field}")
        assert error.field in KNOBS and re.search(r"\d", str(error))
        return
    try:
        scenario = generate(dbpedia_store, spec)
    except NotEnoughFacts as error:
        event(f"NotEnoughFacts on {error.field}")
        assert error.field in KNOBS
        assert any(knob in str(error) for knob in KNOBS), str(error)
        assert re.search(r"\d", str(error)), "the message says how many could be made"
        return
    event("scenario")
    recheck(dbpedia_store, scenario)
    removed = set(scenario.removed)
    assert {i.fact.triple for i in scenario.test if i.label} <= removed
    if leakage == "triple":
        assert len(removed) == spec.test_counts[0]


# --- errors ---------------------------------------------------------------------------------------------
def test_unknown_predicate(dbpedia_store):
    with pytest.raises(UnknownPredicate) as caught:
        generate(dbpedia_store, ScenarioSpec("dbo:noSuchPredicateAnywhere", size=10))
    assert "noSuchPredicateAnywhere" in str(caught.value)


def test_literal_valued_predicate_is_refused_naming_the_field(dbpedia_store):
    # DBpedia50 itself has no literal at all; the ontology graph's labels are literal-valued.
    assert not any('"' in line for line in DBPEDIA_NT.read_text(encoding="utf-8").splitlines())
    with pytest.raises(SpecError) as caught:
        generate(dbpedia_store, ScenarioSpec("rdfs:label", size=10))
    assert caught.value.field == "predicate"
    assert "literal" in caught.value.reason


def test_far_too_many_facts_says_how_many_there_are(dbpedia_store):
    available = len({(s, o) for s, o in raw_facts(BIRTH_PLACE) if s != o})
    with pytest.raises(NotEnoughFacts) as caught:
        generate(dbpedia_store, ScenarioSpec(BIRTH_PLACE, size=100_000))
    message = str(caught.value)
    assert f"only {available} true facts" in message and "50000 asked" in message
    assert caught.value.field == "size" and "size" in message


def test_too_many_lcwa_false_facts_names_the_knob(tmp_path):
    """Every subject speaks every language: no neighbour and no object of p's range gives a false
    fact (LCWA's fallback draws from the range, so DBpedia50's teams no longer run short)."""
    people, languages = ["a1", "a2", "a3", "a4"], ["l1", "l2", "l3"]
    store = store_from_text(tmp_path, "kb.nt", "".join(f"<http://example.org/{s}> <http://example.org/speaks> "
                                                       f"<http://example.org/{o}> .\n" for s in people for o in languages))
    with pytest.raises(NotEnoughFacts) as caught:
        generate(store, ScenarioSpec("http://example.org/speaks", size=8, transparency=0.0, ambiguous="lcwa", seed=1))
    assert caught.value.field == "transparency"
    assert re.search(r"made only 0 of the 4 'lcwa' false facts", str(caught.value))


@lru_cache(maxsize=None)
def raw_other_links() -> frozenset[str]:
    """Subjects with a link to an entity through a predicate other than birthPlace (the raw file)."""
    found = set()
    for line in DBPEDIA_NT.read_text(encoding="utf-8").splitlines():
        m = LINE.match(line)
        if m and m.group(2) not in (RDF_TYPE, BIRTH_PLACE) and m.group(3).startswith("<"):
            found.add(m.group(1))
    return frozenset(found)


@pytest.mark.parametrize("size, c, seed", [(200, 0.0, 0), (200, 0.0, 2), (300, 0.5, 1)])
def test_lcwa_false_facts_are_paired_with_true_facts_of_the_set(dbpedia_store, make, size, c, seed):
    """An LCWA false fact is derived from a true fact of the set: at c < 1 the split's first k true facts
    (k = its LCWA false facts) are ones whose subject gives an LCWA false fact, so no source is borrowed
    from outside the scenario, and those subjects are not isolated once their true fact leaves R."""
    scenario = make(predicate=BIRTH_PLACE, size=size, transparency=c, ambiguous="lcwa", seed=seed)
    true = {(i.fact.s, i.fact.o) for i in scenario.test if i.label}
    lcwa = [a for a in scenario.answers.values() if a["kind"] == "lcwa"]
    assert len(lcwa) == (size // 2) - int(round(c * size / 2))
    assert not any(a.get("source_outside_scenario") for a in lcwa)
    assert all((a["source"]["subject"], a["source"]["object"]) in true for a in lcwa)
    linked = sum(s in raw_other_links() for s, _ in true)
    assert linked >= len(lcwa)
    # object-side LCWA false facts share their subject with their (true) source
    for item in scenario.test:
        answer = scenario.answers[item.id]
        if answer["kind"] == "lcwa" and answer["side"] == "object":
            assert item.fact.s == answer["source"]["subject"]
    again = generate(dbpedia_store, scenario.spec)  # seeded: the same bytes again
    assert render(again, "jsonl", "test") == render(scenario, "jsonl", "test")


def test_pairing_leaves_other_samplers_and_clustering_alone(dbpedia_store):
    from factforge.generators.negatives import NegativeContext
    from factforge.generators.positives import kb_pairs, ranking
    from factforge.generators.scenario import _paired
    from factforge.sparql.adjacency import adjacency

    for fields in (dict(ambiguous="random_walk"), dict(ambiguous="lcwa", transparency=1.0),
                   dict(ambiguous="lcwa", homogeneity=0.5)):
        spec = ScenarioSpec(predicate=BIRTH_PLACE, size=100, **fields)
        context = NegativeContext.build(dbpedia_store, spec, adjacency(dbpedia_store), kb_pairs(dbpedia_store, BIRTH_PLACE))
        ranked = ranking(dbpedia_store, spec).facts
        assert _paired(context, spec, ranked, 50, 50) is ranked
        assert _paired(context, spec, ranked, 50, 50, 60) == ranked[:60]


@pytest.mark.parametrize("transparency, ambiguous", [(1.0, "random_walk"), (0.5, "random_walk"), (0.0, "random_walk"),
                                                     (0.5, "lcwa")])
def test_false_facts_are_spread_evenly_over_the_true_subjects(dbpedia_store, transparency, ambiguous):
    """How often a subject occurs in the set must not tell the label: with as many false facts as
    true ones, nearly every true fact's subject gets a false fact, so a subject seen only once is not
    a sign of a true fact (it was, and the audit flagged it, when re-pairing drew subjects at random)."""
    scenario = generate(dbpedia_store, ScenarioSpec(predicate="dbo:birthPlace", size=300, transparency=transparency,
                                                    ambiguous=ambiguous, seed=0))
    true_subjects = Counter(item.fact.s for item in scenario.test if item.label)
    false_uses = Counter(item.fact.s for item in scenario.test if not item.label)
    uses = Counter(false_uses[s] for s in true_subjects)
    # Drawn at random, about a third of the subjects got none (1/e); a few are left only where no
    # acceptable false fact exists for them.
    assert uses[0] <= 0.1 * len(true_subjects), uses
    from factforge.evaluation.audit import AUROC_THRESHOLD, audit_records
    from factforge.generators.writers import records

    report = audit_records(records(scenario, "test"), seed=0)
    assert report["baselines"]["frequency"]["auroc"] <= AUROC_THRESHOLD


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_false_objects_follow_the_true_objects_counts(dbpedia_store, seed):
    """How often an object occurs in the set must not tell the label either. On team, most
    random-walk false facts come from the fallback; drawn at random from the set's objects, a team
    that is the object of one true fact often got no false fact, so "object seen once" meant true
    (the frequency baseline flagged it; docs/performance.md). Objects most owed to the set now come
    first, so true objects left seen once are about as few as false ones."""
    from factforge.evaluation.audit import AUROC_THRESHOLD, audit_records
    from factforge.generators.writers import records

    scenario = generate(dbpedia_store, ScenarioSpec(predicate=TEAM, size=200, transparency=0.3,
                                                    ambiguous="random_walk", seed=seed))
    test = records(scenario, "test")
    counts = Counter(r["object"] for r in test)
    once = Counter(bool(r["label"]) for r in test if counts[r["object"]] == 1)
    assert once[True] <= 2 * once[False] + 10, once  # drawn at random, true ones far outnumbered false
    assert audit_records(test, seed=seed)["baselines"]["frequency"]["auroc"] <= AUROC_THRESHOLD


@pytest.mark.parametrize("seed", [0, 1])
def test_untyped_objects_are_as_common_among_false_facts(dbpedia_store, seed):
    """A random-walk false object stands in for its true object: when the true object has no class,
    neither has the false one, so 'untyped object' does not mean 'true fact' (it did for every one of
    them when untyped objects took a typed stand-in)."""
    scenario = generate(dbpedia_store, ScenarioSpec(predicate=BIRTH_PLACE, size=300, transparency=0.0,
                                                    ambiguous="random_walk", seed=seed))
    raw = raw_types()
    untyped = Counter(i.label for i in scenario.facts if not raw.get(i.fact.o))
    assert untyped[True] >= 10  # DBpedia50: about one birthPlace object in eight has no class
    assert abs(untyped[True] - untyped[False]) <= untyped[True] // 3, untyped
