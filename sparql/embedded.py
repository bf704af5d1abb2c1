"""The default backend: an embedded pyoxigraph store, on disk or in memory.

On disk, a factforge store is a directory::

    DIR/oxigraph/     the Oxigraph (RocksDB) database
    DIR/meta.json     what was loaded (file digests, graphs), from which the fingerprint follows
    DIR/cache/        statistics cached by fingerprint
    DIR/access.lock   held shared by every read-only open, exclusively by a read-write one

A directory that is itself an Oxigraph database (made by ``oxigraph load`` or ``serve``) opens
too; it has no load record, so its fingerprint is computed from its content once.

RocksDB locks a database against a second read-write open only: read-only opens (many processes
may read at once) ignore that lock, and a load beside them would change or, when it fails and
restores its snapshot, remove files they read. ``access.lock`` keeps a read-write open (a load)
and read-only ones apart.
"""
from __future__ import annotations

import fcntl
import gc
import json
import os
import shutil
from pathlib import Path
from typing import Iterator

import pyoxigraph as ox

from . import fingerprint as fp
from .interface import Row, Store, StoreError, default_cache_root
from .result_formats import BY_NAME, GRAPH_MEDIA, RESULT_MEDIA
from .terms import Term


class EmbeddedStore(Store):
    kind = "embedded"

    def __init__(self, path: str | os.PathLike | None = None, *, read_only: bool = False):
        self.path = Path(path) if path is not None else None
        self.read_only = read_only
        self._memory_meta: dict = {"loads": []}
        self._fingerprint: str | None = None
        self._lock: int | None = None
        self._db = self._open()

    # --- layout -------------------------------------------------------------------------------
    @property
    def db_path(self) -> Path | None:
        if self.path is None:
            return None
        if (self.path / "CURRENT").exists():  # a bare Oxigraph database
            return self.path
        return self.path / "oxigraph"

    @property
    def is_bare(self) -> bool:
        return self.path is not None and self.db_path == self.path

    def _open(self) -> ox.Store:
        if self.path is None:
            return ox.Store()
        try:
            if self.read_only:
                if not self.db_path.exists():
                    raise StoreError(f"{self.path}: no factforge store here (load something first)")
                self._take_lock()
                return ox.Store.read_only(str(self.db_path))
            self.db_path.mkdir(parents=True, exist_ok=True)
            self._take_lock()
            return ox.Store(str(self.db_path))
        except OSError as error:
            self._release_lock()
            raise StoreError(f"{self.path}: cannot open the store ({error})") from None

    def _take_lock(self) -> None:
        if self._lock is not None or self.is_bare:  # bare: not factforge's folder, nothing of ours goes in
            return
        try:
            fd = os.open(self.path / "access.lock", os.O_RDONLY | os.O_CREAT, 0o644)
        except OSError:
            if not self.read_only:
                raise
            return  # a store this user may only read, loaded before the lock existed: read unguarded
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if self.read_only else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if self.read_only:
                raise StoreError(f"{self.path}: another process is writing to the store (a load); "
                                 f"try again when it is done") from None
            raise StoreError(f"{self.path}: the store is open in another process (a reading command or a "
                             f"server); a load needs it to itself") from None
        self._lock = fd

    def _release_lock(self) -> None:
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def close(self) -> None:
        """Release the database (pyoxigraph closes it when the last reference goes)."""
        self._db = None
        gc.collect()
        self._release_lock()

    def __del__(self, _close=os.close):
        # At interpreter exit the os module may already be torn down: close through the bound function.
        lock = getattr(self, "_lock", None)
        if lock is not None:
            self._lock = None
            _close(lock)

    def reopen(self) -> None:
        self.close()
        self._db = self._open()
        self._fingerprint = None

    @property
    def db(self) -> ox.Store:
        if self._db is None:
            raise StoreError("the store is closed")
        return self._db

    # --- meta and fingerprint -----------------------------------------------------------------
    def meta(self) -> dict:
        if self.path is None:
            return self._memory_meta
        meta_file = self.path / "meta.json"
        if self.is_bare or not meta_file.exists():
            return {"loads": []}
        return json.loads(meta_file.read_text(encoding="utf-8"))

    def write_meta(self, meta: dict) -> None:
        self._fingerprint = None
        if self.path is None:
            self._memory_meta = meta
            return
        if self.is_bare:
            return
        tmp = self.path / "meta.json.tmp"
        tmp.write_text(json.dumps(meta, indent=2, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.path / "meta.json")

    def fingerprint(self) -> str:
        if self._fingerprint is None:
            loads = self.meta().get("loads", [])
            if loads or self.triple_count() == 0:
                self._fingerprint = fp.from_loads(loads)
            else:
                # Content that factforge did not load itself: hash the content.
                self._fingerprint = fp.from_content(self)
        return self._fingerprint

    def cache_dir(self) -> Path:
        if self.path is not None and not self.is_bare:
            own = self.path / "cache"
            # Read-only (the worker processes of one server) still shares the store's own cache,
            # unless this user may not write there.
            if not self.read_only or os.access(own if own.is_dir() else self.path, os.W_OK):
                return own
        return default_cache_root()

    # --- queries --------------------------------------------------------------------------------
    def _query(self, query: str):
        try:
            return self.db.query(query, use_default_graph_as_union=True)
        except SyntaxError as error:
            raise StoreError(f"SPARQL syntax error: {error}") from None
        except OSError as error:
            raise StoreError(f"query failed: {error}") from None

    def select_query(self, query: str) -> Iterator[Row]:
        result = self._query(query)
        if not isinstance(result, ox.QuerySolutions):
            raise StoreError("not a SELECT query")
        names = [v.value for v in result.variables]
        for solution in result:
            row = {}
            for name in names:
                value = solution[name]
                if value is not None:
                    row[name] = value
            yield row

    def ask_query(self, query: str) -> bool:
        result = self._query(query)
        if not isinstance(result, ox.QueryBoolean):
            raise StoreError("not an ASK query")
        return bool(result)

    def construct_query(self, query: str) -> Iterator[ox.Triple]:
        result = self._query(query)
        if not isinstance(result, ox.QueryTriples):
            raise StoreError("not a CONSTRUCT or DESCRIBE query")
        yield from result

    def run_query(self, query: str, result_format: str = "json") -> tuple[bytes, str]:
        result = self._query(query)
        if isinstance(result, ox.QueryTriples):
            rdf_format, media = GRAPH_MEDIA.get(result_format, GRAPH_MEDIA["turtle"])
            return result.serialize(format=rdf_format), media
        if result_format not in RESULT_MEDIA:
            raise StoreError(f"format: {result_format!r} is not one of {', '.join(RESULT_MEDIA)}")
        answer_format = BY_NAME[result_format]
        return result.serialize(format=answer_format.oxigraph), answer_format.media_type

    def triple_count(self) -> int:
        return len(self.db)

    def triples(self) -> Iterator[tuple[Term, ox.NamedNode, Term]]:
        # a plain scan: one ordered query per predicate was ten times slower on disk
        for quad in self.db.quads_for_pattern(None, None, None, None):
            yield quad.subject, quad.predicate, quad.object

    def nquads(self) -> bytes:
        """Every quad as N-Quads: a copy of the store for another process to load."""
        return self.db.dump(format=ox.RdfFormat.N_QUADS) or b""

    def named_graphs(self) -> list[str]:
        return sorted(g.value for g in self.db.named_graphs() if isinstance(g, ox.NamedNode))

    def describe(self) -> dict:
        info = super().describe()
        info.update(path=str(self.path) if self.path else None, graphs=self.named_graphs())
        return info

    # --- writing --------------------------------------------------------------------------------
    def snapshot(self, target: Path) -> None:
        """A cheap copy (hard links) of the database, to restore if a load fails."""
        if target.exists():
            shutil.rmtree(target)
        self.db.flush()
        self.db.backup(str(target))

    def restore(self, snapshot: Path) -> None:
        """Put a snapshot back in place of the database, as it was when taken. Renames first, deletes
        last: a process killed midway leaves the snapshot whole, for the next load to put back."""
        self._db = None  # closed, but still locked against readers until restored
        gc.collect()
        replaced = self.db_path.with_name(self.db_path.name + ".replaced")
        shutil.rmtree(replaced, ignore_errors=True)
        os.replace(self.db_path, replaced)
        os.replace(snapshot, self.db_path)
        shutil.rmtree(replaced, ignore_errors=True)
        self._db = self._open()
        self._fingerprint = None
