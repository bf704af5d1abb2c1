"""Is a claims set's strongest n-gram a lean or noise? Its nPMI against what shuffled labels give.

    python bench/claims_ngram_null.py CLAIMS.jsonl [...] [--shuffles 300] [--n 2] [--lang en]
    python bench/claims_ngram_null.py --demo [--seeds 0 1 2 3 4]

The claims audit flags an n-gram whose nPMI with a label passes a fixed threshold (0.3). On a small
set the strongest n-gram reads well above zero whatever the labels are: an n-gram in 10 of 120 claims
reaches 0.2 by chance. So each set's strongest n-gram (the audit's own ``_ngram_stats``, the same
minimum claim count) is set beside the strongest of the same claims under ``--shuffles`` seeded
shuffles of their labels: the shuffles' median and 90th percentile, and the share of shuffles at or
above the observed value (a one-sided permutation p-value). ``--demo`` makes the case that raised the
question (the demo KB's birthPlace, 120 facts, c = 0.5, random walk, leakage pair, claims) at each
seed in a temporary folder. Figures are printed as Markdown; nothing is asserted.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from factforge.claims import audit, audit_text  # noqa: E402


def strongest(grams: list[list[str]], labels: list[str], min_claims: int) -> dict | None:
    rows = audit._ngram_stats(grams, labels, min_claims)["strongest"]
    return rows[0] if rows else None


def null_row(name: str, path: Path, shuffles: int, n: int, lang: str) -> str:
    claims = [json.loads(line) for line in path.open(encoding="utf-8")]
    claims = [c for c in claims if c.get("lang", lang) == lang]
    grams = [audit_text.ngrams(audit_text.words(c["claim"], lang), n) for c in claims]
    labels = [c["label"] for c in claims]
    min_claims = max(audit.MIN_CLAIMS, math.ceil(audit.MIN_CLAIMS_SHARE * len(claims)))
    seen = strongest(grams, labels, min_claims)
    if seen is None:
        return f"| {name} | {len(claims)} | none of {min_claims}+ claims | | | |"
    rng, null = random.Random(0), []
    for _ in range(shuffles):
        shuffled = labels[:]
        rng.shuffle(shuffled)
        top = strongest(grams, shuffled, min_claims)
        null.append(top["npmi"] if top else 0.0)
    null.sort()
    share = sum(x >= seen["npmi"] for x in null) / shuffles
    return (f"| {name} | {len(claims)} | '{seen['ngram']}' {seen['npmi']:+.3f} with {seen['label']} "
            f"({seen['claims_with_ngram']} claims) | {null[shuffles // 2]:.3f} | {null[int(0.9 * shuffles)]:.3f} | {share:.2f} |")


def demo_sets(folder: Path, seeds: list[int]) -> list[tuple[str, Path]]:
    from factforge.sparql.demo_kb import demo_kb_path

    store = folder / "store"
    subprocess.run([sys.executable, "-m", "factforge", "load", str(demo_kb_path()), "--store", str(store)],
                   check=True, capture_output=True)
    paths = []
    for seed in seeds:
        out = folder / f"seed{seed}"
        subprocess.run([sys.executable, "-m", "factforge", "generate", "--store", str(store), "--predicate",
                        "dbo:birthPlace", "--size", "120", "--transparency", "0.5", "--ambiguous", "random_walk",
                        "--leakage", "pair", "--popularity", "random", "--seed", str(seed), "--out", str(out),
                        "--claims"], check=True, capture_output=True)
        paths.append((f"demo birthPlace, seed {seed}", out / "claims" / "claims.jsonl"))
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("claims", nargs="*", type=Path)
    parser.add_argument("--demo", action="store_true", help="the demo KB's birthPlace claims at each --seeds")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--shuffles", type=int, default=300)
    parser.add_argument("--n", type=int, default=2, choices=(1, 2), help="n-gram length (default 2)")
    parser.add_argument("--lang", default="en")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        paths = [(str(p), p) for p in args.claims] + (demo_sets(Path(scratch), args.seeds) if args.demo else [])
        if not paths:
            parser.error("name claims files or give --demo")
        print(f"| claims | count | strongest {args.n}-gram | shuffled median | shuffled p90 | share of shuffles at or above |")
        print("|---|---|---|---|---|---|")
        for name, path in paths:
            print(null_row(name, path, args.shuffles, args.n, args.lang))


if __name__ == "__main__":
    main()
