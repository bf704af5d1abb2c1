"""Negative samplers on DBpedia50: how often a "false" fact is a true fact the KB does not know,
and how long a scenario takes.

    python bench/negatives_bench.py [--seeds 0 1 2] [--runs 5]

* **Precision of negatives.** For each hold-out seed, a random 20 % of DBpedia50's
  ``dbo:birthPlace`` facts is held out: the ``.nt`` file is loaded into a fresh in-memory store
  without them (plus the DBpedia ontology in its own graph), and false facts are generated with
  the LCWA and random-walk samplers (transparency 0: no random re-pairing) from every remaining
  birthPlace fact, in scenario-sized batches of 150 sources (the false facts of a 300-fact
  scenario), so that the random-walk fallback behaves as in ``generate``. A generated false fact that is one of the held-out facts is a *false negative*
  (a true fact labelled false); its share of everything generated is reported (target <= 0.5 %).
  Random walks are split into walk-made facts and those of the fallback ("object of another true
  fact"); random re-pairing is shown as a baseline. Every batch has its own context, so a false fact
  can be made again in another batch: LCWA's subject-side candidates of a popular object (someone
  whose nationality is Germany, for the true facts born in Germany) come back in every batch that
  holds such a fact, so the distinct counts are shown too.
* **Hardness** (``--hardness``, needs ``evaluation/``): AUROC of the built-in checkers on
  birthPlace scenarios at c = 0 on the full KB, and the share of false facts by source (own,
  borrowed path, fallback, source outside the scenario).
* **Fallback rate** of ``random_walk`` on the full KB: the share of its false facts in 300-fact
  scenarios (c = 0) that did not come from a walk.
* **Time** of ``generate`` for a 300-fact birthPlace scenario with random-walk negatives
  (max_path_length 3, transparency 0): cold (fresh statistics cache: a fresh ``FACTFORGE_CACHE``
  for the in-memory store, an emptied ``DIR/cache`` for the on-disk store, which keeps its
  statistics beside the database) and warm (p50 of ``--runs`` runs).

Figures are printed as Markdown; nothing is asserted.
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = Path(os.environ.get("FACTFORGE_DATA", ROOT.parent / "shared" / "data"))
DBPEDIA_NT = DATA / "dbpedia50" / "dbpedia50.nt"
ONTOLOGY_TTL = DATA / "dbpedia-ontology" / "dbo-2018.12.28.ttl"
ONTOLOGY_GRAPH = "https://w3id.org/factforge/graph/ontology"
BIRTH_PLACE = "http://dbpedia.org/ontology/birthPlace"
HOLD_OUT = 0.2
TARGET = 0.005
CHUNK = 150
LINE = re.compile(r"^<([^>]*)> <([^>]*)> <([^>]*)> \.$")


def fresh_cache() -> str:
    path = tempfile.mkdtemp(prefix="ff-bench-cache-")
    os.environ["FACTFORGE_CACHE"] = path
    return path


def load(store, nt: Path) -> None:
    from factforge.sparql.loading import load_files

    load_files(store, [nt], progress=False)
    load_files(store, [ONTOLOGY_TTL], graph=ONTOLOGY_GRAPH, progress=False)


# --- precision of negatives ---------------------------------------------------------------------------
def held_out_run(seed: int, workdir: Path) -> dict:
    from factforge.generators.facts import Fact
    from factforge.generators.negatives import NegativeContext, sampler
    from factforge.generators.random_state import stream
    from factforge.generators.spec import ScenarioSpec
    from factforge.sparql.fact_popularity import fact_popularity
    from factforge.sparql.adjacency import adjacency
    from factforge.sparql.store import open_store

    lines = DBPEDIA_NT.read_text(encoding="utf-8").splitlines(keepends=True)
    pairs = sorted({(m.group(1), m.group(3)) for m in map(LINE.match, lines) if m and m.group(2) == BIRTH_PLACE})
    rng = np.random.default_rng(seed)
    held = {pairs[i] for i in rng.choice(len(pairs), int(round(HOLD_OUT * len(pairs))), replace=False).tolist()}
    kept_path = workdir / f"dbpedia50-without-{seed}.nt"
    with open(kept_path, "w", encoding="utf-8") as out:
        for line in lines:
            m = LINE.match(line)
            if not (m and m.group(2) == BIRTH_PLACE and (m.group(1), m.group(3)) in held):
                out.write(line)

    fresh_cache()
    store = open_store(None)
    load(store, kept_path)
    spec = ScenarioSpec(BIRTH_PLACE, size=10, transparency=0.0, seed=seed)
    index = adjacency(store)
    kb_pairs = {(f["s"], f["o"]) for f in fact_popularity(store, BIRTH_PLACE)}
    assert not kb_pairs & held
    facts = [Fact(s, BIRTH_PLACE, o) for s, o in sorted(kb_pairs) if s != o]
    # Scenario-sized batches of sources (150 = the false facts of a 300-fact scenario at ratio 1),
    # each with its own context, as generate() would see them: the random-walk fallback draws
    # from true facts outside the batch.
    order = np.random.default_rng(seed + 1000).permutation(len(facts)).tolist()
    chunks = [[facts[i] for i in order[start:start + CHUNK]] for start in range(0, len(order), CHUNK)]
    rows = {}
    for kind in ("lcwa", "random_walk", "random"):
        started = time.perf_counter()
        made = []
        for number, sources in enumerate(chunks):
            context = NegativeContext.build(store, spec, index, kb_pairs)
            context.ledger.used.update(f.triple for f in sources)
            made += sampler(kind).sample(context, sources, len(sources), stream(seed, f"bench/{kind}/{number}"))
        seconds = time.perf_counter() - started
        groups = {kind: made}
        if kind == "random_walk":
            groups = {"random_walk (walks)": [n for n in made if not n.detail.get("fallback")],
                      "random_walk (fallback)": [n for n in made if n.detail.get("fallback")],
                      "random_walk (all)": made}
        for name, negatives in groups.items():
            wrong = [n for n in negatives if n.fact.pair in held]
            rows[name] = {"made": len(negatives), "held_out_hits": len(wrong),
                          "distinct": len({n.fact for n in negatives}), "distinct_hits": len({n.fact for n in wrong}),
                          "hits_by_alternative": Counter(_alternative(n) for n in wrong),
                          "seconds": round(seconds, 2),
                          "examples": [f"{_short(n.fact.s)} -> {_short(n.fact.o)} "
                                       f"({n.detail.get('via') or n.detail.get('path') or n.detail.get('fallback') or '-'})"
                                       for n in wrong[:3]]}
    store.close()
    return {"seed": seed, "facts": len(pairs), "held_out": len(held), "sources": len(facts), "rows": rows}


def _alternative(negative) -> str:
    detail = negative.detail
    if detail.get("via"):
        return f"{detail['side']} side via {_short(detail['via'])}"
    if detail.get("path"):
        return "path " + detail["path"]
    return detail.get("fallback") or "random re-pairing"


def _short(value: str) -> str:
    from factforge.sparql.terms import compact

    return compact(value)


# --- hardness --------------------------------------------------------------------------------------
HARDNESS_CHECKERS = ("knowledge_linker", "path_features", "degree", "type")


def hardness(store, seeds) -> list[dict]:
    """How hard the ambiguous negatives are: AUROC of the built-in checkers on birthPlace scenarios
    at c = 0 (a safer sampler that only leaves easy negatives would show here as a higher AUROC), and
    where the false facts came from."""
    from factforge.evaluation.reference_graph import Reference
    from factforge.evaluation.scoring import run_checker
    from factforge.generators.positives import NotEnoughFacts
    from factforge.generators.scenario import generate
    from factforge.generators.spec import ScenarioSpec
    from factforge.generators.writers import records

    out = []
    # DBpedia50 has only about 150 distinct LCWA false facts for birthPlace: a small scenario
    # without a train split (learners are cross-validated on D).
    for ambiguous, size, train_size in (("lcwa", 100, 0), ("random_walk", 300, 200)):
        for seed in seeds:
            spec = ScenarioSpec(BIRTH_PLACE, size=size, transparency=0.0, ambiguous=ambiguous, train_size=train_size,
                                seed=seed)
            row = {"ambiguous": ambiguous, "size": size, "train": train_size, "seed": seed}
            try:
                scenario = generate(store, spec)
            except NotEnoughFacts as error:
                out.append({**row, "error": str(error)})
                continue
            false = [a for a in scenario.answers.values() if not a["label"]]
            row["sources"] = Counter(_source(a) for a in false)
            row["false"] = len(false)
            reference = Reference.of(store, scenario.removed)
            train, test = records(scenario, "train"), records(scenario, "test")
            row["auroc"] = {name: run_checker(name, train, test, reference, seed=seed).auroc
                            for name in HARDNESS_CHECKERS}
            out.append(row)
    return out


def _source(answer: dict) -> str:
    if answer.get("fallback"):
        return "fallback"
    if answer.get("borrowed"):
        return "borrowed path"
    if answer.get("source_outside_scenario"):
        return "outside source"
    return "own"


def print_hardness(rows: list[dict]) -> None:
    print("\n## Hardness: AUROC of the built-in checkers at c = 0 (full KB, birthPlace)\n")
    print("| sampler | size | train | seed | " + " | ".join(HARDNESS_CHECKERS) + " | false facts by source |")
    print("|---|---:|---:|---:|" + "---:|" * len(HARDNESS_CHECKERS) + "---|")
    for r in rows:
        if "error" in r:
            print(f"| {r['ambiguous']} | {r['size']} | {r['train']} | {r['seed']} | " + " | ".join("-" for _ in HARDNESS_CHECKERS)
                  + f" | not made: {r['error'][:80]} |")
            continue
        cells = [f"{r['auroc'][n]:.3f}" if r["auroc"][n] is not None else "n/a" for n in HARDNESS_CHECKERS]
        sources = ", ".join(f"{k} {v / r['false']:.0%}" for k, v in sorted(r["sources"].items()))
        print(f"| {r['ambiguous']} | {r['size']} | {r['train']} | {r['seed']} | " + " | ".join(cells) + f" | {sources} |")


# --- fallback rate and timing -------------------------------------------------------------------------
def scenario_spec(seed: int):
    from factforge.generators.spec import ScenarioSpec

    return ScenarioSpec(BIRTH_PLACE, size=300, transparency=0.0, ambiguous="random_walk", max_path_length=3,
                        seed=seed)


def fallback_rates(store, seeds) -> list[dict]:
    from factforge.generators.scenario import generate

    out = []
    for seed in seeds:
        scenario = generate(store, scenario_spec(seed))
        walks = [a for a in scenario.answers.values() if a["kind"] == "random_walk"]
        fallback = sum(bool(a.get("fallback")) for a in walks)
        paths = Counter(a["path"] for a in walks if a.get("path"))
        out.append({"seed": seed, "false": len(walks), "fallback": fallback,
                    "distinct_paths": len(paths), "top_path": paths.most_common(1)[0] if paths else None})
    return out


def timings(store, runs: int, reset_cache) -> dict:
    from factforge.generators.scenario import generate

    spec = scenario_spec(7)
    cold = []
    for _ in range(3):
        reset_cache()
        started = time.perf_counter()
        scenario = generate(store, spec)
        cold.append(time.perf_counter() - started)
    stages = scenario.timings
    warm = []
    for _ in range(runs):
        started = time.perf_counter()
        generate(store, spec)
        warm.append(time.perf_counter() - started)
    return {"cold": cold, "warm": warm, "cold_stages": stages}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="hold-out seeds")
    parser.add_argument("--runs", type=int, default=5, help="warm runs for the p50")
    parser.add_argument("--precision-only", action="store_true",
                        help="only the held-out precision tables (skip the fallback rates and timings)")
    parser.add_argument("--hardness", action="store_true",
                        help="also score c = 0 scenarios with the built-in checkers (AUROC; needs evaluation/)")
    args = parser.parse_args(argv)
    if not DBPEDIA_NT.exists() or not ONTOLOGY_TTL.exists():
        print(f"real data not found under {DATA}", file=sys.stderr)
        return 2

    from factforge.sparql.store import open_store

    print(f"# Negative samplers on DBpedia50 ({platform.python_implementation()} {platform.python_version()}, "
          f"{os.cpu_count()} cores)\n")
    workdir = Path(tempfile.mkdtemp(prefix="ff-bench-"))
    try:
        # 1. precision
        results = [held_out_run(seed, workdir) for seed in args.seeds]
        first = results[0]
        print(f"## Negative precision: {HOLD_OUT:.0%} of {first['facts']} birthPlace facts held out "
              f"({first['held_out']}), negatives made from the {first['sources']} remaining facts in batches of {CHUNK}\n")
        print("| sampler | seeds | false facts made | held-out true facts among them | share | target "
              "| distinct made / hits (summed over seeds) |")
        print("|---|---|---:|---:|---:|---|---:|")
        for name in results[0]["rows"]:
            made = sum(r["rows"][name]["made"] for r in results)
            hits = sum(r["rows"][name]["held_out_hits"] for r in results)
            distinct = sum(r["rows"][name]["distinct"] for r in results)
            distinct_hits = sum(r["rows"][name]["distinct_hits"] for r in results)
            share = hits / made if made else float("nan")
            mark = "" if name.startswith("random (") or name == "random" else ("ok" if share <= TARGET else "MISSED")
            label = f"{name} (baseline)" if name == "random" else name
            print(f"| {label} | {', '.join(map(str, args.seeds))} | {made} | {hits} | {share:.2%} | "
                  f"{'≤ 0.5 %' if mark else ''} {mark} | {distinct} / {distinct_hits} |")
        print("\nPer seed (made / hits):\n")
        print("| seed | " + " | ".join(results[0]["rows"]) + " | sampler seconds (lcwa, rw, random) |")
        print("|---|" + "---:|" * (len(results[0]["rows"]) + 1))
        for r in results:
            cells = [f"{r['rows'][n]['made']} / {r['rows'][n]['held_out_hits']}" for n in r["rows"]]
            secs = ", ".join(str(r["rows"][n]["seconds"]) for n in ("lcwa", "random_walk (all)", "random"))
            print(f"| {r['seed']} | " + " | ".join(cells) + f" | {secs} |")
        print("\nWhere the held-out hits come from (all seeds):\n")
        print("| sampler | alternative predicate / path | hits |")
        print("|---|---|---:|")
        for name in results[0]["rows"]:
            if name == "random_walk (all)":
                continue
            total = sum((r["rows"][name]["hits_by_alternative"] for r in results), Counter())
            for alternative, hits in total.most_common(4):
                print(f"| {name} | {alternative} | {hits} |")
        examples = [e for r in results for n in r["rows"] if n != "random_walk (all)" for e in
                    (f"{n}: {x}" for x in r["rows"][n]["examples"])]
        if examples:
            print("\nExamples of held-out true facts generated as false:\n")
            for e in examples[:8]:
                print(f"- {e}")

        if args.hardness:
            cache = fresh_cache()
            full = open_store(None)
            load(full, DBPEDIA_NT)
            print_hardness(hardness(full, args.seeds))
            full.close()
            shutil.rmtree(cache, ignore_errors=True)
        if args.precision_only:
            return 0
        # 2. fallback rate and timing, on the full KB
        cache = fresh_cache()
        memory = open_store(None)
        load(memory, DBPEDIA_NT)
        rates = fallback_rates(memory, [0, 1, 2, 3, 4])
        print("\n## random_walk fallback on the full KB (birthPlace, size 300, c = 0, t = 3)\n")
        print("| seed | random-walk false facts | from the fallback | share | distinct paths | top path (count) |")
        print("|---:|---:|---:|---:|---:|---|")
        for r in rates:
            top = f"{r['top_path'][0]} ({r['top_path'][1]})" if r["top_path"] else "-"
            print(f"| {r['seed']} | {r['false']} | {r['fallback']} | {r['fallback'] / r['false']:.0%} | "
                  f"{r['distinct_paths']} | {top} |")

        rows = []
        rows.append(("in-memory", timings(memory, args.runs, lambda: fresh_cache())))
        memory.close()
        disk_dir = workdir / "disk-store"
        disk = open_store(disk_dir)
        load(disk, DBPEDIA_NT)
        rows.append(("on disk", timings(disk, args.runs, lambda: shutil.rmtree(disk_dir / "cache", ignore_errors=True))))
        disk.close()
        print("\n## Time to generate a 300-fact birthPlace scenario (random_walk, t = 3, c = 0)\n")
        print("| store | cold runs (s) | cold stages of the last run (s) | warm p50 (s) | warm min–max (s) |")
        print("|---|---|---|---:|---|")
        for name, t in rows:
            stages = ", ".join(f"{k} {v:.2f}" for k, v in t["cold_stages"].items())
            print(f"| {name} | {', '.join(f'{x:.2f}' for x in t['cold'])} | {stages} | "
                  f"{statistics.median(t['warm']):.3f} | {min(t['warm']):.3f}–{max(t['warm']):.3f} |")
        shutil.rmtree(cache, ignore_errors=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
