"""The KB as sorted N-Triples, built once per KB fingerprint: the text a reference KB R is cut from.

R's dump (``reference.nt``, the claims' ``reference.sorted.nt``) is one distinct triple a line in
code point order, so that the same KB and removals give the same bytes on any machine and a line
number names a triple (the claims' evidence lines). Reading every triple out of the store and
sorting the lines in Python is by far the slowest part of writing R on a big KB, and the result is
the same for every R of one KB: so the KB's own sorted dump is written once into the statistics
cache (``kb.sorted.nt``), with each line's start and a CRC-32 of each line (``kb.sorted.npz``).
R is that file with the removed triples' lines left out: each removed triple's line is found by its
CRC and checked byte for byte, and the rest of the file is copied as it is. A line's number in R
is its number in the KB's dump minus the removed lines before it.
"""
from __future__ import annotations

import mmap
import os
import shutil
import tempfile
import weakref
import zlib
from pathlib import Path
from typing import IO, Iterable

import numpy as np

from .cache import StatsCache, read_npz, write_npz
from .scan import QuadTable, kb_table
from .store import Store

TEXT, INDEX = "kb.sorted.nt", "kb.sorted.npz"
BATCH = 100_000  # lines encoded and written at a time
COPY = 64 << 20  # bytes of the dump handed to one write


class SortedDump:
    """A written dump and its line index: ``starts[i]`` is line i's first byte (``starts[-1]`` the
    file's size); ``crcs`` holds the lines' CRC-32 in ascending order, ``crc_lines`` their line numbers."""

    def __init__(self, folder: Path):
        self.path = folder / TEXT
        # mapped: a claims set looks up a few thousand of the index's lines, not all of them
        index = read_npz(folder / INDEX)
        self.starts, self.crcs, self.crc_lines = index["starts"], index["crcs"], index["crc_lines"]
        if self.path.stat().st_size != int(self.starts[-1]):
            raise ValueError(f"{self.path} does not match its index")

    def __len__(self) -> int:
        return int(self.starts.size - 1)

    def find(self, lines: Iterable[bytes]) -> dict[bytes, int]:
        """The line number of each of ``lines`` (N-Triples lines with their newline) that the dump holds."""
        wanted = sorted(set(lines))
        if not wanted or not len(self):
            return {}
        crcs = np.array([zlib.crc32(line) for line in wanted], dtype=np.uint32)
        lo, hi = np.searchsorted(self.crcs, crcs, "left"), np.searchsorted(self.crcs, crcs, "right")
        found = {}
        with open(self.path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as text:
            for line, a, b in zip(wanted, lo.tolist(), hi.tolist()):
                for number in self.crc_lines[a:b].tolist():  # almost always one: a CRC names few lines
                    if text[self.starts[number]:self.starts[number + 1]] == line:
                        found[line] = number
                        break
        return found

    def write_without(self, skipped: Iterable[int], out: IO[bytes]) -> int:
        """Write the dump without the lines numbered ``skipped``; return the number of lines written."""
        skipped = np.unique(np.fromiter(skipped, dtype=np.int64))
        if not len(self):
            return 0
        kept, position = [], 0  # the byte ranges between the skipped lines
        for line in [*skipped.tolist(), len(self)]:
            end = int(self.starts[line])
            if end > position:
                kept.append((position, end))
            if line < len(self):
                position = int(self.starts[line + 1])
        if not _copied_in_kernel(self.path, kept, out):
            with open(self.path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as text:
                view = memoryview(text)
                try:
                    for start, end in kept:
                        for at in range(start, end, COPY):
                            out.write(view[at:min(at + COPY, end)])
                finally:
                    view.release()
        return len(self) - int(skipped.size)


def _copied_in_kernel(path: Path, kept: list[tuple[int, int]], out: IO[bytes]) -> bool:
    """Copy the byte ranges ``kept`` of ``path`` to ``out`` by ``os.copy_file_range``, when ``out`` is a
    file that takes it: the kernel copies without the bytes coming through this process (a third of
    the CPU of writing them from a map, docs/performance.md). False, with nothing
    written, when it cannot be used (no such call, ``out`` not a file, a pipe, another file system
    on an older kernel): the caller then writes the ranges itself."""
    copy = getattr(os, "copy_file_range", None)
    try:
        target = out.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError and a ValueError
        return False
    if copy is None or not kept:
        return False
    out.flush()
    with open(path, "rb") as handle:
        source, first = handle.fileno(), True
        for start, end in kept:
            while start < end:
                try:
                    done = copy(source, target, end - start, start)
                except OSError:
                    if first:
                        return False
                    raise
                if not done:
                    raise OSError(f"{path}: ended at byte {start}, before its index's {end}")
                start, first = start + done, False
    out.seek(0, os.SEEK_END)  # the file object's position, after the kernel's writes
    return True


def sorted_dump(store: Store) -> SortedDump:
    """The KB's sorted dump, from the cache when this fingerprint has one, else written now: into
    the cache, unless the KB has blank nodes (their labels are the store's own, and another load of
    the same files, with the same fingerprint, has others) or the cache cannot be written; then into
    a folder of its own that goes with the returned object."""
    folder = StatsCache(store).root
    try:
        return SortedDump(folder)
    except (OSError, ValueError, KeyError):
        pass  # missing, or damaged: rebuilt, never trusted
    try:
        folder.mkdir(parents=True, exist_ok=True)
        own = Path(tempfile.mkdtemp(dir=folder, prefix=".dump-"))
    except OSError:
        own = Path(tempfile.mkdtemp(prefix="factforge-dump-"))
    try:
        blank = _build(store, own)
        if not blank and own.parent == folder:
            os.replace(own / TEXT, folder / TEXT)
            os.replace(own / INDEX, folder / INDEX)  # last: a reader trusts the text once its index is there
            shutil.rmtree(own, ignore_errors=True)
            return SortedDump(folder)
        dump = SortedDump(own)
        weakref.finalize(dump, shutil.rmtree, own, True)
        return dump
    except BaseException:
        shutil.rmtree(own, ignore_errors=True)
        raise


def _build(store: Store, folder: Path) -> bool:
    """Write the dump and its index into ``folder``; return whether the KB has blank nodes."""
    table = kb_table(store)
    if table is not None:
        _write(folder, _table_lines(table))
        return False  # a table is never made of a KB with blank nodes
    lines = {f"{s} {p} {o} .\n" for s, p, o in store.triples()}  # a triple in two graphs is one line
    ordered = sorted(lines)
    del lines
    return _write(folder, (ordered[first:first + BATCH] for first in range(0, len(ordered), BATCH)))


def _table_lines(table: QuadTable):
    """The KB's distinct triples as sorted lines, in batches, from the load's quad table: sorted as
    term ranks, not as strings. A line is ``S P O .``: no subject or predicate (an IRI) is a prefix of
    another, and an object that is a prefix of another (``"a"`` of ``"a"@en``) is followed there by a
    character above the space, so ordering by (rank of S, rank of P, rank of O), each term ranked in
    code point order, is ordering the lines."""
    terms = table.terms
    rank = np.empty(len(terms), dtype=np.int64)
    rank[sorted(range(len(terms)), key=terms.__getitem__)] = np.arange(len(terms))
    s, p, o = rank[table.s], rank[table.p], rank[table.o]
    order = np.lexsort((o, p, s))
    s, p, o = s[order], p[order], o[order]
    # a triple in two graphs is one line
    first = np.ones(s.size, dtype=bool)
    first[1:] = (s[1:] != s[:-1]) | (p[1:] != p[:-1]) | (o[1:] != o[:-1])
    by_rank = np.empty(len(terms), dtype=np.int64)
    by_rank[rank] = np.arange(len(terms))
    s, p, o = by_rank[s[first]], by_rank[p[first]], by_rank[o[first]]
    for start in range(0, s.size, BATCH):
        rows = zip(s[start:start + BATCH].tolist(), p[start:start + BATCH].tolist(), o[start:start + BATCH].tolist())
        yield [b"%s %s %s .\n" % (terms[a], terms[b], terms[c]) for a, b, c in rows]


def _write(folder: Path, batches) -> bool:
    """Write sorted lines (``str`` or UTF-8 ``bytes``, in batches) as the dump and its index into
    ``folder``; return whether a line may hold a blank node."""
    starts, crcs = [np.zeros(1, dtype=np.int64)], []
    blank = False
    with open(folder / TEXT, "wb") as out:
        size = 0
        for batch in batches:
            chunk = [line.encode("utf-8") for line in batch] if batch and isinstance(batch[0], str) else batch
            lengths = np.fromiter(map(len, chunk), dtype=np.int64, count=len(chunk))
            starts.append(size + np.cumsum(lengths))
            crcs.append(np.fromiter(map(zlib.crc32, chunk), dtype=np.uint32, count=len(chunk)))
            text = b"".join(chunk)
            # a literal holding " _:" counts too: the dump is then not shared, which is only slower
            blank = blank or text.startswith(b"_:") or b"\n_:" in text or b" _:" in text
            out.write(text)
            size += int(lengths.sum())
    starts, crcs = np.concatenate(starts), np.concatenate(crcs) if crcs else np.zeros(0, dtype=np.uint32)
    order = np.argsort(crcs, kind="stable")
    line_type = np.int32 if crcs.size < 2 ** 31 else np.int64
    write_npz(folder / INDEX, starts=starts, crcs=crcs[order], crc_lines=order.astype(line_type))
    return blank
