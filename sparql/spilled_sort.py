"""Sorting the bindings of one answer without holding them all: sorted runs spilled to temporary files.

An unordered answer is sorted in the client (``remote``) so that every engine gives the same order;
held whole, the rows of the largest predicate of a big KB would take more memory than the body
they came in. Here at most ``run_rows`` bindings are held: each full run is sorted and written to an
anonymous temporary file as JSON lines; reading merges the runs. Sorting is stable and runs are
merged in the order they were written, so the rows come exactly as ``sorted()`` of the whole
answer would give them. Every ``FAN_IN`` runs of one size are merged into one as they come, so that
few files are open at a time.
"""
from __future__ import annotations

import heapq
import json
import tempfile
from typing import IO, Callable, Iterable, Iterator

#: bindings held in memory before a run is written out
RUN_ROWS = 2048
#: runs merged at once
FAN_IN = 256
#: bytes of buffer per run file: every open run holds one while they are merged
RUN_BUFFER = 4096


class SpilledSort:
    def __init__(self, key: Callable[[dict], object], *, run_rows: int = RUN_ROWS, fan_in: int = FAN_IN):
        self.key = key
        self.run_rows = run_rows
        self.fan_in = max(2, fan_in)
        self.rows = 0
        self._run: list[dict] = []
        self._files: list[IO[bytes]] = []
        self._levels: list[int] = []  # of each run in _files: how many merges made it

    def __enter__(self) -> "SpilledSort":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def add(self, binding: dict) -> None:
        self._run.append(binding)
        self.rows += 1
        if len(self._run) >= self.run_rows:
            self._push(self._spill(sorted(self._run, key=self.key)))
            self._run = []

    def _push(self, file: IO[bytes]) -> None:
        """A new run; the last ``fan_in`` runs of one level are merged into one of the next level,
        so that each row is written again only a few times however many runs there are."""
        self._files.append(file)
        self._levels.append(0)
        level = 0
        while self._levels[-self.fan_in:] == [level] * self.fan_in:
            group = self._files[-self.fan_in:]
            merged = self._spill(self._merged(group, []))
            for run in group:
                run.close()
            self._files[-self.fan_in:] = [merged]
            level += 1
            self._levels[-self.fan_in:] = [level]

    def extend(self, bindings: Iterable[dict]) -> None:
        for binding in bindings:
            self.add(binding)

    def __iter__(self) -> Iterator[dict]:
        """The bindings in order; the files are closed once read through."""
        try:
            yield from self._merged(self._files, sorted(self._run, key=self.key))
        finally:
            self.close()

    def _merged(self, files: list[IO[bytes]], last: list[dict]) -> Iterator[dict]:
        if not files:
            return iter(last)
        return heapq.merge(*(_lines(file) for file in files), last, key=self.key)

    def _spill(self, bindings: Iterable[dict]) -> IO[bytes]:
        file = tempfile.TemporaryFile("w+b", buffering=RUN_BUFFER, prefix="factforge-rows-")
        for binding in bindings:
            # ASCII, so that a lone surrogate the answer escaped is written back as it was
            file.write(json.dumps(binding, separators=(",", ":")).encode("ascii") + b"\n")
        file.seek(0)
        return file

    def close(self) -> None:
        for file in self._files:
            file.close()
        self._files, self._levels = [], []


def _lines(file: IO[bytes]) -> Iterator[dict]:
    for line in file:
        yield json.loads(line)
