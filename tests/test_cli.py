"""The factforge command, run as a user runs it: a real process, its output and exit status."""
import csv
import io
import json
import subprocess
import sys

import pytest



def factforge(*args, check=True):
    result = subprocess.run([sys.executable, "-m", "factforge", "--quiet", *map(str, args)],
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
    # the first scenario a newcomer sees passes the shortcut audit
    assert "ok: 40 facts" in result.stdout and "FLAGGED" not in result.stdout
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


def test_user_errors_of_every_layer_are_one_line(tmp_path):
    """Errors a user causes from the evaluation layer and from a query file, not only the CLI's own."""
    labelled = tmp_path / "facts.tsv"
    labelled.write_text("subject\tpredicate\tobject\tlabel\nhttp://e/a\thttp://e/p\thttp://e/b\t1\n"
                        "http://e/c\thttp://e/p\thttp://e/d\t0\n")
    assert_clean_error(factforge("audit", labelled, "--auroc-threshold", "2", check=False), "auroc_threshold")
    assert_clean_error(factforge("audit", tmp_path / "nothing.tsv", check=False), "no such file")
    binary = tmp_path / "q.rq"
    binary.write_bytes(b"SELECT \xff\xfe")
    assert_clean_error(factforge("query", "--file", binary, "--store", tmp_path, check=False), "--file", "UTF-8")


def test_a_bug_shows_its_traceback_not_a_one_line_error(monkeypatch, tmp_path):
    """A ValueError from a bug is not a user error: hiding its traceback behind one line hides the bug."""
    from factforge.cli import fingerprint
    from factforge.cli.main import main

    def broken(args):
        return int("not a number")  # a bug, as any code may have

    monkeypatch.setattr(fingerprint, "cmd_fingerprint", broken)
    with pytest.raises(ValueError, match="invalid literal"):
        main(["fingerprint", "--store", str(tmp_path)])


def test_endpoint_flag_reads_a_real_server(dbpedia_server, dbpedia_store):
    remote = json.loads(factforge("profile", "--endpoint", dbpedia_server.query_url,
                                  "--predicate", "dbo:birthPlace", "--json").stdout)
    from factforge.sparql import profiles

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



# --- FactBench folders ---------------------------------------------------------------------------

def factbench_folder(tmp_path):
    """A small FactBench split: a company stated as its own subsidiary (as in FactBench 1.0's test
    split), one model of each label for the audit, and one model that cannot be read."""
    from test_factbench import SELF_SUBSIDIARY, write_model

    root = tmp_path / "factbench" / "test"
    write_model(root, "wrong/domain/subsidiary/subsidiary_00000.ttl", SELF_SUBSIDIARY)
    write_model(root, "correct/subsidiary/subsidiary_00000.ttl", SELF_SUBSIDIARY.replace(
        "<http://defacto.aksw.org/bnode/property>", "dbo:acquisition").replace(
        "dbo:subsidiary  <http://rdf.freebase.com/ns/m.0test1>", "dbo:subsidiary  <http://rdf.freebase.com/ns/m.0test2>"))
    return root


def test_load_factbench_with_a_self_subsidiary_and_skip_bad(tmp_path):
    root = factbench_folder(tmp_path)
    store = tmp_path / "store"
    out = factforge("load", "--factbench", root, "--store", store).stdout
    assert "2 FactBench facts" in out
    audit = factforge("audit", root, check=False)
    assert audit.returncode in (0, 3) and "2 facts (1 true, 1 false)" in audit.stdout, audit.stderr

    bad = root / "wrong" / "domain" / "subsidiary" / "subsidiary_00001.ttl"
    bad.write_text("<http://a> <http://b> <oops\n")
    other = tmp_path / "other"
    assert_clean_error(factforge("load", "--factbench", root, "--store", other, check=False),
                       "subsidiary_00001.ttl", "line 1")
    assert_clean_error(factforge("audit", root, check=False), "subsidiary_00001.ttl")
    assert not (other / "meta.json").exists()

    result = factforge("load", "--factbench", root, "--store", other, "--skip-bad")
    assert "2 FactBench facts" in result.stdout
    assert result.stderr.count("subsidiary_00001.ttl") == 1 and "skipped" in result.stderr
    assert factforge("fingerprint", "--store", other).stdout == factforge("fingerprint", "--store", store).stdout
    audit = factforge("audit", root, "--skip-bad", check=False)
    assert audit.returncode in (0, 3) and "2 facts (1 true, 1 false)" in audit.stdout, audit.stderr
    assert "subsidiary_00001.ttl" in audit.stdout
    assert_clean_error(factforge("load", root, "--store", other, "--skip-bad", check=False), "--skip-bad", "--factbench")


def test_loading_a_factbench_folder_without_the_flag_says_what_it_is(tmp_path):
    root = factbench_folder(tmp_path)
    for folder in (root, root.parent):  # a split, or a folder of splits
        assert_clean_error(factforge("load", folder, "--store", tmp_path / "store", check=False),
                           str(folder), "FactBench", "--factbench")
    plain = tmp_path / "plain"
    plain.mkdir()
    assert_clean_error(factforge("load", plain, "--store", tmp_path / "store", check=False), "plain", "folder")
    assert_clean_error(factforge("load", "--tsv", plain, "--store", tmp_path / "store", check=False), "folder")
    assert not (tmp_path / "store" / "meta.json").exists()


# --- reading commands share the store --------------------------------------------------------------

HOLDER = """
import sys, time
from pathlib import Path
from factforge.cli.main import build_parser
from factforge.cli.options import reading_store
from factforge.sparql.store import open_store

if sys.argv[1] == "--write":  # as a load does
    store = open_store(sys.argv[2])
else:
    store = reading_store(build_parser().parse_args(sys.argv[1:-2]))
store.triple_count()
ready, release = Path(sys.argv[-2]), Path(sys.argv[-1])
ready.write_text("open")
deadline = time.monotonic() + 120
while not release.exists() and time.monotonic() < deadline:
    time.sleep(0.05)
"""


def wait_for(condition, what, process, seconds=120):
    import time

    deadline = time.monotonic() + seconds
    while not condition():
        assert process.poll() is None, f"the holder ended before {what}: {process.communicate()}"
        assert time.monotonic() < deadline, f"no {what} within {seconds} s"
        time.sleep(0.05)


def hold_store(tmp_path, *args):
    """A process that opens the store as ``args`` say and keeps it open until told."""
    ready, release = tmp_path / "ready", tmp_path / "release"
    ready.unlink(missing_ok=True)
    release.unlink(missing_ok=True)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, *map(str, args), str(ready), str(release)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(ready.exists, "open store", holder)

    def done():
        release.write_text("done")
        _, err = holder.communicate(timeout=60)
        assert holder.returncode == 0, err

    return done


def test_reading_commands_run_while_another_reads_the_store(tmp_path, small_kb):
    store = tmp_path / "store"
    factforge("load", small_kb, "--store", store)
    factforge("profile", "--store", store)  # fills the statistics cache, as a first reader does
    other = tmp_path / "other.ttl"
    other.write_text("<http://example.org/dave> <http://example.org/knows> <http://example.org/alice> .\n")
    release = hold_store(tmp_path, "generate", "--store", store, "--predicate", "http://example.org/knows",
                         "--out", tmp_path / "held")
    try:
        profile = json.loads(factforge("profile", "--store", store, "--predicate", "http://example.org/knows",
                                       "--json").stdout)
        assert profile["facts"] == 3
        assert factforge("query", "--store", store, "ASK { ?s ?p ?o }").stdout.strip() == "true"
        assert factforge("fingerprint", "--store", store).stdout.startswith("kb-")
        # a load keeps the store to itself: not beside a reader
        assert_clean_error(factforge("load", other, "--store", store, check=False), "another process")
    finally:
        release()
    assert "1 triples added" in factforge("load", other, "--store", store).stdout

    release = hold_store(tmp_path, "--write", store)
    try:
        assert_clean_error(factforge("profile", "--store", store, check=False), "another process is writing")
    finally:
        release()
    after = json.loads(factforge("profile", "--store", store, "--predicate", "http://example.org/knows", "--json").stdout)
    assert after["facts"] == 4


def test_reading_commands_use_the_store_cache_when_read_only(tmp_path, small_kb):
    store = tmp_path / "store"
    factforge("load", small_kb, "--store", store)
    cache = store / "cache"
    assert not cache.exists() or not any(cache.rglob("*"))
    factforge("profile", "--store", store)
    assert any(p.is_file() for p in cache.rglob("*")), "a read-only reader still fills the store's own cache"


def test_a_store_alive_at_interpreter_exit_releases_its_lock_quietly(tmp_path):
    """A store kept alive until the interpreter tears its modules down (a cached fixture, a global)
    is collected after ``os`` lost its functions: closing its lock must not print a traceback."""
    script = ("import os, sys\n"
              "from factforge.sparql.embedded import EmbeddedStore\n"
              "store = EmbeddedStore(sys.argv[1])\n"
              "store.db\n"
              "os.zz_store = store  # cleared after os.close at exit\n")
    result = subprocess.run([sys.executable, "-c", script, str(tmp_path / "store")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and (tmp_path / "store" / "access.lock").exists(), result.stderr
    assert "Exception ignored" not in result.stderr, result.stderr


@pytest.mark.slow
def test_generate_prints_and_writes_the_false_subjects_warning(tmp_path):
    """DBpedia50 birthPlace, LCWA at c = 0, 300 facts, seed 3: every subject has a false fact but 3
    have more false facts than true ones. The command says it on a `warning:` line and the manifest
    carries the same warning; the data files do not."""
    from conftest import DBPEDIA_NT, ONTOLOGY_TTL, need

    store = tmp_path / "store"
    factforge("load", need(DBPEDIA_NT), ONTOLOGY_TTL, "--store", store)
    out = tmp_path / "out"
    printed = factforge("generate", "--store", store, "--predicate", "dbo:birthPlace", "--size", 300, "--seed", 3,
                        "--transparency", 0, "--ambiguous", "lcwa", "--out", out).stdout
    section = json.loads((out / "manifest.json").read_text())["false_subjects"]
    assert section["test"] == {"subjects": 146, "without_false_fact": 0, "more_false_than_true": 3}
    assert f"  warning: {section['warning']}" in printed.splitlines()
    assert printed.count(section["warning"]) == 1  # not again among the audit's lines
    assert not any("false_subjects" in p.read_text() or "false fact" in p.read_text()
                   for p in out.iterdir() if p.name not in ("manifest.json", "answers.json"))
    audited = factforge("audit", out, "--store", store, check=False)
    assert audited.returncode in (0, 3), audited.stderr  # 3: flagged, which the warning alone never causes
    audited = audited.stdout
    assert f"  warning: {section['warning']}" in audited.splitlines()
