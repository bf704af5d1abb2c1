"""Loading RDF files into the embedded store: all of them, or none.

Files go through pyoxigraph's bulk loader (the fastest path it has), read through a reader that
drives the progress bar and hashes the decompressed bytes for the fingerprint. On disk, the
database is snapshotted first (hard links, nearly free); if any file fails, the snapshot is put
back, so a failed load leaves the store exactly as it was. In memory, the transactional
``Store.load`` gives the same guarantee. A plain N-Triples/N-Quads file loaded on disk is also
read into a quad table (``scan``) by a second thread, for the profiles and the adjacency index.
"""
from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterable

import pyoxigraph as ox
from tqdm import tqdm

from .embedded import EmbeddedStore
from .rdf_files import COMPRESSIONS, LoadError, detect_format
from .terms import TermError, iri

SCAN_WHILE_LOADING = 32 << 20  # bytes: from this size a file's quad table is made during its load
_POSITION = re.compile(r"line (\d+)(?: column (\d+))?")


@dataclass
class LoadReport:
    files: list[dict] = field(default_factory=list)
    triples_before: int | None = None
    triples_after: int | None = None
    seconds: float = 0.0

    @property
    def added(self) -> int | None:
        if self.triples_before is None or self.triples_after is None:
            return None
        return self.triples_after - self.triples_before


class _HashingReader(io.RawIOBase):
    """Reads decompressed bytes, hashing them and advancing a progress bar by raw file position."""

    def __init__(self, path: Path, bar: tqdm | None):
        self._raw = open(path, "rb")
        opener = COMPRESSIONS.get(path.suffix.lower())
        self._stream: BinaryIO = opener(self._raw) if opener else self._raw
        self._bar = bar
        self._seen = 0
        self.sha256 = hashlib.sha256()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self._stream.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        self.sha256.update(data)
        if self._bar is not None:
            position = self._raw.tell()
            self._bar.update(position - self._seen)
            self._seen = position
        return n

    def close(self) -> None:
        self._stream.close()
        self._raw.close()
        super().close()


def _graph_term(graph: str | None):
    if graph is None:
        return None
    try:
        return iri(graph, field="--graph")
    except TermError as error:
        raise LoadError(str(error)) from None


def _syntax_message(path: Path, error: SyntaxError) -> str:
    text = error.msg if getattr(error, "msg", None) else str(error)
    match = _POSITION.search(text)
    where = f"line {match.group(1)}" if match else (f"line {error.lineno}" if error.lineno else "")
    return f"{path}: {where + ': ' if where else ''}{text}"


def file_digest(path: Path) -> str:
    with _HashingReader(path, None) as reader:
        while reader.read(1 << 20):
            pass
        return reader.sha256.hexdigest()


def load_files(store: EmbeddedStore, paths: Iterable[str | os.PathLike], *, graph: str | None = None,
               rdf_format: str | None = None, progress: bool = True, lenient: bool = False,
               origin: dict | None = None, count: bool | None = None, table: bool = True) -> LoadReport:
    """Load RDF files into ``store`` (into ``graph`` when given); all or nothing.

    ``table``: also read plain N-Triples/N-Quads files into a quad table on the side (``scan``);
    without it, the first profile reads the file again (if it is still there) or asks the store.

    ``count`` fills the report's before/after triple counts. By default only in memory: on disk
    each count is a full scan, a noticeable share of the load.
    """
    if count is None:
        count = store.db_path is None
    if store.read_only:
        raise LoadError("the store is open read-only")
    files = [Path(p) for p in paths]
    if not files:
        raise LoadError("no file to load")
    for path in files:
        if not path.is_file():
            raise LoadError(f"{path}: {'a folder, not a file' if path.is_dir() else 'no such file'}")
        if not os.access(path, os.R_OK):
            raise LoadError(f"{path}: not readable")
    plan = [(path, detect_format(path, rdf_format)) for path in files]
    target = _graph_term(graph)
    with _LoadGuard(store) as guard:
        report = LoadReport(triples_before=store.triple_count() if count else None)
        started = time.perf_counter()
        meta = store.meta()
        guard.begin(meta)
        try:
            for path, fmt in plan:
                entry = _load_one(store, path, fmt, target, progress, lenient, table)
                if origin:
                    entry.update(origin)
                report.files.append(entry)
        except BaseException:
            guard.undo()
            raise
        loads = [e for e in meta.get("loads", []) if not any(
            e["sha256"] == f["sha256"] and e.get("graph") == f.get("graph") for f in report.files)]
        meta["loads"] = loads + report.files
        store.write_meta(meta)
        guard.commit()
    report.triples_after = store.triple_count() if count else None
    report.seconds = time.perf_counter() - started
    return report


class _LoadGuard:
    """All or nothing for a load into a store on disk, a SIGKILL included.

    Before a load, the database is snapshotted (``oxigraph.before-load``, hard links) beside a
    record of the store's meta then (``oxigraph.before-load.json``). pyoxigraph's bulk loader merges
    the data batch by batch, from ``bulk-*.sst`` files it writes into the database folder: a load
    killed midway leaves part of its data merged, the rest in those files, and the snapshot. The
    next load finds them (``recover``): if the killed load had not committed (the meta unchanged
    and the record not marked committed: meta.json is the commit, or the record for a bare Oxigraph
    folder that has no meta), the snapshot is put back, so the store is as it was before it;
    otherwise the snapshot is only garbage. The bulk files are garbage either way.

    Nothing here can belong to a live load: the store is open read-write in this process, which
    RocksDB allows one process at a time, and loads also take ``oxigraph.load.lock`` so that none
    slips in while ``restore`` has the database closed. A snapshot is discarded by renaming it
    first, so a half-deleted one is never put back.
    """

    def __init__(self, store: EmbeddedStore):
        self.store = store
        db = store.db_path
        self.on_disk = db is not None
        if self.on_disk:
            self.snapshot = db.parent / (db.name + ".before-load")
            self.record = db.parent / (db.name + ".before-load.json")
            self.discarded = db.parent / (db.name + ".discarded")
            self.lock_path = db.parent / (db.name + ".load.lock")
        self._lock = None

    def __enter__(self):
        if self.on_disk:
            import fcntl

            self._lock = open(self.lock_path, "a")
            try:
                fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                self._lock.close()
                raise LoadError(f"{self.store.path}: another load into this store is under way") from None
            try:
                self.recover()
            except BaseException:
                self._lock.close()
                raise
        return self

    def __exit__(self, *exc):
        if self._lock is not None:
            self._lock.close()  # drops the flock

    def recover(self) -> None:
        """Undo or clear what a killed load left (see the class docstring)."""
        for leftover in self.store.db_path.glob("bulk-*.sst"):
            leftover.unlink(missing_ok=True)
        db = self.store.db_path
        for leftover in (self.discarded, self.snapshot.with_name(self.snapshot.name + ".tmp"),
                         db.with_name(db.name + ".replaced")):
            _remove_tree(leftover)  # a snapshot being discarded, a checkpoint cut short, a database restore replaced
        if self.snapshot.is_dir():
            try:
                saved = json.loads(self.record.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                saved = None  # no record (left by an older factforge): not known to be whole, so not put back
            if isinstance(saved, dict) and not saved.get("committed") and saved.get("meta") == self.store.meta():
                self.store.restore(self.snapshot)
            else:
                self._discard()
        self.record.unlink(missing_ok=True)

    def begin(self, meta: dict) -> None:
        if self.on_disk:
            self._write_record({"meta": meta, "committed": False})
            self.store.snapshot(self.snapshot)

    def undo(self) -> None:
        if self.on_disk:
            self.store.restore(self.snapshot)
            self.record.unlink(missing_ok=True)

    def commit(self) -> None:
        if self.on_disk:
            self._write_record({"committed": True})
            self._discard()
            self.record.unlink(missing_ok=True)

    def _discard(self) -> None:
        _remove_tree(self.discarded)
        if self.snapshot.exists():
            os.replace(self.snapshot, self.discarded)
        _remove_tree(self.discarded)

    def _write_record(self, data: dict) -> None:
        partial = self.record.with_name(self.record.name + ".partial")
        partial.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
        os.replace(partial, self.record)


def _load_one(store: EmbeddedStore, path: Path, fmt: ox.RdfFormat, graph, progress: bool, lenient: bool,
              table: bool = True) -> dict:
    size = path.stat().st_size
    bar = tqdm(total=size, unit="B", unit_scale=True, desc=f"loading {path.name}",
               disable=not progress, leave=False)
    kwargs = dict(format=fmt, base_iri=path.resolve().as_uri(), lenient=lenient)
    if graph is not None and fmt not in (ox.RdfFormat.N_QUADS, ox.RdfFormat.TRIG):
        kwargs["to_graph"] = graph
    # absolute: the quad table is scanned later from this file, by processes started elsewhere
    entry = {"file": os.path.abspath(path), "graph": graph.value if graph else None, "format": fmt.file_extension}
    if lenient:
        entry["lenient"] = True
    try:
        if table and _scans_while_loading(store, path, fmt, lenient):
            entry["sha256"] = _load_and_scan(store, path, fmt, kwargs, entry, bar)
        else:
            entry["sha256"] = _load_read(store, path, kwargs, bar)
    except SyntaxError as error:
        raise LoadError(_syntax_message(path, error)) from None
    except (EOFError, gzip.BadGzipFile, OSError, ValueError) as error:
        raise LoadError(f"{path}: cannot read ({error})") from None
    finally:
        bar.close()
    return entry


def _load_read(store: EmbeddedStore, path: Path, kwargs: dict, bar) -> str:
    reader = _HashingReader(path, bar)
    try:
        buffered = io.BufferedReader(reader, buffer_size=1 << 20)
        if store.db_path is None:
            store.db.load(buffered, **kwargs)
        else:
            store.db.bulk_load(buffered, **kwargs)
    finally:
        reader.close()
    return reader.sha256.hexdigest()


def _scans_while_loading(store: EmbeddedStore, path: Path, fmt: ox.RdfFormat, lenient: bool) -> bool:
    """Plain N-Triples/N-Quads files on disk are also read into a quad table (``scan``), so that
    profiles and the adjacency index need not read the store back (slow on big KBs).
    Small files are left to the first profile, which scans them quickly: here the
    fixed cost (numpy's import, a thread) would be a large share of their load."""
    return (store.db_path is not None and not lenient and path.suffix.lower() not in COMPRESSIONS
            and fmt in (ox.RdfFormat.N_TRIPLES, ox.RdfFormat.N_QUADS) and path.stat().st_size >= SCAN_WHILE_LOADING)


def _load_and_scan(store: EmbeddedStore, path: Path, fmt: ox.RdfFormat, kwargs: dict, entry: dict, bar) -> str:
    """Bulk load from the path (pyoxigraph then holds no GIL) while a thread scans the same file
    on the other core, hashing it and moving the progress bar: the table costs little wall time."""
    from . import scan

    found: dict = {}
    cancelled = threading.Event()

    def step(n: int) -> None:
        if cancelled.is_set():  # the load failed: stop reading at the next chunk
            raise scan.Unsupported("load failed")
        bar.update(n)

    def work():
        try:
            found["table"] = scan.scan(path, fmt, entry["graph"], base_iri=kwargs["base_iri"],
                                       progress=step, digest=found.setdefault("digest", hashlib.sha256()))
        except Exception:  # noqa: BLE001 - the table is an optimization: without it, profiles ask the store
            found.pop("table", None)

    thread = threading.Thread(target=work, name="factforge-scan", daemon=True)
    thread.start()
    try:
        store.db.bulk_load(path=str(path), **kwargs)
    except BaseException:
        cancelled.set()
        raise
    finally:
        thread.join()
    if "table" in found:
        digest = found["digest"].hexdigest()
        try:
            scan.save(found["table"], scan.table_path(store, {**entry, "sha256": digest}))
        except OSError:
            pass  # profiles then scan again, or ask the store
        return digest
    return file_digest(path)  # the scan stopped early (blank nodes): hash the whole file


def _remove_tree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)
