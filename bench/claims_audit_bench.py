"""Time of the claims audit (``factforge audit CLAIMS.jsonl``) on synthetic FEVER-style claims, printed
as a markdown table (nothing is asserted).

    python bench/claims_audit_bench.py [--claims 100000] [--languages en,de,fr] [--seed 0] [--subjects]

With ``--subjects`` each claim names its subject, as ours do, so the baselines' folds are grouped by
subject (``evaluation.folds``); without it they are plain stratified folds.

The claims are made from a few templates per language that every label shares, with random
entity names, and dates in some templates, so the audit has n-grams, spans and dates to count. The
file is written to a temporary folder first; the time is reading it and auditing it.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TEMPLATES = {
    "en": ["{s} was born in {o}.", "The birthplace of {s} is {o}.", "{s} died in {o} on {d}.",
           "{s} was born in {o} in {y}.", "{s} is a citizen of {o}."],
    "de": ["{s} wurde in {o} geboren.", "Der Geburtsort von {s} ist {o}.", "{s} starb am {d} in {o}.",
           "{s} wurde {y} in {o} geboren.", "{s} ist Bürger von {o}."],
    "fr": ["{s} est né à {o}.", "Le lieu de naissance de {s} est {o}.", "{s} est mort à {o} le {d}.",
           "{s} est né à {o} en {y}.", "{s} est citoyen de {o}."],
    "zh": ["{s}出生於{o}。", "{s}的出生地是{o}。", "{s}於{d}在{o}去世。", "{s}於{y}年出生於{o}。", "{s}是{o}的公民。"],
}
MONTHS = {"en": ["January", "March", "July", "October"], "de": ["Januar", "März", "Juli", "Oktober"],
          "fr": ["janvier", "mars", "juillet", "octobre"]}
LABELS = ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]


def synthetic_claims(n: int, languages: list[str], seed: int, subjects: bool = False):
    rng = random.Random(seed)
    for i in range(n):
        lang = languages[i % len(languages)]
        label = LABELS[rng.randrange(3)]
        subject, place = f"Person{rng.randrange(20000)} Name{rng.randrange(5000)}", f"City{rng.randrange(3000)}"
        day, year = rng.randrange(1, 29), rng.randrange(1800, 2020)
        if lang == "zh":
            date = f"{year}年{rng.randrange(1, 13)}月{day}日"
        elif lang == "en":
            date = f"{rng.choice(MONTHS[lang])} {day}, {year}"
        else:
            date = f"{day}. {rng.choice(MONTHS[lang])} {year}" if lang == "de" else f"{day} {rng.choice(MONTHS[lang])} {year}"
        text = rng.choice(TEMPLATES[lang]).format(s=subject, o=place, d=date, y=year)
        evidence = ([[[None, None, None, None]]] if label == "NOT ENOUGH INFO"
                    else [[[None, None, subject.replace(" ", "_"), rng.randrange(40)]]])
        record = {"id": i, "claim": text, "label": label, "lang": lang, "evidence": evidence}
        yield {**record, "subject": subject} if subjects else record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument("--languages", default="en,de,fr")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--subjects", action="store_true", help="claims name their subject: grouped folds")
    args = parser.parse_args()

    from factforge.claims.audit import audit_file

    languages = [lang.strip() for lang in args.languages.split(",") if lang.strip()]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "claims.jsonl"
        with path.open("w", encoding="utf-8") as handle:
            for record in synthetic_claims(args.claims, languages, args.seed, args.subjects):
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        started, cpu = time.perf_counter(), time.process_time()
        report = audit_file(path, seed=args.seed)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    # CPU time beside wall time: on a shared machine the wall time mostly measures the other processes
    print("| claims | languages | audit wall time | audit CPU time | flagged |")
    print("|---:|---|---:|---:|---|")
    print(f"| {args.claims} | {', '.join(languages)} | {seconds:.1f} s | {cpu:.1f} s | {report['flagged']} |")
    for reason in report["reasons"]:
        print(f"- {reason}")


if __name__ == "__main__":
    main()
