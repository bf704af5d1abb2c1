"""A user's own predictions: a file of fact id -> score, checked against a scenario, then AUROC.

Accepted files: TSV/CSV with columns ``id`` and ``score`` (a header naming them, or no header and
exactly those two columns), or JSON Lines objects ``{"id": ..., "score": ...}``. A score is any
finite number, higher meaning "more likely true". Every problem is one line naming the file, line
and field; ids the scenario does not have, and scenario facts without a score, are errors.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

from factforge.sparql.messages import shown

from .labelled import json_objects, labels
from .metrics import auroc, roc_points

ID_NAMES = ("id", "fact_id", "fact")
SCORE_NAMES = ("score", "prediction", "probability", "truth")
SHOWN = 5  # ids named in an error message before "and N more"


class PredictionsError(ValueError):
    """A predictions file cannot be used; the message names the file, line and field."""


def read_predictions(path: str | Path) -> dict[str, float]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise PredictionsError(f"{path}: cannot read ({error})") from None
    kind = KINDS.get(path.suffix.lower())
    if kind is None:
        raise PredictionsError(f"{path}: unknown file type (expected {', '.join(KINDS)})")
    return parse_predictions(text, kind, path)


@dataclass(frozen=True)
class PredictionFormat:
    """A text format predictions come in: ``name`` is the parser's kind."""
    name: str
    media_type: str
    aliases: tuple[str, ...]    # other media types read as this one
    extensions: tuple[str, ...]  # file name endings, without the dot
    label: str


#: the one table of predictions formats: files (by extension), HTTP uploads (by media type), the
#: OpenAPI description and the console (GET /api/prediction-formats) all read it
FORMATS = (
    PredictionFormat("tsv", "text/tab-separated-values", (), ("tsv", "txt"), "TSV"),
    PredictionFormat("csv", "text/csv", (), ("csv",), "CSV"),
    PredictionFormat("jsonl", "application/x-ndjson", ("application/jsonl",), ("jsonl", "ndjson"), "JSON Lines"),
)
KINDS = {f".{extension}": f.name for f in FORMATS for extension in f.extensions}
MEDIA_KINDS = {media: f.name for f in FORMATS for media in (f.media_type, *f.aliases)}


def parse_predictions(text: str, kind: str, source: str | Path = "body") -> dict[str, float]:
    """Predictions from text (``kind``: tsv, csv or jsonl); ``source`` names it in messages."""
    pairs = _jsonl(source, text) if kind == "jsonl" else _table(source, text, "," if kind == "csv" else "\t")
    scores: dict[str, float] = {}
    for where, fact_id, score in pairs:
        if fact_id in scores:
            raise PredictionsError(f"{where}: field 'id': {shown(fact_id)} is scored twice")
        scores[fact_id] = score
    if not scores:
        raise PredictionsError(f"{source}: no predictions")
    return scores


def _jsonl(path: Path, text: str):
    for number, data in json_objects(path, text, PredictionsError):
        where = f"{path}:{number}"
        id_key = next((k for k in ID_NAMES if k in data), None)
        score_key = next((k for k in SCORE_NAMES if k in data), None)
        if id_key is None or score_key is None:
            raise PredictionsError(f"{where}: field {'id' if id_key is None else 'score'!r} is missing")
        yield where, _id(where, data[id_key]), _score(where, data[score_key])


def _table(path: Path, text: str, delimiter: str):
    rows = [(n, row) for n, row in enumerate(csv.reader(text.splitlines(), delimiter=delimiter), 1)
            if any(cell.strip() for cell in row)]
    if not rows:
        return
    id_at, score_at = 0, 1
    first = [cell.strip().lower() for cell in rows[0][1]]
    if not _is_number(first[1] if len(first) > 1 else ""):
        id_at = next((first.index(k) for k in ID_NAMES if k in first), None)
        score_at = next((first.index(k) for k in SCORE_NAMES if k in first), None)
        if id_at is None or score_at is None:
            missing = "id" if id_at is None else "score"
            raise PredictionsError(f"{path}:{rows[0][0]}: header has no {missing!r} column")
        rows = rows[1:]
    for number, row in rows:
        where = f"{path}:{number}"
        if len(row) <= max(id_at, score_at):
            raise PredictionsError(f"{where}: expected an id and a score, got {len(row)} field(s)")
        yield where, _id(where, row[id_at]), _score(where, row[score_at])


def _id(where: str, value) -> str:
    if isinstance(value, (list, dict)):
        raise PredictionsError(f"{where}: field 'id' is {shown(value)}, not text")
    text = str(value).strip() if value is not None else ""
    if not text:
        raise PredictionsError(f"{where}: field 'id' is empty")
    return text


def _score(where: str, value) -> float:
    if isinstance(value, bool) or not (isinstance(value, (int, float)) or _is_number(str(value))):
        raise PredictionsError(f"{where}: field 'score' is {shown(value)}, not a number")
    try:
        number = float(value)
    except OverflowError:  # a whole number past float's range
        number = math.inf
    if not math.isfinite(number):
        raise PredictionsError(f"{where}: field 'score' is {shown(value)}, not a finite number")
    return number


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def evaluate_predictions(records: list[dict], scores: dict[str, float]) -> dict:
    """AUROC and ROC points of ``scores`` (fact id -> score) on labelled ``records``.

    ``ok`` is False, and ``auroc`` None, when an id has no record or a record has no score; the
    ``errors`` say which (the first few ids of each)."""
    known = {r["id"] for r in records}
    missing = [r["id"] for r in records if r["id"] not in scores]
    unknown = sorted(i for i in scores if i not in known)
    errors = []
    if unknown:
        errors.append(f"{len(unknown)} scored id(s) are not facts of this scenario: {_some(unknown)}")
    if missing:
        errors.append(f"{len(missing)} fact(s) of the scenario have no score: {_some(missing)}")
    y = labels(records)
    result = {"ok": not errors, "errors": errors, "auroc": None, "roc": [],
              "counts": {"facts": len(records), "true": int(y.sum()), "false": int(y.size - y.sum()),
                         "scored": len(records) - len(missing), "missing": len(missing), "unknown": len(unknown)}}
    if not errors:
        values = [scores[r["id"]] for r in records]
        result["auroc"] = auroc(y, values)
        result["roc"] = roc_points(y, values)
        if result["auroc"] is None:
            result["errors"].append("AUROC needs true and false facts; this set has one label only")
            result["ok"] = False
    return result


def _some(ids: list[str]) -> str:
    shown = ", ".join(ids[:SHOWN])
    return shown + (f" and {len(ids) - SHOWN} more" if len(ids) > SHOWN else "")
