"""What the shared checks of the negative samplers refuse: objects next to a known object of the
false fact's subject (one link away, or a co-object: both objects of one subject through one
predicate), and, for LCWA's subject side, objects unlike those the new subject already has.
On a hand-made KB, and rechecked from DBpedia50's raw file on generated scenarios."""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from functools import lru_cache

import numpy as np
import pytest

from conftest import DBPEDIA_NT, store_from_text
from factforge.generators.facts import Fact
from factforge.generators.negatives import NegativeContext, sampler
from factforge.generators.negatives.nearness import sorted_member
from factforge.generators.positives import NotEnoughFacts
from factforge.generators.random_state import stream
from factforge.generators.scenario import generate
from factforge.generators.spec import ScenarioSpec
from factforge.sparql import profiles
from factforge.sparql.adjacency import adjacency

EX = "http://example.org/"
BORN = EX + "born"
# Ann is born in Mumbai and in British India: the KB's only hint that one contains the other.
PLACES_KB = """@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Place rdfs:subClassOf ex:Thing . ex:Person rdfs:subClassOf ex:Thing .
ex:City rdfs:subClassOf ex:Place . ex:Building rdfs:subClassOf ex:Place .
ex:mumbai a ex:City . ex:pune a ex:City . ex:delhi a ex:City . ex:london a ex:City .
ex:britishIndia a ex:City . ex:palace a ex:Building .
ex:ann a ex:Person ; ex:born ex:mumbai , ex:britishIndia .
ex:bob a ex:Person ; ex:born ex:mumbai ; ex:died ex:britishIndia , ex:pune .
ex:cat a ex:Person ; ex:born ex:palace ; ex:buried ex:london .
ex:eve a ex:Person ; ex:born ex:delhi ; ex:buried ex:london .
ex:dan a ex:Person ; ex:born ex:london .
"""


@pytest.fixture
def context(tmp_path):
    store = store_from_text(tmp_path, "places.ttl", PLACES_KB)
    spec = ScenarioSpec(BORN, size=4, transparency=0.0, ambiguous="lcwa", seed=0)
    pairs = set(profiles.predicate_facts(store, BORN))
    return NegativeContext.build(store, spec, adjacency(store), pairs)


def test_a_co_object_of_a_known_object_is_refused(context):
    assert not context.acceptable(Fact(EX + "bob", BORN, EX + "britishIndia"))  # co-object of Mumbai (Ann)
    assert context.acceptable(Fact(EX + "bob", BORN, EX + "pune"))  # no one has Pune and Mumbai together


def test_co_objects_need_the_same_predicate_on_both_sides(context):
    index = context.kb.adjacency
    node = lambda name: index.id(EX + name)  # noqa: E731
    assert context.near.co_objects(node("mumbai"), node("britishIndia"))  # Ann born in both
    assert context.near.co_objects(node("pune"), node("britishIndia"))  # Bob died in both
    assert not context.near.co_objects(node("mumbai"), node("pune"))  # Bob: born in one, died in the other


@pytest.mark.parametrize("visited, counts", [("ex:mumbai, ex:pune", True),
                                              ("ex:mumbai, ex:pune, ex:delhi, ex:london", False)])
def test_co_objects_count_through_predicates_with_few_objects_per_subject(tmp_path, visited, counts):
    """Zed visited Mumbai and Pune. Two objects of one subject are one place at two granularities
    only when the predicate gives its subjects few objects (at most two on average): two of four
    places someone visited are just siblings, and must not refuse Bob born in Pune."""
    store = store_from_text(tmp_path, "visits.ttl", PLACES_KB + f"ex:zed ex:visited {visited} .\n")
    spec = ScenarioSpec(BORN, size=4, transparency=0.0, ambiguous="lcwa", seed=0)
    context = NegativeContext.build(store, spec, adjacency(store), set(profiles.predicate_facts(store, BORN)))
    index = context.kb.adjacency
    assert context.near.co_objects(index.id(EX + "mumbai"), index.id(EX + "pune")) is counts
    assert context.acceptable(Fact(EX + "bob", BORN, EX + "pune")) is not counts


def _citizens_kb(lives_in_both: bool) -> str:
    """40 citizens of a, 30 of b, one of both (far below chance); z holds no citizenship and may
    live in both (one holder of a granular predicate: "one is enough" for two rarely held objects)."""
    lines = ["@prefix ex: <http://example.org/> .", "ex:a a ex:Country . ex:b a ex:Country . ex:c a ex:Country ."]
    lines += [f"ex:p{i} a ex:Person ; ex:citizen ex:a ; ex:lives ex:c ." for i in range(40)]
    lines += [f"ex:q{i} a ex:Person ; ex:citizen ex:b ; ex:lives ex:c ." for i in range(30)]
    lines.append("ex:q0 ex:citizen ex:a .")
    lines.append("ex:z a ex:Person ; ex:lives ex:a" + (" , ex:b ." if lives_in_both else " ."))
    return "\n".join(lines)


@pytest.mark.parametrize("lives_in_both", [False, True])
def test_popular_objects_the_predicate_holds_apart_are_not_co_objects(tmp_path, lives_in_both):
    """One person living in both the US and France made them co-objects, and no French citizen
    could get the US as a false citizenship (CoDEx): false objects were rare ones. Where the
    predicate itself has enough holders of both and holds them together less than chance, that
    one holder elsewhere does not make them one place. (Rarely held objects still take one holder
    as enough: test_a_co_object_of_a_known_object_is_refused.)"""
    citizen = EX + "citizen"
    store = store_from_text(tmp_path, "citizens.ttl", _citizens_kb(lives_in_both))
    spec = ScenarioSpec(citizen, size=4, transparency=0.0, ambiguous="lcwa", seed=0)
    context = NegativeContext.build(store, spec, adjacency(store), set(profiles.predicate_facts(store, citizen)))
    index = context.kb.adjacency
    assert not context.near.co_objects(index.id(EX + "a"), index.id(EX + "b"))
    assert context.acceptable(Fact(EX + "q5", citizen, EX + "a"))
    assert context.acceptable(Fact(EX + "p5", citizen, EX + "b"))


def test_bulk_screening_agrees_with_one_by_one_checks(dbpedia_store):
    """``screen`` decides thousands of candidates with array operations; each must get the answer
    a plain set computation gives: linked to a known object through a predicate with few objects
    per subject, or sharing in-links through such a predicate more often than chance."""
    index = adjacency(dbpedia_store)
    pairs = set(profiles.predicate_facts(dbpedia_store, BIRTH_PLACE))
    spec = ScenarioSpec(BIRTH_PLACE, size=10, seed=0)
    bulk = NegativeContext.build(dbpedia_store, spec, index, pairs)
    rng = np.random.default_rng(5)
    subjects, objects = sorted({s for s, _ in pairs}), sorted({o for _, o in pairs})
    facts = []
    for s in rng.choice(subjects, 150, replace=False).tolist():
        facts += [Fact(s, BIRTH_PLACE, o) for o in rng.choice(objects, 20).tolist() + rng.choice(index.entities, 5).tolist()]
        for k in bulk.kb.objects_of(s):  # the neighbours of a known object: many of them are refused
            facts += [Fact(s, BIRTH_PLACE, index.entities[y]) for y in index.steps(index.id(k))[0][:8].tolist()]
    bulk.near.screen(facts)

    subjects = Counter(q for q, _ in {(q, x) for x, q in zip(index.src.tolist(), index.pred.tolist())})
    born = index.pindex[BIRTH_PLACE]

    def held_apart(k, c):  # birthPlace has enough holders of both and holds them no more than chance
        holders = [{x for x, q in zip(*index.inbound(node)) if q == born} for node in (k, c)]
        expected = len(holders[0]) * len(holders[1])
        return expected >= 3 * subjects[born] and len(holders[0] & holders[1]) * subjects[born] < 2 * expected

    def by_sets(fact):
        c = index.id(fact.o)
        for k in (index.id(o) for o in bulk.kb.objects_of(fact.s)):
            nodes, steps = index.steps(k)
            if c in {y for y, step in zip(nodes.tolist(), steps.tolist()) if bulk.near.granular[abs(step) - 1]}:
                return True
            holders = [{(q, x) for x, q in zip(*index.inbound(node)) if bulk.near.granular[q]} for node in (k, c)]
            degree = [Counter(q for q, _ in side) for side in holders]
            for q, shared in Counter(q for q, _ in holders[0] & holders[1]).items():
                expected = degree[0][q] * degree[1][q]
                if (expected <= subjects[q] or shared * subjects[q] >= 2 * expected) and not held_apart(k, c):
                    return True
        return False

    expected = [by_sets(f) for f in facts]
    assert 0.05 < sum(expected) / len(expected) < 0.95  # both answers are exercised
    assert [bulk.near.next_to_known_object(f) for f in facts] == expected
    single = NegativeContext.build(dbpedia_store, spec, index, pairs)
    assert [single.near.next_to_known_object(f) for f in facts[::7]] == expected[::7]  # one at a time, too
    index.__dict__["in_codes"] = None  # a KB too large for 63-bit link codes: co-objects row by row
    try:
        slow = NegativeContext.build(dbpedia_store, spec, index, pairs)
        slow.near.screen(facts[::3])
        assert [slow.near.next_to_known_object(f) for f in facts[::3]] == expected[::3]
    finally:
        del index.__dict__["in_codes"]


def test_lcwa_subject_side_wants_an_object_like_the_new_subjects_own(context):
    made = sampler("lcwa").sample(context, [Fact(EX + "dan", BORN, EX + "london")], 5, stream(0, "test"))
    pairs = {n.fact.pair for n in made}
    assert (EX + "eve", EX + "london") in pairs  # Eve is born in a city: London is like it
    assert (EX + "cat", EX + "london") not in pairs  # Cat is born in a building, and London contains it


def test_lcwa_productive_sources(context):
    """Which true facts would give an LCWA false fact, per side, without taking one (scenario pairing)."""
    lcwa = sampler("lcwa")
    sources = [Fact(EX + "bob", BORN, EX + "mumbai"), Fact(EX + "dan", BORN, EX + "london"),
               Fact(EX + "ann", BORN, EX + "mumbai")]
    # Bob died in Pune (a city, like Mumbai); Dan has no other link, but Eve (born in a city) is buried
    # in London; Ann has no other link, and no one with birth facts links to Mumbai otherwise.
    assert lcwa.productive(context, sources, sides=("object",)) == [True, False, False]
    assert lcwa.productive(context, sources) == [True, True, False]
    assert not context.ledger.used


def test_sorted_member():
    values = np.array([5, 1, 9, 3], dtype=np.int64)
    assert sorted_member(values, np.array([1, 3, 4], dtype=np.int64)).tolist() == [False, True, False, True]
    assert sorted_member(values, np.array([], dtype=np.int64)).tolist() == [False] * 4


# --- DBpedia50: recheck from the raw file ---------------------------------------------------------------
LINE = re.compile(r"^<([^>]*)> <([^>]*)> <([^>]*)> \.$")
BIRTH_PLACE = "http://dbpedia.org/ontology/birthPlace"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


@lru_cache(maxsize=None)
def raw_links() -> tuple[dict, dict]:
    """Objects of each subject by predicate, and (subject, predicate) holders of each object."""
    objects, holders = defaultdict(set), defaultdict(set)
    for line in DBPEDIA_NT.read_text(encoding="utf-8").splitlines():
        m = LINE.match(line)
        if m and m.group(2) != RDF_TYPE:
            s, p, o = m.groups()
            objects[(s, p)].add(o)
            holders[o].add((s, p))
    return objects, holders


@lru_cache(maxsize=None)
def raw_granular() -> frozenset[str]:
    """Predicates whose subjects have at most two objects each on average (literals included, as
    the profiles count them): co-objects through these are the ones that count."""
    facts, subjects = defaultdict(int), defaultdict(set)
    for line in DBPEDIA_NT.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^<([^>]*)> <([^>]*)> ", line)
        if m:
            facts[m.group(2)] += 1
            subjects[m.group(2)].add(m.group(1))
    return frozenset(p for p in facts if facts[p] / len(subjects[p]) <= 2.0)


@pytest.mark.parametrize("ambiguous", ["lcwa", "random_walk"])
def test_no_false_fact_is_a_co_object_of_a_known_one(dbpedia_store, ambiguous):
    size = 100 if ambiguous == "lcwa" else 300
    scenario = generate(dbpedia_store, ScenarioSpec(BIRTH_PLACE, size=size, transparency=0.0,
                                                    ambiguous=ambiguous, seed=3))
    objects, holders = raw_links()
    granular = raw_granular()
    false = [item.fact for item in scenario.test if not item.label]
    assert len(false) == size // 2
    subjects = Counter(p for s, p in objects)
    for fact in false:
        for known in objects[(fact.s, BIRTH_PLACE)]:
            born = [{s for s, p in holders[x] if p == BIRTH_PLACE} for x in (fact.o, known)]
            chance = len(born[0]) * len(born[1])
            if chance >= 3 * subjects[BIRTH_PLACE] and len(born[0] & born[1]) * subjects[BIRTH_PLACE] < 2 * chance:
                continue  # birthPlace itself holds the two apart (nearness.held_apart)
            shared = Counter(p for s, p in holders[fact.o] & holders[known] if p in granular)
            for p, together in shared.items():
                # two popular objects held together by chance are not one place (nearness.together)
                expected = sum(q == p for _, q in holders[fact.o]) * sum(q == p for _, q in holders[known])
                assert expected > subjects[p] and together * subjects[p] < 2 * expected, \
                    f"{fact.s} born in {fact.o}, a co-object of the known {known} through {p} ({together} holders)"


def test_walk_ends_follow_their_paths(dbpedia_store):
    """Every end is reachable from the start along its path, and never a node to avoid; most
    paths with other ends give one (178 of 270 here)."""
    from factforge.generators.negatives.random_walk import meta_paths, walk_ends

    index = adjacency(dbpedia_store)
    facts = sorted(profiles.predicate_facts(dbpedia_store, BIRTH_PLACE))[::8]
    skip = index.pindex[BIRTH_PLACE] + 1
    rng, checked, missing = np.random.default_rng(0), 0, 0
    for s, o in facts:
        si, oi = index.id(s), index.id(o)
        paths = meta_paths(index, si, oi, 3, skip)
        for path, end in zip(paths, walk_ends(index, si, paths, (si, oi), rng)):
            reachable = {si}
            for step in path:
                reachable = {int(y) for x in reachable for y in index.follow(x, step).tolist()}
            if end is None:
                # five tries can all dead-end half-way (a random choice at a middle node)
                missing += bool(reachable - {si, oi})
                continue
            checked += 1
            assert end in reachable and end not in (si, oi), (s, path, end)
    assert checked > 100 and missing < checked, (checked, missing)


def test_path_search_finds_what_a_plain_enumeration_finds(dbpedia_store):
    """meta_paths (sorted neighbourhoods, binary search, pairs packed into one integer) against a
    plain walk over every neighbour, on facts where none of its caps applies."""
    from factforge.generators.negatives.random_walk import HUB_DEGREE, MAX_MIDDLE, MAX_PATHS, meta_paths

    index = adjacency(dbpedia_store)
    skip = index.pindex[BIRTH_PLACE] + 1

    def steps(x):
        nodes, signed = index.steps(x)
        return list(zip(nodes.tolist(), signed.tolist()))

    compared = 0
    for s, o in sorted(profiles.predicate_facts(dbpedia_store, BIRTH_PLACE))[::5]:
        si, oi = index.id(s), index.id(o)
        around_o = {}
        for y, c in steps(oi):  # o -c-> y, so y -(-c)-> o
            around_o.setdefault(y, set()).add(-c)
        plain = {(a,) for x, a in steps(si) if x == oi and a != skip}
        middles = {x for x, _ in steps(si)} - {si, oi}
        for x, a in steps(si):
            if x in (si, oi):
                continue
            plain |= {(a, c) for c in around_o.get(x, ())}
            if index.degree(x) <= HUB_DEGREE:
                plain |= {(a, b, c) for y, b in steps(x) if y not in (si, oi, x) for c in around_o.get(y, ())}
        if len(middles) > MAX_MIDDLE or len(plain) > MAX_PATHS * 4:
            continue  # a cap cuts the search short there: nothing plain to compare with
        assert set(meta_paths(index, si, oi, 3, skip)) == plain, (s, o)
        compared += 1
    assert compared > 600, compared


# --- random re-pairing -------------------------------------------------------------------------

SPEAKS = EX + "speaks"
# Six people each speak the five common languages and one of their own. The common languages are
# the most owed objects of the set and every one of them is true for every subject; the only false
# pairs are a person with another person's own language (30 of them).
LANGUAGES_KB = "@prefix ex: <http://example.org/> .\n" + "".join(
    f"ex:p{i} ex:speaks ex:common1 , ex:common2 , ex:common3 , ex:common4 , ex:common5 , ex:own{i} .\n"
    for i in range(6))


def _pairing(tmp_path, n: int, seed: int = 0):
    store = store_from_text(tmp_path, "languages.ttl", LANGUAGES_KB)
    spec = ScenarioSpec(SPEAKS, size=2 * n, transparency=1.0, seed=seed)
    pairs = set(profiles.predicate_facts(store, SPEAKS))
    context = NegativeContext.build(store, spec, adjacency(store), pairs)
    sources = [Fact(s, SPEAKS, o) for s, o in sorted(pairs)]
    context.ledger.used = {f.triple for f in sources}
    made = sampler("random")
    return made, made.sample(context, sources, n, stream(seed, "negatives/test/random"))


def test_random_pairing_makes_every_false_pair_there_is(tmp_path):
    """The five most owed objects are refused for every subject: a sampler that gives up after
    them made none of the 30 false facts that exist."""
    _, got = _pairing(tmp_path, 30)
    facts = {(n.fact.s, n.fact.o) for n in got}
    assert len(got) == 30 == len(facts)
    assert facts == {(f"{EX}p{i}", f"{EX}own{j}") for i in range(6) for j in range(6) if i != j}


def test_random_pairing_says_how_many_it_could_make_and_why_no_more(tmp_path):
    maker, got = _pairing(tmp_path, 40)
    assert len(got) == 30
    assert maker.shortfall == ("every one of the 66 (subject, object) pairs of the split's 6 subjects and 11 objects "
                               "was tried: 30 became false facts, the rest were refused (36 already in the scenario)")


def test_random_pairing_is_reproducible_and_balances_objects(tmp_path):
    for seed in range(3):
        runs = [[(n.fact.s, n.fact.o) for n in _pairing(tmp_path, 6, seed=seed)[1]] for _ in range(2)]
        assert runs[0] == runs[1]
        # the most owed object first: the first five false facts take five different own
        # languages (the sixth may find only one still owed, the subject's own)
        assert len({o for _, o in runs[0][:5]}) == 5


WD = "http://www.wikidata.org/entity/"


@pytest.fixture(scope="module")
def codex_store():
    """CoDEx-S (train and valid) with its entity types: a Wikidata KB, whose popular objects
    (countries, languages) are true for many subjects at once."""
    from conftest import CODEX, need
    from factforge.sparql.embedded import EmbeddedStore
    from factforge.sparql.kge import load_kge_tsv

    store = EmbeddedStore()
    load_kge_tsv(store, [need(CODEX / "train.txt"), CODEX / "valid.txt"], entity_base=WD, relation_base=WD,
                 types=CODEX / "entity2types.json", progress=False)
    return store


@pytest.mark.parametrize("relation", ["P27", "P1412"])
def test_random_pairing_on_codex_makes_every_acceptable_pair_up_to_the_count(codex_store, relation):
    """Every (subject, object) pair of the sources that the shared checks accept becomes a false
    fact, up to the number asked (on CoDEx-S the old sampler made 78 of 200 for P27 and 2 for P1412)."""
    predicate = WD + relation
    pairs = set(profiles.predicate_facts(codex_store, predicate))
    sources = [Fact(s, predicate, o) for s, o in sorted(pairs)[:200]]

    def context():
        spec = ScenarioSpec(predicate, size=400, transparency=1.0, seed=0)
        made = NegativeContext.build(codex_store, spec, adjacency(codex_store), pairs)
        made.ledger.used = {f.triple for f in sources}
        return made

    check = context()
    acceptable = {(s, o) for s in {f.s for f in sources} for o in {f.o for f in sources}
                  if check.acceptable(Fact(s, predicate, o))}
    maker = sampler("random")
    got = maker.sample(context(), sources, 200, stream(0, "negatives/test/random"))
    assert len(got) == min(200, len(acceptable))
    assert {n.fact.pair for n in got} <= acceptable
    if len(acceptable) < 200:
        assert maker.shortfall.startswith(f"every one of the {len({f.s for f in sources}) * len({f.o for f in sources})} "
                                          f"(subject, object) pairs") and f"{len(got)} became false facts" in maker.shortfall


def hand_checked_negatives(relation: str) -> list[tuple[str, str]]:
    """CoDEx-S's hand-checked false (subject, object) pairs of a relation, test and valid."""
    from conftest import CODEX

    found = []
    for name in ("test_negatives.txt", "valid_negatives.txt"):
        for line in (CODEX / name).read_text(encoding="utf-8").splitlines():
            s, r, o = line.split("\t")
            if r == relation:
                found.append((WD + s, WD + o))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("relation", ["P27", "P1412"])
def test_the_type_check_accepts_codex_hand_checked_negatives(codex_store, relation):
    """CoDEx's negatives were made by swapping in an entity of the same kind and checked by hand
    as plausible but false (a country for a citizenship, a language for a language spoken), so
    a type check that refuses them refuses exactly the false facts a scenario needs. 0.9, not 1:
    a subject's known objects may be typed thinly. Wikidata's classes are flat (no ancestors),
    and the old min(threshold, |T(o)|) accepted about a tenth for P27 and none for P1412. The
    check must still refuse what is plainly of another kind: people as countries or languages."""
    predicate = WD + relation
    pairs = set(profiles.predicate_facts(codex_store, predicate))
    context = NegativeContext.build(codex_store, ScenarioSpec(predicate, size=10, seed=0), adjacency(codex_store), pairs)
    known = defaultdict(list)
    for s, o in sorted(pairs):
        known[s].append(o)
    negatives = [(s, o) for s, o in hand_checked_negatives(relation) if known[s]]
    assert len(negatives) >= 50
    accepted = sum(any(context.types.type_consistent(k, o) for k in known[s]) for s, o in negatives)
    assert accepted / len(negatives) >= 0.9
    people = sorted({s for s, _ in pairs})[:300]
    some_object = sorted(pairs)[0][1]
    assert not any(context.types.type_consistent(some_object, person) for person in people)


@pytest.mark.slow
@pytest.mark.parametrize("relation", ["P27", "P1412"])
def test_the_shared_checks_accept_most_codex_hand_checked_negatives(codex_store, relation):
    """Every check a false fact passes (``acceptable``), on CoDEx's hand-checked negatives: false,
    and plausible by design. The nearness check refuses objects tied to a known one, and some
    of CoDEx's are (a country next to the subject's own), so not all pass; but refusing most
    means it refuses popular objects as such: before, almost none passed for P27 (every country
    linked to another by diplomatic relations) or P1412 (languages some polyglot speaks
    together), and false objects were rare ones, which object popularity alone gave away."""
    predicate = WD + relation
    pairs = set(profiles.predicate_facts(codex_store, predicate))
    context = NegativeContext.build(codex_store, ScenarioSpec(predicate, size=10, seed=0), adjacency(codex_store), pairs)
    subjects = {s for s, _ in pairs}
    negatives = [(s, o) for s, o in hand_checked_negatives(relation) if s in subjects]
    accepted = sum(context.acceptable(Fact(s, predicate, o)) for s, o in negatives)
    assert accepted / len(negatives) >= 0.5


@pytest.mark.slow
@pytest.mark.parametrize("relation", ["P27", "P1412", "P140"])
def test_lcwa_on_codex_popular_objects_pass_the_audit(codex_store, relation):
    """LCWA false citizenships, languages and religions at c = 0 (leakage pair), 300 facts, seeds
    0-3: no baseline and no column may tell the labels. 300 facts: the audit's threshold is about
    three standard errors there, so a flag is a finding, not noise.

    A false fact keeps a true fact's subject, and only subjects without an object can take it.
    The US and English are held by so many of the set's subjects that a random sample of true
    facts names them more often than the others can take them; on religions the type check lets
    a subject take only the few religions of its own one's kind, so atheism or Catholicism could
    be paid only by the subjects of a few other religions, too few for both. Left to the draw,
    rare objects of a kind few share got the popular ones' debt (object column, type baseline),
    and a subject with no owed object left got no false fact while others got two or three
    (how often a subject occurs, the frequency baseline). The set's true facts are now chosen so
    that each subject's false fact can pay an owed object, and every subject gets its false fact
    before any gets a second."""
    from factforge.evaluation.audit import audit_scenario

    flagged = {}
    for seed in range(4):
        spec = ScenarioSpec(WD + relation, size=300, transparency=0.0, ambiguous="lcwa", seed=seed, leakage="pair")
        scenario = generate(codex_store, spec)
        reasons = audit_scenario(scenario, codex_store)["reasons"]
        if reasons:
            flagged[seed] = reasons
        true_subjects = Counter(f.fact.s for f in scenario.test if f.label)
        false_subjects = Counter(f.fact.s for f in scenario.test if not f.label)
        # nearly every subject of the set in its false facts, none far more often than in its true ones
        assert len(set(true_subjects) - set(false_subjects)) <= len(true_subjects) // 10, seed
        assert max((false_subjects - true_subjects).values(), default=0) <= 1, seed
    assert not flagged, flagged


@pytest.mark.slow
def test_lcwa_neighbours_take_an_object_only_while_it_is_owed(codex_store):
    """CoDEx P19 (place of birth), LCWA at c = 0, 100 facts, seeds 0-3. Nearly every false fact
    comes from a link of s (place of death, residence), and those lead to hubs: at seed 0 Los
    Angeles got 11 false facts against 3 true ones and London 8 against 3, so the object column
    read 0.57-0.62 at seeds 0-3 (0.54-0.62 at seeds 0-11, mean 0.59: not noise) and the type
    baseline 0.62 at seed 0. A neighbour's object is now taken only while it is owed; the range
    fallback pays the rest."""
    from factforge.evaluation.audit import audit_scenario

    for seed in range(4):
        spec = ScenarioSpec(WD + "P19", size=100, transparency=0.0, ambiguous="lcwa", seed=seed, leakage="pair")
        scenario = generate(codex_store, spec)
        true_objects = Counter(f.fact.o for f in scenario.test if f.label)
        false_objects = Counter(f.fact.o for f in scenario.test if not f.label)
        # no object false much more often than true (Los Angeles: 11 against 3)
        assert max((false_objects - true_objects).values(), default=0) <= 1, (seed, false_objects - true_objects)
        report = audit_scenario(scenario, codex_store)
        assert not report["flagged"], (seed, report["reasons"])


@pytest.mark.slow
@pytest.mark.parametrize("relation, hub", [("P17", "Q55"), ("P26", "Q2831")])
def test_lcwa_neighbours_give_a_source_one_false_fact_on_codex(codex_store, relation, hub):
    """CoDEx P17 (country) and P26 (spouse), LCWA at c = 0, 100 facts, seeds 0-3. A few subjects
    have many links of another predicate to entities of the object's kind: the Netherlands (Q55)
    has diplomatic relations (P530) with dozens of countries, Michael Jackson (Q2831) links to many
    people. The neighbour round went on pass after pass while those sources had candidates, so at
    seed 0 the Netherlands got 23 false countries against one true one and Michael Jackson 13
    false spouses; half the set's subjects got no false fact (P17: 20 of 39 had one) and the
    degree, frequency, subject and object baselines told the labels (P17 degree 0.37, frequency
    0.84; P26 frequency 0.89). A source now takes at most one neighbour-made false fact; the
    range fallback gives the others theirs."""
    from factforge.evaluation.audit import audit_scenario

    for seed in range(4):
        spec = ScenarioSpec(WD + relation, size=100, transparency=0.0, ambiguous="lcwa", seed=seed, leakage="pair")
        scenario = generate(codex_store, spec)
        true_subjects = Counter(f.fact.s for f in scenario.test if f.label)
        false_subjects = Counter(f.fact.s for f in scenario.test if not f.label)
        assert false_subjects[WD + hub] <= 2 * max(true_subjects[WD + hub], 1), (seed, false_subjects[WD + hub])
        # nearly every subject of the set has a false fact
        assert len(set(true_subjects) - set(false_subjects)) <= len(true_subjects) // 10, seed
        report = audit_scenario(scenario, codex_store)
        assert not report["flagged"], (seed, report["reasons"])


def test_trades_pay_an_object_the_first_round_left_to_a_source_that_could_move():
    """Source 0 could take object 0 or 1 and took 0; source 1 can take only object 0. A trade
    (0 moves to 1) pays both; a source with no chain to spare debt stays without."""
    from factforge.generators.negatives.debt_paths import augment

    spare = {0: 0, 1: 1}
    held = augment([1, 2], [[0, 1], [0], [0]], {0: 0}, spare, lambda k, o: True, 2)
    assert held == {0: 1, 1: 0} and spare == {0: 0, 1: 0}
    # a refused pair is no way through
    held = augment([1], [[0, 1], [0]], {0: 0}, {0: 0, 1: 1}, lambda k, o: (k, o) != (0, 1), 1)
    assert held == {0: 0}


@pytest.mark.slow
def test_lcwa_false_occupations_on_codex_are_not_told_apart_by_knowledge_linker(codex_store):
    """Knowledge Linker scores CoDEx's hand-checked false occupations below chance (0.46 in
    bench/codex_hardness_bench.py: they are occupations the subject's neighbourhood leads to), and
    scored LCWA's at c = 0 well above it (0.65): the range fallback, which makes nearly all of
    them on P106, drew objects by popularity alone, with nothing to do with the subject. Now
    within 0.1 of chance, about two standard errors of an AUROC at 50 + 50 facts."""
    from factforge.evaluation.reference_graph import Reference
    from factforge.evaluation.scoring import run_checker

    predicate = WD + "P106"
    scenario = generate(codex_store, ScenarioSpec(predicate, size=100, transparency=0.0, ambiguous="lcwa", seed=0,
                                                  leakage="pair"))
    facts = [{"subject": f.fact.s, "predicate": predicate, "object": f.fact.o, "label": f.label} for f in scenario.test]
    assert sum(not f["label"] for f in facts) == 50
    assert run_checker("knowledge_linker", [], facts, Reference.of(codex_store, scenario.removed), seed=0).auroc <= 0.6


def codex_relations(min_facts: int) -> list[str]:
    """CoDEx-S relations with at least ``min_facts`` facts in train.txt (the test store's bulk)."""
    from conftest import CODEX

    counts = Counter(line.split("\t")[1] for line in (CODEX / "train.txt").read_text(encoding="utf-8").splitlines())
    return sorted(r for r, n in counts.items() if n >= min_facts)


# Relations where a kind cannot be made at c = 0 on CoDEx-S. LCWA's neighbours (other links from
# the subject to an object of the right kind) gave no candidate on 15 of them (a person's other
# neighbours are occupations, awards, genres); its fallback to p's observed range makes them.
CANNOT_AT_C0 = {"random_walk": set(), "lcwa": set()}
# where LCWA's neighbourhood alone made nothing at c = 0 (the old sampler failed on these)
NO_LCWA_NEIGHBOURS = ["P27", "P1412", "P509", "P140"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["random_walk", "lcwa"])
def test_false_facts_at_transparency_zero_on_codex(codex_store, kind):
    """At c = 0 every false fact is the ambiguous kind. With the old type check random walk
    could be made on 5 of CoDEx-S's 19 relations with 200+ facts, LCWA on none; the type check
    alone brought them to 16 and 3, and the nearness check's refusal of every popular object
    (countries linked by diplomatic relations, languages that some polyglot speaks together)
    blocked the rest. Every relation not in CANNOT_AT_C0 must work, and those in it must still
    fail, so that the list stays true."""
    made, failed = [], []
    for relation in codex_relations(200):
        spec = ScenarioSpec(WD + relation, size=100, transparency=0.0, ambiguous=kind, seed=0)
        try:
            scenario = generate(codex_store, spec)
        except NotEnoughFacts as error:
            assert "made only" in str(error), str(error)
            failed.append(relation)
            continue
        assert sum(not f.label for f in scenario.test) == 50
        made.append(relation)
    assert set(failed) == CANNOT_AT_C0[kind] & set(codex_relations(200))
    assert len(made) >= {"random_walk": 19, "lcwa": 19}[kind]


@pytest.mark.parametrize("relation", NO_LCWA_NEIGHBOURS)
def test_lcwa_falls_back_to_the_predicates_range_on_codex(codex_store, relation, tmp_path):
    """The brief's LCWA: (s, p, o') is false when s has p-facts, (s, p, o') is not in the KB and o'
    is type-consistent with o. Where s's neighbours through other predicates give too few o', the
    rest come from p's observed range (objects of p's facts), each marked ``fallback`` in the
    answers and counted in the summary; no data file a system reads says so. Same seed, same bytes."""
    from factforge.generators.writers import write_files

    predicate = WD + relation
    pairs = set(profiles.predicate_facts(codex_store, predicate))
    objects = {o for _, o in pairs}
    subjects = {s for s, _ in pairs}
    spec = ScenarioSpec(predicate, size=60, train_size=20, transparency=0.0, ambiguous="lcwa", seed=5)
    scenario = generate(codex_store, spec)  # generate() checks every invariant (s != o, not in KB, ...)
    false = [(item, scenario.answers[item.id]) for item in scenario.facts if not item.label]
    assert len(false) == 40 and all(answer["kind"] == "lcwa" for _, answer in false)
    fallback = [(item, answer) for item, answer in false if answer.get("fallback")]
    assert fallback, "no fallback false fact: the test proves nothing"
    context = NegativeContext.build(codex_store, spec, adjacency(codex_store), pairs)
    for item, answer in fallback:
        s, o = item.fact.pair
        assert answer["side"] == "range" and answer["source"]["subject"] == s
        assert s in subjects and o in objects and (s, o) not in pairs and s != o
        assert context.types.type_consistent(answer["source"]["object"], o, stand_in=True)
    section = scenario.summary["lcwa"]
    assert (section["false_facts"], section["fallback"]) == (len(false), len(fallback))
    assert section["neighbour_made"] == len(false) - len(fallback)
    assert section["neighbour_share"] == round((len(false) - len(fallback)) / len(false), 4)
    assert scenario.manifest()["lcwa"] == section
    # the split's own pairs: no (s, o) in both train and test
    assert not {i.fact.pair for i in scenario.test} & {i.fact.pair for i in scenario.train}
    written = []
    for run in ("a", "b"):
        again = generate(codex_store, spec) if run == "b" else scenario
        manifest = write_files(again, tmp_path / run, ["tsv", "jsonl"], store=codex_store)
        written.append({name: (tmp_path / run / name).read_bytes() for name in sorted(manifest["files"])})
    assert written[0] == written[1]
    for name, data in written[0].items():
        if name != "answers.json":
            assert b"fallback" not in data and b"range" not in data, name


def _hub_kb(people: int, elsewhere: int = 1) -> str:
    """``people`` persons who all live in one hub city, and Ann, born there; every ``elsewhere``-th
    person was born in a small town, the others in the hub."""
    lines = ["@prefix ex: <http://example.org/> .", "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
             "ex:City rdfs:subClassOf ex:Place .", "ex:hub a ex:City . ex:ann a ex:Person ; ex:born ex:hub ."]
    for i in range(people):
        born = f"town{i % 50}" if i % elsewhere == 0 else "hub"
        lines.append(f"ex:p{i} a ex:Person ; ex:born ex:{born} ; ex:lives ex:hub . ex:town{i % 50} a ex:City .")
    return "\n".join(lines)


def _hub_context(tmp_path, monkeypatch, kb: str) -> tuple[NegativeContext, Counter]:
    """An LCWA context on ``kb``, with a counter of the Negatives LCWA makes (``made``)."""
    from factforge.generators.negatives import lcwa as lcwa_module

    store = store_from_text(tmp_path, "hub.ttl", kb)
    spec = ScenarioSpec(BORN, size=4, transparency=0.0, ambiguous="lcwa", seed=0)
    counts = Counter()

    class CountedNegative(lcwa_module.Negative):
        def __init__(self, *args, **kwargs):
            counts["made"] += 1
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(lcwa_module, "Negative", CountedNegative)
    return NegativeContext.build(store, spec, adjacency(store), set(profiles.predicate_facts(store, BORN))), counts


def test_lcwa_builds_only_the_candidates_it_draws(tmp_path, monkeypatch):
    """A hub object's in-links are LCWA's subject-side candidates: the sampler may not make one
    false fact object per in-link (at 10M, 131 million of them for 10,000 sources) to draw a few."""
    from factforge.generators.negatives import base

    people = 3000
    context, made = _hub_context(tmp_path, monkeypatch, _hub_kb(people))
    source = Fact(EX + "ann", BORN, EX + "hub")
    lcwa = sampler("lcwa")
    assert lcwa.productive(context, [source]) == [True]
    drawn = lcwa.sample(context, [source], 3, stream(0, "test"))
    assert len(drawn) == 3 and all(n.fact.o == EX + "hub" and n.detail["side"] == "subject" for n in drawn)
    assert made["made"] <= 3 * base.SCREEN_AHEAD < people  # what is drawn and screened, not the in-degree


def test_lcwa_screens_a_hubs_refused_candidates_without_making_them(tmp_path, monkeypatch):
    """Near a hub most candidates are refused: here the hub's residents were nearly all born there,
    so p(resident, born, hub) is in the KB. Refused one by one, each was made and checked by
    ``acceptable`` (about a hundred per false fact drawn: large scenarios did not finish);
    the id screens refuse them by the window, and only what they let through is made and checked."""
    from factforge.generators.negatives import base

    people, rare = 3000, 100
    context, counts = _hub_context(tmp_path, monkeypatch, _hub_kb(people, elsewhere=rare))
    checked = context.acceptable

    def acceptable(fact, **kwargs):
        counts["checked"] += 1
        return checked(fact, **kwargs)

    monkeypatch.setattr(context, "acceptable", acceptable)
    source, wanted = Fact(EX + "ann", BORN, EX + "hub"), 3
    lcwa = sampler("lcwa")
    assert lcwa.productive(context, [source]) == [True]
    drawn = lcwa.sample(context, [source], wanted, stream(0, "test"))
    assert len(drawn) == wanted and all(int(n.fact.s.rsplit("p", 1)[1]) % rare == 0 for n in drawn)
    # one found by ``productive``, then one per false fact drawn (and the first, which names the
    # subject round_robin counts the source by); the refused ones never
    assert counts["checked"] <= 1 + wanted and counts["made"] <= 2 + wanted < base.SCREEN_AHEAD, counts


def _district_kb(towns: int, far: int) -> str:
    """Ann born in a hub city whose ``towns`` towns are each part of it, each town the birthplace of
    one person; ``far`` more people born in towns elsewhere. Every town of the hub is one link away
    from Ann's birthplace, so re-pairing Ann refuses all of them but the ``far`` ones."""
    lines = ["@prefix ex: <http://example.org/> .", "ex:hub a ex:City . ex:ann a ex:Person ; ex:born ex:hub ."]
    lines += [f"ex:t{i} a ex:City ; ex:partOf ex:hub . ex:p{i} a ex:Person ; ex:born ex:t{i} ." for i in range(towns)]
    lines += [f"ex:f{i} a ex:City . ex:q{i} a ex:Person ; ex:born ex:f{i} ." for i in range(far)]
    return "\n".join(lines)


@pytest.mark.parametrize("kind", ["random", "random_walk"])
def test_repairing_screens_a_hubs_refused_objects_without_making_them(tmp_path, monkeypatch, kind):
    """Re-pairing (and random walk's fallback, which re-pairs within the set) tries a subject's
    objects most owed first until one is acceptable. Ann's are nearly all refused (towns of her
    birthplace): checked one by one, each was made a fact and went through ``acceptable``, hundreds
    per false fact on the synthetic 1M KB (docs/performance.md). The id screens refuse them by the
    window, and only what they let through is made and checked."""
    from factforge.generators.negatives import base, random_pairing, random_walk

    towns, far = 400, 2
    store = store_from_text(tmp_path, "district.ttl", _district_kb(towns, far))
    spec = ScenarioSpec(BORN, size=4, transparency=1.0, seed=0)
    context = NegativeContext.build(store, spec, adjacency(store), set(profiles.predicate_facts(store, BORN)))
    made, checked, ann = Counter(), Counter(), EX + "ann"

    def counted_fact(s, *args, **kwargs):
        made[s] += 1
        return Fact(s, *args, **kwargs)

    for module in (base, random_pairing, random_walk):
        monkeypatch.setattr(module, "Fact", counted_fact)
    acceptable = context.acceptable
    monkeypatch.setattr(context, "acceptable", lambda fact, **kw: checked.update([fact.s]) or acceptable(fact, **kw))
    sources = [Fact(ann, BORN, EX + "hub")] + [Fact(f"{EX}p{i}", BORN, f"{EX}t{i}") for i in range(towns)]
    sources += [Fact(f"{EX}q{i}", BORN, f"{EX}f{i}") for i in range(far)]
    chosen = sampler(kind).sample(context, sources, len(sources), stream(0, "test")) if kind == "random" else \
        sampler(kind).fallback(context, sources, len(sources), stream(0, "test"))
    anns = [n.fact.o for n in chosen if n.fact.s == ann]
    assert len(anns) == 1 and anns[0].startswith(EX + "f")  # what she can take, she takes
    # the far town she takes, and what the screens cannot refuse (a fact already in the scenario)
    assert checked[ann] <= 1 + far and made[ann] <= 1 + far < base.SCREEN_AHEAD, (checked[ann], made[ann])


def test_draw_order_past_its_kept_places_is_the_seeded_order():
    """``round_robin``'s per-source order keeps only its first places and makes the rest again from
    the generator's saved state: popped to the end it is still the one permutation, stably sorted
    by rank as ranked when drawing began, and the generator continues as after one permutation."""
    from factforge.generators.negatives.base import DrawOrder

    size = 5 * DrawOrder.KEEP + 3
    owed = {i: i % 3 == 0 for i in range(size)}
    rank = lambda i: int(owed[i])  # noqa: E731
    rng, same = stream(4, "test"), stream(4, "test")
    order = DrawOrder(list(range(size)), rng, rank)
    owed.update({i: not owed[i] for i in owed})  # ranks read later would sort differently
    drawn = [order.pop() for _ in range(size)]
    full = same.permutation(size)
    assert drawn == full[np.argsort([(i % 3 == 0) for i in full], kind="stable")].tolist()
    assert not order.left() and rng.integers(1 << 30) == same.integers(1 << 30)


def _scarce_kb(people: int, linked: int) -> str:
    """``people`` persons born in one of 60 towns; only the first ``linked`` also died in another
    town (the only neighbours LCWA could take an o' from)."""
    lines = ["@prefix ex: <http://example.org/> .", "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
             "ex:City rdfs:subClassOf ex:Place ."]
    lines += [f"ex:town{t} a ex:City ." for t in range(60)]
    for i in range(people):
        lines.append(f"ex:p{i} a ex:Person ; ex:born ex:town{i % 60} .")
        if i < linked:
            lines.append(f"ex:p{i} ex:died ex:town{(i + 7) % 60} .")
    return "\n".join(lines)


def test_lcwa_reads_neighbours_in_proportion_to_what_it_draws(tmp_path, monkeypatch):
    """Where few subjects have neighbours of o's kind (CoDEx's occupations), LCWA read the neighbours
    of every fact of p twice (pairing true facts, then borrowing sources outside the scenario) to
    make a handful, before the range fallback made the rest: its work grew with the KB, not with
    the scenario. It now reads at most SCAN_PER_FALSE_FACT facts per false fact, and the fallback
    comes before sources outside the scenario."""
    from factforge.generators.negatives.lcwa import SCAN_PER_FALSE_FACT, LocalClosedWorld

    people, size = 3000, 20
    store = store_from_text(tmp_path, "scarce.ttl", _scarce_kb(people, linked=3))
    read = Counter()
    typed = LocalClosedWorld._typed

    def counted(self, context, sources, *args, **kwargs):
        read["sources"] += len(sources)
        return typed(self, context, sources, *args, **kwargs)

    monkeypatch.setattr(LocalClosedWorld, "_typed", counted)
    scenario = generate(store, ScenarioSpec(BORN, size=size, transparency=0.0, ambiguous="lcwa", seed=0))
    false = [a for a in scenario.answers.values() if not a["label"]]
    assert len(false) == size // 2
    assert not any(a.get("source_outside_scenario") for a in false)  # the fallback took the scenario's own
    assert read["sources"] <= SCAN_PER_FALSE_FACT * (size // 2) + size < people


WALK_SHARE = {"P1412": 0.8}


@pytest.mark.slow
@pytest.mark.parametrize("relation", ["P37", "P20", "P1412"])
def test_random_walk_on_codex_passes_the_audit(codex_store, relation):
    """Random-walk false facts at c = 0 (leakage pair) were flagged by the type baseline and the
    object column on official languages and places of death, seed after seed: walks reach a few hubs
    (English, New York) far more often than true facts name them, and a rank taken once let a hub's
    walk ends be drawn long past its debt, while popular true objects (Arabic, Paris) got few false
    facts. Walks now take an object only while it is owed. 300 facts: the audit's threshold is about
    three standard errors there, so a flag is a finding, not noise.

    P1412 (languages spoken) was then still flagged at seeds 0 and 2 by the data, not the walk:
    English was the object of 74 of 150 true facts, but only 46 of the set's subjects did not
    speak it. The true facts are now matched to what the subjects can take (``object_room``),
    and P1412 passes too."""
    from factforge.evaluation.audit import audit_scenario

    for seed in range(4):
        spec = ScenarioSpec(WD + relation, size=300, transparency=0.0, ambiguous="random_walk", seed=seed,
                            leakage="pair")
        scenario = generate(codex_store, spec)
        report = audit_scenario(scenario, codex_store)
        assert not report["flagged"], (seed, report["reasons"])
        made = scenario.summary["random_walk"]
        # still walks, not the fallback, that make them (fewer on P1412: a language spoken by few
        # is reached by few walks)
        assert made["walk_made"] >= WALK_SHARE.get(relation, 0.9) * made["false_facts"]


@pytest.mark.slow
def test_random_walk_on_codex_gives_every_subject_one_false_fact_at_100_facts(codex_store):
    """CoDEx P20 (place of death), random walk at c = 0, 100 facts, seeds 0-3. Walks take an object
    only while it is owed, and the walk round let each source in turn take its first owed end: a
    subject whose only ends (Los Angeles, New York) subjects with many other ends had already paid
    got none, and the next round gave subjects with ends to spare a second (5 and 6 subjects each
    way at seeds 0 and 2), so how often a subject occurs told the labels (frequency baseline 0.62,
    0.65). A subject left over now gets an end by trades with the sources that could move
    (``debt_paths``), before any subject gets a second false fact."""
    from factforge.evaluation.audit import audit_scenario

    for seed in range(4):
        spec = ScenarioSpec(WD + "P20", size=100, transparency=0.0, ambiguous="random_walk", seed=seed,
                            leakage="pair")
        scenario = generate(codex_store, spec)
        true_subjects = Counter(f.fact.s for f in scenario.test if f.label)
        false_subjects = Counter(f.fact.s for f in scenario.test if not f.label)
        assert false_subjects == true_subjects, (seed, true_subjects - false_subjects, false_subjects - true_subjects)
        report = audit_scenario(scenario, codex_store)
        assert not report["flagged"], (seed, report["reasons"])


@pytest.mark.slow
def test_random_walk_on_codex_pays_popular_objects_before_new_ones(codex_store):
    """CoDEx P17 (country), random walk at c = 0, 100 facts. Walks from most subjects never reach
    the US (16 of 50 true facts at seed 0; 25-28 other subjects of the set could take it), so ends
    new to the split, each once, took its place: the US got 8 of its 16 false facts, 17 false facts
    had objects no true fact names, and the type baseline read 0.60-0.73 at seeds 0-2 and 4-7
    (mean 0.64 over seeds 0-7). Now the objects that true facts name more than once and are still
    owed come before ends new to the split. At 100 facts one audit AUROC has a standard error of
    about 0.05, so the mean over seeds 0-7 is asserted (about 0.55 now), not each seed's flag."""
    from factforge.evaluation.audit import audit_scenario

    baselines = {"type": [], "frequency": []}
    for seed in range(8):
        spec = ScenarioSpec(WD + "P17", size=100, transparency=0.0, ambiguous="random_walk", seed=seed,
                            leakage="pair")
        report = audit_scenario(generate(codex_store, spec), codex_store)
        for name, values in baselines.items():
            values.append(report["baselines"][name]["auroc"])
    assert all(sum(values) / len(values) < 0.57 for values in baselines.values()), baselines


@pytest.mark.slow
def test_random_walk_false_occupations_on_codex_go_where_the_subjects_neighbourhood_leads(codex_store):
    """CoDEx P106 (occupation), random walk at c = 0, 100 facts, leakage pair, seeds 0-3. Which
    subject took which owed object was left to a seeded order (walk ends) or to "most owed first"
    (the fallback), whatever the subject: the false occupations went against the subject's other
    occupations, where the true ones go with them, and CoDEx's hand-checked ones too (TransE 0.70
    against theirs 0.46 at seed 0 in bench/codex_hardness_bench.py). Measured from the KB alone:
    how often walks from the subject end at the object (``walk_reach``, not through the true
    object) told true from false at AUROC 0.67 (mean over the seeds). The owed objects are now
    matched to the subjects as a whole, the most reached way (``plausible_matching``, by
    ``predicate_reach``: through the subject's links, then occupations, which every backend reads):
    reach 0.60, TransE 0.67 (before 0.67, 0.72; theirs 0.52). Means over four seeds: one 100-fact
    AUROC has a standard error of about 0.05."""
    from factforge.evaluation.metrics import auroc
    from factforge.evaluation.reference_graph import Reference
    from factforge.evaluation.scoring import run_checker
    from factforge.generators.negatives.plausibility import reach_of, walk_reach

    predicate = WD + "P106"
    reach, transe = [], []
    for seed in range(4):
        scenario = generate(codex_store, ScenarioSpec(predicate, size=100, transparency=0.0, ambiguous="random_walk",
                                                      seed=seed, leakage="pair"))
        index, p = scenario.index, scenario.index.pindex.get(predicate)
        labels = [f.label for f in scenario.test]
        assert labels.count(False) == 50
        reached = []
        for f in scenario.test:
            s, o = index.id(f.fact.s), index.id(f.fact.o)
            reached.append(float(reach_of(walk_reach(index, s, p, o), np.array([o]))[0]))
        reach.append(auroc(labels, reached))
        facts = [{"subject": f.fact.s, "predicate": predicate, "object": f.fact.o, "label": f.label}
                 for f in scenario.test]
        transe.append(run_checker("transe", [], facts, Reference.of(codex_store, scenario.removed), seed=seed).auroc)
    assert np.mean(reach) <= 0.63, reach
    assert np.mean(transe) <= 0.69, transe


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["random_walk", "lcwa"])
def test_random_walk_says_which_objects_it_could_not_balance(codex_store, kind):
    """CoDEx P1303 (instrument played): the type check gives an instrument only to players of a
    like one, so no set of the ranking's facts lets the set's subjects take "voice" or the piano
    as often as true facts name them; the audit flags the object column. The summary and the
    manifest say which objects, with how many false facts each is owed and how many subjects
    could take it (for LCWA, one false fact per subject: how many of them it could be given),
    rather than shipping the set silently."""
    from factforge.evaluation.audit import audit_scenario

    spec = ScenarioSpec(WD + "P1303", size=300, transparency=0.0, ambiguous=kind, seed=0, leakage="pair")
    scenario = generate(codex_store, spec)
    section = scenario.summary["true_objects"]
    assert section["unmatched"] and scenario.manifest()["true_objects"] == section
    true_objects = Counter(f.fact.o for f in scenario.test if f.label)
    holders = {(f.fact.s, f.fact.o) for f in scenario.test if f.label}
    subjects = {s for s, _ in holders}
    pairs = set(profiles.predicate_facts(codex_store, WD + "P1303"))
    for entry in section["unmatched"]:
        o = entry["object"]
        assert entry["false_facts_owed"] == true_objects[o] > entry["subjects_that_can_take_it"]
        assert entry["subjects_that_can_take_it"] <= sum((s, o) not in pairs for s in subjects)
        assert f"{o} (test) is owed {true_objects[o]} false facts but only {entry['subjects_that_can_take_it']}" \
            in section["warning"]
    assert audit_scenario(scenario, codex_store)["flagged"]


def test_lcwa_counts_a_subject_s_false_facts_per_split(dbpedia_store):
    """DBpedia50 starring, LCWA at c = 0, 100 test and 100 train facts, seed 0: 10 subjects have true
    facts in both splits. The rule "no subject more often false than true" is the split's (each is
    published and audited on its own): counted over both, as it was, those subjects had their test
    false facts against them in train, and 8 of the 10 got no train false fact while 9 others got
    more false facts than true ones. Counted per split, every train subject has a false fact and
    none more than its true ones."""
    spec = ScenarioSpec("dbo:starring", size=100, train_size=100, transparency=0.0, ambiguous="lcwa", seed=0)
    scenario = generate(dbpedia_store, spec)
    shared = {f.fact.s for f in scenario.test if f.label} & {f.fact.s for f in scenario.train if f.label}
    assert len(shared) >= 5
    assert _subject_balance(scenario.train) == (0, 0)
    assert "train" not in scenario.summary.get("false_subjects", {})


def _subject_balance(items) -> tuple[int, int]:
    """(subjects of a split's true facts with no false fact, subjects with more false facts than true)."""
    true_subjects = Counter(f.fact.s for f in items if f.label)
    false_subjects = Counter(f.fact.s for f in items if not f.label)
    return (sum(s not in false_subjects for s in true_subjects),
            sum(n > true_subjects[s] for s, n in false_subjects.items()))


@pytest.mark.slow
def test_a_scenario_says_when_subjects_are_false_more_or_less_often_than_true(codex_store):
    """CoDEx P17 (country), LCWA at c = 0, 280 facts, seed 0: the neighbour round gives no subject
    more false facts than true ones, but the KB cannot give every subject of the set one, so 6 of
    the 93 subjects have none and the range fallback gave 7 others a second false fact. The
    frequency and degree baselines read exactly this balance, so the summary and the manifest say
    it, counted from the split's facts (not from what the sampler meant to make). A scenario where
    every subject has as many false facts as true ones says nothing."""
    spec = ScenarioSpec(WD + "P17", size=280, transparency=0.0, ambiguous="lcwa", seed=0, leakage="pair")
    scenario = generate(codex_store, spec)
    section = scenario.summary["false_subjects"]
    assert scenario.manifest()["false_subjects"] == section
    without, more = _subject_balance(scenario.test)
    assert (without, more) == (6, 7)
    assert section["test"] == {"subjects": 93, "without_false_fact": without, "more_false_than_true": more}
    assert "train" not in section
    assert "test: 6 of 93 subjects without a false fact, 7 with more false facts than true ones" in section["warning"]
    assert "false_subjects" not in scenario.header()

    balanced = generate(codex_store, ScenarioSpec(WD + "P17", size=100, transparency=1.0, seed=0))
    assert _subject_balance(balanced.test) == (0, 0)
    assert "false_subjects" not in balanced.summary and "false_subjects" not in balanced.manifest()


def test_the_id_screen_of_in_kb_agrees_with_in_kb_by_name(dbpedia_store):
    """``in_kb_nodes`` reads the predicate's pairs as ids from the index's arrays, not by name: the
    same answer as ``in_kb`` by name, for the predicate's own pairs, their reversals and random pairs."""
    from factforge.generators import positives
    from factforge.generators.negatives.kb_view import KBView
    from factforge.sparql.adjacency import adjacency

    predicate = "http://dbpedia.org/ontology/birthPlace"
    index = adjacency(dbpedia_store)
    kb = KBView(dbpedia_store, index, predicate, positives.kb_pairs(dbpedia_store, predicate))
    pid = index.pindex[predicate]
    own_s, own_o = index.src[index.pred == pid][:300], index.dst[index.pred == pid][:300]
    rng = np.random.default_rng(0)
    random_s, random_o = rng.integers(0, len(index.entities), 300), rng.integers(0, len(index.entities), 300)
    s = np.concatenate([own_s, own_o, random_s]).astype(np.int64)
    o = np.concatenate([own_o, own_s, random_o]).astype(np.int64)
    expected = [kb.in_kb(Fact(index.entities[a], predicate, index.entities[b])) for a, b in zip(s.tolist(), o.tolist())]
    assert sum(expected) >= 300  # the predicate's own pairs are in the KB
    assert kb.in_kb_nodes(s, o).tolist() == expected


@pytest.mark.parametrize("relation", ["P1412", "P140"])
def test_at_transparency_one_the_ambiguous_kind_does_not_choose_the_set(codex_store, relation):
    """At c = 1 re-pairing makes every false fact: LCWA's room (one false object per subject of the
    set), which on these relations swapped true facts, must not shape a set LCWA makes nothing of."""
    sets = [generate(codex_store, ScenarioSpec(WD + relation, size=300, transparency=1.0, ambiguous=kind, seed=0))
            for kind in ("lcwa", "random_walk")]
    lcwa, walk = ([(f.fact.triple, f.label) for f in scenario.test] for scenario in sets)
    assert lcwa == walk
