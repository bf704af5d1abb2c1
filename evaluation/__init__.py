"""Evaluation: reference fact checkers, AUROC and ROC curves, difficulty matrices, and the shortcut audit.

``evaluate_predictions(records, scores)`` scores a user's own predictions against a scenario's
labelled records; ``evaluation.audit.audit_scenario`` / ``audit_path`` give the shortcut audit.
"""
from __future__ import annotations


def evaluate_predictions(records: list[dict], scores: dict[str, float]) -> dict:
    from .predictions import evaluate_predictions as evaluate

    return evaluate(records, scores)
