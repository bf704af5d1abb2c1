"""Loading real RDF: counts checked against the files themselves, fingerprints, and failed loads
that leave the store exactly as it was."""
import bz2
import gzip
import re
import shutil

import pytest

from conftest import DBPEDIA_NT, ONTOLOGY_GRAPH, ONTOLOGY_TTL, need
from factforge.sparql.loading import LoadError, load_files
from factforge.sparql.store import open_store

RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
LINE = re.compile(r"^(<[^>]*>|_:\S+) (<[^>]*>) (.*) \.$")


def nt_facts():
    """The .nt file read as plain text, independently of any RDF library."""
    triples = set()
    for line in need(DBPEDIA_NT).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            match = LINE.match(line.strip())
            assert match, line
            triples.add(match.groups())
    return triples


def test_dbpedia_counts_match_the_file(dbpedia_store):
    triples = nt_facts()
    predicates = {p for _, p, _ in triples}
    typed = {s for s, p, _ in triples if p == RDF_TYPE}
    store = open_store(None)
    load_files(store, [DBPEDIA_NT], progress=False)
    assert store.triple_count() == len(triples)
    assert store.count("typed_entity_count") == len(typed)
    assert {r["p"].value for r in store.select("predicate_counts")} == {p[1:-1] for p in predicates}
    # The session store also holds the ontology in its own graph: both are queried together.
    graphs = {r["g"].value: int(r["n"].value) for r in dbpedia_store.select("named_graphs")}
    assert list(graphs) == [ONTOLOGY_GRAPH]
    assert dbpedia_store.triple_count() == len(triples) + graphs[ONTOLOGY_GRAPH]


def test_compressed_files_load_the_same(tmp_path):
    raw = need(ONTOLOGY_TTL).read_bytes()
    (tmp_path / "o.ttl.gz").write_bytes(gzip.compress(raw))
    (tmp_path / "o.ttl.bz2").write_bytes(bz2.compress(raw))
    counts, prints = [], []
    for name in ["o.ttl.gz", "o.ttl.bz2"]:
        store = open_store(tmp_path / f"store-{name}")
        load_files(store, [tmp_path / name], progress=False)
        counts.append(store.triple_count())
        prints.append(store.fingerprint())
    plain = open_store(None)
    load_files(plain, [ONTOLOGY_TTL], progress=False)
    assert counts == [plain.triple_count()] * 2
    assert prints == [plain.fingerprint()] * 2  # the fingerprint follows content, not packaging


def test_fingerprint_is_stable_on_reload_and_changes_with_content(tmp_path):
    a, b = tmp_path / "a.ttl", tmp_path / "b.nt"
    a.write_text("@prefix ex: <http://example.org/> .\nex:s ex:p ex:o .\n")
    b.write_text("<http://example.org/s2> <http://example.org/p> <http://example.org/o> .\n")
    one = open_store(tmp_path / "one")
    load_files(one, [a, b], progress=False)
    two = open_store(tmp_path / "two")
    load_files(two, [b], progress=False)
    load_files(two, [a], progress=False)
    load_files(two, [a], progress=False)  # loading the same file twice changes nothing
    assert one.fingerprint() == two.fingerprint()
    b.write_text("<http://example.org/s2> <http://example.org/p> <http://example.org/o2> .\n")
    three = open_store(tmp_path / "three")
    load_files(three, [a, b], progress=False)
    assert three.fingerprint() != one.fingerprint()
    # Reopening from disk gives the same fingerprint as before.
    fingerprint = one.fingerprint()
    one.close()
    assert open_store(tmp_path / "one").fingerprint() == fingerprint


def test_fingerprint_of_a_bare_oxigraph_database_follows_content(tmp_path):
    import pyoxigraph as ox

    quads = [ox.Quad(ox.NamedNode(f"http://example.org/s{i}"), ox.NamedNode("http://example.org/p"),
                     ox.Literal(str(i))) for i in range(50)]
    prints = []
    for name, order in [("x", quads), ("y", list(reversed(quads)))]:
        db = ox.Store(str(tmp_path / name))
        db.extend(order)
        db.flush()
        del db
        prints.append(open_store(tmp_path / name).fingerprint())
    assert prints[0] == prints[1] and prints[0].startswith("kc-")


@pytest.mark.parametrize("content,kind", [
    ("@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\nex:a ex:b \"unterminated .\n", "syntax"),
    (None, "missing"),
    (b"\x1f\x8b\x08\x00garbage", "archive"),
])
def test_a_failed_load_leaves_the_store_as_it_was(tmp_path, content, kind):
    store = open_store(tmp_path / "store")
    load_files(store, [need(ONTOLOGY_TTL)], progress=False)
    before = (store.triple_count(), store.fingerprint())
    good = tmp_path / "good.nt"
    good.write_text("<http://example.org/new> <http://example.org/p> <http://example.org/o> .\n")
    if kind == "syntax":
        bad = tmp_path / "bad.ttl"
        bad.write_text(content)
        expected = r"bad\.ttl: line 3"
    elif kind == "missing":
        bad = tmp_path / "nope.ttl"
        expected = r"nope\.ttl: no such file"
    else:
        bad = tmp_path / "broken.nt.gz"
        bad.write_bytes(content)
        expected = r"broken\.nt\.gz: cannot read"
    with pytest.raises(LoadError, match=expected):
        load_files(store, [good, bad], progress=False)
    assert (store.triple_count(), store.fingerprint()) == before
    assert not store.ask_query("ASK { <http://example.org/new> ?p ?o }")
    store.close()
    reopened = open_store(tmp_path / "store")
    assert (reopened.triple_count(), reopened.fingerprint()) == before
    assert not list((tmp_path / "store").glob("*.before-load"))


def test_a_large_failed_bulk_load_is_rolled_back(tmp_path):
    """Big enough that the bulk loader commits batches before it meets the error."""
    bad = tmp_path / "big.nt"
    with bad.open("w") as out:
        for i in range(300_000):
            out.write(f"<http://example.org/e{i}> <http://example.org/p> <http://example.org/e{i + 1}> .\n")
        out.write("<http://example.org/x> <http://example.org/p> oops .\n")
    store = open_store(tmp_path / "store")
    with pytest.raises(LoadError, match="line 300001"):
        load_files(store, [bad], progress=False)
    assert store.triple_count() == 0


def test_named_graph_and_format_errors(tmp_path):
    store = open_store(None)
    with pytest.raises(LoadError, match="--graph"):
        load_files(store, [need(ONTOLOGY_TTL)], graph="not an iri", progress=False)
    odd = tmp_path / "data.weird"
    shutil.copy(ONTOLOGY_TTL, odd)
    with pytest.raises(LoadError, match="give --format"):
        load_files(store, [odd], progress=False)
    load_files(store, [odd], rdf_format="ttl", progress=False)
    assert store.triple_count() > 0
