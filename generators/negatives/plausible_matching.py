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


def _matching(lines: Sequence[Sequence[int]], reach: Sequence[Sequence[float]], spare: dict[int, int],
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
