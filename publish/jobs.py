"""The job runner of scenarios and releases: jobs that every worker process of one server can see.

A job has a key (a scenario id, a release name). ``factforge serve --workers N`` runs N processes on
one socket, so a POST may land on one process and the status poll on another; so a job's claim and
status live in a folder, ``<dir>/<key>.lock`` and ``<dir>/<key>.json`` (``JobFiles``):

* **claim**: the process making a job holds an exclusive ``flock`` on its lock file (created if
  missing) for as long as it works on it. The kernel drops the lock when its process dies, so a
  claim never outlives its maker, and no stale claim has to be broken by hand.
* **run**: ``JobRunner.start`` makes a claimed job on the runner's one worker thread, and records
  how it ended: done, or failed with the error its ``failure`` function describes.
* **publish**: the maker rewrites the status file at each step, by writing a temporary file and
  renaming it over the old one, so readers see one whole status or the next.
* **a dead maker**: a status that still says "queued" or "running" while nobody holds the claim is an
  orphan; ``JobRunner.read`` reports it failed, with what ``failure`` says of ``MakerStopped``, and
  the job may be claimed again.

The runner knows nothing of HTTP: what a failure says to a client (its status code, its words) is
the caller's ``failure`` function (server/job_errors.py).

A job's files are deleted only by a process that holds its claim (``remove``), and ``claim`` checks,
once it has the lock, that the file it locked is still the one at the path. Without that check a
process that opened the lock file just before it was deleted would lock the deleted file while a
third one locked the new file of the same name, and both would believe they own the job. Finished
jobs are removed (a made scenario or release answers for itself), so the folder holds the jobs under
way and recent failures, not one pair of files per job ever asked for.
"""
from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ACTIVE = ("queued", "running")
FAILED_KEPT = 3600.0  # seconds a failed job's status stays readable in other processes' polls
# held() takes a shared lock for an instant; a claim that meets it tries again this often.
CLAIM_TRIES = 20
CLAIM_PAUSE = 0.002
log = logging.getLogger("factforge.jobs")


class Claim:
    """The right to make one job; dropped by release(), or by the kernel when the process ends."""

    def __init__(self, fd: int):
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops its flock
            self._fd = None


class JobFiles:
    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def _lock_path(self, key: str) -> str:
        return str(self.folder / f"{key}.lock")

    def claim(self, key: str, tries: int = CLAIM_TRIES) -> Claim | None:
        """The job's claim, or None while another process (or another claim here) holds it."""
        path = self._lock_path(key)
        for attempt in range(tries):
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as error:
                os.close(fd)
                if error.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if attempt + 1 < tries:
                    time.sleep(CLAIM_PAUSE)
                continue
            if _same_file(fd, path):
                return Claim(fd)
            os.close(fd)  # removed (see remove) between our open and our lock: lock the new file
        return None

    def remove(self, key: str, claim: Claim) -> None:
        """Delete a job's files and drop its claim, which the caller holds (see the module docstring)."""
        try:
            (self.folder / f"{key}.json").unlink(missing_ok=True)
            Path(self._lock_path(key)).unlink(missing_ok=True)  # someone tidying by hand: not our error
        finally:
            claim.release()

    def remove_finished(self, older_than: float = FAILED_KEPT) -> int:
        """Delete the files of jobs nobody is making that were last written more than ``older_than``
        seconds ago (failed ones, and orphans of killed makers); how many jobs went. Also deletes
        status files a process was killed while writing (see ``write``), which nobody reads."""
        cutoff = time.time() - older_than
        for path in self.folder.glob(".*.partial"):
            try:  # a write takes microseconds: one this old has lost its writer
                if path.stat().st_mtime < cutoff:
                    path.unlink()
            except OSError:  # renamed into place or removed meanwhile
                pass
        removed = 0
        for path in sorted(self.folder.glob("*.lock")):
            key = path.stem
            try:
                written = max(p.stat().st_mtime for p in (path, self.folder / f"{key}.json") if p.exists())
            except (OSError, ValueError):  # gone meanwhile
                continue
            if written >= cutoff:
                continue
            claim = self.claim(key, tries=2)  # a held one is being made: no need to wait for it
            if claim is not None:  # nobody is making it now, and nobody can start while we hold this
                self.remove(key, claim)
                removed += 1
        return removed

    def held(self, key: str) -> bool:
        """Whether some process holds the job's claim now."""
        try:
            fd = os.open(self._lock_path(key), os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return False
        except OSError as error:
            if error.errno in (errno.EAGAIN, errno.EACCES):
                return True
            raise
        finally:
            os.close(fd)  # also drops the shared lock, if it was taken

    def working(self) -> int:
        """How many jobs some process holds the claim of now: those being made or waiting their turn."""
        return sum(1 for path in self.folder.glob("*.lock") if self.held(path.stem))

    def write(self, key: str, status: dict) -> None:
        path = self.folder / f"{key}.json"
        partial = self.folder / f".{key}.{os.getpid()}.{threading.get_ident()}.partial"
        partial.write_text(json.dumps(status, sort_keys=True), encoding="utf-8")
        os.replace(partial, path)  # readers see the old status or the new one, never half of one

    def read(self, key: str) -> dict | None:
        """The job's last status as its maker wrote it (``JobRunner.read`` tells orphans apart)."""
        try:
            status = json.loads((self.folder / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):  # missing or unreadable: no status, so the job may be asked for again
            return None
        return status if isinstance(status, dict) else None



class MakerStopped(Exception):
    """What ended a job whose maker's process ended first (killed, or its server stopped)."""


@dataclass(kw_only=True)
class Job:
    """What the runner keeps of one job. A subclass gives its ``key`` and what its status file and
    status answers show (``to_dict``)."""
    status: str = "queued"  # queued → running → done | failed
    error: dict | None = None
    submitted: float = field(default_factory=time.time)
    finished: float | None = None
    future: Future | None = None
    claim: Claim | None = None  # held while this process makes it

    @property
    def key(self) -> str:
        raise NotImplementedError

    def to_dict(self) -> dict:
        raise NotImplementedError


class JobRunner:
    """Jobs made one at a time on a worker thread of this process, their claims and status in
    ``folder`` for every process (see the module docstring). ``failure(key, error)`` says what a job
    that raised ``error`` reports; ``MakerStopped`` for a job whose maker died."""

    def __init__(self, folder: str | os.PathLike, failure: Callable[[str, BaseException], dict], *,
                 thread_name: str = "job"):
        self.files = JobFiles(folder)
        self.failure = failure
        # One thread: the jobs are CPU-bound Python, so more would only share the GIL.
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=thread_name)

    def start(self, job: Job, work: Callable[[Job], None], *,
              answered: Callable[[Job], bool] = lambda job: True) -> Future:
        """Make ``job``, whose claim the caller has taken, on the worker thread: ``work(job)`` does it,
        calling ``publish(job)`` after each step others should see. Once it is done and
        ``answered(job)`` (what it made answers for it from now on, in every process), its files go;
        a failure's stay readable for pollers until ``sweep``."""
        self.publish(job)
        job.future = self._pool.submit(self._run, job, work, answered)
        return job.future

    def publish(self, job: Job) -> None:
        try:
            self.files.write(job.key, job.to_dict())
        except OSError:  # a status others cannot read is a lesser harm than a failed job
            log.warning("could not write the status of job %s", job.key)

    def read(self, key: str) -> dict | None:
        """The job's last status; an orphan (its maker died) reads as failed, with the reason."""
        status = self.files.read(key)
        if status is None or status.get("status") not in ACTIVE or self.files.held(key):
            return status
        # The maker writes its final status before it lets go of the claim: read once more.
        status = self.files.read(key)
        if status is not None and status.get("status") in ACTIVE:
            status = {**status, "status": "failed", "error": self.failure(key, MakerStopped(key))}
        return status

    def sweep(self) -> int:
        """Delete old failures' and dead makers' files (``JobFiles.remove_finished``); how many went."""
        return self.files.remove_finished()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _run(self, job: Job, work: Callable[[Job], None], answered: Callable[[Job], bool]) -> None:
        job.status = "running"
        self.publish(job)
        try:
            work(job)
            job.status = "done"
        except Exception as error:  # every failure is reported on the job, and the runner keeps running
            job.status, job.error = "failed", self.failure(job.key, error)
        finally:
            job.finished = time.time()
            self.publish(job)  # before the claim goes: see read
            if job.claim is not None:
                if job.status == "done" and answered(job):
                    self.files.remove(job.key, job.claim)
                else:
                    job.claim.release()
                job.claim = None


def _same_file(fd: int, path: str) -> bool:
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (mine.st_dev, mine.st_ino) == (now.st_dev, now.st_ino)
