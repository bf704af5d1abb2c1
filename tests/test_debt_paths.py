"""Trades along augmenting paths (generators/negatives/debt_paths.py): a search that ended nowhere
is not repeated, and skipping it changes no result."""
from __future__ import annotations

from collections import deque

import numpy as np

from factforge.generators.negatives.debt_paths import augment


def plain_augment(left_over, lines, held, spare, fits, wanted):
    """The same trades by a breadth-first search from every source left over, nothing skipped:
    the oracle for instances too small for the visit bound to cut a search."""
    holders = {}
    for source, o in held.items():
        holders.setdefault(o, []).append(source)
    for start in left_over:
        if wanted <= 0:
            break
        via, queue, end = {start: (-1, -1)}, deque([start]), None
        while queue and end is None:
            source = queue.popleft()
            for o in lines[source]:
                if o == held.get(source) or not fits(source, o):
                    continue
                if spare.get(o, 0) > 0:
                    end = source, o
                    break
                for other in holders.get(o, ()):
                    if other not in via:
                        via[other] = source, o
                        queue.append(other)
        if end is None:
            continue
        source, o = end
        spare[o] -= 1
        while source != -1:
            before = held.get(source)
            if before is not None:
                holders[before].remove(source)
            held[source] = o
            holders.setdefault(o, []).append(source)
            source, o = via[source]
        wanted -= 1
    return held


def test_sources_left_over_in_one_paid_up_group_search_it_once():
    """200 sources hold the 200 objects of a group that has no room left; 300 more want only
    those objects. Each search of the group ends nowhere, and nothing changes between searches:
    the group's lines are read once, not once per source left over."""
    group = 200
    lines = [list(range(group)) for _ in range(group + 300)]
    held = {k: k for k in range(group)}
    calls = 0

    def fits(k, o):
        nonlocal calls
        calls += 1
        return True

    spare = dict.fromkeys(range(group), 0)
    result = augment(list(range(group, group + 300)), lines, dict(held), spare, fits, 300)
    assert result == held and all(left == 0 for left in spare.values())
    # one full search reads each line once (group + 1 lines of `group` objects); every later one
    # reads only its own start's line
    assert calls <= (group + 1) * group + 300 * group, calls


def test_skipping_vain_searches_changes_no_trade():
    """On seeded random instances, small enough that no search is cut short, the trades and
    the room left are those of a search from every source with nothing skipped."""
    for seed in range(300):
        rng = np.random.default_rng(seed)
        sources, objects = int(rng.integers(2, 30)), int(rng.integers(1, 12))
        lines = [sorted(set(rng.integers(0, objects, int(rng.integers(0, 5))).tolist())) for _ in range(sources)]
        spare = {o: int(rng.integers(0, 3)) for o in range(objects)}
        held = {}
        for k in range(sources):  # a first round: the first object with room
            for o in lines[k]:
                if spare[o] > 0 and rng.random() < 0.7:
                    held[k] = o
                    spare[o] -= 1
                    break
        refused = {(int(k), int(o)) for k, o in rng.integers(0, [sources, objects], (sources // 3, 2))}

        def fits(k, o):
            return (k, o) not in refused

        left_over = [k for k in range(sources) if k not in held]
        wanted = int(rng.integers(1, len(left_over) + 2))
        expected_spare, got_spare = dict(spare), dict(spare)
        expected = plain_augment(left_over, lines, dict(held), expected_spare, fits, wanted)
        assert augment(left_over, lines, dict(held), got_spare, fits, wanted) == expected, seed
        assert got_spare == expected_spare, seed
