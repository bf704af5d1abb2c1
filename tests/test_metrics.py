"""AUROC against hand-computed values, ROC points, and pictures that are the same bytes on rerun."""
from __future__ import annotations

from factforge.evaluation.metrics import auroc, heatmap, roc_plot, roc_points

# positives 0.9, 0.7, 0.4; negatives 0.8, 0.35, 0.1. Pairs where the positive scores higher:
# 0.9 > all three (3), 0.7 > 0.35, 0.1 (2), 0.4 > 0.35, 0.1 (2): 7 of 9.
LABELS = [True, True, False, False, True, False]
SCORES = [0.9, 0.4, 0.35, 0.8, 0.7, 0.1]


def test_auroc_by_hand():
    assert auroc(LABELS, SCORES) == round(7 / 9, 4)
    assert auroc([True, False, True, False], [0.5, 0.5, 0.9, 0.1]) == 0.875  # one tie counts half: 3.5 / 4
    assert auroc([True, False], [0.0, 1.0]) == 0.0
    assert auroc([True, True], [0.1, 0.2]) is None


def test_roc_points_run_from_corner_to_corner():
    points = roc_points(LABELS, SCORES)
    assert points[0] == [0.0, 0.0] and points[-1] == [1.0, 1.0]
    assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in zip(points, points[1:]))
    assert roc_points([False, False], [0.1, 0.2]) == []


def test_pictures_are_reproducible(tmp_path):
    first = roc_plot({"mine": (LABELS, SCORES)}, tmp_path / "a" / "roc", title="t")
    second = roc_plot({"mine": (LABELS, SCORES)}, tmp_path / "b" / "roc", title="t")
    assert [p.name for p in first] == ["roc.png", "roc.svg"]
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes(), a.name
    cells = heatmap([[0.9, None], [0.6, 0.55]], [1.0, 0.0], [1.0, 0.0], tmp_path / "h", title="kl")
    assert all(p.stat().st_size > 0 for p in cells)
    assert b"<svg" in cells[1].read_bytes()
