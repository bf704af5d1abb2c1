"""The scenario API through the real server (waitress on loopback), spoken to with `requests` and curl."""
from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys

import pytest
import requests

from conftest import free_port, job_end, line_from

SPEC = {"predicate": "dbo:capital", "size": 40, "transparency": 0.5, "ambiguous": "random_walk", "seed": 3}


def post_spec(base: str, spec: dict) -> requests.Response:
    return requests.post(f"{base}/api/scenarios", json=spec, timeout=60)


def made(base: str, spec: dict) -> dict:
    """POST a spec and follow the job until the scenario exists; returns its JSON body."""
    response = post_spec(base, spec)
    assert response.status_code in (201, 202), response.text
    if response.status_code == 202:
        status = job_end(base, response)
        assert status["status"] == "done", status
        response = post_spec(base, spec)
        assert response.status_code == 201, response.text
    return response.json()


def test_kb_describes_the_store(demo_http, demo_kb_store):
    body = requests.get(f"{demo_http}/api/kb", timeout=10).json()
    assert body["fingerprint"] == demo_kb_store.fingerprint()
    assert body["triples"] == demo_kb_store.triple_count()
    assert body["backend"]["backend"] == "embedded"


def test_predicates_filter_sort_and_page(demo_http):
    everything = requests.get(f"{demo_http}/api/predicates", params={"limit": 1000}, timeout=10).json()
    names = [p["name"] for p in everything["items"]]
    assert "dbo:capital" in names and not any(n.startswith("rdfs:") for n in names)
    facts = [p["facts"] for p in everything["items"]]
    assert facts == sorted(facts, reverse=True)
    page = requests.get(f"{demo_http}/api/predicates", params={"limit": 2, "offset": 1}, timeout=10).json()
    assert [p["name"] for p in page["items"]] == names[1:3] and page["total"] == everything["total"]
    found = requests.get(f"{demo_http}/api/predicates", params={"q": "capit"}, timeout=10).json()
    assert [p["name"] for p in found["items"]] == ["dbo:capital"]
    with_schema = requests.get(f"{demo_http}/api/predicates", params={"schema": "true", "limit": 1000}, timeout=10).json()
    assert with_schema["total"] > everything["total"]


@pytest.mark.parametrize("params, field", [({"limit": 0}, "limit"), ({"limit": "x"}, "limit"),
                                           ({"functionality": "2-2"}, "functionality"), ({"sort": "size"}, "sort"),
                                           ({"schema": "maybe"}, "schema")])
def test_predicates_bad_parameters_name_the_field(demo_http, params, field):
    response = requests.get(f"{demo_http}/api/predicates", params=params, timeout=10)
    assert response.status_code == 400
    assert response.json()["field"] == field and response.json()["ok"] is False


def test_one_predicate_by_curie_and_by_encoded_iri(demo_http):
    by_curie = requests.get(f"{demo_http}/api/predicates/dbo:capital", timeout=10).json()
    by_iri = requests.get(f"{demo_http}/api/predicates/http%3A%2F%2Fdbpedia.org%2Fontology%2Fcapital", timeout=10).json()
    assert by_curie == by_iri and by_curie["predicate"] == "http://dbpedia.org/ontology/capital"
    missing = requests.get(f"{demo_http}/api/predicates/dbo:noSuchThing", timeout=10)
    assert missing.status_code == 404 and missing.json()["field"] == "predicate"
    bad = requests.get(f"{demo_http}/api/predicates/not%20an%20iri", timeout=10)
    assert bad.status_code == 400


def test_same_spec_same_scenario_id_and_created_with_location(demo_http):
    first = post_spec(demo_http, SPEC)
    assert first.status_code in (201, 202)
    body = made(demo_http, SPEC)
    again = post_spec(demo_http, SPEC)
    assert again.status_code == 201 and again.json()["id"] == body["id"] == first.json()["id"]
    assert again.headers["Location"].endswith(f"/api/scenarios/{body['id']}")
    manifest = body["manifest"]
    assert manifest["seed"] == 3 and manifest["kb_fingerprint"] == requests.get(f"{demo_http}/api/kb").json()["fingerprint"]
    other = made(demo_http, {**SPEC, "seed": 4})
    assert other["id"] != body["id"]


MEDIA = {"json": "application/json", "jsonl": "application/x-ndjson", "tsv": "text/tab-separated-values",
         "csv": "text/csv", "turtle": "text/turtle", "ntriples": "application/n-triples", "jsonld": "application/ld+json"}


@pytest.mark.parametrize("name, media", sorted(MEDIA.items()))
def test_content_negotiation_gives_each_format_with_its_checksum(demo_http, name, media):
    body = made(demo_http, SPEC)
    url = f"{demo_http}/api/scenarios/{body['id']}"
    by_accept = requests.get(url, headers={"Accept": media}, timeout=10)
    by_param = requests.get(url, params={"format": name}, timeout=10)
    assert by_accept.status_code == by_param.status_code == 200
    assert by_accept.headers["Content-Type"].split(";")[0] == media
    assert by_accept.content == by_param.content
    extension = {"turtle": "ttl", "ntriples": "nt"}.get(name, name)
    assert hashlib.sha256(by_accept.content).hexdigest() == body["manifest"]["files"][f"test.{extension}"]


def test_csv_has_the_asked_counts_and_no_provenance(demo_http):
    body = made(demo_http, SPEC)
    text = requests.get(f"{demo_http}/api/scenarios/{body['id']}", params={"format": "csv"}, timeout=10).text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == SPEC["size"]
    assert sorted({r["Label"] for r in rows}) == ["False", "True"] or sorted({r["Label"] for r in rows}) == ["0", "1"]
    answers = requests.get(f"{demo_http}/api/scenarios/{body['id']}/answers", timeout=10).json()
    assert answers["seed"] == SPEC["seed"] and answers["answers"]
    assert "random_walk" not in text and "path" not in text


def test_etag_makes_a_second_get_a_304(demo_http):
    body = made(demo_http, SPEC)
    url = f"{demo_http}/api/scenarios/{body['id']}?format=tsv"
    first = requests.get(url, timeout=10)
    again = requests.get(url, headers={"If-None-Match": first.headers["ETag"]}, timeout=10)
    assert again.status_code == 304 and again.content == b""


def test_unavailable_format_is_406(demo_http):
    body = made(demo_http, SPEC)
    url = f"{demo_http}/api/scenarios/{body['id']}"
    assert requests.get(url, headers={"Accept": "image/png"}, timeout=10).status_code == 406
    response = requests.get(url, params={"format": "xlsx"}, timeout=10)
    assert response.status_code == 406 and response.json()["field"] == "format"


def test_reference_is_the_kb_without_the_test_facts(demo_http, demo_kb_store):
    body = made(demo_http, SPEC)
    reference = requests.get(f"{demo_http}/api/scenarios/{body['id']}/reference", timeout=60)
    assert reference.status_code == 200 and reference.headers["Content-Type"].startswith("application/n-triples")
    lines = set(reference.text.splitlines())
    rows = list(csv.DictReader(io.StringIO(requests.get(
        f"{demo_http}/api/scenarios/{body['id']}", params={"format": "tsv"}, timeout=10).text), delimiter="\t"))
    true_facts = [r for r in rows if r["Label"] in ("True", "1", "true")]
    assert true_facts
    for row in true_facts:
        assert f"<{row['Subject']}> <{row['Relation']}> <{row['Object']}> ." not in lines
    assert len(lines) == demo_kb_store.triple_count() - body["manifest"]["reference"]["removed_triples"]
    # what R lacks of the KB, from an embedded store too: disjoint from R, as many as the manifest says
    removed = requests.get(demo_http + body["links"]["reference_removed"], timeout=60)
    assert removed.status_code == 200 and removed.headers["X-Factforge-KB-Fingerprint"] == body["manifest"]["kb_fingerprint"]
    removed_lines = removed.text.splitlines()
    assert len(removed_lines) == body["manifest"]["reference"]["removed_triples"] and not lines & set(removed_lines)


@pytest.mark.parametrize("spec, status, field", [
    ({**SPEC, "size": 1}, 422, "size"),
    ({**SPEC, "transparency": 2}, 422, "transparency"),
    ({**SPEC, "popularity": "famous"}, 422, "popularity"),
    ({**SPEC, "colour": "red"}, 422, "colour"),
    ({**SPEC, "predicate": "dbo:noSuchThing"}, 422, "predicate"),
    ({**SPEC, "predicate": "javascript:alert(1) <x>"}, 422, "predicate"),
    ({"size": 10}, 422, "predicate"),
    ({**SPEC, "size": 100_000}, 422, "size"),
    ([1, 2], 422, "spec"),
])
def test_bad_specs_are_422_naming_the_field(demo_http, spec, status, field):
    response = post_spec(demo_http, spec)
    assert response.status_code == status, response.text
    assert response.json()["field"] == field and response.json()["error"]


def test_malformed_and_oversized_bodies(demo_http):
    broken = requests.post(f"{demo_http}/api/scenarios", data=b"{not json", timeout=10,
                           headers={"Content-Type": "application/json"})
    assert broken.status_code == 400 and broken.json()["field"] == "body"
    huge = requests.post(f"{demo_http}/api/scenarios", data=b"[" + b"1," * (1 << 20) + b"1]", timeout=10,
                         headers={"Content-Type": "application/json"})
    assert huge.status_code == 413 and huge.json()["ok"] is False


def test_a_spec_the_kb_cannot_fill_fails_with_the_knob_to_turn(demo_http):
    response = post_spec(demo_http, {**SPEC, "size": 2000})
    if response.status_code == 202:
        status = job_end(demo_http, response)
        assert status["status"] == "failed" and status["error"]["status"] == 422 and status["error"]["field"], status
        return
    assert response.status_code == 422 and response.json()["field"], response.text


@pytest.mark.parametrize("path", ["/api/scenarios/sc-00000000000000000000", "/api/scenarios/nonsense/answers",
                                  "/api/jobs/sc-00000000000000000000", "/no/such/route"])
def test_unknown_things_are_json_404s(demo_http, path):
    response = requests.get(demo_http + path, timeout=10)
    assert response.status_code == 404 and response.headers["Content-Type"].startswith("application/json")
    assert response.json()["ok"] is False


def test_wrong_method_is_a_json_405(demo_http):
    response = requests.delete(f"{demo_http}/api/kb", timeout=10)
    assert response.status_code == 405 and "GET" in response.headers["Allow"]


def test_slow_generation_answers_202_and_the_status_url_shows_progress(demo_kb_store, tmp_path):
    """With no time to wait the first answer is a job; the job ends done and the POST then gives 201."""
    from factforge.server.app import create_app
    from factforge.server.serve import BackgroundServer

    app = create_app(demo_kb_store, {"SCENARIO_DIR": tmp_path / "sc", "SYNC_WAIT": 0})
    with BackgroundServer(app) as server:
        spec = {**SPEC, "seed": 99, "homogeneity": 0.5}
        first = post_spec(server.url, spec)
        assert first.status_code == 202
        assert first.headers["Location"] == first.json()["status_url"]
        assert first.json()["progress"]["total"] == 5
        status = job_end(server.url, first)
        assert status["status"] == "done" and status["progress"]["done"] == 5, status
        assert post_spec(server.url, spec).status_code == 201


def test_openapi_and_docs_describe_the_spec(demo_http):
    document = requests.get(f"{demo_http}/openapi.json", timeout=10).json()
    assert document["openapi"].startswith("3.")
    page = requests.get(f"{demo_http}/docs", timeout=10)
    assert page.status_code == 200 and "/api/scenarios" in page.text
    spec_fields = set(document["components"]["schemas"]["ScenarioSpec"]["properties"])
    assert {"predicate", "size", "transparency", "homogeneity", "seed", "leakage"} <= spec_fields


def test_openapi_covers_the_url_map(demo_kb_store, tmp_path):
    from factforge.server.app import create_app
    from factforge.server.openapi import openapi_document

    app = create_app(demo_kb_store, {"SCENARIO_DIR": tmp_path / "sc"})
    with app.app_context():
        documented = openapi_document()["paths"]
    for rule in app.url_map.iter_rules():
        if rule.endpoint in ("static", "console.static") or rule.rule in ("/", "/console", "/docs"):
            continue
        path = rule.rule.replace("<path:", "{").replace("<", "{").replace(">", "}")
        assert path in documented, f"{rule.rule} is not in /openapi.json"


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_factforge_serve_smoke_with_curl(tmp_path):
    """The real command line: `factforge serve` on the demo KB, asked with curl."""
    port = free_port()
    env = {**os.environ, "FACTFORGE_CACHE": str(tmp_path / "cache")}
    process = subprocess.Popen([sys.executable, "-m", "factforge", "--quiet", "serve", "--port", str(port)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=tmp_path)
    try:
        assert line_from(process.stdout, "factforge serving"), f"serve exited {process.poll()}"
        base = f"http://127.0.0.1:{port}"
        created = subprocess.run(["curl", "-sS", "-i", "-X", "POST", "-H", "Content-Type: application/json",
                                  "--data", json.dumps(SPEC), f"{base}/api/scenarios"],
                                 capture_output=True, check=True, timeout=60).stdout.decode()
        assert created.startswith("HTTP/1.1 201") or created.startswith("HTTP/1.1 202"), created
        kb = json.loads(subprocess.run(["curl", "-sS", f"{base}/api/kb"], capture_output=True, check=True,
                                       timeout=30).stdout)
        assert kb["triples"] > 1000
        answer = subprocess.run(["curl", "-sS", "-H", "Accept: text/csv", "--data-urlencode",
                                 "query=SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", f"{base}/sparql"],
                                capture_output=True, check=True, timeout=30).stdout.decode()
        assert answer.splitlines() == ["n", str(kb["triples"])]
    finally:
        process.terminate()
        process.wait(timeout=60)


def test_a_scenario_made_over_http_carries_its_false_subjects_warning_outside_the_data(demo_http):
    """Demo KB birthPlace, LCWA at c = 0, 40 facts, seed 1 (one subject without a false fact, one with
    two): the POST's manifest, the manifest file and the audit say so; no data file of either
    format, nor the reference, carries the section or its words."""
    spec = {"predicate": "dbo:birthPlace", "size": 40, "transparency": 0.0, "ambiguous": "lcwa", "seed": 1}
    body = made(demo_http, spec)
    section = body["manifest"]["false_subjects"]
    assert section["test"] == {"subjects": 20, "without_false_fact": 1, "more_false_than_true": 1}
    base = f"{demo_http}/api/scenarios/{body['id']}"
    assert requests.get(f"{base}/manifest", timeout=10).json()["false_subjects"] == section
    assert requests.get(f"{base}/audit", timeout=10).json()["warnings"] == {"false_subjects": section["warning"]}
    data = [requests.get(demo_http + url, timeout=10) for split in body["links"]["data"].values() for url in split.values()]
    data.append(requests.get(f"{base}/reference", timeout=30))
    assert data and all(response.status_code == 200 for response in data)
    for response in data:
        assert "false_subjects" not in response.text and "without a false fact" not in response.text
