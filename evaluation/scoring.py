"""Running a checker on a scenario: fit on T and R, score D; cross-validate where there is no T.

A learning checker needs labelled training facts. When a scenario has no train split, its scores
on D are out-of-fold: D is cut into ``FOLDS`` seeded stratified folds, and each fold is scored by a
model fit on the others (the features are computed once). The result says so (``note``), so a
number from cross-validation is never mistaken for one from a held-out T.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import StratifiedKFold

from .checkers import Checker, CheckerError, FeatureChecker, checker
from .checkers.base import predict
from .labelled import labels
from .metrics import auroc
from .reference import Reference

FOLDS = 5


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
        note = f"no train split: {min(FOLDS, _smaller_class(test))}-fold cross-validation on the test set"
    else:
        scores = model.fit(train, reference).score(test)
    return CheckerRun(model.name, scores, auroc(labels(test), scores), time.perf_counter() - started, note)


def cross_validated(model: Checker, records: list[dict], reference: Reference | None, *, seed: int = 0,
                    folds: int = FOLDS) -> np.ndarray | None:
    """Out-of-fold scores of a feature checker (None when a class has fewer than 2 records)."""
    if not isinstance(model, FeatureChecker):
        raise CheckerError(f"{model.name}: only learning checkers are cross-validated")
    y = labels(records)
    n_splits = min(folds, _smaller_class(records))
    if n_splits < 2:
        return None
    model.reference = reference
    features = model.features(records)
    scores = np.zeros(len(records))
    for train_at, test_at in StratifiedKFold(n_splits, shuffle=True, random_state=seed).split(np.zeros(y.size), y):
        fitted = model.model().fit([features[i] for i in train_at], y[train_at])
        scores[test_at] = predict(fitted, [features[i] for i in test_at])
    return scores


def _smaller_class(records: list[dict]) -> int:
    y = labels(records)
    return int(min(y.sum(), y.size - y.sum()))
