"""The shortcut audit: can a scenario be solved without checking facts?

For a set of labelled facts (a scenario's test and train facts together) it reports:

* **baselines**: the cross-validated AUROC (seeded folds grouped by subject, ``scoring``) of each
  trivial checker: ``degree``, ``type`` and ``direct_link`` (which need the KB), ``shape`` and
  ``frequency`` (the records alone);
* **columns**: for every column the records have (the fact's own, and any other a labelled file
  carries), the cross-validated AUROC of its values alone and the normalized PMI of its strongest
  values with the label: a bookkeeping column that only false facts fill, or a relation that only
  false facts have, gives the label away;
* **pmi**: the normalized PMI between the label and each shape feature of the records (which
  fields, value kinds, predicate, model properties and datatypes), strongest first;
* **drift**: the share of all false facts made through the single most common alternative
  predicate (LCWA) or path (random walk) — the paper's "location drift";
* **warnings** (a scenario's only, when it has any): the warnings its summary and manifest carry
  (``true_objects``, ``false_subjects``), by section. They are repeated, never flagged on: the
  baselines measure what they warn of (the frequency baseline reads how often a subject is false).

It flags the facts when a baseline's or a column's AUROC is further from 0.5 than ``auroc_threshold``
(default 0.6: about three standard errors from chance for 300 balanced facts), either way — far below
chance the features tell the label as well, reversed — or when the drift share exceeds
``drift_threshold`` (default 0.75). The drift default is a judgement: on DBpedia50, most LCWA false
facts for birthPlace come from deathPlace — that is the location drift the paper describes,
reported here, but a checker that only recognized deathPlace links would still miss the many
others. Above three in four, one alternative predicate *is* the false class.

Below chance is confirmed before it is flagged. A feature as often true as false over the whole set
(every entity of a small matched set, say) says nothing, yet a fold's training facts can lean
against its held-out ones, and pooled out-of-fold scores then fall below chance (a case is in
docs/evaluation.md). So a result below ``1 - auroc_threshold`` also carries ``in_sample``, the AUROC
of the same model fit on every fact and scored on them, and is flagged only when that too is beyond
the threshold: features that a model seeing every label cannot tell apart give no shortcut,
reversed or not.

PMI is reported, never flagged on: a feature with a high NPMI also lifts the shape baseline.

Every number is rounded and every fold seeded, so the same facts give the same report (it is
written into each scenario's manifest).
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from factforge.sparql.terms import compact

from .checkers import BASELINES, CheckerError, checker
from .checkers.baselines import ColumnOnly, column_value
from .features import INTERNAL, npmi, shape_features
from .labelled import labels, read_input
from .metrics import DIGITS, auroc
from .reference_graph import Reference
from .scoring import FOLDS, cross_validated, in_sample


class AuditError(ValueError):
    """An audit option out of its range."""


AUROC_THRESHOLD = 0.6
DRIFT_THRESHOLD = 0.75
PMI_SHOWN = 25  # features listed in the report, strongest first
VALUES_SHOWN = 5  # values of each column listed, strongest first


def audit_records(records: list[dict], *, reference: Reference | None = None, answers: dict | None = None,
                  seed: int = 0, auroc_threshold: float = AUROC_THRESHOLD,
                  drift_threshold: float = DRIFT_THRESHOLD, source: dict | None = None,
                  warnings: dict | None = None) -> dict:
    """The audit report of labelled records (dicts with subject, predicate, object, label, ...);
    ``warnings``: a scenario's warnings by section (``generators.scenario.warnings``)."""
    for name, value in (("auroc_threshold", auroc_threshold), ("drift_threshold", drift_threshold)):
        if not 0.0 <= value <= 1.0:
            raise AuditError(f"{name}: {value} is not between 0 and 1")
    y = labels(records)
    report = {
        "flagged": False, "reasons": [],
        "thresholds": {"auroc": auroc_threshold, "drift_share": drift_threshold},
        "facts": {"total": int(y.size), "true": int(y.sum()), "false": int(y.size - y.sum())},
        "seed": seed, "folds": FOLDS,
        **({"source": source} if source else {}),
        "baselines": _baselines(records, reference, seed, auroc_threshold),
        "columns": _columns(records, y, seed, auroc_threshold),
        "pmi": _pmi(records, y),
        "drift": _drift(answers, int(y.size - y.sum())) if answers is not None else None,
        **({"warnings": warnings} if warnings else {}),
    }
    report["reasons"] = _reasons(report, auroc_threshold, drift_threshold)
    report["flagged"] = bool(report["reasons"])
    return report


def _reasons(report: dict, auroc_threshold: float, drift_threshold: float) -> list[str]:
    reasons = []
    for name, result in report["baselines"].items():
        beyond = _beyond(result, auroc_threshold)
        if beyond:
            reasons.append(f"the {name}-only baseline reaches AUROC {result['auroc']:.3f} ({beyond}): {_HINTS[name]}")
    for name, result in report["columns"].items():
        beyond = _beyond(result, auroc_threshold)
        if beyond:
            strongest = next(iter(result["values"]), "")
            reasons.append(f"the column {name!r} alone reaches AUROC {result['auroc']:.3f} ({beyond}): its values "
                           f"differ between true and false facts (e.g. {strongest!r})")
    drift = report["drift"]
    if drift and drift["share"] is not None and drift["share"] > drift_threshold:
        reasons.append(f"{drift['share']:.0%} of the false facts come through one alternative "
                       f"{drift['top']} (> {drift_threshold:.0%})")
    return reasons


def _beyond(result: dict, threshold: float) -> str:
    """"> 0.6" or "< 0.4" when a result's AUROC is further from chance than the threshold allows, else "";
    below chance only when its ``in_sample`` AUROC, where there is one, is beyond the threshold too."""
    value = result.get("auroc")
    if value is None:
        return ""
    if value > threshold:
        return f"> {threshold:g}"
    if value < 1.0 - threshold and not _fold_artifact(result, threshold):
        confirmed = f"; in sample {result['in_sample']:.3f}" if result.get("in_sample") is not None else ""
        return f"< {1.0 - threshold:g}, below chance{confirmed}: the same features tell the label reversed"
    return ""


def _fold_artifact(result: dict, threshold: float) -> bool:
    """Below chance out of fold, at chance in sample (see the module's docstring)."""
    value, fit = result.get("auroc"), result.get("in_sample")
    return value is not None and value < 1.0 - threshold and fit is not None and 1.0 - threshold <= fit <= threshold


def _confirm(result: dict, model, records: list[dict], reference: Reference | None, threshold: float) -> dict:
    """``result`` with ``in_sample`` when its AUROC is below chance beyond the threshold."""
    if result.get("auroc") is not None and result["auroc"] < 1.0 - threshold:
        result["in_sample"] = in_sample(model, records, reference)
    return result


_HINTS = {
    "degree": "true and false facts differ in how popular their entities are",
    "type": "true and false facts differ in the types of their entities",
    "shape": "true and false records differ in their fields, value kinds, properties or datatypes",
    "frequency": "how often an entity occurs in the set tells true from false facts",
    "direct_link": "whether the KB links s and o directly tells true from false facts",
}


def _baselines(records: list[dict], reference: Reference | None, seed: int, threshold: float) -> dict:
    results = {}
    for name in BASELINES:
        model = checker(name, seed=seed)
        if model.needs_reference and reference is None:
            results[name] = {"auroc": None, "skipped": "needs the KB (give a store)"}
            continue
        try:
            scores = cross_validated(model, records, reference, seed=seed)
        except CheckerError as error:
            results[name] = {"auroc": None, "skipped": str(error)}
            continue
        if scores is None:
            results[name] = {"auroc": None, "skipped": "fewer than 2 true or false facts to cross-validate"}
            continue
        results[name] = _confirm({"auroc": auroc(labels(records), scores)}, model, records, reference, threshold)
    return results


def _columns(records: list[dict], y: np.ndarray, seed: int, threshold: float) -> dict:
    names = sorted({name for r in records for name in r if name not in INTERNAL})
    results = {}
    for name in names:
        values = np.array([column_value(r, name) for r in records], dtype=object)
        distinct = sorted(set(values.tolist()))
        model = ColumnOnly(seed=seed, column=name)
        scores = cross_validated(model, records, None, seed=seed)
        found = []
        for value in distinct:
            present = values == value
            true, false = npmi(present, y), npmi(present, ~y)
            found.append((-max(abs(true), abs(false)), -int(present.sum()), value, true, false))
        found.sort()  # strongest first; of equally strong values, the most used
        results[name] = _confirm({
            "auroc": auroc(y, scores) if scores is not None else None, "distinct": len(distinct),
            "values": {value: {"support": -uses, "npmi_true": round(true, DIGITS),
                               "npmi_false": round(false, DIGITS)}
                       for _, uses, value, true, false in found[:VALUES_SHOWN]}}, model, records, None, threshold)
    return results


def _pmi(records: list[dict], y: np.ndarray) -> dict:
    rows = [shape_features(r) for r in records]
    names = sorted(set().union(*rows)) if rows else []
    found = []
    for name in names:
        present = np.array([name in row for row in rows], dtype=bool)
        true, false = npmi(present, y), npmi(present, ~y)
        found.append((-max(abs(true), abs(false)), name, int(present.sum()), true, false))
    found.sort()
    return {name: {"support": support, "npmi_true": round(true, DIGITS), "npmi_false": round(false, DIGITS)}
            for _, name, support, true, false in found[:PMI_SHOWN]}


def alternative(answer: dict) -> str | None:
    """The alternative predicate (LCWA) or path (random walk) a false fact was made through."""
    if answer.get("via"):
        return compact(answer["via"])
    return answer.get("path") or None


def _drift(answers: dict, n_false: int) -> dict:
    made = Counter(alternative(a) for a in answers.values() if not a.get("label", True))
    made.pop(None, None)
    ambiguous = sum(made.values())
    if not ambiguous or not n_false:
        return {"top": None, "count": 0, "share": None, "ambiguous": ambiguous, "share_of_ambiguous": None}
    top, count = min(made.items(), key=lambda item: (-item[1], item[0]))
    return {"top": top, "count": count, "share": round(count / n_false, DIGITS), "ambiguous": ambiguous,
            "share_of_ambiguous": round(count / ambiguous, DIGITS)}


# --- entry points ----------------------------------------------------------------------------
def audit_scenario(scenario, store=None, **options) -> dict:
    """The report of an in-memory ``generators.scenario.Scenario``; without a store, the degree and
    type baselines are skipped (said so in the report)."""
    from factforge.generators.scenario import warnings
    from factforge.generators.writers import records as scenario_records

    reference = None
    if store is not None:  # R from the index generation read (a neighbourhood has the scenario's entities whole)
        index = getattr(scenario, "index", None)
        reference = Reference(index, scenario.removed, store=store) if index is not None else \
            Reference.of(store, scenario.removed)
    options.setdefault("seed", scenario.spec.seed)
    return audit_records(scenario_records(scenario, "all"), reference=reference, answers=scenario.answers,
                         warnings=warnings(scenario.summary), **options)


def audit_path(path, store=None, *, skip_bad: bool = False, **options) -> dict:
    """The report of a written scenario folder, a FactBench folder, or a labelled TSV/CSV/JSONL file.
    ``skip_bad``: leave out FactBench models that cannot be read (named in ``source.skipped``)."""
    skipped: list[str] | None = [] if skip_bad else None
    files = read_input(path, skipped)
    reference = None
    if store is not None:
        from .reference_input import input_reference

        reference = input_reference(files, store)
    answers = None
    if files.kind == "scenario":
        from factforge.generators.scenario import warnings

        options.setdefault("seed", int(files.manifest.get("seed") or 0))
        answers = files.answers
        options.setdefault("warnings", warnings(files.manifest))
    source = {"kind": files.kind, "path": str(path)}
    if skipped:
        source["skipped"] = skipped
    return audit_records(files.records, reference=reference, answers=answers, source=source, **options)


def summary_lines(report: dict, *, warnings: bool = True) -> list[str]:
    """The report as a few lines for a terminal; ``warnings=False`` leaves out the scenario's
    warnings (``generate`` has printed them with its summary)."""
    facts = report["facts"]
    lines = [f"{'FLAGGED' if report['flagged'] else 'ok'}: {facts['total']} facts "
             f"({facts['true']} true, {facts['false']} false)"]
    for name, result in report["baselines"].items():
        value = f"AUROC {result['auroc']:.3f}" if result.get("auroc") is not None else f"skipped ({result['skipped']})"
        lines.append(f"  baseline {name:<7} {value}{_artifact_note(result, report)}")
    columns = ", ".join(f"{name} {result['auroc']:.2f}" for name, result in report.get("columns", {}).items()
                        if result.get("auroc") is not None)
    if columns:
        lines.append(f"  columns (AUROC of each alone): {columns}")
    lines += [f"  column {name}{_artifact_note(result, report)}" for name, result in report.get("columns", {}).items()
              if _artifact_note(result, report)]
    drift = report.get("drift")
    if drift and drift["top"]:
        lines.append(f"  drift: {drift['top']} makes {drift['share']:.0%} of the false facts "
                     f"({drift['share_of_ambiguous']:.0%} of the ambiguous ones)")
    strongest = next(iter(report["pmi"].items()), None)
    if strongest:
        name, value = strongest
        lines.append(f"  strongest shape feature: {name} (NPMI with true {value['npmi_true']:+.2f}, "
                     f"with false {value['npmi_false']:+.2f}, {value['support']} facts)")
    lines += [f"  reason: {reason}" for reason in report["reasons"]]
    lines += [f"  warning: {text}" for text in report.get("warnings", {}).values()] if warnings else []
    lines += [f"  skipped (cannot be read): {message}" for message in report.get("source", {}).get("skipped", [])]
    return lines


def _artifact_note(result: dict, report: dict) -> str:
    threshold = report.get("thresholds", {}).get("auroc", AUROC_THRESHOLD)
    if not _fold_artifact(result, threshold):
        return ""
    return (f" (below chance out of fold only: in sample {result['in_sample']:.3f}, "
            f"so the folds' artifact, not flagged)")
