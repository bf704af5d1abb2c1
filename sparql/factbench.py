"""Reading FactBench (AKSW, 1.0) and loading it into the embedded store.

A FactBench split is a folder of Turtle models, one fact per file::

    <split>/correct/<relation>/*.ttl                 true facts
    <split>/wrong/<kind>/<relation>/*.ttl            false facts, kind: domain, range,
                                                      domainrange, property, random, date
    <split>/wrong/mix/<kind>/<relation>/*.ttl        a resampled mix of the kinds above

Each model reifies its fact through a statement node::

    <subject>  <link>     <stmt> .        link: dbo:birth, dbo:death ... in correct models,
    <stmt>     <pred>     <object> .            <http://defacto.aksw.org/bnode/property> in wrong ones
    <stmt>     dbo:from   "1946-07-06"^^xsd:date ; dbo:to ... .
    plus rdfs:label / skos:altLabel (en, de, fr) and owl:sameAs for subject and object.

``read_factbench`` gives one ``FactRecord`` per model. ``load_factbench`` loads every model,
plus its fact as a direct ``<subject> <pred> <object>`` triple, in one all-or-nothing load
through ``loading.load_files``. By default each model goes into its own named graph
(``model_graph``): statement node IRIs are reused across models (``George_W._Bush__1`` is the
node of the correct birth fact and of several wrong ones, with other objects and dates), so in
one graph the models would merge into nonsense. The true/false label is never written into the
store.

Traps in the data, which any consumer must keep away from a classifier: every wrong model links
subject and statement node through ``defacto:bnode/property`` and no correct model does; wrong
models give dates as ``xsd:gYear`` only, correct ones mostly as ``xsd:date`` or ``xsd:gYearMonth``
(so ``start``/``end`` of wrong facts are always year-only strings); date-kind wrong facts have
the same subject, predicate and object as a correct fact and differ only in their years; and
the ``mix`` models repeat facts of the other kinds (738 of 780 files byte for byte).

In the 1.0 test split some ``wrong/domain/subsidiary`` models state a company as its own
subsidiary: the entity node is then also the statement node's object, so both are linked to and
state something; the statement node is the one without labels or sameAs.

Read literally, as here, publicationDate facts point the wrong way: the author is linked to the
statement node, which carries ``dbo:author`` to the book (Isaac Asimov dbo:author The Caves of
Steel). Empty labels (one wrong model has ``""@en``, ``""@de``, ``""@fr``) are left out of
``labels``.
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox
from tqdm import tqdm

from .embedded import EmbeddedStore
from .kge import local_to_iri
from .loading import LoadError, LoadReport, _syntax_message, load_files
from .terms import PREFIXES, TermError, iri

DBO = PREFIXES["dbo"]
FROM = DBO + "from"
TO = DBO + "to"
RDFS_LABEL = PREFIXES["rdfs"] + "label"
DESCRIPTIVE = frozenset({RDFS_LABEL, PREFIXES["skos"] + "altLabel", PREFIXES["owl"] + "sameAs"})
DATES = frozenset({FROM, TO})
XSD = PREFIXES["xsd"]
GRAPH_BASE = "https://w3id.org/factforge/graph/factbench/"

# xsd:date, xsd:gYear, xsd:gYearMonth, xsd:dateTime: the ISO form keeps what the value says
# (year, year-month or day), without time or time zone.
_DATE = re.compile(r"^\s*(-?\d{4,})(?:-(\d\d))?(?:-(\d\d))?(?:T[0-9:.]+)?(?:Z|[+-]\d\d:\d\d)?\s*$")
_DATE_PARTS = {XSD + "gYear": 1, XSD + "gYearMonth": 2, XSD + "date": 3, XSD + "dateTime": 3}


@dataclass
class FactRecord:
    """One FactBench model: a fact, its dates and labels, and whether it is true."""

    subject: str
    predicate: str
    object: str
    start: str | None
    end: str | None
    labels: dict[str, dict[str, str]] = field(default_factory=dict)
    split: str = "train"
    label: bool = True
    kind: str | None = None
    relation: str = ""
    source_file: str = ""


def read_factbench(folder: str | os.PathLike, *, progress: bool = False,
                   skipped: list[str] | None = None) -> list[FactRecord]:
    """Every model under ``folder`` (a split such as ``factbench/train``, or a folder of splits),
    sorted by source file path. A malformed file raises ``LoadError`` naming it (and the line);
    given a ``skipped`` list, its error is appended there instead and the other models are read."""
    bad: list[tuple[Path, str]] | None = [] if skipped is not None else None
    records = [record for record, _, _ in _models(Path(folder), progress, bad)]
    if skipped is not None:
        skipped.extend(message for _, message in bad)
    return records


def load_factbench(store: EmbeddedStore, folder: str | os.PathLike, *, graph: str | None = None,
                   progress: bool = True, correct_only: bool = False,
                   skipped: list[str] | None = None) -> tuple[list[FactRecord], LoadReport]:
    """Read every model under ``folder`` and load them all into ``store``, or none.

    Given a ``skipped`` list, a model that cannot be read is left out and its error appended
    there (the load record names it too); the others are loaded, still all or none.

    ``correct_only`` loads only the true models (every record is still returned): a KB to
    generate scenarios from must not hold FactBench's false facts as direct triples.

    With ``graph`` None each model goes into its own named graph, ``model_graph(record)``;
    with ``graph`` given everything goes into that one graph, where models that share a
    statement node merge. Each model's fact is added as a direct triple beside its reification.
    """
    if store.read_only:
        raise LoadError("the store is open read-only")
    folder = Path(folder)
    if graph is not None:
        try:
            iri(graph, field="graph")
        except TermError as error:
            raise LoadError(str(error)) from None
    tmp_dir = store.path if store.path is not None and not store.is_bare and store.path.is_dir() else None
    handle = tempfile.NamedTemporaryFile("wb", suffix=".nt" if graph is not None else ".nq",
                                         prefix=".factbench-load-", dir=tmp_dir, delete=False)
    tmp = Path(handle.name)
    records: list[FactRecord] = []
    sources = hashlib.sha256()
    bad: list[tuple[Path, str]] | None = [] if skipped is not None else None
    try:
        with handle:
            for index, (record, quads, digest) in enumerate(_models(folder, progress, bad)):
                records.append(record)
                if correct_only and not record.label:
                    continue
                sources.update(f"{_relative(record, folder)}\t{digest}\n".encode())
                fact = ox.Triple(ox.NamedNode(record.subject), ox.NamedNode(record.predicate),
                                 ox.NamedNode(record.object))
                lines = ox.serialize([*quads, fact], format=ox.RdfFormat.N_TRIPLES)
                if b"_:" in lines:  # blank nodes: make their ids stable and distinct between models
                    lines = ox.serialize([*_rename_blank_nodes(quads, index), fact],
                                         format=ox.RdfFormat.N_TRIPLES)
                if graph is None:
                    # An N-Triples line ends in " .\n" and nowhere else (literals escape line
                    # breaks), so this puts every triple of the model into its graph.
                    lines = lines.replace(b" .\n", f" <{model_graph(record)}> .\n".encode())
                handle.write(lines)
        origin = {"file": str(folder), "format": "factbench", "correct_only": correct_only,
                  "models": sum(r.label for r in records) if correct_only else len(records),
                  "sources_sha256": sources.hexdigest(),
                  "graphs": graph if graph is not None else GRAPH_BASE + "<split>/<model path>"}
        if bad:
            origin["skipped"] = [path.relative_to(folder).as_posix() for path, _ in bad]
        report = load_files(store, [tmp], graph=graph, rdf_format="nt" if graph is not None else "nq",
                            progress=progress, origin=origin)
    finally:
        tmp.unlink(missing_ok=True)
    if skipped is not None:
        skipped.extend(message for _, message in bad)
    return records, report


def model_graph(record: FactRecord, base: str = GRAPH_BASE) -> str:
    """The named graph of one model: ``base`` + split/correct|wrong/[mix/]kind/relation/file."""
    parts = [record.split, "correct" if record.label else "wrong"]
    if not record.label:
        parts += record.kind.split("/")
    parts += [record.relation, Path(record.source_file).stem]
    return base + "/".join(local_to_iri("", part) for part in parts)


def year(value: str | None) -> int | None:
    """The year of a ``start``/``end`` string; compare facts at this grain, since the wrong
    models give years only and the correct ones mostly full dates."""
    if value is None:
        return None
    return int(re.match(r"-?\d+", value).group())


# --- reading ---------------------------------------------------------------------------------

def is_factbench_folder(folder: Path) -> bool:
    """Whether ``folder`` looks like a FactBench split (correct/, wrong/) or a folder of splits."""
    folder = Path(folder)
    return folder.is_dir() and any(
        (base / name).is_dir() for base in [folder, *(p for p in folder.iterdir() if p.is_dir())]
        for name in ("correct", "wrong"))


def _model_files(folder: Path, bad: list[tuple[Path, str]] | None = None) -> list[tuple[Path, tuple[str, ...], str]]:
    """(file, parts below the split, split name) of every model, sorted by path; with ``bad``,
    a file outside the layout is listed there instead of raising."""
    if not folder.is_dir():
        raise LoadError(f"{folder}: no such folder")
    found = []
    for path in folder.rglob("*.ttl"):
        parts = path.relative_to(folder).parts
        if parts[0] in ("correct", "wrong"):
            found.append((path, parts, folder.name))
        elif len(parts) > 1 and parts[1] in ("correct", "wrong"):
            found.append((path, parts[1:], parts[0]))
        else:
            message = f"{path}: not in the FactBench layout (<split>/correct|wrong/...)"
            if bad is None:
                raise LoadError(message)
            bad.append((path, message))
    if not found:
        raise LoadError(f"{folder}: no FactBench model (*.ttl) here")
    found.sort(key=lambda item: item[0].relative_to(folder).as_posix())
    return found


def _classify(path: Path, parts: tuple[str, ...]) -> tuple[bool, str | None, str]:
    """(label, kind, relation) from the folders: correct/<rel>/f, wrong/<kind>/<rel>/f,
    wrong/mix/<kind>/<rel>/f."""
    if parts[0] == "correct" and len(parts) == 3:
        return True, None, parts[1]
    if parts[0] == "wrong" and len(parts) == 4 and parts[1] != "mix":
        return False, parts[1], parts[2]
    if parts[0] == "wrong" and len(parts) == 5 and parts[1] == "mix":
        return False, f"mix/{parts[2]}", parts[3]
    raise LoadError(f"{path}: not in the FactBench layout (correct/<relation>/, wrong/<kind>/<relation>/ "
                    f"or wrong/mix/<kind>/<relation>/)")


def _models(folder: Path, progress: bool, bad: list[tuple[Path, str]] | None = None):
    """(record, quads, sha256 of the file) of every model, in path order. A model that cannot be
    read raises ``LoadError``; with ``bad``, it is listed there (path, error) and left out."""
    files = _model_files(folder, bad)
    root = folder.resolve()
    read = 0
    for path, parts, split in tqdm(files, desc="reading FactBench", unit="file", disable=not progress,
                                   leave=False):
        try:
            model = _model(path, parts, split, (root / path.relative_to(folder)).as_uri())
        except LoadError as error:
            if bad is None:
                raise
            bad.append((path, str(error)))
            continue
        read += 1
        yield model
    if not read and bad:
        raise LoadError(f"{folder}: no FactBench model could be read ({len(bad)} skipped: {bad[0][1]})")


def _model(path: Path, parts: tuple[str, ...], split: str, base: str):
    label, kind, relation = _classify(path, parts)
    try:
        data = path.read_bytes()
        quads = list(ox.parse(data, format=ox.RdfFormat.TURTLE, base_iri=base))
    except SyntaxError as error:
        raise LoadError(_syntax_message(path, error)) from None
    except (OSError, ValueError) as error:
        raise LoadError(f"{path}: cannot read ({error})") from None
    record = _record(path, quads, split=split, label=label, kind=kind, relation=relation)
    return record, quads, hashlib.sha256(data).hexdigest()


def _record(path: Path, quads: list[ox.Quad], **folders) -> FactRecord:
    def bad(message: str) -> LoadError:
        return LoadError(f"{path}: not a FactBench model: {message}")

    outgoing: dict = {}   # node -> its triples other than labels, sameAs and dates
    dates: dict = {}      # node -> {dbo:from: [values], dbo:to: [values]}
    incoming: dict = {}   # node -> triples pointing at it, other than labels and sameAs
    described = set()     # nodes with a label, an altLabel or a sameAs: entities
    labels: dict[str, dict[str, str]] = {}
    for q in quads:
        predicate = q.predicate.value
        if predicate in DESCRIPTIVE:
            described.add(q.subject)
            if (predicate == RDFS_LABEL and isinstance(q.object, ox.Literal) and q.object.language
                    and q.object.value.strip()):  # one wrong model has ""@en, ""@de, ""@fr
                labels.setdefault(q.subject.value, {}).setdefault(q.object.language, q.object.value)
            continue
        if predicate in DATES:
            dates.setdefault(q.subject, {}).setdefault(predicate, []).append(q.object)
            continue
        outgoing.setdefault(q.subject, []).append(q)
        if q.object != q.subject:
            incoming.setdefault(q.object, []).append(q)
    # The statement node: linked to from another node, and itself stating the fact. Where the
    # fact's object is its subject too (FactBench 1.0's test split states companies as their own
    # subsidiaries), the entity is linked to and states the link as well; the statement node is
    # then the one that is not described, as entities are in every model.
    candidates = [node for node in outgoing if node in incoming]
    statements = [node for node in candidates if node not in described] if len(candidates) > 1 else candidates
    if len(statements) != 1:
        raise bad(f"expected one statement node (linked to, and stating a fact), found {len(candidates)}")
    statement = statements[0]
    links, facts = incoming[statement], outgoing[statement]
    if len(links) != 1:
        raise bad(f"expected one link to the statement node, found {len(links)}")
    if len(facts) != 1:
        raise bad(f"expected one fact on the statement node, found {len(facts)}")
    subject, fact = links[0].subject, facts[0]
    if not isinstance(subject, ox.NamedNode) or not isinstance(fact.object, ox.NamedNode):
        raise bad("the subject and object of the fact must be IRIs")
    when = {}
    for name in DATES:
        values = dates.get(statement, {}).get(name, [])
        if len(values) > 1:
            raise bad(f"{len(values)} values of <{name}>")
        when[name] = _iso(path, values[0]) if values else None
    return FactRecord(subject=subject.value, predicate=fact.predicate.value, object=fact.object.value,
                      start=when[FROM], end=when[TO], labels=labels, source_file=str(path), **folders)


def _rename_blank_nodes(quads: list[ox.Quad], index: int) -> list[ox.Quad]:
    """Stable blank node ids (the parser draws random ones), distinct between models."""
    names: dict[ox.BlankNode, ox.BlankNode] = {}

    def rename(term):
        if isinstance(term, ox.BlankNode):
            if term not in names:
                names[term] = ox.BlankNode(f"fb{index}n{len(names)}")
            return names[term]
        return term

    return [ox.Quad(rename(q.subject), q.predicate, rename(q.object)) for q in quads]


def _iso(path: Path, term) -> str:
    """An xsd:date / gYearMonth / gYear / dateTime literal as ``YYYY-MM-DD`` / ``YYYY-MM`` / ``YYYY``."""
    match = _DATE.match(term.value) if isinstance(term, ox.Literal) else None
    if match is None:
        raise LoadError(f"{path}: not a FactBench model: {term} is not a date")
    year_, month, day = match.groups()
    given = 1 + (month is not None) + (day is not None)
    wanted = _DATE_PARTS.get(term.datatype.value, given)
    if given < wanted:
        raise LoadError(f"{path}: not a FactBench model: {term} does not match its datatype")
    return "-".join([year_, month, day][:wanted])


def _relative(record: FactRecord, folder: Path) -> str:
    return Path(record.source_file).relative_to(folder).as_posix()
