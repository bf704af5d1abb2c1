"""Near sets (``nearness.near_objects``) kept across the scenarios of one process, for the KB index
in memory and one predicate.

A near set depends only on the index, the predicate and which predicates are granular, so a
scenario after the first on the same KB need not make again what an earlier one made. The costly
sets are those of hubs (a hub's holds much of the KB and its holders' links are read to make it),
and hubs are the known objects of many subjects in every scenario of a KB, whatever its seed
(docs/performance.md, the 10M warm-scenario target). The sets kept are bounded by their total
size, the least recently used dropped first; a scenario's ``NearnessMemo`` holds its own
references, so dropping one here never takes it from a scenario that reads it.
"""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict

import numpy as np

LIMIT = 1 << 23  # node ids kept in all sets together

_lock = threading.Lock()
_index: weakref.ref | None = None  # the index the kept sets were made from (one KB's at a time)
_kept: dict[tuple, OrderedDict] = {}  # by (predicate id, granular mask): node -> its near set
_size = 0


def kept(index, predicate: int | None, granular: np.ndarray, nodes: list[int]) -> dict[int, np.ndarray]:
    """The near sets of ``nodes`` that an earlier scenario made from this index, predicate and
    granular predicates."""
    with _lock:
        sets = _sets(index, predicate, granular)
        found = {}
        for k in nodes:
            near = sets.get(k)
            if near is not None:
                sets.move_to_end(k)
                found[k] = near
        return found


def keep(index, predicate: int | None, granular: np.ndarray, made: dict[int, np.ndarray]) -> None:
    """Keep sets just made, dropping the least recently used beyond ``LIMIT``."""
    global _size
    with _lock:
        sets = _sets(index, predicate, granular)
        for k, near in made.items():
            if k not in sets:
                sets[k] = near
                _size += near.size
        while _size > LIMIT:
            fullest = max(_kept.values(), key=len)
            _, dropped = fullest.popitem(last=False)
            _size -= dropped.size


def forget() -> None:
    """Drop every kept set (tests; a new index does it by itself)."""
    global _index, _size
    with _lock:
        _index, _size = None, 0
        _kept.clear()


def _sets(index, predicate: int | None, granular: np.ndarray) -> OrderedDict:
    global _index, _size
    if _index is None or _index() is not index:
        _index, _size = weakref.ref(index), 0
        _kept.clear()
    return _kept.setdefault((predicate, granular.tobytes()), OrderedDict())
