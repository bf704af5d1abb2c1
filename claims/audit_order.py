"""The claims audit's record-order check: does a claim's place in the file tell its label?

A file listed in the order its labels were planned in (our claims were, until the order was keyed
apart from the plan: most NOT ENOUGH INFO claims came first) lets a system that reads the file in
order guess a label from the line number alone. For each label, the AUROC of a claim's position
(0-based, within its language, as records are grouped by language) for "this label" against the
rest: 0.5 when the positions of the label's claims are those of any claims, 1 when all of them come
after the others, 0 when all before. Its standard error with no signal is the Mann-Whitney one,
sqrt((n + 1) / (12 n1 n0)) for n1 claims of the label and n0 others. A label is flagged when
|AUROC - 0.5| exceeds the audit's gap threshold and ``STANDARD_ERRORS`` standard errors, so a small
file's chance arrangement does not trip it.
"""
from __future__ import annotations

import math

from factforge.evaluation.metrics import auroc

from .fever_io import LABELS, Claim

STANDARD_ERRORS = 3.0
DIGITS = 4


def record_order(claims: list[Claim]) -> dict:
    """Per label: the AUROC of position for the label against the rest, and its chance standard error."""
    positions = list(range(len(claims)))
    by_label = {}
    for label in LABELS:
        mine = [c.label == label for c in claims]
        n1 = sum(mine)
        n0 = len(claims) - n1
        if n1 and n0:
            by_label[label] = {"auroc": auroc(mine, positions),
                               "standard_error": round(math.sqrt((len(claims) + 1) / (12 * n1 * n0)), DIGITS)}
    return {"by_label": by_label}


def reasons(lang: str, result: dict, gap: float) -> list[str]:
    """The flag of a language's record-order result, naming each label beyond the threshold."""
    beyond = [f"{label} {'late' if row['auroc'] > 0.5 else 'early'} (AUROC {row['auroc']:.3f}, "
              f"standard error {row['standard_error']:.3f})" for label, row in result["by_label"].items()
              if abs(row["auroc"] - 0.5) > max(gap, STANDARD_ERRORS * row["standard_error"])]
    if not beyond:
        return []
    return [f"[{lang}] record order: the position of a claim in the file tells its label: " + ", ".join(beyond)
            + f" (flag beyond 0.5 by more than {gap:g} and {STANDARD_ERRORS:g} standard errors)"]
