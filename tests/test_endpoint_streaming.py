"""SELECT answers of an endpoint read as they arrive: a real `oxigraph serve`'s JSON bodies parsed
piece by piece give exactly what ``json.loads`` of the whole body gives, an unordered answer sorted
in runs spilled to disk comes in the order ``sorted()`` gives, reading a large answer holds far
less memory than its body, and scenarios over DBpedia50 are the same bytes either way."""
from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import tracemalloc
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from conftest import DATA, OxigraphServer, need

DBO = "http://dbpedia.org/ontology/"
LABELS = ("SELECT ?s ?label WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?label "
          "FILTER(LANG(?label) != \"en\") }")
BIRTHS = f"SELECT ?o ?s WHERE {{ ?s <{DBO}birthPlace> ?o }}"
JSON_RESULTS = "application/sparql-results+json"


def body_of(url: str, query: str) -> bytes:
    request = urllib.request.Request(url, data=urllib.parse.urlencode({"query": query}).encode(), method="POST",
                                     headers={"Accept": JSON_RESULTS})
    with urllib.request.urlopen(request, timeout=300) as response:
        return response.read()


def in_pieces(body: bytes, size: int):
    """A reader that gives at most ``size`` bytes at a time, whatever it is asked for: values,
    strings and multi-byte characters cut anywhere."""
    stream = io.BytesIO(body)
    return lambda asked: stream.read(min(asked, size))


def parsed(body: bytes, size: int):
    from factforge.sparql.json_results_stream import JsonResults

    answer = JsonResults(in_pieces(body, size))
    return answer, list(answer.bindings())


@pytest.mark.parametrize("size", [2, 1 << 16])
def test_a_body_read_in_pieces_gives_what_json_loads_gives(size, dbpedia_server):
    """Language-tagged labels in many scripts, IRIs with escapes: every binding equal to the whole
    body's, the variables known, a head that comes after the results read too."""
    body = body_of(dbpedia_server.query_url, LABELS)
    whole = json.loads(body)
    assert len(whole["results"]["bindings"]) > 100 and any(ord(c) > 0x7FF for c in body.decode())
    answer, bindings = parsed(body, size)
    assert bindings == whole["results"]["bindings"] and answer.variables == ["s", "label"]
    assert answer.has_results
    head_last = json.dumps({"results": whole["results"], "head": whole["head"]}, indent=1).encode()
    answer, bindings = parsed(head_last, size)
    assert bindings == whole["results"]["bindings"] and answer.variables == ["s", "label"]
    ask = body_of(dbpedia_server.query_url, "ASK { ?s ?p ?o }")
    answer, bindings = parsed(ask, size)
    assert bindings == [] and answer.members["boolean"] is True and not answer.has_results


@pytest.mark.parametrize("cut", [-1, 1])
def test_a_broken_body_is_an_error(cut, dbpedia_server):
    from factforge.sparql.json_results_stream import MalformedAnswer

    body = body_of(dbpedia_server.query_url, BIRTHS)
    broken = body[:len(body) // 2] if cut < 0 else body + b"}"
    with pytest.raises(MalformedAnswer, match="not a SPARQL JSON answer"):
        parsed(broken, 1 << 16)


def test_runs_spilled_to_disk_merge_in_the_order_sorted_gives(dbpedia_server):
    """Birth places sorted on the place only: many people tie on one, so the merge must keep the
    order they came in, as a stable sort does; runs of 5 rows merged 3 at a time."""
    from factforge.sparql.remote import _sort_key
    from factforge.sparql.spilled_sort import SpilledSort

    bindings = json.loads(body_of(dbpedia_server.query_url, BIRTHS))["results"]["bindings"]
    key = _sort_key(["o"])
    expected = sorted(bindings, key=key)
    assert len({json.dumps(b["o"]) for b in bindings}) < len(bindings) // 2
    assert expected != sorted(bindings, key=_sort_key(["o", "s"]))  # ties are kept in arrival order
    with SpilledSort(key, run_rows=5, fan_in=3) as rows:
        rows.extend(bindings)
        assert rows.rows == len(bindings)
        assert list(rows) == expected


@pytest.fixture(scope="module")
def synthetic_server(tmp_path_factory):
    """A synthetic KB of 120,000 triples over six predicates, behind `oxigraph serve`."""
    folder = tmp_path_factory.mktemp("synthetic")
    kb = folder / "kb.nt"
    script = Path(__file__).resolve().parent.parent / "bench" / "synthetic_kb.py"
    subprocess.run([sys.executable, str(script), "--triples", "120000", "--predicates", "6",
                    "--literal-predicates", "1", "--seed", "1", "--out", str(kb),
                    "--ontology", str(need(DATA / "dbpedia-ontology" / "dbo-2018.12.28.ttl"))],
                   check=True, capture_output=True)
    server = OxigraphServer(folder, [(kb, None)])
    yield server
    server.stop()


def peak_while_reading(store, query: str) -> tuple[int, int]:
    """(rows, peak traced bytes) of reading every row of an answer, keeping none."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        rows = sum(1 for _row in store.select_query(query))
        return rows, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_reading_a_large_answer_holds_far_less_than_its_body(synthetic_server):
    """The largest predicate's facts, read unordered and sorted in runs of 512 rows (the answer is
    about a hundred times that, so that the test stays quick): streamed, the memory held at the
    peak is a small part of the body's size; read whole, more than the body (the measure can fail)."""
    from factforge.sparql.store import open_store

    query = f"SELECT ?s ?o WHERE {{ ?s <{DBO}p0001> ?o }}"
    body = len(body_of(synthetic_server.query_url, query))
    assert body > 5_000_000
    whole = open_store(endpoint=synthetic_server.query_url)
    whole.streamed = False
    streamed = open_store(endpoint=synthetic_server.query_url)
    streamed.run_rows = 512
    rows_whole, peak_whole = peak_while_reading(whole, query)
    rows_streamed, peak_streamed = peak_while_reading(streamed, query)
    assert rows_streamed == rows_whole > 40_000
    assert peak_whole > body
    assert peak_streamed < body / 4, (peak_streamed, body)


def test_a_scenario_is_the_same_bytes_streamed_or_read_whole(dbpedia_server, tmp_path, monkeypatch):
    """DBpedia50 behind `oxigraph serve`: a random-walk scenario and its reference KB generated
    through answers read whole, and through answers streamed and sorted in runs of 64 rows spilled
    to disk, each with a cache of its own (nothing one built is read by the other): the same bytes."""
    from factforge.generators.reference_kb import ReferenceKB
    from factforge.generators.scenario import generate
    from factforge.generators.spec import ScenarioSpec
    from factforge.generators.writers import render
    from factforge.sparql.store import open_store

    spec = ScenarioSpec(predicate="dbo:birthPlace", size=60, transparency=0.5, ambiguous="random_walk",
                        train_size=20, seed=11)
    outputs = []
    for streamed in (False, True):
        monkeypatch.setenv("FACTFORGE_CACHE", str(tmp_path / f"cache-{streamed}"))
        store = open_store(endpoint=dbpedia_server.query_url)
        store.streamed = streamed
        store.run_rows = 64
        scenario = generate(store, spec)
        reference = io.BytesIO()
        ReferenceKB.of(store, scenario.removed).write_ntriples(reference)
        outputs.append(([render(scenario, fmt, split) for fmt in ("tsv", "jsonl") for split in ("test", "train")],
                        scenario.answers, scenario.removed, reference.getvalue()))
    assert outputs[0] == outputs[1]
    assert outputs[0][3].count(b"\n") > 1000 and outputs[0][2]


ALL_FACTS = {"SELECT": ("SELECT ?s ?p ?o WHERE { ?s ?p ?o }", "tsv", "text/tab-separated-values"),
             "CONSTRUCT": ("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", "ntriples", "application/n-triples")}


class _Sink:
    """A stdout whose bytes are counted and hashed, not kept."""

    def __init__(self):
        self.buffer = self
        self.size = 0
        self.digest = hashlib.sha256()

    def write(self, data) -> int:
        self.size += len(data)
        self.digest.update(data)
        return len(data)

    def flush(self) -> None:
        pass


def _traced_peak(action):
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("form", ["SELECT", "CONSTRUCT"])
def test_factforge_query_on_an_endpoint_holds_far_less_than_its_answer(form, synthetic_server, monkeypatch):
    """`factforge query --endpoint` of every triple of a 120,000-triple KB: the answer (over 10 MB)
    goes to stdout whole and in order, while the memory held at the peak is a small part of it (it
    was read whole, then written whole: more than the answer)."""
    from factforge.cli.main import main
    from factforge.sparql.store import open_store

    query, name, _media = ALL_FACTS[form]
    whole = open_store(endpoint=synthetic_server.query_url).run_query(query, name)[0]
    assert len(whole) > 10_000_000 and whole.count(b"\n") >= 120_000
    sink = _Sink()
    monkeypatch.setattr(sys, "stdout", sink)
    command = ["query", "--endpoint", synthetic_server.query_url, "--format", name]
    main(command + [query + " LIMIT 1"])  # the command's modules imported before memory is traced
    sink.__init__()
    peak = _traced_peak(lambda: main(command + [query]))
    assert (sink.size, sink.digest.hexdigest()) == (len(whole), hashlib.sha256(whole).hexdigest())
    assert peak < len(whole) / 4, (peak, len(whole))


@pytest.mark.parametrize("form", ["SELECT", "CONSTRUCT"])
def test_sparql_of_serve_endpoint_holds_far_less_than_its_answer(form, synthetic_server, tmp_path):
    """/sparql of a server whose KB is the endpoint, read by a client as it comes: the same bytes as
    the store's whole answer, its length and row count in the headers, and a peak of memory (server
    and client in this process) far below the answer's size."""
    from factforge.server.app import create_app
    from factforge.sparql.store import open_store

    query, name, media = ALL_FACTS[form]
    store = open_store(endpoint=synthetic_server.query_url)
    whole = store.run_query(query, name)[0]
    app = create_app(store, {"SCENARIO_DIR": tmp_path / "scenarios", "RELEASES_DIR": tmp_path / "releases",
                             "SPARQL_ROW_CAP": 200_000, "SPARQL_TIMEOUT": 300})
    client = app.test_client()
    client.get("/sparql", query_string={"query": query + " LIMIT 1"}, headers={"Accept": media})  # imports
    got = {}

    def read() -> None:
        response = client.get("/sparql", query_string={"query": query}, headers={"Accept": media}, buffered=False)
        got["status"], got["headers"] = response.status_code, dict(response.headers)
        digest, size = hashlib.sha256(), 0
        for chunk in response.response:
            digest.update(chunk)
            size += len(chunk)
        response.close()
        got["body"] = (size, digest.hexdigest())

    peak = _traced_peak(read)
    assert got["status"] == 200, got
    assert got["body"] == (len(whole), hashlib.sha256(whole).hexdigest())
    assert got["headers"]["Content-Length"] == str(len(whole))
    assert int(got["headers"]["X-Result-Rows"]) == whole.count(b"\n") - (form == "SELECT")  # less TSV's head
    assert peak < len(whole) / 4, (peak, len(whole))
