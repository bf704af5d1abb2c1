"""True facts whose objects the false side can match.

A false fact p(s, o') keeps a true fact's subject s and needs an o' that s does not hold. For the
object column to say nothing of the label, each object should be as frequent among false facts as
among true ones (``negatives.base.ObjectBalance``). On a KB where one object is held by most
subjects (English among the languages spoken on CoDEx), a sample of true facts can name it more
often than the set's subjects can take it as a false fact: English was the object of 74 of 150
true facts while 46 of the set's subjects did not speak it, so no sampler could balance it and the
object column and the type baseline flagged the set.

Here the split's true facts are the ranking's first ones, except that a fact whose object is owed
more false facts than the set's subjects can take (its *room*: the subjects for which p(s, o) passes
the id screens every false fact passes, ``NegativeContext.refuses``) gives way to the next fact of
the ranking that fits. On a KB where no object is over its room (DBpedia's birth places) the set is
the ranking's head, as before. What could not be matched within the scan is counted
(``Matched.unmatched``) for the summary to say.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import islice

import numpy as np

from .facts import Fact
from .negatives.base import NegativeContext
from .negatives.debt_paths import augment

SCAN_FACTOR = 4  # ranked facts read beyond the split's own, per true fact: bounds the work on a big KB


@dataclass
class Matched:
    facts: list[Fact]
    swapped: int = 0  # ranked facts that gave way to later ones
    # objects still owed more false facts than their room, after the scan: {object: (owed, room)}
    unmatched: dict[str, tuple[float, int]] = field(default_factory=dict)


class Room:
    """How many of the chosen facts' subjects can take each object as a false fact, kept as facts
    come and go: p(s, o) passes the id screens, and o the type check against one of s's chosen
    true objects (what the walks and their fallback ask of an object)."""

    def __init__(self, context: NegativeContext):
        self.context = context
        self.own: dict[str, Counter] = {}  # the chosen true objects of each subject
        self._screens: dict[tuple[str, str], bool] = {}
        self._typed: dict[tuple[str, str], bool] = {}
        # ``unpaid`` asks every chosen subject about every owed object after each swap: screened
        # once per pair (every subject of _screened_subjects against every object of _columns),
        # and each subject's answers kept as a row over the objects' columns while its chosen
        # objects (which the type check reads) stay the same
        self._columns: dict[str, int] = {}
        self._screened_subjects: set[str] = set()
        self._rows: dict[str, tuple[frozenset, np.ndarray]] = {}

    def add(self, fact: Fact) -> None:
        self.own.setdefault(fact.s, Counter())[fact.o] += 1

    def remove(self, fact: Fact) -> None:
        self.own[fact.s][fact.o] -= 1
        if not +self.own[fact.s]:
            del self.own[fact.s]
        else:
            self.own[fact.s] = +self.own[fact.s]

    def of(self, o: str) -> int:
        subjects = list(self.own)
        self._screen(subjects, o)
        return sum(self._screens[(s, o)] and self._type_fits(s, o) for s in subjects)

    def takes(self, s: str, o: str) -> bool:
        """Does the chosen subject ``s`` count in the room of ``o``: one term of ``of``'s sum."""
        if s not in self.own:
            return False
        self._screen([s], o)
        return self._screens[(s, o)] and self._type_fits(s, o)

    def of_after(self, o: str, added: Fact, removed: Fact) -> int:
        """The room of ``o`` were ``added`` chosen instead of ``removed``."""
        self.add(added)
        self.remove(removed)
        try:
            return self.of(o)
        finally:
            self.add(removed)
            self.remove(added)

    def unpaid(self, objects: Counter, ratio: float) -> Counter:
        """What stays owed when each chosen fact's subject takes one false object, as many as
        can be paid (``debt_paths.augment``, a maximum matching with each object taking
        ``objects[o] * ratio`` subjects): an object's room counts subjects that other objects
        may need more. On CoDEx's religions, atheism and Catholicism are taken only by the
        subjects of a few other religions, too few for both."""
        names = sorted(objects)
        self._screen_all(names)
        cols = np.fromiter((self._columns[o] for o in names), dtype=np.int64, count=len(names))
        position = {o: i for i, o in enumerate(names)}
        taken: dict[str, np.ndarray] = {}  # subject -> positions in names of the objects it may take
        for s, own in self.own.items():
            mask = self._row(s)[cols]
            for o in own:
                if o in position:
                    mask[position[o]] = False
            taken[s] = np.flatnonzero(mask)
        left = np.array([int(np.ceil(objects[o] * ratio - 1e-9)) for o in names], dtype=np.int64)
        sources = [(s, o) for s, own in self.own.items() for o, count in own.items() for _ in range(count)]
        lines = _Lines([taken[s] for s, _ in sources])
        held: dict[int, int] = {}

        def fits(k: int, i: int) -> bool:  # a subject with two chosen facts takes an object once
            mates = by_subject[sources[k][0]]
            return len(mates) == 1 or not any(held.get(j) == i for j in mates if j != k)

        by_subject: dict[str, list[int]] = {}
        for k, (s, _) in enumerate(sources):
            by_subject.setdefault(s, []).append(k)
        for k, (s, _) in enumerate(sources):  # most spare first: few sources are then left to the trades
            line = taken[s]
            line = line[left[line] > 0]
            if len(by_subject[s]) > 1:
                line = line[~np.isin(line, [held[j] for j in by_subject[s] if j != k and j in held])]
            if line.size:
                most = left[line]
                best = int(line[most == most.max()].min())  # the most spare, the first name on a tie
                held[k] = best
                left[best] -= 1
        spare = dict(enumerate(left.tolist()))
        augment([k for k in range(len(sources)) if k not in held], lines, held, spare, fits, len(sources))
        return Counter({names[i]: n for i, n in spare.items() if n > 0})

    def _screen_all(self, names: list[str]) -> None:
        """Every chosen subject screened against every object of ``names``, each pair once."""
        fresh = [o for o in names if o not in self._columns]
        newcomers = [s for s in self.own if s not in self._screened_subjects]
        for o in self._columns:  # newcomers against the objects known so far
            if newcomers:
                self._screen(newcomers, o)
        self._screened_subjects.update(newcomers)
        everyone = list(self._screened_subjects)
        for o in fresh:
            self._screen(everyone, o)
            self._columns[o] = len(self._columns)

    def _row(self, s: str) -> np.ndarray:
        """May ``s`` take each object of ``_columns``, as ``of`` counts it (screen and type check)."""
        key = frozenset(self.own[s])
        known = self._rows.get(s)
        if known is not None and known[0] == key and known[1].size == len(self._columns):
            return known[1]
        start = known[1].size if known is not None and known[0] == key else 0
        objects = list(self._columns)[start:]
        more = np.fromiter((self._screens[(s, o)] and self._type_fits(s, o) for o in objects), dtype=bool,
                           count=len(objects))
        row = np.concatenate([known[1], more]) if start else more
        self._rows[s] = key, row
        return row

    def _type_fits(self, s: str, o: str) -> bool:
        for true_object in self.own[s]:
            if (true_object, o) not in self._typed:
                self._typed[(true_object, o)] = self.context.types.type_consistent(true_object, o)
            if self._typed[(true_object, o)]:
                return True
        return False

    def _screen(self, subjects: list[str], o: str) -> None:
        self.screen_pairs([(s, o) for s in subjects])

    def screen_pairs(self, pairs: list[tuple[str, str]]) -> None:
        """Screen the (subject, object) pairs not screened yet, in one call of the id screens."""
        todo = [pair for pair in pairs if pair not in self._screens]
        if not todo:
            return
        node = self.context.kb.node
        s_ids = np.fromiter((node(s) for s, _ in todo), dtype=np.int64, count=len(todo))
        o_ids = np.fromiter((node(o) for _, o in todo), dtype=np.int64, count=len(todo))
        inside = (s_ids >= 0) & (o_ids >= 0)
        refused = np.array([s == o for s, o in todo], dtype=bool)
        if inside.any():
            refused[inside] |= self.context.refuses(s_ids[inside], o_ids[inside])
        self._screens.update(zip(todo, (~refused).tolist()))


class _Lines:
    """Each source's objects as a list, made when the trades first read it (most are never read)."""

    def __init__(self, arrays: list[np.ndarray]):
        self._arrays = arrays
        self._lists: dict[int, list[int]] = {}

    def __getitem__(self, k: int) -> list[int]:
        if k not in self._lists:
            self._lists[k] = self._arrays[k].tolist()
        return self._lists[k]

    def __len__(self) -> int:
        return len(self._arrays)


def matchable(context: NegativeContext, ranked, n_true: int, n_false: int, *, one_each: bool = False) -> Matched:
    """``n_true`` true facts from ``ranked`` (in ranking order) whose objects the ``n_false`` false
    facts can match; fewer when the ranking has fewer (``positives.select`` then says so).
    ``one_each``: the false side gives each subject one false object per true fact (LCWA's
    fallback), so an object is over when that leaves it owed (``Room.unpaid``), not only when
    fewer subjects than it is owed can take it."""
    pool = list(islice(ranked, n_true * (1 + SCAN_FACTOR)))
    chosen, later = pool[:n_true], iter(pool[n_true:])
    if len(chosen) < n_true or n_false <= 0:
        return Matched(pool)
    ratio = n_false / n_true
    room = Room(context)
    context.types.load_types({f.o for f in pool})
    objects: Counter = Counter()
    for fact in chosen:
        room.add(fact)
        objects[fact.o] += 1
    context.near.prepare_nodes(objects)  # each object's room reads its near set: made together, not one by one
    rooms = {o: room.of(o) for o in objects}
    swapped = 0

    def over_now() -> list[str]:
        over = [o for o in objects if objects[o] * ratio > rooms[o]]
        return over or (list(room.unpaid(objects, ratio)) if one_each and ratio <= 1 else [])

    while over := over_now():
        # the last-ranked fact naming an object over its room gives way
        out = max(k for k, f in enumerate(chosen) if f.o in over)
        gone = chosen[out]
        for fact in later:
            if fact.o not in over and (objects[fact.o] + 1) * ratio <= room.of_after(fact.o, fact, gone):
                break
        else:
            break
        del chosen[out]
        chosen.append(fact)
        swapped += 1
        # a swap changes the rooms only through the two subjects it touches: updated by their
        # terms, not recounted over every subject for every object (that was quadratic per swap)
        touched = {gone.s, fact.s}
        room.screen_pairs([(s, o) for s in touched for o in rooms])
        before = {o: sum(room.takes(s, o) for s in touched) for o in rooms}
        room.remove(gone)
        room.add(fact)
        room.screen_pairs([(s, o) for s in touched for o in objects])
        objects[gone.o] -= 1
        objects[fact.o] += 1
        objects = +objects
        rooms = {o: rooms[o] - before[o] + sum(room.takes(s, o) for s in touched) if o in rooms else room.of(o)
                 for o in objects}
    unmatched = {o: (round(objects[o] * ratio, 2), rooms[o]) for o in objects if objects[o] * ratio > rooms[o]}
    if one_each and ratio <= 1:  # what a subject per false fact leaves owed: its room is what gets paid
        for o, left in room.unpaid(objects, ratio).items():
            if left > 1:  # one short is what rounding an object's share of the false facts leaves
                unmatched.setdefault(o, (round(objects[o] * ratio, 2), int(np.ceil(objects[o] * ratio - 1e-9)) - left))
    context.near.prepare({f.s for f in chosen})  # the false side screens each chosen subject's candidates
    return Matched(chosen, swapped, dict(sorted(unmatched.items())))
