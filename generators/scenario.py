"""Scenario assembly: spec in, a complete, checked, reproducible scenario out.

Order of work (each step draws from its own seeded stream):
test true facts → train true facts (disjoint pairs; disjoint entities when asked) → test false
facts → train false facts → order (fact_order: by the facts alone, never their labels) and number
each split → reference KB deletions → invariants.
"""
from __future__ import annotations

import time
from collections import Counter
from itertools import islice
from dataclasses import dataclass, field

from factforge.sparql import __version__, profiles
from factforge.sparql.adjacency import adjacency as load_adjacency
from factforge.sparql.store import Store
from factforge.sparql.terms import iri

from . import object_room, positives
from .fact_order import order_key
from .facts import Fact, Negative
from .negatives import NegativeContext, sampler
from .negatives.lcwa import SCAN_PER_FALSE_FACT
from .negatives.registry import SAMPLERS, kept_in_kb, sections, transparent
from .positives import NotEnoughFacts
from .random_state import stream
from .reference_kb import ReferenceKB
from .spec import ScenarioSpec, SpecError

#: summary sections that carry a ``warning`` when present; the manifest repeats them (never the data files)
WARNED = ("true_objects", "false_subjects")

#: the steps of ``generate``, in order; ``on_step`` is told each one as it ends (job progress)
STEPS = ("statistics", "true facts", "false facts", "reference", "checks")


class InvariantError(AssertionError):
    """A generated scenario broke a promise; this is a bug, never a user error."""


@dataclass
class LabelledFact:
    id: str
    fact: Fact
    label: bool
    split: str


@dataclass
class Scenario:
    id: str
    spec: ScenarioSpec
    fingerprint: str
    version: str
    test: list[LabelledFact]
    train: list[LabelledFact]
    answers: dict[str, dict]
    removed: list[tuple[str, str, str]]
    summary: dict
    dated: bool = False
    timings: dict = field(default_factory=dict)  # shown to the user, never written to data files
    # the adjacency index generation read (the KB's whole one, or a neighbourhood of it): the
    # audit reads R around the scenario's entities from it
    index: object = field(default=None, repr=False, compare=False)
    # what neighbourhood generation fetched from an endpoint (rounds, rows, entities): shown, never written
    fetched: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def facts(self) -> list[LabelledFact]:
        return self.test + self.train

    def reference(self, store: Store) -> ReferenceKB:
        """R: the KB the scenario was made from (``store``) minus the removed triples."""
        return ReferenceKB.of(store, self.removed)

    def header(self) -> dict:
        """What identifies the scenario inside data files: nothing about how facts were made."""
        return {"scenario": self.id, "software": {"name": "factforge", "version": self.version},
                "kb_fingerprint": self.fingerprint, "seed": self.spec.seed, "predicate": self.spec.predicate}

    def manifest(self) -> dict:
        return {
            "scenario": self.id, "software": {"name": "factforge", "version": self.version},
            "kb_fingerprint": self.fingerprint, "seed": self.spec.seed, "spec": self.spec.to_dict(),
            "counts": self.summary["counts"], "dated": self.dated,
            "reference": {"leakage": self.spec.leakage, "removed_triples": len(self.removed)},
            **{key: self.summary[key] for key in (*sections(), *WARNED) if self.summary.get(key)},
        }


def generate(store: Store, spec: ScenarioSpec, *, progress: bool = False, on_step=None, index=None) -> Scenario:
    """``index``: the adjacency index to read; by default the KB's whole one, except behind an
    endpoint (``store.whole_index`` false), where only the neighbourhoods the scenario reads are
    fetched (``generators.neighbourhood``)."""
    if index is None and not store.whole_index:
        from .neighbourhood import generate_around

        return generate_around(store, spec, lambda part: generate(store, spec, progress=progress, on_step=on_step,
                                                                  index=part))
    timings: dict[str, float] = {}
    last = [time.perf_counter()]

    def lap(name: str) -> None:
        # from the last lap's unrounded clock: the sum of rounded laps ran ahead of it ("checks -0.00s")
        now = time.perf_counter()
        timings[name] = round(now - last[0], 3)
        last[0] = now
        if on_step is not None:
            on_step(name)

    profiles.known_predicate(store, spec.predicate)  # a clear error for an unknown predicate, first
    whole = index is None
    index = load_adjacency(store, progress=progress) if whole else index
    if spec.predicate not in index.pindex:
        raise SpecError("predicate", f"{spec.predicate} has no fact between entities (only literal values)")
    ranked = positives.ranking(store, spec, progress=progress, index=None if whole else index).facts
    kb_pairs = positives.kb_pairs(store, spec.predicate, index=None if whole else index)
    context = NegativeContext.build(store, spec, index, kb_pairs,
                                    positives.sorted_pairs(store, spec.predicate, None if whole else index))
    kinds, left_out = [], {}
    if spec.factbench:
        ranked, kinds, left_out = _factbench_kinds(context, spec, ranked)
    dated = "date" in kinds
    lap("statistics")

    n_test_true, n_test_false = spec.test_counts
    n_train_true, n_train_false = spec.train_counts
    # LCWA pairs: its false facts are made from the scenario's own true facts (see _paired)
    matching: dict[str, object_room.Matched] = {}
    test_ranked = _candidates(context, spec, ranked, n_test_true, n_test_false, matching, "test")
    test_true, test_clusters = positives.select(test_ranked, n_test_true, spec, store=store, purpose="test", progress=progress)
    taken = {f.pair for f in test_true}
    test_entities = {e for f in test_true for e in f.pair}
    # Only as many candidates as the train set can use are read from the ranking; when fewer
    # are found the ranking was exhausted, and select() reports the true number available.
    wanted = n_train_true if spec.homogeneity <= 0 else min(positives.POOL_LIMIT, positives.POOL_FACTOR * n_train_true)
    eligible = (f for f in ranked if f.pair not in taken and
                not (spec.entity_disjoint and (f.s in test_entities or f.o in test_entities)))
    rest = _candidates(context, spec, eligible, n_train_true, n_train_false, matching, "train", wanted) \
        if n_train_true else []
    train_true, train_clusters = positives.select(rest, n_train_true, spec, store=store, purpose="train",
                                                  progress=progress) if n_train_true else ([], {})
    lap("true facts")

    ledger = context.ledger
    ledger.used = {f.triple for f in test_true + train_true}
    train_entities = {e for f in train_true for e in f.pair}
    ledger.forbidden = train_entities if spec.entity_disjoint else set()
    test_false = _negatives(context, spec, test_true, n_test_false, "test", kinds)
    if spec.entity_disjoint:
        ledger.forbidden = test_entities | {e for n in test_false for e in n.fact.pair}
    train_false = _negatives(context, spec, train_true, n_train_false, "train", kinds) if n_train_false else []
    lap("false facts")

    clusters = {**test_clusters, **train_clusters}
    test = _number("test", test_true, test_false, spec)
    train = _number("train", train_true, train_false, spec)
    answers = _answers(test + train, {n.fact: n for n in test_false + train_false}, clusters)
    removed = ReferenceKB.around(store, test_true + [n.fact for n in test_false], spec.leakage, spec.predicate,
                                 index=index, kb_pairs=kb_pairs).removed
    lap("reference")
    version = __version__
    fingerprint = store.fingerprint()
    scenario = Scenario(id=spec.scenario_id(fingerprint, version), spec=spec, fingerprint=fingerprint,
                        version=version, test=test, train=train, answers=answers, removed=removed,
                        summary=_summary(test_false, train_false, test, train, spec, (kinds, left_out), matching),
                        dated=dated,
                        timings=timings, index=index)
    check_invariants(scenario, context, kb_pairs)
    lap("checks")
    return scenario


PAIR_BATCH = 500  # ranked facts whose LCWA candidates are read at a time


def _candidates(context: NegativeContext, spec: ScenarioSpec, ranked, n_true: int, n_false: int,
                matching: dict, split: str, wanted: int | None = None):
    """The true-fact candidates of a split: for a kind that re-pairs a true fact's subject with
    an object of its choice (``matched_objects``), the ranking's head with objects the false side
    can match (``object_room``, noted in ``matching``); else LCWA's pairs first (``_paired``).
    Clustering (homogeneity > 0), FactBench kinds and a popular or unpopular ranking choose as
    before: a set asked to be the most (least) popular facts is that, and the audit says what it
    gives away (matched, the most popular birthPlace facts no longer showed their degree shortcut)."""
    if SAMPLERS[spec.ambiguous].matched_objects and not spec.factbench and spec.homogeneity <= 0 \
            and spec.popularity == "random":
        # LCWA's pairs, and its room of one false object per subject, matter only where LCWA makes
        # false facts: at transparency 1 re-pairing makes them all (docs/performance.md, session 19)
        paired = bool(SAMPLERS[spec.ambiguous].pairing_sides) and n_false > int(round(spec.transparency * n_false))
        if paired:  # LCWA's pairs stay first, matched as far as they go
            ranked = _paired(context, spec, ranked, n_true, n_false, n_true * (1 + object_room.SCAN_FACTOR))
        matching[split] = object_room.matchable(context, ranked, n_true, n_false, one_each=paired)
        return matching[split].facts
    return _paired(context, spec, ranked, n_true, n_false, wanted)


def _paired(context: NegativeContext, spec: ScenarioSpec, ranked, n_true: int, n_false: int,
            wanted: int | None = None) -> list[Fact]:
    """The true-fact candidates of a split, in ranking order, with LCWA's pairs first.

    An LCWA false fact p(s, o') is derived from a true fact p(s, o) of the set (Huynh & Papotti):
    s keeps p(s, o) and links to o' by another predicate. So at c < 1 the first k true facts
    (k = the split's LCWA false facts) are the best-ranked facts whose *subject* gives an LCWA
    false fact (object side); the rest follow the ranking as before. Drawing the true facts
    without this left LCWA to borrow most of its sources outside the scenario, about subjects
    with more links than the scenario's own, and the audit's degree baseline flagged it
    (docs/performance.md); paired, a false fact's subject is a true fact's subject, with
    the same degree in R. Only when homogeneity is 0: clustering chooses its own facts.
    Reads the ranking a batch at a time, only as far as the k pairs need and at most
    ``SCAN_PER_FALSE_FACT`` facts per pair: where neighbours are scarce (CoDEx's occupations) the
    whole ranking gave a handful, at the cost of every fact's neighbours; ``wanted`` candidates
    in all (at least ``n_true``; None: the ranking itself when nothing is paired) are returned
    when the ranking has them.
    """
    sides = SAMPLERS[spec.ambiguous].pairing_sides
    k = 0 if spec.factbench or not sides or spec.homogeneity > 0 else \
        min(n_true, n_false - int(round(spec.transparency * n_false)))
    if k <= 0:
        return ranked if wanted is None else list(islice(ranked, wanted))
    wanted = n_true if wanted is None else max(wanted, n_true)
    ranked = iter(ranked)
    maker = sampler(spec.ambiguous)
    pairs: list[Fact] = []
    rest: list[Fact] = []
    budget = SCAN_PER_FALSE_FACT * k
    while len(pairs) < k and budget > 0:
        batch = list(islice(ranked, min(PAIR_BATCH, budget)))
        budget -= len(batch)
        if not batch:
            break
        for fact, ok in zip(batch, maker.productive(context, batch, sides=sides)):
            (pairs if ok and len(pairs) < k else rest).append(fact)
    rest += list(islice(ranked, max(0, wanted - len(pairs) - len(rest))))
    return pairs + rest[: wanted - len(pairs)]


def _factbench_kinds(context: NegativeContext, spec: ScenarioSpec, ranked) -> tuple[list, list[str], dict[str, str]]:
    """The FactBench kinds to make, and why any kind of ``mix`` is left out: ``mix`` takes the
    kinds this KB supports, so a KB without dated facts still gets one. With ``date`` among them
    the true facts are the dated ones, so every fact has dates whatever its label."""
    from .negatives import factbench

    dated = _with_dates(context.kb.store, spec, ranked) if "date" in spec.factbench or factbench.MIX in spec.factbench else []
    if "date" in spec.factbench and not dated:
        raise SpecError("factbench", f"date corruption needs dated facts, and no fact of {spec.predicate} has dates")
    left_out = factbench.supported(context, bool(dated)) if factbench.MIX in spec.factbench else {}
    kinds = factbench.resolve(spec.factbench, left_out)
    if not kinds:
        raise SpecError("factbench", f"this KB supports none of the kinds of mix ({'; '.join(sorted(set(left_out.values())))})")
    return (dated if "date" in kinds else ranked), kinds, left_out


def _with_dates(store: Store, spec: ScenarioSpec, ranked: list[Fact]) -> list[Fact]:
    dates: dict[tuple[str, str], tuple[str, str | None]] = {}
    for row in store.select("fact_dates", predicate=iri(spec.predicate)):
        pair = (row["s"].value, row["o"].value)
        if pair not in dates:
            dates[pair] = (row["start"].value, row["end"].value if "end" in row else None)
    return [Fact(f.s, f.p, f.o, dates[f.pair][0], dates[f.pair][1] or dates[f.pair][0])
            for f in ranked if f.pair in dates]


def _sampler_names(spec: ScenarioSpec, kinds: list[str]) -> list[str]:
    """The samplers a scenario's false facts come from (``kinds``: the FactBench kinds made)."""
    return [name for name, _ in _plan(spec, kinds, 0)]


def _plan(spec: ScenarioSpec, kinds: list[str], n: int) -> list[tuple[str, int]]:
    """[(sampler name, count), ...] for a split's ``n`` false facts."""
    if spec.factbench:
        from .negatives.factbench import plan as factbench_plan

        plan = factbench_plan(kinds, n)
    else:
        n_random = int(round(spec.transparency * n))
        # The constrained kind first: random re-pairing then gives its false facts to the subjects
        # the ambiguous kind left without one (Ledger.subject_uses).
        plan = [(spec.ambiguous, n - n_random), (transparent().name, n_random)]
    return plan


def _negatives(context: NegativeContext, spec: ScenarioSpec, sources: list[Fact], n: int, split: str,
               kinds: list[str]) -> list[Negative]:
    plan = _plan(spec, kinds, n)
    made = context.ledger.start_split(n)  # samplers balance objects against what is already made (ObjectBalance)
    for kind, count in plan:
        if count <= 0:
            continue
        rng = stream(spec.seed, f"negatives/{split}/{kind}")
        maker = sampler(kind)
        got = maker.sample(context, sources, count, rng)
        if len(got) < count:
            why = getattr(maker, "shortfall", "")
            raise NotEnoughFacts(
                f"made only {len(got)} of the {count} '{kind}' false facts asked for the {split} set "
                f"of {spec.predicate}{f' ({why})' if why else ''}: {maker.advice}", maker.knob)
        made += got
    return made


def _number(split: str, true: list[Fact], false: list[Negative], spec: ScenarioSpec) -> list[LabelledFact]:
    """The split in its published order, numbered along it: the order is the facts' own
    (``fact_order``), so neither it nor an id tells a label to whoever knows the seed."""
    items = [(f, True) for f in true] + [(n.fact, False) for n in false]
    sort_key = order_key(spec.seed)
    items = sorted(items, key=lambda item: sort_key(item[0]))
    prefix = "te" if split == "test" else "tr"
    return [LabelledFact(f"{prefix}{i:05d}", fact, label, split) for i, (fact, label) in enumerate(items, 1)]


def _answers(facts: list[LabelledFact], negatives: dict[Fact, Negative], clusters: dict[Fact, int]) -> dict[str, dict]:
    answers = {}
    for item in facts:
        if item.label:
            entry = {"label": True, "kind": "true"}
            if item.fact in clusters:
                entry["cluster"] = clusters[item.fact]
        else:
            entry = {"label": False, **negatives[item.fact].provenance()}
        answers[item.id] = entry
    return answers


def _summary(test_false, train_false, test, train, spec: ScenarioSpec, factbench_kinds, matching: dict) -> dict:
    def per_kind(items):
        return dict(sorted(Counter(n.kind for n in items).items()))

    negatives = test_false + train_false
    # Kinds are unique within a scenario: FactBench's replace the random/ambiguous mix.
    made_by = {SAMPLERS[name].kind: SAMPLERS[name] for name in _sampler_names(spec, factbench_kinds[0])}
    drift_source = Counter(way for way in (made_by[n.kind].drift(n) for n in negatives) if way)
    ambiguous = sum(drift_source.values())
    # ties go to the first name, as in the audit's report of the same scenario
    top = [min(drift_source.items(), key=lambda item: (-item[1], item[0]))] if drift_source else []
    return {
        "counts": {
            "test": {"true": sum(f.label for f in test), "false": sum(not f.label for f in test), "false_by_kind": per_kind(test_false)},
            "train": {"true": sum(f.label for f in train), "false": sum(not f.label for f in train), "false_by_kind": per_kind(train_false)},
        },
        # Transparency steers only the random/ambiguous mix; FactBench kinds replace that mix.
        "transparency": None if spec.factbench else {
            "asked": spec.transparency,
            "made": round(sum(n.kind == transparent().kind for n in negatives) / len(negatives), 4) if negatives else None},
        "drift": {"top": top[0][0], "share": round(top[0][1] / ambiguous, 4)} if top else None,
        **{key: cls.summarize(negatives, spec, *factbench_kinds) for key, cls in sections().items()},
        **_true_objects(matching),
        **_false_subjects({"test": test, "train": train}),
    }


def _true_objects(matching: dict[str, object_room.Matched]) -> dict:
    """The summary's ``true_objects`` section, when choosing true facts with matchable objects
    changed the set or could not do it: the set then differs from the ranking's head, or an
    object's count tells the label, and either is said."""
    replaced = sum(m.swapped for m in matching.values())
    unmatched = [{"split": split, "object": o, "false_facts_owed": owed, "subjects_that_can_take_it": room}
                 for split, m in matching.items() for o, (owed, room) in m.unmatched.items()]
    if not replaced and not unmatched:
        return {}
    section = {"replaced": replaced, "note": "true facts whose object was owed more false facts than the set's "
               "subjects could take gave way to later facts of the ranking", "unmatched": unmatched}
    if unmatched:
        section["warning"] = ("; ".join(f"{u['object']} ({u['split']}) is owed {u['false_facts_owed']:g} false facts "
                                        f"but only {u['subjects_that_can_take_it']} subjects can take it"
                                        for u in unmatched)
                              + ": how often such an object occurs among true and false facts tells their labels")
    return {"true_objects": section}


def _false_subjects(splits: dict[str, list[LabelledFact]]) -> dict:
    """The summary's ``false_subjects`` section, when a split's subjects are not false as often as
    true: how many subjects of its true facts have no false fact, and how many subjects have more
    false facts than true ones. The audit's frequency and degree baselines read this balance, and a
    sampler can fall short of it where the KB gives some subjects no false fact (LCWA on CoDEx
    P17), so it is counted from the split's own facts, whatever the kind of false fact."""
    section = {}
    for split, items in splits.items():
        true = Counter(i.fact.s for i in items if i.label)
        false = Counter(i.fact.s for i in items if not i.label)
        without = sum(s not in false for s in true)
        more = sum(n > true[s] for s, n in false.items())
        if without or more:
            section[split] = {"subjects": len(true), "without_false_fact": without, "more_false_than_true": more}
    if not section:
        return {}
    section["warning"] = ("; ".join(f"{split}: {c['without_false_fact']} of {c['subjects']} subjects without a false fact, "
                                    f"{c['more_false_than_true']} with more false facts than true ones"
                                    for split, c in section.items())
                          + ": how often a subject occurs among true and false facts tells their labels")
    return {"false_subjects": section}


def warnings(sections: dict) -> dict[str, str]:
    """The warning of each ``WARNED`` section a summary or a manifest carries, by section name."""
    return {key: sections[key]["warning"] for key in WARNED if (sections.get(key) or {}).get("warning")}


def check_invariants(scenario: Scenario, context: NegativeContext, kb_pairs: set[tuple[str, str]]) -> None:
    """Every promise of a scenario, checked on every scenario (not only in tests)."""
    spec = scenario.spec
    problems = []
    seen: set = set()
    for item in scenario.facts:
        f = item.fact
        key = (f.s, f.p, f.o, f.start, f.end)
        if key in seen:
            problems.append(f"duplicate fact {key}")
        seen.add(key)
        if f.s == f.o:
            problems.append(f"{item.id}: subject equals object")
        if item.label and f.p == spec.predicate and f.pair not in kb_pairs:
            problems.append(f"{item.id}: true fact not in the KB")
        answer = scenario.answers[item.id]
        if not item.label and answer["kind"] not in kept_in_kb() and context.kb.in_kb(f):
            problems.append(f"{item.id}: false fact is in the KB")
    test_pairs = {i.fact.pair for i in scenario.test}
    if any(i.fact.pair in test_pairs for i in scenario.train):
        problems.append("a (subject, object) pair is in both train and test")
    if spec.entity_disjoint:
        test_entities = {e for i in scenario.test for e in i.fact.pair}
        if any(e in test_entities for i in scenario.train for e in i.fact.pair):
            problems.append("train and test share an entity although entity_disjoint was asked")
    want = {"test": spec.test_counts, "train": spec.train_counts}
    for split, items in (("test", scenario.test), ("train", scenario.train)):
        got = (sum(i.label for i in items), sum(not i.label for i in items))
        if got != want[split]:
            problems.append(f"{split}: {got} true/false facts, {want[split]} asked")
    if problems:
        raise InvariantError("; ".join(problems[:10]))
