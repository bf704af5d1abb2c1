"""The ``/sparql`` fast path (server/sparql_fastpath.py) answers exactly what the Flask view answers,
refusals included: two real servers over the same KB, one with the fast path and one without."""
from __future__ import annotations

import pytest
import requests

from test_sparql_endpoint import CAPITALS, COUNT, GRAPH, SLOW

RESULTS = ["application/sparql-results+json", "application/sparql-results+xml", "text/csv",
           "text/tab-separated-values", "application/json", "application/xml", "text/xml"]


@pytest.fixture(scope="module")
def servers(demo_kb_store, tmp_path_factory):
    from factforge.server.app import create_app
    from factforge.server.serve import BackgroundServer

    folder = tmp_path_factory.mktemp("sparqlfast")
    config = {"SCENARIO_DIR": folder, "SPARQL_ROW_CAP": 50}
    fast = create_app(demo_kb_store, config)
    plain = create_app(demo_kb_store, {**config, "FAST_PATH": False})
    with BackgroundServer(fast) as a, BackgroundServer(plain) as b:
        yield a.url, b.url, fast


def _hits(app) -> int:
    return app.extensions["factforge.fastpaths"]["sparql"].hits


def _both(servers, method: str = "GET", **kwargs) -> tuple[requests.Response, requests.Response, int]:
    fast_url, plain_url, app = servers
    before = _hits(app)
    fast = requests.request(method, f"{fast_url}/sparql", timeout=60, **kwargs)
    plain = requests.request(method, f"{plain_url}/sparql", timeout=60, **kwargs)
    return fast, plain, _hits(app) - before


def _same(fast: requests.Response, plain: requests.Response) -> None:
    assert fast.status_code == plain.status_code
    assert fast.content == plain.content
    assert [(k, v) for k, v in fast.headers.items() if k != "Date"] == \
           [(k, v) for k, v in plain.headers.items() if k != "Date"]


@pytest.mark.parametrize("accept", RESULTS + ["*/*", ""])
@pytest.mark.parametrize("query", [CAPITALS, COUNT, "ASK { ?s ?p ?o }", "# a comment\nask { ?s ?p ?s }"])
def test_select_and_ask_in_every_format_are_the_views_answer(servers, query, accept):
    fast, plain, hits = _both(servers, params={"query": query}, headers={"Accept": accept})
    assert fast.status_code == 200 and hits == 1
    _same(fast, plain)
    assert fast.headers["Access-Control-Allow-Origin"] == "*"


@pytest.mark.parametrize("query, status", [
    ("SELECT ?s WHERE { ?s ?p }", 400),                 # syntax error, with the parser's message
    ("SELECT * WHERE { ?s ?p ?o }", 422),               # over the row cap of 50
    ("SELECT * WHERE { ?s ?p ?o } LIMIT 50", 200),      # at the cap
])
def test_refusals_are_the_views_error_responses(servers, query, status):
    fast, plain, hits = _both(servers, params={"query": query}, headers={"Accept": "text/csv"})
    assert fast.status_code == status and hits == (1 if status == 200 else 0)
    _same(fast, plain)
    if status != 200:
        assert fast.json()["field"] == "query" and fast.headers["Access-Control-Allow-Origin"] == "*"


@pytest.mark.parametrize("method, kwargs", [
    ("GET", {"params": {"query": GRAPH}}),                                       # CONSTRUCT
    ("GET", {"params": {"query": "DELETE WHERE { ?s ?p ?o }"}}),                 # an update: 403
    ("GET", {"params": {"query": COUNT, "update": "DROP ALL"}}),
    ("GET", {"params": {"query": COUNT, "default-graph-uri": "http://x/"}}),     # 400
    ("GET", {"params": {"query": COUNT}, "headers": {"Accept": "text/turtle"}}),  # 406
    ("GET", {"params": {"query": COUNT}, "headers": {"Accept": "text/csv, application/json;q=0.5"}}),
    ("GET", {"params": {"query": ""}}),
    ("GET", {}),                                                                 # no query: 400
    ("GET", {"headers": {"Accept": "text/html"}}),                               # a browser: the console
    ("POST", {"data": {"query": COUNT}}),
    ("POST", {"data": COUNT.encode(), "headers": {"Content-Type": "application/sparql-query"}}),
    ("OPTIONS", {}),
])
def test_other_requests_go_to_flask(servers, method, kwargs):
    fast, plain, hits = _both(servers, method, allow_redirects=False, **kwargs)
    assert hits == 0
    _same(fast, plain)


def test_time_limit_is_the_views_503(demo_kb_store, tmp_path):
    from factforge.server.app import create_app
    from factforge.server.serve import BackgroundServer

    app = create_app(demo_kb_store, {"SCENARIO_DIR": tmp_path, "SPARQL_TIMEOUT": 0.2, "SPARQL_WORKERS": 1})
    with BackgroundServer(app) as server:
        slow = requests.get(f"{server.url}/sparql", params={"query": SLOW}, timeout=60)
        assert slow.status_code == 503 and "time limit of 0.2 s" in slow.json()["error"]
        assert slow.headers["Access-Control-Allow-Origin"] == "*" and _hits(app) == 0
