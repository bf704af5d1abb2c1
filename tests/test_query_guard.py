"""The text check in front of /sparql (server/query_guard.py): what it refuses and what it lets by."""
from __future__ import annotations

import pytest

from factforge.server.query_guard import QueryLimits, QueryRefused, check_query

ALLOWED = "http://allowed.example/sparql"
OPEN = QueryLimits()
LISTED = QueryLimits(service_allow=frozenset({ALLOWED}))


def refusal(text: str, limits: QueryLimits = OPEN) -> int | None:
    try:
        check_query(text, limits)
    except QueryRefused as refused:
        assert refused.message.startswith("query: ")
        return refused.status
    return None


@pytest.mark.parametrize("text", [
    "SELECT * WHERE { ?s ?p ?o }",
    'SELECT * WHERE { ?s <http://example.org/service> "SERVICE { {{{" }  # SERVICE ((((\n',
    "SELECT * WHERE { ?s ex:SERVICE ?o . ?service ?p service:x }",
    "SELECT * WHERE { FILTER('''it''s SERVICE''' != \"a\\\"SERVICE\") }",
    "SELECT * WHERE " + "{ " * 200 + "}" * 200,
    "SELECT * WHERE { FILTER(?a < ?b && ?c <= 3) }",
])
def test_ordinary_queries_pass(text):
    assert refusal(text) is None


@pytest.mark.parametrize("text", [
    "SELECT * WHERE { SERVICE <http://127.0.0.1:1/x> { ?s ?p ?o } }",
    "select * where { service silent <http://127.0.0.1:1/x> { ?s ?p ?o } }",
    "SELECT * WHERE { ?s ?p 1SERVICE<http://127.0.0.1:1/x>{} }",   # a number run into the keyword
    "SELECT * WHERE { ?s ?p ?o.SERVICE<http://127.0.0.1:1/x>{} }",
    "SELECT * WHERE { FILTER(?a<?b)SERVICE<http://127.0.0.1:1/x>{} }",  # < as an operator, not an IRI
    "SELECT * WHERE { SERVICE #comment\n<http://127.0.0.1:1/x> {} }",
])
def test_service_is_refused_when_nothing_is_listed(text):
    assert refusal(text) == 403


@pytest.mark.parametrize("text, status", [
    (f"SELECT * WHERE {{ SERVICE <{ALLOWED}> {{ ?s ?p ?o }} }}", None),
    (f"SELECT * WHERE {{ SERVICE SILENT <{ALLOWED}> {{ ?s ?p ?o }} }}", None),
    ("SELECT * WHERE { SERVICE <http://allowed.example/sp\\u0061rql> { ?s ?p ?o } }", None),  # escapes resolved
    ("SELECT * WHERE { SERVICE <http://allowed.example/other> { ?s ?p ?o } }", 403),
    (f"PREFIX a: <{ALLOWED}>\nSELECT * WHERE {{ SERVICE a: {{ ?s ?p ?o }} }}", 403),  # written in full only
    ("SELECT * WHERE { SERVICE ?endpoint { ?s ?p ?o } }", 403),
])
def test_only_listed_endpoints_written_in_full_pass(text, status):
    assert refusal(text, LISTED) == status


@pytest.mark.parametrize("text", [
    "SELECT * WHERE " + "{ " * 300 + "}" * 300,
    "SELECT * WHERE { FILTER(" + "(" * 300 + "1" + ")" * 300 + ") }",
    "SELECT * WHERE { ?s ?p " + "[ ?p " * 300 + "1" + "]" * 300 + " }",
    "SELECT * WHERE { FILTER(" + "! " * 300 + "true) }",
    "SELECT * WHERE { FILTER(" + "-" * 300 + "1 > 0) }",
])
def test_deep_nesting_is_refused_with_400(text):
    assert refusal(text) == 400


def test_length_limit():
    limits = QueryLimits(max_length=100)
    assert refusal("SELECT * WHERE { ?s ?p ?o }" + " " * 73, limits) is None
    assert refusal("SELECT * WHERE { ?s ?p ?o }" + " " * 74, limits) == 400
