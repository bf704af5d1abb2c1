"""Trivial baselines for the shortcut audit: checkers that never look at how s and o are linked.

* ``degree``: log(1 + degree) of s and of o in R (popularity alone);
* ``type``: the classes of s and of o, with their ancestors (one-hot per side);
* ``frequency``: how often s and o occur in the record's own split (the set a system reads);
* ``shape``: the record's shape alone (``evaluation.features``): which fields, value kinds,
  predicate, and for FactBench models their properties and literal datatypes;
* ``direct_link``: whether R links s and o directly (any predicate, either way), the fact itself
  aside: LCWA false facts always are, true facts at leakage ``pair`` never;
* ``ColumnOnly`` (the audit's, one per column): the values of one column of the records.

A scenario that one of these separates is solvable by a shortcut.
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np

from factforge.sparql import profiles

from ..features import shape_features
from .base import CheckerError, FeatureChecker, own_triples


class DegreeOnly(FeatureChecker):
    name = "degree"

    def features(self, records: list[dict]) -> list[dict[str, float]]:
        ref = self.reference.without(own_triples(records))
        degree = ref.degree
        rows = []
        for side_s, side_o in zip(ref.ids(r["subject"] for r in records), ref.ids(r["object"] for r in records)):
            rows.append({"s": math.log1p(int(degree[side_s])) if side_s >= 0 else 0.0,
                         "o": math.log1p(int(degree[side_o])) if side_o >= 0 else 0.0})
        return rows


class TypeOnly(FeatureChecker):
    name = "type"
    reads = (0, 0)  # types come from the store, not from R's links

    def features(self, records: list[dict]) -> list[dict[str, float]]:
        store = self.reference.store if self.reference is not None else None
        if store is None:
            raise CheckerError(f"{self.name}: needs the KB's types (give --store DIR or --endpoint URL)")
        entities = {r["subject"] for r in records} | {r["object"] for r in records}
        tree = profiles.class_tree(store)
        classes = {}
        # through the index: a neighbourhood has the types its generation asked for, and asks only the rest
        for entity, types in self.reference.index.entity_types(store, entities).items():
            classes[entity] = sorted(set(types).union(*(tree.ancestors(t) for t in types)))
        rows = []
        for r in records:
            row = {f"s:{c}": 1.0 for c in classes.get(r["subject"], ["(none)"])}
            row.update({f"o:{c}": 1.0 for c in classes.get(r["object"], ["(none)"])})
            rows.append(row)
        return rows


class ShapeOnly(FeatureChecker):
    name = "shape"
    needs_reference = False
    reads = (0, 0)

    def features(self, records: list[dict]) -> list[dict[str, float]]:
        return [shape_features(r) for r in records]


class FrequencyOnly(FeatureChecker):
    """Corruption-made false facts reuse the true facts' entities; if some are reused more than
    others, an entity's count in the set gives the label away without any KB."""

    name = "frequency"
    needs_reference = False
    reads = (0, 0)

    def features(self, records: list[dict]) -> list[dict[str, float]]:
        split = [r["id"][:2] if str(r.get("id", ""))[:2] in ("te", "tr") else "" for r in records]
        subjects = Counter(zip(split, (r["subject"] for r in records)))
        objects = Counter(zip(split, (r["object"] for r in records)))
        return [{"s": math.log(subjects[(g, r["subject"])]), "o": math.log(objects[(g, r["object"])])}
                for g, r in zip(split, records)]


class DirectLink(FeatureChecker):
    name = "direct_link"

    def features(self, records: list[dict]) -> list[dict[str, float]]:
        ref = self.reference.without(own_triples(records))
        src, _, dst = ref.links
        a, b = np.minimum(src, dst).astype(np.int64), np.maximum(src, dst).astype(np.int64)
        linked = np.unique(a * ref.n + b)
        s, o = ref.ids(r["subject"] for r in records), ref.ids(r["object"] for r in records)
        codes = np.minimum(s, o) * ref.n + np.maximum(s, o)
        found = np.isin(codes, linked) & (s >= 0) & (o >= 0)
        return [{"linked": float(f)} for f in found.tolist()]


class ColumnOnly(FeatureChecker):
    """One column's values, each its own feature: a column whose values differ between true and false
    facts (a bookkeeping column, or the relation) gives the label away."""

    name = "column"
    needs_reference = False
    reads = (0, 0)

    def __init__(self, *, seed: int = 0, column: str):
        super().__init__(seed=seed)
        self.column = column

    def features(self, records: list[dict]) -> list[dict[str, float]]:
        return [{column_value(r, self.column): 1.0} for r in records]


def column_value(record: dict, column: str) -> str:
    value = record.get(column)
    return "" if value is None else str(value)
