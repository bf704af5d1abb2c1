"""A claims set from labelled facts: labels against R, sentences per language, and the files.

Files written into the output folder: ``claims.jsonl`` (FEVER records, every language, grouped by
language), ``answers.json`` (how each claim was made), ``reference.sorted.nt`` (R, the KB the
verifier gets, whose lines the evidence points at) and ``manifest.json`` (languages, shares,
functionality sources, seed, KB fingerprint, the claims audit's report, sha256 of each file).

The claims' R is not the scenario's: a scenario takes every test fact out of R, so no test
claim could be SUPPORTS. Here the true facts that become SUPPORTS stay in R; the others, and every
false fact used, lose what the scenario's leakage level removes around them.
"""
from __future__ import annotations

import gc
import os
import threading
from collections import Counter, defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from factforge.evaluation.labelled import ScenarioFiles
from factforge.generators import positives
from factforge.generators.facts import Fact
from factforge.generators.leakage import inverse_predicates, removed_triples
from factforge.generators.writers import _json as json_bytes, _sha256, write_staged
from factforge.generators.scenario import InvariantError
from factforge.sparql import __version__
from factforge.evaluation.reference_input import fetch_around
from factforge.sparql.adjacency import adjacency as load_adjacency
from factforge.sparql.cache import StatsCache
from factforge.sparql.neighbourhood import Neighbourhood, NeighbourhoodReader
from factforge.sparql.profiles import known_predicate
from factforge.sparql.store import Store

from . import audit_text, conjunction, multihop, temporal
from .around import around_triples
from .audit import audit_claims
from .contradictions import ReferenceView, load_schema
from .errors import ClaimsError
from .keyed import keyed_rank
from .labelling import AUTO, LABELS, NEI, REFUTES, SUPPORTS, Item, Labelled, in_record_order, per_label_in_groups, plan
from .names import LOCAL, NamesError, factbench_names, kb_names
from .plan_key import guessable_bits, plan_key
from .records import answers_json, as_claims, jsonl, record
from .reference_dump import DUMP, SCOPES, write_around, write_dump
from .templates import load
from .verbalize import conjoin, granularities, say, template_slots

KINDS = ("one-hop", "negation", "conjunction", "temporal", "multi-hop")


@dataclass
class Options:
    langs: list[str]
    shares: tuple | str  # S, R, N, or labelling.AUTO
    seed: int = 0
    count: int | None = None
    negation: float = 0.0
    conjunction: float = 0.0
    temporal: float = 0.0
    multi_hop: float = 0.0
    leakage: str = "triple"
    require_labels: bool = False
    user_labels: dict | None = None
    plan_secret: bytes | None = None  # mixed into the plan key (``plan_key``); never written
    evidence_lines: str | None = None  # a key of reference_dump.SCOPES; None: full over a whole index, else around


def items_of(source: ScenarioFiles) -> list[Item]:
    return [Item(str(r["id"]), Fact(r["subject"], r["predicate"], r["object"], r.get("start"), r.get("end")),
                 bool(r["label"])) for r in source.test]


def make_claims(store: Store, source: ScenarioFiles, options: Options, out_dir: str | os.PathLike) -> dict:
    for lang in options.langs:
        load(lang)  # an unknown language fails before any work
    audit_text.prepare(options.langs)  # before the step's data exist (``prepare``)
    with collector_paused():
        return _make_claims(store, source, options, out_dir)


_PAUSE = threading.Lock()
_paused = {"steps": 0, "was_enabled": False}


@contextmanager
def collector_paused():
    """Python's cyclic garbage collector off for the block, then as it was (when blocks of several
    threads overlap, after the last). A claims set makes several small containers a record (claims,
    records, answers, the audit's rows) that all live until its files are written, and every full
    pass of the collector walks all of them again: on a large set, a sizeable share of the step's CPU
    (docs/performance.md). Nothing is lost: a reference cycle left is freed by the collector's next pass."""
    with _PAUSE:
        if not _paused["steps"]:
            _paused["was_enabled"] = gc.isenabled()
            gc.disable()
        _paused["steps"] += 1
    try:
        yield
    finally:
        with _PAUSE:
            _paused["steps"] -= 1
            if not _paused["steps"] and _paused["was_enabled"]:
                gc.enable()


def _make_claims(store: Store, source: ScenarioFiles, options: Options, out_dir: str | os.PathLike) -> dict:
    items = items_of(source)
    scope = options.evidence_lines or ("full" if store.whole_index else "around")
    if scope not in SCOPES:
        raise ClaimsError(f"--evidence-lines: {scope!r} is none of {', '.join(SCOPES)}")
    options = replace(options, evidence_lines=scope)
    if store.whole_index:
        made = _made(store, source, options, items, load_adjacency(store))
    else:
        made = _made_around(store, source, options, items)
    return write_staged(out_dir, lambda folder: _write(folder, store, source, options, *made))


def _made_around(store: Store, source: ScenarioFiles, options: Options, items: list[Item]) -> tuple:
    """``_made`` over the part of an endpoint's KB the claims read: every fact of the items' predicates
    (the plan key hashes them, leakage finds their pairs) and every link of the items' subjects,
    fetched in VALUES batches; what a run found missing (a path's middle, an end of a removed triple
    neither of whose ends was fetched) is fetched and the claims made again, until a run read only
    what was fetched whole: that run made what the whole index makes. The objects are not fetched
    up front: an object is often a hub (a country, a city) whose links outnumber all the rest."""
    predicates = sorted({i.fact.p for i in items})
    reader = NeighbourhoodReader(store, predicates[0] if predicates else None, degrees=False)
    for predicate in predicates[1:]:
        reader.fetch_predicate(predicate)
    fetch_around(reader, {i.fact.s for i in items}, 1)
    while True:
        index = reader.index()
        try:
            made = _made(store, source, options, items, index)
        except Exception:
            if not index.lacks_links:
                raise
            made = None  # a run short of links may fail for that alone
        if not index.lacks_links:
            return made
        reader.fetch(index)


def _made(store: Store, source: ScenarioFiles, options: Options, items: list[Item], index) -> tuple:
    """The claims of ``items`` over ``index`` (the KB's whole adjacency index, or a ``Neighbourhood``
    of it) and what ``_write`` needs of them."""
    whole = not isinstance(index, Neighbourhood)
    schema = load_schema(store, index if whole else None, {i.fact.p for i in items})
    reference = ReferenceView(store, index, schema)
    destroys = _destroyer(store, index, options.leakage, {i.fact.p for i in items if i.truth})
    # the KB's lines are hashed once per KB when the index is the whole KB's, not a neighbourhood's
    key = plan_key(index, options.seed, {i.fact.p for i in items if i.truth}, options.plan_secret,
                   StatsCache(store) if whole else None)
    made = plan(items, reference, options.shares, options.seed, options.count, destroys=destroys, key=key)
    made, dated = _with_temporal(store, reference, items, made, options, destroys, key)
    claims = _negate(made.claims, options, {i: "temporal" for i in dated}, key)
    removed, kept_back = _removed(store, index, made, options.leakage)
    final = reference.without(removed)
    in_r = final.holds([c.item.fact.triple for c, _ in claims])  # one search for all, not one a claim
    claims = [(_verified(final, c, held) if kind != "temporal" else _verified_temporal(final, c, dated[c.item.id]),
               kind) for (c, kind), held in zip(claims, in_r)]
    # the companions' search reads every claim subject's links: only worth it when some are conjoined
    found = conjunction.companions(final, [c.item.fact for c, _ in claims], options.seed) if options.conjunction else {}
    joined = conjunction.choose(claims, options.conjunction, found, key)
    claims = [(c, "conjunction" if c.item.id in joined else kind) for c, kind in claims]
    paths = {}
    if options.multi_hop:
        functional = multihop.functional_predicates(store, index)
        paths = multihop.hops(final, functional, [c for c, kind in claims if kind == "one-hop"], options.seed)
    pathed = multihop.choose(claims, options.multi_hop, paths, key)
    hop_candidates = multihop.candidates(claims, paths) if options.multi_hop else None
    claims = [Claim(c, "conjunction", companion=found[(c.item.fact.s, c.item.fact.p)]) if kind == "conjunction" else
              Claim(c, "multi-hop", path=paths[c.item.id][0], path_evidence=paths[c.item.id][2]) if c.item.id in pathed else
              Claim(c, kind, dates=_span_dates(dated[c.item.id], c) if kind == "temporal" else None)
              for c, kind in claims]
    entities = {e for c in claims for e in (c.base.item.fact.s, c.base.item.fact.o)}
    entities |= {c.companion[2] for c in claims if c.companion} | {c.path[2] for c in claims if c.path}
    predicates = ({c.base.item.fact.p for c in claims} | {c.companion[1] for c in claims if c.companion}
                  | {c.path[1] for c in claims if c.path})
    models = factbench_names(source.folder) if source.kind == "factbench" else None
    names = kb_names(store, entities | predicates, options.langs, options.user_labels, models)
    if options.require_labels:
        _require(names, entities, options.langs)
    # made here, not when written: through an endpoint, the middles it reads are then fetched like the rest
    around = around_triples(final, claims, dated) if options.evidence_lines == "around" else None
    return made, claims, names, final, kept_back, schema, key, hop_candidates, around


FLIP = {SUPPORTS: REFUTES, REFUTES: SUPPORTS, NEI: NEI}


@dataclass
class Claim:
    base: Labelled          # the fact, its label in R and the evidence
    kind: str               # one of KINDS
    companion: tuple | None = None  # a conjunction's second fact, which R holds
    path: tuple | None = None       # a multi-hop claim's second hop (m, q, o), from the fact's object m
    path_evidence: list | None = None
    dates: dict | None = None       # a temporal claim: the dates R gives its triple, for evidence_triples

    @property
    def label(self) -> str:
        return FLIP[self.base.label] if self.kind == "negation" else self.base.label

    @property
    def evidence(self) -> list:
        if self.kind == "multi-hop":
            return self.path_evidence
        if self.companion and self.base.label == SUPPORTS:
            return [[*self.base.evidence[0], self.companion]]
        return self.base.evidence


def _negate(claims: list[Labelled], options: Options, kinds: dict[str, str], key: bytes) -> list[tuple[Labelled, str]]:
    """(claim, kind): negated claims in symmetric sets, as many of each final label. A negated
    SUPPORTS fact is a REFUTES claim and a negated REFUTES fact a SUPPORTS one (with the same
    evidence), so equal numbers from each (within each predicate) keep the label counts and make
    "not" say nothing about the label, even beside the predicate's words. All the claims of a subject
    are negated or none (``per_label_in_groups``): the SUPPORTS and REFUTES claims of a subject's true
    and false fact stay of opposite labels.
    ``kinds``: claims already of another kind (temporal), never negated."""
    if not options.negation:
        return [(c, kinds.get(c.item.id, "one-hop")) for c in claims]
    # a subject with a claim of another kind keeps all its claims plain: negating only some of a
    # subject's claims changes how often its labels agree
    held = {c.item.fact.s for c in claims if c.item.id in kinds}
    counts = defaultdict(Counter)
    for c in claims:
        counts[c.item.fact.p][c.label] += 1
    chosen = per_label_in_groups(counts, [c for c in claims if c.item.fact.s not in held],
                                 options.negation, key, "negation", lambda c: FLIP[c.label],
                                 lambda c: c.item.fact.s)
    return [(c, kinds.get(c.item.id, "negation" if c.item.id in chosen else "one-hop")) for c in claims]


def _with_temporal(store, reference: ReferenceView, items: list[Item], made, options: Options, destroys, key: bytes):
    """The plan with its temporal claims, and the KB's spans of each by claim id. Date corruptions R
    refutes take the place of as many planned REFUTES claims (so the shares hold); a corruption of a
    true fact that leaves R for a NEI claim has nothing left to be refuted by, so is not used."""
    if not options.temporal:
        return made, {}
    dated = [i for i in items if i.fact.start]
    spans = temporal.date_statements(store, {i.fact.triple for i in dated})
    taken_out = [c.item.fact for c in made.claims if c.removed]
    said_with_dates = {}
    for c in made.claims:
        if c.item.fact.start and c.label == SUPPORTS:
            got, evidence = temporal.label(reference, c.item.fact, spans.get(c.item.fact.triple, []))
            if got == SUPPORTS:
                said_with_dates[c.item.id] = Labelled(c.item, SUPPORTS, evidence, c.removed)
        elif c.item.fact.start and c.label == NEI:
            said_with_dates[c.item.id] = c
    corruptions = []
    for item in dated:
        triple = item.fact.triple
        if item.truth or not reference.has(triple) or any(destroys(f, triple) for f in taken_out):
            continue
        got, evidence = temporal.label(reference, item.fact, spans.get(triple, []))
        if got == REFUTES:
            corruptions.append(Labelled(item, REFUTES, evidence))
    chosen = temporal.choose(made.claims, list(said_with_dates.values()), corruptions, options.temporal, key)
    # each corruption takes the place of a planned REFUTES claim of its own predicate, so every
    # predicate keeps its shares; one whose REFUTES claims are all taken gets no more corruptions
    planned = defaultdict(list)
    for c in sorted((c for c in made.claims if c.label == REFUTES),
                    key=lambda c: keyed_rank(key, "temporal/out", c.item.fact.triple)):
        planned[c.item.fact.p].append(c)
    taken = []
    for c in chosen[REFUTES]:
        if len(planned[c.item.fact.p]) > sum(t.item.fact.p == c.item.fact.p for t in taken):
            taken.append(c)
    m = len(taken)
    if not m:
        return made, {}
    uses = Counter(c.item.fact.p for c in taken)
    chosen = {SUPPORTS: _first_of_each(chosen[SUPPORTS], uses), REFUTES: taken, NEI: _first_of_each(chosen[NEI], uses)}
    dropped = {c.item.id for predicate, n in uses.items() for c in planned[predicate][:n]}
    taking = {c.item.id: c for label in LABELS for c in chosen[label]}
    claims = in_record_order([taking.get(c.item.id, c) for c in made.claims if c.item.id not in dropped]
                             + chosen[REFUTES], options.seed)
    refuting = {c.item.id for c in chosen[REFUTES]}
    removed = [c.item.fact for c in claims if c.removed or (not c.item.truth and c.item.id not in refuting)]
    left_out = {**made.left_out, "false_in_kb": made.left_out["false_in_kb"] - m}
    pools = {**made.pools, "date_corruptions_refuted": len(corruptions)}
    return replace(made, claims=claims, removed_facts=removed, left_out=left_out, pools=pools), {i: spans.get(c.item.fact.triple, []) for i, c in taking.items()}


def _first_of_each(claims: list[Labelled], wanted: Counter) -> list[Labelled]:
    """The first ``wanted[p]`` claims of each predicate p: a predicate's temporal claims of each label
    as many as its date corruptions taken."""
    seen = Counter()
    kept = []
    for c in claims:
        seen[c.item.fact.p] += 1
        if seen[c.item.fact.p] <= wanted[c.item.fact.p]:
            kept.append(c)
    return kept


def _verified_temporal(final: ReferenceView, c: Labelled, spans) -> Labelled:
    got, evidence = temporal.label(final, c.item.fact, spans)
    if got != c.label:
        raise InvariantError(f"temporal claim of fact {c.item.id}: planned {c.label}, R gives {got}")
    return Labelled(c.item, c.label, evidence, c.removed)


def _span_dates(spans, c: Labelled) -> dict | None:
    """The dates R gives the claim's triple, shown beside it in ``evidence_triples``."""
    if c.label == NEI or not spans:
        return None
    span = next((s for s in spans if temporal.matches(c.item.fact, s)), spans[0])
    return {c.item.fact.triple: {"start": span.start, "end": span.end}}


def _destroyer(store, index, level: str, predicates):
    """Does taking a true fact out of R at this leakage level remove a triple? As
    ``generators.leakage.removed_triples`` removes: the triple; its inverses; every link of the pair."""
    if level == "triple":
        return lambda fact, triple: fact.triple == triple
    if level == "pair":
        return lambda fact, triple: {triple[0], triple[2]} == {fact.s, fact.o}
    inverses = {p: {p, *inverse_predicates(store, index, p, positives.kb_pairs(store, p, index=index))}
                for p in sorted(predicates)}
    return lambda fact, triple: triple == fact.triple or (
        (triple[0], triple[2]) == (fact.o, fact.s) and triple[1] in inverses.get(fact.p, ()))


def _require(names, entities, langs) -> None:
    for lang in langs:
        for entity in sorted(entities):
            if names.name(entity, lang)[1] == LOCAL:
                raise NamesError(f"--require-labels: {entity} has no name in {lang!r} (no rdfs:label or "
                                 f"skos:prefLabel@{lang} in the KB, and none in --labels)")


def _removed(store, index, made, level: str):
    """The triples the claims' R lacks. Those a SUPPORTS claim or a REFUTES evidence needs stay,
    counted as ``kept_back`` (at leakage inverse, a false spouse(B, A) would take a true spouse(A, B)
    out of R)."""
    removed = set()
    by_predicate = defaultdict(list)
    for fact in made.removed_facts:
        by_predicate[fact.p].append(fact)
    for predicate, facts in sorted(by_predicate.items()):
        removed.update(removed_triples(store, index, facts, level, _pairs_for(store, index, predicate, facts, level),
                                       predicate))
    needed = {t for c in made.claims if c.label != NEI for group in c.evidence for t in group}
    return sorted(removed - needed), len(removed & needed)


def _pairs_for(store, index, predicate: str, facts: list[Fact], level: str):
    """The KB's (s, o) pairs of ``predicate`` that ``removed_triples`` reads at ``level``. At ``triple`` it
    only asks whether each fact's own pair is one, so over the whole index those of the facts' pairs the
    KB links are enough; the set of every pair (``positives.kb_pairs``: over a million pairs of strings
    for a frequent predicate of a 10M KB) is made only where the other levels read all of it, or the
    index is a neighbourhood's."""
    if level != "triple" or isinstance(index, Neighbourhood):
        return positives.kb_pairs(store, predicate, index=index)
    target = known_predicate(store, predicate)  # as kb_pairs names it, and fails on a predicate the KB lacks
    return {f.pair for f in facts if index.has_link(f.s, target, f.o)}


def _verified(final: ReferenceView, c: Labelled, in_r: bool) -> Labelled:
    """The claim's base label checked against the R that is written (``in_r``: does R hold its
    triple?); REFUTES evidence is all R has."""
    fact = c.item.fact
    against = final.contradictions(fact)
    got = (SUPPORTS if in_r and not against else REFUTES if against and not in_r else
           NEI if not in_r and not against else "both entailed and contradicted")
    if got != c.label:
        raise InvariantError(f"claim of fact {c.item.id}: planned {c.label}, R gives {got}")
    return Labelled(c.item, c.label, [[fact.triple]] if got == SUPPORTS else against, c.removed)


def _shared_answer(group: int, c: Claim, source_answers: dict) -> dict:
    """The part of a claim's answer that is the same in every language."""
    fact, how = c.base.item.fact, source_answers.get(c.base.item.id, {})
    return {"group": group, "fact": c.base.item.id, "subject": fact.s, "predicate": fact.p, "object": fact.o,
            "start": fact.start, "end": fact.end, "true_in_kb": c.base.item.truth, "kind": c.kind,
            "companion": list(c.companion) if c.companion else None, "path": list(c.path) if c.path else None,
            "label_before_negation": c.base.label, "removed_from_reference": c.base.removed,
            "false_fact_kind": None if c.base.item.truth else how.get("kind"), "source_fact": how.get("source")}


def _write(folder: Path, store, source, options: Options, made, claims: list[Claim], names, final: ReferenceView,
           kept_back, schema, key: bytes, hop_candidates: dict | None, around: set | None) -> dict:
    reference = final.reference
    scope = options.evidence_lines
    wanted = {t for c in claims for group in c.evidence for t in group}
    if around is None:
        size, lines = write_dump(reference, folder / DUMP, wanted)
    else:
        size, lines = write_around(around, folder / DUMP)
    missing = sorted(wanted - set(lines))
    if missing:
        raise InvariantError(f"evidence triple {missing[0]} is not a line of {DUMP}")
    allowed = granularities(c.base.item.fact for c in claims)
    slots = template_slots((((c.base.item.fact.s, c.base.item.fact.p), c.label) for c in claims), key)
    records, answers = [], {}
    evidence_ids = iter(range(1, 1 << 62))
    # what a claim's answer says whatever the language, and its fact without dates: made once a claim
    shared = [_shared_answer(group, c, source.answers or {}) for group, c in enumerate(claims, 1)]
    undated = [Fact(*c.base.item.fact.triple) for c in claims]
    for lang in options.langs:
        for group, c in enumerate(claims, 1):
            fact = c.base.item.fact
            if c.path:  # the path's middle is the fact's object, left unnamed; its dates are not the path's
                said = say(undated[group - 1], lang, names, seed=options.seed, negated=False, allowed=allowed,
                           hop=c.path[1:], slot=slots[(fact.s, fact.p)])
            else:
                # Only a temporal claim says its dates: a one-hop claim's label is about the triple, and
                # FactBench's wrong models carry the years of the true fact they were made from, so
                # said there the years named a true fact and its corruptions, whose labels go together.
                said = say(fact if c.kind == "temporal" else undated[group - 1], lang, names, seed=options.seed,
                           negated=c.kind == "negation", allowed=allowed, slot=slots[(fact.s, fact.p)])
            text = said.text
            if c.companion:
                other = say(Fact(*c.companion), lang, names, seed=options.seed, negated=False, allowed=allowed)
                text = conjoin(said, other, lang)
            number = len(records) + 1
            dates = c.dates or ({fact.triple: {"start": fact.start, "end": fact.end}} if fact.start else {})
            records.append(record(number, text, lang, c.label, c.evidence, lines, dates, lambda: next(evidence_ids)))
            answers[str(number)] = {
                **shared[group - 1], "template": said.template, "generic_template": said.generic,
                "names": said.name_sources, "name_fallback": sorted(r for r, s in said.name_sources.items() if s == LOCAL),
                "date_granularity": said.granularity}
    (folder / "claims.jsonl").write_bytes(jsonl(records))
    fingerprint = store.fingerprint()
    header = {"software": {"name": "factforge", "version": __version__}, "kb_fingerprint": fingerprint,
              "seed": options.seed, "scenario": source.manifest.get("scenario")}
    # the plan key in the answers only: whoever holds it can replay the label plan's orders (plan_key)
    (folder / "answers.json").write_bytes(answers_json({**header, "plan_key": key.hex()}, answers))
    made_counts = Counter(r["label"] for r in records if r["lang"] == options.langs[0])
    predicates = sorted({c.base.item.fact.p for c in claims})
    manifest = {
        **header, "source": {"path": str(source.folder), "kind": source.kind},
        "languages": list(options.langs),
        "claims": {"per_language": len(claims), "total": len(records),
                   "labels": {label: made_counts.get(label, 0) for label in (SUPPORTS, REFUTES, NEI)},
                   "kinds": {kind: sum(c.kind == kind for c in claims) for kind in KINDS}},
        "shares": {"asked": [AUTO] if options.shares == AUTO else [str(s) for s in options.shares],
                   "used": [str(s) for s in made.shares], **({"why": made.shares_why} if made.shares_why else {}),
                   "count_asked": options.count,
                   "made": {label: sum(p["labels"][label] for p in made.per_predicate.values()) for label in LABELS},
                   "per_predicate": made.per_predicate, "predicates_left_out": made.predicates_left_out},
        "negation": {"share": options.negation, "per_label": _per_label(claims, "negation")},
        "conjunction": {"share": options.conjunction, "per_label": _per_label(claims, "conjunction")},
        "temporal": {"share": options.temporal, "per_label": _per_label(claims, "temporal")},
        "multi_hop": {"share": options.multi_hop, "per_label": _per_label(claims, "multi-hop"),
                      "second_hop_predicates": sorted({c.path[1] for c in claims if c.path}),
                      **multihop.none_made(hop_candidates, _per_label(claims, "multi-hop"))},
        "plan_key": {"secret": bool(options.plan_secret),
                     "guessable_bits": None if options.plan_secret else guessable_bits(c.base for c in claims)},
        "functional_predicates": {p: schema.functional[p] for p in predicates if p in schema.functional},
        "disjoint_class_pairs": len(schema.disjoint),
        "reference": {"file": DUMP, "triples": size, "scope": scope, "holds": SCOPES[scope],
                      "line": "0-based index of the triple in the file",
                      "leakage": options.leakage, "removed_triples": len(reference.removed),
                      "kept_back_for_evidence": kept_back},
        "left_out": made.left_out, "pools": made.pools, "date_granularities": list(allowed),
    }
    # every claims set is audited as `factforge audit` would audit it, with the claims' seed; the
    # records and answers in memory are what the two files read back give (``as_claims``: as
    # ``fever_io.claims_of`` reads them)
    manifest["audit"] = audit_claims(as_claims(records), answers=answers,
                                     seed=options.seed, source={"path": "claims.jsonl", "format": "fever",
                                                                "answers": "answers.json"})
    manifest["files"] = {p.name: _sha256(p) for p in sorted(folder.iterdir())}
    (folder / "manifest.json").write_bytes(json_bytes(manifest))
    return manifest


def _per_label(claims: list[Claim], kind: str) -> int:
    """Claims of ``kind`` per label, as many of each label a predicate has (``labelling.per_label``)."""
    return max(Counter(c.label for c in claims if c.kind == kind).values(), default=0)
