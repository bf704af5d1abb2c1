"""factforge against a real Virtuoso 7 (Debian's virtuoso-opensource-7-bin): a private instance on
loopback, its own virtuoso.ini with ResultSetMaxRows at 1,000 so that every large answer must be
paged, DBpedia50 and the DBpedia ontology bulk-loaded into two graphs. Answers through it must
equal the embedded store's, byte for byte; a capped answer that cannot be paged is an error.

Skipped where virtuoso-t is not installed, unless FACTFORGE_REQUIRE_VIRTUOSO=1 (CI as root) says
that is a failure.
"""
from __future__ import annotations

import csv
import io
import json
import os

import pytest
import requests

from conftest import DBPEDIA_NT, ONTOLOGY_GRAPH, ONTOLOGY_TTL, SparqlProxy, need, store_from_text
from test_backends import EMPTY_ON_DBPEDIA50, canonical, params_for
from test_cli import assert_clean_error, factforge
from test_neighbourhood import written
from test_neighbourhood_hubs import EX, LINK_QUERIES, WALK, WALKED_KB
from test_neighbourhood_hubs import CAP as LINK_CAP
from test_sparql_hostile import factforge_serve
from virtuoso_server import ISQL, VIRTUOSO, VirtuosoServer

from factforge.generators.reference_kb import ReferenceKB
from factforge.generators.scenario import generate
from factforge.generators.spec import ScenarioSpec
from factforge.sparql import neighbourhood
from factforge.sparql.store import open_store

REQUIRED = os.environ.get("FACTFORGE_REQUIRE_VIRTUOSO") == "1"
if VIRTUOSO is None or ISQL is None:
    if REQUIRED:
        pytest.fail("FACTFORGE_REQUIRE_VIRTUOSO=1 but virtuoso-t or isql-vt is missing "
                    "(apt-get install virtuoso-opensource-7-bin)", pytrace=False)
    pytest.skip("Virtuoso is not installed (apt-get install virtuoso-opensource-7-bin; "
                "set FACTFORGE_REQUIRE_VIRTUOSO=1 to make this a failure)", allow_module_level=True)

CAP = 1000
DATA_GRAPH = "https://w3id.org/factforge/graph/dbpedia50"
GRAPH_FLAGS = ["--graph", DATA_GRAPH, "--graph", ONTOLOGY_GRAPH]
ALL_TRIPLES = "SELECT ?s ?p ?o WHERE { ?s ?p ?o }"

@pytest.fixture(scope="module")
def virtuoso(tmp_path_factory):
    server = VirtuosoServer(tmp_path_factory.mktemp("virtuoso"),
                            [(need(DBPEDIA_NT), DATA_GRAPH), (need(ONTOLOGY_TTL), ONTOLOGY_GRAPH)], cap=CAP)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def remote(virtuoso):
    from factforge.sparql.store import open_store

    return open_store(endpoint=virtuoso.url, graphs=[DATA_GRAPH, ONTOLOGY_GRAPH])


@pytest.fixture(scope="module")
def cli_store(tmp_path_factory):
    """DBpedia50 + ontology in an embedded store made by the CLI, as a user makes one."""
    folder = tmp_path_factory.mktemp("embedded") / "store"
    factforge("load", need(DBPEDIA_NT), "--store", folder)
    factforge("load", need(ONTOLOGY_TTL), "--graph", ONTOLOGY_GRAPH, "--store", folder)
    return folder


def test_the_server_caps_answers(virtuoso):
    """The premise of the paging tests: a plain query gets 1,000 rows and the cap header."""
    answer = requests.post(virtuoso.url, data={"query": ALL_TRIPLES, "default-graph-uri": DATA_GRAPH},
                           headers={"Accept": "application/sparql-results+json"}, timeout=120)
    assert answer.status_code == 200
    assert len(answer.json()["results"]["bindings"]) == CAP and answer.headers["X-SPARQL-MaxRows"] == str(CAP)


def test_large_answers_are_read_whole(virtuoso, remote, dbpedia_store):
    """birthPlace has 3,195 facts and the KB 80k triples: far past the cap, read in pages."""
    from factforge.sparql.terms import iri

    facts = canonical(remote.select("predicate_facts", predicate=iri("dbo:birthPlace")))
    assert len(facts) > 3 * CAP
    assert facts == canonical(dbpedia_store.select("predicate_facts", predicate=iri("dbo:birthPlace")))
    assert remote.triple_count() == dbpedia_store.triple_count()
    # past OFFSET + LIMIT of 10,000 an ORDER BY needs Virtuoso's own paging form (else error SR353)
    labels = canonical(remote.select_query("SELECT ?s ?label WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?label }"))
    assert len(labels) > 10 * CAP
    assert labels == canonical(dbpedia_store.select_query(
        "SELECT ?s ?label WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?label }"))


@pytest.mark.parametrize("name", ["predicate_counts", "predicate_subject_types", "predicate_object_types",
                                  "class_hierarchy", "entity_degrees", "entity_types", "entity_labels",
                                  "predicate_mean_degree", "subject_facts", "predicate_summary", "typed_entity_count",
                                  "declared_inverses", "fact_dates", "predicate_exists", "middle_step_pairs",
                                  "entity_link_totals"])
def test_template_gives_identical_rows(name, remote, dbpedia_store):
    from factforge.sparql import templates

    template = templates.load(name)
    values = params_for(template, dbpedia_store)
    if template.form == "ASK":
        assert dbpedia_store.ask(name, **values) is remote.ask(name, **values) is True
        return
    local = canonical(dbpedia_store.select(name, **values))
    assert local or name in EMPTY_ON_DBPEDIA50
    assert canonical(remote.select(name, **values)) == local


def test_profile_and_scenario_equal_the_embedded_ones(virtuoso, cli_store, tmp_path):
    """The whole CLI through Virtuoso (graphs named, fingerprint pinned to the embedded one): the
    same profile and the same scenario files, byte for byte."""
    fingerprint = factforge("fingerprint", "--store", cli_store).stdout.strip()
    remote = ["--endpoint", virtuoso.url, *GRAPH_FLAGS, "--endpoint-fingerprint", fingerprint]
    here = json.loads(factforge("profile", "--json", "--store", cli_store).stdout)
    there = json.loads(factforge("profile", "--json", *remote).stdout)
    assert (here.pop("backend"), there.pop("backend")) == ("embedded", "endpoint")
    assert here == there and here["predicates"] > 300
    spec = ["--predicate", "dbo:birthPlace", "--size", "200", "--ambiguous", "random_walk", "--train-size", "50",
            "--seed", "11", "--format", "tsv,jsonl", "--reference"]
    factforge("generate", *spec, "--store", cli_store, "--out", tmp_path / "embedded")
    factforge("generate", *spec, *remote, "--out", tmp_path / "virtuoso")
    # through an endpoint R is written as what it lacks of the KB (reference.removed.nt), and the
    # manifest says so; every other file is the embedded store's, byte for byte
    here_files = {p.name for p in (tmp_path / "embedded").iterdir()} - {"reference.nt", "manifest.json"}
    there_files = {p.name for p in (tmp_path / "virtuoso").iterdir()} - {"reference.removed.nt", "manifest.json"}
    assert here_files == there_files and len(here_files) > 3
    for name in sorted(here_files):
        assert (tmp_path / "embedded" / name).read_bytes() == (tmp_path / "virtuoso" / name).read_bytes(), name
    removed = (tmp_path / "virtuoso" / "reference.removed.nt").read_bytes().splitlines(keepends=True)
    with open_store(cli_store, read_only=True) as store:
        whole = io.BytesIO()
        ReferenceKB.of(store).write_ntriples(whole)
    kb_lines = whole.getvalue().splitlines(keepends=True)
    assert removed and set(removed) <= set(kb_lines)
    gone = set(removed)
    assert [line for line in kb_lines if line not in gone] == \
        (tmp_path / "embedded" / "reference.nt").read_bytes().splitlines(keepends=True)


def test_claims_equal_the_embedded_ones(virtuoso, cli_store, tmp_path):
    """Claims through Virtuoso (with --endpoint-copy) are the embedded store's, byte for byte: their
    plan key (answers.json) is made of the KB's facts, which are the same through every backend, not
    of its fingerprint, which is not."""
    fingerprint = factforge("fingerprint", "--store", cli_store).stdout.strip()
    remote = ["--endpoint", virtuoso.url, *GRAPH_FLAGS, "--endpoint-fingerprint", fingerprint, "--endpoint-copy"]
    scenario = tmp_path / "scenario"
    factforge("generate", "--predicate", "dbo:deathPlace", "--size", "100", "--ambiguous", "random_walk",
              "--seed", "3", "--store", cli_store, "--out", scenario)
    factforge("claims", scenario, "--store", cli_store, "--out", tmp_path / "embedded")
    factforge("claims", scenario, *remote, "--out", tmp_path / "virtuoso")
    for name in ("claims.jsonl", "answers.json", "reference.sorted.nt", "manifest.json"):
        assert (tmp_path / "embedded" / name).read_bytes() == (tmp_path / "virtuoso" / name).read_bytes(), name
    assert json.loads((tmp_path / "virtuoso" / "answers.json").read_text(encoding="utf-8"))["plan_key"]


def test_the_default_graph_of_virtuoso_is_refused(virtuoso):
    """Its default graph holds virtrdf# and other system graphs: refused, naming --graph."""
    result = factforge("profile", "--endpoint", virtuoso.url, check=False)
    assert_clean_error(result, "--graph", "virtrdf#")


def test_a_missing_graph_is_named(virtuoso):
    result = factforge("profile", "--endpoint", virtuoso.url, "--graph", "https://example.org/no-such-graph",
                       check=False)
    assert_clean_error(result, "--graph", "no-such-graph")


def test_a_capped_answer_that_cannot_be_paged_is_an_error(virtuoso):
    """Free query text is sent as it is: 1,000 rows of 80k are an error naming the cap, not data."""
    for query in (ALL_TRIPLES, "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }"):
        result = factforge("query", "--endpoint", virtuoso.url, *GRAPH_FLAGS, query, check=False)
        assert_clean_error(result, f"cap of {CAP}")
        assert result.stdout == ""
    small = factforge("query", "--endpoint", virtuoso.url, *GRAPH_FLAGS, "--format", "json",
                      "SELECT ?s WHERE { ?s ?p ?o } ORDER BY ?s LIMIT 999")
    assert len(json.loads(small.stdout)["results"]["bindings"]) == 999


def test_query_formats_through_the_cli(virtuoso, cli_store):
    query = ("SELECT ?s ?o WHERE { ?s <http://dbpedia.org/ontology/capital> ?o } ORDER BY ?s ?o")
    here = _values(factforge("query", "--store", cli_store, "--format", "json", query).stdout, "json")
    assert len(here) == 20
    for fmt in ("tsv", "csv", "json", "xml"):
        # compared with the embedded JSON: pyoxigraph's CSV leaves an IRI with a comma unquoted
        there = factforge("query", "--endpoint", virtuoso.url, *GRAPH_FLAGS, "--format", fmt, query).stdout
        assert _values(there, fmt) == here, fmt
    graph = "CONSTRUCT { ?s <http://dbpedia.org/ontology/capital> ?o } WHERE { ?s <http://dbpedia.org/ontology/capital> ?o }"
    turtle = factforge("query", "--endpoint", virtuoso.url, *GRAPH_FLAGS, graph).stdout  # no --format
    import pyoxigraph as ox

    assert len(list(ox.parse(turtle.encode(), format=ox.RdfFormat.TURTLE))) == 20
    ask = factforge("query", "--endpoint", virtuoso.url, *GRAPH_FLAGS, "--format", "json", "ASK { ?s ?p ?o }")
    assert json.loads(ask.stdout)["boolean"] is True


def _values(text: str, fmt: str) -> list[tuple[str, ...]]:
    import pyoxigraph as ox

    if fmt == "csv":
        return [tuple(row) for row in csv.reader(io.StringIO(text))][1:]
    kind = {"json": ox.QueryResultsFormat.JSON, "xml": ox.QueryResultsFormat.XML, "tsv": ox.QueryResultsFormat.TSV}[fmt]
    solutions = ox.parse_query_results(text.encode(), format=kind)
    return [tuple(str(term.value) for term in solution) for solution in solutions]


def test_http_errors_are_reported_as_such(virtuoso):
    result = factforge("query", "--endpoint", virtuoso.url, *GRAPH_FLAGS, "SELEC ?x", check=False)
    assert_clean_error(result, "HTTP 400", "SP030")
    assert "unreachable" not in result.stderr


def test_sparql_through_serve(virtuoso, tmp_path):
    """/sparql of `serve --endpoint` on Virtuoso: every result format, the row cap, and the endpoint's errors."""
    query = "SELECT ?s ?o WHERE { ?s <http://dbpedia.org/ontology/capital> ?o } ORDER BY ?s ?o"
    with factforge_serve(tmp_path, "--endpoint", virtuoso.url, *GRAPH_FLAGS, "--row-cap", "15") as (base, _process):
        for media in ("text/csv", "text/tab-separated-values", "application/sparql-results+xml",
                      "application/sparql-results+json"):
            answer = requests.get(f"{base}/sparql", params={"query": query + " LIMIT 10"}, headers={"Accept": media},
                                  timeout=120)
            assert answer.status_code == 200 and answer.headers["Content-Type"].startswith(media), (media, answer.text)
        over = requests.get(f"{base}/sparql", params={"query": query}, timeout=120)
        assert over.status_code == 422 and "row cap of 15" in over.json()["error"]
        capped = requests.get(f"{base}/sparql", params={"query": ALL_TRIPLES + " LIMIT 5000"}, timeout=120)
        assert capped.status_code == 422 and f"cap of {CAP}" in capped.json()["error"]
        bad = requests.get(f"{base}/sparql", params={"query": "SELECT ?x WHERE { ?x ?y }"}, timeout=120)
        assert bad.status_code == 400 and "HTTP 400" in bad.json()["error"]


def test_a_silent_cap_is_found_by_the_probe(virtuoso, dbpedia_store):
    """Without the header a short page of 1,000 rows looks like the end: the probe finds the cap,
    the pages go on below it, and free text at the cap is still an error."""
    from factforge.sparql.protocol import IncompleteAnswer
    from factforge.sparql.store import open_store
    from factforge.sparql.terms import iri

    proxy = SparqlProxy(virtuoso.url)  # drops X-SPARQL-MaxRows, as some proxies drop headers they do not know
    try:
        silent = open_store(endpoint=proxy.url, graphs=[DATA_GRAPH, ONTOLOGY_GRAPH], page_size=5000)
        facts = canonical(silent.select("predicate_facts", predicate=iri("dbo:birthPlace")))
        assert facts == canonical(dbpedia_store.select("predicate_facts", predicate=iri("dbo:birthPlace")))
        assert len(facts) > 3 * CAP
        fresh = open_store(endpoint=proxy.url, graphs=[DATA_GRAPH, ONTOLOGY_GRAPH])
        with pytest.raises(IncompleteAnswer, match=f"cap of {CAP}"):
            fresh.run_query(ALL_TRIPLES, "json")
    finally:
        proxy.close()



def test_an_anytime_partial_answer_is_an_error(virtuoso):
    """Virtuoso's "anytime" queries answer 200 with what they found by their time limit (here the
    protocol's timeout parameter, 1 ms, on a join of 80k by 80k triples) and X-SQL-State: an error."""
    from factforge.sparql.protocol import EndpointHTTPError, IncompleteAnswer, SparqlHttp

    class WithTimeout(SparqlHttp):
        def fields(self, query):
            return super().fields(query) + [("timeout", "1")]

    join = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?b . ?c ?q ?d }"
    client = WithTimeout(virtuoso.url, graphs=(DATA_GRAPH,))
    # On a loaded machine Virtuoso can hit the 1 ms limit before it has any row and then answers 500,
    # not a partial 200; our client must refuse that too, and the partial path is tried again.
    for _ in range(5):
        raw = requests.post(virtuoso.url, data={"query": join, "default-graph-uri": DATA_GRAPH, "timeout": "1"},
                            headers={"Accept": "application/sparql-results+json"}, timeout=300)
        if raw.status_code == 200:
            break
        assert raw.status_code == 500, (raw.status_code, raw.text[:300])
        with pytest.raises((EndpointHTTPError, IncompleteAnswer)):
            client.post(join, "application/sparql-results+json")
    else:
        pytest.skip(f"Virtuoso timed out before any row in 5 tries: {raw.text[:200]}")
    assert "X-SQL-State" in raw.headers, raw.headers
    with pytest.raises(IncompleteAnswer, match="partial answer"):
        client.post(join, "application/sparql-results+json")


# IRIs whose order differs by rule: code points put "Ａ" (U+FF21) before "𝔸" (U+1D538), UTF-16 units
# the other way round; byte-wise Latin-1 or a collation would move "é", "Zoë" or "人".
NAMES = ("Person", "Été", "人", "Zoë", "Ａ", "𝔸", "é", "ſ")
BLANKS = 60  # blank nodes of the hub's nationality in-links, beside its 200 people
LONG_WALK = dict(WALK, max_path_length=3, seed=5)


def test_walks_through_a_hub_draw_the_nodes_the_embedded_store_draws(tmp_path, monkeypatch):
    """Issue 17: a walk through a hub asks the store for the k-th node of the hub's run (ORDER BY,
    LIMIT 1 OFFSET k) and takes it as the k-th node of the embedded index, whose order is code-point
    order of the IRIs. Virtuoso must order non-ASCII IRIs the same way, or the scenario differs.
    Blank nodes beside them (Virtuoso answers them as ``nodeID://b10000``, no valid blank node
    label: reading such an answer raised ValueError) must not change the scenario either. Paths of
    length 3 (nationality/^nationality/birthPlace) draw from the hub's nationality in-links, where
    60 blank nodes stand beside the 200 people: Virtuoso's own ORDER BY put them after the IRIs,
    the embedded index before, so each place of that run held another node. A walk that draws a
    blank node there ends (it has no birthPlace): which blank node, the stores may differ on."""
    monkeypatch.setenv("FACTFORGE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(neighbourhood, "ROW_CAP", LINK_CAP, raising=False)
    monkeypatch.setattr(neighbourhood, "HUB_LINKS", 20, raising=False)
    # the order of a draw by place is what is checked here: every draw asked alone, however many a
    # run has (the reader would read this run's 150 links in 4 slices rather than in 25 draws)
    monkeypatch.setattr(neighbourhood, "slices", lambda links: links + 1)
    text = WALKED_KB
    for prefix in ("Person", "City"):  # every in-link of the hub from a non-ASCII IRI, names interleaved
        text = text.replace(f"<{EX}{prefix}", f"<{EX}{prefix}_")
        for j in reversed(range(200)):
            text = text.replace(f"<{EX}{prefix}_{j}>", f"<{EX}{NAMES[j % len(NAMES)]}{prefix}{j}>")
    # (not linked to the people as well: path search of length 3 would read a blank node in the
    # middle, which no endpoint query can name)
    text += "".join(f"_:x{j} <{EX}nationality> <{EX}Country> .\n_:x{j} <{EX}knows> <{EX}Stranger> .\n"
                    for j in range(BLANKS))
    kb = tmp_path / "data" / "walked.nt"
    kb.parent.mkdir()
    kb.write_text(text, encoding="utf-8")
    local = store_from_text(tmp_path, "local.nt", text)
    graph = "http://example.org/graph/walked"
    (tmp_path / "virtuoso").mkdir()
    server = VirtuosoServer(tmp_path / "virtuoso", [(kb, graph)], cap=CAP)
    proxy = SparqlProxy(server.url)
    try:
        here = written(generate(local, ScenarioSpec.from_dict(LONG_WALK)), tmp_path / "here", local)
        endpoint = open_store(endpoint=proxy.url, graphs=[graph], fingerprint=local.fingerprint())
        there = written(generate(endpoint, ScenarioSpec.from_dict(LONG_WALK)), tmp_path / "there", endpoint)
        # straight to the server, which names itself (the proxy drops the Server header), its queries noted
        direct = open_store(endpoint=server.url, graphs=[graph], fingerprint=local.fingerprint())
        sent = []
        answer = direct.select_query
        monkeypatch.setattr(direct, "select_query", lambda query: sent.append(query) or answer(query))
        known = written(generate(direct, ScenarioSpec.from_dict(LONG_WALK)), tmp_path / "known", direct)
    finally:
        proxy.close()
        server.stop()
    assert "Zoë" in here["test.tsv"].decode() or "人" in here["test.tsv"].decode()
    assert here["answers.json"].count(f"nationality/^{EX}country".encode()) >= 10  # walks went through the hub
    drawn = [query for query in proxy.queries if "OFFSET" in query and f"<{EX}Country>" in query
             and any(words in query for words in LINK_QUERIES)]
    assert len(drawn) >= 5  # and drew from its run by place, not by reading it
    places = [int(query.rsplit("OFFSET", 1)[1]) for query in drawn if f"<{EX}nationality>" in query]
    # draws among the blank nodes and among the people, whose places the blank nodes moved
    assert places and min(places) < BLANKS <= max(places)
    assert here == there
    # known as Virtuoso, path search of length 3 asked for step pairs by lookups only: it runs the
    # scanned form's two subqueries as a nested loop (77 s against 0.5 s for a 20-middle batch at
    # 10M); behind the proxy, which drops its Server header, it is known by its system graph
    assert known == here
    assert direct.hash_joins_subqueries is False and endpoint.hash_joins_subqueries is False
    for queries in (sent, proxy.queries):
        middles = [query for query in queries if "?bway" in query]
        assert middles and all("VALUES ?o {  }" in query for query in middles)
