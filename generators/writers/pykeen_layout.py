"""The PyKEEN layout: a ``pykeen/`` folder of headerless TSV triples with full IRIs.

* ``reference.tsv``: the reference KB R (``scenario.reference``), restricted to what a KGE model
  trains on: its links between entities by non-schema predicates (``ReferenceKB.links``), sorted
  by (head, relation, tail).
* ``train.tsv``, ``test.tsv``: the true facts of each split as ``head relation tail``, the PyKEEN
  convention (``TriplesFactory.from_path``); ``train.tsv`` is empty when there is no train split.
* ``test_labelled.tsv`` (and ``train_labelled.tsv`` with a train split): every fact of the split,
  true and false, in the scenario's order, as ``head relation tail [start end] label`` with
  label 1 or 0; dated scenarios carry start and end. Row *i* is fact ``te{i:05d}`` (``tr…``).

It needs the KB to compute R, so ``write_scenario`` passes the store (``needs_store``) and refuses
the format up front when it was given none (``requires_store``), or when the store is an endpoint
read by neighbourhoods (``whole_kb``: a KGE model trains on every link of R, which only a copy of
the KB holds; ``--endpoint-copy``).
"""
from __future__ import annotations

from pathlib import Path

from ..reference_kb import ReferenceKB

from .base import FOLDER_WRITERS, FormatError, records

FOLDER = "pykeen"
CHUNK = 200_000


def _line(fields) -> str:
    for field in fields:
        if any(c in field for c in "\t\r\n"):
            raise FormatError(f"pykeen: {field!r} has a tab or a line break, which TSV cannot hold")
    return "\t".join(fields) + "\n"


def write_reference_tsv(reference: ReferenceKB, out) -> int:
    """Write R's entity links as TSV to the binary stream ``out``; return the number of rows."""
    entities, predicates = reference.index.entities, reference.index.predicates
    src, pred, dst = reference.links
    for lo in range(0, src.size, CHUNK):
        hi = lo + CHUNK
        out.write("".join(f"{entities[s]}\t{predicates[p]}\t{entities[o]}\n" for s, p, o in
                          zip(src[lo:hi].tolist(), pred[lo:hi].tolist(), dst[lo:hi].tolist())).encode("utf-8"))
    return int(src.size)


def _triples(scenario, split: str) -> bytes:
    rows = [r for r in records(scenario, split) if r["label"]]
    return "".join(_line([r["subject"], r["predicate"], r["object"]]) for r in rows).encode("utf-8")


def _labelled(scenario, split: str) -> bytes:
    lines = []
    for r in records(scenario, split):
        fields = [r["subject"], r["predicate"], r["object"]]
        if scenario.dated:
            fields += [r["start"] or "", r["end"] or ""]
        lines.append(_line(fields + ["1" if r["label"] else "0"]))
    return "".join(lines).encode("utf-8")


def write(scenario, folder: Path, *, store=None) -> list[Path]:
    if store is None:
        raise ValueError("format: 'pykeen' needs the KB to write the reference triples (pass the store)")
    root = Path(folder) / FOLDER
    root.mkdir(parents=True, exist_ok=True)
    written = []
    reference = root / "reference.tsv"
    with open(reference, "wb") as out:
        write_reference_tsv(scenario.reference(store), out)
    written.append(reference)
    for split in ("train", "test"):
        path = root / f"{split}.tsv"
        path.write_bytes(_triples(scenario, split))
        written.append(path)
    for split in ["test"] + (["train"] if scenario.train else []):
        path = root / f"{split}_labelled.tsv"
        path.write_bytes(_labelled(scenario, split))
        written.append(path)
    return written


write.needs_store = True  # write_scenario passes store=...
write.requires_store = True  # ... and refuses up front when it has none
write.whole_kb = True  # ... or when it cannot read every link (writers.check_kb)
FOLDER_WRITERS["pykeen"] = write
