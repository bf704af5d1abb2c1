"""Which owed object each source takes, when several sources want the same few: the matching
that pays the most debts and, among those, sends each object where the subject's neighbourhood
leads to it most (``plausibility.walk_reach``).

Taken a source at a time, each its most owed object in a seeded order, the matching paid as many
debts, but which subject got which object had nothing to do with the subject: on CoDEx's
occupations the false ones went *against* the subject's other occupations (held with them less
often than the true one), where hand-checked negatives go with them, and TransE and Knowledge
Linker told ours apart (docs/performance.md, negative precision). Weighing each pair by reach and
solving the assignment as a whole keeps every object's share and lets the debts go where they
are plausible; a greedy "most reached first" gave the most reached objects to the first
subjects and left the later ones the rest.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment

from .nearness import runs


def plausible_matching(lines: Sequence[Sequence[int]], reach: Sequence[Sequence[float]],
                       spare: dict[int, int], rng: np.random.Generator,
                       groups: Sequence[object] | None = None,
                       fits: Callable[[int, int], bool] | None = None) -> dict[int, int]:
    """source -> object: as many sources as the objects' ``spare`` places allow given an object
    of their ``lines`` (each with its ``reach``, the same length), and among all such matchings
    one with the greatest total reach; ties between equally reached objects go by a seeded order.

    ``groups``: each source's group (its subject); two sources of a group never get the same
    object. An object with two places could go to two sources of one subject, and the second
    fact, the same triple, was then dropped: that subject had one false fact fewer than true ones
    while another had one more, and how often a subject occurs told the label (CoDEx P1412, the
    audit's frequency baseline). Where two of a group met, the later one may not take that object,
    and the matching is solved again, until none meet.

    ``fits(source, object)``: a check the matching's pairs must pass (``acceptable``), asked only
    of the pairs it holds: a pair that fails leaves its line and the matching is solved again. A
    matching that holds only fitting pairs and is the best over lines that include the unfitting
    ones is the best over the fitting ones too, and checking every pair of every line by name was
    most of the matching's time. A check is asked once per pair."""
    wanted = [list(line) for line in lines]
    values = [list(r) for r in reach]
    known: dict[tuple[int, int], bool] = {}
    # Beyond one dense assignment the matching is solved in blocks, already not the best over all;
    # there a pair that fails leaves the others as they are, and only its source is matched again
    # with the places left (solving every block again per failure was most of a large set's time).
    large = len(lines) * sum(max(n, 0) for n in spare.values()) > DENSE_PAIRS
    kept: dict[int, int] = {}
    left = dict(spare)
    rows = list(range(len(lines)))
    while True:
        got = _matching([wanted[k] for k in rows], [values[k] for k in rows], left, rng)
        held = {rows[j]: i for j, i in got.items()}
        drop = []
        if fits is not None:
            for k, i in sorted(held.items()):
                if (k, i) not in known:
                    known[(k, i)] = fits(k, i)
                if not known[(k, i)]:
                    drop.append((k, i))
        if not drop and groups is not None:
            first: dict[tuple, int] = {(groups[k], i): k for k, i in kept.items()}
            for k, i in sorted(held.items()):
                if (groups[k], i) in first:
                    drop.append((k, i))
                else:
                    first[(groups[k], i)] = k
        if not drop:
            return {**kept, **held}
        for k, i in drop:
            j = wanted[k].index(i)
            del wanted[k][j], values[k][j]
        if large:
            dropped = {k for k, _ in drop}
            for k, i in held.items():
                if k not in dropped:
                    kept[k] = i
                    left[i] -= 1
            rows = sorted(dropped)


def weighed(lines: Sequence[Sequence[int]], spare: dict[int, int]) -> list[bool]:
    """Per source: can its reach change the matching? Not where its line holds one object that
    has a place for every line that wants it (or none at all): every best matching gives the
    source that object (or none), so its reach adds the same to each of them. Reach costs a walk
    over the subject's neighbourhood, and many sources of a large set are of this kind."""
    wanting: Counter = Counter(o for line in lines for o in set(line))
    return [len(line) > 1 or any(0 < spare.get(o, 0) < wanting[o] for o in line) for line in lines]


# (source, place) weights solved as one dense assignment; more are solved in blocks of sources
# (a 20,000-fact scenario has some 10,000 sources and as many places: 800 MB of weights at once)
DENSE_PAIRS = 1 << 22


def _matching(lines: Sequence[Sequence[int]], reach: Sequence[Sequence[float]], spare: dict[int, int],
              rng: np.random.Generator) -> dict[int, int]:
    """The assignment as a whole where its weights fit ``DENSE_PAIRS``, else a block of sources at a
    time, in their order, each block with the places the ones before left and at most as many of
    an object's places as the block has sources that could take it. Sources whose reach cannot
    change it (``weighed``) are given their object first."""
    held: dict[int, int] = {}
    # a source whose one object has a place for every source that wants it gets it in every best
    # matching: given it here, it leaves the assignment, as do the places no source can take
    left = {o: n for o, n in spare.items() if n > 0}
    need = weighed(lines, left)
    for k, line in enumerate(lines):
        if line and not need[k] and left.get(line[0], 0) > 0:
            held[k] = line[0]
            left[line[0]] -= 1
    rows = [k for k, line in enumerate(lines) if line and need[k]]
    wanting: Counter = Counter(o for k in rows for o in set(lines[k]))
    left = {o: min(n, wanting[o]) for o, n in left.items() if n > 0 and wanting[o]}
    if len(rows) * sum(left.values()) <= DENSE_PAIRS:
        got = _assigned([lines[k] for k in rows], [reach[k] for k in rows], left, rng)
        held.update((rows[j], o) for j, o in got.items())
        return held
    while rows:
        block, listed, columns = [], Counter(), 0
        for k in rows:
            new = {o for o in lines[k] if left.get(o, 0) > listed[o]}
            if block and (len(block) + 1) * (columns + len(new)) > DENSE_PAIRS:
                break
            block.append(k)
            listed.update(set(lines[k]))
            columns += len(new)
        rows = rows[len(block):]
        got = _assigned([lines[k] for k in block], [reach[k] for k in block],
                        {o: min(n, listed[o]) for o, n in left.items() if listed[o]}, rng)
        for j, o in got.items():
            held[block[j]] = o
            left[o] -= 1
    return held


def _assigned(lines: Sequence[Sequence[int]], reach: Sequence[Sequence[float]], spare: dict[int, int],
              rng: np.random.Generator) -> dict[int, int]:
    places = [o for o in sorted(spare) for _ in range(max(spare[o], 0))]
    if not places or not lines:
        return {}
    places = [places[i] for i in rng.permutation(len(places)).tolist()]
    # one more source given an object outweighs any reach: the most debts first, then the most reach
    most = 1.0 + sum(max(r, default=0.0) for r in reach)
    weight = np.zeros((len(lines), len(places)))
    # every (source, place of an object of its line) at once: an element at a time was most of the
    # matching's time on a large set
    by_object = np.argsort(np.asarray(places, dtype=np.int64), kind="stable")
    sorted_places = np.asarray(places, dtype=np.int64)[by_object]
    objects = np.fromiter((o for line in lines for o in line), dtype=np.int64)
    sources = np.repeat(np.arange(len(lines)), [len(line) for line in lines])
    values = np.fromiter((v for r in reach for v in r), dtype=np.float64, count=objects.size)
    at, row = runs(np.searchsorted(sorted_places, objects, "left"), np.searchsorted(sorted_places, objects, "right"))
    np.maximum.at(weight, (sources[row], by_object[at]), most + values[row])
    rows, chosen = linear_sum_assignment(weight, maximize=True)
    return {int(k): places[c] for k, c in zip(rows.tolist(), chosen.tolist()) if weight[k, c] > 0}
