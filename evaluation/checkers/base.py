"""The one interface every checker has: ``fit(train_records, reference)`` then ``score(records)``.

A checker returns one number per record, higher meaning "more likely true"; only the order matters
(AUROC). Checkers that learn from labelled facts (``learns = True``) are feature checkers: they turn
records into sparse feature dicts and fit a seeded logistic regression, so the audit can
cross-validate them on the features computed once. A feature checker that finds no feature at all
in its train facts (path features on a KB where no fact has a path) has no evidence: it scores every
fact alike, which is chance, and says so in ``note`` rather than stopping the other checkers.
"""
from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
from typing import TYPE_CHECKING

from ..labelled import labels
from ..reference_graph import Reference

if TYPE_CHECKING:
    from sklearn.pipeline import Pipeline


class CheckerError(ValueError):
    """A checker cannot run on this input; the message says which input and why."""


class Checker(ABC):
    name: str = "checker"
    learns: bool = False  # fits on labelled train records (else only on R)
    needs_reference: bool = True
    #: how far around each fact it reads R: (hops around the subject, hops around the object) whose
    #: nodes' links it reads, 1 being the subject's and object's own links; None: every link of R.
    #: Through an endpoint only these neighbourhoods are fetched (``evaluation.reference_input``).
    reads: tuple[int, int] | None = (1, 1)
    #: why a checker that reads every link (``reads`` None) does
    whole_kb_reason: str = ""

    def __init__(self, *, seed: int = 0):
        self.seed = seed
        self.reference: Reference | None = None
        self.note = ""  # what a reader of the scores must know (e.g. that there was no evidence)

    def fit(self, train_records: list[dict], reference: Reference | None) -> "Checker":
        if self.needs_reference and reference is None:
            raise CheckerError(f"{self.name}: needs the KB (give --store DIR or --endpoint URL)")
        if self.reads is None and reference is not None and not reference.whole:
            raise CheckerError(whole_kb_needed(self))
        self.reference = reference
        return self

    @abstractmethod
    def score(self, records: list[dict]) -> np.ndarray: ...


class FeatureChecker(Checker):
    learns = True

    @abstractmethod
    def features(self, records: list[dict]) -> list[dict[str, float]]:
        """One sparse feature dict per record (computed with ``self.reference``)."""

    def model(self) -> Pipeline:
        # Imported here: every command line start imports the checkers (for their names), and
        # scikit-learn takes a second or more to import.
        from sklearn.feature_extraction import DictVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import MaxAbsScaler

        return make_pipeline(DictVectorizer(sort=True), MaxAbsScaler(),
                             LogisticRegression(C=1.0, max_iter=2000, random_state=self.seed))

    def fit(self, train_records: list[dict], reference: Reference | None) -> "FeatureChecker":
        super().fit(train_records, reference)
        y = labels(train_records)
        if y.size == 0 or y.all() or not y.any():
            raise CheckerError(f"{self.name}: the train split needs true and false facts")
        self._model = self.fitted(self.features(train_records), y)
        return self

    def fitted(self, features: list[dict[str, float]], y: np.ndarray) -> Pipeline | None:
        """The model fit on these features, or None (said in ``note``) when there is nothing to learn from."""
        if not any(features):
            self.note = NO_EVIDENCE.format(name=self.name)
            return None
        if y.all() or not y.any() or all(row == features[0] for row in features):
            return None  # one label, or every fact alike: nothing tells one from another
        return self.model().fit(features, y)

    def score(self, records: list[dict]) -> np.ndarray:
        return predict(self._model, self.features(records))


def whole_kb_needed(model: Checker) -> str:
    return (f"{model.name}: {model.whole_kb_reason}, so through an endpoint it needs every link of the KB "
            f"copied first (--endpoint-copy)")


NO_EVIDENCE = "no evidence: {name} found no feature in any train fact, so every fact scores 0.5 (chance)"


def predict(model: Pipeline | None, features: list[dict[str, float]]) -> np.ndarray:
    if not features:
        return np.zeros(0)
    if model is None:
        return np.full(len(features), 0.5)
    return model.predict_proba(features)[:, 1]


def own_triples(records: list[dict]) -> list[tuple[str, str, str]]:
    """The triples the records state: removed from R while they are scored, so a true fact that is
    in R (a train fact) is never its own evidence."""
    return [(r["subject"], r["predicate"], r["object"]) for r in records]
