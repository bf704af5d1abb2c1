"""What `generate` and `claims` write through a real `oxigraph serve` when the KB is read by
neighbourhoods: R as what it lacks of the KB (plus the KB's fingerprint), the formats and claims that
need every link refused up front naming --endpoint-copy, and with --endpoint-copy the embedded
store's bytes."""
from __future__ import annotations

import io
import json

import pytest

from conftest import served_demo_kb
from test_cli import assert_clean_error, factforge

from factforge.generators.reference_kb import ReferenceKB
from factforge.sparql.store import open_store

KNOBS = ["--predicate", "dbo:birthPlace", "--size", "30", "--transparency", "0.5", "--ambiguous", "random_walk",
         "--leakage", "pair", "--seed", "4"]


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    """The demo KB behind `oxigraph serve` and in a local store: (local store folder, --endpoint flags)."""
    with served_demo_kb(tmp_path_factory.mktemp("outputs")) as served:
        yield served


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FACTFORGE_CACHE", str(tmp_path / "cache"))


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def test_reference_through_an_endpoint_is_what_r_lacks_of_the_kb(kb, tmp_path):
    local, remote = kb
    factforge("generate", "--store", local, *KNOBS, "--reference", "--out", tmp_path / "here")
    factforge("generate", *remote, *KNOBS, "--reference", "--out", tmp_path / "there")
    assert not (tmp_path / "there" / "reference.nt").exists()
    removed = _lines((tmp_path / "there" / "reference.removed.nt").read_bytes())
    assert removed == sorted(set(removed)) and removed
    with open_store(local, read_only=True) as store:
        whole = io.BytesIO()
        ReferenceKB.of(store).write_ntriples(whole)
    kb_lines = _lines(whole.getvalue())
    # the KB less those lines is the R the embedded store writes, line for line
    assert set(removed) <= set(kb_lines)
    assert [line for line in kb_lines if line not in set(removed)] == \
        _lines((tmp_path / "here" / "reference.nt").read_bytes())
    manifest = json.loads((tmp_path / "there" / "manifest.json").read_text())
    assert manifest["reference"]["file"] == "reference.removed.nt"
    assert manifest["reference"]["kb_fingerprint"] == manifest["kb_fingerprint"] == remote[-1]
    assert manifest["reference"]["removed_triples"] == len(removed)
    assert "reference.removed.nt" in manifest["files"]
    # the data files are the embedded store's all the same
    for name in ("test.tsv", "test.jsonl", "answers.json"):
        assert (tmp_path / "here" / name).read_bytes() == (tmp_path / "there" / name).read_bytes()

    factforge("generate", *remote, "--endpoint-copy", *KNOBS, "--reference", "--out", tmp_path / "copied")
    assert (tmp_path / "copied" / "reference.nt").read_bytes() == (tmp_path / "here" / "reference.nt").read_bytes()


def test_pykeen_through_an_endpoint_needs_the_copy_and_is_refused_before_generating(kb, tmp_path):
    local, remote = kb
    refused = factforge("generate", *remote, *KNOBS, "--format", "tsv,pykeen", "--out", tmp_path / "a", check=False)
    assert_clean_error(refused, "pykeen", "--endpoint-copy")
    assert not (tmp_path / "a").exists()
    factforge("generate", "--store", local, *KNOBS, "--format", "pykeen", "--out", tmp_path / "here")
    factforge("generate", *remote, "--endpoint-copy", *KNOBS, "--format", "pykeen", "--out", tmp_path / "there")
    for name in ("reference.tsv", "test.tsv", "test_labelled.tsv"):
        assert (tmp_path / "here" / "pykeen" / name).read_bytes() == (tmp_path / "there" / "pykeen" / name).read_bytes()


def test_claims_through_an_endpoint_with_or_without_the_copy_are_the_embedded_ones(kb, tmp_path):
    """A copy of the KB and R streamed in full from the endpoint give the embedded claims byte for byte
    (R around the claims, the endpoint default, is compared in test_claims_endpoint.py)."""
    local, remote = kb
    scenario = tmp_path / "scenario"
    factforge("generate", "--store", local, *KNOBS, "--out", scenario)
    factforge("claims", scenario, *remote, "--evidence-lines", "full", "--out", tmp_path / "streamed")
    factforge("claims", scenario, "--store", local, "--out", tmp_path / "here")
    factforge("claims", scenario, *remote, "--endpoint-copy", "--out", tmp_path / "there")
    for name in ("claims.jsonl", "answers.json", "reference.sorted.nt", "manifest.json"):
        assert (tmp_path / "here" / name).read_bytes() == (tmp_path / "there" / name).read_bytes(), name
        assert (tmp_path / "here" / name).read_bytes() == (tmp_path / "streamed" / name).read_bytes(), name
