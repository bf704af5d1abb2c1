"""Claims over HTTP (`GET /api/scenarios/<id>?format=fever` and its /claims/ routes) through the real
server (waitress on loopback) over the demo KB."""
from __future__ import annotations

import json
import shutil
from collections import Counter

import pytest
import requests

from conftest import job_end
from test_claims_cli import factforge
from test_demo_kb import DEMO

SPEC = {"predicate": "dbo:capital", "size": 40, "ambiguous": "random_walk", "leakage": "pair", "seed": 4}
KNOBS = {"lang": "en,zh", "negation": "0.5"}


@pytest.fixture(scope="module")
def server(demo_kb_store, tmp_path_factory):
    """(base URL, scenarios folder, scenario id): the app over the demo KB, one scenario made."""
    from factforge.server.app import create_app
    from factforge.server.serve import BackgroundServer

    root = tmp_path_factory.mktemp("claims-http")
    app = create_app(demo_kb_store, {"SCENARIO_DIR": root / "scenarios", "RELEASES_DIR": root / "releases"})
    with BackgroundServer(app) as running:
        base = running.url
        response = requests.post(f"{base}/api/scenarios", json=SPEC, timeout=60)
        if response.status_code == 202:
            assert job_end(base, response)["status"] == "done"
            response = requests.post(f"{base}/api/scenarios", json=SPEC, timeout=60)
        assert response.status_code == 201, response.text
        yield base, root / "scenarios", response.json()["id"]


def fever(base: str, scenario_id: str, **params) -> requests.Response:
    return requests.get(f"{base}/api/scenarios/{scenario_id}", params={"format": "fever", **params}, timeout=120)


def test_claims_are_the_scenario_facts_without_provenance_and_answers_come_apart(server):
    base, _root, scenario_id = server
    response = fever(base, scenario_id, **KNOBS)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith("application/x-ndjson")
    records = [json.loads(line) for line in response.text.splitlines()]
    assert {r["lang"] for r in records} == {"en", "zh"} and len(records) == 80  # 40 test facts, two languages
    for record in records:  # FEVER's fields and no more: how a claim was made is the answers' only
        assert set(record) == {"id", "claim", "lang", "label", "verifiable", "evidence", "evidence_triples"}
    links = requests.utils.parse_header_links(response.headers["Link"])
    answers = requests.get(base + next(link["url"] for link in links if link["rel"] == "answers"), timeout=60).json()
    assert set(answers["answers"]) == {str(r["id"]) for r in records}
    assert {a["kind"] for a in answers["answers"].values()} == {"one-hop", "negation"}
    manifest = requests.get(base + next(link["url"] for link in links if link["rel"] == "manifest"), timeout=60).json()
    kb = requests.get(f"{base}/api/kb", timeout=10).json()
    assert manifest["seed"] == SPEC["seed"] and manifest["kb_fingerprint"] == kb["fingerprint"]
    assert manifest["languages"] == ["en", "zh"] and manifest["negation"]["share"] == 0.5
    assert manifest["source"]["path"] == scenario_id  # not where the server keeps it
    scenario = requests.get(f"{base}/api/scenarios/{scenario_id}", timeout=10)
    assert "format=fever" in requests.post(f"{base}/api/scenarios", json=SPEC, timeout=60).json()["links"]["claims"]["fever"]
    assert scenario.status_code == 200


def test_evidence_lines_point_into_the_served_reference(server):
    base, _root, scenario_id = server
    records = [json.loads(line) for line in fever(base, scenario_id, **KNOBS).text.splitlines()]
    reference = requests.get(f"{base}/api/scenarios/{scenario_id}/claims/reference", params=KNOBS, timeout=120)
    assert reference.status_code == 200 and reference.headers["Content-Type"].startswith("application/n-triples")
    lines = reference.text.splitlines()
    checked = 0
    for record in records:
        for items, triples in zip(record["evidence"], record["evidence_triples"]):
            for (_a, _e, page, line), triple in zip(items, triples):
                assert page == triple["s"]
                assert lines[line] == f"<{triple['s']}> <{triple['p']}> <{triple['o']}> ."
                checked += 1
    assert checked > 0


def test_same_seed_same_bytes_as_the_command_line_and_another_seed_others(server, tmp_path):
    base, root, scenario_id = server
    first = fever(base, scenario_id, **KNOBS).content
    shutil.rmtree(root / scenario_id / "claims")  # made again from nothing: the same bytes
    assert fever(base, scenario_id, **KNOBS).content == first
    store = tmp_path / "store"
    factforge("load", DEMO, "--store", store)
    factforge("claims", root / scenario_id, "--store", store, "--lang", "en,zh", "--negation", "0.5",
              "--out", tmp_path / "cli")
    assert (tmp_path / "cli" / "claims.jsonl").read_bytes() == first
    other = fever(base, scenario_id, **KNOBS, seed="5")
    assert other.status_code == 200 and other.content != first
    assert requests.get(f"{base}/api/scenarios/{scenario_id}/claims/manifest", params={**KNOBS, "seed": "5"},
                        timeout=60).json()["seed"] == 5


@pytest.mark.parametrize("params, field, words", [
    ({"lang": "en,xx"}, "lang", "must be one of de, en, fr, zh"),
    ({"lang": ",".join(f"l{i}" for i in range(5000))}, "lang", "must be one of"),
    ({"lang": ",".join(["en"] * 5000)}, "lang", "'en' is listed twice"),
    ({"lang": ","}, "lang", "at least one"),
    ({"sarcasm": "0.2"}, "sarcasm", "unknown query parameter"),
    ({"negation": "2"}, "negation", "between 0 and 1"),
    ({"conjunction": "nan"}, "conjunction", "between 0 and 1"),
    ({"multi_hop": "x"}, "multi_hop", "expected a number"),
    ({"shares": "1,2"}, "shares", "expected three"),
    ({"shares": "1/0,1,1"}, "shares", "expected three"),
    ({"count": "9" * 5000}, "count", "whole number"),
    ({"seed": "-1"}, "seed", "between 0 and 4294967295"),
    ({"require_labels": "maybe"}, "require_labels", "true or false"),
    ({"split": "train"}, "split", "test split"),
])
def test_bad_claims_parameters_are_400_naming_the_field(server, params, field, words):
    base, _root, scenario_id = server
    response = fever(base, scenario_id, **params)
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["field"] == field and words in body["error"], body
    part = requests.get(f"{base}/api/scenarios/{scenario_id}/claims/answers",
                        params={k: v for k, v in params.items() if k != "split"}, timeout=60)
    assert part.status_code == (200 if "split" in params else 400)


def test_a_parameter_given_twice_is_refused(server):
    base, _root, scenario_id = server
    response = requests.get(f"{base}/api/scenarios/{scenario_id}?format=fever&lang=en&lang=de", timeout=60)
    assert response.status_code == 400 and response.json()["field"] == "lang"


def test_shares_that_cannot_be_met_say_how_many_can(server):
    base, _root, scenario_id = server
    response = fever(base, scenario_id, count="500")
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["field"] == "count" and "500 claims at these shares cannot be made" in body["error"]
    assert "at most" in body["error"]
    only_supports = fever(base, scenario_id, shares="1,0,0", count="40")
    assert only_supports.status_code == 422 and only_supports.json()["field"] == "count"


def test_claims_of_a_scenario_that_does_not_exist_are_404(server):
    base, _root, _id = server
    assert fever(base, "sc-00000000000000000000").status_code == 404
    assert requests.get(f"{base}/api/scenarios/sc-00000000000000000000/claims/answers", timeout=10).status_code == 404


def test_openapi_documents_the_claims(server):
    base, _root, _id = server
    document = requests.get(f"{base}/openapi.json", timeout=10).json()
    operation = document["paths"]["/api/scenarios/{scenario_id}"]["get"]
    params = {p["name"]: p for p in operation["parameters"]}
    assert "fever" in params["format"]["schema"]["enum"]
    assert {"lang", "shares", "count", "negation", "conjunction", "temporal", "multi_hop", "seed"} <= set(params)
    assert params["negation"]["schema"]["maximum"] == 1 and "zh" in params["lang"]["schema"]["description"]
    for part in ("answers", "manifest", "reference"):
        assert "lang" in {p["name"] for p in document["paths"][f"/api/scenarios/{{scenario_id}}/claims/{part}"]["get"]["parameters"]}


def test_default_shares_fit_a_predicate_r_cannot_contradict_and_given_ones_stay_strict(server):
    """The demo KB's award is neither functional nor typed against anything: at the default shares
    (auto) its claims are half SUPPORTS, half NOT ENOUGH INFO, and the manifest says so; shares asking
    for REFUTES are still 422 naming the field."""
    base, _root, _ = server
    spec = {"predicate": "dbo:award", "size": 40, "seed": 4}
    response = requests.post(f"{base}/api/scenarios", json=spec, timeout=60)
    if response.status_code == 202:
        assert job_end(base, response)["status"] == "done"
        response = requests.post(f"{base}/api/scenarios", json=spec, timeout=60)
    assert response.status_code == 201, response.text
    made = fever(base, response.json()["id"])
    assert made.status_code == 200, made.text
    labels = Counter(json.loads(line)["label"] for line in made.text.splitlines())
    assert labels["REFUTES"] == 0 and labels["SUPPORTS"] > 0 and abs(labels["SUPPORTS"] - labels["NOT ENOUGH INFO"]) <= 1
    links = requests.utils.parse_header_links(made.headers["Link"])
    manifest = requests.get(base + next(link["url"] for link in links if link["rel"] == "manifest"), timeout=60).json()
    assert manifest["shares"]["asked"] == ["auto"] and manifest["shares"]["used"] == ["1/2", "0", "1/2"]
    strict = fever(base, response.json()["id"], shares="1/3,1/3,1/3")
    assert strict.status_code == 422 and strict.json()["field"] == "shares", strict.text
    assert "none of these facts can be REFUTES" in strict.json()["error"]
