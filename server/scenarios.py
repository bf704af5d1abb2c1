"""Scenarios the server has made: generated as background jobs, kept on disk by id.

The id is the spec's ``scenario_id`` (KB fingerprint + software version + canonical spec with its
seed), so asking twice for the same thing returns the first answer. Each scenario is written once
with every file renderer (``<root>/<id>/test.tsv`` ...), so a GET is a file read with a stable
ETag. The reference KB R is big and rarely wanted: only the list of removed triples is kept, and R
is written the first time someone asks for it.

Generation runs on the job runner's one worker thread (publish/jobs.py), so request threads stay
free. Jobs are deduplicated by id, across the worker processes of ``factforge serve --workers N``
too: whoever makes a scenario holds its claim and keeps its status in ``<root>/.jobs/``, where every
process reads it. The same claim is held while a scenario's R is written, and pins it against
eviction: the folder is kept under a size bound by server/scenario_disk.py. New jobs are refused
(``Busy``) while ``queue`` jobs are under way in all processes together, so requests for new seeds
cannot pile up work without end.
"""
from __future__ import annotations

import json
import logging
import os
import re
import shutil
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from factforge.generators.scenario import STEPS, generate
from factforge.generators.spec import ScenarioSpec, SpecError
from factforge.generators.writers import RENDERERS, load_all
from factforge.publish import jobs
from factforge.publish.jobs import ACTIVE, Claim
from factforge.publish.scenario_files import write_scenario
from factforge.sparql import __version__, profiles
from factforge.sparql.store import Store

from .job_errors import scenario_failure
from .scenario_disk import DEFAULT_MB, ScenarioDisk

log = logging.getLogger("factforge.server")

REMOVED = "removed.tsv"  # written last: its presence means the scenario folder is complete
REFERENCE = "reference.nt"
REMOVED_REFERENCE = "reference.removed.nt"
FILE_CACHE_ITEM = 4 << 20    # data files up to this size are served from memory
FILE_CACHE_TOTAL = 128 << 20
SWEEP_EVERY = 60.0  # seconds between sweeps of old failures' job files (jobs.FAILED_KEPT) while serving
RETRY_BUSY = 10     # seconds a client refused for a full queue is told to wait
REFERENCE_WAIT = 120.0  # seconds to wait for another process writing the same R before giving up


class Busy(Exception):
    """Not now: the server has as much of this work under way as it takes; ask again in ``retry_after`` s."""

    def __init__(self, message: str, status: int = 429, retry_after: int = RETRY_BUSY):
        super().__init__(message)
        self.message, self.status, self.retry_after = message, status, retry_after


@dataclass
class Job(jobs.Job):
    id: str
    spec: ScenarioSpec
    step: str | None = None
    steps_done: int = 0
    remote: bool = False         # made by another worker process; its status comes from the job file

    @property
    def key(self) -> str:
        return self.id

    def to_dict(self) -> dict:
        out = {"id": self.id, "status": self.status, "step": self.step,
               "progress": {"done": self.steps_done, "total": len(STEPS)},
               "spec": self.spec.to_dict()}
        if self.error:
            out["error"] = self.error
        return out

    def update(self, status: dict) -> "Job":
        """Take over a status another process wrote (see ``to_dict``); what does not parse reads as failed."""
        known = status.get("status") in ("queued", "running", "done", "failed")
        self.status = status["status"] if known else "failed"
        self.step = status.get("step") if isinstance(status.get("step"), str) else None
        error = status.get("error")
        self.error = error if isinstance(error, dict) else None if known else {
            "status": 503, "error": "the job's status could not be read; send the same request again"}
        progress = status.get("progress")
        done = progress.get("done") if isinstance(progress, dict) else None
        self.steps_done = done if isinstance(done, int) else 0
        return self


class ScenarioService:
    def __init__(self, store: Store, root: Path, *, max_facts: int = 20_000, keep_jobs: int = 256,
                 disk_limit: int = int(DEFAULT_MB * (1 << 20)), queue: int | None = None, pinned=None):
        self.store = store
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self._root = str(self.root)
        self.max_facts = max_facts
        self.keep_jobs = keep_jobs
        self.queue = queue  # jobs under way in all processes beyond which new ones are refused; None: no bound
        self.jobs: dict[str, Job] = {}
        self._manifests: dict[str, dict] = {}
        self._files: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._file_bytes = 0
        self._lock = threading.Lock()
        self._reference_lock = threading.Lock()
        self._references = 0  # requests writing an R or waiting to, in this process
        self.runner = jobs.JobRunner(self.root / ".jobs", scenario_failure, thread_name="generate")
        self.job_files = self.runner.files
        self.runner.sweep()
        self.disk = ScenarioDisk(self.root, self.job_files, disk_limit, pinned)
        self.disk.remove_abandoned()
        self._bound()  # the bound may have been lowered since the last start
        self._sweep, self._swept = False, time.monotonic()
        load_all()

    # --- specs -------------------------------------------------------------------------------
    def parse_spec(self, data) -> ScenarioSpec:
        """A validated spec, or SpecError naming the field (unknown predicate included)."""
        spec = ScenarioSpec.from_dict(data)
        total = spec.size + spec.train_size
        if total > self.max_facts:
            field_name = "size" if spec.size > self.max_facts else "train_size"
            raise SpecError(field_name, f"size + train_size is {total}; this server makes at most {self.max_facts} facts")
        try:
            profiles.known_predicate(self.store, spec.predicate)
        except profiles.UnknownPredicate as error:
            raise SpecError("predicate", str(error)) from None
        return spec

    def scenario_id(self, spec: ScenarioSpec) -> str:
        return spec.scenario_id(self.store.fingerprint(), __version__)

    # --- jobs --------------------------------------------------------------------------------
    def submit(self, spec: ScenarioSpec) -> Job:
        """The job making this scenario: a finished one when it is on disk, else queued or running,
        here or in another worker process."""
        scenario_id = self.scenario_id(spec)
        with self._lock:
            job = self._known(scenario_id)
        if job is not None:
            if job.status == "done":
                self.disk.touch(scenario_id)  # asked for again: a use
            return job
        # Outside the lock: a claim held elsewhere is retried for a few ms, and cached GETs share the lock.
        claim = None if self.ready(scenario_id) else self._claim_new(scenario_id)
        with self._lock:
            # Only this process's own jobs now: with the claim in our hands, a dead maker's file
            # would read as running.
            job = self._known(scenario_id, local_only=True)
            if job is not None:  # another thread of this process got here first
                if claim is not None:
                    claim.release()
                return job
            job = Job(scenario_id, spec, claim=claim)
            if self.ready(scenario_id):  # on disk already (perhaps made elsewhere while we claimed)
                if claim is not None:
                    claim.release()
                    job.claim = None
                job.status, job.steps_done, job.finished = "done", len(STEPS), time.time()
                self.disk.touch(scenario_id)
            elif claim is None:  # another process is making it
                job.remote = True
                self._refresh(job)
            else:
                # Made, the scenario on disk answers for the job from now on (status(), api.job), in
                # every process: its files would only pile up, two per scenario ever made.
                self.runner.start(job, self._make, answered=lambda job: self.ready(job.id))
            self.jobs[scenario_id] = job
            self._forget_old_jobs()
        if self._sweep:  # outside the lock, which cached GETs share
            self._sweep, self._swept = False, time.monotonic()
            self.runner.sweep()
        return job

    def _claim_new(self, scenario_id: str) -> Claim | None:
        """The claim to make a scenario not on disk; Busy if it would be one job too many."""
        if self.queue is not None and not self.job_files.held(scenario_id) and self.job_files.working() >= self.queue:
            raise Busy(f"the generation queue is full ({self.queue} scenarios being made or waiting); "
                       f"ask again in {RETRY_BUSY} s")
        return self.job_files.claim(scenario_id)

    def _known(self, scenario_id: str, *, local_only: bool = False) -> Job | None:
        """The job for the id this process knows, if still under way or done; None to start afresh."""
        job = self.jobs.get(scenario_id)
        if job is not None and job.remote and local_only:
            return None
        if job is not None and job.remote:
            self._refresh(job)
        if job is not None and (job.status in ACTIVE or job.status == "done" and self.ready(scenario_id)):
            return job
        return None

    def _refresh(self, job: Job) -> Job:
        """A remote job's status, from the file its maker keeps."""
        if self.ready(job.id):
            job.status, job.steps_done, job.error = "done", len(STEPS), None
            return job
        status = self.runner.read(job.id)
        if status is None:  # its maker has not written yet, or cleared it: nobody finished it
            job.status = "queued" if self.job_files.held(job.id) else "failed"
            if job.status == "failed":
                job.error = {"status": 503, "error": "the scenario was not made; send the same request again"}
            return job
        return job.update(status)

    def status(self, scenario_id: str) -> Job | None:
        """The job for this id as this process knows it or reads it from the job files; None if none."""
        with self._lock:
            job = self.jobs.get(scenario_id)
            if job is not None:
                return self._refresh(job) if job.remote else job
        if not _valid_id(scenario_id):
            return None
        status = self.runner.read(scenario_id)
        if status is None:
            return None
        try:
            spec = ScenarioSpec.from_dict(status.get("spec"))
        except (SpecError, TypeError, ValueError):
            return None
        return self._refresh(Job(scenario_id, spec, remote=True).update(status))

    def wait(self, job: Job, timeout: float) -> Job:
        """Wait up to ``timeout`` seconds for the job to end; it as it is then."""
        if job.future is not None:
            try:
                job.future.result(timeout=timeout)
            except TimeoutError:
                pass
            return job
        deadline = time.monotonic() + timeout
        while job.remote and job.status in ACTIVE and time.monotonic() < deadline:
            time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))
            self._refresh(job)
        return job

    def _forget_old_jobs(self) -> None:
        finished = [j for j in self.jobs.values() if j.status in ("done", "failed")]
        old = sorted(finished, key=lambda j: j.submitted)[:max(0, len(self.jobs) - self.keep_jobs)]
        for job in old:
            del self.jobs[job.id]
        # Old failures, here and in other processes, leave the job files too, now and then.
        if old and time.monotonic() - self._swept >= SWEEP_EVERY:
            self._sweep = True

    def _make(self, job: Job) -> None:
        def on_step(name: str) -> None:
            job.step = name
            job.steps_done += 1
            self.runner.publish(job)

        self._write(generate(self.store, job.spec, on_step=on_step))
        self._bound()  # while the claim is held: the scenario just made is pinned

    def _write(self, scenario) -> None:
        target = self.root / scenario.id
        if target.exists():  # an earlier run died before it finished; start that folder over
            shutil.rmtree(target)
        self._manifests.pop(scenario.id, None)
        write_scenario(scenario, target, sorted(RENDERERS), store=self.store)
        _atomic_write(target / REMOVED, "".join(f"{s}\t{p}\t{o}\n" for s, p, o in scenario.removed).encode())

    # --- finished scenarios ----------------------------------------------------------------------
    def ready(self, scenario_id: str) -> bool:
        # os.path on a str, not pathlib: this runs on every cached GET (server/fastpath.py), and
        # building Path objects was most of the fast path's time.
        return _valid_id(scenario_id) and os.path.isfile(os.path.join(self._root, scenario_id, REMOVED))

    def serving(self, scenario_id: str) -> bool:
        """Whether the scenario is on disk, counting the question as a use of it (see scenario_disk)."""
        if self.ready(scenario_id):
            self.disk.touch(scenario_id)
            return True
        return False

    def folder(self, scenario_id: str) -> Path | None:
        return self.root / scenario_id if self.serving(scenario_id) else None

    def _bound(self) -> None:
        try:
            self.disk.enforce()
        except OSError:  # the bound is kept at the next write; this one is not lost for it
            log.exception("could not evict scenarios from %s", self.root)

    def manifest(self, scenario_id: str) -> dict:
        # A finished scenario never changes, so its manifest is read once.
        cached = self._manifests.get(scenario_id)
        if cached is None:
            cached = json.loads((self.root / scenario_id / "manifest.json").read_text(encoding="utf-8"))
            self._manifests[scenario_id] = cached
        return cached

    def file_bytes(self, scenario_id: str, filename: str) -> bytes | None:
        """A small data file's bytes from memory (cached GETs skip the disk); None for big files."""
        key = (scenario_id, filename)
        with self._lock:
            data = self._files.get(key)
            if data is not None:
                self._files.move_to_end(key)
                return data
        path = self.root / scenario_id / filename
        if path.stat().st_size > FILE_CACHE_ITEM:
            return None
        data = path.read_bytes()
        with self._lock:
            self._files[key] = data
            self._file_bytes += len(data)
            while self._file_bytes > FILE_CACHE_TOTAL:
                _key, dropped = self._files.popitem(last=False)
                self._file_bytes -= len(dropped)
        return data

    def list(self) -> list[dict]:
        out = []
        for path in sorted(self.root.iterdir()) if self.root.is_dir() else []:
            if self.ready(path.name):
                try:
                    manifest = self.manifest(path.name)
                except FileNotFoundError:  # evicted meanwhile
                    continue
                out.append({"id": path.name, "predicate": manifest["spec"]["predicate"], "seed": manifest["seed"],
                            "counts": manifest["counts"]})
        return out

    def reference(self, scenario_id: str) -> Path:
        """R as sorted N-Triples, written on first request (atomically, once). FileNotFoundError when
        the scenario was evicted meanwhile. Through an endpoint this streams and sorts the whole KB
        (once per KB: ``sparql.sorted_dump``); ``removed_reference`` is what R lacks of it."""
        from factforge.generators.reference_kb import ReferenceKB

        return self._reference_file(scenario_id, REFERENCE,
                                    lambda removed, out: ReferenceKB.of(self.store, removed).write_ntriples(out))

    def removed_reference(self, scenario_id: str) -> Path:
        """What R lacks of the KB: the removed triples as sorted N-Triples (``reference.removed.nt``,
        as ``generate --reference`` writes it through an endpoint), written on first request from
        the scenario's list of removed triples, without reading the KB."""
        from factforge.generators.reference_kb import ReferenceKB

        return self._reference_file(scenario_id, REMOVED_REFERENCE,
                                    lambda removed, out: ReferenceKB.of(self.store, removed).write_removed(out))

    def _reference_file(self, scenario_id: str, name: str, write) -> Path:
        folder = self.root / scenario_id
        path = folder / name
        if path.is_file():
            return path
        # Rs are written one at a time; the requests waiting for their turn hold request threads, so
        # they are bounded like the generation queue.
        with self._lock:
            if self.queue is not None and self._references >= self.queue:
                raise Busy(f"{self._references} reference KBs are being written or waiting in this process; "
                           f"ask again in {RETRY_BUSY} s")
            self._references += 1
        try:
            with self._reference_lock:
                # The scenario's claim: one writer in all processes, and the folder pinned while it writes.
                claim = self.claim_waiting(scenario_id)
                try:
                    if not path.is_file():
                        # split at "\n" only: a removed literal (a statement node's) may hold U+2028
                        removed = [tuple(line.split("\t")) for line in
                                   (folder / REMOVED).read_text(encoding="utf-8").split("\n") if line]
                        partial = folder / f".{name}.{os.getpid()}.partial"
                        with open(partial, "wb") as out:
                            write(removed, out)
                        os.replace(partial, path)
                        self._bound()
                finally:
                    self.job_files.remove(scenario_id, claim)
        finally:
            with self._lock:
                self._references -= 1
        return path

    def claim_waiting(self, scenario_id: str) -> Claim:
        deadline = time.monotonic() + REFERENCE_WAIT
        while True:
            claim = self.job_files.claim(scenario_id)
            if claim is not None:
                return claim
            if time.monotonic() >= deadline:
                raise Busy(f"scenario {scenario_id} is being worked on by another process; ask again", 503)
            time.sleep(0.05)

    def close(self) -> None:
        self.runner.close()


_ID = re.compile(r"sc-[0-9a-f]{20}")


def _valid_id(value: str) -> bool:
    return _ID.fullmatch(value) is not None


def _atomic_write(path: Path, data: bytes) -> None:
    partial = path.with_name(f".{path.name}.partial")
    partial.write_bytes(data)
    os.replace(partial, path)
