"""The claims audit's kind check: within each predicate, does a claim's kind (negation, conjunction,
temporal, multi-hop, one-hop) go with its label?

Kinds balanced over the whole file can still go with one label in one predicate and with another in
the next, and then the predicate's words and the kind's cue ("not", "and", a date) tell the label
together although neither does alone. For each predicate the answers (or the records) name, a
kind × label table of counts; a chi-square test of independence summed over the predicates
(statistics and degrees of freedom add up), flagged when its p-value is below ``P_VALUE``.
"""
from __future__ import annotations

from collections import Counter, defaultdict

P_VALUE = 0.001
DIGITS = 4


def kinds_by_predicate(claims, labels: tuple[str, ...], answer) -> dict:
    """The check's report for one language's ``claims``; ``answer(claim, name)`` reads a claim's answer."""
    from scipy.stats import chi2

    tables: dict[str, Counter] = defaultdict(Counter)
    for claim in claims:
        predicate, kind = answer(claim, "predicate"), answer(claim, "kind")
        if predicate is None or kind is None:
            return {"skipped": "the answers or the records name no predicate and kind for some claims"}
        tables[predicate][(kind, claim.label)] += 1
    statistic, freedom, worst = 0.0, 0, None
    for predicate, table in sorted(tables.items()):
        kinds = sorted({kind for kind, _ in table})
        present = [label for label in labels if any(table[(kind, label)] for kind in kinds)]
        if len(kinds) < 2 or len(present) < 2:
            continue
        total = sum(table.values())
        for kind in kinds:
            row = sum(table[(kind, label)] for label in present)
            for label in present:
                expected = row * sum(table[(k, label)] for k in kinds) / total
                cell = (table[(kind, label)] - expected) ** 2 / expected
                statistic += cell
                if worst is None or cell > worst[0]:
                    worst = (cell, predicate, kind, {label: table[(kind, label)] for label in present})
        freedom += (len(kinds) - 1) * (len(present) - 1)
    if not freedom:
        return {"skipped": "no predicate has claims of two kinds and two labels"}
    return {"chi2": round(statistic, DIGITS), "degrees_of_freedom": freedom,
            "p_value": float(f"{chi2.sf(statistic, freedom):.4g}"),
            "strongest": {"predicate": worst[1], "kind": worst[2], "labels": worst[3]}}


def reason(lang: str, result: dict, threshold: float = P_VALUE) -> str | None:
    if result.get("p_value") is None or result["p_value"] >= threshold:
        return None
    strongest = result["strongest"]
    counts = ", ".join(f"{label} {n}" for label, n in strongest["labels"].items())
    return (f"[{lang}] claim kinds go with labels within predicates: chi-square {result['chi2']:.1f} on "
            f"{result['degrees_of_freedom']} degrees of freedom, p {result['p_value']:.2g} (flag below {threshold:g}); "
            f"most off: {strongest['kind']} claims of {strongest['predicate']} ({counts})")
