"""``predicate_reach``, the reach random walk matches owed objects by: read from the subject's links
and the predicate's only, which a scenario reads through an endpoint too, so both backends give
the same reach without fetching a neighbour whole (issue 16)."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import store_from_text

from factforge.generators.negatives.plausibility import predicate_reach, walk_reach
from factforge.sparql.adjacency import build
from factforge.sparql.neighbourhood import NeighbourhoodReader

EX = "http://example.org/"
# Ann holds the occupations Poet and Singer; Bob and Cy hold Poet too, with others of their own.
# Ann also likes a hobby whose tags lead nowhere near an occupation: a neighbour that only a walk
# through any predicate reads whole.
KB = "".join(f"<{EX}{s}> <{EX}{p}> <{EX}{o}> .\n" for s, p, o in (
    ("Ann", "occupation", "Poet"), ("Ann", "occupation", "Singer"), ("Ann", "likes", "Hobby"),
    ("Hobby", "tag", "Tag1"), ("Hobby", "tag", "Tag2"), ("Ann", "spouse", "Dan"),
    ("Bob", "occupation", "Poet"), ("Bob", "occupation", "Painter"),
    ("Cy", "occupation", "Poet"), ("Cy", "occupation", "Actor"),
    ("Dan", "occupation", "Actor"), ("Eve", "occupation", "Judge")))
OCCUPATION = f"{EX}occupation"
WD = "http://www.wikidata.org/entity/"


def named(index, reach) -> dict[str, float]:
    objects, probability = reach
    return {index.entities[o]: round(float(p), 12) for o, p in zip(objects.tolist(), probability.tolist())}


def test_reach_through_the_predicate_reads_the_subjects_links_and_the_predicates_only(tmp_path):
    store = store_from_text(tmp_path, "kb.nt", KB)
    whole = build(store, use_table=False)
    p, ann, singer = whole.pindex[OCCUPATION], whole.id(f"{EX}Ann"), whole.id(f"{EX}Singer")
    expected = named(whole, predicate_reach(whole, ann, p, singer))
    # a walk over Ann's links but Singer (the true object): a link each with 1/4, then stopping or
    # going on with 1/2: Dan's occupation at once, or Poet's other holders' occupations
    assert expected == {f"{EX}Actor": round(1 / 8 + 1 / 48, 12), f"{EX}Poet": round(2 / 48, 12),
                        f"{EX}Painter": round(1 / 48, 12)}
    assert f"{EX}Judge" not in expected  # no walk from Ann ends there

    # as an endpoint's index holds it: the predicate's facts, and Ann read whole (path search reads her)
    reader = NeighbourhoodReader(store, OCCUPATION, degrees=False)
    reader.fetch_links([f"{EX}Ann"])
    part = reader.index()
    got = named(part, predicate_reach(part, part.id(f"{EX}Ann"), part.pindex[OCCUPATION], part.id(f"{EX}Singer")))
    assert got == expected and not part.lacks_links
    # and so does the matching's path, asked at the objects it weighs
    from factforge.generators.negatives.plausibility import predicate_middles, reach_at

    names = sorted(expected)
    at = reach_at(part, predicate_middles(part, part.id(f"{EX}Ann"), part.pindex[OCCUPATION], part.id(f"{EX}Singer")),
                  part.pindex[OCCUPATION], np.array([part.id(x) for x in names]))
    assert dict(zip(names, at.round(12).tolist())) == expected and not part.lacks_links
    # walk_reach (any predicate at the second link) would have read the hobby and the spouse whole
    walk_reach(part, part.id(f"{EX}Ann"), part.pindex[OCCUPATION], part.id(f"{EX}Singer"))
    assert {f"{EX}Hobby", f"{EX}Dan"} <= part.missing


def test_a_walk_does_not_come_back_to_the_subject_nor_start_at_the_avoided_object(tmp_path):
    store = store_from_text(tmp_path, "kb.nt", KB)
    index = build(store, use_table=False)
    p, ann = index.pindex[OCCUPATION], index.id(f"{EX}Ann")
    got = named(index, predicate_reach(index, ann, p, index.id(f"{EX}Poet")))
    # Poet avoided: only Dan leads anywhere; through Singer, held by Ann alone, the walk would come
    # back to her, and her own occupations do not count
    assert got == {f"{EX}Actor": round(1 / 8, 12)}
    assert predicate_reach(index, -1, p)[0].size == 0 and predicate_reach(index, ann, None)[0].size == 0
    assert np.isclose(predicate_reach(index, ann, p)[1].sum(), 1 / 8 + 4 / 48)


def _agrees(index, p: int, facts, rng, degrees) -> int:
    """``reach_at`` over ``predicate_middles`` against ``predicate_reach`` read at the same objects:
    every object the reference reaches, objects it does not, and ids outside the index."""
    from factforge.generators.negatives.plausibility import predicate_middles, reach_at, reach_of

    checked = 0
    for s, o in facts:
        full = predicate_reach(index, s, p, o)
        objects = np.concatenate([full[0], rng.integers(0, len(index.entities), 30), [-1]]).astype(np.int64)
        expected = reach_of(full, np.maximum(objects, 0))
        expected[objects < 0] = 0.0
        for out_degrees in (None, degrees):
            got = reach_at(index, predicate_middles(index, s, p, o, out_degrees), p, objects)
            assert np.allclose(got, expected, rtol=1e-9, atol=0), (index.entities[s], index.entities[o])
        checked += int((expected > 0).sum())
    return checked


def test_reach_at_the_matchings_objects_agrees_with_every_walks_end(tmp_path):
    """Random walk weighs a few objects per subject: ``predicate_middles`` then ``reach_at`` give
    what ``predicate_reach`` gives at those objects, whether an object's holders are looked up
    among the middle nodes or the middle nodes' links among the predicate's (a hub object)."""
    from factforge.generators.negatives import plausibility
    from factforge.generators.negatives.plausibility import predicate_middles, predicate_out_degrees, reach_at

    store = store_from_text(tmp_path, "kb.nt", KB)
    index = build(store, use_table=False)
    p, ann, singer = index.pindex[OCCUPATION], index.id(f"{EX}Ann"), index.id(f"{EX}Singer")
    names = [f"{EX}{x}" for x in ("Actor", "Poet", "Painter", "Judge", "Singer")]
    objects = np.array([index.id(x) for x in names] + [-1], dtype=np.int64)
    middles = predicate_middles(index, ann, p, singer, predicate_out_degrees(index, p))
    got = dict(zip(names, reach_at(index, middles, p, objects)[:-1].round(12).tolist()))
    assert got == {f"{EX}Actor": round(1 / 8 + 1 / 48, 12), f"{EX}Poet": round(2 / 48, 12),
                   f"{EX}Painter": round(1 / 48, 12), f"{EX}Judge": 0.0, f"{EX}Singer": 0.0}
    # Poet's three holders outnumber twice a middle set of one: the middle node is looked up among them
    for part in ((middles[0][k:k + 1], middles[1][k:k + 1]) for k in range(middles[0].size)):
        assert np.allclose(reach_at(index, part, p, objects), _by_holders(index, part, p, objects))
    poet_holders = index.follow(index.id(f"{EX}Poet"), -(p + 1))
    assert poet_holders.size > 2 and np.isin(poet_holders, middles[0]).any()  # the branch is taken, and counts
    assert _agrees(index, p, [(ann, singer), (ann, -1), (index.id(f"{EX}Bob"), index.id(f"{EX}Poet"))],
                   np.random.default_rng(0), predicate_out_degrees(index, p)) > 0
    # the out-degrees are kept per index: the same array again, and what the runs give
    degrees = predicate_out_degrees(index, p)
    assert predicate_out_degrees(index, p) is degrees
    lo, hi = index.follow_many(np.arange(len(index.entities)), np.full(len(index.entities), p + 1))
    assert np.array_equal(degrees, hi - lo)
    assert plausibility.predicate_middles(index, -1, p)[0].size == 0 and reach_at(index, middles, None, objects).sum() == 0


def _by_holders(index, middles, p, objects):
    """The reference for one branch: each object's holders summed by a plain loop."""
    nodes, share = middles
    values = np.zeros(objects.size)
    for k, o in enumerate(objects.tolist()):
        if o >= 0:
            holders = index.follow(o, -(p + 1)).tolist()
            values[k] = sum(share[nodes.tolist().index(h)] for h in holders if h in nodes.tolist())
    return values


@pytest.mark.parametrize("relation", ["P106", "P27", "P19", "P136"])
def test_reach_at_agrees_with_predicate_reach_on_codex(relation):
    """On a Wikidata KB (popular objects, dense occupations) for 150 seeded true facts each."""
    from conftest import CODEX, need

    from factforge.generators.negatives.plausibility import predicate_out_degrees
    from factforge.sparql.embedded import EmbeddedStore
    from factforge.sparql.kge import load_kge_tsv

    store = EmbeddedStore()
    load_kge_tsv(store, [need(CODEX / "train.txt")], entity_base=WD, relation_base=WD, progress=False)
    index = build(store, use_table=False)
    p = index.pindex[WD + relation]
    facts = np.flatnonzero(index.pred == p)
    rng = np.random.default_rng(1)
    picks = rng.choice(facts, min(150, facts.size), replace=False)
    pairs = [(int(index.src[k]), int(index.dst[k])) for k in picks.tolist()]
    assert _agrees(index, p, pairs, rng, predicate_out_degrees(index, p)) > 50  # reached objects checked
