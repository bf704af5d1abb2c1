"""Whether a candidate false object is *next to* a known object of its subject, remembered per (s, o).

A false object must not be one link away from an object the KB gives its subject for the
predicate, nor its co-object, i.e. both objects of one subject through one predicate somewhere in
the KB. Multiple true values of a predicate like birthPlace are mostly one place at several
granularities or under several names (a city, its region, its country; Mumbai and British India),
and a KB with no containment links between places still records them this way: someone born in
both, or died in both. Learning that from the KB needs no list of containment predicates. Both
tests look only at predicates that give their subjects few objects (``granular``), and two objects
count as co-objects only when they are held together more often than chance: a link through a
many-valued predicate (each country's diplomatic relations) or two popular objects held together
by chance (English and French, spoken by the same people) is no sign of one place. The array work
is in ``nearness``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from factforge.sparql import profiles

from ..facts import Fact
from . import nearness
from .kb_view import KBView

GRANULAR_OBJECTS = 2.0  # objects per subject, on average, up to which co-objects count (see granular)


@dataclass
class NearnessMemo:
    kb: KBView
    _near: dict[tuple[str, str], bool] = field(default_factory=dict)  # next_to_known_object, by (s, o)
    _known: dict[str, np.ndarray] = field(default_factory=dict)
    _granular: np.ndarray | None = None
    _granular_links: np.ndarray | None = None

    def next_to_known_object(self, fact: Fact) -> bool:
        """Is o' directly linked to, or a co-object of, an object the KB gives this subject for p?

        Born in Munich implies born in Germany: an object one link away from a known one (its
        country, region, or a part of it) is too often true for a false fact. On DBpedia50 with a
        fifth of birthPlace held out, this was where most false "false facts" came from; refusing
        co-objects as well (see the module docstring) removed most of the rest (figures in
        docs/performance.md, negative precision).
        """
        if fact.p != self.kb.predicate:
            return False
        if fact.pair not in self._near:
            self.screen([fact])
        return self._near[fact.pair]

    def screen(self, facts) -> None:
        """Decide ``next_to_known_object`` for many candidate false facts at once (``nearness``):
        samplers refuse about a hundred candidates per false fact near a hub, and one array
        operation over all of them costs what a few single checks did."""
        index, near_memo, predicate = self.kb.adjacency, self._near, self.kb.predicate
        pairs: dict[tuple[str, str], None] = {}
        for fact in facts:
            if fact.p == predicate and fact.pair not in near_memo:
                pairs[fact.pair] = None
        if not pairs:
            return
        todo = list(pairs)
        nodes = np.array([self.kb.node(o) for _, o in todo], dtype=np.int64)
        known = [self._known_array(s) for s, _ in todo]
        counts = np.array([k.size for k in known], dtype=np.int64)
        counts[nodes < 0] = 0  # an object outside the index is linked to nothing
        keep = counts > 0
        rows_known = np.concatenate([k for k, kept in zip(known, keep.tolist()) if kept] or [np.zeros(0, np.int64)])
        group = np.repeat(np.arange(len(todo)), counts)
        near = nearness.near_known(index, nodes[group], rows_known, group, len(todo), self.granular,
                                   self.granular_links, self.predicate_subjects, self.predicate_id)
        near_memo.update(zip(todo, near.tolist()))

    def screened(self, fact: Fact) -> bool:
        return fact.pair in self._near or fact.p != self.kb.predicate

    def _known_array(self, subject: str) -> np.ndarray:
        """The index ids of the subject's known objects, looked up once per subject."""
        nodes = self._known.get(subject)
        if nodes is None:
            index = self.kb.adjacency
            found = [n for n in (index.id(k) for k in self.kb.objects_of(subject)) if n is not None]
            nodes = self._known[subject] = np.array(found, dtype=np.int64)
        return nodes

    def co_objects(self, a: int, b: int) -> bool:
        """Does some entity x link to both a and b through one predicate q (x q a, x q b), where q
        gives its subjects few objects (``granular``)?"""
        return bool(nearness.co_objects(self.kb.adjacency, np.array([a]), np.array([b]), self.granular,
                                        self.predicate_subjects, self.predicate_id)[0])

    @property
    def predicate_id(self) -> int | None:
        """The scenario predicate's index id: its own holders judge popular co-objects (``nearness.held_apart``)."""
        return self.kb.adjacency.pindex.get(self.kb.predicate)

    @property
    def granular(self) -> np.ndarray:
        """By predicate id: do its subjects have few objects each (at most ``GRANULAR_OBJECTS`` on
        average)? Only then are two objects of one subject likely one thing at two granularities
        (a city and its country). Two films an actor starred in are just siblings: counting them
        refused nearly every candidate on the synthetic 10M KB, whose predicates give 2-4 objects
        per subject, and checking them was most of a random-walk scenario's time."""
        if self._granular is None:
            index = self.kb.adjacency
            spread = {row["predicate"]: row["objects_per_subject"] for row in profiles.predicate_profiles(self.kb.store)}
            self._granular = np.array([spread.get(q, np.inf) <= GRANULAR_OBJECTS for q in index.predicates], dtype=bool)
        return self._granular

    @property
    def granular_links(self) -> np.ndarray:
        """The links through ``granular`` predicates (``nearness.link_codes``): only these make an
        object "one link away" from a known one. A city's country, a region's parts have few per
        subject; a predicate that links each country to dozens of others (Wikidata's diplomatic
        relations) says nothing about two countries being one place, and counting it refused
        every popular country as a false citizenship, leaving only rare ones."""
        if self._granular_links is None:
            self._granular_links = nearness.link_codes(self.kb.adjacency, self.granular)
        return self._granular_links

    @property
    def predicate_subjects(self) -> np.ndarray:
        """By predicate id: how many distinct subjects it has (chance of two objects together)."""
        return self.kb.adjacency.link_subjects
