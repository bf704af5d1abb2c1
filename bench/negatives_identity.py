"""Are scenarios byte-identical across a change to the negative samplers? Makes a fixed set of
scenarios with one checkout's code, then compares two such runs file by file.

    python bench/negatives_identity.py run OUT [--python PY] [--stores DIR] [--synthetic-store STORE]
    python bench/negatives_identity.py compare OUT_BEFORE OUT_AFTER

``run`` generates, with ``PY -m factforge`` (default: this interpreter; give the one of the checkout
to test, e.g. ``old/.venv/bin/python``), scenarios with every kind of false fact that shares the
nearness screen: random re-pairing (c = 1, and c = 0.5 beside LCWA or random walk), LCWA and random
walk (c = 0), on the demo KB and DBpedia50 with several seeds, one with a train split; with
``--synthetic-store`` (a loaded store of ``bench/synthetic_kb.py --seed 1``'s KB) also 2,000 facts
of re-pairing and of random walk there. Stores are loaded as ``bench/claims_identity.py`` loads them.
``compare`` lists every file that differs or is missing (a manifest's run folder set aside) and
exits 1 if any does.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from claims_identity import _content, loads

BORN, TEAM, SYNTHETIC = "dbo:birthPlace", "dbo:team", "http://dbpedia.org/ontology/p0001"


def runs(stores: Path, out: Path, synthetic: Path | None) -> list[list[str]]:
    db50, demo = str(stores / "db50"), str(stores / "demo")
    cases = [(demo, BORN, 60, 0, "1", "lcwa"), (demo, BORN, 60, 1, "0", "lcwa"), (demo, BORN, 60, 2, "0", "random_walk"),
             (demo, "dbo:capital", 40, 3, "0.5", "lcwa"),
             (db50, BORN, 300, 0, "1", "lcwa"), (db50, BORN, 300, 1, "1", "lcwa"), (db50, BORN, 300, 2, "0.5", "lcwa"),
             (db50, BORN, 300, 3, "0", "lcwa"), (db50, BORN, 300, 4, "0", "random_walk"),
             (db50, TEAM, 200, 5, "0.5", "random_walk"), (db50, TEAM, 200, 6, "1", "lcwa")]
    if synthetic:
        cases += [(str(synthetic), SYNTHETIC, 2000, 0, "1", "lcwa"), (str(synthetic), SYNTHETIC, 2000, 0, "0", "random_walk")]
    commands = []
    for store, predicate, size, seed, c, kind in cases:
        name = f"{Path(store).name}-{predicate.rsplit('/', 1)[-1].replace(':', '_')}-s{seed}-c{c}-{kind}"
        command = ["generate", "--store", store, "--predicate", predicate, "--size", str(size), "--seed", str(seed),
                   "--transparency", c, "--ambiguous", kind, "--out", str(out / name)]
        if seed == 1 and store == db50:
            command += ["--train-size", "200"]
        commands.append(command)
    return commands


def run(args) -> None:
    out = args.out.resolve()
    stores = (args.stores or out / "stores").resolve()
    stores.mkdir(parents=True, exist_ok=True)
    for command in loads(stores)[:2]:  # DBpedia50 and the demo KB
        if not (Path(command[command.index("--store") + 1]) / "cache").exists():
            subprocess.run([args.python, "-m", "factforge", *command], check=True, stdout=subprocess.DEVNULL)
    for command in runs(stores, out, args.synthetic_store):
        started = time.perf_counter()
        subprocess.run([args.python, "-m", "factforge", *command], check=True, stdout=subprocess.DEVNULL)
        print(f"{command[command.index('--out') + 1]}: {time.perf_counter() - started:.1f} s", flush=True)


def compare(before: Path, after: Path) -> int:
    different = 0
    for a in sorted(p for p in before.rglob("*") if p.is_file() and "stores" not in p.relative_to(before).parts):
        relative = a.relative_to(before)
        b = after / relative
        same = b.exists() and _content(a, before) == _content(b, after)
        different += not same
        print(f"{'same' if same else 'DIFFERENT'}  {relative}")
    return 1 if different else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("run", "compare"))
    parser.add_argument("folders", type=Path, nargs="+", help="run: OUT; compare: OUT_BEFORE OUT_AFTER")
    parser.add_argument("--python", default=sys.executable, help="run: the interpreter of the checkout to run")
    parser.add_argument("--stores", type=Path, help="run: where the loaded stores are (default OUT/stores)")
    parser.add_argument("--synthetic-store", type=Path, help="run: a loaded store of the synthetic 1M KB")
    args = parser.parse_args()
    if len(args.folders) != (1 if args.command == "run" else 2):
        parser.error(f"{args.command}: give {'OUT' if args.command == 'run' else 'OUT_BEFORE OUT_AFTER'}")
    if args.command == "run":
        args.out = args.folders[0]
        run(args)
    else:
        sys.exit(compare(*args.folders))


if __name__ == "__main__":
    main()
