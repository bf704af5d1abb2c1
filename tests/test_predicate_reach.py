"""``predicate_reach``, the reach random walk matches owed objects by: read from the subject's links
and the predicate's only, which a scenario reads through an endpoint too, so both backends give
the same reach without fetching a neighbour whole (issue 16)."""
from __future__ import annotations

import numpy as np
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
