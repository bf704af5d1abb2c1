"""How many of CoDEx-S's hand-checked negatives would our checks let a generator make? Per relation.

    python bench/codex_accepted_bench.py [--relations P27 P1412 ...] [--min-negatives 20]

CoDEx's negatives (``test_negatives.txt`` and ``valid_negatives.txt``) were made by swapping in an
entity of the same kind and checked by hand as plausible but false: the false facts a scenario
needs. For each relation, over the negatives whose subject has a fact of the relation in the store
(train and valid, with entity types, as ``bench/codex_hardness_bench.py`` loads it):

* **type**: the share whose object passes the type check against one of the subject's known objects
  (``TypeOracle.type_consistent``, as random walk and re-pairing check a candidate against the true
  object);
* **acceptable**: the share that pass every check a false fact must (``NegativeContext.acceptable``:
  not a known fact, not near a known object, ...).

A check that refuses many of them refuses exactly the plausible false facts. Printed as Markdown;
nothing is asserted (tests/test_negatives.py holds the bounds).
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict

from codex_hardness_bench import CODEX, WD, load_codex


def hand_checked() -> dict[str, list[tuple[str, str]]]:
    found: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for name in ("test_negatives.txt", "valid_negatives.txt"):
        for line in (CODEX / name).read_text(encoding="utf-8").splitlines():
            s, r, o = line.split("\t")
            found[r].append((WD + s, WD + o))
    return found


def shares(store, relation: str, negatives: list[tuple[str, str]]) -> dict:
    from factforge.generators.facts import Fact
    from factforge.generators.negatives import NegativeContext
    from factforge.generators.spec import ScenarioSpec
    from factforge.sparql import profiles
    from factforge.sparql.adjacency import adjacency

    predicate = WD + relation
    pairs = set(profiles.predicate_facts(store, predicate))
    context = NegativeContext.build(store, ScenarioSpec(predicate, size=10, seed=0), adjacency(store), pairs)
    known: dict[str, list[str]] = defaultdict(list)
    for s, o in sorted(pairs):
        known[s].append(o)
    held = [(s, o) for s, o in negatives if known[s]]
    context.types.load_types({o for _, o in held} | {o for s, _ in held for o in known[s]})
    typed = sum(any(context.types.type_consistent(k, o) for k in known[s]) for s, o in held)
    accepted = sum(context.acceptable(Fact(s, predicate, o)) for s, o in held)
    return {"negatives": len(negatives), "held": len(held), "type": typed, "acceptable": accepted}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--relations", nargs="*", help="CoDEx relation ids (default: every relation with at "
                        "least --min-negatives hand-checked negatives, test and valid)")
    parser.add_argument("--min-negatives", type=int, default=20)
    args = parser.parse_args(argv)

    store = load_codex()
    negatives = hand_checked()
    relations = args.relations or sorted((r for r in negatives if len(negatives[r]) >= args.min_negatives),
                                         key=lambda r: -len(negatives[r]))
    print("# CoDEx-S hand-checked negatives our checks accept\n")
    print("| relation | negatives | subject has a fact of p | type check | all checks (`acceptable`) | seconds |")
    print("|---|---:|---:|---:|---:|---:|")
    for relation in relations:
        started = time.perf_counter()
        row = shares(store, relation, negatives[relation])
        held = row["held"] or 1
        print(f"| {relation} | {row['negatives']} | {row['held']} | {row['type']} ({row['type'] / held:.0%}) | "
              f"{row['acceptable']} ({row['acceptable'] / held:.0%}) | {time.perf_counter() - started:.0f} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
