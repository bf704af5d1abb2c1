"""The scenario folder under a size bound: least recently used scenarios are evicted first.

Every new seed makes a new scenario, and its reference KB R is written the first time someone asks
for it: with no bound, anyone could fill the disk. After writing a scenario or an R, the process
that wrote it evicts finished scenarios, least recently used first, until they fit in the bound.
An evicted scenario is simply made again when asked for: the same KB, spec and seed give the same
bytes, so ids, ETags and every cache stay valid.

Use is kept in two places: exactly, in the memory of the process that served it, and on disk, as
the folder's mtime, set on a scenario's first use in a process and then at most every
``TOUCH_EVERY`` seconds (a syscall on every cached GET would cost a third of the fast path). The
evicting process orders by the later of the two, so with ``--workers N`` the order other processes
saw is known to within that interval.

Pinned scenarios are never evicted:

* one being made or whose R is being written: its job claim is held (publish/jobs.py);
* one a release in the releases folder was built from (its id is in the release's manifest).
  Releases themselves are archives in their own folder, which is never evicted from.

Pinned scenarios alone may exceed the bound.

A scenario's claims sets (``<id>/claims/<key>/``, server/api_claims.py) go before any scenario does,
least recently used first: every distinct set of claims knobs is a new set with its own R dump, so
a client varying a knob would otherwise grow one scenario (pinned while its own set is made) past
the bound, or get the whole scenario evicted for sets nobody asks for again. A set is derived
data: asked for again, it is made again with the same bytes. Removing one claims its scenario's
job key (no maker at work on it) unless the evicting caller holds that key itself.

Eviction is safe against readers in every process: it claims the scenario's job key, so no maker
and no R writer is at work on it; renames its folder away, atomically, so it stops being ready at
once; and only then deletes it (and the evaluations posted for it, counted in its size). A response already reading one of its files keeps its open file to
the end. One process evicts at a time (an flock), so two do not both evict for the same excess.
"""
from __future__ import annotations

import fcntl
import logging
import os
import re
import shutil
import time
import uuid
from pathlib import Path
from typing import Callable

from factforge.publish.jobs import JobFiles

CLAIMS_SETS = "claims"  # <root>/<id>/claims/<key>/: a scenario's claims sets, trimmed before scenarios go
EVALUATIONS = "_evaluations"  # <root>/_evaluations/<id>/: scores posted for a scenario, counted and evicted with it
TOUCH_EVERY = 60.0      # seconds between two writes of one scenario's use to disk, per process
EVICTED = ".evicted"    # <root>/.<id>.<random>.evicted: a folder being deleted
STAGING = ".partial"    # <root>/.<id>.partial: a scenario being written (generators/writers)
DEFAULT_MB = 2048.0
_ID = re.compile(r"sc-[0-9a-f]{20}")
log = logging.getLogger("factforge.server")


class ScenarioDisk:
    def __init__(self, root: Path, jobs: JobFiles, limit_bytes: int,
                 pinned: Callable[[], set[str]] | None = None):
        self.root = Path(root)
        self._root = str(self.root)
        self.jobs = jobs
        self.limit = limit_bytes
        self.pinned = pinned or set
        self._used: dict[str, float] = {}       # id -> last use seen by this process
        self._persisted: dict[str, float] = {}  # id -> when that was last written as the folder's mtime

    def touch(self, scenario_id: str, claims_set: str | None = None) -> None:
        """A use of the scenario, and of its claims set ``claims_set`` (a key) when given."""
        self._mark(scenario_id)
        if claims_set is not None:
            self._mark(f"{scenario_id}/{CLAIMS_SETS}/{claims_set}")

    def _mark(self, name: str) -> None:
        now = time.time()
        self._used[name] = now
        if now - self._persisted.get(name, 0.0) >= TOUCH_EVERY:
            self._persisted[name] = now
            try:
                os.utime(os.path.join(self._root, name))
            except OSError:  # evicted meanwhile: nothing to mark
                pass

    def usage(self) -> list[tuple[float, int, str]]:
        """(last use, bytes, id) of every scenario folder, least recently used first."""
        out = []
        for entry in os.scandir(self._root):
            if _ID.fullmatch(entry.name) and entry.is_dir(follow_symlinks=False):
                try:
                    used = max(entry.stat().st_mtime, self._used.get(entry.name, 0.0))
                    size = _tree_bytes(entry.path) + _tree_bytes(os.path.join(self._root, EVALUATIONS, entry.name))
                    out.append((used, size, entry.name))
                except OSError:  # evicted by another process meanwhile
                    continue
        return sorted(out)

    def claims_sets(self) -> list[tuple[float, int, str]]:
        """(last use, bytes, ``<id>/claims/<key>``) of every claims set, least recently used first."""
        out = []
        for scenario in os.scandir(self._root):
            if not _ID.fullmatch(scenario.name):
                continue
            try:
                entries = list(os.scandir(os.path.join(scenario.path, CLAIMS_SETS)))
            except OSError:  # no claims sets, or evicted meanwhile
                continue
            for entry in entries:
                name = f"{scenario.name}/{CLAIMS_SETS}/{entry.name}"
                try:
                    used = max(entry.stat().st_mtime, self._used.get(name, 0.0))
                    out.append((used, _tree_bytes(entry.path), name))
                except OSError:
                    continue
        return sorted(out)

    def enforce(self, *, holding: str | None = None, keep: str | None = None) -> list[str]:
        """Trim claims sets, then evict unpinned scenarios, least recently used first, until all fit
        in the bound; what went (ids and ``<id>/claims/<key>`` names).

        ``holding``: a scenario whose job claim the caller holds (its sets may go, it may not);
        ``keep``: the claims set (``<id>/claims/<key>``) the caller has just made, never trimmed.
        """
        with open(self.root / ".evict.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # dropped when the file closes
            used = self.usage()
            total = sum(size for _used, size, _id in used)
            if total <= self.limit:
                return []
            evicted = []
            for _used, size, name in self.claims_sets():
                if total <= self.limit:
                    break
                if name != keep and self._trim(name, held=name.split("/", 1)[0] == holding):
                    total -= size
                    evicted.append(name)
            if evicted:  # the scenarios' sizes counted the sets that went
                used = self.usage()
                total = sum(size for _used, size, _id in used)
            pinned = self.pinned()
            for _used, size, scenario_id in used:
                if total <= self.limit:
                    break
                if scenario_id not in pinned and self._evict(scenario_id):
                    total -= size
                    evicted.append(scenario_id)
        if evicted:
            log.info("evicted %d scenario(s) and claims set(s) to keep the scenario folder under %d bytes",
                     len(evicted), self.limit)
        return evicted

    def _trim(self, name: str, *, held: bool) -> bool:
        """Remove the claims set ``<id>/claims/<key>``, renamed away first so readers see all of it or none."""
        scenario_id = name.split("/", 1)[0]
        claim = None if held else self.jobs.claim(scenario_id, tries=1)
        if claim is None and not held:  # a set of it is being made, or its R written
            return False
        try:
            away = self.root / f".{scenario_id}.{uuid.uuid4().hex[:12]}{EVICTED}"
            try:
                os.rename(self.root / name, away)
            except OSError:  # gone already
                return False
        finally:
            if claim is not None:
                claim.release()
        self._used.pop(name, None)
        self._persisted.pop(name, None)
        shutil.rmtree(away, ignore_errors=True)
        return True

    def _evict(self, scenario_id: str) -> bool:
        claim = self.jobs.claim(scenario_id, tries=1)
        if claim is None:  # being made, or its R written: pinned while that lasts
            return False
        away = self.root / f".{scenario_id}.{uuid.uuid4().hex[:12]}{EVICTED}"
        try:
            os.rename(self.root / scenario_id, away)
        except OSError:  # gone already
            claim.release()
            return False
        self.jobs.remove(scenario_id, claim)  # a lock file made by our claim alone would only pile up
        self._used.pop(scenario_id, None)
        self._persisted.pop(scenario_id, None)
        shutil.rmtree(away, ignore_errors=True)
        # Its evaluations answer 404 from now on (their routes check the scenario first): nothing reads them.
        shutil.rmtree(self.root / EVALUATIONS / scenario_id, ignore_errors=True)
        return True

    def remove_abandoned(self) -> list[str]:
        """Delete what killed processes left behind: scenarios half-written (``.<id>.partial``), half an
        R (``<id>/.reference.nt.<pid>.partial``) and half-deleted folders; the names that went.

        Whoever writes a scenario or its R holds the scenario's job claim while it does, so a staging
        file whose claim we can take has no live writer; a folder being deleted has nobody to miss it.
        """
        gone = []
        for entry in os.scandir(self._root):
            name = entry.name
            if name.startswith(".") and name.endswith(EVICTED):
                shutil.rmtree(entry.path, ignore_errors=True)
                gone.append(name)
                continue
            if name.startswith(".") and name.endswith(STAGING) and _ID.fullmatch(name[1:-len(STAGING)]):
                scenario_id, paths = name[1:-len(STAGING)], [Path(entry.path)]
            elif _ID.fullmatch(name) and entry.is_dir(follow_symlinks=False):
                scenario_id, paths = name, list(Path(entry.path).glob(".*.partial"))
            else:
                continue
            if not paths:
                continue
            claim = self.jobs.claim(scenario_id, tries=2)
            if claim is None:  # a live process is writing it
                continue
            try:
                for path in paths:
                    if path.is_dir():
                        shutil.rmtree(path, ignore_errors=True)
                    else:
                        path.unlink(missing_ok=True)
                    gone.append(str(path.relative_to(self.root)))
            finally:
                claim.release()  # the status file, if any, tells pollers its maker stopped; swept later
        return gone


def release_pins(releases_dir: str | os.PathLike | None) -> Callable[[], set[str]]:
    """The ids of the scenarios the releases in ``releases_dir`` were built from (each archive's
    manifest is read once while it is unchanged: publish/releases.py keeps it)."""
    from factforge.publish.releases import SUFFIX, ReleaseError, archive_manifest

    def pinned() -> set[str]:
        root = Path(releases_dir) if releases_dir else None
        ids: set[str] = set()
        for path in sorted(root.glob(f"*{SUFFIX}")) if root is not None and root.is_dir() else []:
            try:
                scenarios = archive_manifest(path).get("scenarios", [])
            except (ReleaseError, OSError):  # damaged or vanished: it pins nothing
                continue
            ids |= {s.get("id") for s in scenarios if isinstance(s, dict)} if isinstance(scenarios, list) else set()
        return ids

    return pinned


def _tree_bytes(path: str) -> int:
    total = 0
    try:
        entries = list(os.scandir(path))
    except FileNotFoundError:
        return 0
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            total += _tree_bytes(entry.path)
        else:
            total += entry.stat(follow_symlinks=False).st_size
    return total
