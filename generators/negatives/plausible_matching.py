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
from collections.abc import Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment


def plausible_matching(lines: Sequence[Sequence[int]], reach: Sequence[Sequence[float]],
                       spare: dict[int, int], rng: np.random.Generator,
                       groups: Sequence[object] | None = None) -> dict[int, int]:
    """source -> object: as many sources as the objects' ``spare`` places allow given an object
    of their ``lines`` (each with its ``reach``, the same length), and among all such matchings
    one with the greatest total reach; ties between equally reached objects go by a seeded order.

    ``groups``: each source's group (its subject); two sources of a group never get the same
    object. An object with two places could go to two sources of one subject, and the second
    fact, the same triple, was then dropped: that subject had one false fact fewer than true ones
    while another had one more, and how often a subject occurs told the label (CoDEx P1412, the
    audit's frequency baseline). Where two of a group met, the later one may not take that object,
    and the matching is solved again, until none meet."""
    wanted = [list(line) for line in lines]
    values = [list(r) for r in reach]
    while True:
        held = _matching(wanted, values, spare, rng)
        if groups is None:
            return held
        first: dict[tuple, int] = {}
        met = []
        for k, i in sorted(held.items()):
            if (groups[k], i) in first:
                met.append((k, i))
            else:
                first[(groups[k], i)] = k
        if not met:
            return held
        for k, i in met:
            j = wanted[k].index(i)
            del wanted[k][j], values[k][j]


# (source, place) weights solved as one dense assignment; more are solved in blocks of sources
# (a 20,000-fact scenario has some 10,000 sources and as many places: 800 MB of weights at once)
DENSE_PAIRS = 1 << 22


def _matching(lines: Sequence[Sequence[int]], reach: Sequence[Sequence[float]], spare: dict[int, int],
              rng: np.random.Generator) -> dict[int, int]:
    """The assignment as a whole where its weights fit ``DENSE_PAIRS``, else a block of sources at a
    time, in their order, each block with the places the ones before left and at most as many of
    an object's places as the block has sources that could take it."""
    places = sum(max(n, 0) for n in spare.values())
    if len(lines) * places <= DENSE_PAIRS:
        return _assigned(lines, reach, spare, rng)
    held: dict[int, int] = {}
    left = {o: n for o, n in spare.items() if n > 0}
    rows = [k for k, line in enumerate(lines) if line]
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
    columns: dict[int, list[int]] = {}
    for column, o in enumerate(places):
        columns.setdefault(o, []).append(column)
    # one more source given an object outweighs any reach: the most debts first, then the most reach
    most = 1.0 + sum(max(r, default=0.0) for r in reach)
    weight = np.zeros((len(lines), len(places)))
    for k, (line, values) in enumerate(zip(lines, reach)):
        for o, value in zip(line, values):
            if o in columns:
                weight[k, columns[o]] = np.maximum(weight[k, columns[o]], most + value)
    rows, chosen = linear_sum_assignment(weight, maximize=True)
    return {int(k): places[c] for k, c in zip(rows.tolist(), chosen.tolist()) if weight[k, c] > 0}
