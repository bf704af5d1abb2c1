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
