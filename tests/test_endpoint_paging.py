"""Reading SELECT answers from a real `oxigraph serve` in pages: any valid SELECT (its own LIMIT,
OFFSET, ORDER BY, GROUP BY, subqueries, VALUES), a server that caps answers silently at any size,
and keyset pages (a FILTER on the last key instead of a growing OFFSET) with ties and duplicate
rows across page borders."""
from __future__ import annotations

import re
from collections import Counter

import pytest

from conftest import SparqlProxy
from test_backends import canonical

DBO = "http://dbpedia.org/ontology/"
PREFIX = f"PREFIX dbo: <{DBO}>\n"


def rows_of(store, query):
    return list(store.select_query(PREFIX + query))


def as_tuples(rows):
    return [tuple(sorted((k, str(v)) for k, v in row.items())) for row in rows]


@pytest.fixture(scope="module")
def proxied(dbpedia_server):
    proxy = SparqlProxy(dbpedia_server.query_url)
    yield proxy
    proxy.close()


def remote_store(url, **options):
    from factforge.sparql.store import open_store

    return open_store(endpoint=url, **options)


@pytest.mark.parametrize("query", [
    "SELECT * WHERE { ?s dbo:capital ?o } ORDER BY ?s LIMIT 5 OFFSET 3",
    "SELECT * WHERE { ?s dbo:capital ?o } ORDER BY DESC(?o) ?s LIMIT 12",
    "SELECT * WHERE { ?s dbo:capital ?o } ORDER BY ?s OFFSET 2",
    "SELECT * WHERE { ?s dbo:capital ?o } LIMIT 100",
    "SELECT * WHERE { ?s dbo:capital ?o } VALUES ?o { <http://dbpedia.org/resource/Minsk> <http://dbpedia.org/resource/London> }",
    "SELECT * WHERE { { SELECT ?s WHERE { ?s dbo:capital ?o } ORDER BY ?s LIMIT 10 } ?s dbo:capital ?c }",
    "SELECT ?o (COUNT(*) AS ?n) WHERE { ?s dbo:birthPlace ?o } GROUP BY ?o HAVING (COUNT(*) > 3)",
    "SELECT DISTINCT * WHERE { ?s dbo:capital ?o } ORDER BY ?o LIMIT 30 OFFSET 1",
])
def test_any_select_is_read_whole(query, dbpedia_server, dbpedia_store):
    """Pages of 7 rows: the query's own modifiers stay its own, the rows are the embedded store's."""
    remote = remote_store(dbpedia_server.query_url, page_size=7)
    assert canonical(rows_of(remote, query)) == canonical(rows_of(dbpedia_store, query))
    assert rows_of(dbpedia_store, query)


def test_a_query_within_one_page_keeps_its_own_order(dbpedia_server, dbpedia_store):
    """A LIMIT no larger than a page: the query is sent as it is and its ORDER BY holds."""
    for query in ("SELECT ?s ?o WHERE { ?s dbo:capital ?o } ORDER BY DESC(?s) LIMIT 6",
                  "SELECT * WHERE { ?s dbo:capital ?o } ORDER BY DESC(?o) LIMIT 7"):
        remote = remote_store(dbpedia_server.query_url, page_size=7)
        assert as_tuples(rows_of(remote, query)) == as_tuples(rows_of(dbpedia_store, query))


@pytest.mark.parametrize("cap", [40, 2])
def test_a_silent_cap_of_any_size_is_found(cap, dbpedia_server, dbpedia_store):
    """A server that cuts every answer at ``cap`` rows and says nothing: the probe (rows it asked
    for against their COUNT) finds the cap, pages go on below it, and what cannot be paged is an
    error naming the cap."""
    from factforge.sparql.protocol import IncompleteAnswer
    from factforge.sparql.terms import iri

    proxy = SparqlProxy(dbpedia_server.query_url, cap=cap)
    try:
        silent = remote_store(proxy.url)
        predicate = iri("dbo:capital") if cap == 2 else iri("dbo:award")
        facts = canonical(silent.select("predicate_facts", predicate=predicate))
        assert facts == canonical(dbpedia_store.select("predicate_facts", predicate=predicate))
        assert len(facts) > 6 * cap
        for query in (f"SELECT ?s ?o WHERE {{ ?s <{DBO}award> ?o }}", f"CONSTRUCT WHERE {{ ?s <{DBO}award> ?o }}",
                      f"SELECT ?s WHERE {{ ?s ?p ?o }} LIMIT {cap}"):
            with pytest.raises(IncompleteAnswer, match=f"cap of {cap} "):
                remote_store(proxy.url).run_query(query, "json")
    finally:
        proxy.close()


def test_pages_follow_the_last_key_not_a_growing_offset(proxied, dbpedia_store):
    """Religions of people: duplicate rows (many people per religion), so ties on the key across
    page borders and groups larger than a page. Keyset pages skip only the rows of the last key already
    read; the rows equal the embedded store's and those of OFFSET pages."""
    query = "SELECT ?o WHERE { ?s dbo:religion ?o }"
    expected = Counter(as_tuples(rows_of(dbpedia_store, query)))
    largest_group = max(expected.values())
    assert largest_group > 7 and len(expected) > 10
    keyset = remote_store(proxied.url, page_size=7)
    keyset.unordered = False  # pages from the start, not after a whole answer
    del proxied.queries[:]
    assert Counter(as_tuples(rows_of(keyset, query))) == expected
    offsets = [int(m.group(1)) for q in proxied.queries for m in [re.search(r"OFFSET (\d+)", q)] if m]
    assert len(offsets) > sum(expected.values()) // 7 and max(offsets) <= largest_group
    assert sum("FILTER" in q for q in proxied.queries) > 10
    by_offset = remote_store(proxied.url, page_size=7)
    by_offset.keyset = by_offset.unordered = False
    assert Counter(as_tuples(rows_of(by_offset, query))) == expected


@pytest.mark.parametrize("query", [
    "SELECT ?s ?o WHERE { ?s dbo:award ?o }",
    "SELECT ?label ?c WHERE { ?c <http://www.w3.org/2000/01/rdf-schema#subClassOf> dbo:Athlete ; "
    "<http://www.w3.org/2000/01/rdf-schema#label> ?label }",
    "SELECT ?n ?s WHERE { ?s dbo:capital ?o BIND(STRLEN(STR(?o)) AS ?n) }",
    "SELECT ?x ?s WHERE { ?s dbo:capital ?o OPTIONAL { ?o dbo:noSuchPredicate ?x } }",
    "SELECT ?n WHERE { ?s dbo:capital ?o BIND(1 AS ?n) }",
])
@pytest.mark.parametrize("unordered", [False, True])
def test_keys_of_every_kind_page_right(query, unordered, dbpedia_server, dbpedia_store):
    """IRI keys, language-tagged labels, typed literals (numbers) and unbound keys: each
    read whole in pages of 7 rows, whichever way the pages are cut, or as one answer and sorted here."""
    remote = remote_store(dbpedia_server.query_url, page_size=7)
    remote.unordered = unordered
    expected = Counter(as_tuples(rows_of(dbpedia_store, query)))
    assert sum(expected.values()) > 14
    assert Counter(as_tuples(rows_of(remote, query))) == expected


COUNTED = "SELECT ?o WHERE { ?s dbo:religion ?o }"


def test_a_large_answer_is_read_whole_once_counted(proxied, dbpedia_store):
    """More rows than a page: asked for once, unordered, and shown whole by the server's COUNT of
    the same query; no page sorts the answer in the server, and the rows come in one order."""
    expected = as_tuples(sorted(rows_of(dbpedia_store, COUNTED), key=lambda row: row["o"].value))
    assert len(expected) > 7 * 5
    store = remote_store(proxied.url, page_size=7)
    del proxied.queries[:]
    rows = as_tuples(rows_of(store, COUNTED))
    assert Counter(rows) == Counter(expected) and rows == sorted(rows)
    assert len(proxied.queries) == 2 and "COUNT(*)" in proxied.queries[1]
    assert not any("ORDER BY" in query for query in proxied.queries)
    assert store.rows_read == len(expected)


def test_a_silent_cap_above_a_page_is_found_by_the_count(dbpedia_server, dbpedia_store):
    """A proxy that cuts every answer at 20 rows, pages of 7: the whole answer came with fewer rows
    than the server counts, so it was cut; ordered pages below the cap read it all."""
    proxy = SparqlProxy(dbpedia_server.query_url, cap=20)
    try:
        store = remote_store(proxy.url, page_size=7)
        assert Counter(as_tuples(rows_of(store, COUNTED))) == Counter(as_tuples(rows_of(dbpedia_store, COUNTED)))
        assert any("COUNT(*)" in query for query in proxy.queries)
        assert sum("ORDER BY" in query for query in proxy.queries) > 5
    finally:
        proxy.close()


def _count_shifted(by):
    def alter(query, body):
        if "COUNT(*)" not in query:
            return body
        import json

        answer = json.loads(body)
        value = answer["results"]["bindings"][0]["n"]
        value["value"] = str(int(value["value"]) + by)
        return json.dumps(answer).encode()
    return alter


def test_more_rows_than_counted_is_an_error(dbpedia_server):
    """The server counts one row fewer than it sent (the KB changed between the two, say): which
    rows are right cannot be told, so none is used."""
    from factforge.sparql.protocol import IncompleteAnswer

    proxy = SparqlProxy(dbpedia_server.query_url, alter=_count_shifted(-1))
    try:
        with pytest.raises(IncompleteAnswer, match="counts as"):
            rows_of(remote_store(proxy.url, page_size=7), COUNTED)
    finally:
        proxy.close()


def test_fewer_rows_than_counted_are_paged_again(dbpedia_server, dbpedia_store):
    """The server counts one row more than it sent: the answer may have been cut, so it is not
    used; ordered pages read the rows again."""
    proxy = SparqlProxy(dbpedia_server.query_url, alter=_count_shifted(1))
    try:
        store = remote_store(proxy.url, page_size=7)
        assert Counter(as_tuples(rows_of(store, COUNTED))) == Counter(as_tuples(rows_of(dbpedia_store, COUNTED)))
        assert sum("ORDER BY" in query for query in proxy.queries) > 5
    finally:
        proxy.close()


def test_a_known_cap_sends_a_larger_answer_to_pages_unread(dbpedia_server, dbpedia_store):
    """Once the store knows the server cuts at 20 rows (its first large answer was cut), a second
    large answer is counted first and read in ordered pages only: the query is not sent whole, to
    be cut at the cap and thrown away, again."""
    awards = "SELECT ?s ?o WHERE { ?s dbo:award ?o }"
    proxy = SparqlProxy(dbpedia_server.query_url, cap=20)
    try:
        store = remote_store(proxy.url, page_size=7)
        assert Counter(as_tuples(rows_of(store, COUNTED))) == Counter(as_tuples(rows_of(dbpedia_store, COUNTED)))
        del proxy.queries[:]
        assert Counter(as_tuples(rows_of(store, awards))) == Counter(as_tuples(rows_of(dbpedia_store, awards)))
        assert len(rows_of(dbpedia_store, awards)) > 20
        assert not [query for query in proxy.queries if "ORDER BY" not in query and "COUNT(*)" not in query]
        assert sum("COUNT(*)" in query for query in proxy.queries) == 1
    finally:
        proxy.close()


def test_a_small_answer_below_a_known_cap_is_read_whole(dbpedia_server, dbpedia_store):
    """Below the known cap the answer is still read as it is, unordered, and shown whole by its COUNT."""
    capitals = 'SELECT ?s ?o WHERE { ?s dbo:capital ?o FILTER(STR(?s) >= "http://dbpedia.org/resource/D") }'
    proxy = SparqlProxy(dbpedia_server.query_url, cap=20)
    try:
        store = remote_store(proxy.url, page_size=7)
        rows_of(store, COUNTED)  # the cap is found
        del proxy.queries[:]
        expected = Counter(as_tuples(rows_of(dbpedia_store, capitals)))
        assert 7 < sum(expected.values()) < 20
        assert Counter(as_tuples(rows_of(store, capitals))) == expected
        assert not any("ORDER BY" in query for query in proxy.queries)
    finally:
        proxy.close()
