"""FactBench's corruptions (Gerber et al., DeFacto / FactBench 1.0) as negative kinds.

From a true fact p(s, o), each kind replaces some of its parts (all random choices come from the seeded
generator passed in):

* ``factbench:domain``: p(s', o), s' another subject of p;
* ``factbench:range``: p(s, o'), o' another object of p;
* ``factbench:domainrange``: p(s', o'), both replaced;
* ``factbench:property``: p'(s, o), p' another property that subjects of p have (``_Pools``), with
  p'(s, o) absent from the KB. (s, o) is the pair of a true fact of p outside the scenario
  (``pair_from`` in the answers; the source's own pair only when the KB has none left): with the
  source's own pair every property false fact repeated the pair of a true fact of the set;
* ``factbench:random``: p'(s', o'), all three replaced (s' a subject of p, o' an object of p);

``property`` and ``random`` give a fact another predicate than the scenario's, so the Relation
column alone tells those false facts from the true ones (``CHANGES_PREDICATE``; the scenario's
summary and manifest say so). p' is never a schema predicate (the adjacency index has none) nor one
only the ontology's resources use (``cc:license`` of the ontology document): it is drawn from the
predicates the subjects of p have.
* ``factbench:date``: the same (s, p, o) with other dates. A timepoint (start == end) moves by
  round(N(0, 5)) years; a timespan gets its start from round(N(from, 2)) and its length from
  round(N(to - from, 5)) years (>= 0). Only the year changes: month and day are kept (29 February
  becomes the 28th in a common year), so a false date has exactly the lexical form, hence the
  precision and datatype, of the true one; FactBench's own wrong models give years where the
  correct ones give full dates, which tells a classifier the label. The new dates differ (at the
  year grain) from every dating the KB holds for the triple, and no year exceeds
  ``spec.latest_year``.

Every false fact passes ``context.acceptable`` (``dated=True`` for date corruptions, whose triple
is true by design) and is taken with ``context.ledger.take``. The kinds that replace entities or the
property also never reuse a (subject, object) pair the scenario already holds (other than the
property kind's own source pair), which keeps train and test pair-disjoint although the
predicate varies. In a dated scenario the entity and property corruptions carry their source's
dates, as FactBench's do, so every fact has dates whatever its label. Sources are drawn least
used first over all the kinds of a scenario (``Ledger.source_uses``): with as many false facts as true
ones each true fact gives one false fact, so the false facts' date forms are the true facts'.

``Negative.kind`` is the bare FactBench kind (``domain``, ..., ``date``): the scenario's answers,
summary and invariants read it (``date`` negatives are exempt from the not-in-KB check), and the
FactBench layout writer files each false fact under ``wrong/<kind>/``. ``detail`` names the
replaced parts and their original values (``{"replaced": [...], "original": {...}}``).

``plan(kinds, n)`` splits ``n`` false facts into equal shares over the listed kinds, exactly
(largest remainder; the remainders are all equal, so ties go to the kinds in FactBench's order).
``mix`` stands for an equal share of each of the six kinds, and as it holds every kind it
absorbs any kind listed beside it. ``resolve`` turns ``mix`` into the kinds the KB supports
(``supported``: ``date`` needs dated facts of p, ``property`` and ``random`` another predicate),
so a KB without dates still gets a mix.
"""
from __future__ import annotations

import math
import re
import numpy as np

from factforge.sparql.scan import unique
from factforge.sparql.terms import iri

from ..facts import Fact, Negative
from .base import NegativeContext, NegativeSampler

PREFIX = "factbench:"
MIX = "mix"  # an equal share of every kind the KB supports
ATTEMPTS_PER_FACT = 50
TRIES_PER_SOURCE = 10
TIMEPOINT_VARIANCE = 5.0   # years², around the true year
START_VARIANCE = 2.0       # years², around the true start of a timespan
DURATION_VARIANCE = 5.0    # years², around the true length of a timespan
_LEXICAL = re.compile(r"^(-?)(\d{4,})(.*)$")



def supported(context: NegativeContext, has_dates: bool) -> dict[str, str]:
    """Why each kind this KB cannot make is left out of ``mix``, by kind (empty: all six)."""
    pools = _Pools(context)
    missing = {}
    if len(pools.subjects) < 2:
        missing["domain"] = missing["domainrange"] = f"{context.predicate} has fewer than two subjects"
    if len(pools.objects) < 2:
        missing["range"] = missing["domainrange"] = f"{context.predicate} has fewer than two objects"
    if not pools.predicates:
        missing["property"] = missing["random"] = f"the subjects of {context.predicate} have no other predicate"
    if not has_dates:
        missing["date"] = f"no fact of {context.predicate} has dates"
    return {kind: missing[kind] for kind in KINDS if kind in missing}


def resolve(kinds, missing: dict[str, str]) -> list[str]:
    """The kinds to make, in FactBench's order: ``mix`` is every kind not in ``missing``."""
    if MIX in kinds:
        return [k for k in KINDS if k not in missing]
    return [k for k in KINDS if k in kinds]


def plan(kinds, n: int) -> list[tuple[str, int]]:
    """[(sampler name, count), ...] for ``n`` false facts over ``kinds``; the counts sum to ``n``."""
    kinds = list(kinds)
    unknown = [k for k in kinds if k not in KINDS and k != MIX]
    if unknown:
        raise ValueError(f"factbench: unknown corruption kind {unknown[0]!r} (known: {', '.join(KINDS)}, {MIX})")
    if n < 0:
        raise ValueError(f"factbench: cannot plan {n} false facts")
    chosen = list(KINDS) if MIX in kinds else [k for k in KINDS if k in kinds]
    if not chosen:
        raise ValueError("factbench: no corruption kind given")
    share, left = divmod(n, len(chosen))
    return [(PREFIX + kind, share + (i < left)) for i, kind in enumerate(chosen)]


# --- the samplers ------------------------------------------------------------------------------

class _Pools:
    """What the corruptions draw from, in a fixed order so a seed gives the same choices.

    The other predicates are those that link a subject of p to an entity: the adjacency index
    holds no schema predicate, and a predicate of the ontology's own resources (``cc:license``
    of the ontology document) is not one the subjects of p have."""

    def __init__(self, context: NegativeContext):
        pairs = context.kb.kb_pairs
        self.subjects = sorted({s for s, _ in pairs})
        self.objects = sorted({o for _, o in pairs})
        index = context.kb.adjacency  # its predicate list also names those with literal values only
        index.need(np.flatnonzero(context.kb.subjects_mask))
        linking = unique(index.pred[context.kb.subjects_mask[index.src]]).tolist() if index.size else []
        self.predicates = [index.predicates[i] for i in linking if index.predicates[i] != context.predicate]
        self.pairs = self.held(context)
        self.kb_pairs = context.kb.pairs_in_order()

    @staticmethod
    def held(context: NegativeContext) -> set[tuple[str, str]]:
        """The (s, o) pairs already in the scenario."""
        return {(key[0], key[2]) for key in context.ledger.used}

    @staticmethod
    def pick(items: list[str], rng: np.random.Generator, avoid: str | None = None) -> str | None:
        if not items or (len(items) == 1 and items[0] == avoid):
            return None
        while True:
            item = items[int(rng.integers(len(items)))]
            if item != avoid:
                return item


class FactBenchSampler(NegativeSampler):
    """Corruptions of the sources, least used first (ties in a seeded order), a few tries each."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.query = "negatives_" + cls.name.replace(":", "_")  # negatives_factbench_domain ...

    family = section = "factbench"
    knob = "factbench"
    advice = "lower size or choose other factbench kinds"

    @classmethod
    def summarize(cls, negatives, spec, kinds, left_out) -> dict | None:
        """The kinds made (``mix`` resolved against the KB), and the false facts whose predicate is
        not the scenario's: for those the predicate alone gives the label."""
        if not spec.factbench:
            return None
        changed = sum(n.fact.p != spec.predicate for n in negatives)
        return {
            "asked": list(spec.factbench), "kinds": list(kinds), "left_out": dict(left_out),
            "predicate_changed": {
                "kinds": [k for k in kinds if k in CHANGES_PREDICATE], "false_facts": changed,
                "note": "these false facts have another predicate than the scenario's: the predicate (the "
                        "Relation column) alone tells them from the true facts"} if changed else None,
        }

    def corrupt(self, context: NegativeContext, pools: _Pools, source: Fact, rng) -> Negative | None:
        raise NotImplementedError

    def prepare(self, context: NegativeContext, sources: list[Fact]) -> None:
        """Read anything the corruption needs once per call."""

    def outcomes(self, pools: _Pools, source: Fact) -> list[Negative]:
        """Every corruption of ``source`` that ``corrupt`` may draw."""
        raise NotImplementedError

    def candidates(self, context: NegativeContext, sources: list[Fact]) -> list[Negative]:
        pools = _Pools(context)
        found = [neg for source in sources for neg in self.outcomes(pools, source) if self._fresh(pools.pairs, neg)]
        context.near.screen(neg.fact for neg in found)
        return [neg for neg in found if context.acceptable(neg.fact, dated=self.dated)]

    def post_filter(self, context: NegativeContext, negative: Negative) -> bool:
        return (self._fresh(_Pools.held(context), negative)
                and context.post_filter(negative.fact, dated=self.dated))

    def sample(self, context: NegativeContext, sources: list[Fact], n: int, rng) -> list[Negative]:
        chosen: list[Negative] = []
        if not sources or n <= 0:
            return chosen
        pools = _Pools(context)
        self.prepare(context, sources)
        # With as many false facts as true ones every true fact gives one (FactBench's one wrong
        # model per correct one, per kind), and the false facts copy the true facts' date forms.
        uses = context.ledger.source_uses
        tie = rng.random(len(sources))
        budget = n * ATTEMPTS_PER_FACT
        while len(chosen) < n and budget > 0:
            # One pass over the sources, least used first (by every kind of this scenario so far).
            for i in sorted(range(len(sources)), key=lambda i: (uses[sources[i]], tie[i])):
                if len(chosen) >= n or budget <= 0:
                    break
                for _ in range(min(TRIES_PER_SOURCE, budget)):
                    budget -= 1
                    negative = self.corrupt(context, pools, sources[i], rng)
                    if negative is None or not self._fresh(pools.pairs, negative):
                        continue
                    if context.acceptable(negative.fact, dated=self.dated):
                        context.ledger.take(negative)
                        pools.pairs.add(negative.fact.pair)
                        uses[sources[i]] += 1
                        chosen.append(negative)
                        break
        return chosen

    def _fresh(self, held: set[tuple[str, str]], negative: Negative) -> bool:
        """A new (s, o) pair, or the source's own (same split) when only the dates change, or when
        the property kind found no other pair."""
        pair = negative.fact.pair
        if self.kind == "date":
            return pair == negative.source.pair
        return pair not in held or (self.kind == "property" and pair == negative.source.pair)

    def _negative(self, source: Fact, s: str, p: str, o: str, **original) -> Negative:
        fact = Fact(s, p, o, source.start, source.end)
        return Negative(fact, self.kind, source, {"replaced": list(original), "original": original})


class DomainCorruption(FactBenchSampler):
    kind, name = "domain", PREFIX + "domain"

    def outcomes(self, pools, source):
        return [self._negative(source, s, source.p, source.o, subject=source.s) for s in pools.subjects if s != source.s]

    def corrupt(self, context, pools, source, rng):
        s = pools.pick(pools.subjects, rng, avoid=source.s)
        return None if s is None else self._negative(source, s, source.p, source.o, subject=source.s)


class RangeCorruption(FactBenchSampler):
    kind, name = "range", PREFIX + "range"

    def outcomes(self, pools, source):
        return [self._negative(source, source.s, source.p, o, object=source.o) for o in pools.objects if o != source.o]

    def corrupt(self, context, pools, source, rng):
        o = pools.pick(pools.objects, rng, avoid=source.o)
        return None if o is None else self._negative(source, source.s, source.p, o, object=source.o)


class DomainRangeCorruption(FactBenchSampler):
    kind, name = "domainrange", PREFIX + "domainrange"

    def outcomes(self, pools, source):
        return [self._negative(source, s, source.p, o, subject=source.s, object=source.o)
                for s in pools.subjects if s != source.s for o in pools.objects if o != source.o]

    def corrupt(self, context, pools, source, rng):
        s = pools.pick(pools.subjects, rng, avoid=source.s)
        o = pools.pick(pools.objects, rng, avoid=source.o)
        if s is None or o is None:
            return None
        return self._negative(source, s, source.p, o, subject=source.s, object=source.o)


class PropertyCorruption(FactBenchSampler):
    kind, name = "property", PREFIX + "property"
    changes_predicate = True
    PAIR_TRIES = 20  # draws of a KB pair outside the scenario before the source's own pair is used

    def outcomes(self, pools, source):
        return [self._negative(source, s, p, o, predicate=source.p)
                for p in pools.predicates if p != source.p for s, o in pools.kb_pairs]

    def corrupt(self, context, pools, source, rng):
        p = pools.pick(pools.predicates, rng, avoid=source.p)
        if p is None:
            return None
        s, o = self._pair(pools, source, rng)
        negative = self._negative(source, s, p, o, predicate=source.p)
        negative.detail["pair_from"] = {"subject": s, "predicate": source.p, "object": o}
        return negative

    def _pair(self, pools: _Pools, source: Fact, rng) -> tuple[str, str]:
        """A (s, o) of a true fact of p that the scenario does not hold, else the source's own."""
        pairs = pools.kb_pairs
        if len(pairs) > len(pools.pairs):
            for _ in range(self.PAIR_TRIES):
                pair = pairs[int(rng.integers(len(pairs)))]
                if pair not in pools.pairs:
                    return pair
        return source.pair


class RandomCorruption(FactBenchSampler):
    kind, name = "random", PREFIX + "random"
    changes_predicate = True

    def outcomes(self, pools, source):
        return [self._negative(source, s, p, o, subject=source.s, predicate=source.p, object=source.o)
                for s in pools.subjects if s != source.s for p in pools.predicates if p != source.p
                for o in pools.objects if o != source.o]

    def corrupt(self, context, pools, source, rng):
        s = pools.pick(pools.subjects, rng, avoid=source.s)
        p = pools.pick(pools.predicates, rng, avoid=source.p)
        o = pools.pick(pools.objects, rng, avoid=source.o)
        if s is None or p is None or o is None:
            return None
        return self._negative(source, s, p, o, subject=source.s, predicate=source.p, object=source.o)


class DateCorruption(FactBenchSampler):
    kind, name = "date", PREFIX + "date"
    dated = True

    def outcomes(self, pools, source):
        """The source itself, when it has dates: ``corrupt`` draws new ones."""
        return [Negative(source, self.kind, source)] if _split(source.start) and _split(source.end) else []

    def prepare(self, context, sources):
        """Every dating the KB holds for each pair, at the year grain: none may be hit."""
        self.known: dict[tuple[str, str], set[tuple[int, int]]] = {}
        for row in context.kb.store.select("fact_dates", predicate=iri(context.predicate)):
            start = _year(row["start"].value)
            end = _year(row["end"].value) if "end" in row else start
            if start is not None:
                self.known.setdefault((row["s"].value, row["o"].value), set()).add((start, end))
        for f in sources:
            years = (_year(f.start), _year(f.end))
            if years[0] is not None:
                self.known.setdefault(f.pair, set()).add(years)

    def corrupt(self, context, pools, source, rng):
        start, end = _split(source.start), _split(source.end)
        if start is None or end is None:
            return None
        y0, y1 = start[0], end[0]
        if source.start == source.end:
            new0 = new1 = int(round(rng.normal(y0, math.sqrt(TIMEPOINT_VARIANCE))))
        else:
            new0 = int(round(rng.normal(y0, math.sqrt(START_VARIANCE))))
            duration = int(round(rng.normal(y1 - y0, math.sqrt(DURATION_VARIANCE))))
            if duration < 0:
                return None
            new1 = new0 + duration
        latest = context.spec.latest_year
        if max(new0, new1) > latest or (y0 >= 1 and min(new0, new1) < 1):
            return None
        if (new0, new1) in self.known.get(source.pair, ()):
            return None
        first, last = _join(new0, start[1]), _join(new1, end[1])
        if new0 == new1 and start[1] and end[1] and len(start[1]) == len(end[1]) and end[1] < start[1]:
            return None  # same year, and the end's month-day would fall before the start's
        fact = Fact(source.s, source.p, source.o, first, last)
        return Negative(fact, self.kind, source, {"replaced": ["start", "end"],
                                                  "original": {"start": source.start, "end": source.end}})


def _split(value: str | None) -> tuple[int, str] | None:
    """``"1946-07-06"`` -> (1946, ``"-07-06"``): the year and the rest of the lexical form."""
    match = _LEXICAL.match(value) if value is not None else None
    if match is None:
        return None
    sign, digits, rest = match.groups()
    return int(sign + digits), rest


def _year(value: str | None) -> int | None:
    split = _split(value)
    return None if split is None else split[0]


def _join(year: int, rest: str) -> str:
    if rest.startswith("-02-29") and not (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)):
        rest = "-02-28" + rest[6:]
    return f"{'-' if year < 0 else ''}{abs(year):04d}{rest}"


SAMPLERS = (DomainCorruption, RangeCorruption, DomainRangeCorruption, PropertyCorruption, RandomCorruption,
            DateCorruption)
KINDS = tuple(cls.kind for cls in SAMPLERS)  # in FactBench's order
CHANGES_PREDICATE = tuple(cls.kind for cls in SAMPLERS if cls.changes_predicate)
