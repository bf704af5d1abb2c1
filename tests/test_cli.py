"""The factforge command, run as a user runs it: a real process, its output and exit status."""
import csv
import io
import json
import subprocess
import sys

import pytest



def factforge(*args, check=True):
    result = subprocess.run([sys.executable, "-m", "server.cli", "--quiet", *map(str, args)],
                            capture_output=True, text=True, timeout=300)
    if check and result.returncode != 0:
        raise AssertionError(f"factforge {' '.join(map(str, args))} failed: {result.stderr}")
    return result


def assert_clean_error(result, *fragments):
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("factforge: error:"), result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.fixture
def small_kb(tmp_path):
    kb = tmp_path / "kb.ttl"
    kb.write_text("""@prefix ex: <http://example.org/> .
ex:alice ex:knows ex:bob , ex:carol . ex:bob ex:knows ex:carol . ex:alice ex:name "Alice" .
""")
    return kb


def test_demo_loads_and_profiles_the_bundled_kb():
    result = factforge("demo")
    assert "Loaded the demo KB" in result.stdout
    assert "dbo:capital" in result.stdout and "dbo:birthPlace" in result.stdout
    assert "A sample scenario" in result.stdout and "20 true" in result.stdout
    assert "Subject\tObject\tRelation\tLabel" in result.stdout
    data = json.loads(factforge("demo", "--json").stdout)
    capital = next(p for p in data["profiles"] if p["name"] == "dbo:capital")
    assert capital["facts"] >= 50 and capital["functionality"] in {"1-1", "N-1"}
    assert data["fingerprint"].startswith("kb-")


def test_load_profile_query_round_trip(tmp_path, small_kb):
    store = tmp_path / "store"
    out = factforge("load", small_kb, "--store", store).stdout
    assert "4 triples added" in out and "fingerprint kb-" in out
    profile = json.loads(factforge("profile", "--store", store, "--predicate", "http://example.org/knows", "--json").stdout)
    assert (profile["facts"], profile["subjects"], profile["objects"]) == (3, 2, 2)
    text = factforge("query", "--store", store, "--format", "csv",
                     "SELECT ?o WHERE { <http://example.org/alice> <http://example.org/knows> ?o } ORDER BY ?o").stdout
    assert [row["o"] for row in csv.DictReader(io.StringIO(text))] == ["http://example.org/bob", "http://example.org/carol"]
    fingerprint = factforge("fingerprint", "--store", store).stdout.strip()
    assert out.strip().endswith(fingerprint)


def test_errors_are_one_line_and_lose_nothing(tmp_path, small_kb):
    store = tmp_path / "store"
    factforge("load", small_kb, "--store", store)
    before = factforge("fingerprint", "--store", store).stdout
    bad = tmp_path / "bad.ttl"
    bad.write_text("@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\nex:a ex:b <oops\n")
    assert_clean_error(factforge("load", bad, "--store", store, check=False), "bad.ttl", "line 3")
    assert_clean_error(factforge("load", tmp_path / "missing.nt", "--store", store, check=False), "no such file")
    assert factforge("fingerprint", "--store", store).stdout == before
    count = factforge("query", "--store", store, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }").stdout
    assert count.splitlines()[1].startswith('"4"') or count.splitlines()[1].startswith("4")
    assert_clean_error(factforge("profile", "--store", store, "--predicate", "not an iri", check=False), "predicate")
    assert_clean_error(factforge("profile", "--store", store, "--predicate", "ex:unknown", check=False), "no fact of")
    assert_clean_error(factforge("query", "--store", store, "SELECT WHERE {", check=False), "syntax")
    assert_clean_error(factforge("query", "--store", store, "INSERT DATA { <http://a> <http://b> <http://c> }",
                                 check=False))
    assert_clean_error(factforge("profile", "--store", tmp_path / "nowhere", check=False), "does not exist")


def test_endpoint_flag_reads_a_real_server(dbpedia_server, dbpedia_store):
    remote = json.loads(factforge("profile", "--endpoint", dbpedia_server.query_url,
                                  "--predicate", "dbo:birthPlace", "--json").stdout)
    from sparql import profiles

    assert remote == profiles.predicate_profile(dbpedia_store, "dbo:birthPlace")


def test_demo_writes_its_scenario_when_asked(tmp_path):
    factforge("demo", "--out", tmp_path / "scenario")
    manifest = json.loads((tmp_path / "scenario" / "manifest.json").read_text())
    assert {"test.tsv", "test.jsonl", "answers.json"} <= set(manifest["files"])
    rows = list(csv.DictReader(io.StringIO((tmp_path / "scenario" / "test.tsv").read_text()), delimiter="\t"))
    assert len(rows) == 40 and sorted({r["Label"] for r in rows}) == ["0", "1"]


def test_generate_refuses_a_bad_format_or_a_used_folder_before_working(tmp_path, small_kb):
    store = tmp_path / "store"
    factforge("load", small_kb, "--store", store)
    used = tmp_path / "used"
    used.mkdir()
    (used / "keep.txt").write_text("mine")
    common = ["generate", "--store", store, "--predicate", "http://example.org/knows", "--size", "2"]
    assert_clean_error(factforge(*common, "--out", tmp_path / "new", "--format", "tsv,xlsx", check=False),
                       "--format", "xlsx")
    assert not (tmp_path / "new").exists()
    assert_clean_error(factforge(*common, "--out", used, check=False), "--out")
    assert [p.name for p in used.iterdir()] == ["keep.txt"] and (used / "keep.txt").read_text() == "mine"

