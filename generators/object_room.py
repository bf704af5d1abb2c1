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
        for o in names:
            self.of(o)  # screens every chosen subject against o, once
        spare = {i: int(np.ceil(objects[o] * ratio - 1e-9)) for i, o in enumerate(names)}
        sources = [(s, o) for s, own in self.own.items() for o, count in own.items() for _ in range(count)]
        lines = [[i for i, o in enumerate(names) if o not in self.own[s] and self._screens[(s, o)]
                  and self._type_fits(s, o)] for s, _ in sources]
        held: dict[int, int] = {}

        def fits(k: int, i: int) -> bool:  # a subject with two chosen facts takes an object once
            return not any(held.get(j) == i for j in by_subject[sources[k][0]] if j != k)

        by_subject: dict[str, list[int]] = {}
        for k, (s, _) in enumerate(sources):
            by_subject.setdefault(s, []).append(k)
        for k, line in enumerate(lines):  # most spare first: few sources are then left to the trades
            best = max((i for i in line if spare[i] > 0 and fits(k, i)), key=lambda i: (spare[i], -i), default=None)
            if best is not None:
                held[k] = best
                spare[best] -= 1
        augment([k for k in range(len(sources)) if k not in held], lines, held, spare, fits, len(sources))
        return Counter({names[i]: left for i, left in spare.items() if left > 0})

    def _type_fits(self, s: str, o: str) -> bool:
        for true_object in self.own[s]:
            if (true_object, o) not in self._typed:
                self._typed[(true_object, o)] = self.context.types.type_consistent(true_object, o)
            if self._typed[(true_object, o)]:
                return True
        return False

    def _screen(self, subjects: list[str], o: str) -> None:
        todo = [s for s in subjects if (s, o) not in self._screens]
        if not todo:
            return
        node = self.context.kb.node
        s_ids = np.fromiter((node(s) for s in todo), dtype=np.int64, count=len(todo))
        o_id = node(o)
        inside = (s_ids >= 0) & (o_id >= 0)
        refused = np.array([s == o for s in todo], dtype=bool)
        if inside.any():
            refused[inside] |= self.context.refuses(s_ids[inside], np.full(int(inside.sum()), o_id))
        self._screens.update(zip(((s, o) for s in todo), (~refused).tolist()))


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
        before = {o: sum(room.takes(s, o) for s in touched) for o in rooms}
        room.remove(gone)
        room.add(fact)
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
    return Matched(chosen, swapped, dict(sorted(unmatched.items())))
