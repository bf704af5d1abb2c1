"""`factforge claims` and `generate --claims` end to end, on the demo KB, a hand-built KB and FactBench."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from conftest import FACTBENCH, need
from test_demo_kb import DEMO


def factforge(*args, check=True):
    result = subprocess.run([sys.executable, "-m", "factforge", "--quiet", *map(str, args)], capture_output=True,
                            text=True, timeout=600)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def read_claims(folder: Path):
    claims = [json.loads(line) for line in (folder / "claims.jsonl").read_text(encoding="utf-8").splitlines()]
    return claims, json.loads((folder / "answers.json").read_text(encoding="utf-8"))["answers"]


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    store = tmp_path_factory.mktemp("demo") / "store"
    factforge("load", DEMO, "--store", store)
    return store


def test_generate_writes_claims_in_the_asked_languages(demo_store, tmp_path):
    out = tmp_path / "scenario"
    factforge("generate", "--store", demo_store, "--predicate", "dbo:capital", "--size", "40", "--leakage", "pair",
              "--ambiguous", "random_walk", "--seed", "4", "--claims", "--lang", "en,zh", "--negation", "0.5",
              "--out", out)
    claims, answers = read_claims(out / "claims")
    manifest = json.loads((out / "claims" / "manifest.json").read_text())
    assert manifest["seed"] == 4 and manifest["languages"] == ["en", "zh"]
    assert manifest["scenario"] == json.loads((out / "manifest.json").read_text())["scenario"]
    assert Counter(c["lang"] for c in claims) == {"en": 40, "zh": 40}
    zh = [c["claim"] for c in claims if c["lang"] == "zh"]
    assert all("首都" in text and text.endswith("。") for text in zh)
    assert any("美国" in text or "法国" in text or "州" in text for text in zh)  # the demo KB's own zh names
    negated = Counter(c["label"] for c in claims if answers[str(c["id"])]["kind"] == "negation" and c["lang"] == "en")
    assert len(set(negated.values())) == 1 and len(negated) == 3  # as many negated claims of each label


def test_generate_writes_multi_hop_claims_on_the_demo_kb(demo_store, tmp_path):
    out = tmp_path / "scenario"
    factforge("generate", "--store", demo_store, "--predicate", "dbo:birthPlace", "--size", "60", "--seed", "4",
              "--claims", "--lang", "en,zh", "--multi-hop", "0.5", "--out", out)
    claims, answers = read_claims(out / "claims")
    manifest = json.loads((out / "claims" / "manifest.json").read_text())
    lines = (out / "claims" / "reference.sorted.nt").read_text(encoding="utf-8").splitlines()
    paths = [c for c in claims if answers[str(c["id"])]["kind"] == "multi-hop"]
    per_label = manifest["multi_hop"]["per_label"]
    assert per_label > 0 and manifest["claims"]["kinds"]["multi-hop"] == 3 * per_label
    assert Counter(c["label"] for c in paths if c["lang"] == "en") == {
        "SUPPORTS": per_label, "REFUTES": per_label, "NOT ENOUGH INFO": per_label}
    for claim in paths:
        answer = answers[str(claim["id"])]
        middle, q, o = answer["path"]
        assert q in manifest["multi_hop"]["second_hop_predicates"] and middle == answer["object"]
        assert claim["claim"].endswith("。") == (claim["lang"] == "zh")
        # the second hop's template, the middle said as the subject's birthplace
        assert ("的出生地" in claim["claim"]) if claim["lang"] == "zh" else ("birthplace of" in claim["claim"])
        assert answer["template"].endswith("<birthPlace")
        for items in claim["evidence_triples"]:  # one set: both hops, each a line of R
            assert len(items) == 2 and items[0]["s"] == answer["subject"] and items[0]["o"] == items[1]["s"]
            assert items[1]["p"] == q and (items[1]["o"] == o) == (claim["label"] == "SUPPORTS")
            for item in items:
                assert f"<{item['s']}> <{item['p']}> <{item['o']}> ." in lines


def test_claims_refuses_an_unlabelled_entity_when_labels_are_required(tmp_path):
    kb = tmp_path / "kb.ttl"
    kb.write_text('<http://ex/a> <http://ex/p> <http://ex/b> . <http://ex/a> <http://www.w3.org/2000/01/rdf-schema#label> "A"@en .\n'
                  '<http://ex/c> <http://ex/p> <http://ex/d> . <http://ex/c> <http://www.w3.org/2000/01/rdf-schema#label> "C"@en .\n'
                  '<http://ex/b> <http://www.w3.org/2000/01/rdf-schema#label> "B"@en .\n')
    store = tmp_path / "store"
    factforge("load", kb, "--store", store)
    facts = tmp_path / "facts.tsv"
    facts.write_text("Subject\tRelation\tObject\tLabel\n"
                     "http://ex/a\thttp://ex/p\thttp://ex/b\t1\nhttp://ex/c\thttp://ex/p\thttp://ex/d\t1\n"
                     "http://ex/a\thttp://ex/p\thttp://ex/d\t0\n")
    refused = factforge("claims", facts, "--store", store, "--require-labels", "--out", tmp_path / "x", check=False)
    assert refused.returncode == 1 and not (tmp_path / "x").exists()
    assert refused.stderr.count("\n") == 1
    assert refused.stderr.startswith("factforge: error: --require-labels: http://ex/d has no name in 'en'")
    factforge("claims", facts, "--store", store, "--out", tmp_path / "y", "--shares", "1,1,1")
    claims, answers = read_claims(tmp_path / "y")
    assert {a["object"]: a["name_fallback"] for a in answers.values()}["http://ex/d"] == ["object"]
    labelled = tmp_path / "names.tsv"
    labelled.write_text("http://ex/d\ten\tDee\n")
    factforge("claims", facts, "--store", store, "--out", tmp_path / "z", "--require-labels", "--labels", labelled)


def test_generate_names_its_own_flag_when_the_claim_shares_cannot_be_met(demo_store, tmp_path):
    """The claims library names ``--shares``; generate's flag is ``--claim-shares`` (a user told to
    change ``--shares`` would find no such flag). The scenario written before the claims stays."""
    out = tmp_path / "scenario"
    result = factforge("generate", "--store", demo_store, "--predicate", "dbo:capital", "--size", "40",
                       "--seed", "4", "--claims", "--claim-count", "100000", "--out", out, check=False)
    assert result.returncode == 1 and result.stderr.count("\n") == 1, result.stderr
    assert "--claim-shares:" in result.stderr and " --shares" not in result.stderr, result.stderr
    assert (out / "test.tsv").exists() and not (out / "claims").exists()


def test_bad_claims_flags_are_refused_naming_the_flag(demo_store, tmp_path):
    """In process, through the claims parser alone (the one-line printing is main's, checked above)."""
    import argparse

    from factforge.cli.claims import register as add_parser

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    facts = tmp_path / "facts.tsv"
    facts.write_text("Subject\tRelation\tObject\tLabel\nhttp://dbpedia.org/resource/France\t"
                     "http://dbpedia.org/ontology/capital\thttp://dbpedia.org/resource/Paris\t1\n")
    (tmp_path / "short").write_text("  secret \n")  # fewer than 16 bytes besides white space
    for flags, message in ((["--lang", "en,xx"], "--lang: must be one of de, en, fr, zh, got 'xx'"),
                           (["--lang", "en,en"], "--lang: 'en' is listed twice"),
                           (["--lang", ","], "--lang: expected at least one of"),
                           (["--shares", "1,2"], "--shares: expected three"),
                           (["--negation", "2"], "--negation: must be between 0 and 1, got 2"),
                           (["--conjunction", "-1"], "--conjunction: must be between 0 and 1, got -1"),
                           (["--temporal", "1.5"], "--temporal: must be between 0 and 1, got 1.5"),
                           (["--multi-hop", "-0.1"], "--multi-hop: must be between 0 and 1, got -0.1"),
                           (["--leakage", "all"], "--leakage: must be one of triple, inverse, pair"),
                           (["--count", "0"], "--count: must be between 1 and 100000, got 0"),
                           (["--plan-secret", str(tmp_path / "none")], "--plan-secret: cannot read"),
                           (["--plan-secret", str(tmp_path / "short")],
                            f"--plan-secret: {tmp_path / 'short'} holds fewer than 16 bytes")):
        args = parser.parse_args(["claims", str(facts), "--store", str(demo_store), "--out", str(tmp_path / "o"), *flags])
        with pytest.raises(ValueError) as refused:
            args.func(args)
        assert str(refused.value).startswith(message), (flags, str(refused.value))
        assert not (tmp_path / "o").exists()


@pytest.fixture(scope="module")
def factbench_subset(tmp_path_factory):
    """FactBench's birthPlace: the 75 true models, the 75 wrong-range ones and the 75 date-corrupted
    ones, copied into a temporary FactBench folder, and a store of the true models only."""
    root = tmp_path_factory.mktemp("factbench") / "train"
    source = need(FACTBENCH)
    for part in ("correct/birth", "wrong/range/birth", "wrong/date/birth"):
        shutil.copytree(source / part, root / part)
    store = root.parent / "store"
    factforge("load", "--factbench", root, "--correct-only", "--store", store)
    return root, store


def test_factbench_facts_become_claims_in_english_german_and_french(factbench_subset, tmp_path):
    root, store = factbench_subset
    out = tmp_path / "claims"
    made = factforge("claims", root, "--store", store, "--lang", "en,de,fr", "--out", out)
    claims, answers = read_claims(out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert sorted(manifest["audit"]["languages"]) == ["de", "en", "fr"] and manifest["audit"]["seed"] == 0
    assert not manifest["audit"]["flagged"], manifest["audit"]["reasons"]
    assert "\n  claims audit ok: 450 claims" in made.stdout and "same label in" in made.stdout
    by_lang = {lang: [c for c in claims if c["lang"] == lang] for lang in ("en", "de", "fr")}
    assert len(by_lang["en"]) == len(by_lang["de"]) == len(by_lang["fr"]) == manifest["claims"]["per_language"] > 0
    assert Counter(c["label"] for c in by_lang["en"]) == {"SUPPORTS": 50, "REFUTES": 50, "NOT ENOUGH INFO": 50}
    words = {"en": ("born", "birthplace"), "de": ("geboren", "Geburtsort"), "fr": ("né à", "née à", "vu le jour", "naissance")}  # FactBench gives no gender
    for lang, texts in by_lang.items():
        assert all(any(w in c["claim"] for w in words[lang]) for c in texts), lang
    # names from the models' labels in each language, e.g. Henri/Henry, Wien/Vienne/Vienna
    assert len({c["claim"] for c in claims}) == len(claims)
    # a store of the true models lacks the names of the false facts' entities: the models give them
    assert not any(a["name_fallback"] for a in answers.values())
    assert any(a["names"]["object"] == "factbench model" for a in answers.values())
    # the date corruptions (same triple, other years) are left out, and every date would be a year, since
    # the wrong models carry only years (a full date would say "true"); only temporal claims say dates
    assert manifest["left_out"]["false_in_kb"] == 75 and manifest["date_granularities"] == ["year"]
    assert {a["date_granularity"] for a in answers.values()} == {None}


def test_factbench_date_corruptions_become_temporal_claims(factbench_subset, tmp_path):
    root, store = factbench_subset
    out = tmp_path / "claims"
    factforge("claims", root, "--store", store, "--lang", "en,de,fr", "--temporal", "0.6", "--out", out)
    claims, answers = read_claims(out)
    manifest = json.loads((out / "manifest.json").read_text())
    lines = (out / "reference.sorted.nt").read_text(encoding="utf-8").splitlines()
    temporal = [c for c in claims if answers[str(c["id"])]["kind"] == "temporal"]
    per_label = manifest["temporal"]["per_label"]
    assert per_label > 0 and len(temporal) == 3 * 3 * per_label
    assert Counter(c["label"] for c in temporal) == {"SUPPORTS": 3 * per_label, "REFUTES": 3 * per_label,
                                                     "NOT ENOUGH INFO": 3 * per_label}
    assert Counter(c["label"] for c in claims if c["lang"] == "en") == {"SUPPORTS": 50, "REFUTES": 50, "NOT ENOUGH INFO": 50}
    assert manifest["left_out"]["false_in_kb"] == 75 - per_label
    for claim in temporal:
        answer = answers[str(claim["id"])]
        first, last = int(answer["start"][:4]), int((answer["end"] or answer["start"])[:4])
        assert str(first) in claim["claim"] and answer["date_granularity"] == "year"
        if claim["label"] == "REFUTES":  # a date corruption: the triple is in R, with other years
            assert answer["true_in_kb"] is False and answer["kind"] == "temporal"
            (items,) = claim["evidence_triples"]
            fact_line = f"<{answer['subject']}> <{answer['predicate']}> <{answer['object']}> ."
            assert (items[0]["s"], items[0]["p"], items[0]["o"]) == (answer["subject"], answer["predicate"], answer["object"])
            assert fact_line in lines
            years = [int(item["o"][1:5]) for item in items if item["o"].startswith('"')]
            assert years and (max(years) < first or min(years) > last)  # R's span misses the claim's
            for (_, _, _, line), item in zip(claim["evidence"][0], items):
                assert lines[line].startswith(f"<{item['s']}> <{item['p']}> ")
                assert lines[line].endswith(f" {item['o']} .") or lines[line].endswith(f" <{item['o']}> .")


@pytest.mark.parametrize("flags", [
    # default claim settings
    ["--predicate", "dbo:capital", "--size", "120", "--ambiguous", "random_walk", "--leakage", "pair"],
    ["--predicate", "dbo:birthPlace", "--size", "120", "--ambiguous", "random_walk", "--leakage", "pair"],
    # negated claims in two languages: negating one of a subject's true/false pair made its two claims share a label
    ["--predicate", "dbo:birthPlace", "--size", "120", "--ambiguous", "random_walk", "--leakage", "pair",
     "--lang", "en,de", "--negation", "0.3"],
    # Chinese claims: the claims step audits its records in memory, without jieba's tag dictionary
    ["--predicate", "dbo:birthPlace", "--size", "120", "--ambiguous", "random_walk", "--leakage", "pair",
     "--lang", "en,zh", "--conjunction", "0.2"],
    # the demo's awards: 27 claims, whose n-grams and claim-only baseline went with a label by chance at
    # these seeds (SUPPORTS at 18, NOT ENOUGH INFO at 6), before flags asked for three standard errors
    ["--predicate", "dbo:award", "--size", "40", "--seed", "6"],
    ["--predicate", "dbo:award", "--size", "40", "--seed", "18"],
], ids=["capital", "birthPlace", "birthPlace-negated-en-de", "birthPlace-conjoined-en-zh", "award-6", "award-18"])
def test_our_claims_pass_the_claims_audit(demo_store, tmp_path, flags):
    """... and generate --claims audits them itself: the report in the claims manifest (with seed and
    KB fingerprint) is the one `factforge audit` gives, and its summary is printed."""
    out = tmp_path / "scenario"
    made = factforge("generate", "--store", demo_store, *flags, "--claims", "--out", out)
    seed = int(flags[flags.index("--seed") + 1]) if "--seed" in flags else 0
    audited = factforge("audit", out / "claims" / "claims.jsonl", "--answers", out / "claims" / "answers.json",
                        "--json", "--seed", seed, check=False)
    report = json.loads(audited.stdout)
    assert audited.returncode == 0 and not report["flagged"], report["reasons"]
    manifest = json.loads((out / "claims" / "manifest.json").read_text())
    written = manifest["audit"]
    assert manifest["seed"] == written["seed"] == seed and manifest["kb_fingerprint"].startswith("kb-")
    assert written["source"] == {"path": "claims.jsonl", "answers": "answers.json", "format": "fever"}
    assert {**written, "source": None} == {**report, "source": None}
    assert "  claims audit ok: " in made.stdout and "same label in" in made.stdout


def test_a_first_try_makes_claims_and_says_which_shares_it_used(demo_store, tmp_path):
    """``generate --claims`` without shares on a predicate R cannot contradict (the demo KB's award:
    not functional, no disjoint types) was refused ("none of these facts can be REFUTES"). The default
    shares are ``auto``: half SUPPORTS, half NOT ENOUGH INFO there, a third each where R refutes enough
    false facts (capital), printed with the reason and in the manifest; given shares that cannot be met
    still fail."""
    out = tmp_path / "award"
    made = factforge("generate", "--store", demo_store, "--predicate", "dbo:award", "--size", "40", "--seed", "4",
                     "--claims", "--out", out)
    assert "shares asked (S, R, NEI) auto: used 1/2, 0, 1/2 (R refutes none of these false facts)" in made.stdout
    manifest = json.loads((out / "claims" / "manifest.json").read_text())
    assert manifest["shares"]["asked"] == ["auto"] and manifest["shares"]["used"] == ["1/2", "0", "1/2"]
    labels = manifest["claims"]["labels"]
    assert labels["REFUTES"] == 0 and labels["SUPPORTS"] > 0 and abs(labels["SUPPORTS"] - labels["NOT ENOUGH INFO"]) <= 1
    again = factforge("claims", out, "--store", demo_store, "--out", tmp_path / "again")
    assert "auto: used 1/2, 0, 1/2" in again.stdout
    assert (tmp_path / "again" / "claims.jsonl").read_bytes() == (out / "claims" / "claims.jsonl").read_bytes()
    strict = factforge("claims", out, "--store", demo_store, "--shares", "1/3,1/3,1/3", "--out", tmp_path / "x",
                       check=False)
    assert strict.returncode == 1 and strict.stderr.count("\n") == 1, strict.stderr
    assert "--shares: none of these facts can be REFUTES" in strict.stderr
    capital = factforge("generate", "--store", demo_store, "--predicate", "dbo:capital", "--size", "40", "--seed", "4",
                        "--claims", "--out", tmp_path / "capital")
    assert "auto: used 1/3, 1/3, 1/3 (a third each makes " in capital.stdout
    assert json.loads((tmp_path / "capital" / "claims" / "manifest.json").read_text())["shares"]["why"].startswith(
        "a third each makes ")


@pytest.fixture(scope="module")
def dbpedia50_store(tmp_path_factory):
    """DBpedia50 with the DBpedia ontology (whose disjoint classes let R refute some birthPlace facts)."""
    from conftest import DBPEDIA_NT, ONTOLOGY_TTL

    store = tmp_path_factory.mktemp("dbpedia50") / "store"
    factforge("load", need(DBPEDIA_NT), need(ONTOLOGY_TTL), "--store", store)
    return store


def test_multi_hop_claims_on_dbpedia50_where_r_refutes_none_and_why_none_where_a_label_has_no_path(
        dbpedia50_store, tmp_path):
    """DBpedia50's birthPlace leads to places with functional links (largestCity, timeZone, ...), but it
    is not functional itself (0.946 of its subjects have one object): R refutes no path through it.
    With shares 1/2, 0, 1/2 there is no REFUTES claim, and multi-hop, asking as many claims of each of
    the three labels, made none; now as many of each label the predicate has. With a third each (asked:
    auto shares leave REFUTES out here), none can be made, and the manifest and the summary say which label lacks a path."""
    out = tmp_path / "half"
    factforge("generate", "--store", dbpedia50_store, "--predicate", "dbo:birthPlace", "--size", "200", "--claims",
              "--claim-shares", "1/2,0,1/2", "--multi-hop", "0.5", "--out", out)
    claims, answers = read_claims(out / "claims")
    manifest = json.loads((out / "claims" / "manifest.json").read_text())
    paths = [c for c in claims if answers[str(c["id"])]["kind"] == "multi-hop"]
    labels = Counter(c["label"] for c in paths)
    assert labels["SUPPORTS"] == labels["NOT ENOUGH INFO"] == manifest["multi_hop"]["per_label"] > 0, labels
    assert not manifest["audit"]["flagged"], manifest["audit"]["reasons"]
    lines = set((out / "claims" / "reference.sorted.nt").read_text(encoding="utf-8").splitlines())
    for claim in paths:  # labelled by both hops in R
        answer = answers[str(claim["id"])]
        s, p, (_, q, o) = answer["subject"], answer["predicate"], answer["path"]
        middles = {line.split(" ")[2][1:-1] for line in lines if line.startswith(f"<{s}> <{p}> ")}
        held = {m for m in middles if f"<{m}> <{q}> <{o}> ." in lines}
        if claim["label"] == "SUPPORTS":
            assert held and all(len(items) == 2 and items[0]["o"] == items[1]["s"] for items in claim["evidence_triples"])
        else:
            assert not held and claim["evidence_triples"] == []
    third = tmp_path / "third"
    made = factforge("generate", "--store", dbpedia50_store, "--predicate", "dbo:birthPlace", "--size", "200",
                     "--claims", "--claim-shares", "1/3,1/3,1/3", "--multi-hop", "0.5", "--out", third)
    manifest = json.loads((third / "claims" / "manifest.json").read_text())
    hop = manifest["multi_hop"]
    assert hop["per_label"] == 0 and hop["candidates"]["http://dbpedia.org/ontology/birthPlace"]["REFUTES"]["with_path"] == 0
    assert hop["candidates"]["http://dbpedia.org/ontology/birthPlace"]["SUPPORTS"]["with_path"] > 0
    assert "no claim of REFUTES in http://dbpedia.org/ontology/birthPlace" in hop["none_made"]
    assert "  no multi-hop claims: " in made.stdout


def test_evidence_lines_help_says_what_around_holds():
    """The help said only "R around the claims' subjects": the dump holds more (claims/around.py)."""
    help_text = " ".join(factforge("claims", "--help").stdout.split())
    around = help_text[help_text.index("--evidence-lines"):]
    for part in ("subjects", "said objects", "multi-hop", "dates", "rdf:type"):
        assert part in around, part
