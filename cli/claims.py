"""``factforge claims FACTS --store S --out DIR``, and ``generate --claims``: the command line of claims.

``register`` adds the ``claims`` subcommand and the claims flags of ``generate`` (which then
writes its claims into ``OUT/claims/``). Errors are ``ClaimsError``s with one line that names the
flag; ``main`` prints them.
"""
from __future__ import annotations

import time
from pathlib import Path

from factforge.claims.errors import ClaimsError
from factforge.generators.spec import LEAKAGE

from .options import reading_store, store_options

DEFAULT_SHARES = "1/3,1/3,1/3"


def register(sub) -> None:
    claims = sub.add_parser("claims", help="verbalize labelled facts (a scenario folder, a labelled TSV/CSV/JSONL "
                                           "file or a FactBench folder) as FEVER claims with evidence in R")
    claims.add_argument("facts", metavar="FACTS", help="a scenario folder, a labelled file or a FactBench folder")
    store_options(claims)
    claims.add_argument("--out", required=True, metavar="DIR", help="a new (or empty) folder")
    claims.add_argument("--seed", type=int, default=None, help="default: the scenario's seed, else 0")
    claims.add_argument("--leakage", default=None,
                        help=f"what leaves R around a fact ({' | '.join(LEAKAGE)}; default: the scenario's, else triple)")
    _claim_options(claims, prefix="")
    claims.set_defaults(func=run)

    generate = sub.choices.get("generate")
    if generate is not None:
        generate.add_argument("--claims", action="store_true", help="also write claims in OUT/claims/")
        _claim_options(generate, prefix="claim-")
        generate.set_defaults(func=_generate_with_claims(generate.get_default("func")))


def _claim_options(parser, prefix: str) -> None:
    parser.add_argument("--lang", default="en", help="claim languages, comma-separated (en, de, fr, zh; default en)")
    parser.add_argument(f"--{prefix}shares", dest="claim_shares", default=DEFAULT_SHARES,
                        help="SUPPORTS,REFUTES,NOT ENOUGH INFO shares (default 1/3,1/3,1/3)")
    parser.add_argument(f"--{prefix}count", dest="claim_count", type=int, default=None,
                        help="claims per language (default: as many as the shares allow)")
    parser.add_argument("--negation", type=float, default=0.0,
                        help="share of claims negated, the same number with each label (default 0)")
    parser.add_argument("--conjunction", type=float, default=0.0,
                        help="share of claims joined by 'and' with another fact of their subject that R holds, the "
                             "same number with each label (default 0)")
    parser.add_argument("--temporal", type=float, default=0.0,
                        help="share of claims said with their dates and labelled by the dates R gives (FactBench "
                             "from/to, rdf:Statement years), the same number with each label (default 0)")
    parser.add_argument("--multi-hop", dest="multi_hop", type=float, default=0.0,
                        help="share of claims said as a 2-hop path (the fact's object unnamed, through a functional "
                             "link of it), the same number with each label (default 0)")
    parser.add_argument("--labels", metavar="FILE", help="entity names: TSV of IRI, language, label")
    parser.add_argument("--require-labels", action="store_true",
                        help="refuse an entity without a name in a claim language (no IRI local names)")


def options_from(args, *, seed: int, leakage: str):
    from factforge.claims.build import Options
    from factforge.claims.labelling import parse_shares
    from factforge.claims.names import read_label_file
    from factforge.claims.templates import load

    langs = [part.strip().lower() for part in args.lang.split(",") if part.strip()]
    if not langs or len(set(langs)) != len(langs):
        raise ClaimsError(f"--lang: expected distinct languages, comma-separated, got {args.lang!r}")
    for lang in langs:
        load(lang)
    for flag in ("negation", "conjunction", "temporal", "multi_hop"):
        if not 0 <= getattr(args, flag) <= 1:
            raise ClaimsError(f"--{flag.replace('_', '-')}: {getattr(args, flag):g} is not between 0 and 1")
    if args.claim_count is not None and args.claim_count < 1:
        raise ClaimsError(f"--count: {args.claim_count} is below 1")
    if leakage not in LEAKAGE:
        raise ClaimsError(f"--leakage: must be one of {', '.join(LEAKAGE)}, got {leakage!r}")
    return Options(langs=langs, shares=parse_shares(args.claim_shares), seed=seed, count=args.claim_count,
                   negation=args.negation, conjunction=args.conjunction, temporal=args.temporal,
                   multi_hop=args.multi_hop, leakage=leakage, require_labels=args.require_labels,
                   user_labels=read_label_file(args.labels) if args.labels else None)


def run(args) -> int:
    from factforge.evaluation.labelled import read_input

    store = reading_store(args)
    out = Path(args.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ClaimsError(f"--out: {out} exists and is not an empty folder")
    source = read_input(args.facts)
    spec = source.manifest.get("spec", {})
    seed = args.seed if args.seed is not None else int(source.manifest.get("seed", 0))
    options = options_from(args, seed=seed, leakage=args.leakage or spec.get("leakage", "triple"))
    return _make(store, source, options, out)


def _make(store, source, options, out: Path) -> int:
    from factforge.claims.audit import summary_lines
    from factforge.claims.build import make_claims

    started = time.perf_counter()
    manifest = make_claims(store, source, options, out)
    labels = ", ".join(f"{label} {n}" for label, n in manifest["claims"]["labels"].items())
    print(f"{manifest['claims']['per_language']} claims per language ({labels}) in "
          f"{', '.join(manifest['languages'])}: {manifest['claims']['total']} records in {out} "
          f"({time.perf_counter() - started:.1f} s)")
    left = {k: v for k, v in manifest["left_out"].items() if v}
    if left:
        print("  left out: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in left.items()))
    print("  claims audit " + "\n  ".join(summary_lines(manifest["audit"])))
    return 0


def _generate_with_claims(generate):
    def run_generate(args) -> int:
        if not args.claims:
            return generate(args)
        from factforge.evaluation.labelled import read_scenario

        options = options_from(args, seed=args.seed, leakage=args.leakage)  # bad flags fail before generation
        status = generate(args)
        if status:
            return status
        return _make(reading_store(args), read_scenario(args.out), options, Path(args.out) / "claims")

    return run_generate
