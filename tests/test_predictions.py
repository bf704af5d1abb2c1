"""A user's predictions file: the accepted forms, errors naming line and field, and the checks
against a scenario (ids it does not have, facts without a score)."""
from __future__ import annotations

import pytest

from factforge.evaluation import evaluate_predictions
from factforge.evaluation.predictions import PredictionsError, read_predictions

RECORDS = [{"id": "te00001", "label": True}, {"id": "te00002", "label": False},
           {"id": "te00003", "label": True}, {"id": "te00004", "label": False}]


@pytest.mark.parametrize("name, text", [
    ("p.tsv", "id\tscore\nte00001\t0.9\nte00002\t0.1\n"),
    ("p.csv", "score,fact_id\n0.9,te00001\n0.1,te00002\n"),
    ("p.tsv", "te00001\t0.9\nte00002\t1e-1\n\n"),
    ("p.jsonl", '{"id": "te00001", "score": 0.9}\n{"id": "te00002", "score": 0.1}\n'),
])
def test_accepted_forms(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    assert read_predictions(path) == {"te00001": 0.9, "te00002": 0.1}


@pytest.mark.parametrize("name, text, message", [
    ("p.tsv", "id\tscore\nte00001\t0.9\nte00002\thigh\n", r"p.tsv:3: field 'score' is 'high', not a number"),
    ("p.tsv", "id\tscore\nte00001\tnan\n", r"p.tsv:2: field 'score' is 'nan', not a finite number"),
    ("p.tsv", "id\tscore\nte00001\t0.9\nte00001\t0.2\n", r"p.tsv:3: field 'id': 'te00001' is scored twice"),
    ("p.tsv", "fact\tvalue\nte00001\t0.9\n", r"p.tsv:1: header has no 'score' column"),
    ("p.csv", "te00001,0.9\nte00002\n", r"p.csv:2: expected an id and a score, got 1 field"),
    ("p.jsonl", '{"id": "te00001", "score": 0.9}\n{"id": "te00002"}\n', r"p.jsonl:2: field 'score' is missing"),
    ("p.jsonl", '{"id": "te00001", "score": true}\n', r"p.jsonl:1: field 'score' is True, not a number"),
    ("p.jsonl", '{"id": "te00001", "score": 0.9\n', r"p.jsonl:1: not JSON"),
    ("p.xlsx", "", r"p.xlsx: unknown file type"),
    ("p.tsv", "", r"p.tsv: no predictions"),
])
def test_errors_name_line_and_field(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(PredictionsError, match=message):
        read_predictions(path)


def test_evaluate_predictions():
    result = evaluate_predictions(RECORDS, {"te00001": 0.9, "te00002": 0.8, "te00003": 0.3, "te00004": 0.1})
    assert result["ok"] and result["errors"] == []
    assert result["auroc"] == 0.75  # 0.9 beats both negatives, 0.3 beats 0.1 only: 3 of 4
    assert result["roc"][0] == [0.0, 0.0] and result["roc"][-1] == [1.0, 1.0]
    assert result["counts"] == {"facts": 4, "true": 2, "false": 2, "scored": 4, "missing": 0, "unknown": 0}


def test_unknown_and_missing_ids_are_errors():
    result = evaluate_predictions(RECORDS, {"te00001": 0.9, "te00002": 0.8, "te99999": 0.5})
    assert not result["ok"] and result["auroc"] is None
    assert any("1 scored id(s) are not facts of this scenario: te99999" in e for e in result["errors"])
    assert any("2 fact(s) of the scenario have no score: te00003, te00004" in e for e in result["errors"])
    assert result["counts"]["missing"] == 2 and result["counts"]["unknown"] == 1
