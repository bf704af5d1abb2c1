"""The links a neighbourhood reader has fetched so far, kept as integer arrays between rounds.

Neighbourhood generation makes a new index after every fetch, and the index numbers entities in
IRI order (as the whole index does, so that every order-dependent choice comes out the same).
Kept as a set of (subject, predicate, object) strings, every round sorted all the strings again
and rebuilt dicts over them: at 10M triples the client then spent more CPU than the server and
held gigabytes. Here an entity gets a number once, when it first arrives; links are arrays of
those numbers; a round only merges the new names into the IRI order it already has (two sorted
runs, which Python's sort merges in linear time) and sorts integer codes.
"""
from __future__ import annotations

import numpy as np

from .scan import unique


class FetchedLinks:
    def __init__(self, predicates: int):
        self.predicates = max(predicates, 1)
        self.names: list[str] = []  # by arrival number
        self.ids: dict[str, int] = {}
        self._order: list[int] = []  # arrival numbers in IRI order, of the names ordered so far
        self._src = self._pred = self._dst = np.zeros(0, dtype=np.int64)  # distinct links so far
        self._new: tuple[list[int], list[int], list[int]] = ([], [], [])  # rows not merged yet
        self.listener = None  # called with each link added (a round's walks keep what they fetched)

    def number(self, name: str) -> int:
        found = self.ids.get(name)
        if found is None:
            found = self.ids[name] = len(self.names)
            self.names.append(name)
        return found

    def add(self, s: str, p: int, o: str) -> None:
        if self.listener is not None:
            self.listener(s, p, o)
        src, pred, dst = self._new
        src.append(self.number(s))
        pred.append(p)
        dst.append(self.number(o))

    def __len__(self) -> int:
        self._merge()
        return int(self._src.size)

    def _merge(self) -> np.ndarray:
        """Take in the new rows, keep the links distinct and sorted by IRI order; the arrival
        numbers in IRI order."""
        order = self._ordered()
        if self._new[0]:
            src, pred, dst = (np.array(rows, dtype=np.int64) for rows in self._new)
            self._new = ([], [], [])
            place = np.empty(order.size, dtype=np.int64)
            place[order] = np.arange(order.size, dtype=np.int64)
            src, pred, dst = self._distinct(place[np.concatenate((self._src, src))],
                                            np.concatenate((self._pred, pred)),
                                            place[np.concatenate((self._dst, dst))])
            self._src, self._pred, self._dst = order[src], pred, order[dst]
        return order

    def _distinct(self, src: np.ndarray, pred: np.ndarray, dst: np.ndarray):
        """The distinct rows, sorted by (src, pred, dst)."""
        n, p = max(len(self.names), 1), self.predicates
        if n * n * p < 2 ** 63:
            codes = unique((src * p + pred) * n + dst)
            return codes // (p * n), codes // n % p, codes % n
        order = np.lexsort((dst, pred, src))
        src, pred, dst = src[order], pred[order], dst[order]
        keep = np.concatenate(([True], (src[1:] != src[:-1]) | (pred[1:] != pred[:-1]) | (dst[1:] != dst[:-1])))
        return src[keep], pred[keep], dst[keep]

    def _ordered(self) -> np.ndarray:
        if len(self._order) < len(self.names):
            names = self.names
            fresh = sorted(range(len(self._order), len(names)), key=names.__getitem__)
            self._order = sorted(self._order + fresh, key=names.__getitem__)
        return np.array(self._order, dtype=np.int64)

    def arrays(self) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The entities in IRI order; the links as int32 places in it (src, pred, dst), sorted by
        (src, pred, dst); and each arrival number's place."""
        order = self._merge()
        place = np.empty(order.size, dtype=np.int64)
        place[order] = np.arange(order.size, dtype=np.int64)
        return ([self.names[i] for i in self._order], place[self._src].astype(np.int32),
                self._pred.astype(np.int32), place[self._dst].astype(np.int32), place)
