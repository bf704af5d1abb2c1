"""``lcwa``: false facts under the local closed-world assumption, kept type-consistent.

From a true p(s, o): p(s, o') where s reaches o' through another predicate p', p(s, o') is not in
the KB, and o' shares enough of o's type path; symmetrically p(s', o) from an s' that reaches o
through another predicate, where o shares enough of the type path of an object s' already has.
The alternative predicate p' is kept as provenance: the share of the most frequent one is the
paper's "location drift".

The closed-world assumption is local to the *subject of the false fact*: its p-facts are taken as
complete, so that subject must have p-facts in the KB. On the object side that is s itself; on
the subject side s' must have p-facts of its own. Without that, "X died in London" would make
"X was born in London" false for a person whose birthplace the KB does not know at all; on
DBpedia50, with a fifth of birthPlace held out, such candidates were often true (docs/performance.md).

On a flat, Wikidata-style KB a subject's other neighbours are rarely of o's kind (a person's are
occupations, awards, genres, not countries), and on CoDEx-S the neighbourhood gave no candidate at
all for most relations. The brief's definition asks less: s has p-facts, p(s, o') is absent and o'
is type-consistent with o. So where the neighbourhoods give too few, the rest take o' from p's
observed range, the objects of p's facts in the KB (side ``range``, marked ``fallback`` in the
answers; the summary's ``lcwa`` section gives the neighbour-made share, as random walk's gives
the walk-made one). Objects owed to the set come first (``ObjectBalance``), each source taking the
one the subjects still to come can least pay (an object can only go to subjects that lack it);
then the others in an order weighted by how often p has them as object: drawn evenly from the
distinct objects, a false object would mostly be a rare one, and popularity alone would tell it
from a true one. The scenario picks its true facts so that one false fact per subject can pay
every object's debt (``object_room.matchable``'s ``one_each``), and a source the owed round
leaves without an object gets one by trades with the others (``debt_paths``).
Neighbours give a subject no more false facts than it has true ones in the split: a few subjects
linked to many entities of the object's kind (a country with diplomatic relations to dozens) took
most of them otherwise, and the range fallback gives the others theirs.

The scenario pairs true and false facts: at c < 1 its first true facts are ones whose subject
gives an object-side false fact (``productive``; see ``generators.scenario._paired``), so that a
false fact's subject is a true fact's subject, with the same degree in the reference KB. Where
neighbours are scarce that search reads at most ``SCAN_PER_FALSE_FACT`` true facts per false fact
wanted, not the whole ranking, and the range fallback makes the rest from the scenario's own true
facts. Only when those still give too few, true facts of p outside the scenario serve as sources
too (marked ``source_outside_scenario`` in the answers), as many as that bound allows: their
subjects are the rare ones with many links (the audit's degree baseline saw them), and reading
them before the fallback scanned every fact of p on CoDEx.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import islice

import numpy as np

from factforge.sparql.scan import unique
from factforge.sparql.terms import compact

from ..facts import Fact, Negative
from .base import (NegativeContext, NegativeSampler, ObjectBalance, any_acceptable, fallback_section,
                   first_acceptable, round_robin)
from .debt_paths import augment
from .nearness import runs
from .plausibility import reach_of, walk_reach

EXTRA_BATCH = 500
# True facts whose neighbours are read per false fact wanted, at most: where fewer than one in this
# many gives a neighbour-made false fact, the fallback makes nearly all of them anyway.
SCAN_PER_FALSE_FACT = 50
RANGE_CHUNK = 64  # fallback objects per source offered to one round-robin pass
FALLBACK = "o' from the predicate's observed range (objects of its facts), not from s's neighbours"


class LocalClosedWorld(NegativeSampler):
    name = kind = section = "lcwa"
    ambiguous = True
    advice = "raise transparency, lower size, lower type_overlap, or use ambiguous=random_walk"
    pairing_sides = ("object",)  # p(s, o') keeps the subject of a true p(s, o)
    matched_objects = True  # the range fallback re-pairs a subject with an object of its choice
    query = "negatives_lcwa"

    def _fallback_negative(self, context: NegativeContext, source: Fact, o: str) -> Negative:
        return Negative(Fact(source.s, context.predicate, o), self.name, source, {"side": "range", "fallback": FALLBACK})

    def sample(self, context: NegativeContext, sources: list[Fact], n: int, rng) -> list[Negative]:
        # A neighbour's object only while it is owed (``ObjectBalance.paid``), and no subject more
        # often false than true (a subject new to the set, which the subject side brings, once);
        # the range fallback, which gives every subject its first false fact before any a second,
        # makes the rest. Drawn freely, s's other links lead to hubs, and the few sources with many
        # links to the object's kind take most of the false facts pass after pass: the object,
        # degree, frequency and subject baselines then tell the labels (CoDEx P19, P17, P26 in
        # docs/performance.md).
        quota = Counter(f.s for f in sources)
        chosen = self._from(context, sources, n, rng, ObjectBalance(context.ledger, sources, n),
                            most=lambda s: max(quota[s], 1))
        if len(chosen) < n:
            chosen += self.fallback(context, sources, chosen, n - len(chosen), rng)
        if len(chosen) < n:
            # Too few alternatives around the scenario's own facts, even in p's range: take them
            # around other true facts of p, in seeded order, a batch at a time.
            others = islice(context.kb.other_pairs({f.pair for f in sources}, rng), SCAN_PER_FALSE_FACT * (n - len(chosen)))
            while len(chosen) < n:
                batch = [Fact(s, context.predicate, o) for s, o in islice(others, EXTRA_BATCH)]
                if not batch:
                    break
                for negative in self._from(context, batch, n - len(chosen), rng):
                    negative.detail["source_outside_scenario"] = True
                    chosen.append(negative)
        return chosen

    def fallback(self, context: NegativeContext, sources: list[Fact], chosen: list[Negative], n: int,
                 rng) -> list[Negative]:
        """Up to ``n`` false facts p(s, o') of the sources' subjects with o' from p's observed
        range, type-consistent with o: first the objects owed to the set, each source taking the
        one its turn can least spare, those its neighbourhood leads to (``walk_reach``) preferred
        (``_pay_owed``); then the rest, reached objects first in a seeded order weighted by how
        often walks from s end there, then the others weighted by their count as objects of p,
        an object paid passed over while another is left (``round_robin``'s ``balance``);
        offered a chunk per source at a time."""
        objects, counts = context.kb.observed_range()
        if not sources or not objects:
            return []
        context.types.load_types(set(objects) | {f.o for f in sources})
        balance = ObjectBalance(context.ledger, sources, n + len(chosen))
        for negative in chosen:
            balance.owed[negative.fact.o] -= 1
        fitting: dict[frozenset, np.ndarray] = {}  # by a true object's types: the range objects that pass
        index, p = context.kb.adjacency, context.kb.adjacency.pindex.get(context.predicate)
        nodes = np.array([context.kb.node(o) for o in objects], dtype=np.int64)
        fits, reaches = [], []
        for source in sources:
            key = context.types.types(source.o)
            if key not in fitting:
                fitting[key] = np.array([i for i, o in enumerate(objects)
                                         if context.types.type_consistent(source.o, o, stand_in=True)], dtype=np.int64)
            fits.append(fitting[key])
            # By count alone, a false object had nothing to do with its subject, and graph checkers
            # and embeddings told it from the true one where hand-checked negatives, picked among
            # the objects a link predictor ranks high, fooled them (docs/performance.md).
            reaches.append(reach_of(walk_reach(index, context.kb.node(source.s), p, context.kb.node(source.o)),
                                    nodes[fits[-1]]))
        made = self._pay_owed(context, sources, objects, fits, reaches, balance.owed, n, rng)
        # Every subject its first false fact before any takes a second, the object least over its
        # debt where only paid ones are left: a subject left out here would occur once, as a true
        # fact, while the rounds below gave others two or three (P140 on CoDEx, where the few
        # religions of a kind were soon paid), and how often a subject occurs told the label.
        made += self._pay_owed(context, sources, objects, fits, reaches, balance.owed, n - len(made), rng,
                               overpay=True)
        for negative in made:
            balance.took(negative)
        orders = []
        for fit, reach in zip(fits, reaches):
            # an exponential key over the weight: a weighted draw without replacement
            reached = reach > 0
            weighted = rng.exponential(size=len(fit)) / np.where(reached, reach, counts[fit])
            orders.append(fit[np.lexsort((weighted, ~reached))].tolist())
        # Paid objects are passed over while others are left: a popular object drawn again past
        # its debt would be false more often than true. What the subjects cannot pay (English
        # for subjects who speak it already) is then spread over the set's objects in proportion
        # to their true facts, not left to the draw, which gave it to a few; only after that,
        # paid objects are taken again.
        for paying in (balance, "spread", None):
            if paying == "spread":
                if len(made) < n:
                    share = Counter(f.o for f in sources)
                    made += self._pay_owed(context, sources, objects, fits, reaches,
                                           Counter({o: c * (n - len(made)) / len(sources) for o, c in share.items()}),
                                           n - len(made), rng)
                continue
            for start in range(0, max(len(order) for order in orders), RANGE_CHUNK):
                if len(made) >= n:
                    return made
                per_source = [[self._fallback_negative(context, source, objects[i]) for i in order[start:start + RANGE_CHUNK]]
                              for source, order in zip(sources, orders)]
                place = {id(negative): at for c in per_source for at, negative in enumerate(c)}
                made += round_robin(per_source, n - len(made), context, rng, rank=lambda negative: place[id(negative)],
                                    balance=paying)
        return made

    def _pay_owed(self, context: NegativeContext, sources: list[Fact], objects: list[str], fits: list[np.ndarray],
                  reaches: list[np.ndarray], owed: Counter, n: int, rng, overpay: bool = False) -> list[Negative]:
        """False facts with the objects owed to the set, one round: each source (least-used subject
        first) takes the acceptable owed object with the most owed per source still to come that
        could take it, times the square root of how often walks from the source's subject end
        there (``reaches``, by ``fits``). One round only: a second false fact for one subject, while another with no
        owed object left has none yet, would tell the labels by how often a subject occurs.

        A false fact keeps its true fact's subject, so an object can only go to the subjects that
        do not have it: the US, object of 60 of 150 true citizenships on CoDEx, to the other 90.
        Drawn by popularity, or most owed first, those 90 spent their turn on other objects, and
        the US got half its debt while rarer objects of a kind few others share (historical
        states) got two to four times theirs; the object column and type baselines told the
        labels. Taken by reach alone, the most reached objects went to most subjects, with the
        same effect; with the root, reach decides between objects about as short of takers (with
        reach itself, P1412's type baseline went above 0.6 at seed 0).

        ``overpay``: only the sources whose subject has no false fact yet, each taking any
        acceptable object, the most owed (least overpaid) first, then the most reached."""
        at = {o: i for i, o in enumerate(objects)}
        owed = np.array([owed[o] for o in objects], dtype=np.float64)
        tie = rng.permutation(len(objects))
        visit = rng.permutation(len(sources))
        # a source's candidates: owed objects other than its own (which the KB already holds)
        keep = [((owed[fit] > 0) | overpay) & (fit != at.get(source.o, -1)) for source, fit in zip(sources, fits)]
        lines = [fit[k] for fit, k in zip(fits, keep)]
        reached = [reach[k] for reach, k in zip(reaches, keep)]
        turn = sorted(range(len(sources)), key=lambda k: (context.ledger.split_uses[sources[k].s], visit[k]))
        if overpay:
            turn = [k for k in turn if not context.ledger.split_uses[sources[k].s]]
        able = np.zeros(len(objects), dtype=np.float64)  # sources still to come, per object
        for k in turn:
            np.add.at(able, lines[k], 1)
        held: dict[int, int] = {}  # source -> the object it takes
        taken: set[tuple[str, int]] = set()  # (subject, object): a subject with two sources takes an object once
        for k in turn:
            if len(held) >= n:
                break
            left = (owed[lines[k]] > 0) | overpay
            line = lines[k][left]
            reach = reached[k][left]
            if overpay:
                line = line[np.lexsort((tie[line], -reach, -owed[line]))]
            else:
                # unreached objects keep a small weight, so that owing still orders them
                weight = np.sqrt(reach + reach[reach > 0].min(initial=1.0) * 1e-3)
                line = line[np.lexsort((tie[line], -owed[line] / able[line] * weight))]
            able[lines[k]] -= 1
            s = sources[k].s
            fact = first_acceptable(context, s, (objects[i] for i in line.tolist() if (s, i) not in taken))
            if fact is None:
                continue
            held[k] = at[fact.o]
            taken.add((s, held[k]))
            owed[held[k]] -= 1
        if not overpay and len(held) < n:
            held = self._trade(context, sources, objects, lines, turn, held, owed, n)
        made = []
        for k in turn:
            if k in held:
                negative = self._fallback_negative(context, sources[k], objects[held[k]])
                context.ledger.take(negative)
                made.append(negative)
        return made

    def _trade(self, context: NegativeContext, sources: list[Fact], objects: list[str], lines: list[np.ndarray],
               turn: list[int], held: dict[int, int], owed: np.ndarray, n: int) -> dict[int, int]:
        """``held`` with the sources the round left without an owed object given one by trades
        (``debt_paths``); ``owed`` is paid for them."""
        spare = {int(i): int(np.ceil(owed[i])) for i in np.flatnonzero(owed > 0).tolist()}
        known: dict[tuple[int, int], bool] = {}

        def fits(k: int, i: int) -> bool:
            s = sources[k].s
            if any(held.get(j) == i for j in same[s] if j != k):
                return False
            if (k, i) not in known:
                known[(k, i)] = context.acceptable(Fact(s, context.predicate, objects[i]))
            return known[(k, i)]

        same: dict[str, list[int]] = {}
        for k in turn:
            same.setdefault(sources[k].s, []).append(k)
        before = dict(held)
        left_over = [k for k in turn if k not in held]
        held = augment(left_over, [line[:RANGE_CHUNK].tolist() for line in lines], held, spare, fits, n - len(held))
        for k, i in held.items():
            if k not in before:
                owed[i] -= 1
        return held

    @classmethod
    def summarize(cls, negatives, spec, kinds, left_out) -> dict | None:
        """How many LCWA false facts came from s's neighbours; the rest are the range fallback's."""
        return fallback_section(negatives, cls.kind, "neighbour",
                                "fallback false facts take o' from the predicate's observed range (objects of its "
                                "facts), type-consistent with o; no link of s led to o'")

    @staticmethod
    def drift(negative: Negative) -> str | None:
        return compact(negative.detail["via"]) if negative.detail.get("via") else None

    def productive(self, context: NegativeContext, sources: list[Fact], sides=("object", "subject")) -> list[bool]:
        """Which of ``sources`` would give at least one LCWA false fact (type-consistent and
        acceptable in ``context``), without taking any."""
        return [any_acceptable(context, c) for c in self._typed(context, sources, sides)]

    def candidates(self, context: NegativeContext, sources: list[Fact]) -> list[Negative]:
        """What ``round_robin`` draws from: the type-consistent candidates that ``acceptable`` takes,
        the range fallback's included."""
        objects = context.kb.observed_range()[0]
        context.types.load_types(objects)
        found = []
        for source, c in zip(sources, self._typed(context, sources)):
            found += [neg for neg in c if context.acceptable(neg.fact)]
            found += [neg for neg in (self._fallback_negative(context, source, o) for o in objects)
                      if _type_ok(context, neg) and context.acceptable(neg.fact)]
        return found

    def post_filter(self, context: NegativeContext, negative: Negative) -> bool:
        return _type_ok(context, negative) and context.post_filter(negative.fact)

    def _from(self, context: NegativeContext, sources: list[Fact], n: int, rng,
              balance: ObjectBalance | None = None, most=None) -> list[Negative]:
        return round_robin(self._typed(context, sources), n, context, rng, rank=context.types.type_rank,
                           balance=balance, most=most)

    def _typed(self, context: NegativeContext, sources: list[Fact],
               sides: tuple[str, ...] = ("object", "subject")) -> list[SourceCandidates]:
        """Each source's type-consistent candidates, object side first, each side in link order."""
        index, kb = context.kb.adjacency, context.kb
        p = index.pindex.get(context.predicate)
        outs = [_links(index.out, index.id(f.s), p) if "object" in sides else None for f in sources]
        ins: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # by object: its in-links from subjects of p
        if "subject" in sides:
            for f in sources:
                oi = index.id(f.o)
                if oi is not None and oi not in ins:
                    nodes, preds = _links(index.inbound, oi, p)
                    keep = kb.subjects_mask[nodes]
                    ins[oi] = nodes[keep], preds[keep]
        subjects = unique(np.concatenate([nodes for nodes, _ in ins.values()] or [np.zeros(0, np.int32)]))
        their_objects = np.zeros(0, np.int64)
        if p is not None and subjects.size:  # every subject's objects of p, gathered at once
            their_objects = unique(index.dst[runs(*index.follow_many(subjects, np.full(subjects.size, p + 1)))[0]])
        context.types.load_types({index.entities[i] for nodes, _ in filter(None, outs) for i in nodes.tolist()}
                                 | {x for f in sources for x in (f.s, f.o)}
                                 | {index.entities[i] for i in np.concatenate([subjects, their_objects]).tolist()})
        side_of: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}  # subject side, shared by sources alike
        # Each node's verdict by what it depends on besides the node: the true entity's types (and,
        # on the subject side, the object's), so that sources alike judge a shared neighbour once.
        verdicts: dict[tuple, dict[int, tuple[bool, bool]]] = {}
        types, depth = context.types.types, context.types.depth
        typed = []
        for source, out in zip(sources, outs):
            object_side = _EMPTY
            if out is not None:
                verdict = verdicts.setdefault(("object", types(source.o), depth(source.o)), {})
                object_side = _keep(context, out, lambda o: _object_ok(context, source.o, o), verdict)
            subject_side, oi = _EMPTY, index.id(source.o)
            if oi in ins:
                key = (oi, types(source.s), depth(source.s))
                if key not in side_of:
                    verdict = verdicts.setdefault(("subject", types(source.s), depth(source.s), types(source.o),
                                                   kb.used_on(source.o, "object")), {})
                    side_of[key] = _keep(context, ins[oi], lambda s: _subject_ok(context, source.s, s, source.o),
                                         verdict)
                subject_side = side_of[key]
            typed.append(SourceCandidates(self.name, context, source, object_side, subject_side))
        return typed


class SourceCandidates(Sequence):
    """One source's LCWA candidates as the node and predicate ids they are made of; a candidate
    becomes a ``Negative`` only when asked for. A hub object has tens of thousands of in-links,
    so 10,000 sources would otherwise make a hundred million false facts to draw a few from."""

    def __init__(self, kind: str, context: NegativeContext, source: Fact,
                 object_side: tuple[np.ndarray, np.ndarray, np.ndarray],
                 subject_side: tuple[np.ndarray, np.ndarray, np.ndarray]):
        self.kind, self.context, self.source = kind, context, source
        self.sides = object_side, subject_side
        self.split = len(object_side[0])

    def __len__(self) -> int:
        return self.split + len(self.sides[1][0])

    def __getitem__(self, at):
        """Made anew on each call: kept, the screened ones would add up to the in-degree again."""
        at = int(at)
        if not 0 <= at < len(self):
            raise IndexError(at)
        index, p, source = self.context.kb.adjacency, self.context.predicate, self.source
        side = "object" if at < self.split else "subject"
        nodes, preds, _ = self.sides[side == "subject"]
        j = at if side == "object" else at - self.split
        entity = index.entities[int(nodes[j])]
        fact = Fact(source.s, p, entity) if side == "object" else Fact(entity, p, source.o)
        return Negative(fact, self.kind, source, {"side": side, "via": index.predicates[int(preds[j])]})

    def ids(self, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The subject and object index ids of the candidates at ``at``, none of them made."""
        at = np.asarray(at, dtype=np.int64)
        source = self.source
        s_node, o_node = self.context.kb.node(source.s), self.context.kb.node(source.o)
        objects, subjects = self.sides[0][0], self.sides[1][0]
        on_object = at < self.split
        s = np.where(on_object, s_node, subjects[np.where(on_object, 0, at - self.split)] if subjects.size else -1)
        o = np.where(on_object, objects[np.where(on_object, at, 0)] if objects.size else -1, o_node)
        return s.astype(np.int64), o.astype(np.int64)

    def ranks(self) -> np.ndarray:
        """``type_rank`` of each candidate, without making them: 1 for a typed stand-in of an
        untyped original."""
        types = self.context.types
        untyped = (not types.types(self.source.o), not types.types(self.source.s))
        return np.concatenate([typed & flag for (_, _, typed), flag in zip(self.sides, untyped)]).astype(np.int8)


_EMPTY = (np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, bool))


def _links(view, node: int | None, p: int | None) -> tuple[np.ndarray, np.ndarray] | None:
    """A node's links in one direction through predicates other than p."""
    if node is None:
        return np.zeros(0, np.int32), np.zeros(0, np.int32)
    nodes, preds = view(node)
    keep = preds != p
    return nodes[keep], preds[keep]


def _keep(context: NegativeContext, links: tuple[np.ndarray, np.ndarray], fits,
          verdict: dict[int, tuple[bool, bool]]):
    """The links whose entity ``fits``, with whether that entity is typed (for ``type_rank``);
    ``verdict``: both by node, filled in here, shared by the calls whose ``fits`` agree."""
    nodes, preds = links
    entities, types = context.kb.adjacency.entities, context.types
    for node in nodes.tolist():
        if node not in verdict:
            entity = entities[node]
            verdict[node] = fits(entity), bool(types.types(entity))
    ok = np.array([verdict[node][0] for node in nodes.tolist()], dtype=bool)
    typed = np.array([verdict[node][1] for node in nodes.tolist()], dtype=bool)
    return nodes[ok], preds[ok], typed[ok]


def _type_ok(context: NegativeContext, negative: Negative) -> bool:
    if negative.detail["side"] != "subject":  # object, or range: o' in place of o
        return _object_ok(context, negative.source.o, negative.fact.o)
    return _subject_ok(context, negative.source.s, negative.fact.s, negative.fact.o)


def _object_ok(context: NegativeContext, o: str, new_o: str) -> bool:
    return context.types.type_consistent(o, new_o, stand_in=True)


def _subject_ok(context: NegativeContext, s: str, new_s: str, o: str) -> bool:
    # s' must look like s, and o like one of the objects s' already has: the object side asks the
    # same of o' (the source's o is a known object of s). Without it "born in London" passed for
    # someone known to be born in Buckingham Palace.
    return (context.types.type_consistent(s, new_s, side="subject", stand_in=True)
            and any(context.types.type_consistent(known, o, stand_in=True) for known in context.kb.objects_of(new_s)))
