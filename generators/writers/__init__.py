"""Output formats, one renderer each, chosen by name (``render(scenario, "tsv", "test")``).

Every renderer writes true and false facts with the same fields, properties and datatypes, in
the scenario's order (``generators.fact_order``: by the facts alone, so neither order nor ids
tell a label); provenance never appears here (``answers`` has it). File formats
render one split to bytes; folder formats (FactBench layout, PyKEEN) write a directory.
"""
from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Callable

from ..scenario import Scenario
from .base import FOLDER_WRITERS, RENDERERS, FormatError, Renderer, _json, records, register

__all__ = ["FOLDER_WRITERS", "RENDERERS", "FormatError", "Renderer", "records", "register", "load_all", "formats",
           "render", "answers_bytes", "write_files", "check_kb", "REMOVED"]

#: R's difference to the KB, written for ``reference`` when the KB is an endpoint read by neighbourhoods
REMOVED = "reference.removed.nt"


def load_all() -> None:
    """Import every format module; each registers itself."""
    from . import jsonfmt, tabular  # noqa: F401
    from . import factbench_layout  # noqa: F401
    from . import pykeen_layout, rdf  # noqa: F401


def formats() -> list[str]:
    load_all()
    return sorted(RENDERERS) + sorted(FOLDER_WRITERS)


def render(scenario: Scenario, name: str, split: str = "test") -> bytes:
    load_all()
    if name not in RENDERERS:
        raise FormatError(f"format: {name!r} is not one of {', '.join(sorted(RENDERERS))}")
    return RENDERERS[name].render(scenario, split)


def answers_bytes(scenario: Scenario) -> bytes:
    return _json({"scenario": scenario.id, "kb_fingerprint": scenario.fingerprint, "seed": scenario.spec.seed,
                  "answers": scenario.answers, "summary": scenario.summary})


def write_files(scenario: Scenario, out_dir: str | os.PathLike, names: list[str], *,
                reference_from=None, store=None, extra: dict | None = None, removed_only: bool = False) -> dict:
    """Write the chosen formats, the answers, and a manifest with the sha256 of every file, and
    ``extra`` (what the publishing layer adds, such as the audit report). ``removed_only``: R (when
    ``reference_from`` is given) as what it lacks of the KB, not in full.

    Files are written into a temporary sibling folder that is renamed into place at the end, so a
    failure leaves no half-written scenario behind.
    """
    load_all()
    target = Path(out_dir)
    unknown = [n for n in names if n not in RENDERERS and n not in FOLDER_WRITERS]
    if unknown:
        raise FormatError(f"format: {unknown[0]!r} is not one of {', '.join(formats())}")
    kb = store if store is not None else reference_from  # folder writers marked needs_store get it
    needy = [n for n in names if getattr(FOLDER_WRITERS.get(n), "needs_store", False)]
    if needy and kb is None:
        raise ValueError(f"format: {needy[0]!r} needs the KB to write (pass store=)")
    check_kb(names, kb)
    return write_staged(target, lambda staging: _write_into(staging, scenario, names, reference_from, kb, extra or {},
                                                            removed_only))


def check_kb(names: list[str], kb) -> None:
    """Refuse a folder format that writes every link of R (``whole_kb``) when the KB is an endpoint
    read by neighbourhoods (``Store.whole_index`` false): before generating, not after."""
    load_all()
    if kb is None or kb.whole_index:
        return
    for name in names:
        if getattr(FOLDER_WRITERS.get(name), "whole_kb", False):
            raise FormatError(f"format: {name!r} writes every link of R for a model to train on: through an endpoint "
                              f"it needs the KB copied first (--endpoint-copy)")


def write_staged(out_dir: str | os.PathLike, write: Callable[[Path], dict]) -> dict:
    """``write(folder)`` into a temporary sibling folder renamed to ``out_dir`` at the end (which
    must be new or empty), so a failure leaves nothing half-written behind; returns what it returns."""
    target = Path(out_dir)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise FileExistsError(f"--out: {target} exists and is not empty")
    staging = target.parent / f".{target.name}.partial"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    try:
        result = write(staging)
        if target.exists():
            target.rmdir()
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return result


def _write_into(staging: Path, scenario: Scenario, names: list[str], reference_from, kb, extra: dict,
                removed_only: bool) -> dict:
    written: list[Path] = []
    splits = ["test"] + (["train"] if scenario.train else [])
    for name in names:
        if name in RENDERERS:
            renderer = RENDERERS[name]
            for split in splits:
                path = staging / f"{split}.{renderer.extension}"
                path.write_bytes(renderer.render(scenario, split))
                written.append(path)
        else:
            writer = FOLDER_WRITERS[name]
            written += writer(scenario, staging, store=kb) if getattr(writer, "needs_store", False) else writer(scenario, staging)
    answers = staging / "answers.json"
    answers.write_bytes(answers_bytes(scenario))
    written.append(answers)
    manifest = {**scenario.manifest(), **extra}
    if reference_from is not None and not removed_only:
        path = staging / "reference.nt"
        with open(path, "wb") as out:
            scenario.reference(reference_from).write_ntriples(out)
        written.append(path)
    elif reference_from is not None:
        # Written whole from an endpoint, R would be its KB streamed to this machine: only what R
        # lacks is written, and the fingerprint names the KB it is taken from.
        path = staging / REMOVED
        with open(path, "wb") as out:
            scenario.reference(reference_from).write_removed(out)
        written.append(path)
        manifest["reference"] = {**manifest["reference"], "file": REMOVED, "kb_fingerprint": scenario.fingerprint,
                                 "is": f"the KB of kb_fingerprint without the triples of {REMOVED}"}
    manifest["files"] = {str(p.relative_to(staging)): _sha256(p) for p in sorted(set(written))}
    (staging / "manifest.json").write_bytes(_json(manifest))
    return manifest


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
