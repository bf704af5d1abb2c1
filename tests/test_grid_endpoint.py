"""`grid` through a real `oxigraph serve` without copying the KB: each cell's scenario is made from
neighbourhoods and scored over R around its facts, exactly as over the embedded store; the cells
that need the whole KB (homogeneity > 0, Knowledge Linker, TransE) say so."""
from __future__ import annotations

import json

from conftest import SparqlProxy
from test_cli import factforge

from factforge.evaluation.grid import run_grid
from factforge.sparql.adjacency import build
from factforge.sparql.store import open_store

CHECKERS = ["path_features", "degree", "direct_link", "type"]
SPEC = dict(predicate="dbo:birthPlace", size=40, train_size=40, ambiguous="random_walk", leakage="pair", seed=3)


def _without_times(result: dict) -> list[dict]:
    return [{**cell, "checkers": {name: {k: v for k, v in run.items() if k != "seconds"}
                                  for name, run in cell.get("checkers", {}).items()}} for cell in result["cells"]]


def test_grid_through_oxigraph_serve_scores_as_the_embedded_store_from_neighbourhoods(dbpedia_server, dbpedia_store):
    remote = open_store(endpoint=dbpedia_server.query_url, fingerprint=dbpedia_store.fingerprint())
    there = run_grid(remote, SPEC, transparencies=(1.0, 0.0), homogeneities=(0.0, 1.0), checkers=CHECKERS)
    here = run_grid(dbpedia_store, SPEC, transparencies=(1.0, 0.0), homogeneities=(0.0,), checkers=CHECKERS)
    made = [cell for cell in _without_times(there) if cell["homogeneity"] == 0.0]
    assert made == _without_times(here) and all(cell["checkers"] for cell in made)
    clustered = [cell for cell in there["cells"] if cell["homogeneity"] == 1.0]
    assert len(clustered) == 2 and all("--endpoint-copy" in cell["error"] for cell in clustered)
    # two scenarios and their R (with the profiles): neighbourhoods, fewer rows than the KB's links,
    # every one of which the old R copied
    assert remote.rows_read < len(build(dbpedia_store).src)


def test_grid_command_through_an_endpoint_skips_or_refuses_the_whole_kb_checkers(dbpedia_server, dbpedia_store,
                                                                                  tmp_path):
    proxy = SparqlProxy(dbpedia_server.query_url)
    try:
        remote = ["--endpoint", proxy.url, "--endpoint-fingerprint", dbpedia_store.fingerprint()]
        grid = ["grid", "--predicate", "dbo:birthPlace", "--size", "40", "--train-size", "40", "--transparency",
                "0.5", "--homogeneity", "0", "--seed", "3"]
        done = factforge(*grid, *remote, "--out", tmp_path / "grid")
        assert "skipped: knowledge_linker:" in done.stdout and "skipped: transe:" in done.stdout
        result = json.loads((tmp_path / "grid" / "grid.json").read_text())
        assert result["checkers"] == ["path_features"]
        assert [item["checker"] for item in result["skipped"]] == ["knowledge_linker", "transe"]
        assert isinstance(result["matrix"]["path_features"][0][0], float)
        assert proxy.rows < len(build(dbpedia_store).src)  # the old R alone copied every link

        refused = factforge(*grid, *remote, "--checker", "transe", "--out", tmp_path / "refused", check=False)
        lines = refused.stderr.strip().splitlines()
        assert refused.returncode != 0 and len(lines) == 1 and "Traceback" not in refused.stderr
        assert "--checker: transe" in lines[0] and "--endpoint-copy" in lines[0]
    finally:
        proxy.close()
