"""The evaluation subcommands of ``factforge``: ``evaluate``, ``grid`` and ``audit``.

``register(subparsers)`` adds them to the command line's subparsers; each command returns its exit
code (``audit``: 3 when it flags, so it can gate a pipeline).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from factforge.evaluation.checkers import REFERENCE_CHECKERS, canonical, names

from .options import CliError, copy_option, knob_option, reading_store, store_options

FLAGGED_EXIT = 3


def register(subparsers) -> None:
    evaluate = subparsers.add_parser("evaluate", help="score a scenario with the reference checkers, or with "
                                                      "your own predictions: AUROC and ROC curves")
    evaluate.add_argument("scenario", metavar="PATH", help="a folder written by 'factforge generate', a FactBench "
                                                      "folder, or a labelled TSV/CSV/JSONL file (as audit reads)")
    store_options(evaluate)
    copy_option(evaluate, "needed for knowledge_linker and transe, which read every link of R; the other "
                          "checkers read only the neighbourhoods of the scored facts")
    evaluate.add_argument("--checker", action="append", metavar="NAME",
                          help=f"one of {', '.join(names())} (repeatable; default: {', '.join(REFERENCE_CHECKERS)}; "
                               f"through --endpoint without --endpoint-copy, those that read only neighbourhoods)")
    evaluate.add_argument("--predictions", metavar="FILE",
                          help="your own scores: TSV/CSV (id, score) or JSONL ({\"id\", \"score\"}); no KB needed")
    evaluate.add_argument("--plots", metavar="DIR", help="write roc.png / roc.svg here (default: the scenario folder, "
                                                         "or the folder of a labelled file)")
    evaluate.add_argument("--seed", type=int, default=None, help="seed of the checkers (default: the scenario's)")
    evaluate.add_argument("--json", action="store_true", help="print the results as JSON")
    evaluate.add_argument("--answers", metavar="FILE", help="for a claims file: how each claim was made (its kind)")
    evaluate.set_defaults(func=cmd_evaluate)

    grid = subparsers.add_parser("grid", help="difficulty matrix: scenarios over transparency x homogeneity, "
                                              "scored by the checkers, as JSON, TSV and heatmaps")
    store_options(grid)
    copy_option(grid, "needed for homogeneity > 0, knowledge_linker and transe; otherwise each cell fetches only "
                      "the neighbourhoods its scenario and checkers read")
    grid.add_argument("--predicate", required=True, help="dbo:birthPlace or a full IRI")
    grid.add_argument("--transparency", default="1,0.5,0", help="comma-separated values (default 1,0.5,0)")
    grid.add_argument("--homogeneity", default="1,0", help="comma-separated values (default 1,0)")
    knob_option(grid, "size")
    knob_option(grid, "train_size", default=200)  # the learnt checkers need a training set
    knob_option(grid, "ambiguous", default="random_walk")
    for name in ("popularity", "leakage", "seed"):
        knob_option(grid, name)
    grid.add_argument("--checker", action="append", metavar="NAME",
                      help="repeatable (default: the reference checkers; through --endpoint without --endpoint-copy, "
                           "those that read only neighbourhoods)")
    grid.add_argument("--out", required=True, metavar="DIR", help="where grid.json, grid.tsv and heatmaps go")
    grid.set_defaults(func=cmd_grid)

    audit = subparsers.add_parser("audit", help="shortcut audit of a scenario folder, a FactBench folder or a "
                                                "labelled TSV/CSV/JSONL file; exit 3 when it flags")
    audit.add_argument("path", metavar="PATH")
    store_options(audit)
    audit.add_argument("--auroc-threshold", type=float, default=None, help="flag a baseline above this AUROC (0.6)")
    audit.add_argument("--drift-threshold", type=float, default=None,
                       help="flag one alternative predicate/path above this share of the false facts (0.75)")
    audit.add_argument("--seed", type=int, default=None, help="seed of the cross-validation folds")
    audit.add_argument("--skip-bad", action="store_true",
                       help="for a FactBench folder: leave out (and name) models that cannot be read")
    audit.add_argument("--json", action="store_true", help="print the whole report as JSON")
    audit.add_argument("--answers", metavar="FILE", help="for a claims file: template ids and entities of the claims")
    audit.set_defaults(func=cmd_audit)


def _optional_store(args):
    return reading_store(args) if (args.store or args.endpoint) else None


def _values(text: str, option: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise CliError(f"{option}: {text!r} is not a comma-separated list of numbers") from None
    if not values:
        raise CliError(f"{option}: give at least one value")
    return values


# --- evaluate -----------------------------------------------------------------------------------
def cmd_evaluate(args) -> int:
    from factforge.claims.fever_io import is_claims_file

    if is_claims_file(args.scenario):  # FEVER-style claims: label accuracy, FEVER score, evidence P/R/F1
        from factforge.claims.scoring import evaluate_command

        return evaluate_command(args)
    from factforge.evaluation.checkers import CheckerError
    from factforge.evaluation.labelled import read_input
    from factforge.evaluation.metrics import roc_plot

    files = read_input(args.scenario)
    plots = Path(args.plots) if args.plots else files.folder
    if args.predictions:
        from factforge.evaluation.predictions import evaluate_predictions, read_predictions

        if args.checker:
            raise CliError("--predictions: give either --predictions or --checker, not both")
        scores = read_predictions(args.predictions)
        result = evaluate_predictions(files.test, scores)
        if not result["ok"]:
            raise CliError(f"--predictions: {'; '.join(result['errors'])}")
        result["plots"] = [str(p) for p in roc_plot(
            {"predictions": (_labels(files.test), [scores[r["id"]] for r in files.test])}, plots / "roc-predictions",
            title=f"ROC: {Path(args.predictions).name}")]
        if args.json:
            print(json.dumps(result, indent=1, sort_keys=True))
        else:
            print(f"predictions  AUROC {result['auroc']:.4f}  ({result['counts']['facts']} test facts)")
            print(f"ROC curve: {', '.join(result['plots'])}")
        return 0
    from factforge.evaluation.checkers import checker
    from factforge.evaluation.checkers.base import whole_kb_needed
    from factforge.evaluation.reference_input import input_reference, reads_of
    from factforge.evaluation.scoring import run_checker

    store = reading_store(args)
    chosen = [canonical(n) for n in (args.checker or REFERENCE_CHECKERS)]
    models = {name: checker(name) for name in chosen}
    skipped = []
    if not store.whole_index and not args.checker:  # asked for by name, they fail with the same words
        skipped = [{"checker": name, "reason": whole_kb_needed(models[name])}
                   for name in chosen if models[name].reads is None]
        chosen = [name for name in chosen if models[name].reads is not None]
    for item in skipped if not args.json else ():
        print(f"{item['checker']:<17} skipped: {item['reason']}", flush=True)
    reference = input_reference(files, store, reads_of(models[name] for name in chosen))
    seed = args.seed if args.seed is not None else int(files.manifest.get("seed") or 0)
    runs, failed = [], []
    for name in chosen:
        try:
            run = run_checker(name, files.train, files.test, reference, seed=seed)
        except CheckerError as error:  # one checker that cannot run does not hide the others' results
            failed.append({"checker": name, "error": str(error)})
            if not args.json:
                print(f"{name:<17} cannot run: {error}", flush=True)
            continue
        runs.append(run)
        if not args.json:
            auroc = f"{run.auroc:.4f}" if run.auroc is not None else "n/a"
            print(f"{run.name:<17} AUROC {auroc}  ({run.seconds:.1f} s){'  ' + run.note if run.note else ''}",
                  flush=True)
    written = roc_plot({run.name: (_labels(files.test), run.scores) for run in runs}, plots / "roc",
                       title=f"ROC: {files.manifest.get('scenario', Path(args.scenario).name)}")
    if args.json:
        print(json.dumps({"scenario": files.manifest.get("scenario"), "checkers": [r.to_dict() for r in runs],
                          "failed": failed, "skipped": skipped, "plots": [str(p) for p in written]}, indent=1,
                         sort_keys=True))
    else:
        print(f"ROC curves: {', '.join(str(p) for p in written)}")
    return 1 if failed else 0


def _labels(records: list[dict]) -> list[bool]:
    return [bool(r["label"]) for r in records]


# --- grid ---------------------------------------------------------------------------------------
def cmd_grid(args) -> int:
    from factforge.evaluation.grid import run_grid, write_grid

    spec = {"predicate": args.predicate, "size": args.size, "train_size": args.train_size,
            "ambiguous": args.ambiguous, "popularity": args.popularity, "leakage": args.leakage, "seed": args.seed}
    checkers = [canonical(n) for n in (args.checker or REFERENCE_CHECKERS)]
    transparencies = _values(args.transparency, "--transparency")
    homogeneities = _values(args.homogeneity, "--homogeneity")
    store = reading_store(args)
    checkers, skipped = _neighbourhood_checkers(store, checkers, named=bool(args.checker))
    for item in skipped:
        print(f"{item['checker']:<17} skipped: {item['reason']}", flush=True)
    report = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    result = run_grid(store, spec, transparencies=transparencies, homogeneities=homogeneities, checkers=checkers,
                      report=report)
    result["skipped"] = skipped
    written = write_grid(result, args.out)
    for name in result["checkers"]:
        print(f"{name}  (rows: transparency {', '.join(f'{c:g}' for c in transparencies)}; "
              f"columns: homogeneity {', '.join(f'{h:g}' for h in homogeneities)})")
        for c, row in zip(transparencies, result["matrix"][name]):
            print(f"  c={c:<4g} " + "  ".join("  -   " if v is None else f"{v:.4f}" for v in row))
    print(f"{len(written)} files in {args.out}")
    return 0


def _neighbourhood_checkers(store, chosen: list[str], *, named: bool) -> tuple[list[str], list[dict]]:
    """Through an endpoint without a copy, the checkers that read every link of R cannot run: left
    out and named with the reason by default, refused when asked for by name."""
    from factforge.evaluation.checkers import checker
    from factforge.evaluation.checkers.base import whole_kb_needed

    if store.whole_index:
        return chosen, []
    whole = [checker(name) for name in chosen if checker(name).reads is None]
    if whole and named:
        raise CliError(f"--checker: {whole_kb_needed(whole[0])}")
    return ([name for name in chosen if checker(name).reads is not None],
            [{"checker": model.name, "reason": whole_kb_needed(model)} for model in whole])


# --- audit --------------------------------------------------------------------------------------
def cmd_audit(args) -> int:
    from factforge.claims.fever_io import is_claims_file

    if is_claims_file(args.path):  # a FEVER, FEVEROUS or CFEVER file: the claims audit
        from factforge.claims.audit import audit_command

        return audit_command(args, FLAGGED_EXIT)
    from factforge.evaluation.audit import audit_path, summary_lines

    options = {k: v for k, v in (("auroc_threshold", args.auroc_threshold),
                                 ("drift_threshold", args.drift_threshold), ("seed", args.seed)) if v is not None}
    report = audit_path(args.path, _optional_store(args), skip_bad=args.skip_bad, **options)
    if args.json:
        print(json.dumps(report, indent=1, sort_keys=True))
    else:
        print("\n".join(summary_lines(report)))
    return FLAGGED_EXIT if report["flagged"] else 0
