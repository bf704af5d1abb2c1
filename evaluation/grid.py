"""Difficulty matrices: scenarios over transparency x homogeneity, each scored by the checkers.

Every cell is one generated scenario (the same spec apart from c and h, the same seed) scored by
each checker on its own R; the matrix is AUROC per checker, rows transparency, columns
homogeneity (the paper's Figures 2-3). A cell the KB cannot fill (too few facts for that c or h)
keeps the generator's message instead of a number.

Through an endpoint nothing of the KB is copied: each cell's scenario is made from neighbourhoods
(``generators.neighbourhood``; a cell with homogeneity > 0 keeps the message that it needs the
copy) and scored over R around its facts, as far as the checkers read (``Checker.reads``,
``evaluation.reference_input``). Checkers that read every link of R are left to the caller to skip
or refuse (``cmd_grid`` does, as ``evaluate`` does).
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Callable, Sequence

from factforge.generators.positives import NotEnoughFacts
from factforge.generators.scenario import generate
from factforge.generators.spec import ScenarioSpec, SpecError
from factforge.generators.writers import records

from .audit import audit_scenario
from .checkers import REFERENCE_CHECKERS, canonical, checker
from .metrics import heatmap
from .reference_input import made_reference, reads_of
from .scoring import run_checker

TRANSPARENCY = (1.0, 0.5, 0.0)
HOMOGENEITY = (1.0, 0.0)


def run_grid(store, spec: dict, *, transparencies: Sequence[float] = TRANSPARENCY,
             homogeneities: Sequence[float] = HOMOGENEITY, checkers: Sequence[str] = REFERENCE_CHECKERS,
             report: Callable[[str], None] | None = None) -> dict:
    """``spec``: every ScenarioSpec field but transparency and homogeneity (predicate required)."""
    names = [canonical(n) for n in checkers]
    reads = reads_of(checker(name) for name in names)
    cells = []
    for c in transparencies:
        for h in homogeneities:
            cell = {"transparency": c, "homogeneity": h}
            try:
                scenario = generate(store, ScenarioSpec.from_dict({**spec, "transparency": c, "homogeneity": h}))
            except (NotEnoughFacts, SpecError) as error:
                cell["error"] = str(error)
                cells.append(cell)
                if report:
                    report(f"c={c:g} h={h:g}: not made ({error})")
                continue
            reference = made_reference(store, scenario, reads)
            train, test = records(scenario, "train"), records(scenario, "test")
            cell["scenario"] = scenario.id
            cell["audit_flagged"] = audit_scenario(scenario, store)["flagged"]
            cell["checkers"] = {}
            for name in names:
                run = run_checker(name, train, test, reference, seed=scenario.spec.seed)
                cell["checkers"][name] = run.to_dict()
                if report:
                    report(f"c={c:g} h={h:g}: {name} AUROC {run.auroc} ({run.seconds:.1f} s)")
            cells.append(cell)
    matrix = {name: [[_auroc(cells, c, h, name) for h in homogeneities] for c in transparencies] for name in names}
    return {"spec": {k: v for k, v in spec.items() if k not in ("transparency", "homogeneity")},
            "transparency": list(transparencies), "homogeneity": list(homogeneities),
            "checkers": names, "matrix": matrix, "cells": cells}


def _auroc(cells: list[dict], c: float, h: float, name: str) -> float | None:
    for cell in cells:
        if cell["transparency"] == c and cell["homogeneity"] == h and "checkers" in cell:
            return cell["checkers"][name]["auroc"]
    return None


def write_grid(result: dict, out_dir: str | Path) -> list[Path]:
    """``grid.json`` (everything but run times, so that a rerun gives the same bytes), ``grid.tsv`` (one row per cell and checker) and one heatmap per
    checker (``heatmap-<checker>.png`` / ``.svg``)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "grid.json", out / "grid.tsv"]
    written[0].write_text(json.dumps(_without_times(result), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    buffer = io.StringIO()
    table = csv.writer(buffer, delimiter="\t", lineterminator="\n")
    table.writerow(["checker", "transparency", "homogeneity", "auroc", "note"])
    for cell in result["cells"]:
        for name in result["checkers"]:
            run = cell.get("checkers", {}).get(name)
            table.writerow([name, cell["transparency"], cell["homogeneity"],
                            "" if run is None or run["auroc"] is None else run["auroc"],
                            cell.get("error") or (run or {}).get("note", "")])
    written[1].write_text(buffer.getvalue(), encoding="utf-8")
    predicate = result["spec"].get("predicate", "")
    for name, matrix in result["matrix"].items():
        written += heatmap(matrix, result["transparency"], result["homogeneity"], out / f"heatmap-{name}",
                           title=f"{name}: {predicate}")
    return written


def _without_times(result: dict) -> dict:
    cells = [{**cell, "checkers": {name: {k: v for k, v in run.items() if k != "seconds"}
                                   for name, run in cell["checkers"].items()}} if "checkers" in cell else cell
             for cell in result["cells"]]
    return {**result, "cells": cells}
