"""Predicate profiles computed from a ``QuadTable`` with numpy, the same numbers the aggregate
queries give (``predicate_counts``, ``predicate_*_types``, ``predicate_mean_degree``).

The queries' semantics are kept exactly: rows are quads of the union default graph (a triple in
two graphs counts twice), distinct counts are over canonical terms, a type counts once per
(fact, type quad), and an entity of p joins the mean degree only when its degree is positive
(an inner join with the per-entity degree groups).
"""
from __future__ import annotations

import numpy as np

from .scan import QuadTable, dense, unique
from .terms import RDF_TYPE, is_schema_predicate


def profile_rows(table: QuadTable) -> dict | None:
    """Per predicate IRI: facts, subjects, objects, subject/object type counts and the (total,
    entities) of the mean degree; None when a type is a literal (its value would need decoding)."""
    n = len(table.terms)
    s, p, o = (c.astype(np.int64) for c in (table.s, table.p, table.o))
    literal = table.is_literal()
    ids = table.predicate_ids()
    names = {t: name for name, t in ids.items()}
    content = np.zeros(n, dtype=bool)
    content[[t for t, name in names.items() if not is_schema_predicate(name)]] = True

    facts = np.bincount(p, minlength=n)
    subjects = _distinct_per(p, s, n)
    objects = _distinct_per(p, o, n)
    rows = {names[t]: {"facts": int(facts[t]), "subjects": int(subjects[t]), "objects": int(objects[t])}
            for t in names}

    type_id = ids.get(RDF_TYPE.value)
    subject_types = object_types = {}
    if type_id is not None:
        typed = p == type_id
        if literal[o[typed]].any():
            return None
        facts_of_content = content[p]
        subject_types = _type_counts(p[facts_of_content], s[facts_of_content], s[typed], o[typed], n)
        object_types = _type_counts(p[facts_of_content], o[facts_of_content], s[typed], o[typed], n)
    classes: dict[int, str] = {}
    for side, counts in (("subject_types", subject_types), ("object_types", object_types)):
        for (pred, cls), count in counts.items():
            name = classes.get(cls) or classes.setdefault(cls, table.value(cls))
            rows[names[pred]].setdefault(side, []).append((name, count))

    for pred, (total, entities) in _mean_degree_parts(s, p, o, literal, content, n).items():
        rows[names[pred]]["degree"] = (total, entities)
    return rows


def _distinct_per(group: np.ndarray, member: np.ndarray, n: int) -> np.ndarray:
    """For each group id, how many distinct members it has."""
    key = member * n + group
    if not (key.size and np.all(key[1:] >= key[:-1])):  # the table is sorted by subject: no sort then
        key = np.sort(key)
    new = np.ones(key.size, dtype=bool)
    new[1:] = key[1:] != key[:-1]
    return np.bincount(key[new] % n, minlength=n)


def _type_counts(p, e, typed_s, typed_o, n) -> dict[tuple[int, int], int]:
    """(predicate, class) -> number of (fact, type quad) pairs joined on the entity ``e``: each fact
    is repeated once per type quad of its entity (a join without a sort or a sparse product)."""
    order = np.argsort(typed_s, kind="stable")
    classes_of = typed_o[order]
    count = np.bincount(typed_s, minlength=n)
    first = np.concatenate(([0], np.cumsum(count)[:-1]))
    per_fact = count[e]
    fact = np.repeat(np.arange(e.size), per_fact)
    within = np.arange(fact.size) - np.repeat(np.cumsum(per_fact) - per_fact, per_fact)
    cls = classes_of[first[e][fact] + within]
    preds, pred_row = dense(p[fact], n)
    classes, cls_col = dense(cls, n)
    cells = np.bincount(pred_row * classes.size + cls_col, minlength=preds.size * classes.size)
    found = np.flatnonzero(cells)
    preds, classes = preds.tolist(), classes.tolist()
    width = len(classes)
    return {(preds[k // width], classes[k % width]): int(cells[k]) for k in found.tolist()}


def _mean_degree_parts(s, p, o, literal, content, n) -> dict[int, tuple[int, int]]:
    """Per content predicate: (sum of degrees, number) of its distinct entities of positive degree."""
    links = content[p]
    out_links = links & ~literal[o]
    degree = np.bincount(s[out_links], minlength=n) + np.bincount(o[links], minlength=n)
    as_object = links & ~literal[o]
    pairs = unique(np.concatenate([p[links] * n + s[links], p[as_object] * n + o[as_object]]))
    entity = pairs % n
    pairs = pairs[degree[entity] > 0]
    pred = pairs // n
    totals = np.bincount(pred, weights=degree[pairs % n].astype(np.float64), minlength=n)
    counts = np.bincount(pred, minlength=n)
    return {int(t): (int(round(totals[t])), int(counts[t])) for t in np.flatnonzero(counts)}
