"""`evaluate` through a real `oxigraph serve` without copying the KB: the checkers read R over the
neighbourhoods of the scored facts only, and score exactly as over the embedded store's whole index.
Checkers that need every link (Knowledge Linker, TransE) say so and run with --endpoint-copy."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import served_demo_kb
from test_cli import factforge

from factforge.evaluation.labelled import read_input
from factforge.evaluation.reference_input import input_reference
from factforge.evaluation.scoring import run_checker
from factforge.generators.scenario import generate
from factforge.generators.spec import ScenarioSpec
from factforge.publish.scenario_files import write_scenario
from factforge.sparql.store import open_store

NEIGHBOURHOOD_CHECKERS = ["path_features", "degree", "direct_link", "type"]


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FACTFORGE_CACHE", str(tmp_path / "cache"))


def _scores(files, store, name: str):
    reference = input_reference(files, store, (2, 1))
    run = run_checker(name, files.train, files.test, reference, seed=3)
    return run.scores, run.note


@pytest.mark.parametrize("knobs", [
    dict(predicate="dbo:birthPlace", size=60, train_size=40, transparency=0.5, ambiguous="random_walk",
         leakage="pair", seed=3),
    dict(predicate="dbo:starring", size=40, train_size=40, transparency=0.0, ambiguous="lcwa", leakage="inverse",
         seed=4),
], ids=["birthPlace-walk-pair", "starring-lcwa-inverse"])
def test_dbpedia50_checkers_through_oxigraph_serve_score_as_the_embedded_store(knobs, dbpedia_server, dbpedia_store,
                                                                                tmp_path):
    folder = tmp_path / "scenario"
    write_scenario(generate(dbpedia_store, ScenarioSpec.from_dict(knobs)), folder, ["jsonl"], store=dbpedia_store)
    files = read_input(folder)
    remote = open_store(endpoint=dbpedia_server.query_url, fingerprint=dbpedia_store.fingerprint())
    here = input_reference(files, dbpedia_store)
    there = input_reference(files, remote, (2, 1))
    assert not there.whole and here.whole
    assert here.removed == there.removed and there.removed
    before = remote.rows_read
    for name in NEIGHBOURHOOD_CHECKERS:
        expected, note = _scores(files, dbpedia_store, name)
        got, got_note = _scores(files, remote, name)
        assert np.array_equal(expected, got) and note == got_note, name
    # the neighbourhoods, not the KB's 43k links: fetched once more for each checker here
    assert (remote.rows_read - before) / len(NEIGHBOURHOOD_CHECKERS) < dbpedia_store.triple_count() / 2


def test_a_labelled_file_through_oxigraph_serve_scores_as_the_embedded_store(dbpedia_server, dbpedia_store, tmp_path):
    """No manifest, no removed triples: R is the KB, around the file's facts (a literal object is no entity)."""
    scenario = generate(dbpedia_store, ScenarioSpec(predicate="dbo:team", size=60, transparency=0.5, seed=2))
    lines = ["subject\tpredicate\tobject\tlabel"] + [
        f"{item.fact.s}\t{item.fact.p}\t{item.fact.o}\t{int(item.label)}" for item in scenario.test]
    lines.append('http://dbpedia.org/resource/Nobody\thttp://dbpedia.org/ontology/team\t"1987"\t0')
    labelled = tmp_path / "facts.tsv"
    labelled.write_text("\n".join(lines) + "\n")
    files = read_input(labelled)
    remote = open_store(endpoint=dbpedia_server.query_url, fingerprint=dbpedia_store.fingerprint())
    for name in ("path_features", "degree", "direct_link"):
        expected = run_checker(name, [], files.test, input_reference(files, dbpedia_store), seed=1).scores
        got = run_checker(name, [], files.test, input_reference(files, remote, (2, 1)), seed=1).scores
        assert np.array_equal(expected, got), name


def _without_times(text: str, folder) -> dict:
    result = json.loads(text)
    for run in result["checkers"]:
        run.pop("seconds")
    result["plots"] = [p.replace(str(folder), "") for p in result["plots"]]
    return result


def test_evaluate_command_through_oxigraph_serve(tmp_path, fresh_cache):
    """The demo KB: by default the checkers that need only neighbourhoods run (same JSON as the embedded
    store's) and the whole-KB ones are named as skipped; asked for by name, a whole-KB checker fails with
    the reason and the way out; with --endpoint-copy it runs and scores as on the embedded store."""
    with served_demo_kb(tmp_path) as (local, remote):
        scenario = tmp_path / "scenario"
        factforge("generate", "--store", local, "--predicate", "dbo:birthPlace", "--size", "40", "--train-size", "30",
                  "--transparency", "0.5", "--ambiguous", "random_walk", "--leakage", "pair", "--seed", "5",
                  "--out", scenario, "--format", "jsonl")
        named = [x for name in NEIGHBOURHOOD_CHECKERS for x in ("--checker", name)]
        here = factforge("evaluate", scenario, "--store", local, *named, "--json", "--plots", tmp_path / "a")
        there = factforge("evaluate", scenario, *remote, *named, "--json", "--plots", tmp_path / "b")
        assert _without_times(here.stdout, tmp_path / "a") == _without_times(there.stdout, tmp_path / "b")
        assert [run["checker"] for run in json.loads(there.stdout)["checkers"]] == NEIGHBOURHOOD_CHECKERS
        # the audit's baselines read R the same way
        audited = [factforge("audit", scenario, *kb, "--json", check=False) for kb in (["--store", local], remote)]
        assert audited[0].returncode == audited[1].returncode and audited[0].stdout == audited[1].stdout

        default = factforge("evaluate", scenario, *remote, "--json", "--plots", tmp_path / "c")
        result = json.loads(default.stdout)
        assert [run["checker"] for run in result["checkers"]] == ["path_features"] and not result["failed"]
        assert [item["checker"] for item in result["skipped"]] == ["knowledge_linker", "transe"]
        assert all("--endpoint-copy" in item["reason"] for item in result["skipped"])
        printed = factforge("evaluate", scenario, *remote, "--plots", tmp_path / "c")
        assert "skipped: transe: it trains embeddings on every link of R" in printed.stdout

        refused = factforge("evaluate", scenario, *remote, "--checker", "transe", "--plots", tmp_path / "d",
                            check=False)
        assert refused.returncode == 1 and "transe" in refused.stdout and "--endpoint-copy" in refused.stdout
        assert "Traceback" not in refused.stderr

        whole = ["--checker", "transe", "--checker", "kl", "--json"]
        here = factforge("evaluate", scenario, "--store", local, *whole, "--plots", tmp_path / "e")
        copied = factforge("evaluate", scenario, *remote, "--endpoint-copy", *whole, "--plots", tmp_path / "f")
        assert _without_times(here.stdout, tmp_path / "e") == _without_times(copied.stdout, tmp_path / "f")
        alone = factforge("evaluate", scenario, "--store", local, "--endpoint-copy", check=False)
        assert alone.returncode != 0 and "--endpoint-copy: only with --endpoint" in alone.stderr
