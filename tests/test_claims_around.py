"""`--evidence-lines around` ships a part of R beside the claims: which part must follow from what the
system under test reads of each claim (its subject, predicate, said object, second hop, dates, kind)
and never from its label, or the file's contents alone would tell a labelled claim from a NOT ENOUGH
INFO one. Each test recomputes that part from R in full (the `full` dump of the same claims) and the
claims' label-free fields, and asks for exactly it."""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from pyoxigraph import Literal, RdfFormat, parse

from conftest import served_demo_kb

from factforge.claims.build import Options, make_claims
from factforge.claims.labelling import AUTO, parse_shares
from factforge.evaluation.labelled import ScenarioFiles
from factforge.generators.scenario import generate
from factforge.generators.spec import ScenarioSpec
from factforge.sparql.demo_kb import demo_store
from factforge.sparql.store import open_store
from factforge.sparql.terms import PREFIXES, iri, is_schema_predicate

from test_claims_endpoint import assert_lines_name_the_evidence, assert_same_files

RDF, RDFS, OWL, DBO = PREFIXES["rdf"], PREFIXES["rdfs"], PREFIXES["owl"], "http://dbpedia.org/ontology/"
TYPE, SUBCLASS, DISJOINT = RDF + "type", RDFS + "subClassOf", OWL + "disjointWith"
DATES = {DBO + "startYear", DBO + "endYear", DBO + "from", DBO + "to"}
# what a claim's text says, as answers.json spells it; its labels and provenance are not read
SAID = ("subject", "predicate", "object", "kind", "path", "start", "end")


def triples_of(folder: Path) -> set[tuple[str, str, str]]:
    """The dump's triples, a literal object in its N-Triples form (as the evidence holds dates)."""
    with open(folder / "reference.sorted.nt", "rb") as dump:
        return {(t.subject.value, t.predicate.value, str(t.object) if isinstance(t.object, Literal) else t.object.value)
                for t in parse(dump, format=RdfFormat.N_TRIPLES)}


def said_of(folder: Path) -> list[dict]:
    answers = json.loads((folder / "answers.json").read_text(encoding="utf-8"))["answers"]
    return [{key: answer[key] for key in SAID} for answer in answers.values()]


def label_free_part(r: set, claims: list[dict]) -> set:
    """The triples of R that the claims' said fields single out: every entity link with a claim's
    subject at either end; where R has disjoint classes, the types of the subjects and the said
    objects, the domains and ranges of the claims' predicates and the class hierarchy above all
    those classes with the disjointness between them; for a multi-hop claim s -p-> ? -q-> o, the
    q-links of every p-object R gives s; for a temporal claim, the statement nodes R ties to its
    triple, whole."""
    out, subject_of = defaultdict(set), defaultdict(set)
    for s, p, o in r:
        out[s].add((p, o))
        subject_of[(p, o)].add(s)
    subjects = {c["subject"] for c in claims}
    part = {t for t in r if (t[0] in subjects or t[2] in subjects) and not is_schema_predicate(t[1])
            and not t[2].startswith('"')}
    if any(p == DISJOINT for _, p, _ in r):
        typed = subjects | {c["path"][2] if c["path"] else c["object"] for c in claims}
        types = {(e, TYPE, cls) for e in typed for p, cls in out[e] if p == TYPE}
        declared = {(p, q, cls) for p in {c["predicate"] for c in claims} for q, cls in out[p]
                    if q in (RDFS + "domain", RDFS + "range")}
        part |= types | declared
        classes = {cls for _, _, cls in types | declared}
        frontier = set(classes)
        while frontier:
            above = {parent for c in frontier for p, parent in out[c] if p == SUBCLASS} - classes
            classes |= above
            frontier = above
        part |= {(c, SUBCLASS, parent) for c in classes for p, parent in out[c] if p == SUBCLASS and parent != c}
        part |= {(a, DISJOINT, b) for a in classes for p, b in out[a] if p == DISJOINT and b in classes}
    for c in claims:
        s, p = c["subject"], c["predicate"]
        if c["kind"] == "multi-hop":
            q = c["path"][1]
            part |= {(m, q, x) for _, m in out[s] if (s, p, m) in r for q2, x in out[m] if q2 == q}
        if c["kind"] == "temporal":
            nodes = subject_of[(RDF + "subject", s)] & subject_of[(RDF + "predicate", p)] & subject_of[(RDF + "object", c["object"])]
            for node in nodes:
                part |= {(node, q, x) for q, x in out[node] if q in (RDF + "subject", RDF + "predicate", RDF + "object")}
                part |= {(node, q, x) for q, x in out[node] if q in DATES}
            for link, node in out[s]:
                if (node, p, c["object"]) in r and any(q in DATES for q, _ in out[node]):
                    part |= {(s, link, node), (node, p, c["object"])}
                    part |= {(node, q, x) for q, x in out[node] if q in DATES}
    return part


def assert_around_is_label_free(around: Path, full: Path) -> None:
    r, shipped = triples_of(full), triples_of(around)
    assert shipped <= r
    expected = label_free_part(r, said_of(around))
    assert sorted(shipped - expected)[:5] == [], "lines there only because of a claim's label"
    assert sorted(expected - shipped)[:5] == [], "lines the claims' said fields single out, left out"


def claims_both_ways(store, source, options: dict, folder: Path) -> tuple[Path, Path]:
    for scope in ("around", "full"):
        make_claims(store, source, Options(**options, evidence_lines=scope), folder / scope)
    return folder / "around", folder / "full"


def scenario_source(store, folder: Path, knobs: dict) -> ScenarioFiles:
    scenario = generate(store, ScenarioSpec.from_dict(knobs))
    test = [{"id": i.id, "subject": i.fact.s, "predicate": i.fact.p, "object": i.fact.o, "start": i.fact.start,
             "end": i.fact.end, "label": i.label} for i in scenario.test]
    return ScenarioFiles(folder / "scenario", {"scenario": scenario.id}, test, [], scenario.answers)


KINDS = dict(negation=0.2, conjunction=0.3, multi_hop=0.3)


def test_demo_kb_around_holds_what_the_claims_say_whatever_their_labels(tmp_path):
    store = demo_store()
    source = scenario_source(store, tmp_path, dict(predicate="dbo:birthPlace", size=60, transparency=0.5,
                                                   ambiguous="random_walk", leakage="pair", seed=4))
    around, full = claims_both_ways(store, source, dict(langs=["en"], shares=AUTO, seed=4, leakage="pair", **KINDS),
                                    tmp_path)
    kinds = json.loads((around / "manifest.json").read_text())["claims"]["kinds"]
    assert kinds["multi-hop"] and kinds["conjunction"] and kinds["negation"]
    assert_around_is_label_free(around, full)


@pytest.mark.parametrize("predicate", ["dbo:deathPlace", "dbo:birthPlace"])
def test_dbpedia50_around_holds_what_the_claims_say_whatever_their_labels(predicate, dbpedia_store, tmp_path):
    """DBpedia's ontology has disjoint classes: REFUTES claims' evidence runs up the class hierarchy
    (deathPlace's false facts), and the hierarchy above every claim's classes is in the file, not
    only above refuted ones; a multi-hop claim's unsaid middle is not typed (birthPlace's paths)."""
    source = scenario_source(dbpedia_store, tmp_path, dict(predicate=predicate, size=150, transparency=0.5,
                                                           ambiguous="random_walk", leakage="pair", seed=0))
    around, full = claims_both_ways(dbpedia_store, source, dict(langs=["en"], shares=AUTO, seed=0, leakage="pair",
                                                                **KINDS), tmp_path)
    manifest = json.loads((around / "manifest.json").read_text())
    assert manifest["disjoint_class_pairs"] and manifest["claims"]["kinds"]["conjunction"]
    records = [json.loads(line) for line in (around / "claims.jsonl").read_text().splitlines()]
    refuted_by_types = [c for c in records if any(t["p"] == DISJOINT for group in c["evidence_triples"] for t in group)]
    assert refuted_by_types if predicate == "dbo:deathPlace" else manifest["claims"]["kinds"]["multi-hop"]
    assert_around_is_label_free(around, full)


def dated_spouses(store) -> list[dict]:
    """Each dated marriage of the demo KB three times: as it is, with the next couple's spouse (which
    R refutes: a spouse is one) and with years none of R's meet (which R's dates refute)."""
    spouse = DBO + "spouse"
    dated = sorted({(row["s"].value, row["o"].value, row["start"].value, row["end"].value)
                    for row in store.select("fact_dates", predicate=iri(spouse))})
    facts = [(s, o, start, end, True) for s, o, start, end in dated]
    facts += [(s, dated[(n + 2) % len(dated)][1], start, end, False) for n, (s, _, start, end) in enumerate(dated)]
    facts += [(s, o, "1700", "1701", False) for s, o, _, _ in dated]
    return [{"id": f"m{n:03d}", "subject": s, "predicate": spouse, "object": o, "start": start, "end": end,
             "label": truth} for n, (s, o, start, end, truth) in enumerate(facts, 1)]


def test_temporal_claims_through_an_endpoint_are_the_embedded_ones_and_leak_no_label(tmp_path):
    """Temporal claims through `oxigraph serve` (no copy): the same bytes as over the local store, each
    label among them, and the date statements in the file are those of every temporal claim's triple."""
    with served_demo_kb(tmp_path) as (local, flags):
        remote = open_store(endpoint=flags[1], fingerprint=flags[-1])
        here = open_store(local)
        source = ScenarioFiles(Path("hand-built"), {}, dated_spouses(here), [], kind="labelled file")
        options = dict(langs=["en", "de"], shares=parse_shares("1/3,1/3,1/3"), seed=2, temporal=1.0)
        make_claims(remote, source, Options(**options), tmp_path / "there")
        around, full = claims_both_ways(here, source, options, tmp_path)
    assert_same_files(around, tmp_path / "there")
    manifest = json.loads((around / "manifest.json").read_text())
    assert manifest["reference"]["scope"] == "around" and manifest["temporal"]["per_label"] > 0
    dated = [c for c in said_of(around) if c["kind"] == "temporal"]
    assert len(dated) == 3 * 2 * manifest["temporal"]["per_label"]
    assert any(t[1] == DBO + "startYear" for t in triples_of(around))
    assert assert_lines_name_the_evidence(around) > 0
    assert_around_is_label_free(around, full)
