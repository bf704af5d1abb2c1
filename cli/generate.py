"""``factforge generate``: one scenario written to a folder, with its summary."""
from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from factforge.generators.spec import ScenarioSpec
from factforge.sparql.terms import compact

from .options import CliError, copy_option, knob_option, reading_store, store_options


def register(sub) -> None:
    generate = sub.add_parser("generate", help="generate a scenario: true and false facts for a predicate")
    store_options(generate)
    copy_option(generate)
    generate.add_argument("--predicate", required=True, help="dbo:birthPlace or a full IRI")
    for name in (f.name for f in fields(ScenarioSpec) if f.name != "predicate"):
        knob_option(generate, name)
    generate.add_argument("--out", required=True, metavar="DIR", help="a new (or empty) folder")
    generate.add_argument("--format", dest="formats", default="tsv,jsonl",
                          help="comma-separated output formats (default tsv,jsonl)")
    generate.add_argument("--reference", action="store_true",
                          help="also write the reference KB R as N-Triples (reference.nt); through --endpoint without "
                               "--endpoint-copy only what R lacks of the KB (reference.removed.nt) and the KB's "
                               "fingerprint")
    generate.set_defaults(func=cmd_generate)


def cmd_generate(args) -> int:
    import time

    from factforge.generators.scenario import generate
    from factforge.generators.writers import check_kb, formats
    from factforge.publish.scenario_files import write_scenario

    spec = ScenarioSpec.from_dict({f.name: getattr(args, f.name) for f in fields(ScenarioSpec)})
    # Refuse a bad format or a used folder before minutes of generation, not after.
    names = [n.strip() for n in args.formats.split(",") if n.strip()]
    unknown = [n for n in names if n not in formats()]
    if unknown or not names:
        raise CliError(f"--format: {unknown[0] if unknown else args.formats!r} is not one of {', '.join(formats())}")
    out = Path(args.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise CliError(f"--out: {out} exists and is not an empty folder")
    store = reading_store(args)
    check_kb(names, store)
    started = time.perf_counter()
    scenario = generate(store, spec, progress=not args.quiet)
    manifest = write_scenario(scenario, args.out, names, reference_from=store if args.reference else None,
                              store=store, removed_only=not store.whole_index)
    print_summary(scenario, manifest, args.out, time.perf_counter() - started)
    return 0


def print_summary(scenario, manifest: dict, out: str, seconds: float) -> None:
    counts = scenario.summary["counts"]
    print(f"scenario {scenario.id}  ({scenario.spec.predicate}, seed {scenario.spec.seed}, KB {scenario.fingerprint})")
    for split in ("test", "train"):
        c = counts[split]
        if c["true"] or c["false"]:
            kinds = ", ".join(f"{k} {n}" for k, n in c["false_by_kind"].items())
            print(f"  {split:<5} {c['true']:>6} true  {c['false']:>6} false  ({kinds})")
    transparency = scenario.summary["transparency"]
    if transparency and transparency["made"] is not None:
        print(f"  transparency asked {transparency['asked']:g}, made {transparency['made']:g}")
    walk = scenario.summary.get("random_walk")
    if walk:
        print(f"  random walk: {walk['walk_made']} of {walk['false_facts']} false facts reached by a walk "
              f"({walk['walk_share']:.0%}); the other {walk['fallback']} are fallback re-pairings (objects of other "
              f"true facts), not walk-made")
    matched = scenario.summary.get("true_objects")
    if matched:
        print(f"  true facts: {matched['replaced']} gave way to later facts of the ranking, their objects being owed "
              f"more false facts than the set's subjects could take")
        if matched.get("warning"):
            print(f"  warning: {matched['warning']}")
    unbalanced = scenario.summary.get("false_subjects")
    if unbalanced:
        print(f"  warning: {unbalanced['warning']}")
    lcwa = scenario.summary.get("lcwa")
    if lcwa and lcwa["fallback"]:
        print(f"  lcwa: {lcwa['neighbour_made']} of {lcwa['false_facts']} false facts from the subject's neighbours "
              f"({lcwa['neighbour_share']:.0%}); the other {lcwa['fallback']} are fallback objects from the "
              f"predicate's observed range")
    factbench = scenario.summary.get("factbench")
    if factbench:
        left = "".join(f"; left out {kind}: {why}" for kind, why in factbench["left_out"].items())
        print(f"  factbench kinds: {', '.join(factbench['kinds'])}{left}")
        changed = factbench["predicate_changed"]
        if changed:
            print(f"  {changed['false_facts']} false facts ({', '.join(changed['kinds'])}) have another predicate than "
                  f"{compact(scenario.spec.predicate)}: the Relation column alone gives their label")
    drift = scenario.summary["drift"]
    if drift:
        print(f"  most frequent alternative predicate/path: {drift['top']} ({drift['share']:.0%} of ambiguous false facts)")
    print(f"  reference KB: {len(scenario.removed)} triples removed at leakage level '{scenario.spec.leakage}'")
    audit = manifest.get("audit")
    if audit is not None:
        from factforge.evaluation.audit import summary_lines

        print("  " + "\n  ".join(summary_lines(audit, warnings=False)))
    steps = ", ".join(f"{k} {v:.2f}s" for k, v in scenario.timings.items())
    print(f"  {len(manifest['files'])} files in {out}; {seconds:.1f} s ({steps})")
