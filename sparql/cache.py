"""Per-KB statistics cached on disk under the KB's fingerprint.

A statistic is computed once per KB content: the fingerprint changes with the content, so a
stale entry is never read, only left behind. Entries are written aside and renamed into place,
so a crash never leaves half a file where a reader would find it.
"""
from __future__ import annotations

import json
import os
import re
import struct
import tempfile
import zipfile
from pathlib import Path
from typing import Callable, TypeVar

T = TypeVar("T")
_KEY = re.compile(r"^[A-Za-z0-9_.-]+$")

# The last few entries read in this process, by path. Entries never change under a path (the
# fingerprint is in it), so a long-running server or a batch of scenarios reads each file once;
# on a big KB one predicate's facts are a large file. Callers must not mutate values.
_MEMO: dict[str, object] = {}
_MEMO_SIZE = 8


def _remember(key: str, value) -> None:
    _MEMO.pop(key, None)
    _MEMO[key] = value
    while len(_MEMO) > _MEMO_SIZE:
        _MEMO.pop(next(iter(_MEMO)))


class StatsCache:
    def __init__(self, store):
        self.root = Path(store.cache_dir()) / store.fingerprint()

    def path(self, key: str) -> Path:
        if not _KEY.match(key):
            raise ValueError(f"cache key {key!r} has characters a file name should not")
        return self.root / f"{key}.json"

    def get(self, key: str):
        path = self.path(key)
        memo_key = str(path)
        if memo_key in _MEMO:
            return _MEMO[memo_key]
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return None
        _remember(memo_key, value)
        return value

    def put(self, key: str, value) -> None:
        path = self.path(key)
        write_json(path, value)
        _remember(str(path), value)

    def get_or_compute(self, key: str, compute: Callable[[], T]) -> T:
        value = self.get(key)
        if value is None:
            value = compute()
            try:
                self.put(key, value)
            except OSError:
                pass  # a read-only cache still answers, it just recomputes next time
        return value


def write_json(path: Path, value) -> None:
    """``value`` as JSON to ``path``, written aside and renamed (a reader never sees half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(value, out, sort_keys=True, separators=(",", ":"))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_npz(path: Path, **arrays) -> None:
    """numpy arrays to ``path`` (uncompressed .npz: read back at disk speed), written aside and renamed."""
    import numpy as np

    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(handle)
    try:
        with open(tmp, "wb") as out:
            np.savez(out, **arrays)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def read_npz(path: Path) -> dict:
    """The arrays of an .npz as read-only maps of the file where numpy can map them (``write_npz``'s
    uncompressed members): the caller reads the pages it touches, not every array whole, which for a
    large KB's line index is most of the cost of a lookup or two. A compressed member, one of objects
    or an empty one is read whole, as ``np.load`` reads it."""
    import numpy as np

    arrays = {}
    with zipfile.ZipFile(path) as archive, open(path, "rb") as raw:
        for info in archive.infolist():
            name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
            mapped = _mapped_member(np, path, raw, info) if info.compress_type == zipfile.ZIP_STORED else None
            if mapped is None:
                with archive.open(info) as member:
                    mapped = np.lib.format.read_array(member, allow_pickle=False)
            arrays[name] = mapped
    return arrays


def _mapped_member(np, path: Path, raw, info: zipfile.ZipInfo):
    """A stored member's array as a map of ``path``, or None when it cannot be one. The member's data
    starts after its local header, whose name and extra field (zip64 sizes) have their own lengths."""
    raw.seek(info.header_offset)
    header = raw.read(30)
    if len(header) < 30 or header[:4] != b"PK\x03\x04":
        return None
    name_length, extra_length = struct.unpack("<HH", header[26:30])
    raw.seek(info.header_offset + 30 + name_length + extra_length)
    version = np.lib.format.read_magic(raw)
    read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    shape, fortran_order, dtype = read_header(raw)
    if dtype.hasobject or not int(np.prod(shape)):
        return None
    return np.memmap(path, dtype=dtype, mode="r", offset=raw.tell(), shape=shape,
                     order="F" if fortran_order else "C")
