"""The label plan's largest claim count (``labelling._largest``): found by bisection, it must be the count
the plain search finds by trying every count downwards from all the facts."""
from __future__ import annotations

import math
from fractions import Fraction

from factforge.claims import labelling
from factforge.claims.labelling import NEI, _largest, _Pools, _split
from factforge.generators.random_state import stream

SHARES = [(Fraction(1, 2), Fraction(0), Fraction(1, 2)), (Fraction(1, 3),) * 3,
          (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)), (Fraction(1), Fraction(0), Fraction(0)),
          (Fraction(0), Fraction(1), Fraction(0)), (Fraction(0), Fraction(0), Fraction(1)),
          (Fraction(2, 5), Fraction(2, 5), Fraction(1, 5)), (Fraction(1, 7), Fraction(3, 7), Fraction(3, 7))]


def largest_by_trying(pools: _Pools, shares) -> int:
    """The plain search: the first count downwards whose NOT ENOUGH INFO claims are at least half true
    facts, else the first count ``_split`` can make at all."""
    fallback = 0
    for total in range(pools.outside + pools.inside + len(pools.ends), 0, -1):
        split = _split(total, pools, shares)
        if split is None:
            continue
        k, want = split
        if k >= want[NEI] // 2:
            return total
        fallback = fallback or total
    return fallback


def random_pools(rng) -> _Pools:
    outside, inside, false = (int(n) for n in rng.integers(0, 12, size=3))
    # when each false fact stops being refuted: at once (0), after some true facts leave R, or never
    ends = [0 if r < 0.25 else math.inf if r > 0.8 else int(rng.integers(1, outside + inside + 2))
            for r in rng.random(false)]
    return _Pools(outside, inside, sorted(ends))


def test_the_largest_count_is_the_one_trying_every_count_downwards_finds():
    rng = stream(15, "label-plan-largest")
    for case in range(4000):
        pools = random_pools(rng)
        if case % 2:
            shares = SHARES[int(rng.integers(len(SHARES)))]
        else:  # any shares, not only the usual ones: the roundings of S and R up at once included
            parts = [Fraction(int(n)) for n in rng.integers(0, 6, size=3)]
            if not sum(parts):
                continue
            shares = tuple(p / sum(parts) for p in parts)
        assert _largest(pools, shares) == largest_by_trying(pools, shares), (pools, shares)


def test_the_largest_count_of_many_facts_takes_few_splits(monkeypatch):
    # 10,000 true facts in the KB and 6,000 false ones R refutes whatever leaves it, at 1/2, 0, 1/2: the
    # count is 10,000 (each NOT ENOUGH INFO claim a true fact out of R); trying every count downwards
    # called _split 6,001 times
    calls = []

    def counted(*args):
        calls.append(args[0])
        return _split(*args)

    monkeypatch.setattr(labelling, "_split", counted)
    pools = _Pools(0, 10_000, [math.inf] * 6_000)
    assert _largest(pools, SHARES[0]) == 10_000
    assert len(calls) <= 10
