"""Loading knowledge-graph-embedding data sets (head TAB relation TAB tail) into the embedded store.

The TSV files of PyKEEN, LibKGE, CoDEx and DBpedia50 name entities and relations by local name
only. ``load_kge_tsv`` turns every local name into an IRI under a base (``local_to_iri``),
writes the triples to one temporary N-Triples file and hands that to ``loading.load_files``,
so the load is all or nothing and fingerprinted exactly as any RDF load. The load entry records
the TSV files (path and digest) it came from; its ``sha256`` is the digest of the generated
N-Triples, which follows from the TSV content, the bases and the encoding.

Every input line is checked before the store is touched: a bad line raises ``LoadError``
naming the file and the line, and the store stays as it was.
"""
from __future__ import annotations

import io
import json
import os
import re
import string
import tempfile
from pathlib import Path
from typing import Iterable, Iterator

from pyoxigraph import NamedNode
from tqdm import tqdm

from .embedded import EmbeddedStore
from .loading import COMPRESSIONS, LoadError, LoadReport, file_digest, load_files
from .terms import RDF_TYPE, TermError, iri

# ASCII characters an IRI path may hold as they are (RFC 3987 iunreserved, sub-delims, ":@/"),
# which is also what DBpedia writes raw: ( ) , . - ' : & ! / + * @ $ ...  Everything else, i.e.
# controls, space, "#%<>?[\]^`{|} and all non-ASCII characters, is percent-encoded as UTF-8,
# as DBpedia does ("?" and "#" are legal IRI characters, but they would start a query or fragment).
_KEEP = frozenset(string.ascii_letters + string.digits + "-._~!$&'()*+,;=:@/")
_PLAIN = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/]+")
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")


def local_to_iri(base: str, local: str) -> str:
    """``base`` + ``local`` percent-encoded the way DBpedia writes its IRIs.

    Non-ASCII characters become their UTF-8 bytes (``é`` -> ``%C3%A9``); characters that are
    invalid in an IRI (space ``"`` ``<`` ``>`` ``\\`` ``^`` backtick ``{`` ``|`` ``}``) and the
    delimiters ``#`` ``?`` ``[`` ``]`` are encoded too; other ASCII punctuation stays as is. A
    ``%XX`` already in the name is kept (its hex digits upper-cased), never encoded twice; a
    ``%`` that starts no escape becomes ``%25``.
    """
    if not local:
        raise TermError("empty local name")
    if _PLAIN.fullmatch(local):
        return base + local
    out: list[str] = []
    i = 0
    while i < len(local):
        char = local[i]
        if char == "%" and _ESCAPE.match(local, i):
            out.append(local[i:i + 3].upper())
            i += 3
            continue
        if char in _KEEP:
            out.append(char)
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8"))
        i += 1
    return base + "".join(out)


def load_kge_tsv(store: EmbeddedStore, paths: Iterable[str | os.PathLike] | str | os.PathLike, *,
                 entity_base: str, relation_base: str, types: str | os.PathLike | None = None,
                 type_base: str | None = None, graph: str | None = None, progress: bool = True,
                 type_all_entities: bool = False) -> LoadReport:
    """Load head TAB relation TAB tail files into ``store`` (into ``graph`` when given); all or nothing.

    ``types`` is an optional entity TAB type file, or a JSON file mapping entity -> [types]
    (CoDEx's ``entity2types.json``); each pair becomes ``<entity> rdf:type <type_base + type>``
    (``type_base`` defaults to ``entity_base``). Only entities that occur in the triples are
    typed unless ``type_all_entities``: CoDEx's file types all 77,951 CoDEx entities, of which
    CoDEx-S uses 2,034, and typing the rest would fill classes with entities the KB lacks.
    Blank lines are skipped; any other line that is not exactly three non-empty tab-separated
    fields raises ``LoadError`` naming the file and line, before the store is touched.
    """
    if store.read_only:
        raise LoadError("the store is open read-only")
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files = [Path(p) for p in paths]
    if not files:
        raise LoadError("no file to load")
    type_file = Path(types) if types is not None else None
    for path in files + ([type_file] if type_file else []):
        if not path.is_file():
            raise LoadError(f"{path}: {'a folder, not a file' if path.is_dir() else 'no such file'}")
    bases = {
        "entity_base": _base(entity_base, "entity_base"),
        "relation_base": _base(relation_base, "relation_base"),
        "type_base": _base(type_base if type_base is not None else entity_base, "type_base"),
    }
    if graph is not None:
        try:
            iri(graph, field="graph")
        except TermError as error:
            raise LoadError(str(error)) from None

    sources = [{"file": str(p), "sha256": file_digest(p)} for p in files]
    # Written in the order of the files' digests, so that the same files given in any order
    # make the same N-Triples and hence the same fingerprint.
    ordered = [files[i] for i in sorted(range(len(files)), key=lambda i: (sources[i]["sha256"], i))]
    origin = {"file": ", ".join(str(p) for p in files), "format": "kge-tsv", "sources": sources,
              "entity_base": bases["entity_base"], "relation_base": bases["relation_base"]}
    if type_file is not None:
        origin["types"] = {"file": str(type_file), "sha256": file_digest(type_file),
                           "type_base": bases["type_base"], "all_entities": type_all_entities}

    tmp_dir = store.path if store.path is not None and not store.is_bare and store.path.is_dir() else None
    handle = tempfile.NamedTemporaryFile("w", encoding="utf-8", newline="\n", suffix=".nt",
                                         prefix=".kge-load-", dir=tmp_dir, delete=False)
    tmp = Path(handle.name)
    try:
        with handle:
            writer = _Writer(handle, bases)
            for path in ordered:
                writer.triples(path, progress)
            if type_file is not None:
                writer.types(type_file, type_all_entities)
        return load_files(store, [tmp], graph=graph, rdf_format="nt", progress=progress, origin=origin)
    finally:
        tmp.unlink(missing_ok=True)


def _base(value: str, field: str) -> str:
    """A base IRI (or prefix:, e.g. ``dbr:``) validated and expanded."""
    try:
        return iri(value, field=field).value
    except TermError as error:
        raise LoadError(str(error)) from None


class _Writer:
    """Turns TSV lines into N-Triples lines, caching the IRI of each local name."""

    def __init__(self, out: io.TextIOBase, bases: dict[str, str]):
        self.out = out
        self.entity_base = bases["entity_base"]
        self.relation_base = bases["relation_base"]
        self.type_base = bases["type_base"]
        self.cache: dict[tuple[str, str], str] = {}
        self.entities: set[str] = set()

    def iri(self, base: str, local: str, path: Path, number: int) -> str:
        key = (base, local)
        value = self.cache.get(key)
        if value is None:
            value = local_to_iri(base, local)
            try:
                NamedNode(value)
            except ValueError as error:
                where = f"line {number}" if number else "entry"
                raise LoadError(f"{path}: {where}: {local!r} gives no valid IRI ({error})") from None
            self.cache[key] = value
        return value

    def triples(self, path: Path, progress: bool) -> None:
        write = self.out.write
        for number, fields in _tsv_lines(path, progress):
            if len(fields) != 3 or not all(fields):
                raise LoadError(f"{path}: line {number}: expected head TAB relation TAB tail "
                                f"(3 non-empty fields), got {_describe(fields)}")
            head, relation, tail = fields
            self.entities.add(head)
            self.entities.add(tail)
            write(f"<{self.iri(self.entity_base, head, path, number)}> "
                  f"<{self.iri(self.relation_base, relation, path, number)}> "
                  f"<{self.iri(self.entity_base, tail, path, number)}> .\n")

    def types(self, path: Path, all_entities: bool) -> None:
        rdf_type = RDF_TYPE.value
        for number, entity, kind in _type_pairs(path):
            if not all_entities and entity not in self.entities:
                continue
            self.out.write(f"<{self.iri(self.entity_base, entity, path, number)}> <{rdf_type}> "
                           f"<{self.iri(self.type_base, kind, path, number)}> .\n")


def _open_binary(path: Path):
    opener = COMPRESSIONS.get(path.suffix.lower())
    return opener(path, "rb") if opener else open(path, "rb")


def _tsv_lines(path: Path, progress: bool) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of every non-blank line; undecodable text is a LoadError."""
    with open(path, "rb") as raw, tqdm(total=path.stat().st_size, unit="B", unit_scale=True,
                                       desc=f"reading {path.name}", disable=not progress,
                                       leave=False) as bar:
        opener = COMPRESSIONS.get(path.suffix.lower())
        stream = opener(raw) if opener else raw
        seen = 0
        try:
            for number, line in enumerate(stream, 1):
                try:
                    text = line.decode("utf-8").rstrip("\r\n")
                except UnicodeDecodeError as error:
                    raise LoadError(f"{path}: line {number}: not UTF-8 ({error.reason})") from None
                if number % 65536 == 0:
                    position = raw.tell()
                    bar.update(position - seen)
                    seen = position
                if not text.strip():
                    continue
                yield number, text.split("\t")
        except (EOFError, OSError) as error:
            raise LoadError(f"{path}: cannot read ({error})") from None


def _describe(fields: list[str]) -> str:
    if len(fields) != 3:
        return f"{len(fields)} field(s)"
    empty = [name for name, value in zip(("head", "relation", "tail"), fields) if not value]
    return "an empty " + " and ".join(empty)


def _type_pairs(path: Path) -> Iterator[tuple[int, str, str]]:
    """(line number, entity, type) from an entity TAB type file or an entity -> [types] JSON."""
    name = path.name.lower()
    for suffix in COMPRESSIONS:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    if not name.endswith(".json"):
        for number, fields in _tsv_lines(path, False):
            if len(fields) != 2 or not all(fields):
                raise LoadError(f"{path}: line {number}: expected entity TAB type "
                                f"(2 non-empty fields), got {len(fields)} field(s)")
            yield number, fields[0], fields[1]
        return
    try:
        with _open_binary(path) as stream:
            mapping = json.loads(stream.read().decode("utf-8"))
    except json.JSONDecodeError as error:
        raise LoadError(f"{path}: line {error.lineno}: not valid JSON ({error.msg})") from None
    except (UnicodeDecodeError, EOFError, OSError) as error:
        raise LoadError(f"{path}: cannot read ({error})") from None
    if not isinstance(mapping, dict):
        raise LoadError(f"{path}: expected a JSON object mapping entity -> [types]")
    for entity, kinds in mapping.items():
        if isinstance(kinds, str):
            kinds = [kinds]
        if not entity or not isinstance(kinds, list) or not all(isinstance(k, str) and k for k in kinds):
            raise LoadError(f"{path}: entity {entity!r}: expected a list of type names, got {kinds!r}")
        for kind in dict.fromkeys(kinds):
            yield 0, entity, kind

