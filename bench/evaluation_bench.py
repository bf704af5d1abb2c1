"""AUROC of the reference checkers on DBpedia50 birthPlace over transparency x homogeneity, and
their run time on a 300-fact scenario, printed as markdown tables (nothing is asserted).

    python bench/evaluation_bench.py [--store DIR] [--size 300] [--train-size 200] [--seed 0] [--popularity random]

Without --store, DBpedia50 and the DBpedia ontology are loaded from ../shared/data into a
temporary store (statistics are then computed cold, outside the timed checker runs).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("FACTFORGE_DATA", ROOT.parent / "shared" / "data"))
ONTOLOGY_GRAPH = "https://w3id.org/factforge/graph/ontology"
PAPER_SECONDS = {"knowledge_linker": "1420 s (KL)", "path_features": "30 s (KG-Miner), 20 s (SFE)",
                 "transe": "5 s"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--store", help="a store holding DBpedia50 (+ ontology)")
    parser.add_argument("--predicate", default="dbo:birthPlace")
    parser.add_argument("--size", type=int, default=300)
    parser.add_argument("--train-size", type=int, default=200)
    parser.add_argument("--ambiguous", default="random_walk")
    parser.add_argument("--popularity", default="random")
    parser.add_argument("--transparency", default="1,0.5,0")
    parser.add_argument("--homogeneity", default="1,0.5,0")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from factforge.evaluation.checkers import REFERENCE_CHECKERS
    from factforge.evaluation.grid import run_grid
    from factforge.sparql.loading import load_files
    from factforge.sparql.store import open_store

    tmp = None
    if args.store:
        store = open_store(args.store)
    else:
        tmp = tempfile.TemporaryDirectory()
        os.environ.setdefault("FACTFORGE_CACHE", str(Path(tmp.name) / "cache"))
        store = open_store(Path(tmp.name) / "kb")
        load_files(store, [DATA / "dbpedia50" / "dbpedia50.nt"], progress=False)
        load_files(store, [DATA / "dbpedia-ontology" / "dbo-2018.12.28.ttl"], graph=ONTOLOGY_GRAPH, progress=False)
    spec = {"predicate": args.predicate, "size": args.size, "train_size": args.train_size,
            "ambiguous": args.ambiguous, "popularity": args.popularity, "seed": args.seed}
    started = time.perf_counter()
    result = run_grid(store, spec, transparencies=[float(v) for v in args.transparency.split(",")],
                      homogeneities=[float(v) for v in args.homogeneity.split(",")],
                      checkers=REFERENCE_CHECKERS, report=lambda line: print(line, file=sys.stderr, flush=True))
    print(f"\nDBpedia50 {args.predicate}, {args.ambiguous} false facts, {args.popularity} true facts, "
          f"size {args.size}, train {args.train_size}, "
          f"seed {args.seed} ({time.perf_counter() - started:.0f} s in all)\n")
    names = result["checkers"]
    print("| c | h | " + " | ".join(names) + " | audit |")
    print("|---|---|" + "---:|" * len(names) + "---|")
    for cell in result["cells"]:
        if "checkers" not in cell:
            print(f"| {cell['transparency']:g} | {cell['homogeneity']:g} | " + " | ".join("-" for _ in names)
                  + f" | not made: {cell['error'].split(':')[0]} |")
            continue
        values = [cell["checkers"][n]["auroc"] for n in names]
        print(f"| {cell['transparency']:g} | {cell['homogeneity']:g} | "
              + " | ".join("n/a" if v is None else f"{v:.3f}" for v in values)
              + f" | {'flagged' if cell['audit_flagged'] else 'ok'} |")
    print(f"\nChecker run time per {args.size}-fact scenario (fit on T and R + score D; median over the cells, "
          f"this 2-core machine) beside the paper's (8 cores):\n")
    print("| checker | here (median, min-max) | paper |")
    print("|---|---:|---:|")
    for name in names:
        times = [cell["checkers"][name]["seconds"] for cell in result["cells"] if "checkers" in cell]
        if times:
            print(f"| {name} | {statistics.median(times):.1f} s ({min(times):.1f}-{max(times):.1f}) | "
                  f"{PAPER_SECONDS.get(name, '')} |")
    if tmp is not None:
        store.close()
        tmp.cleanup()


if __name__ == "__main__":
    main()
