"""Running a checker on a scenario: fit on T and R, score D; cross-validate where there is no T.

A learning checker needs labelled training facts. When a scenario has no train split, its scores
on D are out-of-fold: D is cut into ``FOLDS`` seeded stratified folds, and each fold is scored by a
model fit on the others (the features are computed once). The result says so (``note``), so a
number from cross-validation is never mistaken for one from a held-out T.

Folds must not invent a signal. False facts are made from true ones: one of each per subject, the
false object another true fact's, so every entity occurs as often in true as in false facts. Split
at random, a held-out true fact's partner (same subject, or same object) stays in training with the
other label, the model learns that entity as false, and held-out facts score *below* chance (type-only
0.19 on DBpedia50 birthPlace at transparency 1, where no feature of one entity says anything). So the
folds are grouped by subject (``folds.group_split``, seeded), and each fold is fit on a training set
cut for its held-out facts (``training_for``):

* without the facts that share with a held-out fact an entity only a few facts name (``pairs_of``):
  a true fact and the false facts made around it, which tell each other's labels reversed;
* mirrored on the entities it keeps: for each held-out fact, one training fact of the other label
  that names the same object leaves too. Leaving out only the held-out facts themselves, a popular
  object's training facts lean against each held-out label (it has one true fact fewer for each true
  one held out), and a column that says nothing scored below chance at every fold seed. Mirrored, an
  entity keeps in training the difference of its true and false counts in the whole set, whatever
  the held-out labels are, so a real lean (a shortcut) is still learnt and a balance stays one.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .checkers import Checker, CheckerError, FeatureChecker, checker
from .checkers.base import predict
from .folds import group_split
from .labelled import labels
from .metrics import auroc
from .reference_graph import Reference

FOLDS = 5
# An entity no more facts than this name is taken as made for them together: a true fact and the false
# facts derived from it (FactBench writes up to 8 models around one fact). More popular entities, hubs
# like countries, are left in training: leaving out all their facts starves the model.
MADE_TOGETHER = 10


@dataclass
class CheckerRun:
    name: str
    scores: np.ndarray
    auroc: float | None
    seconds: float
    note: str = ""

    def to_dict(self) -> dict:
        return {"checker": self.name, "auroc": self.auroc, "seconds": round(self.seconds, 3), "note": self.note}


def run_checker(name: str, train: list[dict], test: list[dict], reference: Reference | None, *,
                seed: int = 0, **options) -> CheckerRun:
    started = time.perf_counter()
    model = checker(name, seed=seed, **options)
    note = ""
    if model.learns and not train:
        scores = cross_validated(model, test, reference, seed=seed)
        if scores is None:
            raise CheckerError(f"{model.name}: no train split, and too few true and false test facts to "
                               f"cross-validate ({FOLDS} folds)")
        note = f"no train split: {fold_count(test)}-fold cross-validation on the test set"
    else:
        scores = model.fit(train, reference).score(test)
    note = "; ".join(n for n in (note, model.note) if n)
    return CheckerRun(model.name, scores, auroc(labels(test), scores), time.perf_counter() - started, note)


def cross_validated(model: Checker, records: list[dict], reference: Reference | None, *, seed: int = 0,
                    folds: int = FOLDS) -> np.ndarray | None:
    """Out-of-fold scores of a feature checker (None when a class has fewer than 2 records, or there are
    fewer than 2 subjects)."""
    if not isinstance(model, FeatureChecker):
        raise CheckerError(f"{model.name}: only learning checkers are cross-validated")
    y = labels(records)
    groups = [r["subject"] for r in records]
    n_splits = fold_count(records, folds)
    if n_splits < 2:
        return None
    model.reference = reference
    features = model.features(records)
    scores = np.zeros(len(records))
    partners, naming = pairs_of(records), naming_of(records, y)
    for train_at, test_at in group_split(y, groups, n_splits, seed):
        train_at = training_for(train_at, test_at, records, y, partners, naming=naming)
        fitted = model.fitted([features[i] for i in train_at], y[train_at])
        scores[test_at] = predict(fitted, [features[i] for i in test_at])
    return scores


def in_sample(model: Checker, records: list[dict], reference: Reference | None) -> float | None:
    """The AUROC of a feature checker fit on every record and scored on the same records: how far its
    features can tell the labels apart at all (None when a class is empty). No held-out fact, so no
    fold can read a balance reversed; the audit asks it before it calls a below-chance AUROC a shortcut."""
    if not isinstance(model, FeatureChecker):
        raise CheckerError(f"{model.name}: only learning checkers are fit in sample")
    y = labels(records)
    model.reference = reference
    features = model.features(records)
    return auroc(y, predict(model.fitted(features, y), features))


def training_for(train_at: np.ndarray, test_at: np.ndarray, records: list[dict], y: np.ndarray,
                 partners: list[set[int]], mirrored: dict | None = None,
                 naming: dict[tuple, list[int]] | None = None) -> np.ndarray:
    """The training facts of a fold: those of ``train_at`` (in record order, as ``group_split`` gives
    them) that none of the held-out facts was made with (``partners``), less, for each held-out fact,
    one of each other label naming the same entity (the first in record order, so the same folds give
    the same training). ``y`` may hold more than two labels (the claims audit's three); ``mirrored``
    (label -> labels) then names the labels made in pairs, whose difference an entity keeps: mirrored
    against a label nothing ties to its own, an entity would keep that label's lean over the whole set,
    held-out labels included (default: every other). ``naming``: ``naming_of(records, y)``, made once
    for all folds."""
    held = set().union(*(partners[i] for i in test_at.tolist()))
    kept = [i for i in train_at.tolist() if i not in held]
    label = y.tolist()
    naming = naming_of(records, y) if naming is None else naming
    values = sorted(set(label))
    staying = set(kept)
    passed: dict[tuple, int] = {}  # how far into naming[key] the mirrors of this fold have looked
    for i in test_at.tolist():
        for side in _sides(records[i]):
            for other in values if mirrored is None else mirrored.get(label[i], ()):
                if other == label[i]:
                    continue
                key = (side, other)
                users, at = naming.get(key, ()), passed.get(key, 0)
                while at < len(users) and users[at] not in staying:  # held out, made together, or gone
                    at += 1
                if at < len(users):
                    staying.discard(users[at])
                    at += 1
                passed[key] = at
    return np.array([i for i in kept if i in staying], dtype=np.int64)


def naming_of(records: list[dict], y: np.ndarray) -> dict[tuple, list[int]]:
    """The records of each label naming each entity on each side, in record order: the mirrors
    ``training_for`` takes, found once for all folds instead of once a fold."""
    label = y.tolist()
    naming: dict[tuple, list[int]] = {}
    for i, record in enumerate(records):
        for side in _sides(record):
            naming.setdefault((side, label[i]), []).append(i)
    return naming


def _sides(record: dict) -> tuple:
    return ("s", record["subject"]), ("o", record["object"])


def pairs_of(records: list[dict]) -> list[set[int]]:
    """For each record, the records it was made with: those that share with it an entity at most
    ``MADE_TOGETHER`` records name.

    What an answer names as a false fact's source or object donor is no better: a popular object's
    donor is one true fact named by every false fact that took the object, so leaving it out for each
    of them took one true fact out of training for many false ones."""
    linked: list[set[int]] = [set() for _ in records]
    naming: dict[tuple, list[int]] = {}
    for i, record in enumerate(records):
        for key in _sides(record):
            naming.setdefault(key, []).append(i)
    for users in naming.values():
        if len(users) <= MADE_TOGETHER:
            for i in users:
                linked[i].update(j for j in users if j != i)
    return linked


def fold_count(records: list[dict], folds: int = FOLDS) -> int:
    """How many folds the records can be cut into: each needs a fact of each label and its own subjects."""
    return min(folds, _smaller_class(records), len({r["subject"] for r in records}))


def _smaller_class(records: list[dict]) -> int:
    y = labels(records)
    return int(min(y.sum(), y.size - y.sum()))
