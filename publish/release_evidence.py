"""A release's claims resolved against the R they point into, while ``verify`` streams the archive.

Each evidence item ``[annotation_id, evidence_id, page, line]`` of a claim must name, at 0-based
``line`` of the claims folder's ``reference.sorted.nt``, the triple its ``evidence_triples`` give,
and ``page`` must be that triple's subject. Matching sha256 sums only say the files are the ones the
manifests list; a maker (or anyone who re-lists the sums) could still ship evidence that points at
the wrong lines, which a FEVER scorer would then score against.

Only the lines some claim cites are kept, so R is read as a stream; a release packs ``claims.jsonl``
before ``reference.sorted.nt`` (sorted members), and an archive packed the other way round has its
R held in memory until its claims come.
"""
from __future__ import annotations

import hashlib
import json
from typing import IO

from factforge.claims.reference_dump import DUMP
from factforge.generators.reference_kb import ntriples_line

CLAIMS_FILE = "claims.jsonl"
SHOWN = 20  # problems reported per claims folder before the rest are only counted


class EvidenceLines:
    def __init__(self):
        self._cited: dict[str, dict[int, list[tuple[str, bytes]]]] = {}  # folder → line → (claim, line wanted)
        self._early_dumps: dict[str, list[bytes]] = {}  # folder → R's lines, when R came before its claims
        self._dumps: set[str] = set()
        self._problems: dict[str, list[str]] = {}

    def claims(self, folder: str, data: bytes) -> None:
        """Read the claims of ``folder`` (``<release>/<scenario>/claims``) and what lines they cite."""
        cited = self._cited.setdefault(folder, {})
        where = f"{folder}/{CLAIMS_FILE}"
        for number, text in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
            try:
                record = json.loads(text)
                claim = f"claim {record['id']} ({record.get('lang')})"
                evidence, triples = record["evidence"], record.get("evidence_triples", [])
            except (json.JSONDecodeError, KeyError, TypeError):
                self._problem(folder, f"{where}: line {number} is not a claim record")
                continue
            if record.get("label") == "NOT ENOUGH INFO":
                continue
            for problem in self._cite(cited, claim, evidence, triples):
                self._problem(folder, f"{where}: {claim}: {problem}")
        early = self._early_dumps.pop(folder, None)
        if early is not None:
            self._resolve(folder, iter(early))

    def reference(self, folder: str, handle: IO[bytes]) -> str:
        """Check R's cited lines as it streams by; its sha256."""
        self._dumps.add(folder)
        digest = hashlib.sha256()

        def lines():
            for line in handle:
                digest.update(line)
                yield line

        if folder in self._cited:
            self._resolve(folder, lines())
        else:
            self._early_dumps[folder] = list(lines())
        return digest.hexdigest()

    def problems(self) -> list[str]:
        for folder in sorted(set(self._cited) - self._dumps):
            self._problem(folder, f"{folder}/{CLAIMS_FILE}: its evidence lines cannot be resolved: no "
                                  f"{folder}/{DUMP} in the archive")
        out = []
        for problems in self._problems.values():
            out += problems[:SHOWN]
            if len(problems) > SHOWN:
                out.append(f"... and {len(problems) - SHOWN} more evidence problems there")
        return out

    def _cite(self, cited: dict, claim: str, evidence, triples) -> list[str]:
        if not isinstance(evidence, list) or not isinstance(triples, list) or len(evidence) != len(triples):
            return ["its evidence and evidence_triples are not the same sets"]
        problems = []
        for items, group in zip(evidence, triples):
            if not isinstance(items, list) or not isinstance(group, list) or len(items) != len(group):
                return ["its evidence and evidence_triples are not the same sets"]
            for item, triple in zip(items, group):
                try:
                    _annotation, _evidence_id, page, line = item
                    wanted = ntriples_line((triple["s"], triple["p"], triple["o"]))
                except (ValueError, TypeError, KeyError):
                    problems.append(f"evidence {json.dumps(item)[:120]} is not [annotation, id, page, line] with "
                                    "an s/p/o triple beside it")
                    continue
                if page != triple["s"]:
                    problems.append(f"evidence page {json.dumps(page)[:120]} is not its triple's subject")
                if not isinstance(line, int) or isinstance(line, bool) or line < 0:
                    problems.append(f"evidence line {json.dumps(line)[:40]} is not a line number of {DUMP}")
                    continue
                cited.setdefault(line, []).append((claim, wanted))
        return problems

    def _resolve(self, folder: str, lines) -> None:
        cited = self._cited[folder]
        count = 0
        for count, line in enumerate(lines, 1):
            for claim, wanted in cited.get(count - 1, ()):
                if line != wanted:
                    self._problem(folder, f"{folder}/{CLAIMS_FILE}: {claim}: evidence line {count - 1} of {DUMP} "
                                          f"is {_shown(line)}, not its evidence triple {_shown(wanted)}")
        for line in sorted(n for n in cited if n >= count):
            for claim, _wanted in cited[line]:
                self._problem(folder, f"{folder}/{CLAIMS_FILE}: {claim}: evidence line {line} is past the end "
                                      f"of {DUMP} ({count} lines)")

    def _problem(self, folder: str, text: str) -> None:
        self._problems.setdefault(folder, []).append(text)


def _shown(line: bytes) -> str:
    return json.dumps(line.decode("utf-8", errors="replace").rstrip("\n"), ensure_ascii=False)[:300]
