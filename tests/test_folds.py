"""The audits' folds (``evaluation.folds``): grouped by subject, stratified by label, seeded."""
from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from factforge.evaluation.folds import group_folds, group_split

FOLDS = 5


def skewed(seed: int = 1):
    """Subjects of 1 to 4 records, labels 70/20/10, a subject's records mostly of one label (as a
    subject's claims are), some mixed."""
    rng = random.Random(seed)
    labels, groups = [], []
    for subject in range(400):
        main = rng.choices(["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"], weights=[7, 2, 1])[0]
        for _ in range(rng.randint(1, 4)):
            labels.append(main if rng.random() < 0.8 else rng.choice(["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]))
            groups.append(f"subject {subject}")
    return labels, groups


def test_a_group_stays_in_one_fold():
    labels, groups = skewed()
    folds = group_folds(labels, groups, FOLDS, seed=3)
    fold_of: dict[str, set] = {}
    for group, fold in zip(groups, folds.tolist()):
        fold_of.setdefault(group, set()).add(fold)
    assert all(len(f) == 1 for f in fold_of.values())
    assert sorted(set(folds.tolist())) == list(range(FOLDS))
    for train, test in group_split(labels, groups, FOLDS, seed=3):
        assert not {groups[i] for i in train} & {groups[i] for i in test}
        assert train.size + test.size == len(labels)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_fold_has_the_label_shares_of_the_whole(seed):
    labels, groups = skewed(seed)
    overall = Counter(labels)
    folds = group_folds(labels, groups, FOLDS, seed=seed)
    for fold in range(FOLDS):
        held = [label for label, f in zip(labels, folds.tolist()) if f == fold]
        assert abs(len(held) / len(labels) - 1 / FOLDS) <= 0.005, (fold, len(held))
        for label, count in overall.items():
            share = held.count(label) / len(held)
            assert abs(share - count / len(labels)) <= 0.01, (fold, label, share, count / len(labels))


def test_the_same_seed_gives_the_same_folds():
    labels, groups = skewed()
    first = group_folds(labels, groups, FOLDS, seed=7)
    assert np.array_equal(first, group_folds(labels, groups, FOLDS, seed=7))
    assert not np.array_equal(first, group_folds(labels, groups, FOLDS, seed=8))


def test_fewer_groups_than_folds_is_refused():
    with pytest.raises(ValueError, match="n_splits"):
        group_folds(["a", "b", "a"], ["x", "y", "x"], 3)
