"""What one command learns of an endpoint is reused by the next, in another process: the predicate
profiles (whole-KB aggregates) once per pinned fingerprint, and the cap probe (whether and where the
server cuts answers) per pinned fingerprint too, checked again by one query, through a real
`oxigraph serve` behind a proxy that records every query."""
from __future__ import annotations

import pytest

from conftest import SparqlProxy
from test_cli import factforge

CAPITALS = "SELECT ?s WHERE { ?s <http://dbpedia.org/ontology/capital> ?o }"
AWARDS = "SELECT ?s ?o WHERE { ?s <http://dbpedia.org/ontology/award> ?o }"


def probes(queries):
    return sum("VALUES ?d0" in query for query in queries)


@pytest.fixture()
def proxy(dbpedia_server):
    proxy = SparqlProxy(dbpedia_server.query_url)
    yield proxy
    proxy.close()


def test_the_cap_probe_is_made_once_per_pinned_fingerprint(proxy, tmp_path):
    def query(pin):
        del proxy.queries[:]
        result = factforge("query", "--endpoint", proxy.url, "--endpoint-fingerprint", pin, CAPITALS)
        assert "Guernsey" in result.stdout
        return probes(proxy.queries)

    assert query("kb-probe-a") == 2  # the count, then the rows
    assert query("kb-probe-a") == 1  # the rows only: the count is known, a cap lowered since would show
    assert query("kb-probe-b") == 2  # another KB behind the URL: its server may cut otherwise


def test_a_silent_cap_found_once_is_known_to_the_next_command(dbpedia_server):
    """The cap a probe found stays known: the next process refuses a capped answer after asking
    only for the probe's rows again (not their count)."""
    capped = SparqlProxy(dbpedia_server.query_url, cap=40)
    try:
        for probes_made in (2, 1):
            del capped.queries[:]
            result = factforge("query", "--endpoint", capped.url, "--endpoint-fingerprint", "kb-capped", AWARDS,
                               check=False)
            assert result.returncode != 0 and "cap of 40 " in result.stderr
            assert probes(capped.queries) == probes_made
    finally:
        capped.close()


def test_profiles_are_built_once_per_pinned_fingerprint(proxy):
    """The second `profile` in a new process sends no whole-KB aggregate: the first one's profiles
    are read from the cache of the pinned fingerprint."""
    outputs = []
    for aggregates in (True, False):
        del proxy.queries[:]
        outputs.append(factforge("profile", "--endpoint", proxy.url, "--endpoint-fingerprint", "kb-profiles").stdout)
        assert any("GROUP BY" in query for query in proxy.queries) == aggregates
    assert outputs[0] == outputs[1] and "birthPlace" in outputs[0]


def test_a_cap_lowered_after_the_probe_is_found_by_the_next_command(proxy):
    """The first command's probe finds no cap and is saved; then the server starts cutting answers
    at 40 rows without saying so. The next command, within the saved probe's fingerprint, must not
    take a 40-row answer for the whole one: the saved probe is checked again by its rows."""
    first = factforge("query", "--endpoint", proxy.url, "--endpoint-fingerprint", "kb-lowered", CAPITALS)
    assert "Guernsey" in first.stdout and probes(proxy.queries) == 2
    proxy.cap = 40
    result = factforge("query", "--endpoint", proxy.url, "--endpoint-fingerprint", "kb-lowered", AWARDS, check=False)
    assert result.returncode != 0 and "cap of 40 " in result.stderr, result.stdout[-300:]
