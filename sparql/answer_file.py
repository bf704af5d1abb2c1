"""An answer written once and then read back in chunks: held in memory while small, on disk beyond.

An endpoint's answer to user-written SPARQL (``factforge query``, ``/sparql`` of ``serve
--endpoint``) can be far larger than memory. It must not reach its reader before it is shown
whole (the endpoint's own cap) and within the row cap, so it cannot be passed on as it arrives;
written here as it is read, it waits on disk instead of in memory, and is then copied out a chunk
at a time.
"""
from __future__ import annotations

import tempfile
from typing import Iterable, Iterator

#: bytes kept in memory before the answer goes to a temporary file
SPOOL_BYTES = 1 << 20
#: bytes read back at a time, and text gathered before a write
CHUNK = 1 << 16


class AnswerFile:
    def __init__(self, media_type: str, *, rows: int | None = None):
        self.media_type = media_type
        self.rows = rows  # rows or triples, where counted
        self.file = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES, prefix="factforge-answer-")

    @classmethod
    def of(cls, data: bytes, media_type: str) -> "AnswerFile":
        answer = cls(media_type)
        answer.file.write(data)
        return answer

    def __enter__(self) -> "AnswerFile":
        return self

    def __exit__(self, kind, *exc) -> None:
        if kind is not None:  # a failed answer is never read
            self.close()

    def write_text(self, pieces: Iterable[str]) -> None:
        """Text pieces (a row each) written as UTF-8, gathered into writes of about ``CHUNK``."""
        held, size = [], 0
        for piece in pieces:
            held.append(piece)
            size += len(piece)
            if size >= CHUNK:
                self.file.write("".join(held).encode("utf-8"))
                held, size = [], 0
        self.file.write("".join(held).encode("utf-8"))

    @property
    def size(self) -> int:
        """Bytes written (ask before reading: it moves to the end)."""
        return self.file.seek(0, 2)

    def chunks(self) -> Iterator[bytes]:
        """The bytes from the start, a chunk at a time; the file is closed once read through (or when
        the reader stops early and closes this generator)."""
        try:
            self.file.seek(0)
            while chunk := self.file.read(CHUNK):
                yield chunk
        finally:
            self.close()

    def file_from_start(self):
        """The file itself, at its start, for a reader of lines or a parser."""
        self.file.seek(0)
        return self.file

    def read(self) -> bytes:
        return b"".join(self.chunks())

    def close(self) -> None:
        self.file.close()
