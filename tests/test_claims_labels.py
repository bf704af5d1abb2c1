"""Claims labelled against R on hand-built KBs: FEVER shape, evidence lines, labels, shares, seeds.

The label of every claim is checked against the written dump of R by an oracle that reads the
dump itself (not the code that made the labels): SUPPORTS when the triple is a line of R, REFUTES
when R holds another object of a functional predicate or a disjoint type, NOT ENOUGH INFO when
neither.
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from factforge.claims.build import Options, make_claims
from factforge.claims.labelling import SharesError, parse_shares
from factforge.claims.records import RECORD_KEYS
from factforge.evaluation.labelled import ScenarioFiles

from conftest import store_from_text

EX = "http://example.org/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
N = 6

KB = "\n".join([
    "@prefix ex: <http://example.org/> .",
    "@prefix owl: <http://www.w3.org/2002/07/owl#> .",
    "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
    "ex:capital a owl:FunctionalProperty ; rdfs:range ex:City .",
    "ex:City rdfs:subClassOf ex:Place .",
    "ex:Person owl:disjointWith ex:Place .",
    "ex:Bob a ex:Person .",
    "ex:Lonely ex:visited ex:Bob .",
    *[f"ex:S{i} ex:capital ex:C{i} ; ex:visited ex:C{(i + 2) % N} , ex:C{(i + 3) % N} . ex:C{i} a ex:City ." for i in range(N)],
]) + "\n"


def fact(s, p, o, label):
    return {"subject": EX + s, "predicate": EX + p, "object": EX + o, "label": label}


def records() -> list[dict]:
    facts = [fact(f"S{i}", "capital", f"C{i}", True) for i in range(N)]
    facts += [fact(f"S{i}", "capital", f"C{(i + 1) % N}", False) for i in range(N)]
    facts += [fact(f"S{i}", "visited", f"C{(i + 4) % N}", False) for i in range(3)]
    facts.append(fact("Lonely", "capital", "Bob", False))  # refuted only by Bob's type
    return [dict(r, id=f"r{n:03d}") for n, r in enumerate(facts, 1)]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return store_from_text(tmp_path_factory.mktemp("kb"), "kb.ttl", KB)


def source(items=None) -> ScenarioFiles:
    return ScenarioFiles(Path("hand-built"), {}, items or records(), [], kind="labelled file")


def make(store, out: Path, **options) -> Path:
    items = options.pop("items", None)
    settings = {"langs": ["en"], "shares": parse_shares("1/3,1/3,1/3"), "seed": 0, **options}
    make_claims(store, source(items), Options(**settings), out)
    return out


def read(out: Path):
    lines = (out / "reference.sorted.nt").read_text(encoding="utf-8").splitlines()
    claims = [json.loads(line) for line in (out / "claims.jsonl").read_text(encoding="utf-8").splitlines()]
    answers = json.loads((out / "answers.json").read_text(encoding="utf-8"))["answers"]
    return lines, claims, answers


def parse(line: str) -> tuple[str, str, str]:
    s, p, o = line.rstrip(" .").split(" ", 2)
    return s.strip("<>"), p.strip("<>"), o.strip("<>")


def test_records_have_the_fever_shape_and_no_provenance(store, tmp_path):
    _, claims, answers = read(make(store, tmp_path / "c"))
    assert claims
    for claim in claims:
        assert tuple(claim) == RECORD_KEYS  # nothing else: template, source fact, kind stay in answers
        assert claim["label"] in ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO") and claim["lang"] == "en"
        assert isinstance(claim["evidence"], list) and all(isinstance(group, list) for group in claim["evidence"])
        for group in claim["evidence"]:
            for item in group:
                assert len(item) == 4 and item[0] == claim["id"]
        if claim["label"] == "NOT ENOUGH INFO":
            assert claim["evidence"] == [[[claim["id"], None, None, None]]] and claim["evidence_triples"] == []
            assert claim["verifiable"] == "NOT VERIFIABLE"
        else:
            assert all(isinstance(item[1], int) and isinstance(item[3], int) for g in claim["evidence"] for item in g)
    assert {"template", "kind", "true_in_kb", "fact"} <= set(answers[str(claims[0]["id"])])


def test_every_evidence_line_is_its_triple_in_the_sorted_dump(store, tmp_path):
    lines, claims, _ = read(make(store, tmp_path / "c"))
    assert lines == sorted(lines) and len(set(lines)) == len(lines)
    checked = 0
    for claim in claims:
        for group, triples in zip(claim["evidence"], claim["evidence_triples"]):
            for (_, _, page, line), triple in zip(group, triples):
                assert parse(lines[line]) == (triple["s"], triple["p"], triple["o"])
                assert page == triple["s"]
                checked += 1
    assert checked


def test_labels_are_right_against_the_written_reference(store, tmp_path):
    lines, claims, answers = read(make(store, tmp_path / "c"))
    triples = {parse(line) for line in lines}
    objects = defaultdict(set)
    for s, p, o in triples:
        objects[(s, p)].add(o)
    seen = Counter()
    for claim in claims:
        answer = answers[str(claim["id"])]
        s, p, o = answer["subject"], answer["predicate"], answer["object"]
        contradicted = p == EX + "capital" and (objects[(s, p)] - {o} or (o, RDF_TYPE, EX + "Person") in triples)
        expected = ("SUPPORTS" if (s, p, o) in triples else "REFUTES" if contradicted else "NOT ENOUGH INFO")
        assert claim["label"] == expected, claim
        seen[(claim["label"], answer["true_in_kb"], p.rsplit("/", 1)[1], answer["removed_from_reference"])] += 1
    # every way to a label appears: a kept true fact, a contradicted false one, a true fact taken out
    # of R, and a false fact of a predicate that is not functional
    assert seen[("SUPPORTS", True, "capital", False)]
    assert seen[("REFUTES", False, "capital", False)]
    assert seen[("NOT ENOUGH INFO", True, "capital", True)]


def test_functional_refutes_carries_the_contradicting_triple(store, tmp_path):
    _, claims, answers = read(make(store, tmp_path / "c"))
    refuted = [c for c in claims if c["label"] == "REFUTES" and answers[str(c["id"])]["subject"] != EX + "Lonely"]
    assert refuted
    for claim in refuted:
        answer = answers[str(claim["id"])]
        for group in claim["evidence_triples"]:
            assert [(t["s"], t["p"]) for t in group] == [(answer["subject"], answer["predicate"])]
            assert group[0]["o"] != answer["object"]


def test_a_false_fact_of_a_predicate_that_is_not_functional_is_nei(store, tmp_path):
    """With the shares planned per predicate, visited (R refutes none of its false facts) makes claims
    only when no REFUTES is asked, and its false facts are NOT ENOUGH INFO."""
    visited = [dict(fact(f"S{i}", "visited", f"C{(i + 2) % N}", True), id=f"v{i}") for i in range(3, N)]
    only = [r for r in records() if r["predicate"] == EX + "visited"] + visited
    _, claims, answers = read(make(store, tmp_path / "c", items=only, shares=parse_shares("1/2,0,1/2")))
    labels = defaultdict(set)
    for c in claims:
        answer = answers[str(c["id"])]
        labels[(answer["predicate"].rsplit("/", 1)[1], answer["true_in_kb"])].add(c["label"])
    assert labels[("visited", False)] == {"NOT ENOUGH INFO"}


def test_false_facts_of_a_predicate_without_true_facts_are_left_out(store, tmp_path):
    """All would be NOT ENOUGH INFO (R has nothing of the predicate to refute them), and the predicate's
    wording would say so: FactBench's wrong/property models, in a relation's folder."""
    only = [r for r in records() if r["predicate"] == EX + "visited"] + [records()[0], records()[N]]
    out = make(store, tmp_path / "c", items=only)
    _, claims, answers = read(out)
    assert {answers[str(c["id"])]["predicate"] for c in claims} == {EX + "capital"}
    assert json.loads((out / "manifest.json").read_text())["left_out"]["false_of_a_predicate_without_true_facts"] == 3


def test_a_disjoint_type_refutes_with_the_schema_as_evidence(store, tmp_path):
    lonely = [r for r in records() if r["subject"] == EX + "Lonely"] + [records()[0]]
    _, claims, answers = read(make(store, tmp_path / "c", items=lonely, count=2))
    claim = next(c for c in claims if answers[str(c["id"])]["subject"] == EX + "Lonely")
    assert claim["label"] == "REFUTES"
    (group,) = claim["evidence_triples"]
    assert {(t["s"], t["p"], t["o"]) for t in group} == {
        (EX + "Bob", RDF_TYPE, EX + "Person"), (EX + "capital", "http://www.w3.org/2000/01/rdf-schema#range", EX + "City"),
        (EX + "City", "http://www.w3.org/2000/01/rdf-schema#subClassOf", EX + "Place"),
        (EX + "Person", "http://www.w3.org/2002/07/owl#disjointWith", EX + "Place")}


@pytest.mark.parametrize("shares,count", [("1/3,1/3,1/3", 9), ("1/2,1/4,1/4", 8), ("0.2,0.4,0.4", 10)])
def test_shares_are_exact(store, tmp_path, shares, count):
    _, claims, _ = read(make(store, tmp_path / "c", shares=parse_shares(shares), count=count))
    asked = parse_shares(shares)
    got = Counter(c["label"] for c in claims)
    assert len(claims) == count
    assert [got["SUPPORTS"], got["REFUTES"]] == [round(asked[0] * count), round(asked[1] * count)]


def test_shares_that_cannot_be_met_say_how_many_can(store, tmp_path):
    with pytest.raises(SharesError, match=r"--shares: 40 claims .* at most \d+ can"):
        make(store, tmp_path / "c", count=40)
    with pytest.raises(SharesError, match="--shares: expected three"):
        parse_shares("1,2")


def test_the_garbage_collector_is_paused_while_claims_are_made_and_then_as_it_was(store, tmp_path, monkeypatch):
    """``make_claims`` turns Python's cyclic collector off while it works and back as it was after: on
    after a set, after a failed one, and after the last of overlapping steps (threads); left off when it
    was off. The bytes do not depend on it (``test_same_seed_same_bytes_...``, bench/claims_identity.py)."""
    import gc

    from factforge.claims import build

    seen = []
    audit = build.audit_claims
    monkeypatch.setattr(build, "audit_claims", lambda *args, **kwargs: seen.append(gc.isenabled()) or audit(*args, **kwargs))
    assert gc.isenabled()
    make(store, tmp_path / "a")
    assert seen == [False] and gc.isenabled()
    with pytest.raises(SharesError):
        make(store, tmp_path / "b", count=40)
    assert gc.isenabled()
    with build.collector_paused():
        with build.collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        make(store, tmp_path / "c")
        assert not gc.isenabled() and seen == [False, False]
    finally:
        gc.enable()


def test_a_chinese_set_leaves_none_of_its_frames_to_the_garbage_collector(tmp_path):
    """Importing jieba leaves a reference cycle holding the frames on the stack then (pkg_resources's);
    imported by the audit, deep in the step, it held the step's frames and all their records for the
    collector's next pass. ``make_claims`` imports it first: in a fresh interpreter, after a Chinese
    set, the collector finds no frame of the claims code among what only cycles keep."""
    import subprocess
    import sys

    script = f"""
import gc, sys, types
from pathlib import Path
sys.path.insert(0, {str(Path(__file__).parent)!r})
from conftest import store_from_text
from test_claims_labels import KB, make
store = store_from_text(Path({str(tmp_path)!r}), "kb.ttl", KB)
assert "jieba" not in sys.modules
gc.collect()
gc.set_debug(gc.DEBUG_SAVEALL)
make(store, Path({str(tmp_path / "c")!r}), langs=["en", "zh"])
gc.collect()
assert "jieba" in sys.modules
print(sorted({{f.f_code.co_name for f in gc.garbage if isinstance(f, types.FrameType)
               and "/claims/" in f.f_code.co_filename}}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_same_seed_same_bytes_and_another_seed_another_set(store, tmp_path):
    first, second = make(store, tmp_path / "a", seed=5), make(store, tmp_path / "b", seed=5)
    for name in ("claims.jsonl", "answers.json", "reference.sorted.nt", "manifest.json"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    other = make(store, tmp_path / "c", seed=6)
    assert (other / "claims.jsonl").read_bytes() != (first / "claims.jsonl").read_bytes()



def test_a_plan_secret_changes_the_key_and_the_same_secret_gives_the_same_bytes(store, tmp_path):
    """Whoever holds the KB can compute a key made of its content and replay the plan; a secret of the
    user's own makes another key (in answers.json only), the same secret the same set again, and the
    manifest says a secret was used without holding it."""
    def key(out):
        return json.loads((out / "answers.json").read_text(encoding="utf-8"))["plan_key"]

    plain = make(store, tmp_path / "plain")
    secret = b"not-a-real-secret-but-long-enough"
    first = make(store, tmp_path / "a", plan_secret=secret)
    second = make(store, tmp_path / "b", plan_secret=secret)
    other = make(store, tmp_path / "c", plan_secret=secret + b"!")
    assert len({key(plain), key(first), key(other)}) == 3
    for name in ("claims.jsonl", "answers.json", "reference.sorted.nt", "manifest.json"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    manifest = json.loads((first / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["plan_key"] == {"secret": True, "guessable_bits": None}
    for folder in (first, plain):
        assert secret.decode() not in "".join(p.read_text(encoding="utf-8") for p in folder.iterdir())
    plain_manifest = json.loads((plain / "manifest.json").read_text(encoding="utf-8"))
    nei = sum(c["label"] == "NOT ENOUGH INFO" and c["lang"] == "en" for c in read(plain)[1])
    assert plain_manifest["plan_key"] == {"secret": False, "guessable_bits": nei} and nei > 0

def test_answers_are_one_json_object_with_one_claim_a_line(store, tmp_path):
    """answers.json stays one JSON object (readers parse it whole) but is written a claim a line, in
    claim order, so that large sets go through the C encoder."""
    out = make(store, tmp_path / "c", count=9, negation=1.0)
    text = (out / "answers.json").read_text(encoding="utf-8")
    data = json.loads(text)
    assert list(data) == ["answers", "kb_fingerprint", "plan_key", "scenario", "seed", "software"]
    assert data["kb_fingerprint"] == store.fingerprint() and data["seed"] == 0
    ids = [str(c["id"]) for c in read(out)[1]]
    assert list(data["answers"]) == ids and len(ids) == 9
    lines = text.splitlines()
    assert lines[0] == '{"answers": {' and len(lines) == len(ids) + 7
    for number, line in zip(ids, lines[1:]):
        assert json.loads("{" + line.rstrip(",") + "}") == {number: data["answers"][number]}


@pytest.mark.parametrize("options", [dict(count=9, negation=1.0, langs=["en", "de"]), dict(count=9, conjunction=1.0),
                                     dict(langs=["fr", "zh"])])
def test_the_audited_claims_are_those_the_claims_file_reads_as(store, tmp_path, options):
    """The claims step audits its records in memory as ``as_claims`` makes them, without the checks a
    file's records get: they are the claims ``fever_io.claims_of`` reads from the written file, with
    every label, negated and conjoined claims (two-triple evidence) and NOT ENOUGH INFO's placeholder."""
    from factforge.claims.fever_io import claims_of
    from factforge.claims.records import as_claims

    _, claims, _ = read(make(store, tmp_path / "c", **options))
    assert {c["label"] for c in claims} == {"SUPPORTS", "REFUTES", "NOT ENOUGH INFO"}
    assert as_claims(claims) == claims_of(enumerate(claims, 1), "claims.jsonl")


def test_negated_claims_come_in_symmetric_sets(store, tmp_path):
    _, claims, answers = read(make(store, tmp_path / "c", count=9, negation=1.0))
    negated = Counter(c["label"] for c in claims if answers[str(c["id"])]["kind"] == "negation")
    assert negated == {"SUPPORTS": 3, "REFUTES": 3, "NOT ENOUGH INFO": 3}
    for claim in claims:
        answer = answers[str(claim["id"])]
        assert " not " in claim["claim"]
        flipped = {"SUPPORTS": "REFUTES", "REFUTES": "SUPPORTS"}.get(answer["label_before_negation"], "NOT ENOUGH INFO")
        assert claim["label"] == flipped


def test_negation_takes_all_the_claims_of_a_subject_or_none(store, tmp_path):
    """A subject's true fact in R and its false fact are a SUPPORTS and a REFUTES claim; negating one
    of them alone gives the subject two claims of one label, which an audit that meets the subject
    in another fold learns (the claims audit flagged our own negated claims so)."""
    for seed in range(4):
        _, claims, answers = read(make(store, tmp_path / f"c{seed}", count=12, negation=0.5, seed=seed))
        kinds = defaultdict(set)
        for claim in claims:
            kinds[answers[str(claim["id"])]["subject"]].add(answers[str(claim["id"])]["kind"])
        assert all(len(found) == 1 for found in kinds.values()), (seed, dict(kinds))
        negated = Counter(c["label"] for c in claims if answers[str(c["id"])]["kind"] == "negation")
        assert len(negated) == 3 and len(set(negated.values())) == 1, (seed, negated)


def test_manifest_records_what_the_claims_depend_on(store, tmp_path):
    manifest = json.loads((make(store, tmp_path / "c") / "manifest.json").read_text())
    assert manifest["languages"] == ["en"] and manifest["seed"] == 0 and manifest["kb_fingerprint"] == store.fingerprint()
    assert manifest["functional_predicates"][EX + "capital"]["source"] == "declared owl:FunctionalProperty"
    assert manifest["shares"]["asked"] == ["1/3", "1/3", "1/3"]
    assert set(manifest["files"]) == {"claims.jsonl", "answers.json", "reference.sorted.nt"}


def test_conjunctions_come_in_symmetric_sets_with_both_facts_as_evidence(store, tmp_path):
    lines, claims, answers = read(make(store, tmp_path / "c", count=9, conjunction=1.0))
    triples = {parse(line) for line in lines}
    joined = [c for c in claims if answers[str(c["id"])]["kind"] == "conjunction"]
    per_label = Counter(c["label"] for c in joined)
    assert len(per_label) == 3 and len(set(per_label.values())) == 1
    for claim in joined:
        answer = answers[str(claim["id"])]
        companion = tuple(answer["companion"])
        assert ", and " in claim["claim"] and companion[0] == answer["subject"] and companion[1] != answer["predicate"]
        assert companion in triples  # R holds the second fact, so the first decides the label
        if claim["label"] == "SUPPORTS":
            (group,) = claim["evidence_triples"]
            assert [(t["s"], t["p"], t["o"]) for t in group] == [
                (answer["subject"], answer["predicate"], answer["object"]), companion]


def test_claims_of_one_subject_and_predicate_share_their_wording_whatever_the_label(store, tmp_path):
    _, claims, answers = read(make(store, tmp_path / "c", langs=["en", "de"], count=12))
    wording = defaultdict(set)
    labels = defaultdict(set)
    for claim in claims:
        answer = answers[str(claim["id"])]
        wording[(answer["subject"], answer["predicate"], claim["lang"])].add(answer["template"])
        labels[(answer["subject"], answer["predicate"], claim["lang"])].add(claim["label"])
    assert all(len(templates) == 1 for templates in wording.values())
    assert any(len(found) > 1 for found in labels.values())  # some subject has claims of two labels


def test_a_predicate_without_templates_is_said_with_its_label(tmp_path):
    store = store_from_text(tmp_path, "kb.ttl", """
        @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        <http://ex/mentor> rdfs:label "mentor"@en , "Mentor"@de .
        <http://ex/a> <http://ex/mentor> <http://ex/b> ; rdfs:label "Ann"@en , "Ann"@de .
        <http://ex/b> rdfs:label "Bea"@en , "Bea"@de .
    """)
    items = [{"id": "r1", "subject": "http://ex/a", "predicate": "http://ex/mentor", "object": "http://ex/b", "label": True}]
    out = make(store, tmp_path / "c", items=items, langs=["en", "de"], shares=parse_shares("1,0,0"), count=1)
    claims, answers = read(out)[1:]
    said = {c["lang"]: c["claim"] for c in claims}
    assert said["en"] in ("The mentor of Ann is Bea.", "Ann has Bea as mentor.")
    assert said["de"] in ("Mentor von Ann: Bea.", "Ann hat als Mentor Bea.")
    assert all(a["generic_template"] for a in answers.values())


def test_a_fact_taken_out_of_r_is_not_left_stated_by_its_statement_node(tmp_path):
    """The demo KB states awards again as rdf:Statements, FactBench models through a node with dates:
    without the fact's triple, R would still state it there."""
    store = store_from_text(tmp_path, "kb.ttl", """
        @prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
        @prefix dbo: <http://dbpedia.org/ontology/> .
        @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
        <http://ex/a> dbo:award <http://ex/prize> .
        <http://ex/st1> a rdf:Statement ; rdf:subject <http://ex/a> ; rdf:predicate dbo:award ; rdf:object <http://ex/prize> .
        <http://ex/b> dbo:award <http://ex/medal> ; <http://ex/link> <http://ex/b__1> .
        <http://ex/b__1> dbo:award <http://ex/medal> ; dbo:from "1921"^^xsd:gYear .
    """)
    items = [{"id": f"r{n}", "subject": s, "predicate": "http://dbpedia.org/ontology/award", "object": o, "label": True}
             for n, (s, o) in enumerate((("http://ex/a", "http://ex/prize"), ("http://ex/b", "http://ex/medal")))]
    lines, claims, _ = read(make(store, tmp_path / "c", items=items, shares=parse_shares("0,0,1"), count=2))
    assert [c["label"] for c in claims] == ["NOT ENOUGH INFO"] * 2
    dump = "\n".join(lines)
    assert "<http://ex/prize>" not in dump and "<http://ex/b__1> <http://dbpedia.org/ontology/award>" not in dump
    # The nodes go whole: left with a subject or a link and dates, they would say that a fact of
    # a or b was taken out, as no false fact's subject is told (generators.restatements).
    assert "<http://ex/st1>" not in dump and "<http://ex/b__1>" not in dump
    assert "<http://ex/b> <http://dbpedia.org/ontology/award>" not in dump and "<http://ex/link>" not in dump


def test_a_predicate_r_cannot_contradict_is_an_error_not_a_set_without_refutes(store, tmp_path):
    """``visited`` is neither functional nor typed: R refutes none of its false facts, so shares that
    ask for REFUTES are refused with the reason (it made a set of one NOT ENOUGH INFO claim), and a
    REFUTES share of 0 makes the set."""
    visited = [fact(f"S{i}", "visited", f"C{(i + 2) % N}", True) for i in range(N)]
    visited += [fact(f"S{i}", "visited", f"C{(i + 4) % N}", False) for i in range(N)]
    items = [dict(r, id=f"v{n:03d}") for n, r in enumerate(visited, 1)]
    with pytest.raises(SharesError, match="none of these facts can be REFUTES"):
        make(store, tmp_path / "c", items=items)
    _, claims, _ = read(make(store, tmp_path / "d", items=items, shares=parse_shares("1/2,0,1/2")))
    assert {c["label"] for c in claims} == {"SUPPORTS", "NOT ENOUGH INFO"}


MIXED_KB = "\n".join([
    "@prefix ex: <http://example.org/> .",
    "@prefix owl: <http://www.w3.org/2002/07/owl#> .",
    *[f"ex:S{i} ex:capital ex:C{i} ; ex:leader ex:L{i} ; ex:visited ex:C{(i + 2) % 12} , ex:C{(i + 3) % 12} ." for i in range(12)],
    "ex:capital a owl:FunctionalProperty . ex:leader a owl:FunctionalProperty .",
]) + "\n"


def mixed_items() -> list[dict]:
    facts = []
    for p, objects, n in (("capital", "C", 12), ("leader", "L", 9), ("visited", "C", 12)):
        facts += [fact(f"S{i}", p, f"{objects}{i if p != 'visited' else (i + 2) % 12}", True) for i in range(n)]
        facts += [fact(f"S{i}", p, f"{objects}{(i + 5) % 12}", False) for i in range(n)]
    return [dict(r, id=f"m{n:03d}") for n, r in enumerate(facts, 1)]


@pytest.fixture(scope="module")
def mixed_store(tmp_path_factory):
    return store_from_text(tmp_path_factory.mktemp("mixed"), "kb.ttl", MIXED_KB)


@pytest.mark.parametrize("shares", ["1/3,1/3,1/3", "1/2,1/4,1/4"])
def test_labels_are_planned_per_predicate_and_a_predicate_that_cannot_meet_them_is_left_out(mixed_store, tmp_path,
                                                                                              shares):
    """Two functional predicates and one (visited) that R cannot contradict: the shares hold within each
    predicate up to rounding (planned over all facts at once, capital and leader made every REFUTES and
    visited none, so the predicate told the label), and visited is left out, counted and explained."""
    out = make(mixed_store, tmp_path / "c", items=mixed_items(), shares=parse_shares(shares))
    _, claims, answers = read(out)
    manifest = json.loads((out / "manifest.json").read_text())
    asked = parse_shares(shares)
    by_predicate = defaultdict(Counter)
    for c in claims:
        by_predicate[answers[str(c["id"])]["predicate"]][c["label"]] += 1
    assert sorted(by_predicate) == [EX + "capital", EX + "leader"]
    for predicate, got in by_predicate.items():
        total = sum(got.values())
        for label, share in zip(("SUPPORTS", "REFUTES", "NOT ENOUGH INFO"), asked):
            assert abs(got[label] - share * total) < 1, (predicate, got)
        assert manifest["shares"]["per_predicate"][predicate]["labels"] == {
            label: got[label] for label in ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")}
    left = manifest["shares"]["predicates_left_out"]
    assert list(left) == [EX + "visited"] and left[EX + "visited"]["facts"] == 24
    assert "none of these facts can be REFUTES" in left[EX + "visited"]["reason"]
    assert manifest["shares"]["made"] == dict(Counter(c["label"] for c in claims))


def test_a_claim_count_is_shared_out_over_the_predicates_with_their_shares(mixed_store, tmp_path):
    out = make(mixed_store, tmp_path / "c", items=mixed_items(), count=12)
    _, claims, answers = read(out)
    per = json.loads((out / "manifest.json").read_text())["shares"]["per_predicate"]
    assert len(claims) == 12 and sum(sum(p["labels"].values()) for p in per.values()) == 12
    for predicate, made in per.items():
        got = Counter(c["label"] for c in claims if answers[str(c["id"])]["predicate"] == predicate)
        assert got == {k: v for k, v in made["labels"].items() if v}
        assert max(made["labels"].values()) - min(made["labels"].values()) <= 1, (predicate, made)
    with pytest.raises(SharesError, match=r"--shares: 400 claims .* at most \d+ can"):
        make(mixed_store, tmp_path / "d", items=mixed_items(), count=400)


def test_at_leakage_triple_r_loses_the_same_triples_without_the_predicates_pair_set(store, tmp_path):
    """At leakage ``triple`` a fact's own triple is all R loses, so the claims ask the index about the
    facts' pairs instead of making the set of every pair of their predicate (``positives.kb_pairs``,
    over a million pairs of strings for a frequent predicate of a 10M KB): R and the files are those the
    whole set gives, and the set is left unmade; at leakage ``pair`` it is still made (it reads all of it)."""
    from factforge.claims.build import _pairs_for
    from factforge.generators import positives
    from factforge.generators.facts import Fact
    from factforge.generators.leakage import removed_triples
    from factforge.sparql.adjacency import adjacency

    index = adjacency(store)
    facts = [Fact(r["subject"], r["predicate"], r["object"]) for r in records() if r["predicate"] == EX + "capital"]
    facts.append(Fact(EX + "S1", EX + "capital", EX + "Nowhere"))  # an object the KB does not have
    whole = removed_triples(store, index, facts, "triple", positives.kb_pairs(store, EX + "capital", index=index))
    assert removed_triples(store, index, facts, "triple", _pairs_for(store, index, EX + "capital", facts, "triple")) \
        == whole
    assert {t[0] for t in whole} == {EX + f"S{i}" for i in range(N)}  # the true capitals only

    positives._PAIR_SETS.clear()
    positives._TABLES.clear()
    make(store, tmp_path / "triple", leakage="triple")
    assert not positives._PAIR_SETS
    make(store, tmp_path / "pair", leakage="pair")
    assert positives._PAIR_SETS
