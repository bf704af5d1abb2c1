"""Seeded folds grouped by a key (a subject) and stratified by label, for the audits (scenario and claims).

Every record of a group lands in one fold, so a model never meets a held-out subject in training. The
groups are dealt out one by one, largest first (ties in a seeded order): each goes to the fold that is
furthest below its fair share (a fifth, at 5 folds) of the labels the group has, ties to the smaller
fold, then the first. One pass over the groups with a few numbers per fold, so the cost grows with the
number of groups only; sklearn's ``StratifiedGroupKFold`` compares the spread of all folds for each
group and was most of a large claims audit's time.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np


def group_folds(labels: Sequence, groups: Sequence, n_splits: int, seed: int = 0) -> np.ndarray:
    """The fold (0 .. n_splits - 1) of each record."""
    if n_splits < 2:
        raise ValueError(f"n_splits: {n_splits} is fewer than 2 folds")
    _, label_at = np.unique(np.asarray(labels, dtype=object).astype(str), return_inverse=True)
    _, group_at = np.unique(np.asarray(groups, dtype=object).astype(str), return_inverse=True)
    n_groups = int(group_at.max()) + 1 if group_at.size else 0
    if n_groups < n_splits:
        raise ValueError(f"n_splits: {n_splits} folds need as many groups, there are {n_groups}")
    n_labels = int(label_at.max()) + 1
    per_group = np.bincount(group_at * n_labels + label_at, minlength=n_groups * n_labels).reshape(n_groups, n_labels)
    sizes = per_group.sum(axis=1)
    shuffled = np.random.default_rng(seed).permutation(n_groups)
    order = shuffled[np.argsort(-sizes[shuffled], kind="stable")]
    # a fold's fair share of each label; labels weigh alike whatever their count
    share = per_group.sum(axis=0) / n_splits
    weights = per_group / share
    filled = np.zeros((n_splits, n_labels))
    fold_sizes = np.zeros(n_splits)
    fold_of_group = np.empty(n_groups, dtype=np.int64)
    for g in order.tolist():
        fill = filled @ weights[g]
        # a tie on fill goes to the smaller fold: the fill of two folds ties mostly while both are empty
        best = np.flatnonzero(fill == fill.min())
        fold = int(best[np.argmin(fold_sizes[best])])
        fold_of_group[g] = fold
        filled[fold] += per_group[g]
        fold_sizes[fold] += sizes[g]
    return fold_of_group[group_at]


def group_split(labels: Sequence, groups: Sequence, n_splits: int,
                seed: int = 0) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(train, test) record indices of each fold, as sklearn's splitters give them."""
    fold_at = group_folds(labels, groups, n_splits, seed)
    for fold in range(n_splits):
        yield np.flatnonzero(fold_at != fold), np.flatnonzero(fold_at == fold)
