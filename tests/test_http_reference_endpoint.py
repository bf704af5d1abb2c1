"""The scenario's R over HTTP from a server whose KB is an endpoint (`serve --endpoint`), through a
real `oxigraph serve`: what R lacks of the KB is served without reading the KB; R in full only when
asked for (`?whole=true`), the embedded store's bytes."""
from __future__ import annotations

import io

import pytest
import requests

from conftest import TEST_TOKEN, SparqlProxy, job_end, served_demo_kb

from factforge.generators.reference_kb import ReferenceKB
from factforge.server.app import create_app
from factforge.server.serve import BackgroundServer
from factforge.sparql.store import open_store

SPEC = {"predicate": "dbo:birthPlace", "size": 30, "transparency": 0.5, "ambiguous": "random_walk",
        "leakage": "pair", "seed": 4}


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FACTFORGE_CACHE", str(tmp_path / "cache"))


def _scenario(base: str) -> dict:
    response = requests.post(f"{base}/api/scenarios", json=SPEC, timeout=60)
    if response.status_code == 202:
        assert job_end(base, response)["status"] == "done"
        response = requests.post(f"{base}/api/scenarios", json=SPEC, timeout=60)
    assert response.status_code == 201, response.text
    return response.json()


def test_r_through_serve_endpoint_is_what_it_lacks_of_the_kb_unless_asked_whole(tmp_path, fresh_cache):
    with served_demo_kb(tmp_path) as (local, flags):
        proxy = SparqlProxy(flags[1])
        try:
            remote = open_store(endpoint=proxy.url, fingerprint=flags[-1])
            app = create_app(remote, {"SCENARIO_DIR": tmp_path / "scenarios", "RELEASES_DIR": tmp_path / "releases",
                                      "TOKEN": TEST_TOKEN})
            with BackgroundServer(app) as server:
                body = _scenario(server.url)
                links = body["links"]
                before = proxy.rows
                removed = requests.get(server.url + links["reference_removed"], timeout=60)
                assert removed.status_code == 200, removed.text
                assert removed.headers["Content-Type"].startswith("application/n-triples")
                assert removed.headers["X-Factforge-KB-Fingerprint"] == flags[-1]
                assert f'{body["id"]}-reference.removed.nt' in removed.headers["Content-Disposition"]
                refused = requests.get(server.url + links["reference"], timeout=60)
                assert refused.status_code == 409 and refused.json()["field"] == "whole"
                assert "reference/removed" in refused.json()["error"]
                assert proxy.rows == before  # neither read anything of the KB
                whole = requests.get(server.url + links["reference"], params={"whole": "true"}, timeout=300)
                assert whole.status_code == 200, whole.text
                bad = requests.get(server.url + links["reference"], params={"whole": "maybe"}, timeout=60)
                assert bad.status_code == 400 and bad.json()["field"] == "whole"
        finally:
            proxy.close()
        with open_store(local, read_only=True) as store:
            kb = io.BytesIO()
            ReferenceKB.of(store).write_ntriples(kb)
    lines = removed.content.splitlines(keepends=True)
    assert lines and lines == sorted(set(lines))
    kb_lines = kb.getvalue().splitlines(keepends=True)
    # R in full is the KB less exactly those lines
    assert set(lines) <= set(kb_lines)
    assert whole.content == b"".join(line for line in kb_lines if line not in set(lines))
