"""Temporal and multi-hop claims on hand-built KBs, each label checked by an oracle that reads the
written dump of R (not the code that made the labels)."""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from pyoxigraph import Literal, RdfFormat, parse

from factforge.claims.build import Options, make_claims
from factforge.claims.labelling import parse_shares
from factforge.evaluation.labelled import ScenarioFiles

from conftest import store_from_text

EX = "http://example.org/"
DBO = "http://dbpedia.org/ontology/"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
N = 12

PREFIXES = ["@prefix ex: <http://example.org/> .", "@prefix dbo: <http://dbpedia.org/ontology/> .",
            "@prefix owl: <http://www.w3.org/2002/07/owl#> .", "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
            "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .",
            "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> ."]


def dates(i: int) -> tuple[str, str]:
    """Even marriages are rdf:Statements with years, odd ones FactBench-style nodes with full dates."""
    return (f"{1950 + i}", f"{1960 + i}") if i % 2 == 0 else (f"{1950 + i}-05-01", f"{1960 + i}-03-02")


def dated_kb() -> str:
    lines = [*PREFIXES, "ex:spouse a owl:FunctionalProperty ."]
    for i in range(N):
        start, end = dates(i)
        kind = "gYear" if i % 2 == 0 else "date"
        lines.append(f'ex:P{i} ex:spouse ex:Q{i} ; rdfs:label "P{i}"@en, "P{i}"@de . ex:Q{i} rdfs:label "Q{i}"@en, "Q{i}"@de .')
        if i % 2 == 0:
            lines.append(f'ex:st{i} a rdf:Statement ; rdf:subject ex:P{i} ; rdf:predicate ex:spouse ; rdf:object ex:Q{i} ; '
                         f'dbo:startYear "{start}"^^xsd:{kind} ; dbo:endYear "{end}"^^xsd:{kind} .')
        else:
            lines.append(f'ex:P{i} ex:marriage ex:n{i} . ex:n{i} ex:spouse ex:Q{i} ; '
                         f'dbo:from "{start}"^^xsd:{kind} ; dbo:to "{end}"^^xsd:{kind} .')
    return "\n".join(lines) + "\n"


def fact(s, p, o, label, start=None, end=None):
    return {"subject": EX + s, "predicate": EX + p, "object": EX + o, "label": label, "start": start, "end": end}


def dated_facts() -> list[dict]:
    facts = [fact(f"P{i}", "spouse", f"Q{i}", True, *dates(i)) for i in range(N)]
    facts += [fact(f"P{i}", "spouse", f"Q{(i + 1) % N}", False, *dates(i)) for i in range(N)]  # refuted by the spouse
    facts += [fact(f"P{i}", "spouse", f"Q{i}", False, "1900", "1910") for i in range(N)]  # disjoint: refuted by dates
    facts += [fact(f"P{i}", "spouse", f"Q{i}", False, f"{1955 + i}", f"{1970 + i}") for i in range(4)]  # overlapping
    return [dict(r, id=f"r{n:03d}") for n, r in enumerate(facts, 1)]


def make(store, items, out: Path, **options) -> Path:
    settings = {"langs": ["en"], "shares": parse_shares("1/3,1/3,1/3"), "seed": 0, **options}
    make_claims(store, ScenarioFiles(Path("hand-built"), {}, items, [], kind="labelled file"), Options(**settings), out)
    return out


def read(out: Path):
    """(the dump's triples in line order, objects as N-Triples text; claims; answers)."""
    with open(out / "reference.sorted.nt", "rb") as dump:
        triples = [(t.subject.value, t.predicate.value, str(t.object) if isinstance(t.object, Literal) else t.object.value)
                   for t in parse(dump, format=RdfFormat.N_TRIPLES)]
    claims = [json.loads(line) for line in (out / "claims.jsonl").read_text(encoding="utf-8").splitlines()]
    answers = json.loads((out / "answers.json").read_text(encoding="utf-8"))["answers"]
    return triples, claims, answers


def spans_in(triples, s, p, o) -> list[tuple[str, str]]:
    """The (start, end) of every statement node the dump ties to (s, p, o), by either shape."""
    by_subject = defaultdict(dict)
    for a, b, c in triples:
        by_subject[a].setdefault(b, set()).add(c)
    nodes = [st for st, props in by_subject.items()
             if props.get(RDF + "subject") == {s} and props.get(RDF + "predicate") == {p} and props.get(RDF + "object") == {o}]
    nodes += [st for a, _, st in triples if a == s and o in by_subject.get(st, {}).get(p, ())]
    found = []
    for st in nodes:
        props = by_subject[st]
        start = (props.get(DBO + "startYear") or props.get(DBO + "from") or {None}).pop()
        end = (props.get(DBO + "endYear") or props.get(DBO + "to") or {start}).pop()
        if start:
            found.append((start.split('"')[1], end.split('"')[1]))
    return found


def year_span(start: str, end: str | None) -> tuple[int, int]:
    return int(start[:4]), int((end or start)[:4])


def test_temporal_claims_are_labelled_by_the_dates_in_r(tmp_path):
    store = store_from_text(tmp_path, "kb.ttl", dated_kb())
    out = make(store, dated_facts(), tmp_path / "c", langs=["en", "de"], temporal=1.0)
    triples, claims, answers = read(out)
    present = set(triples)
    manifest = json.loads((out / "manifest.json").read_text())
    seen = Counter()
    for claim in claims:
        answer = answers[str(claim["id"])]
        assert answer["kind"] in ("one-hop", "temporal")
        if answer["kind"] != "temporal":
            continue
        triple = (answer["subject"], answer["predicate"], answer["object"])
        spans = spans_in(triples, *triple)
        first, last = year_span(answer["start"], answer["end"])
        if triple not in present:
            expected = "NOT ENOUGH INFO"
        elif (answer["start"], answer["end"]) in spans:
            expected = "SUPPORTS"
        elif spans and all(high < first or last < low for low, high in (year_span(*s) for s in spans)):
            expected = "REFUTES"
        else:
            expected = "overlapping: never a temporal claim"
        assert claim["label"] == expected, (claim, spans)
        seen[(claim["label"], answer["true_in_kb"])] += 1
        # evidence: the triple, what ties its statement node to it, and the node's date lines
        for group, items in zip(claim["evidence"], claim["evidence_triples"]):
            for (_, _, page, line), item in zip(group, items):
                assert triples[line] == (item["s"], item["p"], item["o"]) and page == item["s"]
            assert (items[0]["s"], items[0]["p"], items[0]["o"]) == triple
            assert any(item["o"].startswith('"') for item in items)  # a date line of R
        if claim["lang"] == "en":
            assert str(first) in claim["claim"]
    # as many temporal claims of each label: the date corruptions with disjoint years refute, each
    # replacing a planned REFUTES claim, so the shares stay as asked
    per_label = manifest["temporal"]["per_label"]
    assert per_label > 0 and seen[("SUPPORTS", True)] == seen[("REFUTES", False)] == 2 * per_label
    assert seen[("NOT ENOUGH INFO", True)] + seen[("NOT ENOUGH INFO", False)] == 2 * per_label
    assert set(Counter(c["label"] for c in claims if c["lang"] == "en").values()) == {manifest["claims"]["per_language"] // 3}
    assert manifest["left_out"]["false_in_kb"] == N + 4 - per_label  # the overlapping ones are never used
    # the years some facts carry make every date a year, so precision says nothing about the label
    assert {a["date_granularity"] for a in answers.values()} == {"year"}


def test_temporal_claims_are_reproducible_and_absent_without_the_flag(tmp_path):
    store = store_from_text(tmp_path, "kb.ttl", dated_kb())
    one = make(store, dated_facts(), tmp_path / "a", temporal=0.5, seed=3)
    two = make(store, dated_facts(), tmp_path / "b", temporal=0.5, seed=3)
    assert all((one / f).read_bytes() == (two / f).read_bytes() for f in ("claims.jsonl", "answers.json", "manifest.json"))
    _, _, answers = read(make(store, dated_facts(), tmp_path / "c"))
    assert {a["kind"] for a in answers.values()} == {"one-hop"}


def path_kb() -> str:
    lines = [*PREFIXES, "ex:capital a owl:FunctionalProperty . ex:country a owl:FunctionalProperty .",
             'ex:country rdfs:label "country"@en .']
    for i in range(N):
        lines.append(f'ex:S{i} ex:capital ex:C{i} ; rdfs:label "State {i}"@en . ex:C{i} ex:country ex:K{i % 3} ; '
                     f'rdfs:label "City {i}"@en .')
    lines += [f'ex:K{k} rdfs:label "Country {k}"@en .' for k in range(3)]
    return "\n".join(lines) + "\n"


def path_facts() -> list[dict]:
    facts = [fact(f"S{i}", "capital", f"C{i}", True) for i in range(N)]
    facts += [fact(f"S{i}", "capital", f"C{(i + 1) % N}", False) for i in range(N)]
    return [dict(r, id=f"r{n:03d}") for n, r in enumerate(facts, 1)]


def test_multi_hop_claims_are_labelled_by_both_hops_in_r(tmp_path):
    store = store_from_text(tmp_path, "kb.ttl", path_kb())
    out = make(store, path_facts(), tmp_path / "c", multi_hop=1.0)
    triples, claims, answers = read(out)
    present = set(triples)
    objects = defaultdict(set)
    for s, p, o in triples:
        objects[(s, p)].add(o)
    manifest = json.loads((out / "manifest.json").read_text())
    seen = Counter()
    for claim in claims:
        answer = answers[str(claim["id"])]
        if answer["kind"] != "multi-hop":
            continue
        middle, q, o = answer["path"]
        s, p = answer["subject"], answer["predicate"]
        assert middle == answer["object"] and q == EX + "country"
        middles = objects[(s, p)]
        if any((m, q, o) in present for m in middles):
            expected = "SUPPORTS"
        elif len(middles) == 1 and objects[(next(iter(middles)), q)] - {o}:
            expected = "REFUTES"  # both predicates are declared functional
        else:
            expected = "NOT ENOUGH INFO"
        assert claim["label"] == expected, claim
        seen[claim["label"]] += 1
        k = o.rsplit("K", 1)[1]
        # no template for ex:country or phrase for ex:capital: the generic ones, with their labels
        state = f"State {s.rsplit('S', 1)[1]}"
        assert claim["claim"] in (f"The country of the capital of {state} is Country {k}.",
                                  f"The capital of {state} has Country {k} as country."), claim["claim"]
        assert "City" not in claim["claim"]  # the middle is never named
        for group, items in zip(claim["evidence"], claim["evidence_triples"]):
            assert len(items) == 2 and items[0]["o"] == items[1]["s"]  # both hops, one set
            assert (items[0]["s"], items[0]["p"]) == (s, p) and items[1]["p"] == q
            for (_, _, page, line), item in zip(group, items):
                assert triples[line] == (item["s"], item["p"], item["o"]) and page == item["s"]
    per_label = manifest["multi_hop"]["per_label"]
    assert per_label > 0 and set(seen.values()) == {per_label} and len(seen) == 3
    assert manifest["claims"]["kinds"]["multi-hop"] == 3 * per_label
    assert manifest["multi_hop"]["second_hop_predicates"] == [EX + "country"]


NAMES = {"en": ("Person {i}", "Country {k}"), "de": ("Hans {i}", "Land {k}"), "fr": ("Personne {i}", "Pays {k}"),
         "zh": ("人物{i}", "国家{k}")}
#: the two dbo:country templates of each language, with the birthplace phrase for their subject
SAID = {"en": ("The birthplace of {s} is in {o}.", "The birthplace of {s} is located in the country {o}."),
        "de": ("{s}s Geburtsort liegt in {o}.", "{s}s Geburtsort gehört zum Land {o}."),
        "fr": ("Le lieu de naissance de {s} se trouve en {o}.", "Le lieu de naissance de {s} est situé dans le pays {o}."),
        "zh": ("{s}的出生地位于{o}。", "{s}的出生地属于国家{o}。")}


def dbo_path_kb() -> str:
    lines = [*PREFIXES, "dbo:birthPlace a owl:FunctionalProperty . dbo:country a owl:FunctionalProperty ."]
    for i in range(N):
        names = " , ".join(f'"{NAMES[lang][0].format(i=i)}"@{lang}' for lang in NAMES)
        lines.append(f"ex:P{i} dbo:birthPlace ex:C{i} ; rdfs:label {names} . ex:C{i} dbo:country ex:K{i % 3} ; "
                     f'rdfs:label "City {i}"@en .')
    for k in range(3):
        lines.append(f"ex:K{k} rdfs:label " + " , ".join(f'"{NAMES[lang][1].format(k=k)}"@{lang}' for lang in NAMES) + " .")
    return "\n".join(lines) + "\n"


def test_multi_hop_claims_read_naturally_in_each_language(tmp_path):
    """A 2-hop claim is the second predicate's own template with the first predicate's phrase for the
    unnamed middle ("The birthplace of X is in Y"), not the predicates' raw labels ("X was born in an
    entity whose country is Y", "etwas mit country ...")."""
    store = store_from_text(tmp_path, "kb.ttl", dbo_path_kb())
    items = [fact(f"P{i}", "birthPlace", f"C{i}", True) for i in range(N)]
    items += [fact(f"P{i}", "birthPlace", f"C{(i + 1) % N}", False) for i in range(N)]
    items = [dict(r, subject=EX + r["subject"].rsplit("/", 1)[1], predicate=DBO + "birthPlace",
                  object=EX + r["object"].rsplit("/", 1)[1], id=f"r{n:03d}") for n, r in enumerate(items, 1)]
    out = make(store, items, tmp_path / "c", langs=list(NAMES), multi_hop=1.0)
    _, claims, answers = read(out)
    paths = [c for c in claims if answers[str(c["id"])]["kind"] == "multi-hop"]
    assert {c["lang"] for c in paths} == set(NAMES) and len({c["label"] for c in paths}) == 3
    for claim in paths:
        answer = answers[str(claim["id"])]
        lang, (_, q, o) = claim["lang"], answer["path"]
        assert q == DBO + "country"
        s = NAMES[lang][0].format(i=answer["subject"].rsplit("P", 1)[1])
        end = NAMES[lang][1].format(k=o.rsplit("K", 1)[1])
        assert claim["claim"] in [t.format(s=s, o=end) for t in SAID[lang]], claim["claim"]
        assert answer["template"] in (f"{lang}:country.1<birthPlace", f"{lang}:country.2<birthPlace")
        assert not answer["generic_template"]


def test_path_phrases_cover_every_predicate_and_join_as_each_language_does():
    from factforge.claims.templates import load

    for lang in NAMES:
        language = load(lang)
        assert set(language.paths) == set(language.predicates), lang
    birth = DBO + "birthPlace"
    assert load("de").middle(birth, "Hans", "x") == ("Hans’ Geburtsort", False)  # a possessive after s
    assert load("de").middle(birth, "Anna", "x") == ("Annas Geburtsort", False)
    french = load("fr")
    middle, _ = french.middle(birth, "Marie", "x")
    capital = french.predicates[DBO + "capital"][0].fill(negated=False, s="\0", o="Varsovie")
    assert french.put_middle(capital, "\0", middle) == "La capitale du lieu de naissance de Marie est Varsovie"
    assert french.put_middle("{s} a été", "{s}", "la capitale") == "la capitale a été"
    assert load("en").middle(EX + "unknown", "Ann", "unknown thing") == ("the unknown thing of Ann", True)


@pytest.mark.parametrize("p, q, slot, negated, said", [
    ("largestCity", "capital", 0, False, "Die Hauptstadt von Annas größter Stadt ist Rom."),  # von + dative
    ("largestCity", "capital", 0, True, "Die Hauptstadt von Annas größter Stadt ist nicht Rom."),
    ("largestCity", "officialLanguage", 1, False, "Rom ist Amtssprache in Annas größter Stadt."),
    ("largestCity", "country", 0, False, "Annas größte Stadt liegt in Rom."),  # the subject: nominative
    ("producer", "birthPlace", 1, False, "Der Geburtsort von Annas Produzenten ist Rom."),  # a weak noun
    ("producer", "birthPlace", 0, False, "Annas Produzent wurde in Rom geboren."),
    ("producer", "subsequentWork", 0, False, "Auf Annas Produzenten folgte Rom."),  # folgen auf + accusative
    ("previousWork", "subsequentWork", 0, False, "Auf Annas Vorgängerwerk folgte Rom."),
])
def test_german_path_phrases_take_the_case_their_place_in_the_template_asks(p, q, slot, negated, said):
    """A path's middle stands where q's template has its subject: after "von" or "in" that is the
    dative, after "auf" (folgen auf) the accusative, and an adjective ("größte Stadt") or a weak noun
    ("Produzent") changes with it; said in the nominative everywhere, "von Annas größte Stadt" was wrong."""
    from factforge.claims.names import Names
    from factforge.claims.verbalize import say
    from factforge.generators.facts import Fact

    names = Names(main={(EX + "anna", "de"): ("Anna", "kb"), (EX + "rome", "de"): ("Rom", "kb")})
    got = say(Fact(EX + "anna", DBO + p, EX + "m"), "de", names, seed=0, negated=negated, allowed=(),
              hop=(DBO + q, EX + "rome"), slot=slot)
    assert got.text == said


def test_a_case_mark_or_a_path_form_that_is_not_a_case_is_refused_naming_the_entry():
    from factforge.claims.templates import TemplateFileError, _forms, _templates

    entry = {"id": "x.1", "text": "von {s:dativ} ist {o}", "negated": "von {s:dat} ist nicht {o}"}
    with pytest.raises(TemplateFileError, match=r"de.json: x.1: text: a case of \{s:...\} is one of nom, acc, dat, gen"):
        _templates("de.json", "x", [entry], ("s", "o"))
    made = _templates("de.json", "x", [dict(entry, text="von {s:dat} ist {o}")], ("s", "o"))[0]
    assert (made.text, made.subject_case(False), made.subject_case(True)) == ("von {s} ist {o}", "dat", "dat")
    with pytest.raises(TemplateFileError, match="paths: dbo:x: a phrase is a string or an object of its forms by case"):
        _forms("de.json", "dbo:x", {"dat": "{g} größter Stadt"})  # no nominative


def test_a_second_hop_never_ends_at_a_statement_node(tmp_path):
    """FactBench-style nodes (a functional link to a node with dates and no label) state a fact again:
    a path ending there read "... is C1 1". The middles here have such a link besides their country."""
    lines = [path_kb(), "ex:term a owl:FunctionalProperty ."]
    for i in range(N):
        lines.append(f'ex:C{i} ex:term ex:n{i} . ex:n{i} ex:mayor ex:M{i} ; dbo:from "199{i % 10}"^^xsd:gYear .')
    store = store_from_text(tmp_path, "kb.ttl", "\n".join(lines) + "\n")
    out = make(store, path_facts(), tmp_path / "c", multi_hop=1.0)
    _, claims, answers = read(out)
    paths = [answers[str(c["id"])]["path"] for c in claims if answers[str(c["id"])]["kind"] == "multi-hop"]
    assert paths and all(q == EX + "country" for _, q, _ in paths), paths
