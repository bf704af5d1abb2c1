"""The nearness screen by the nodes near each known object (``nearness.near_objects``, on a whole
index) answers as the screen by (candidate, known) rows does (``nearness.near_known``, which an
endpoint's neighbourhood still uses): the same refusals, so the same false facts."""
from __future__ import annotations

import numpy as np
import pytest

from factforge.generators.negatives import NegativeContext
from factforge.generators.negatives.nearness_memo import NearnessMemo
from factforge.generators.spec import ScenarioSpec
from factforge.sparql import profiles
from factforge.sparql.adjacency import adjacency
from test_negatives import BIRTH_PLACE, WD, codex_store  # noqa: F401 (a fixture)


def _both_ways(store, predicate: str, monkeypatch) -> tuple[np.ndarray, np.ndarray, NearnessMemo]:
    """``near_nodes`` of many pairs of the predicate's subjects and objects (and a known object's
    neighbours, often refused), by sets and by rows, from two fresh contexts."""
    index = adjacency(store)
    pairs = set(profiles.predicate_facts(store, predicate))
    spec = ScenarioSpec(predicate, size=10, seed=0)
    rng = np.random.default_rng(3)
    subjects = np.array(sorted({index.id(s) for s, _ in pairs}))
    objects = np.array(sorted({index.id(o) for _, o in pairs}))
    s = rng.choice(subjects, 3000)
    o = rng.choice(objects, 3000)
    by_sets = NegativeContext.build(store, spec, index, pairs).near
    neighbours = [(x, y) for x in s[:200].tolist() for k in by_sets.kb.objects_of(index.entities[x])
                  for y in index.steps(index.id(k))[0][:5].tolist()]
    s = np.concatenate([s, [x for x, _ in neighbours]]).astype(np.int64)
    o = np.concatenate([o, [y for _, y in neighbours]]).astype(np.int64)
    near = by_sets.near_nodes(s, o)
    # one subject a call (re-pairing's line, a window at a time) answers from the subject's near mask
    for x in np.unique(s[:300]).tolist():
        rows = np.flatnonzero(s == x)
        assert by_sets.near_nodes(s[rows], o[rows]).tolist() == near[rows].tolist()
    monkeypatch.setattr(NearnessMemo, "_whole_index", property(lambda self: False))
    by_rows = NegativeContext.build(store, spec, index, pairs).near
    return near, by_rows.near_nodes(s, o), by_sets


def test_near_objects_agree_with_the_row_screen_on_dbpedia50(dbpedia_store, monkeypatch):
    by_sets, by_rows, memo = _both_ways(dbpedia_store, BIRTH_PLACE, monkeypatch)
    assert memo._near_sets  # the sets were what answered
    assert 0.02 < by_rows.mean() < 0.98  # both answers are exercised
    assert by_sets.tolist() == by_rows.tolist()


@pytest.mark.parametrize("relation", ["P27", "P1412", "P19"])
def test_near_objects_agree_with_the_row_screen_on_codex(codex_store, relation, monkeypatch):
    """CoDEx's popular objects (countries, languages) are where ``held_apart`` decides."""
    by_sets, by_rows, memo = _both_ways(codex_store, WD + relation, monkeypatch)
    assert memo._near_sets
    assert by_rows.any()
    assert by_sets.tolist() == by_rows.tolist()


def test_first_acceptable_given_ids_takes_what_it_takes_without_them(dbpedia_store):
    """Re-pairing hands ``first_acceptable`` its line's index ids; the ids must only save the lookups,
    never change which object a subject takes (windows past the first, objects outside the index)."""
    from factforge.generators.negatives.base import FIRST_WINDOW, first_acceptable

    index = adjacency(dbpedia_store)
    pairs = set(profiles.predicate_facts(dbpedia_store, BIRTH_PLACE))
    spec = ScenarioSpec(BIRTH_PLACE, size=10, seed=0)
    line = sorted({o for _, o in pairs}) + ["http://example.org/not-in-the-kb"]
    ids = np.array([index.id(o) if index.id(o) is not None else -1 for o in line], dtype=np.int64)
    assert ids[-1] == -1 and len(line) > 4 * FIRST_WINDOW
    with_ids = NegativeContext.build(dbpedia_store, spec, index, pairs)
    without = NegativeContext.build(dbpedia_store, spec, index, pairs)
    owned: dict[str, list[str]] = {}
    for s, o in sorted(pairs):
        owned.setdefault(s, []).append(o)
    taken, rng = [], np.random.default_rng(0)
    for s in sorted(owned)[:150]:
        order = rng.permutation(len(line))
        # the subject's own objects (true, so refused) fill the first windows: it takes from a later one
        refused = (owned[s] * (3 * FIRST_WINDOW + 1))[:3 * FIRST_WINDOW + 1]
        own_line = refused + [line[k] for k in order.tolist()]
        own_ids = np.concatenate([[index.id(o) for o in refused], ids[order]]).astype(np.int64)
        fact = first_acceptable(with_ids, s, own_line, own_ids)
        assert fact == first_acceptable(without, s, iter(own_line)), s
        taken.append(own_line.index(fact.o) if fact else None)
    places = [k for k in taken if k is not None]
    assert len(places) > 100 and min(places) > 3 * FIRST_WINDOW
    assert len(set(places)) > 1  # not every subject takes its line's first free place


def _nodes_to_try(store, predicate: str) -> tuple[NearnessMemo, np.ndarray]:
    """A fresh memo, and the predicate's objects with the most-linked nodes of the KB (hubs, whose
    near sets hold much of it) and some of their neighbours."""
    index = adjacency(store)
    pairs = set(profiles.predicate_facts(store, predicate))
    memo = NegativeContext.build(store, ScenarioSpec(predicate, size=10, seed=0), index, pairs).near
    objects = sorted({index.id(o) for _, o in pairs})
    hubs = np.argsort(-index.in_degrees, kind="stable")[:20].tolist()
    rng = np.random.default_rng(5)
    picked = rng.choice(objects, min(300, len(objects)), replace=False).tolist()
    neighbours = [y for k in picked[:40] for y in index.steps(k)[0][:3].tolist()]
    return memo, np.array(sorted(set(picked + hubs + neighbours)), dtype=np.int64)


@pytest.mark.parametrize("kb,pass_links", [("dbpedia", None), ("dbpedia", 64), ("codex", None), ("codex", 64)])
def test_near_sets_made_together_are_the_sets_made_one_by_one(kb, pass_links, dbpedia_store, codex_store,  # noqa: F811
                                                              monkeypatch):
    """``near_objects_many`` (a subject's known objects in one go) is only faster: node by node the
    same arrays as ``near_objects``, with the scenario's predicate judging popular co-objects and
    without, in one pass or in many (``PASS_LINKS``)."""
    from factforge.generators.negatives import nearness

    if pass_links:
        monkeypatch.setattr(nearness, "PASS_LINKS", pass_links)
    store, predicate = (dbpedia_store, BIRTH_PLACE) if kb == "dbpedia" else (codex_store, WD + "P27")
    memo, nodes = _nodes_to_try(store, predicate)
    index, pid = memo.kb.adjacency, memo.predicate_id
    for judge in (pid, None):
        together = nearness.near_objects_many(index, nodes, memo.granular, memo.predicate_subjects, judge)
        assert len(together) == nodes.size
        sizes = []
        for k, made in zip(nodes.tolist(), together):
            alone = nearness.near_objects(index, k, memo.granular, memo.predicate_subjects, judge)
            assert made.dtype == alone.dtype and made.tolist() == alone.tolist(), k
            sizes.append(made.size)
        assert max(sizes) > 100 and min(sizes) < 3  # hubs and quiet nodes
    assert nearness.near_objects_many(index, nodes[:0], memo.granular, memo.predicate_subjects, pid) == []


@pytest.mark.parametrize("kb", ["dbpedia", "codex"])
def test_near_sets_are_symmetric(kb, dbpedia_store, codex_store):  # noqa: F811
    """b is near k exactly when k is near b: what lets one object's room search that object's set
    for every subject's known objects instead of every known object's set for the object."""
    store, predicate = (dbpedia_store, BIRTH_PLACE) if kb == "dbpedia" else (codex_store, WD + "P27")
    memo, nodes = _nodes_to_try(store, predicate)
    sets = memo._sets(nodes)
    inside = np.stack([np.isin(nodes, sets[k]) for k in nodes.tolist()])
    assert inside.sum() - np.trace(inside) > 20  # pairs near each other are exercised
    assert (inside == inside.T).all()


@pytest.mark.parametrize("kb", ["dbpedia", "codex"])
def test_an_objects_room_over_many_subjects_agrees_with_the_row_screen(kb, dbpedia_store, codex_store,  # noqa: F811
                                                                      monkeypatch):
    """One object asked of many subjects (``object_room``) is answered from that object's near set
    (the side with fewer distinct nodes); a few objects asked of two subjects from the subjects'
    known objects' sets: both as the (candidate, known) rows decide."""
    store, predicate = (dbpedia_store, BIRTH_PLACE) if kb == "dbpedia" else (codex_store, WD + "P27")
    index = adjacency(store)
    pairs = set(profiles.predicate_facts(store, predicate))
    spec = ScenarioSpec(predicate, size=10, seed=0)
    subjects = np.array(sorted({index.id(s) for s, _ in pairs}), dtype=np.int64)[:400]
    popular = np.argsort(-np.bincount([index.id(o) for _, o in pairs], minlength=len(index.entities)), kind="stable")
    by_sets = NegativeContext.build(store, spec, index, pairs).near
    asked = []
    for o in popular[:15].tolist():
        asked.append((subjects, np.full(subjects.size, o, dtype=np.int64)))
    asked.append((np.repeat(subjects[:2], 15), np.tile(popular[:15], 2).astype(np.int64)))
    answers = [by_sets.near_nodes(s, o) for s, o in asked]
    assert set(popular[:15].tolist()) <= set(by_sets._near_sets)  # the objects' own sets answered
    monkeypatch.setattr(NearnessMemo, "_whole_index", property(lambda self: False))
    by_rows = NegativeContext.build(store, spec, index, pairs).near
    refused = 0
    for (s, o), answer in zip(asked, answers):
        assert answer.tolist() == by_rows.near_nodes(s, o).tolist()
        refused += int(answer.sum())
    assert refused > 10


@pytest.mark.parametrize("masked", [0, 8, 1 << 30])
def test_a_subjects_window_agrees_whether_its_sets_are_masked_or_searched(masked, dbpedia_store, monkeypatch):
    """``_near_subject`` puts small near sets in its mask and searches larger ones: wherever the
    line between them falls, a subject's windows get the answers of the (candidate, known) rows."""
    from factforge.generators.negatives import nearness_memo

    monkeypatch.setattr(nearness_memo, "MASKED", masked)
    index = adjacency(dbpedia_store)
    pairs = set(profiles.predicate_facts(dbpedia_store, BIRTH_PLACE))
    spec = ScenarioSpec(BIRTH_PLACE, size=10, seed=0)
    by_sets = NegativeContext.build(dbpedia_store, spec, index, pairs).near
    owned: dict[int, list[int]] = {}
    for s, o in sorted(pairs):
        owned.setdefault(index.id(s), []).append(index.id(o))
    rng = np.random.default_rng(7)
    objects = np.array(sorted({o for known in owned.values() for o in known}), dtype=np.int64)
    windows = []
    for s in sorted(owned)[:120]:
        near_known = [y for k in owned[s] for y in index.steps(k)[0][:4].tolist()]
        o = np.concatenate([rng.choice(objects, 24), near_known]).astype(np.int64)
        windows += [(s, o[:16]), (s, o[16:])]  # the second window reads the mask the first one set
    answers = [by_sets.near_nodes(np.full(o.size, s, dtype=np.int64), o) for s, o in windows]
    monkeypatch.setattr(NearnessMemo, "_whole_index", property(lambda self: False))
    by_rows = NegativeContext.build(dbpedia_store, spec, index, pairs).near
    for (s, o), answer in zip(windows, answers):
        assert answer.tolist() == by_rows.near_nodes(np.full(o.size, s, dtype=np.int64), o).tolist(), s
    assert sum(int(a.sum()) for a in answers) > 20


@pytest.mark.parametrize("share", [1, 3])
def test_a_later_scenario_reads_the_near_sets_an_earlier_one_made(share, dbpedia_store, monkeypatch):
    """Near sets kept across scenarios (``near_sets``) are the sets a fresh memo would make, a later
    memo of the same index and predicate reads them instead of making them again, and the kept
    sets stay within ``LIMIT`` (here all of them, or a third) while a scenario's memo keeps what it read."""
    from factforge.generators.negatives import near_sets, nearness

    near_sets.forget()
    first, nodes = _nodes_to_try(dbpedia_store, BIRTH_PLACE)
    index = first.kb.adjacency
    sizes = [s.size for s in nearness.near_objects_many(index, nodes, first.granular, first.predicate_subjects,
                                                        first.predicate_id)]
    monkeypatch.setattr(near_sets, "LIMIT", sum(sizes) // share)
    made = {k: first._sets(nodes)[k] for k in nodes.tolist()}
    assert sum(v.size for sets in near_sets._kept.values() for v in sets.values()) <= sum(sizes) // share
    second, _ = _nodes_to_try(dbpedia_store, BIRTH_PLACE)
    asked = nodes[::max(1, nodes.size // 80)]  # the oldest sets and the newest
    still = set(near_sets.kept(index, second.predicate_id, second.granular, asked.tolist()))
    calls = []
    make = nearness.near_objects_many
    monkeypatch.setattr(nearness, "near_objects_many", lambda *a: calls.append(a[1].tolist()) or make(*a))
    read = second._sets(asked)
    for k in asked.tolist():
        assert read[k].tolist() == nearness.near_objects(index, k, second.granular, second.predicate_subjects,
                                                         second.predicate_id).tolist()
        assert (read[k] is made[k]) == (k in still)
    assert sum(calls, []) == [k for k in asked.tolist() if k not in still]  # only what was dropped is made again
    assert (len(still) == asked.size) == (share == 1)
    assert all(k in first._near_sets for k in nodes.tolist())  # the first memo keeps its own
    near_sets.forget()


def test_prepared_near_sets_are_the_sets_asked_for(dbpedia_store):
    """``prepare`` (the chosen subjects' known objects) and ``prepare_nodes`` (the true objects) make
    near sets ahead of the screens: the sets of exactly those nodes, as ``near_objects`` makes them."""
    from factforge.generators.negatives import near_sets, nearness

    near_sets.forget()
    memo, nodes = _nodes_to_try(dbpedia_store, BIRTH_PLACE)
    index = memo.kb.adjacency
    subjects = sorted({s for s, _ in profiles.predicate_facts(dbpedia_store, BIRTH_PLACE)})[:60]
    memo.prepare(subjects + ["http://example.org/not-in-the-kb"])
    known = {index.id(o) for s in subjects for o in memo.kb.objects_of(s)}
    assert set(memo._near_sets) == known
    memo.prepare_nodes([index.entities[k] for k in nodes[:40].tolist()])
    assert set(memo._near_sets) == known | set(nodes[:40].tolist())
    for k, near in memo._near_sets.items():
        assert near.tolist() == nearness.near_objects(index, k, memo.granular, memo.predicate_subjects,
                                                      memo.predicate_id).tolist()
    near_sets.forget()
