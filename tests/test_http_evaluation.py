"""Scoring predictions over HTTP: AUROC equal to the library's, ROC pictures, clear errors; the audit."""
from __future__ import annotations

import json

import pytest
import requests

from test_http_api import SPEC, made


@pytest.fixture(scope="module")
def scenario(demo_http):
    body = made(demo_http, {**SPEC, "seed": 11})
    rows = [json.loads(line) for line in requests.get(
        f"{demo_http}/api/scenarios/{body['id']}", params={"format": "jsonl"}, timeout=10).text.splitlines()]
    return body["id"], [r for r in rows if "label" in r]


def test_perfect_inverted_and_tied_predictions(demo_http, scenario):
    scenario_id, rows = scenario
    url = f"{demo_http}/api/scenarios/{scenario_id}/evaluate"
    perfect = {r["id"]: 1.0 if r["label"] else 0.0 for r in rows}
    inverted = {k: 1 - v for k, v in perfect.items()}
    tied = {k: 0.5 for k in perfect}
    answers = [requests.post(url, json={"predictions": p}, timeout=30).json() for p in (perfect, inverted, tied)]
    assert [a["auroc"] for a in answers] == [1.0, 0.0, 0.5]
    assert answers[0]["counts"]["true"] + answers[0]["counts"]["false"] == SPEC["size"]


def test_hand_computed_auroc_and_same_url_for_same_scores(demo_http, scenario):
    """Scores that put exactly one false fact above every true fact: AUROC = 1 - 1/n_false."""
    scenario_id, rows = scenario
    true_ids = [r["id"] for r in rows if r["label"]]
    false_ids = [r["id"] for r in rows if not r["label"]]
    scores = {**{i: 0.7 for i in true_ids}, **{i: 0.1 for i in false_ids}, false_ids[0]: 0.9}
    url = f"{demo_http}/api/scenarios/{scenario_id}/evaluate"
    first = requests.post(url, json={"predictions": scores, "name": "mine"}, timeout=30).json()
    assert first["auroc"] == pytest.approx(1 - 1 / len(false_ids))
    again = requests.post(url, json={"predictions": [{"id": k, "score": v} for k, v in scores.items()],
                                     "name": "mine"}, timeout=30).json()
    assert again["links"] == first["links"] and again["evaluation"] == first["evaluation"]
    png = requests.get(demo_http + first["links"]["png"], timeout=10)
    svg = requests.get(demo_http + first["links"]["svg"], timeout=10)
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    assert svg.status_code == 200 and b"<svg" in svg.content and "mine" in svg.text
    stored = requests.get(demo_http + first["links"]["json"], timeout=10).json()
    assert stored["auroc"] == first["auroc"]


def test_tsv_csv_and_jsonl_bodies(demo_http, scenario):
    scenario_id, rows = scenario
    url = f"{demo_http}/api/scenarios/{scenario_id}/evaluate"
    scores = {r["id"]: (0.8 if r["label"] else 0.3) if i % 5 else 0.5 for i, r in enumerate(rows)}
    expected = requests.post(url, json={"predictions": scores}, timeout=30).json()["auroc"]
    bodies = {"text/tab-separated-values": "id\tscore\n" + "".join(f"{k}\t{v}\n" for k, v in scores.items()),
              "text/csv": "".join(f"{k},{v}\n" for k, v in scores.items()),
              "application/x-ndjson": "".join(json.dumps({"id": k, "score": v}) + "\n" for k, v in scores.items())}
    for media, body in bodies.items():
        answer = requests.post(url, data=body.encode(), headers={"Content-Type": media}, timeout=30)
        assert answer.status_code == 200 and answer.json()["auroc"] == expected, (media, answer.text)


@pytest.mark.parametrize("body, status, words", [
    ({"predictions": {"te00001": 1.0}}, 422, "have no score"),
    ({"predictions": {"nope": 1.0}}, 422, "not facts of this scenario"),
    ({"predictions": {"te00001": "high"}}, 422, "not a number"),
    ({"predictions": 5}, 400, "expected an object"),
    ({"scores": {}}, 400, "predictions"),
])
def test_bad_predictions_name_the_problem(demo_http, scenario, body, status, words):
    scenario_id, rows = scenario
    if body.get("predictions") == {"nope": 1.0}:
        body = {"predictions": {**{r["id"]: 0.5 for r in rows}, "nope": 1.0}}
    response = requests.post(f"{demo_http}/api/scenarios/{scenario_id}/evaluate", json=body, timeout=30)
    assert response.status_code == status and words in response.json()["error"], response.text


def test_bad_text_body_names_the_line(demo_http, scenario):
    scenario_id, _rows = scenario
    response = requests.post(f"{demo_http}/api/scenarios/{scenario_id}/evaluate", data=b"id\tscore\nte00001\tx\n",
                             headers={"Content-Type": "text/tab-separated-values"}, timeout=30)
    assert response.status_code == 422 and "body:2" in response.json()["error"]
    wrong = requests.post(f"{demo_http}/api/scenarios/{scenario_id}/evaluate", data=b"x",
                          headers={"Content-Type": "image/png"}, timeout=30)
    assert wrong.status_code == 415


def test_unknown_scenario_and_evaluation_are_404(demo_http, scenario):
    scenario_id, _rows = scenario
    assert requests.post(f"{demo_http}/api/scenarios/sc-00000000000000000000/evaluate",
                         json={"predictions": {}}, timeout=10).status_code == 404
    assert requests.get(f"{demo_http}/api/scenarios/{scenario_id}/evaluations/0000000000000000.png",
                        timeout=10).status_code == 404


def test_audit_route_is_the_manifests_audit(demo_http, scenario):
    scenario_id, _rows = scenario
    report = requests.get(f"{demo_http}/api/scenarios/{scenario_id}/audit", timeout=10).json()
    manifest = requests.get(f"{demo_http}/api/scenarios/{scenario_id}/manifest", timeout=10).json()
    assert report == manifest["audit"] and isinstance(report["flagged"], bool)
    assert set(report["baselines"]) >= {"degree", "type", "shape", "frequency"}
