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
from factforge.sparql.neighbourhood import Neighbourhood

from ..facts import Fact
from . import near_sets, nearness
from .kb_view import KBView

GRANULAR_OBJECTS = 2.0  # objects per subject, on average, up to which co-objects count (see granular)
MASKED = 1 << 14  # near sets up to this size go into a subject's mask; larger ones are searched (_near_subject)


@dataclass
class NearnessMemo:
    kb: KBView
    # next_to_known_object by s * |entities| + o (index ids), for an endpoint's neighbourhood (a whole
    # index answers from near masks): the screens of round_robin ask by id and never make the
    # strings, the other samplers ask by fact; one memo serves both
    _near: dict[int, bool] = field(default_factory=dict)
    _granular: np.ndarray | None = None
    _granular_links: np.ndarray | None = None
    # nearness.near_objects by node id (whole indexes only, see _whole_index), this scenario's references
    _near_sets: dict[int, np.ndarray] = field(default_factory=dict)
    # by entity id: near a known object of the subject last asked about (those with sets up to MASKED)
    _near_mask: np.ndarray | None = None
    # the subject last asked about: its known objects whose sets are in the mask, and those searched
    _mask_of: tuple[int, list[int], list[int]] = (-1, [], [])

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
        s, o = self.kb.node(fact.s), self.kb.node(fact.o)
        if s < 0 or o < 0:  # an entity outside the index is linked to nothing
            return False
        near = self._near.get(s * len(self.kb.adjacency.entities) + o)
        if near is None:
            near = bool(self.near_nodes(np.array([s]), np.array([o]))[0])
        return near

    def screen(self, facts) -> None:
        """Decide ``next_to_known_object`` for many candidate false facts at once (``nearness``):
        samplers refuse about a hundred candidates per false fact near a hub, and one array
        operation over all of them costs what a few single checks did. On a whole index there is
        nothing to gain: each check is a lookup in the subject's mask."""
        if self._whole_index:
            return
        node, predicate = self.kb.node, self.kb.predicate
        pairs = [(node(f.s), node(f.o)) for f in facts if f.p == predicate]
        if pairs:
            s, o = np.array(pairs, dtype=np.int64).T
            self.near_nodes(s, o)

    def near_nodes(self, s: np.ndarray, o: np.ndarray) -> np.ndarray:
        """``next_to_known_object`` of the facts p(s[i], o[i]) given by index ids (-1: not in the
        index), decided in one array operation for those not in the memo yet. On a whole index the
        subject's near mask answers each row by one lookup, which costs less than the memo's dict."""
        index = self.kb.adjacency
        s, o = np.asarray(s, dtype=np.int64), np.asarray(o, dtype=np.int64)
        if self._whole_index:
            near = np.zeros(s.size, dtype=bool)
            inside = np.flatnonzero((s >= 0) & (o >= 0))
            near[inside] = self._near_by_subject(s[inside], o[inside])
            return near
        codes = s * len(index.entities) + o
        near, todo, memo = np.zeros(codes.size, dtype=bool), [], self._near
        for i, (code, inside) in enumerate(zip(codes.tolist(), ((s >= 0) & (o >= 0)).tolist())):
            if inside:
                known = memo.get(code)
                if known is None:
                    todo.append(i)
                else:
                    near[i] = known
        if not todo:
            return near
        asked = np.asarray(todo)
        todo_codes, first = np.unique(codes[asked], return_index=True)
        todo = asked[first]
        pid = index.pindex.get(self.kb.predicate)
        known, group = np.zeros(0, np.int64), np.zeros(0, np.int64)
        if pid is not None:  # the subjects' known objects: their runs of p-links, gathered at once
            at, group = nearness.runs(*index.follow_many(s[todo], np.full(todo.size, pid + 1, dtype=np.int64)))
            known = index.dst[at].astype(np.int64)
        answer = nearness.near_known(index, o[todo][group], known, group, todo.size, self.granular,
                                     self.granular_links, self.predicate_subjects, self.predicate_id)
        memo.update(zip(todo_codes.tolist(), answer.tolist()))
        # a pair asked twice in one call was decided once, at its first place
        near[asked] = answer[np.searchsorted(todo_codes, codes[asked])]
        return near

    def _near_by_subject(self, s: np.ndarray, o: np.ndarray) -> np.ndarray:
        """``nearness.near_known`` of the facts p(s[i], o[i]) by the nodes near any known object of
        each subject (``near_objects``, made once per node: a hub is the known object of many
        subjects). A subject's line is screened a window at a time, so the mask of the last
        subject is kept: one lookup per candidate, however many objects the subject has."""
        if s.size and s[0] == s[-1] and (s == s[0]).all():  # one subject: most calls
            return self._near_subject(int(s[0]), o)
        # Many subjects (one object's room over the chosen subjects, LCWA's subject side): a mask set
        # per subject would cost its near sets' sizes each time. Each (row, known object) is a binary
        # search in a near set instead, and since b is near k exactly when k is near b, in the set of
        # whichever side has fewer distinct nodes: one object's room then searches that object's set
        # once for every subject's known objects, not each known object's set for that object.
        index, pid = self.kb.adjacency, self.predicate_id
        near = np.zeros(s.size, dtype=bool)
        if pid is None:
            return near
        at, row = nearness.runs(*index.follow_many(s, np.full(s.size, pid + 1, dtype=np.int64)))
        known, candidate = index.dst[at].astype(np.int64), o[row]
        if np.unique(candidate).size < np.unique(known).size:
            known, candidate = candidate, known
        order = np.argsort(known, kind="stable")
        known, candidate, row = known[order], candidate[order], row[order]
        starts = np.flatnonzero(np.r_[True, known[1:] != known[:-1]]) if known.size else known
        sets = self._sets(known[starts])
        for k, lo, hi in zip(known[starts].tolist(), starts.tolist(), np.r_[starts[1:], known.size].tolist()):
            near[row[lo:hi][nearness.sorted_member(candidate[lo:hi], sets[k])]] = True
        return near

    def prepare(self, subjects) -> None:
        """Make the near sets of the known objects of ``subjects`` (entity names) together, ahead of
        the windows that will screen each subject's candidates against them: one subject at a time,
        each batch searched its holders' runs on its own, a few at a time (whole indexes only)."""
        pid = self.predicate_id
        if not self._whole_index or pid is None:
            return
        ids = np.array([k for k in map(self.kb.node, subjects) if k >= 0], dtype=np.int64)
        at, _ = nearness.runs(*self.kb.adjacency.follow_many(ids, np.full(ids.size, pid + 1, dtype=np.int64)))
        self._sets(np.unique(self.kb.adjacency.dst[at].astype(np.int64)))

    def prepare_nodes(self, entities) -> None:
        """Make the near sets of ``entities`` (names) together, ahead of the calls that read them
        (``object_room`` counts each true object's room from its set)."""
        if self._whole_index:
            self._sets(np.unique(np.array([k for k in map(self.kb.node, entities) if k >= 0], dtype=np.int64)))

    def _sets(self, nodes: np.ndarray) -> dict[int, np.ndarray]:
        """The near sets (``nearness.near_objects``) of ``nodes``: kept from an earlier scenario of
        this process (``near_sets``), or the missing ones made together."""
        sets = self._near_sets
        missing = [k for k in nodes.tolist() if k not in sets]
        if missing:
            index, pid, granular = self.kb.adjacency, self.predicate_id, self.granular
            sets.update(near_sets.kept(index, pid, granular, missing))
            missing = [k for k in missing if k not in sets]
        if missing:
            made = dict(zip(missing, nearness.near_objects_many(index, np.array(missing, dtype=np.int64), granular,
                                                                self.predicate_subjects, pid)))
            sets.update(made)
            near_sets.keep(index, pid, granular, made)
        return sets

    def _near_subject(self, subject: int, o: np.ndarray) -> np.ndarray:
        """By entity id: is each of ``o`` near a known object of ``subject``? One boolean mask, set
        for each subject from its known objects' near sets and cleared again from them: a sorted
        union of the sets cost a sort per subject, most of re-pairing's time. A set larger than
        ``MASKED`` (a hub's holds much of the KB) is searched instead: setting and clearing it for
        every subject that knows the hub cost more than the few windows a subject asks about."""
        index = self.kb.adjacency
        if self._near_mask is None:
            self._near_mask = np.zeros(len(index.entities), dtype=bool)
        last, cleared, searched = self._mask_of
        if last != subject:
            mask, pid, sets = self._near_mask, self.predicate_id, self._near_sets
            for k in cleared:
                mask[sets[k]] = False
            known = np.asarray(index.follow(subject, pid + 1) if pid is not None else [], dtype=np.int64)
            sets = self._sets(known)
            cleared = [k for k in known.tolist() if sets[k].size <= MASKED]
            searched = [k for k in known.tolist() if sets[k].size > MASKED]
            for k in cleared:
                mask[sets[k]] = True
            self._mask_of = (subject, cleared, searched)
        near = self._near_mask[o]
        for k in searched:
            near |= nearness.sorted_member(o, self._near_sets[k])
        return near

    @property
    def _whole_index(self) -> bool:
        """Is every node's every link in the index, so that ``near_objects`` can follow a known
        object's holders? Not in an endpoint's ``Neighbourhood``, which fetches the nodes asked
        about; nor where the in-link codes do not fit an int64 (``follow_many`` is then a search per row)."""
        index = self.kb.adjacency
        return not isinstance(index, Neighbourhood) and index.in_codes is not None

    def screened(self, fact: Fact) -> bool:
        """Is ``next_to_known_object`` of ``fact`` known without work? On a whole index always (a
        lookup in the subject's mask): only the memo of an endpoint's neighbourhood gains by batches."""
        if fact.p != self.kb.predicate or self._whole_index:
            return True
        s, o = self.kb.node(fact.s), self.kb.node(fact.o)
        return s < 0 or o < 0 or s * len(self.kb.adjacency.entities) + o in self._near

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
            spread = profiles.objects_per_subject(self.kb.store)
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
