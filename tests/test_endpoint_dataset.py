"""What an endpoint's dataset and identity look like to factforge, against real `oxigraph serve`:
a default graph that is not the union of the graphs is warned about, the fingerprint can be pinned,
the computed one sees a swapped object and is remembered for a bounded time, `serve --workers`
computes it once, and CONSTRUCT works without --format."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import requests

from conftest import OxigraphServer, SparqlProxy, free_port, wait_for
from test_cli import factforge

KB = """\
<http://example.org/a> <http://example.org/knows> <http://example.org/x> .
<http://example.org/b> <http://example.org/knows> <http://example.org/y> .
"""
SWAPPED = KB.replace("/x>", "/TMP>").replace("/y>", "/x>").replace("/TMP>", "/y>")


def served(tmp_path, name: str, text: str, graph: str | None = None, port: int | None = None) -> OxigraphServer:
    path = tmp_path / f"{name}.nt"
    path.write_text(text)
    (tmp_path / name).mkdir(exist_ok=True)
    return OxigraphServer(tmp_path / name, [(path, graph)], port=port)


def test_a_default_graph_that_is_not_the_union_is_warned_about(tmp_path):
    (tmp_path / "kb").mkdir()
    server = served(tmp_path, "kb", KB, graph="https://example.org/graph")
    try:
        union = factforge("fingerprint", "--endpoint", server.query_url)
        assert "warning" not in union.stderr
    finally:
        server.stop()
    port = free_port()
    plain = subprocess.Popen([shutil.which("oxigraph"), "serve-read-only", "--location", str(server.location),
                              "--bind", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}/query"
        wait_for(lambda: factforge("query", "--endpoint", url, "ASK {}", check=False).returncode == 0,
                 "oxigraph serve to answer")
        result = factforge("fingerprint", "--endpoint", url)
        assert "not the union of its named graphs" in result.stderr and "--union-default-graph" in result.stderr
        named = factforge("fingerprint", "--endpoint", url, "--graph", "https://example.org/graph")
        assert "warning" not in named.stderr
    finally:
        plain.terminate()
        plain.wait(timeout=30)


def test_a_store_read_through_graphs_is_told_from_virtuoso_by_its_graphs_not_its_headers(tmp_path):
    """With --graph a store also asks, without the graphs, whether Virtuoso's system graph is
    there (a proxy may drop Virtuoso's Server header; tests/test_virtuoso.py has the real one):
    ``oxigraph serve`` holding only the KB's graph joins subqueries by hash, and with Virtuoso's
    system graph IRI among its graphs it is taken for one."""
    from factforge.sparql.remote import VIRTUOSO_SYSTEM_GRAPH
    from factforge.sparql.store import open_store

    graph = "https://example.org/graph"
    (tmp_path / "kb").mkdir()
    server = served(tmp_path, "kb", KB, graph=graph)
    try:
        assert open_store(endpoint=server.query_url, graphs=[graph]).hash_joins_subqueries is True
    finally:
        server.stop()
    system = tmp_path / "system.nt"
    system.write_text("<http://example.org/s> <http://example.org/p> <http://example.org/o> .\n")
    (tmp_path / "virt").mkdir()
    server = OxigraphServer(tmp_path / "virt", [(tmp_path / "kb.nt", graph), (system, VIRTUOSO_SYSTEM_GRAPH)])
    try:
        assert open_store(endpoint=server.query_url, graphs=[graph]).hash_joins_subqueries is False
        # behind a proxy that refuses every query without the graphs (some public endpoints name
        # their dataset for you): the probe's refusal is no error, and no Virtuoso is assumed
        proxy = SparqlProxy(server.query_url, refuse=lambda body: "default-graph-uri" not in body)
        try:
            store = open_store(endpoint=proxy.url, graphs=[graph])
            assert store.hash_joins_subqueries is True
            assert list(store.select_query("SELECT ?s WHERE { ?s ?p ?o }"))  # the graphs still answer
        finally:
            proxy.close()
    finally:
        server.stop()


def test_the_fingerprint_sees_a_swapped_object_and_can_be_pinned(tmp_path):
    """Same counts of facts, subjects and objects, other facts: other fingerprints (the counts alone
    were equal); a pinned fingerprint is used as given."""
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
    first, second = served(tmp_path, "one", KB), served(tmp_path, "two", SWAPPED)
    try:
        prints = [factforge("fingerprint", "--endpoint", s.query_url).stdout.strip() for s in (first, second)]
        assert prints[0] != prints[1] and all(p.startswith("ks-") for p in prints)
        assert factforge("fingerprint", "--endpoint", first.query_url).stdout.strip() == prints[0]
        pinned = factforge("fingerprint", "--endpoint", first.query_url, "--endpoint-fingerprint", "my-kb.v2")
        assert pinned.stdout.strip() == "my-kb.v2"
        bad = factforge("fingerprint", "--endpoint", first.query_url, "--endpoint-fingerprint", "../x", check=False)
        assert bad.returncode == 1 and "--endpoint-fingerprint" in bad.stderr
        construct = factforge("query", "--endpoint", first.query_url, "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }")
        assert construct.stdout.count("example.org/knows") == 2  # Turtle, without --format
    finally:
        first.stop()
        second.stop()


def test_graph_and_pinned_fingerprint_need_an_endpoint(tmp_path):
    result = factforge("fingerprint", "--store", tmp_path, "--graph", "https://example.org/g", check=False)
    assert result.returncode == 1 and "--graph: only with --endpoint" in result.stderr


@pytest.mark.parametrize("page_size", [7, 1000])
def test_pages_of_any_size_give_the_same_rows(page_size, dbpedia_server, dbpedia_store):
    """Ordered pages put together are the whole answer, whatever their size."""
    from factforge.sparql.store import open_store
    from factforge.sparql.terms import iri

    remote = open_store(endpoint=dbpedia_server.query_url, page_size=page_size)
    rows = sorted((r["s"].value, r["o"].value) for r in remote.select("predicate_facts", predicate=iri("dbo:capital")))
    assert len(rows) == 20 and rows == sorted(
        (r["s"].value, r["o"].value) for r in dbpedia_store.select("predicate_facts", predicate=iri("dbo:capital")))


def test_a_query_naming_its_graphs_is_sent_as_it_is(dbpedia_server):
    """FROM cannot go inside the paging subquery: such text is sent whole (and refused at a cap)."""
    from factforge.sparql.store import open_store

    remote = open_store(endpoint=dbpedia_server.query_url)
    query = ("SELECT ?class FROM <https://w3id.org/factforge/graph/ontology> WHERE "
             "{ ?class <http://www.w3.org/2000/01/rdf-schema#subClassOf> <http://dbpedia.org/ontology/Person> }")
    assert len(list(remote.select_query(query))) > 5


def test_the_fingerprint_is_remembered_for_a_bounded_time(tmp_path):
    """Per endpoint URL: a later command uses the fingerprint an earlier one computed, so a KB
    changed behind the same URL goes unseen (as docs/endpoints.md says) until it is older than
    --fingerprint-max-age, or that is 0."""
    port = free_port()

    def fingerprint(*flags):
        return factforge("fingerprint", "--endpoint", f"http://127.0.0.1:{port}/query", *flags).stdout.strip()

    server = served(tmp_path, "one", KB, port=port)
    try:
        first = fingerprint()
    finally:
        server.stop()
    server = served(tmp_path, "two", SWAPPED, port=port)
    try:
        assert fingerprint() == first
        second = fingerprint("--fingerprint-max-age", "0")
        assert second != first and fingerprint() == second
    finally:
        server.stop()
    server = served(tmp_path, "three", KB, port=port)
    try:
        assert fingerprint() == second
        wait_for(lambda: fingerprint("--fingerprint-max-age", "1") == first, "a remembered fingerprint to expire")
    finally:
        server.stop()
    bad = factforge("fingerprint", "--endpoint", f"http://127.0.0.1:{port}/query", "--fingerprint-max-age", "-1",
                    check=False)
    assert bad.returncode == 1 and "--fingerprint-max-age" in bad.stderr


def test_serve_computes_the_fingerprint_once_for_its_workers(tmp_path):
    """`serve --endpoint --workers 2`: the fingerprint's queries reach the endpoint once, and
    every worker serves under that fingerprint."""
    from test_sparql_hostile import factforge_serve

    server = served(tmp_path, "kb", KB)
    proxy = SparqlProxy(server.query_url)
    try:
        with factforge_serve(tmp_path, "--endpoint", proxy.url, "--workers", "2") as (base, _process):
            kb = [requests.get(f"{base}/api/kb", timeout=60).json()["fingerprint"] for _ in range(6)]
        samples = [q for q in proxy.queries if "ORDER BY ?s ?o LIMIT 8" in q]  # the fingerprint's content sample
        assert len(samples) == 1, samples
        assert len(set(kb)) == 1 and kb[0] == factforge("fingerprint", "--endpoint", proxy.url).stdout.strip()
    finally:
        proxy.close()
        server.stop()


def test_serve_hands_endpoint_copy_on_to_its_workers(tmp_path):
    """`serve --endpoint --workers 2 --endpoint-copy`: each worker is started with the copy the user
    asked for (a worker without it would fall back to neighbourhood generation, and refuse
    homogeneity > 0 that the single-process server accepts)."""
    from test_serve_workers import children
    from test_sparql_hostile import factforge_serve

    server = served(tmp_path, "kb", KB)
    try:
        with factforge_serve(tmp_path, "--endpoint", server.query_url, "--workers", "2", "--endpoint-copy") \
                as (base, process):
            assert requests.get(f"{base}/api/kb", timeout=60).status_code == 200
            workers = wait_for(lambda: children(process.pid), "the two workers", until=lambda found: len(found) == 2)
            lines = [Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") for pid in workers]
        assert all(b"--endpoint-copy" in line and b"--endpoint-fingerprint" in line for line in lines), lines
    finally:
        server.stop()
