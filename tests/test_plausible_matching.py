"""Which owed object each source takes (``plausible_matching``): as many sources served as the
objects' places allow, then the most reach; the same seed, the same matching."""
from __future__ import annotations

from factforge.generators.negatives.plausible_matching import plausible_matching
from factforge.generators.random_state import stream


def test_the_most_sources_are_served_before_the_most_reach():
    # source 0 reaches object 0 most, but object 0 is source 1's only one: a source at a time,
    # most reached first, would leave source 1 without an object
    lines, reach = [[0, 1], [0]], [[0.9, 0.1], [0.2]]
    assert plausible_matching(lines, reach, {0: 1, 1: 1}, stream(0, "t")) == {0: 1, 1: 0}


def test_among_as_many_sources_served_the_most_reached_objects_go_where_they_are_reached():
    lines = [[0, 1, 2], [0, 1, 2], [0, 1, 2]]
    reach = [[0.1, 0.5, 0.2], [0.6, 0.3, 0.1], [0.0, 0.1, 0.7]]
    assert plausible_matching(lines, reach, {0: 1, 1: 1, 2: 1}, stream(0, "t")) == {0: 1, 1: 0, 2: 2}
    # an object with two places can go to two sources; an object with none to no one
    got = plausible_matching(lines, reach, {0: 2, 2: 1, 1: 0}, stream(0, "t"))
    assert sorted(got.values()) == [0, 0, 2] and got[2] == 2


def test_a_source_with_no_object_left_gets_none_and_the_same_seed_the_same_matching():
    lines, reach = [[0, 1], [0, 1], []], [[0.5, 0.5], [0.5, 0.5], []]
    runs = [plausible_matching(lines, reach, {0: 1, 1: 1}, stream(seed, "t")) for seed in range(8)]
    assert all(sorted(run) == [0, 1] and sorted(run.values()) == [0, 1] for run in runs)
    assert runs == [plausible_matching(lines, reach, {0: 1, 1: 1}, stream(seed, "t")) for seed in range(8)]
    assert plausible_matching([[0]], [[0.5]], {}, stream(0, "t")) == {}


def test_two_sources_of_one_subject_never_get_the_same_object():
    # sources 0 and 1 are one subject's two true facts; object 0 has two places and both reach it
    # most: matched alone, both took it, the one triple was made once, and the subject had a false
    # fact fewer than true ones while source 2 took object 1 (CoDEx P1412's frequency flag)
    lines, reach = [[0, 1], [0, 1], [0, 1]], [[0.9, 0.1], [0.9, 0.1], [0.5, 0.4]]
    for seed in range(8):
        got = plausible_matching(lines, reach, {0: 2, 1: 1}, stream(seed, "t"), groups=["a", "a", "b"])
        assert sorted(got) == [0, 1, 2] and got[0] != got[1], got
        assert sorted(got.values()) == [0, 0, 1]
    # with only the group's object left, the second source of the group gets none
    assert plausible_matching([[0], [0]], [[0.5], [0.5]], {0: 2}, stream(0, "t"), groups=["a", "a"]) in ({0: 0}, {1: 0})


def test_a_large_assignment_is_solved_in_blocks_of_sources_within_the_same_places(monkeypatch):
    # 200 sources and 300 places: over the dense size lowered here, as 10,000 and 10,000 are over
    # the real one (800 MB of weights); each block is solved as a whole with the places left
    from factforge.generators.negatives import plausible_matching as matching

    monkeypatch.setattr(matching, "DENSE_PAIRS", 2_000)
    rng = stream(0, "lines")
    lines = [sorted(rng.choice(30, 4, replace=False).tolist()) for _ in range(200)]
    reach = [rng.random(4).tolist() for _ in lines]
    spare = {o: 10 for o in range(30)}
    runs = [plausible_matching(lines, reach, spare, stream(1, "t"), groups=[k // 2 for k in range(200)])
            for _ in range(2)]
    got = runs[0]
    assert runs[1] == got and len(got) == 200  # every source served: each of its 4 objects has places
    assert all(o in lines[k] for k, o in got.items())
    assert all(list(got.values()).count(o) <= 10 for o in spare)
    assert all(got[k] != got[k + 1] for k in range(0, 200, 2))  # one subject's two sources


def test_a_pair_that_fails_the_check_leaves_its_line_and_the_matching_is_solved_again():
    # the check (``acceptable``, by name) is asked only of pairs the matching holds, each once;
    # the result is the matching over lines that held only fitting pairs from the start
    rng = stream(3, "lines")
    for _ in range(30):
        lines = [sorted(rng.choice(8, int(rng.integers(1, 6)), replace=False).tolist()) for _ in range(10)]
        reach = [rng.random(len(line)).tolist() for line in lines]
        spare = {o: int(rng.integers(0, 3)) for o in range(8)}
        unfit = {(k, o) for k, line in enumerate(lines) for o in line if rng.random() < 0.3}
        asked = []

        def fits(k, o):
            asked.append((k, o))
            return (k, o) not in unfit

        got = plausible_matching(lines, reach, spare, stream(0, "t"), groups=[k // 2 for k in range(10)], fits=fits)
        kept = [[(o, r) for o, r in zip(line, values) if (k, o) not in unfit] for k, (line, values) in enumerate(zip(lines, reach))]
        expected = plausible_matching([[o for o, _ in pairs] for pairs in kept], [[r for _, r in pairs] for pairs in kept],
                                      spare, stream(0, "t"), groups=[k // 2 for k in range(10)])
        assert got == expected
        assert not set(got.items()) & unfit
        assert len(asked) == len(set(asked)) and len(asked) < sum(len(line) for line in lines)


def test_sources_left_out_of_the_assignment_change_neither_how_many_are_served_nor_the_reach():
    # a source whose one object has room for all who want it is given it without the solver, and
    # places no source can take are not columns: the same number served and the same total reach
    # as one assignment over every source and every place
    from factforge.generators.negatives.plausible_matching import _assigned

    rng = stream(5, "lines")
    for _ in range(200):
        lines = [sorted(rng.choice(10, int(rng.integers(0, 4)), replace=False).tolist()) for _ in range(12)]
        reach = [rng.random(len(line)).round(2).tolist() for line in lines]
        spare = {o: int(rng.integers(0, 4)) for o in range(10)}
        got = plausible_matching(lines, reach, spare, stream(0, "t"))
        whole = _assigned(lines, reach, spare, stream(0, "t"))

        def total(held):
            return round(sum(reach[k][lines[k].index(o)] for k, o in held.items()), 6)

        assert len(got) == len(whole) and total(got) == total(whole), (lines, spare)
        assert all(o in lines[k] for k, o in got.items())
        assert all(list(got.values()).count(o) <= spare[o] for o in spare)
