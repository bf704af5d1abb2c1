"""Labelled facts as the evaluation reads them back: a written scenario folder or a labelled file.

Records are the writers' flat dicts (``id, subject, predicate, object, [start, end], label``); any
other column of a labelled file is kept under its own name (as text), since the audit treats every
column a system reads as a possible shortcut. A scenario folder is read from its JSON Lines files
when present, else from TSV/CSV (which have no id column: ids are numbered in file order, as the
generator numbered them, ``te00001`` ...). Every problem is one ``LabelledError`` line naming the
file, the line and the field.
"""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path

PREFIX = {"test": "te", "train": "tr"}
TRUE_WORDS = {"1", "true", "t", "yes", "supports"}
FALSE_WORDS = {"0", "-1", "false", "f", "no", "refutes"}  # -1: the seed paper's files; REFUTES: FEVER's
# The paper's columns (and ours); lower-cased for matching.
COLUMNS = {"subject": "subject", "object": "object", "relation": "predicate", "predicate": "predicate",
           "start": "start", "end": "end", "label": "label", "id": "id"}


KNOWN = set(COLUMNS.values())


class LabelledError(ValueError):
    """A labelled file or scenario folder cannot be read; the message names file, line and field."""


@dataclass
class ScenarioFiles:
    folder: Path
    manifest: dict
    test: list[dict]
    train: list[dict]
    answers: dict[str, dict] = field(default_factory=dict)
    kind: str = "scenario"  # or "factbench", "labelled file": what was read (no manifest but a scenario's)

    @property
    def records(self) -> list[dict]:
        return self.test + self.train


def is_scenario_folder(path: Path) -> bool:
    return path.is_dir() and (path / "manifest.json").is_file()


def read_scenario(folder: str | Path) -> ScenarioFiles:
    folder = Path(folder)
    if not is_scenario_folder(folder):
        raise LabelledError(f"{folder}: not a scenario folder (no manifest.json)")
    manifest = _json_file(folder / "manifest.json")
    splits = {}
    for split in ("test", "train"):
        splits[split] = _read_split(folder, split)
    if not splits["test"]:
        raise LabelledError(f"{folder}: no test facts (test.jsonl, test.tsv or test.csv)")
    answers = {}
    if (folder / "answers.json").is_file():
        answers = _json_file(folder / "answers.json").get("answers", {})
    return ScenarioFiles(folder, manifest, splits["test"], splits["train"], answers)


def read_input(path: str | Path, skipped: list[str] | None = None) -> ScenarioFiles:
    """A scenario folder, a FactBench folder or a labelled TSV/CSV/JSONL file, as scenario files; the
    last two have no manifest and no train split (all their facts are test facts). Given a
    ``skipped`` list, FactBench models that cannot be read are left out and named there."""
    path = Path(path)
    if is_scenario_folder(path):
        return read_scenario(path)
    if path.is_dir():
        if not any(path.rglob("*.ttl")):
            raise LabelledError(f"{path}: not a scenario folder (no manifest.json) nor a FactBench folder "
                                f"(no *.ttl model)")
        return ScenarioFiles(path, {}, factbench_records(path, skipped), [], kind="factbench")
    if path.is_file():
        return ScenarioFiles(path.parent, {}, read_labelled(path), [], kind="labelled file")
    raise LabelledError(f"{path}: no such file or folder")


def factbench_records(folder: Path, skipped: list[str] | None = None) -> list[dict]:
    """One record per FactBench model, with the model's properties and literal datatypes as its
    shape (``_shape``): what a system reading the model files sees besides the fact. Given a
    ``skipped`` list, models that cannot be read are left out and their errors appended there."""
    from pyoxigraph import Literal

    from factforge.sparql.factbench import _models
    from factforge.sparql.loading import LoadError
    from factforge.sparql.terms import compact

    records = []
    bad: list[tuple[Path, str]] | None = [] if skipped is not None else None
    try:
        for record, quads, _ in _models(folder, False, bad):
            shape = set()
            for quad in quads:
                shape.add(f"property:{compact(quad.predicate)}")
                if isinstance(quad.object, Literal) and not quad.object.language:
                    shape.add(f"datatype:{compact(quad.predicate)}={compact(quad.object.datatype)}")
            records.append({"id": Path(record.source_file).relative_to(folder).as_posix(),
                            "subject": record.subject, "predicate": record.predicate, "object": record.object,
                            "start": record.start, "end": record.end, "label": record.label,
                            "_shape": sorted(shape)})
    except LoadError as error:
        raise LabelledError(str(error)) from None
    if skipped is not None:
        skipped.extend(message for _, message in bad)
    return records


def _read_split(folder: Path, split: str) -> list[dict]:
    for extension in ("jsonl", "tsv", "csv"):
        path = folder / f"{split}.{extension}"
        if path.is_file():
            return read_labelled(path, id_prefix=PREFIX[split])
    return []


def read_labelled(path: str | Path, *, id_prefix: str = "r") -> list[dict]:
    """Records of a labelled TSV/CSV (header with Subject, Object, Relation, Label; optional id,
    Start, End) or JSON Lines file (objects with subject, predicate, object, label)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise LabelledError(f"{path}: cannot read ({error})") from None
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        records = _jsonl(path, text)
    elif path.suffix.lower() in (".tsv", ".csv", ".txt"):
        records = _table(path, text, "," if path.suffix.lower() == ".csv" else "\t")
    else:
        raise LabelledError(f"{path}: unknown file type (expected .tsv, .csv or .jsonl)")
    if not records:
        raise LabelledError(f"{path}: no labelled facts")
    for number, record in enumerate(records, 1):
        record.setdefault("id", f"{id_prefix}{number:05d}")
    ids = [r["id"] for r in records]
    if len(set(ids)) != len(ids):
        raise LabelledError(f"{path}: id {_first_duplicate(ids)!r} appears twice")
    return records


def _jsonl(path: Path, text: str) -> list[dict]:
    return [_record(path, number, data) for number, data in json_objects(path, text, LabelledError)]


def json_objects(path: Path, text: str, error: type[ValueError]):
    """(line number, object with lower-cased keys) of each non-blank line of a JSON Lines text."""
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as problem:
            raise error(f"{path}:{number}: not JSON ({problem.msg})") from None
        except RecursionError:
            raise error(f"{path}:{number}: not JSON (nested too deeply)") from None
        if not isinstance(data, dict):
            raise error(f"{path}:{number}: expected a JSON object")
        yield number, {k.lower(): v for k, v in data.items()}


def _table(path: Path, text: str, delimiter: str) -> list[dict]:
    rows = list(csv.reader(text.splitlines(), delimiter=delimiter))
    if not rows:
        return []
    header = [COLUMNS.get(name.strip().lower()) or name.strip() or f"column{number}"
              for number, name in enumerate(rows[0], 1)]
    seen = set()
    for name in header:
        if name.lower() in seen:
            raise LabelledError(f"{path}:1: the header names column {name!r} twice")
        seen.add(name.lower())
    for needed in ("subject", "object", "predicate", "label"):
        if needed not in header:
            raise LabelledError(f"{path}:1: header has no {needed!r} column "
                                f"(expected Subject, Object, Relation, Label)")
    records = []
    for number, row in enumerate(rows[1:], 2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise LabelledError(f"{path}:{number}: {len(row)} fields, the header has {len(header)}")
        records.append(_record(path, number, {k: v for k, v in zip(header, row) if k}))
    return records


def _record(path: Path, number: int, data: dict) -> dict:
    record = {}
    if "id" in data:
        record["id"] = str(data["id"])
    for name in ("subject", "predicate", "object"):
        value = data.get(name)
        if not isinstance(value, str) or not value.strip():
            raise LabelledError(f"{path}:{number}: field {name!r} is missing or empty")
        record[name] = value.strip()
    for name in ("start", "end"):
        if name in data:
            record[name] = None if data[name] in (None, "") else str(data[name])
    record["label"] = parse_label(data.get("label"), f"{path}:{number}")
    for name, value in data.items():
        if name not in KNOWN and not name.startswith("_"):
            record[name] = value.strip() if isinstance(value, str) else "" if value is None else json.dumps(value)
    return record


def parse_label(value, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1, -1):
        return value == 1
    text = str(value).strip().lower() if value is not None else ""
    if text in TRUE_WORDS:
        return True
    if text in FALSE_WORDS:
        return False
    raise LabelledError(f"{where}: field 'label' is {value!r}, expected 1/0/-1, true/false or SUPPORTS/REFUTES")


def _json_file(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise LabelledError(f"{path}: cannot read ({error})") from None


def _first_duplicate(ids: list[str]) -> str:
    seen = set()
    for value in ids:
        if value in seen:
            return value
        seen.add(value)
    return ""


def labels(records: list[dict]):
    import numpy as np

    return np.array([bool(r["label"]) for r in records], dtype=bool)
