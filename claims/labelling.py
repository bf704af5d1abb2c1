"""Claim labels against R, and the choice of facts that gives the asked shares exactly.

A true fact becomes SUPPORTS when its triple stays in R, NOT ENOUGH INFO when it is taken out of R
(with the links the scenario's leakage level removes around it). A false fact becomes REFUTES
when R contradicts it (``contradictions``), else NOT ENOUGH INFO; what the leakage level removes
around its (subject, object) is removed too, as for a true fact. Facts a claim set does not use
stay in R as the KB has them.

Left out, and counted: a true fact that R would contradict (the KB disagrees with itself, e.g.
two objects of an observed-functional predicate), a false fact whose triple is in the KB (a
FactBench date corruption: the claim would need dates to be false), and a false fact of a predicate
no true fact has (FactBench's ``wrong/property`` models: R has nothing of that predicate to refute
them, so all would be NOT ENOUGH INFO, and the predicate's wording alone would say so), and every
false fact of a (subject, predicate) after the first in the seeded order (FactBench writes several
wrong models of one true fact: all REFUTES while the true fact is in R, all NOT ENOUGH INFO once it
left, so a subject's claims would share a label far more often than at random), and every true fact of a
triple after the first (FactBench's two spells of one player at one team: one taken out of R for NOT
ENOUGH INFO and the other kept for SUPPORTS would leave the triple in R, and the two claims would
say the same words).

Labels are planned for each predicate on its own, with the shares met within it, so a predicate's
words say nothing about the label; a predicate that cannot meet them is left out and named (a set of
one predicate that cannot is an error). A false fact that a true fact of another predicate could
take its evidence from is left out too (counted), so no predicate's plan depends on another's.

Taking a true fact out of R can take a false fact's only evidence with it (an LCWA or re-paired
false fact p(s, o') is refuted by the true p(s, o) of a functional p): that false fact is then NOT
ENOUGH INFO, which is how NEI arises in R. So true facts leave R in a fixed order (those outside
the KB first, then by a hash of each fact keyed by the plan key, ``plan_key``: never by label or
popularity, and not by the seed alone, which a verifier knows: the first ones out are the NOT ENOUGH
INFO ones), and for each number k of true facts taken out, the false facts R still refutes are
known; the k closest to half the NEI claims that meets the shares is used, so NEI is made of true
and false facts alike. Which false facts, and which true facts still in R, the shares take follows
the same order.

The claims are listed in another order (``in_record_order``): a hash of each claim's fact keyed by
the seed under its own purpose, which anyone may replay and which follows nothing the plan did.
"""
from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from fractions import Fraction

from factforge.generators.facts import Fact

from .contradictions import ReferenceView
from .errors import ClaimsError
from .keyed import keyed_rank

SUPPORTS, REFUTES, NEI = "SUPPORTS", "REFUTES", "NOT ENOUGH INFO"
LABELS = (SUPPORTS, REFUTES, NEI)
#: shares chosen from the facts (``resolved_shares``)
AUTO = "auto"
THIRDS = (Fraction(1, 3), Fraction(1, 3), Fraction(1, 3))
HALVES = (Fraction(1, 2), Fraction(0), Fraction(1, 2))
#: ``auto`` keeps a third each while that makes claims of at least this share of the facts
AUTO_KEEP = Fraction(1, 2)
#: the REFUTES shares ``auto`` tries below a third, the rest split evenly between SUPPORTS and NOT ENOUGH
#: INFO; the smallest still gives a REFUTES claim for every ten, which a 3-way metric does not drown
AUTO_REFUTES = (Fraction(1, 4), Fraction(1, 5), Fraction(1, 6), Fraction(1, 8), Fraction(1, 10))


class SharesError(ClaimsError):
    """The shares cannot be met; the message says how many claims could be made."""


@dataclass
class Item:
    id: str
    fact: Fact
    truth: bool


@dataclass
class Labelled:
    item: Item
    label: str
    evidence: list[list[tuple[str, str, str]]]
    removed: bool = False  # a true fact taken out of R


@dataclass
class Plan:
    claims: list[Labelled]
    removed_facts: list[Fact]           # facts whose leakage-level surroundings leave R
    left_out: dict[str, int] = field(default_factory=dict)
    pools: dict[str, int] = field(default_factory=dict)
    per_predicate: dict[str, dict] = field(default_factory=dict)       # its claims per label and pools
    predicates_left_out: dict[str, dict] = field(default_factory=dict)  # its facts and why
    shares: tuple = THIRDS                                              # the shares met (``auto`` resolved)
    shares_why: str = ""                                                # why ``auto`` came to them


def per_label(counts, pools, share: float, key: bytes, purpose: str, rank=lambda c: c.item.fact.triple) -> dict:
    """The first m of each label's pool in the order ``key`` (the plan key) gives for ``purpose``, m the
    share of the smallest label's count (or the smallest pool): as many claims of each label take a
    form, so the form says nothing about the label. Pools of unequal size stop at unequal ranks, so in
    an order a verifier could replay, a plain claim's rank would say which labels it cannot have."""
    # only the labels the claims have: a predicate R refutes nothing of (shares 1/2, 0, 1/2) has no
    # REFUTES claim, and asking for as many of those as of the others took none of any label
    present = [label for label in LABELS if counts[label]]
    if not present:
        return {label: [] for label in LABELS}
    m = min(int(share * min(counts[label] for label in present) + 0.5), *(len(pools[label]) for label in present))
    return {label: sorted(pools[label], key=lambda c: keyed_rank(key, purpose, rank(c)))[:m] if label in present
            else [] for label in LABELS}


def per_label_per_predicate(planned, pools, share: float, key: bytes, purpose: str,
                            rank=lambda c: c.item.fact.triple) -> dict:
    """``per_label`` within each predicate of the ``planned`` claims: as many claims of each label take
    the form in every predicate. Balanced over the whole set only, a form could go with one label in
    one predicate and another label in another, and the predicate's words with the form's cue ("not",
    "and", a date) would tell the label."""
    counts = defaultdict(Counter)
    for c in planned:
        counts[c.item.fact.p][c.label] += 1
    split = defaultdict(lambda: {label: [] for label in LABELS})
    for label in LABELS:
        for c in pools.get(label, ()):
            split[c.item.fact.p][label].append(c)
    chosen = {label: [] for label in LABELS}
    for predicate in sorted(counts):
        for label, got in per_label(counts[predicate], split[predicate], share, key, purpose, rank).items():
            chosen[label] += got
    return chosen


def choose_plain(claims, share: float, key: bytes, purpose: str, eligible) -> set[str]:
    """The ids of plain claims ((claim, kind) with kind one-hop) that ``eligible`` accepts, to take
    the form ``purpose`` names: as many of each label within each predicate."""
    if not share:
        return set()
    pools = {label: [c for c, kind in claims if c.label == label and kind == "one-hop" and eligible(c)]
             for label in LABELS}
    chosen = per_label_per_predicate([c for c, _ in claims], pools, share, key, purpose)
    return {c.item.id for got in chosen.values() for c in got}


def per_label_in_groups(counts, claims, share: float, key: bytes, purpose: str, label_after, group) -> set[str]:
    """The ids of claims to take the form ``purpose`` names, taken a whole ``group`` (e.g. every claim of
    a subject) at a time, with as many of each label after the form (``label_after``) within each
    predicate, and at most the share of the predicate's smallest label count (``counts``: by predicate,
    claims per label) of each. A form that changes labels (negation) taken by one claim of a group and
    not by another would make the group's labels agree more or less often than the shares say, and a
    claim's label could be read off the others of its subject; balanced over the whole set only, the
    form could go with one label in one predicate."""
    groups: dict = {}
    for c in claims:
        groups.setdefault(group(c), []).append(c)
    order = sorted(groups.items(), key=lambda kv: keyed_rank(key, purpose, (kv[0], "", "")))
    caps = {p: int(share * min(n[label] for label in LABELS) + 0.5) for p, n in counts.items()}
    while any(caps.values()):
        taken, got = [], defaultdict(Counter)
        for _, members in order:
            adds = Counter((c.item.fact.p, label_after(c)) for c in members)
            if all(got[p][label] + n <= caps.get(p, 0) for (p, label), n in adds.items()):
                taken += members
                for (p, label), n in adds.items():
                    got[p][label] += n
        uneven = {p: min(got[p][label] for label in LABELS) for p in caps
                  if len({got[p][label] for label in LABELS}) > 1}
        if not uneven:
            return {c.item.id for c in taken}
        caps.update(uneven)  # each smaller than before: the loop ends
    return set()


def parse_shares(text: str) -> tuple[Fraction, Fraction, Fraction]:
    """``S,R,N`` as numbers or fractions (``1/3,1/3,1/3``, ``0.5,0.25,0.25``), normalized to sum 1."""
    parts = [p.strip() for p in str(text).split(",")]
    try:
        values = [Fraction(p) for p in parts]
    except (ValueError, ZeroDivisionError):
        values = []
    if len(values) != 3 or any(v < 0 for v in values) or sum(values) <= 0:
        raise SharesError(f"--shares: expected three non-negative numbers S,R,N (SUPPORTS, REFUTES, NOT ENOUGH "
                          f"INFO), e.g. 1/3,1/3,1/3; got {text!r}")
    total = sum(values)
    return tuple(v / total for v in values)


def counts_for(total: int, shares) -> dict[str, int]:
    """Claims per label for ``total`` claims: exact up to rounding, summing to ``total``."""
    s = int(math.floor(shares[0] * total + Fraction(1, 2)))
    r = int(math.floor(shares[1] * total + Fraction(1, 2)))
    r = min(r, total - s)
    return {SUPPORTS: s, REFUTES: r, NEI: total - s - r}


def plan(items: list[Item], reference: ReferenceView, shares, seed: int, count: int | None = None,
         destroys=None, *, key: bytes) -> Plan:
    """The claims of ``items`` with the ``shares`` met within each predicate (up to rounding): a set whose
    predicates had different label mixes let the predicate's words tell the label (FactBench's
    starring, which R cannot contradict, gave no REFUTES while the functional relations gave many).
    A predicate that cannot meet the shares is left out, with the reason in ``predicates_left_out``;
    a set of one predicate that cannot meet them is an error. ``count``: claims in all, shared out
    over the predicates in proportion to how many each can make.

    ``destroys(true_fact, triple)``: does taking the true fact out of R (at the leakage level)
    remove the triple? Default: only the fact's own triple. ``key``: the plan key (``plan_key``), which
    orders every choice; ``seed`` orders the claims as listed (``in_record_order``)."""
    destroys = destroys or (lambda fact, triple: fact.triple == triple)
    ordered = sorted(items, key=lambda i: (keyed_rank(key, "take-out", fact_fields(i.fact)), i.id))
    reference.load_types(e for i in items for e in i.fact.pair)  # one query a batch, not one a fact
    left_out = {"true_contradicted_in_kb": 0, "false_in_kb": 0, "false_of_a_predicate_without_true_facts": 0,
                "false_beyond_one_per_subject": 0, "false_refuted_through_another_predicates_fact": 0,
                "true_beyond_one_per_triple": 0}
    groups: dict[str, _Group] = {}
    said_triples = set()  # triples of the true facts kept
    said_true = {i.fact.p for i in items if i.truth}
    said_false = set()  # (subject, predicate) of the false facts kept
    triples = [item.fact.triple for item in ordered]
    in_kb_of = dict(zip(triples, reference.holds(triples)))  # one search for all, not one a fact
    for item in ordered:
        if not item.truth and item.fact.p not in said_true:
            left_out["false_of_a_predicate_without_true_facts"] += 1
            continue
        if not item.truth and (item.fact.s, item.fact.p) in said_false and not in_kb_of[item.fact.triple]:
            left_out["false_beyond_one_per_subject"] += 1
            continue
        if item.truth and item.fact.triple in said_triples:
            left_out["true_beyond_one_per_triple"] += 1
            continue
        if item.truth:
            said_triples.add(item.fact.triple)
        found = reference.contradictions(item.fact)
        in_kb = in_kb_of[item.fact.triple]
        group = groups.setdefault(item.fact.p, _Group())
        if item.truth and found:
            left_out["true_contradicted_in_kb"] += 1
        elif item.truth:
            (group.inside if in_kb else group.outside).append(item)
        elif in_kb:
            left_out["false_in_kb"] += 1
        else:
            group.evidence[item.id] = found
            group.false_items.append(item)
            said_false.add((item.fact.s, item.fact.p))
    # A true fact of one predicate leaving R can take a false fact of another predicate's evidence with
    # it (at leakage pair, birthPlace(x, y) takes deathPlace(x, y)): such false facts are left out, so
    # that each predicate's labels depend on its own facts only and its shares can be planned alone.
    true_by_pair: dict[frozenset, list[Item]] = {}
    for group in groups.values():
        for item in group.outside + group.inside:
            true_by_pair.setdefault(frozenset(item.fact.pair), []).append(item)
    for group in groups.values():
        kept = [i for i in group.false_items if not any(
            t.fact.p != i.fact.p and destroys(t.fact, x)
            for evidence in group.evidence[i.id] for x in evidence for t in true_by_pair.get(frozenset((x[0], x[2])), ()))]
        left_out["false_refuted_through_another_predicates_fact"] += len(group.false_items) - len(kept)
        group.false_items = kept
    for group in groups.values():
        group.outside, group.inside = _spread(group.outside, key), _spread(group.inside, key)
        group.settle(destroys)
    shares, why = resolved_shares(groups, shares)
    planned, refused = _totals(groups, shares, count)
    claims, removed, by_predicate = [], [], {}
    for predicate, (k, want) in planned.items():
        made = groups[predicate].claims(k, want, destroys)
        claims += made
        by_predicate[predicate] = {"labels": {label: want[label] for label in LABELS}, "pools": groups[predicate].sizes}
    claims = in_record_order(claims, seed)
    removed = [c.item.fact for c in claims if c.removed or not c.item.truth]
    sizes = {name: sum(g.sizes[name] for g in groups.values()) for name in _SIZES}
    return Plan(claims, removed, left_out, sizes, by_predicate, refused, shares, why)


def resolved_shares(groups: dict, shares) -> tuple[tuple, str]:
    """(shares, why): ``shares`` as given (met or refused as given, why ""), or for ``AUTO`` the most
    claims with all three labels well represented. A third each when that makes claims of at least
    ``AUTO_KEEP`` of the facts: where R refutes only a few false facts (DBpedia's birthPlace: not
    functional, refuted through disjoint types only) thirds made a set of a few claims out of hundreds
    of facts. Else the REFUTES share of ``AUTO_REFUTES`` (the rest split evenly) that makes the most
    claims (ties to the larger share), when it makes at least ``AUTO_KEEP`` of the facts or more than
    half SUPPORTS, half NOT ENOUGH INFO would; else those halves (a predicate R cannot contradict
    makes a set instead of an error)."""
    if shares != AUTO:
        return shares, ""
    facts = sum(len(g.leaving) + len(g.false_items) for g in groups.values())
    enough = AUTO_KEEP * facts
    thirds = _available(groups, THIRDS)
    if thirds and thirds >= enough:
        return THIRDS, f"a third each makes {thirds} claims of {facts} facts, at least {_percent(AUTO_KEEP)}"
    halves = _available(groups, HALVES)
    made, best = max(((_available(groups, _even(r)), _even(r)) for r in AUTO_REFUTES),
                     key=lambda pair: (pair[0], pair[1][1]))
    if thirds >= made:
        made, best = thirds, THIRDS
    if made and (made >= enough or made > halves):
        return best, (f"a third each makes {thirds} claims of {facts} facts, under {_percent(AUTO_KEEP)}: "
                      f"R refutes too few false facts; REFUTES {best[1]} makes {made}")
    if not made:
        return HALVES, "R refutes none of these false facts"
    return HALVES, (f"R refutes too few false facts: three labels make at most {made} claims of {facts} facts, "
                    f"1/2, 0, 1/2 makes {halves}")


def _even(refutes: Fraction) -> tuple:
    return ((1 - refutes) / 2, refutes, (1 - refutes) / 2)


def _percent(share: Fraction) -> str:
    return f"{float(share):.0%}"


def _available(groups: dict, shares) -> int:
    """The most claims the predicates that can meet ``shares`` give at them (``_totals`` without a count)."""
    return sum(_largest(g.pools, shares) for g in groups.values() if not g.missing(shares))


_SIZES = ("true_in_kb", "true_outside_kb", "false", "false_refuted_by_kb")


def _spread(items: list[Item], key: bytes) -> list[Item]:
    """True facts of one predicate (in the keyed order) so ordered that every first part of them
    holds each object's facts in proportion to its share (or each subject's, where subjects repeat
    more): the first ones leave R (NOT ENOUGH INFO), the next are SUPPORTS, so each object's true
    facts are split between the two labels alike. In the keyed order alone an object's few facts
    could fall mostly on one side, and its name then told the label (docs/claims.md). Within an object its
    facts keep the keyed order; objects start at a keyed offset, so whose come first is keyed too."""
    if len(items) < 3:
        return items
    by_object = len({i.fact.o for i in items}) <= len({i.fact.s for i in items})
    groups: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        groups[item.fact.o if by_object else item.fact.s].append(item)
    if len(groups) == len(items):
        return items  # every value once: nothing to spread
    place = {id(item): n for n, item in enumerate(items)}
    spread = []
    for value, members in groups.items():
        offset = Fraction(int.from_bytes(keyed_rank(key, "spread", (value,))[:8], "big"), 1 << 64)
        spread += [((r + offset) / len(members), place[id(item)], item) for r, item in enumerate(members)]
    return [item for *_, item in sorted(spread, key=lambda entry: entry[:2])]


def in_record_order(claims: list[Labelled], seed: int) -> list[Labelled]:
    """The claims in the order claims.jsonl lists them: a hash of each claim's fact keyed by the seed
    under a purpose of its own. Anyone may replay it from the facts, and it follows no choice of the
    plan (those are keyed by the plan key), so a claim's place says nothing about its label."""
    return sorted(claims, key=lambda c: (keyed_rank(seed, "record-order", fact_fields(c.item.fact)), c.item.id))


def fact_fields(fact: Fact) -> tuple[str, ...]:
    """What a keyed rank of a fact hashes: its triple and dates (a date corruption has its true fact's
    triple: its dates tell them apart)."""
    return (*fact.triple, fact.start or "", fact.end or "")


@dataclass
class _Group:
    """One predicate's facts, the order in which its true facts leave R, and when each false fact is no
    longer refuted."""
    outside: list = field(default_factory=list)      # true facts outside the KB
    inside: list = field(default_factory=list)       # true facts in the KB
    false_items: list = field(default_factory=list)  # false facts not in the KB
    evidence: dict = field(default_factory=dict)     # false fact id -> R's evidence sets against it

    def settle(self, destroys) -> None:
        self.leaving = self.outside + self.inside  # the order in which true facts leave R
        # when each false fact loses its last evidence set: the number of true facts out of R by then
        self.by_pair: dict[frozenset, list[int]] = {}
        for k, item in enumerate(self.leaving, 1):
            self.by_pair.setdefault(frozenset(item.fact.pair), []).append(k)
        self.dies_at: dict[str, float] = {}
        for item in self.false_items:
            ends = []
            for group in self.evidence[item.id]:
                killers = [k for s, p, o in group for k in self.by_pair.get(frozenset((s, o)), ())
                           if destroys(self.leaving[k - 1].fact, (s, p, o))]
                ends.append(min(killers) if killers else math.inf)
            self.dies_at[item.id] = max(ends) if ends else 0
        self.sizes = {"true_in_kb": len(self.inside), "true_outside_kb": len(self.outside),
                      "false": len(self.false_items),
                      "false_refuted_by_kb": sum(v > 0 for v in self.dies_at.values())}
        self.pools = _Pools(len(self.outside), len(self.inside), sorted(self.dies_at.values()))

    def missing(self, shares) -> list[str]:
        """The labels the shares ask for that none of these facts can have (R refutes none of the false
        facts: a predicate neither functional nor with disjoint types; or no true fact is in the KB)."""
        return [label for label, share, pool in ((SUPPORTS, shares[0], self.sizes["true_in_kb"]),
                                                 (REFUTES, shares[1], self.sizes["false_refuted_by_kb"]))
                if share and not pool]

    def claims(self, k: int, want: dict[str, int], destroys) -> list[Labelled]:
        out_of_r = self.leaving[:k]
        gone = {i.id for i in out_of_r}
        supports = [i for i in self.inside if i.id not in gone][:want[SUPPORTS]]
        refutes = [i for i in self.false_items if self.dies_at[i.id] > k][:want[REFUTES]]
        nei_false = [i for i in self.false_items if self.dies_at[i.id] <= k][:want[NEI] - k]
        removed_set = {i.fact.triple for i in out_of_r}

        def alive(item: Item) -> list:
            return [g for g in self.evidence[item.id] if not any(
                destroys(self.leaving[j - 1].fact, x) for x in g
                for j in self.by_pair.get(frozenset((x[0], x[2])), ()) if j <= k)]

        return ([Labelled(i, SUPPORTS, [[i.fact.triple]]) for i in supports]
                + [Labelled(i, REFUTES, alive(i)) for i in refutes]
                + [Labelled(i, NEI, [], removed=i.fact.triple in removed_set) for i in out_of_r]
                + [Labelled(i, NEI, []) for i in nei_false])


def _totals(groups: dict[str, _Group], shares, count: int | None):
    """({predicate: (true facts out of R, claims per label)}, {predicate left out: why})."""
    refused, largest = {}, {}
    for predicate, group in sorted(groups.items()):
        missing = group.missing(shares)
        most = 0 if missing else _largest(group.pools, shares)
        if missing or not most:
            facts = len(group.leaving) + len(group.false_items)
            refused[predicate] = {"facts": facts, "reason": _refusal(missing, group.sizes)}
        else:
            largest[predicate] = most
    if not largest:
        if len(refused) == 1:
            raise SharesError(f"--shares: {next(iter(refused.values()))['reason']}")
        raise SharesError("--shares: no predicate of these facts can meet the shares (" + "; ".join(
            f"{p}: {why['reason']}" for p, why in refused.items()) + ")")
    available = sum(largest.values())
    if count is not None and count > available:
        sizes = {name: sum(groups[p].sizes[name] for p in largest) for name in _SIZES}
        raise SharesError(f"--shares: {count} claims at these shares cannot be made from these facts; at most "
                          f"{available} can ({_pool_text(sizes)})")
    totals = largest if count is None else _apportioned(count, largest)
    planned = {}
    for predicate, total in totals.items():
        if not total:
            continue
        split = _split(total, groups[predicate].pools, shares)
        if split is None:
            raise SharesError(f"--shares: {count} claims at these shares cannot be made from these facts: {predicate} "
                              f"would need {total} of its at most {largest[predicate]}")
        planned[predicate] = split
    return planned, refused


def _apportioned(count: int, largest: dict[str, int]) -> dict[str, int]:
    """``count`` shared out in proportion to ``largest`` (largest remainders; ties in predicate order)."""
    available = sum(largest.values())
    exact = {p: Fraction(count * n, available) for p, n in largest.items()}
    got = {p: math.floor(v) for p, v in exact.items()}
    for p in sorted(exact, key=lambda p: (-(exact[p] - got[p]), p))[:count - sum(got.values())]:
        got[p] += 1
    return got


def _refusal(missing: list[str], sizes: dict[str, int]) -> str:
    if missing:
        return (f"none of these facts can be {' or '.join(missing)} ({_pool_text(sizes)}); ask a share of 0 for "
                f"it, or take facts of a predicate R can contradict (functional, or with disjoint types)")
    return f"no claims at these shares can be made from these facts ({_pool_text(sizes)})"


@dataclass
class _Pools:
    outside: int            # true facts outside the KB (NEI whatever happens)
    inside: int             # true facts in the KB
    ends: list              # sorted: after how many true facts leave R each false fact is no longer refuted

    def refuted(self, k: int) -> int:
        return len(self.ends) - bisect_right(self.ends, k)


def _split(total: int, pools: _Pools, shares) -> tuple[int, dict[str, int]] | None:
    """(true facts out of R, claims per label), or None when the facts cannot give them."""
    if total < 1:
        return None
    want = counts_for(total, shares)
    n_false = len(pools.ends)
    # k true facts out of R: k NEI claims of true facts; the other NEI claims are false facts
    # R no longer refutes, and R must still refute enough false facts and keep enough true ones.
    high = min(want[NEI], pools.outside + pools.inside, pools.outside + pools.inside - want[SUPPORTS])
    low = _first(0, high, lambda k: n_false - pools.refuted(k) + k >= want[NEI])
    top = _first(0, high, lambda k: pools.refuted(k) < want[REFUTES]) - 1
    if low > min(high, top):
        return None
    return min(max(low, (want[NEI] + 1) // 2), top, high), want


def _first(low: int, high: int, holds) -> int:
    """The least k in [low, high] where a condition that stays true once true holds (high + 1: none)."""
    high += 1
    while low < high:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle + 1
    return low


def _largest(pools: _Pools, shares) -> int:
    """The most claims the facts give at these shares: the most whose NOT ENOUGH INFO claims are at least
    half true facts, when some number is (else the most at all). The very most can take
    every true fact for SUPPORTS and leave NOT ENOUGH INFO to false facts alone (FactBench's domain
    corruptions, whose subjects R says nothing about): then an object's words tell SUPPORTS and NOT
    ENOUGH INFO apart as well as SUPPORTS and REFUTES.

    The same answer as trying every count downwards from all the facts (as tests/test_claims_label_plan.py
    checks), which took thousands of ``_split`` calls at 20,000 facts: a bisection first finds the most claims that
    pass a test every count above it fails and every count below it passes (``_may_split``), and the
    counts are tried downwards from there. The test is one a count that ``_split`` takes must pass, so
    the counts it skips are ones the plain search would have passed over too."""
    everything = pools.outside + pools.inside + len(pools.ends)
    for half in (True, False):  # first the counts with half true NOT ENOUGH INFO claims, then any
        start = _first(1, everything, lambda total: not _may_split(total, pools, shares, half)) - 1
        for total in range(start, 0, -1):
            split = _split(total, pools, shares)
            if split is not None and (not half or split[0] >= split[1][NEI] // 2):
                return total
    return 0


def _may_split(total: int, pools: _Pools, shares, half: bool) -> bool:
    """False when ``_split(total)`` is None (``half``: or gives fewer than half its NOT ENOUGH INFO claims
    of true facts); once false for a count, false for every larger count.

    ``_split`` takes k true facts out of R with k at most ``room``: while R keeps ``want[REFUTES]`` false
    facts refuted, and leaves ``want[SUPPORTS]`` true facts in it. It succeeds exactly when the NOT ENOUGH
    INFO claims fit: ``want[NEI] <= room + the false facts no longer refuted by then``; and it takes at
    least half of them from true facts exactly when also ``room >= want[NEI] // 2``. ``room`` and what fits
    shrink as the count grows, but ``want[NEI]`` can drop by one where SUPPORTS and REFUTES both round
    up; so the test uses a bound on ``want[NEI]`` that never drops: ``ceil(total * NEI share) - 1``."""
    want = counts_for(total, shares)
    refuting_needed = want[REFUTES]
    if refuting_needed > pools.refuted(0):
        return False
    # the most true facts out of R while it still refutes refuting_needed false facts (every count if none)
    last_end = pools.ends[len(pools.ends) - refuting_needed] if refuting_needed else math.inf
    room = min(last_end - 1, pools.outside + pools.inside - want[SUPPORTS])
    if room < 0:
        return False
    least_nei = max(0, math.ceil(max(0, 1 - shares[0] - shares[1]) * total) - 1)
    fits = room + len(pools.ends) - pools.refuted(room)
    return least_nei <= fits and (not half or least_nei // 2 <= room)


def _pool_text(sizes: dict[str, int]) -> str:
    return (f"{sizes['true_in_kb']} true facts in the KB, {sizes['true_outside_kb']} outside it, {sizes['false']} "
            f"false facts of which R refutes {sizes['false_refuted_by_kb']} while every true fact is in it")
