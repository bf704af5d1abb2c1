"""Are the claims files byte-identical across a change? Makes a fixed set of claims sets with one checkout's
code, then compares two such runs file by file.

    python bench/claims_identity.py run OUT [--python PY] [--synthetic-store STORE]
    python bench/claims_identity.py compare OUT_BEFORE OUT_AFTER

``run`` makes, with ``PY -m factforge`` (default: this interpreter; give the one of the checkout to
test, e.g. ``old/.venv/bin/python``): DBpedia50 (with the DBpedia ontology) ``generate --claims`` twice
(negation and conjunction; multi-hop) and ``factforge claims`` once; the demo KB ``generate --claims``
twice, one in Chinese; FactBench's whole train split; and, with ``--synthetic-store`` (a loaded store of
the synthetic KB, opened read-only), the claims of ``bench/claims_bench.py``'s 20,000 sampled facts in
four languages. Stores are loaded into OUT/stores (or reused from an earlier run with ``--stores``).
``compare`` lists every ``claims.jsonl``, ``answers.json``, ``reference.sorted.nt`` and ``manifest.json``
(with its audit; the run's folder, which a manifest names as its source's path, set aside) that differs
or is missing, and exits 1 if any does.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("FACTFORGE_DATA", HERE.parent.parent / "shared" / "data"))
FILES = ("claims.jsonl", "answers.json", "reference.sorted.nt", "manifest.json")


def runs(stores: Path, out: Path) -> list[list[str]]:
    db50, demo, fb = str(stores / "db50"), str(stores / "demo"), str(stores / "fb")
    return [
        ["generate", "--store", db50, "--predicate", "dbo:birthPlace", "--size", "300", "--leakage", "pair",
         "--seed", "3", "--claims", "--lang", "en,de,fr,zh", "--negation", "0.3", "--conjunction", "0.2",
         "--out", str(out / "db50-birthplace")],
        ["generate", "--store", db50, "--predicate", "dbo:team", "--size", "200", "--seed", "5", "--claims",
         "--lang", "en,zh", "--multi-hop", "0.3", "--out", str(out / "db50-team")],
        ["claims", str(out / "db50-birthplace"), "--store", db50, "--lang", "en,fr", "--seed", "7",
         "--negation", "0.2", "--out", str(out / "db50-again")],
        ["generate", "--store", demo, "--predicate", "dbo:capital", "--size", "40", "--leakage", "pair",
         "--claims", "--lang", "en,de,fr,zh", "--out", str(out / "demo-capital")],
        ["generate", "--store", demo, "--predicate", "dbo:birthPlace", "--size", "60", "--seed", "4",
         "--claims", "--lang", "zh", "--multi-hop", "0.3", "--out", str(out / "demo-birthplace-zh")],
        ["claims", str(DATA / "factbench" / "train"), "--store", fb, "--lang", "en,de,fr",
         "--shares", "1/2,0,1/2", "--out", str(out / "factbench-train")],
    ]


def loads(stores: Path) -> list[list[str]]:
    from_demo = [sys.executable, "-c", "from factforge.sparql.demo_kb import demo_kb_path; print(demo_kb_path())"]
    demo_kb = subprocess.run(from_demo, check=True, capture_output=True, text=True).stdout.strip()
    return [["load", str(DATA / "dbpedia50" / "dbpedia50.nt"), str(DATA / "dbpedia-ontology" / "dbo-2018.12.28.ttl"),
             "--store", str(stores / "db50")],
            ["load", demo_kb, "--store", str(stores / "demo")],
            ["load", "--factbench", str(DATA / "factbench" / "train"), "--correct-only", "--store", str(stores / "fb")]]


def synthetic(store: str, out: str) -> None:
    """The claims of claims_bench's sampled facts, as the bench makes them, run by the tested checkout's
    interpreter with that checkout's bench folder (claims_bench puts its checkout first on the path)."""
    import factforge.claims

    sys.path.insert(0, str(Path(factforge.claims.__file__).resolve().parent.parent / "bench"))
    from claims_bench import sampled_facts
    from factforge.claims.build import Options, make_claims
    from factforge.claims.labelling import parse_shares
    from factforge.sparql.store import open_store

    kb = open_store(Path(store), read_only=True)
    source = sampled_facts(kb, "http://dbpedia.org/ontology/p0001", 20_000, 1)
    make_claims(kb, source, Options(langs=["en", "de", "fr", "zh"], shares=parse_shares("1/2,0,1/2"), seed=1),
                Path(out))


def run(args) -> None:
    out = args.out.resolve()
    stores = (args.stores or out / "stores").resolve()
    stores.mkdir(parents=True, exist_ok=True)
    for command in loads(stores):
        if not (Path(command[command.index("--store") + 1]) / "cache").exists():
            subprocess.run([args.python, "-m", "factforge", *command], check=True, stdout=subprocess.DEVNULL)
    for command in runs(stores, out):
        started = time.perf_counter()
        subprocess.run([args.python, "-m", "factforge", *command], check=True, stdout=subprocess.DEVNULL)
        print(f"{command[command.index('--out') + 1]}: {time.perf_counter() - started:.1f} s", flush=True)
    if args.synthetic_store:
        started = time.perf_counter()
        subprocess.run([args.python, __file__, "synthetic", str(args.synthetic_store), str(out / "synthetic")],
                       check=True)
        print(f"{out / 'synthetic'}: {time.perf_counter() - started:.1f} s", flush=True)


def compare(before: Path, after: Path) -> int:
    different = 0
    for folder in sorted(p for p in before.rglob("manifest.json")):
        relative = folder.parent.relative_to(before)
        if not (folder.parent / "claims.jsonl").exists() and (folder.parent / "claims").is_dir():
            continue  # a scenario's own manifest: its claims are in claims/
        for name in FILES:
            a, b = before / relative / name, after / relative / name
            same = b.exists() and _content(a, before) == _content(b, after)
            different += not same
            print(f"{'same' if same else 'DIFFERENT'}  {relative / name}")
    return 1 if different else 0


def _content(path: Path, root: Path) -> bytes:
    """The file's bytes; a manifest's with the run's folder (it names its source's path) made alike."""
    data = path.read_bytes()
    return data.replace(str(root.resolve()).encode(), b"<run>") if path.name == "manifest.json" else data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    made = sub.add_parser("run")
    made.add_argument("out", type=Path)
    made.add_argument("--python", default=sys.executable, help="the interpreter of the checkout to run")
    made.add_argument("--stores", type=Path, help="where the loaded stores are (default OUT/stores)")
    made.add_argument("--synthetic-store", type=Path, help="a loaded store of the synthetic KB (read-only)")
    both = sub.add_parser("compare")
    both.add_argument("before", type=Path)
    both.add_argument("after", type=Path)
    inner = sub.add_parser("synthetic")
    inner.add_argument("store")
    inner.add_argument("out")
    args = parser.parse_args()
    if args.command == "run":
        run(args)
    elif args.command == "compare":
        sys.exit(compare(args.before, args.after))
    else:
        synthetic(args.store, args.out)


if __name__ == "__main__":
    main()
