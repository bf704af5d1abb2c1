"""Are our c = 0 false facts as hard as hand-checked ones? CoDEx-S, relation by relation.

    python bench/codex_hardness_bench.py [--relations P27 P1412 ...] [--size 100] [--seed 0] [--kinds lcwa]

CoDEx-S (train and valid, with its entity types) is loaded into an in-memory store. Per relation:

* **theirs**: CoDEx's held-out true facts of the relation (``test.txt``, not in the store) against
  its hand-checked negatives (``test_negatives.txt``), as many of each (a seeded sample, at most
  ``--size`` / 2);
* **ours**: a scenario of ``--size`` facts at transparency 0 with ``random_walk`` and with
  ``lcwa`` false facts, and one at transparency 1 (random re-pairing), no train split, at leakage
  ``--leakage`` (default ``pair``, the demo's), its test facts taken out of the reference KB as
  ``generate`` says; ``audit`` is the scenario audit's verdict on it (``ok`` or its flagged
  baselines and columns).

Each set is scored by the reference checkers of ``factforge evaluate`` (``evaluation.checkers``:
Knowledge Linker, path features, TransE; learners are cross-validated on the set, as ``evaluate``
does without a train split) and by object popularity alone (how many facts of the relation the
reference KB gives the object; no learning). The lower the AUROC, the harder the false facts; ours
are at least as hard as theirs where ``ours <= theirs``. Printed as Markdown; nothing is asserted.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("FACTFORGE_DATA", ROOT.parent / "shared" / "data"))
CODEX = DATA / "codex-s"
WD = "http://www.wikidata.org/entity/"
CHECKERS = ("knowledge_linker", "path_features", "transe")
# ours: (row name, spec's ambiguous, transparency); random pairing is the transparent kind (c = 1)
KINDS = (("random_walk", "random_walk", 0.0), ("lcwa", "lcwa", 0.0), ("random pairing, c = 1", "lcwa", 1.0))
MIN_THEIRS = 40  # facts in their set below which an AUROC says little (a few relations have 6)


def load_codex():
    from factforge.sparql.embedded import EmbeddedStore
    from factforge.sparql.kge import load_kge_tsv

    store = EmbeddedStore()
    load_kge_tsv(store, [CODEX / "train.txt", CODEX / "valid.txt"], entity_base=WD, relation_base=WD,
                 types=CODEX / "entity2types.json", progress=False)
    return store


def read_tsv(name: str) -> dict[str, list[tuple[str, str]]]:
    by_relation: dict[str, list[tuple[str, str]]] = {}
    for line in (CODEX / name).read_text(encoding="utf-8").splitlines():
        s, r, o = line.split("\t")
        by_relation.setdefault(r, []).append((WD + s, WD + o))
    return by_relation


def their_records(relation: str, trues, falses, half: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    n = min(len(trues), len(falses), half)
    pick = lambda pairs: [pairs[i] for i in sorted(rng.choice(len(pairs), n, replace=False).tolist())]  # noqa: E731
    return ([{"subject": s, "predicate": WD + relation, "object": o, "label": True} for s, o in pick(trues)]
            + [{"subject": s, "predicate": WD + relation, "object": o, "label": False} for s, o in pick(falses)])


def popularity_auroc(store, relation: str, records: list[dict], removed) -> float | None:
    """AUROC of "the object is the object of many facts of the relation" (in the reference KB)."""
    from factforge.evaluation.metrics import auroc
    from factforge.sparql import profiles

    gone = {(s, o) for s, p, o in removed if p == WD + relation}
    count = Counter(o for s, o in profiles.predicate_facts(store, WD + relation) if (s, o) not in gone)
    return auroc([r["label"] for r in records], [count[r["object"]] for r in records])


def scores(store, relation: str, records: list[dict], removed, seed: int, reference=None) -> dict:
    from factforge.evaluation.reference_graph import Reference
    from factforge.evaluation.scoring import run_checker

    reference = reference or Reference.of(store, removed)
    row = {"facts": len(records), "popularity": popularity_auroc(store, relation, records, removed)}
    for name in CHECKERS:
        try:
            row[name] = run_checker(name, [], records, reference, seed=seed).auroc
        except Exception as error:  # noqa: BLE001 - a checker that cannot score is shown, not fatal
            row[name] = f"error: {error}"[:60]
    return row


def ours(store, relation: str, kind: str, transparency: float, size: int, seed: int, leakage: str) -> dict:
    from factforge.evaluation.audit import audit_scenario
    from factforge.evaluation.reference_graph import Reference
    from factforge.generators.positives import NotEnoughFacts
    from factforge.generators.scenario import generate
    from factforge.generators.spec import ScenarioSpec
    from factforge.generators.writers import records

    spec = ScenarioSpec(WD + relation, size=size, transparency=transparency, ambiguous=kind, seed=seed,
                        leakage=leakage)
    try:
        scenario = generate(store, spec)
    except NotEnoughFacts as error:
        made = re.search(r"made only \d+ of the \d+", str(error))
        return {"error": made.group(0) if made else str(error)[:80]}
    row = scores(store, relation, records(scenario, "test"), scenario.removed, seed,
                 Reference.of(store, scenario.removed))
    report = audit_scenario(scenario, store)
    flagged = [f"{name} {result['auroc']:.2f}" for part in ("baselines", "columns")
               for name, result in report[part].items()
               if result.get("auroc") is not None and abs(result["auroc"] - 0.5) > report["thresholds"]["auroc"] - 0.5]
    row["audit"] = ", ".join(flagged) or ("ok" if not report["flagged"] else "drift")
    return row


def cell(value) -> str:
    if value is None:
        return "–"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--relations", nargs="*", help="CoDEx relation ids (default: every relation with "
                        "at least --min-negatives hand-checked test negatives)")
    parser.add_argument("--min-negatives", type=int, default=40)
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--leakage", default="pair", help="ours' leakage level (default pair)")
    parser.add_argument("--kinds", nargs="*", choices=[name for name, _, _ in KINDS], metavar="KIND",
                        help="our rows to make (default all): random_walk, lcwa, 'random pairing, c = 1'")
    args = parser.parse_args(argv)
    kinds = [k for k in KINDS if not args.kinds or k[0] in args.kinds]

    store = load_codex()
    trues, falses = read_tsv("test.txt"), read_tsv("test_negatives.txt")
    relations = args.relations or sorted((r for r in falses if len(falses[r]) >= args.min_negatives and r in trues),
                                         key=lambda r: -len(falses[r]))
    print(f"# Hardness on CoDEx-S: our false facts vs hand-checked negatives (seed {args.seed}, "
          f"leakage {args.leakage})\n")
    print("AUROC per checker (lower = harder false facts); `pop` = object popularity alone.\n")
    columns = ("popularity", *CHECKERS)
    gaps: dict[str, list[list[float]]] = {name: [] for name, _, _ in kinds}
    for relation in relations:
        started = time.perf_counter()
        theirs = their_records(relation, trues.get(relation, []), falses.get(relation, []), args.size // 2, args.seed)
        rows = {"theirs (hand-checked)": scores(store, relation, theirs, (), args.seed)}
        for name, kind, transparency in kinds:
            rows[f"ours ({name})"] = ours(store, relation, kind, transparency, args.size, args.seed, args.leakage)
        print(f"## {relation} ({time.perf_counter() - started:.0f} s)\n")
        print("| false facts | facts | pop | " + " | ".join(CHECKERS) + " | audit |")
        print("|---|---:|---:|" + "---:|" * len(CHECKERS) + "---|")
        for name, row in rows.items():
            if "error" in row:
                print(f"| {name} | – | {row['error']} |" + " |" * (len(CHECKERS) + 1))
                continue
            print(f"| {name} | {row['facts']} | " + " | ".join(cell(row[c]) for c in columns)
                  + f" | {row.get('audit', '–')} |")
        print(flush=True)
        base = rows["theirs (hand-checked)"]
        for name, _, _ in kinds:
            row = rows[f"ours ({name})"]
            if "error" not in row and base["facts"] >= MIN_THEIRS:
                gaps[name].append([row[c] - base[c] if isinstance(row[c], float) and isinstance(base[c], float)
                                   else float("nan") for c in columns])
    print(f"## Mean AUROC ours - theirs (relations with >= {MIN_THEIRS} of theirs; > 0: ours easier)\n")
    print("| false facts | relations | pop | " + " | ".join(CHECKERS) + " |")
    print("|---|---:|---:|" + "---:|" * len(CHECKERS))
    for kind, rows_ in gaps.items():
        means = np.nanmean(np.array(rows_), axis=0).tolist() if rows_ else [None] * len(columns)
        print(f"| ours ({kind}) | {len(rows_)} | " + " | ".join(cell(m) for m in means) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
