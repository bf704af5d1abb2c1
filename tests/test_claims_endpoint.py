"""Claims through a real `oxigraph serve` without --endpoint-copy: what they read of R comes in VALUES
batches around the facts (and aggregates per predicate), and the records, answers and dump are the
embedded store's byte for byte when the same dump is asked for (``--evidence-lines``): R around the
claims, the default through an endpoint, or R in full, streamed from the endpoint."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import served_demo_kb

from factforge.claims.build import Options, make_claims
from factforge.claims.labelling import AUTO
from factforge.evaluation.labelled import ScenarioFiles
from factforge.generators.reference_kb import ntriples_line
from factforge.generators.scenario import generate
from factforge.generators.spec import ScenarioSpec
from factforge.sparql.store import open_store

FILES = ("claims.jsonl", "answers.json", "reference.sorted.nt", "manifest.json")
KINDS = dict(negation=0.2, conjunction=0.3, multi_hop=0.3)


def factforge(*args, env=None) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "factforge", "--quiet", *map(str, args)], capture_output=True,
                          text=True, env=env)
    assert done.returncode == 0, done.stderr
    return done


def assert_same_files(here: Path, there: Path) -> None:
    for name in FILES:
        assert (there / name).read_bytes() == (here / name).read_bytes(), name


def assert_lines_name_the_evidence(folder: Path) -> int:
    """Every evidence line of the records is the line of its triple in the dump shipped beside them;
    how many evidence items there were."""
    dump = (folder / "reference.sorted.nt").read_bytes().splitlines(keepends=True)
    seen = 0
    for line in (folder / "claims.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for items, triples in zip(record["evidence"], record["evidence_triples"]):
            for (_, _, page, number), triple in zip(items, triples):
                assert page == triple["s"]
                assert dump[number] == ntriples_line((triple["s"], triple["p"], triple["o"]))
                seen += 1
    return seen


def test_demo_kb_claims_through_oxigraph_serve_are_the_embedded_ones(tmp_path):
    """`claims --endpoint` (no copy) writes R around the claims by default, the same bytes as
    `claims --store --evidence-lines around`; `--evidence-lines full` through the endpoint, with a
    cache that holds nothing of the KB, streams R in full and gives the embedded default's bytes."""
    with served_demo_kb(tmp_path) as (local, remote):
        factforge("generate", "--store", local, "--predicate", "dbo:birthPlace", "--size", "30", "--transparency",
                  "0.5", "--ambiguous", "random_walk", "--leakage", "pair", "--seed", "4", "--out", tmp_path / "s")
        kinds = ["--negation", "0.2", "--conjunction", "0.3", "--multi-hop", "0.3"]
        factforge("claims", tmp_path / "s", "--store", local, *kinds, "--evidence-lines", "around",
                  "--out", tmp_path / "here")
        factforge("claims", tmp_path / "s", *remote, *kinds, "--out", tmp_path / "there")
        assert_same_files(tmp_path / "here", tmp_path / "there")
        manifest = json.loads((tmp_path / "there" / "manifest.json").read_text())
        assert manifest["reference"]["scope"] == "around"
        assert manifest["claims"]["kinds"]["conjunction"] and manifest["claims"]["kinds"]["multi-hop"]
        assert assert_lines_name_the_evidence(tmp_path / "there") > 0
        # R around the claims is a part of R, not all of it
        factforge("claims", tmp_path / "s", "--store", local, *kinds, "--out", tmp_path / "whole")
        full = json.loads((tmp_path / "whole" / "manifest.json").read_text())["reference"]
        assert full["scope"] == "full" and manifest["reference"]["triples"] < full["triples"]

        fresh = {**os.environ, "FACTFORGE_CACHE": str(tmp_path / "empty-cache")}
        factforge("claims", tmp_path / "s", *remote, *kinds, "--evidence-lines", "full", "--out", tmp_path / "streamed",
                  env=fresh)
        assert_same_files(tmp_path / "whole", tmp_path / "streamed")
        assert assert_lines_name_the_evidence(tmp_path / "streamed") > 0


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FACTFORGE_CACHE", str(tmp_path / "cache"))


@pytest.mark.parametrize("knobs, made", [
    (dict(predicate="dbo:deathPlace", size=150, transparency=0.5, ambiguous="random_walk", leakage="pair", seed=0),
     "every label"),
    (dict(predicate="dbo:deathPlace", size=100, transparency=0.0, ambiguous="lcwa", leakage="inverse", seed=1),
     "every label"),
    # R around multi-hop claims holds the second hops of every middle, fetched like the rest
    (dict(predicate="dbo:birthPlace", size=150, transparency=0.5, ambiguous="random_walk", leakage="pair", seed=0),
     "multi-hop"),
])
def test_dbpedia50_claims_through_oxigraph_serve_are_the_embedded_ones(knobs, made, dbpedia_server, dbpedia_store,
                                                                       tmp_path, fresh_cache):
    """Records, answers, dump and manifest the same byte for byte, from far fewer rows than the KB has triples."""
    scenario = generate(dbpedia_store, ScenarioSpec.from_dict(knobs))
    test = [{"id": i.id, "subject": i.fact.s, "predicate": i.fact.p, "object": i.fact.o, "start": i.fact.start,
             "end": i.fact.end, "label": i.label} for i in scenario.test]
    source = ScenarioFiles(tmp_path / "scenario", {"scenario": scenario.id}, test, [], scenario.answers)
    options = dict(langs=["en", "de"], shares=AUTO, seed=knobs["seed"], leakage=knobs["leakage"], **KINDS)
    # through the endpoint first: nothing the embedded run read of this KB is kept for it
    remote = open_store(endpoint=dbpedia_server.query_url, fingerprint=dbpedia_store.fingerprint())
    make_claims(remote, source, Options(**options), tmp_path / "there")
    make_claims(dbpedia_store, source, Options(**options, evidence_lines="around"), tmp_path / "here")
    assert_same_files(tmp_path / "here", tmp_path / "there")
    manifest = json.loads((tmp_path / "there" / "manifest.json").read_text())
    assert manifest["claims"]["kinds"]["conjunction"] > 0
    assert min(manifest["claims"]["labels"].values()) >= 5 if made == "every label" else manifest["claims"]["kinds"][made]
    assert assert_lines_name_the_evidence(tmp_path / "there") > 0
    # the claims' subjects' links, the predicate's facts, types, names and the ontology's schema
    assert remote.rows_read < dbpedia_store.triple_count() / 5


def test_fever_through_serve_endpoint_is_the_command_lines_around_the_claims(tmp_path, fresh_cache):
    """`GET /api/scenarios/<id>?format=fever` from a server whose KB is an endpoint (no copy): 200 with
    the records, answers and dump `claims --store --evidence-lines around` writes from the same scenario."""
    import requests

    from conftest import TEST_TOKEN, job_end
    from factforge.server.app import create_app
    from factforge.server.serve import BackgroundServer

    spec = {"predicate": "dbo:capital", "size": 40, "ambiguous": "random_walk", "leakage": "pair", "seed": 4}
    knobs = {"lang": "en,zh", "negation": "0.5"}
    with served_demo_kb(tmp_path) as (local, flags):
        remote = open_store(endpoint=flags[1], fingerprint=flags[-1])
        root = tmp_path / "scenarios"
        app = create_app(remote, {"SCENARIO_DIR": root, "RELEASES_DIR": tmp_path / "releases", "TOKEN": TEST_TOKEN})
        with BackgroundServer(app) as server:
            response = requests.post(f"{server.url}/api/scenarios", json=spec, timeout=60)
            if response.status_code == 202:
                assert job_end(server.url, response)["status"] == "done"
                response = requests.post(f"{server.url}/api/scenarios", json=spec, timeout=60)
            assert response.status_code == 201, response.text
            scenario_id = response.json()["id"]
            base = f"{server.url}/api/scenarios/{scenario_id}"
            fever = requests.get(base, params={"format": "fever", **knobs}, timeout=300)
            assert fever.status_code == 200, fever.text
            parts = {part: requests.get(f"{base}/claims/{part}", params=knobs, timeout=60)
                     for part in ("answers", "reference", "manifest")}
        assert all(part.status_code == 200 for part in parts.values())
        assert parts["manifest"].json()["reference"]["scope"] == "around"
        factforge("claims", root / scenario_id, "--store", local, "--lang", "en,zh", "--negation", "0.5",
                  "--evidence-lines", "around", "--out", tmp_path / "cli")
    assert fever.content == (tmp_path / "cli" / "claims.jsonl").read_bytes()
    assert parts["answers"].content == (tmp_path / "cli" / "answers.json").read_bytes()
    assert parts["reference"].content == (tmp_path / "cli" / "reference.sorted.nt").read_bytes()
    assert assert_lines_name_the_evidence(tmp_path / "cli") > 0
