"""FactBench kinds through a real `oxigraph serve` by neighbourhoods: every file `generate` writes is
the embedded store's, byte for byte (the demo KB's dated awards, DBpedia50's entity and property kinds)."""
from __future__ import annotations

import pytest

from conftest import FACTBENCH, OxigraphServer, need, served_demo_kb
from test_cli import factforge

from factforge.generators.scenario import generate
from factforge.generators.spec import ScenarioSpec
from factforge.publish.scenario_files import write_scenario
from factforge.sparql.store import open_store


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FACTFORGE_CACHE", str(tmp_path / "cache"))


def _files(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("knobs", [
    ["--predicate", "dbo:award", "--size", "10", "--factbench", "mix", "--seed", "2"],
    ["--predicate", "dbo:award", "--size", "8", "--train-size", "6", "--factbench", "date,range", "--leakage", "pair",
     "--seed", "4"],
    ["--predicate", "dbo:birthPlace", "--size", "30", "--factbench", "domain,property,random", "--leakage",
     "inverse", "--seed", "1"],
], ids=["award-mix", "award-date-range-pair", "birthPlace-domain-property-random"])
def test_demo_kb_factbench_kinds_through_oxigraph_serve_are_the_embedded_ones(knobs, tmp_path, fresh_cache):
    with served_demo_kb(tmp_path) as (local, remote):
        formats = ["--format", "tsv,jsonl,factbench"]
        factforge("generate", "--store", local, *knobs, *formats, "--out", tmp_path / "here")
        factforge("generate", *remote, *knobs, *formats, "--out", tmp_path / "there")
        here, there = _files(tmp_path / "here"), _files(tmp_path / "there")
        assert sorted(here) == sorted(there) and any(name.startswith("factbench/") for name in here)
        for name in here:
            assert here[name] == there[name], name


@pytest.mark.parametrize("knobs", [
    dict(predicate="dbo:birthPlace", size=60, train_size=20, factbench=["domain", "range", "domainrange"], seed=3),
    dict(predicate="dbo:team", size=60, factbench=["mix"], leakage="pair", seed=5),
    dict(predicate="dbo:starring", size=40, factbench=["property", "random"], popularity="popular", seed=6),
], ids=["birthPlace-entities", "team-mix-pair", "starring-property-random"])
def test_dbpedia50_factbench_kinds_through_oxigraph_serve_are_the_embedded_ones(knobs, dbpedia_server, dbpedia_store,
                                                                                 tmp_path):
    spec = ScenarioSpec.from_dict(knobs)
    remote = open_store(endpoint=dbpedia_server.query_url, fingerprint=dbpedia_store.fingerprint())
    there = generate(remote, spec)
    assert there.fetched["rounds"] >= 2
    here = generate(dbpedia_store, spec)
    names = ["tsv", "jsonl", "factbench"]
    write_scenario(here, tmp_path / "here", names, store=dbpedia_store)
    write_scenario(there, tmp_path / "there", names, store=remote)
    assert _files(tmp_path / "here") == _files(tmp_path / "there")


@pytest.mark.slow
def test_factbench_kb_kinds_through_oxigraph_serve_are_the_embedded_ones(tmp_path, fresh_cache):
    """FactBench's own KB: statement nodes, each model in its own graph, dates read within a model's graph."""
    local = tmp_path / "store"
    factforge("load", "--store", local, "--factbench", "--correct-only", need(FACTBENCH))
    with open_store(local, read_only=True) as store:
        (tmp_path / "kb.nq").write_bytes(store.nquads())
        fingerprint = store.fingerprint()
    (tmp_path / "kb").mkdir()
    server = OxigraphServer(tmp_path / "kb", [(tmp_path / "kb.nq", None)])
    try:
        knobs = ["--predicate", "dbo:spouse", "--size", "30", "--train-size", "20", "--factbench", "mix", "--leakage",
                 "pair", "--seed", "2", "--format", "tsv,jsonl,factbench"]
        factforge("generate", "--store", local, *knobs, "--out", tmp_path / "here")
        factforge("generate", "--endpoint", server.query_url, "--endpoint-fingerprint", fingerprint, *knobs,
                  "--out", tmp_path / "there")
        here, there = _files(tmp_path / "here"), _files(tmp_path / "there")
        assert b'"date"' in here["answers.json"]  # dated facts: the date kind is among the mix
        assert here == there
    finally:
        server.stop()
