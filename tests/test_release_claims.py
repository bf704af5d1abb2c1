"""Releases with claims: the spec's claims knobs, the claims files in the archive, the manifest's record of
languages and shares, and `verify` checking them."""
from __future__ import annotations

import hashlib
import json

import pytest
import requests

from conftest import TEST_TOKEN, job_end
from factforge.publish import releases as lib
from test_releases import SPEC_A, SPEC_B, demo_dir_store, members, rewrite  # noqa: F401 (a fixture)

CLAIMS = {"lang": "en,de", "shares": "1/2,1/4,1/4", "negation": 0.5}
WITH_CLAIMS = {**SPEC_A, "claims": CLAIMS}


@pytest.fixture(scope="module")
def made(demo_kb_store, tmp_path_factory):
    root = tmp_path_factory.mktemp("claims-releases")
    manifest = lib.create_release(demo_kb_store, "c1", [WITH_CLAIMS, SPEC_B], root)
    return root / "c1.tar.gz", manifest


def test_a_release_holds_claims_their_answers_and_the_r_their_evidence_points_into(made):
    archive, manifest = made
    assert lib.verify_release(archive) == []
    with_claims, without = manifest["scenarios"]
    assert "claims" not in without
    recorded = with_claims["claims"]
    assert recorded["languages"] == ["en", "de"] and recorded["shares"]["asked"] == ["1/2", "1/4", "1/4"]
    assert recorded["settings"]["negation"] == 0.5 and recorded["seed"] == SPEC_A["seed"]
    files = members(archive)
    folder = f"c1/{with_claims['id']}/claims"
    records = [json.loads(line) for line in files[f"{folder}/claims.jsonl"].decode().splitlines()]
    assert {r["lang"] for r in records} == {"en", "de"}
    labels = [r["label"] for r in records if r["lang"] == "en"]
    assert labels.count("SUPPORTS") == 2 * labels.count("REFUTES")  # the shares asked, exactly
    for record in records:  # provenance is the answers', never the claims'
        assert set(record) == {"id", "claim", "lang", "label", "verifiable", "evidence", "evidence_triples"}
    answers = json.loads(files[f"{folder}/answers.json"])["answers"]
    assert set(answers) == {str(r["id"]) for r in records}
    lines = files[f"{folder}/reference.sorted.nt"].decode().splitlines()
    resolved = 0
    for record in records:
        for items, triples in zip(record["evidence"], record["evidence_triples"]):
            for (_a, _e, page, line), triple in zip(items, triples):
                assert page == triple["s"] and lines[line] == f"<{triple['s']}> <{triple['p']}> <{triple['o']}> ."
                resolved += 1
    assert resolved > 0
    assert "claims.jsonl" in files["c1/README.md"].decode()


def test_the_same_specs_give_the_same_archive(made, demo_kb_store, tmp_path):
    archive, _manifest = made
    lib.create_release(demo_kb_store, "c1", [WITH_CLAIMS, SPEC_B], tmp_path)
    assert (tmp_path / "c1.tar.gz").read_bytes() == archive.read_bytes()


def _relisted(name: str, data: bytes, changed: dict[str, bytes]) -> bytes:
    """The release manifest with the new sha256 of the members changed, so only the claims check can tell."""
    if name.count("/") == 1 and name.endswith("/manifest.json"):
        manifest = json.loads(data)
        for member, new in changed.items():
            manifest["files"][member.split("/", 1)[1]] = hashlib.sha256(new).hexdigest()
        return (json.dumps(manifest, indent=1) + "\n").encode()
    return changed.get(name, data)


def test_verify_finds_claims_whose_languages_differ_from_the_record(made, tmp_path):
    archive, manifest = made
    copy = tmp_path / "c1.tar.gz"
    copy.write_bytes(archive.read_bytes())
    name = f"c1/{manifest['scenarios'][0]['id']}/claims/manifest.json"
    own = json.loads(members(archive)[name])
    own["languages"] = ["en", "fr"]
    changed = {name: json.dumps(own).encode()}
    rewrite(copy, lambda member, data: _relisted(member, data, changed))
    problems = lib.verify_release(copy)
    assert len(problems) == 1 and "languages" in problems[0] and name in problems[0], problems


def _verify_with_claims_record_changed(made, tmp_path, change) -> list[str]:
    """Verify a copy of the release whose manifest's claims record of the first scenario went through
    ``change`` (the archive's files untouched)."""
    archive, _manifest = made
    copy = tmp_path / "c1.tar.gz"
    copy.write_bytes(archive.read_bytes())

    def changed(member: str, data: bytes) -> bytes:
        if member == "c1/manifest.json":
            manifest = json.loads(data)
            change(manifest["scenarios"][0]["claims"])
            return json.dumps(manifest).encode()
        return data

    rewrite(copy, changed)
    return lib.verify_release(copy)


def test_verify_finds_a_release_manifest_whose_shares_were_changed(made, tmp_path):
    def change(claims: dict) -> None:
        claims["shares"]["asked"] = ["1/3", "1/3", "1/3"]

    problems = _verify_with_claims_record_changed(made, tmp_path, change)
    assert len(problems) == 1 and "shares" in problems[0], problems


def test_an_archive_whose_manifest_predates_claim_counts_and_audit_still_verifies(made, tmp_path):
    def older(claims: dict) -> None:
        for key in lib.ADDED_LATER:
            del claims[key]

    assert _verify_with_claims_record_changed(made, tmp_path, older) == []


def test_verify_finds_missing_claims_files(made, tmp_path):
    archive, manifest = made
    copy = tmp_path / "c1.tar.gz"
    copy.write_bytes(archive.read_bytes())
    gone = f"c1/{manifest['scenarios'][0]['id']}/claims/manifest.json"
    rewrite(copy, lambda member, data: None if member == gone else data)
    problems = lib.verify_release(copy)
    assert any(gone in p and "missing" in p for p in problems), problems


@pytest.mark.parametrize("claims, field, words", [
    ({"lang": "en,xx"}, "specs[0].claims.lang", "must be one of"),
    ({"sarcasm": 0.2}, "specs[0].claims.sarcasm", "unknown claims knob"),
    ({"negation": 2}, "specs[0].claims.negation", "between 0 and 1"),
    ("en", "specs[0].claims", "expected an object of claims knobs"),
    ({"count": 500}, "specs[0].claims", "at most"),
])
def test_bad_claims_in_a_spec_are_refused_naming_the_field(demo_kb_store, tmp_path, claims, field, words):
    with pytest.raises(lib.ReleaseError) as refused:
        lib.create_release(demo_kb_store, "bad", [{**SPEC_A, "claims": claims}], tmp_path)
    assert refused.value.field == field and words in str(refused.value), str(refused.value)
    assert not (tmp_path / "bad.tar.gz").exists()


def test_claims_need_a_format_they_can_be_read_from(demo_kb_store, tmp_path):
    with pytest.raises(lib.ReleaseError) as refused:
        lib.create_release(demo_kb_store, "json", [WITH_CLAIMS], tmp_path, formats=["json"])
    assert refused.value.field == "formats"


def test_a_release_posted_over_http_includes_its_claims(demo_http):
    auth = {"Authorization": f"Bearer {TEST_TOKEN}"}
    bad = requests.post(f"{demo_http}/api/releases", json={"name": "hc0", "specs": [{**SPEC_A, "claims": {"lang": "x"}}]},
                        headers=auth, timeout=60)
    assert bad.status_code == 422 and bad.json()["field"] == "specs[0].claims.lang"
    response = requests.post(f"{demo_http}/api/releases", json={"name": "hc1", "specs": [WITH_CLAIMS]}, headers=auth,
                             timeout=120)
    assert response.status_code in (201, 202), response.text
    if response.status_code == 202:
        assert job_end(demo_http, response)["status"] == "done"
    manifest = requests.get(f"{demo_http}/api/releases/hc1", timeout=30).json()
    assert manifest["scenarios"][0]["claims"]["languages"] == ["en", "de"]


def _with_hashes_remade(archive, changed: dict[str, bytes]) -> dict[str, bytes]:
    """``changed`` plus the claims and release manifests relisting the changed files' sha256, so that
    only resolving the evidence lines can tell the archive was tampered with."""
    files = members(archive)
    out = dict(changed)
    release = json.loads(files["c1/manifest.json"])
    for name, data in changed.items():
        folder, file = name.rsplit("/", 1)
        own_name = f"{folder}/manifest.json"
        own = json.loads(out.get(own_name, files[own_name]))
        own["files"][file] = hashlib.sha256(data).hexdigest()
        out[own_name] = json.dumps(own).encode()
        scenario_id = folder.split("/")[1]
        item = next(s for s in release["scenarios"] if s["id"] == scenario_id)
        item["claims"]["files"][file] = own["files"][file]
    for name, data in out.items():
        release["files"][name.split("/", 1)[1]] = hashlib.sha256(data).hexdigest()
    out["c1/manifest.json"] = json.dumps(release).encode()
    return out


def _supported(archive, folder: str) -> list[dict]:
    records = [json.loads(line) for line in members(archive)[f"{folder}/claims.jsonl"].decode().splitlines()]
    return [r for r in records if r["label"] == "SUPPORTS"]


def test_verify_resolves_evidence_lines_and_names_the_claim_whose_r_line_was_changed(made, tmp_path):
    archive, manifest = made
    folder = f"c1/{manifest['scenarios'][0]['id']}/claims"
    record = _supported(archive, folder)[0]
    line = record["evidence"][0][0][3]
    lines = members(archive)[f"{folder}/reference.sorted.nt"].decode().splitlines(keepends=True)
    lines[line] = lines[line].replace(f"<{record['evidence_triples'][0][0]['o']}>", "<http://example.org/Elsewhere>")
    records = [json.loads(text) for text in members(archive)[f"{folder}/claims.jsonl"].decode().splitlines()]
    citing = [r["id"] for r in records if any(item[3] == line for group in r["evidence"] for item in group)]
    copy = tmp_path / "c1.tar.gz"
    copy.write_bytes(archive.read_bytes())
    changed = _with_hashes_remade(archive, {f"{folder}/reference.sorted.nt": "".join(lines).encode()})
    rewrite(copy, lambda member, data: changed.get(member, data))
    problems = lib.verify_release(copy)
    assert problems and all(f"line {line} " in p for p in problems), problems
    assert {int(p.split("claim ", 1)[1].split()[0]) for p in problems} == set(citing), problems
    assert lib.verify_release(archive) == []  # the untouched archive resolves


def test_verify_names_the_claim_whose_evidence_line_points_elsewhere(made, tmp_path):
    archive, manifest = made
    folder = f"c1/{manifest['scenarios'][0]['id']}/claims"
    victim = _supported(archive, folder)[1]
    text = members(archive)[f"{folder}/claims.jsonl"].decode().splitlines(keepends=True)
    records = [json.loads(line) for line in text]
    at = next(i for i, r in enumerate(records) if r["id"] == victim["id"] and r["lang"] == victim["lang"])
    records[at]["evidence"][0][0][3] += 1
    text[at] = json.dumps(records[at], ensure_ascii=False) + "\n"
    copy = tmp_path / "c1.tar.gz"
    copy.write_bytes(archive.read_bytes())
    changed = _with_hashes_remade(archive, {f"{folder}/claims.jsonl": "".join(text).encode()})
    rewrite(copy, lambda member, data: changed.get(member, data))
    problems = lib.verify_release(copy)
    assert len(problems) == 1 and f"claim {victim['id']} " in problems[0] and "claims.jsonl" in problems[0], problems


def test_cli_create_prints_the_claims_and_the_manifest_records_counts_and_audit(demo_dir_store, tmp_path, capsys,
                                                                               monkeypatch):
    from factforge.cli.main import main

    spec_file = tmp_path / "specs.json"
    spec_file.write_text(json.dumps([WITH_CLAIMS, SPEC_B]))
    monkeypatch.setenv("FACTFORGE_RELEASES", str(tmp_path / "rel"))
    assert main(["--quiet", "release", "create", "cli1", "--spec", str(spec_file), "--store", str(demo_dir_store)]) == 0
    out = capsys.readouterr().out
    archive = tmp_path / "rel" / "cli1.tar.gz"
    manifest = lib.read_manifest(archive)
    with_claims, without = manifest["scenarios"]
    own = json.loads(members(archive)[f"cli1/{with_claims['id']}/claims/manifest.json"])
    recorded = with_claims["claims"]
    assert recorded["counts"] == {"per_language": own["claims"]["per_language"], "total": own["claims"]["total"]}
    assert recorded["audit"] == {"flagged": own["audit"]["flagged"], "reasons": own["audit"]["reasons"]}
    counted = own["claims"]["labels"]
    labels = ", ".join(f"{label} {counted[label]}" for label in ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO"))
    assert (f"    {own['claims']['per_language']} claims per language ({labels}) in en, de: "
            f"{own['claims']['total']} records in {with_claims['id']}/claims/") in out
    assert "      shares asked (S, R, NEI) 1/2, 1/4, 1/4" in out
    verdict = "FLAGGED" if own["audit"]["flagged"] else "ok"
    assert f"      claims audit {verdict}: {own['claims']['total']} claims" in out and "same label in" in out
    assert out.count("claims per language") == 1  # the scenario without claims prints none
    assert main(["release", "verify", str(archive)]) == 0
    assert "evidence lines" in capsys.readouterr().out
