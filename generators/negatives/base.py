"""What every negative sampler shares: the context it reads and the checks every false fact passes.

A sampler is a small class with a name and one method, ``sample(context, sources, n)``: it
returns up to ``n`` false facts made from the true facts ``sources``. It never returns a fact
that ``context.acceptable`` refuses, so every kind of negative gets the same guarantees:
s != o, not in the KB, not already used in the scenario (which also keeps train and test
apart), no entity the split must avoid, and not next to a known object of the subject.

The context is four parts, each in its own module: the KB view (``kb_view``), the type oracle
(``type_oracle``), the nearness memo (``nearness_memo``) and the ledger of what the scenario has
used so far (``ledger``); samplers use the parts they need.
"""
from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Callable, Protocol

import numpy as np

from factforge.sparql.adjacency import Adjacency
from factforge.sparql.store import Store

from ..facts import Fact, Negative
from ..restatements import statement_nodes
from .kb_view import KBView
from .ledger import Ledger
from .nearness_memo import NearnessMemo
from .type_oracle import TypeOracle



class ScenarioSpec(Protocol):
    """What samplers read of a scenario's spec. A protocol, not ``generators.spec.ScenarioSpec``:
    the spec validates its kind names against the registry of samplers, so importing it here would
    close an import circle."""
    predicate: str
    max_path_length: int
    type_overlap: int
    latest_year: int
    factbench: tuple[str, ...]

SCREEN_AHEAD = 32  # a source's next candidates checked together (most are refused near a hub)
FIRST_WINDOW = 2  # objects of a subject's line screened together at first (see first_acceptable)
LINE_WINDOW = 1024  # ... and at most (a subject near hubs screens hundreds of objects of its line)


@dataclass
class NegativeContext:
    spec: ScenarioSpec
    kb: KBView
    types: TypeOracle
    near: NearnessMemo
    ledger: Ledger

    @classmethod
    def build(cls, store: Store, spec: ScenarioSpec, adjacency: Adjacency, kb_pairs: set[tuple[str, str]],
              sorted_pairs: list[tuple[str, str]] | None = None) -> "NegativeContext":
        kb = KBView(store, adjacency, spec.predicate, kb_pairs, sorted_pairs)
        return cls(spec, kb, TypeOracle(kb, spec.type_overlap), NearnessMemo(kb), Ledger(never=statement_nodes(store)))

    @property
    def predicate(self) -> str:
        return self.spec.predicate

    def acceptable(self, fact: Fact, *, dated: bool = False) -> bool:
        """The checks every false fact passes, whatever made it."""
        if not self.ledger.allows(fact, dated=dated):
            return False
        # A date corruption keeps a true triple and changes its dates; any other kind must be
        # absent from the KB.
        if dated:
            return True
        return not self.kb.in_kb(fact) and not self.near.next_to_known_object(fact)

    def refuses(self, s: np.ndarray, o: np.ndarray) -> np.ndarray:
        """Which of the candidate false facts p(s[i], o[i]), given by index ids, ``acceptable``
        refuses for what the ids tell: s = o, an entity the split must avoid, in the KB, next to a
        known object. Near a hub most candidates go this way, a window of them in a few array
        operations and none made; one not refused here still goes through ``acceptable`` (the
        ledger knows the facts it has used by name)."""
        refused = (s == o) | self.kb.in_kb_nodes(s, o)
        avoided = self.ledger.avoided(self.kb.adjacency)
        refused |= avoided[s] | avoided[o]
        rest = np.flatnonzero(~refused)
        if rest.size:  # nearness last, as in acceptable: only for what the cheap checks let through
            refused[rest] = self.near.near_nodes(s[rest], o[rest])
        return refused

    def post_filter(self, fact: Fact, *, dated: bool = False) -> bool:
        """The checks of ``acceptable`` that a kind's candidate query leaves to Python: the
        scenario's ledger and nearness (s != o and not in the KB are the query's)."""
        return self.ledger.allows(fact, dated=dated) and (dated or not self.near.next_to_known_object(fact))


class NegativeSampler:
    """One kind of false fact, and what the rest of factforge needs to know about it (``registry``)."""

    name = "abstract"  # the registry's key
    kind = "abstract"  # ``Negative.kind`` of its false facts, in the answers
    family = ""  # "factbench": a value of the spec's ``factbench`` list
    ambiguous = False  # a value of the spec's ``ambiguous``
    transparent = False  # the kind whose share of the false facts is the spec's ``transparency``
    dated = False  # keeps a true triple and changes its dates: exempt from the not-in-KB check
    changes_predicate = False  # its false facts have another predicate than the scenario's
    knob = "transparency"  # the spec field a shortfall names
    advice = ""  # how to get enough false facts of this kind, said with a shortfall
    # The sides on which a false fact keeps its source's entity, when the scenario should pick true
    # facts that give one (``productive``; see ``generators.scenario._paired``).
    pairing_sides: tuple[str, ...] = ()
    # It re-pairs a true fact's subject with an object of its choice, balanced against the true
    # objects (``ObjectBalance``): the scenario then picks true facts whose objects the set's
    # subjects can match (``generators.object_room``).
    matched_objects = False
    section: str | None = None  # its key in the scenario summary, when it has one (``summarize``)
    # Its template under sparql/queries: the kind's candidate false facts as parameterized SPARQL
    # ($predicate, the true facts $sources, and where it has them $links, $max_path_length), which
    # after ``post_filter`` are exactly ``candidates`` (tests/test_negative_queries.py).
    query = ""

    def sample(self, context: NegativeContext, sources: list[Fact], n: int,
               rng: np.random.Generator) -> list[Negative]:
        raise NotImplementedError

    def candidates(self, context: NegativeContext, sources: list[Fact]) -> list[Negative]:
        """Every false fact ``sample`` may draw from ``sources`` in ``context``, each with the source
        it is made from: those it enumerates, or for a kind that draws at random, the set it draws from."""
        raise NotImplementedError

    def post_filter(self, context: NegativeContext, negative: Negative) -> bool:
        """The checks this kind makes in Python on a candidate its query gives."""
        return context.post_filter(negative.fact)

    def productive(self, context: NegativeContext, sources: list[Fact], sides: tuple[str, ...]) -> list[bool]:
        """Which of ``sources`` would give a false fact on ``sides`` (only with ``pairing_sides``)."""
        raise NotImplementedError

    @staticmethod
    def drift(negative: Negative) -> str | None:
        """The alternative predicate or path that led to the false fact (the paper's drift), if any."""
        return None

    @classmethod
    def summarize(cls, negatives: list[Negative], spec: ScenarioSpec, kinds: list[str],
                  left_out: dict[str, str]) -> dict | None:
        """This kind's section of the scenario summary; ``kinds`` and ``left_out``: the FactBench
        kinds made and why any of ``mix`` was left out."""
        return None


def fallback_section(negatives: list[Negative], kind: str, own: str, note: str) -> dict | None:
    """A kind's summary section when it has a fallback: its false facts, how many its own way made
    (``<own>_made``, ``<own>_share``) and how many the fallback (marked ``fallback`` in the answers)."""
    made = [n for n in negatives if n.kind == kind]
    if not made:
        return None
    fallback = sum(bool(n.detail.get("fallback")) for n in made)
    return {"false_facts": len(made), f"{own}_made": len(made) - fallback, "fallback": fallback,
            f"{own}_share": round((len(made) - fallback) / len(made), 4), "note": note}


class ObjectBalance:
    """How many more false facts each object should get so that its count in the split says
    nothing of the label: its true facts in the split times (false facts / true facts), less its
    false facts so far. Samplers that choose among objects freely (re-pairing, the random-walk
    fallback, a fact's walk ends) take the most owed first.

    Drawn at random instead, a team that is the object of one true fact often got no false fact,
    so "object seen once" meant true: the frequency-only baseline reached AUROC 0.60-0.74 on
    DBpedia50 team scenarios with random-walk false facts (11 of 12 flagged at c = 0 and 0.3)."""

    def __init__(self, ledger: Ledger, sources: list[Fact], n: int):
        total = ledger.split_false if ledger.split_false is not None else len(ledger.split_made) + n
        scale = total / len(sources) if sources else 0.0
        self.owed: Counter = Counter()
        for fact in sources:
            self.owed[fact.o] += scale
        for negative in ledger.split_made:
            self.owed[negative.fact.o] -= 1

    def key(self, tie: dict[str, int]) -> Callable[[str], tuple]:
        """Sort key: most owed first, ties in the seeded order ``tie``."""
        owed = self.owed
        return lambda o: (-owed[o], tie[o])

    def paid(self, o: str) -> bool:
        """Has ``o`` as many false facts as it is owed? An object new to the split is owed one,
        as a true object seen once is: "seen once" then says nothing of the label."""
        return o in self.owed and self.owed[o] <= 0

    def took(self, negative: Negative, line: list[str] | None = None, tie: dict[str, int] | None = None) -> None:
        """Count a false fact made; ``line`` (objects in ``key(tie)`` order) is kept in order."""
        self.owed[negative.fact.o] -= 1
        if line is not None:
            line.remove(negative.fact.o)
            bisect.insort(line, negative.fact.o, key=self.key(tie))


def round_robin(candidates: list[Sequence[Negative]], n: int, context: NegativeContext,
                rng: np.random.Generator, *, dated: bool = False,
                rank: Callable[[Negative], int] | None = None,
                balance: ObjectBalance | None = None, rounds: int | None = None,
                most: Callable[[str], int] | None = None) -> list[Negative]:
    """Take one candidate per source in turn, so negatives spread over sources.

    Each round visits the sources whose subjects have the fewest false facts so far first (ties in
    a seeded order). Without that, a source with no candidate leaves its subject in the set once
    (as a true fact) while another's appears three times, and how often a subject occurs in the set
    then tells true from false (an AUROC of 0.65-0.77 on DBpedia50 birthPlace). Within a source,
    candidates come in a seeded order, those with the lowest ``rank`` first. A source's candidates
    that know their ranks (``ranks()``, as LCWA's) give them without being made, and only those
    drawn or screened are made. With ``balance``, a candidate whose object is owed no more false
    facts (``ObjectBalance.paid``) is passed over: a rank taken once cannot see a debt paid while
    drawing. ``rounds``: at most that many passes over the sources (one: at most one false fact
    per source, leaving the sources it could not serve to the caller). ``most``: the false facts a
    subject may have in the split being made (``Ledger.split_uses``); a candidate past it is passed
    over.
    """
    queues = [DrawOrder(c, rng, rank) for c in candidates]
    # the subject each source is counted by: made once, not on every sort of every round
    subjects = [c[0].fact.s if len(c) else None for c in candidates]
    order = list(rng.permutation(len(candidates)))
    chosen: list[Negative] = []
    passes = 0
    while len(chosen) < n and order and (rounds is None or passes < rounds):
        passes += 1
        order.sort(key=lambda i: context.ledger.subject_uses[subjects[i]] if subjects[i] is not None else 0)
        still = []
        for i in order:
            queue, c = queues[i], candidates[i]
            by_ids = not dated and hasattr(c, "ids")
            while queue.left():
                if by_ids:  # skip what the id screens refuse, a window at a time
                    window = queue.ahead(SCREEN_AHEAD)
                    refused = context.refuses(*c.ids(window))
                    if refused.all():
                        queue.skip(len(window))
                        continue
                    queue.skip(int(np.argmin(refused)))
                elif not dated and not context.near.screened(c[queue.next()].fact):
                    context.near.screen(c[j].fact for j in queue.ahead(SCREEN_AHEAD))
                negative = c[queue.pop()]
                if balance is not None and balance.paid(negative.fact.o):
                    continue
                if most is not None and context.ledger.split_uses[negative.fact.s] >= most(negative.fact.s):
                    continue
                if context.acceptable(negative.fact, dated=dated):
                    context.ledger.take(negative)
                    if balance is not None:
                        balance.took(negative)
                    chosen.append(negative)
                    break
            if queue.left():
                still.append(i)
            if len(chosen) >= n:
                break
        order = still
    return chosen


def any_acceptable(context: NegativeContext, candidates: Sequence[Negative]) -> bool:
    """Does ``acceptable`` take one of ``candidates``? Candidates that know their ids (``ids()``,
    as LCWA's) are screened by id a window at a time, and only those the screens let through are made."""
    if not hasattr(candidates, "ids"):
        return any(context.acceptable(c.fact) for c in candidates)
    for start in range(0, len(candidates), SCREEN_AHEAD):
        window = np.arange(start, min(start + SCREEN_AHEAD, len(candidates)))
        if any(context.acceptable(candidates[j].fact) for j in window[~context.refuses(*candidates.ids(window))].tolist()):
            return True
    return False


def first_acceptable(context: NegativeContext, subject: str, objects: Iterable[str],
                     ids: np.ndarray | None = None) -> Fact | None:
    """The first p(subject, o) over ``objects``, in their order, that ``acceptable`` takes, or None.
    Objects come in windows of ``FIRST_WINDOW`` growing to ``LINE_WINDOW`` (most subjects take one
    of the first objects of a long line, a few near a hub refuse most of it, and a window costs a
    few array operations however long it is), screened by id (``refuses``); only those the screens
    let through become facts and go through ``acceptable``. ``ids``: the objects' index ids (-1
    outside the index), when the caller keeps them beside a list of ``objects``."""
    s, size, start = context.kb.node(subject), FIRST_WINDOW, 0
    line = objects if ids is not None else iter(objects)
    while window := (line[start:start + size] if ids is not None else list(islice(line, size))):
        if ids is not None:
            o = ids[start:start + len(window)]
        else:
            o = np.fromiter((context.kb.node(x) for x in window), dtype=np.int64, count=len(window))
        start, size = start + len(window), min(2 * size, LINE_WINDOW)
        refused = np.zeros(len(window), dtype=bool)
        inside = np.flatnonzero(o >= 0) if s >= 0 else o[:0]  # the screens know index ids only
        if inside.size:
            refused[inside] = context.refuses(np.full(inside.size, s, dtype=np.int64), o[inside])
        for j in np.flatnonzero(~refused).tolist():
            fact = Fact(subject, context.predicate, window[j])
            if context.acceptable(fact):
                return fact
    return None


class DrawOrder:
    """The seeded order of one source's candidates in ``round_robin``: a permutation, stably
    sorted by rank. Only its first ``KEEP`` places are kept, with the generator's state before
    the permutation: a source whose first candidates are refused gets the order made again from
    that state, and keeps a longer stretch of it. A hub's order held in full for every source would cost more memory than the
    candidates it spares."""

    KEEP = 4 * SCREEN_AHEAD

    def __init__(self, candidates: Sequence[Negative], rng: np.random.Generator,
                 rank: Callable[[Negative], int] | None):
        self.candidates, self.rank, self.size = candidates, rank, len(candidates)
        # a sampler's rank may read state that drawing changes (objects owed): taken once, here
        self.ranks = None if rank is None or hasattr(candidates, "ranks") else _ranks(candidates, rank)
        self.state = rng.bit_generator.state
        self.kind = type(rng.bit_generator)
        self.kept, self.start, self.head = self._order(rng)[:self.KEEP].copy(), 0, 0

    def _order(self, rng: np.random.Generator) -> np.ndarray:
        order = rng.permutation(self.size)
        if self.rank is not None:  # a stable sort keeps the seeded order within a rank
            ranks = self.ranks if self.ranks is not None else _ranks(self.candidates, self.rank)
            order = order[np.argsort(ranks[order], kind="stable")]
        return order

    def left(self) -> bool:
        return self.head < self.size

    def next(self) -> int:
        return self.ahead(1)[0]

    def ahead(self, k: int) -> np.ndarray:
        if self.head + k > self.start + len(self.kept) and self.start + len(self.kept) < self.size:
            again = np.random.Generator(self.kind())
            again.bit_generator.state = self.state
            # the window grows with the depth reached, so a deep source makes its order a few times
            self.kept, self.start = self._order(again)[self.head:5 * self.head + k].copy(), self.head
        at = self.head - self.start
        return self.kept[at:at + k]

    def pop(self) -> int:
        taken = self.next()
        self.head += 1
        return taken

    def skip(self, k: int) -> None:
        self.head += k


def _ranks(candidates: Sequence[Negative], rank: Callable[[Negative], int]) -> np.ndarray:
    if hasattr(candidates, "ranks"):
        return candidates.ranks()
    return np.fromiter((rank(c) for c in candidates), dtype=np.int64, count=len(candidates))

