"""True facts leave R (NOT ENOUGH INFO) and stay for SUPPORTS in an order that splits each object's
facts between the two alike (``labelling._spread``): in the keyed order alone, 9 of New York's 10
birthplaces on the demo KB were SUPPORTS against 40 of 60 overall, and "in New" told SUPPORTS
(nPMI 0.29, just under the claims audit's threshold)."""
from __future__ import annotations

import subprocess
import sys

from factforge.claims.keyed import keyed_rank
from factforge.claims.labelling import Item, _spread
from factforge.generators.facts import Fact

P = "http://example.org/birthPlace"
SIZES = {"NewYork": 10, "London": 30, "Paris": 20, "Rome": 1}


def items_by_object(sizes=SIZES, key=b"k"):
    items = [Item(f"t{o}{n}", Fact(f"http://example.org/{o}Person{n}", P, f"http://example.org/{o}"), True)
             for o, count in sizes.items() for n in range(count)]
    # the plan hands them over in the keyed take-out order
    return sorted(items, key=lambda i: keyed_rank(key, "take-out", i.fact.triple))


def test_every_first_part_holds_each_objects_facts_in_proportion():
    items = items_by_object()
    spread = _spread(items, b"k")
    assert sorted(i.id for i in spread) == sorted(i.id for i in items)
    total = len(items)
    for m in range(1, total + 1):
        for o, count in SIZES.items():
            held = sum(1 for i in spread[:m] if i.fact.o.endswith("/" + o))
            assert abs(held - m * count / total) < 1, (m, o, held)
    # the keyed order alone is far from that: some first part holds one object's facts out of proportion
    worst = max(abs(sum(1 for i in items[:m] if i.fact.o.endswith("/NewYork")) - m * 10 / total)
                for m in range(1, total + 1))
    assert worst >= 1


def test_within_an_object_the_keyed_order_holds_and_the_key_decides_the_interleaving():
    items = items_by_object()
    spread = _spread(items, b"k")
    for o in SIZES:
        assert [i.id for i in spread if i.fact.o.endswith("/" + o)] == [i.id for i in items if i.fact.o.endswith("/" + o)]
    assert [i.id for i in _spread(items, b"other")] != [i.id for i in spread]
    assert [i.id for i in _spread(items, b"k")] == [i.id for i in spread]  # keyed, not random


def test_subjects_are_spread_where_they_repeat_more_and_unique_ends_keep_the_order():
    starring = [Item(f"f{n}a{a}", Fact(f"http://example.org/Film{n}", P, f"http://example.org/Actor{n}_{a}"), True)
                for n in range(4) for a in range(6)]
    starring.sort(key=lambda i: keyed_rank(b"k", "take-out", i.fact.triple))
    spread = _spread(starring, b"k")
    for m in range(1, len(spread) + 1):
        for n in range(4):
            held = sum(1 for i in spread[:m] if i.fact.s.endswith(f"/Film{n}"))
            assert abs(held - m / 4) < 1
    unique = [Item(f"u{n}", Fact(f"http://example.org/S{n}", P, f"http://example.org/O{n}"), True) for n in range(9)]
    assert _spread(unique, b"k") == unique


def test_the_demo_kbs_birthplaces_no_longer_lean_on_new_york(tmp_path):
    """The case that showed it, through the command line: DBpedia-style birthPlace on the demo KB."""
    store, out = tmp_path / "store", tmp_path / "out"
    from factforge.sparql.demo_kb import demo_kb_path

    subprocess.run([sys.executable, "-m", "factforge", "load", str(demo_kb_path()), "--store", str(store)],
                   check=True, capture_output=True)
    run = subprocess.run([sys.executable, "-m", "factforge", "generate", "--store", str(store), "--predicate",
                          "dbo:birthPlace", "--size", "120", "--transparency", "0.5", "--ambiguous", "random_walk",
                          "--leakage", "pair", "--popularity", "random", "--seed", "0", "--out", str(out), "--claims"],
                         check=True, capture_output=True, text=True)
    lines = [line for line in (run.stdout + run.stderr).splitlines() if "strongest 2-gram" in line]
    assert lines
    npmi = float(lines[0].split("nPMI")[1].split()[0])
    assert npmi < 0.2, lines[0]
