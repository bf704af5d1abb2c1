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

from .options import copy_option, knob_option, reading_store, store_options

def register(sub) -> None:
    claims = sub.add_parser("claims", help="verbalize labelled facts (a scenario folder, a labelled TSV/CSV/JSONL "
                                           "file or a FactBench folder) as FEVER claims with evidence in R")
    claims.add_argument("facts", metavar="FACTS", help="a scenario folder, a labelled file or a FactBench folder")
    store_options(claims)
    copy_option(claims, "claims do not need it: they read R around their facts, and --evidence-lines full "
                        "reads the KB once for R's whole dump")
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


#: fewer guessable bits than this, and a plan key without a secret is said to be guessable
GUESSABLE_BITS = 64

#: knobs whose flag carries generate's prefix (``--claim-shares``): a scenario's own words would be ambiguous
PREFIXED = ("shares", "count")


def _flag(name: str, prefix: str) -> str:
    return f"--{prefix if name in PREFIXED else ''}{name.replace('_', '-')}"


def _claim_options(parser, prefix: str) -> None:
    from factforge.claims.options import CLAIM_CONSTRAINTS
    from factforge.claims.reference_dump import SCOPES

    for name in CLAIM_CONSTRAINTS:
        knob_option(parser, name, table=CLAIM_CONSTRAINTS, flag=_flag(name, prefix))
    parser.add_argument("--labels", metavar="FILE", help="entity names: TSV of IRI, language, label and, for a name that "
                        "takes an article (die Schweiz, le Canada, the Netherlands), its class (m, f, n, pl; English sg, pl)")
    parser.add_argument("--plan-secret", metavar="FILE",
                        help="a file of secret bytes mixed into the plan key, so that whoever holds the KB cannot "
                             "replay the label plan (the same secret gives the same claims; docs/claims.md)")
    parser.add_argument("--evidence-lines", choices=tuple(SCOPES), default=None,
                        help="which dump of R ships as reference.sorted.nt, the file the evidence lines count in: "
                             "full (all of R; through --endpoint the whole KB is read once) or around (the part of R "
                             "that what the claims say singles out: every link of their subjects; where the schema "
                             "has disjoint classes, the rdf:type triples of the subjects and said objects, the "
                             "domains and ranges of the predicates and the class hierarchy above them; a multi-hop "
                             "claim's second links from its subject's objects; a temporal claim's dates as R "
                             "states them: claims/around.py, docs/claims.md); default: full with a local store or "
                             "--endpoint-copy, around through --endpoint")


def options_from(args, *, seed: int, leakage: str):
    from factforge.claims.names import read_label_file
    from factforge.claims.options import CLAIM_CONSTRAINTS, claim_options, claim_settings
    from factforge.generators.spec import SpecError

    prefix = "claim-" if getattr(args, "command", None) == "generate" else ""
    try:
        settings = claim_settings({name: getattr(args, name) for name in CLAIM_CONSTRAINTS})
        options = claim_options(settings, seed=seed, leakage=leakage)
    except SpecError as error:
        raise ClaimsError(f"{_flag(error.field, prefix)}: {error.reason}") from None
    if args.labels:
        options.user_labels = read_label_file(args.labels)
    if args.plan_secret:
        options.plan_secret = _secret(args.plan_secret)
    options.evidence_lines = args.evidence_lines
    return options


def _secret(path: str) -> bytes:
    try:
        secret = Path(path).read_bytes()
    except OSError as error:
        raise ClaimsError(f"--plan-secret: cannot read {path} ({error.strerror})") from None
    if len(secret.strip()) < 16:
        raise ClaimsError(f"--plan-secret: {path} holds fewer than 16 bytes besides white space (a short secret "
                          f"is guessed as easily as none)")
    return secret


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
    from factforge.claims.build import make_claims

    started = time.perf_counter()
    manifest = make_claims(store, source, options, out)
    print("\n".join(claims_summary(manifest, f"{out} ({time.perf_counter() - started:.1f} s)")))
    return 0


def claims_summary(manifest: dict, where: str) -> list[str]:
    """What a claims set's manifest says, as ``generate --claims``, ``claims`` and ``release create``
    print it: counts per label and language, the shares asked, what was left out, the audit's summary."""
    from factforge.claims.audit import summary_lines

    labels = ", ".join(f"{label} {n}" for label, n in manifest["claims"]["labels"].items())
    lines = [f"{manifest['claims']['per_language']} claims per language ({labels}) in "
             f"{', '.join(manifest['languages'])}: {manifest['claims']['total']} records in {where}",
             f"  shares asked (S, R, NEI) {', '.join(manifest['shares']['asked'])}" + _used(manifest["shares"])]
    left = {k: v for k, v in manifest["left_out"].items() if v}
    if left:
        lines.append("  left out: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in left.items()))
    for predicate, why in manifest["shares"].get("predicates_left_out", {}).items():
        lines.append(f"  left out predicate {predicate} ({why['facts']} facts): {why['reason']}")
    bits = manifest.get("plan_key", {}).get("guessable_bits")
    if bits is not None and bits < GUESSABLE_BITS:
        lines.append(f"  plan key without a secret: whoever holds the KB can replay the label plan, and whoever "
                     f"holds R in 2^{bits} tries; give --plan-secret FILE if that matters")
    if manifest.get("multi_hop", {}).get("none_made"):
        lines.append(f"  no multi-hop claims: {manifest['multi_hop']['none_made']}")
    audit = summary_lines(manifest["audit"])
    return lines + [f"  claims audit {audit[0]}", *(f"  {line}" for line in audit[1:])]


def _used(shares: dict) -> str:
    """What ``auto`` came to, said beside it (older manifests have no ``used``)."""
    used = shares.get("used")
    if not used or used == shares["asked"]:
        return ""
    why = shares.get("why") or ("R refutes some false facts" if used[1] != "0" else
                                 "R refutes none of these false facts")
    return f": used {', '.join(used)} ({why})"


def _generate_with_claims(generate):
    def run_generate(args) -> int:
        if not args.claims:
            return generate(args)
        from factforge.evaluation.labelled import read_scenario

        options = options_from(args, seed=args.seed, leakage=args.leakage)  # bad flags fail before generation
        status = generate(args)
        if status:
            return status
        from factforge.claims.labelling import SharesError

        try:
            return _make(reading_store(args), read_scenario(args.out), options, Path(args.out) / "claims")
        except SharesError as error:  # the library names claims' own flag; generate's carries a prefix
            raise ClaimsError(_flag("shares", "claim-") + str(error).removeprefix("--shares")) from None

    return run_generate
