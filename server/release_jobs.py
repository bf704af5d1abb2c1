"""Releases being made by the server, one at a time on the job runner's thread (publish/jobs.py),
which keeps their status in ``<releases>/.jobs/`` so any worker process of the server can answer it."""
from __future__ import annotations

import atexit
import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from factforge.generators.spec import ScenarioSpec
from factforge.publish import jobs
from factforge.publish import releases as lib
from factforge.sparql.store import Store

from .job_errors import release_failure

log = logging.getLogger("factforge.server")


@dataclass
class ReleaseJob(jobs.Job):
    name: str
    total: int
    done: int = 0

    @property
    def key(self) -> str:
        return self.name

    def to_dict(self) -> dict:
        out = {"name": self.name, "status": self.status, "progress": {"done": self.done, "total": self.total}}
        if self.error:
            out["error"] = self.error
        return out


class ReleaseJobs:
    """Releases being made by this server: one at a time, at most one per name, across processes."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.jobs: dict[str, ReleaseJob] = {}
        self._lock = threading.Lock()
        self.runner = jobs.JobRunner(self.root / lib.JOBS, release_failure(self.root), thread_name="release")
        self.files = self.runner.files
        for name in lib.remove_abandoned(self.root):
            log.warning("removed the unfinished folder of release %s (its maker was killed)", name)
        self.runner.sweep()  # failures kept an hour for pollers, and orphans of killed makers
        atexit.register(self.close)

    def submit(self, store: Store, name: str, specs: list[ScenarioSpec]) -> ReleaseJob:
        with self._lock:
            running = self.jobs.get(name)
            if running is not None and running.status in jobs.ACTIVE:
                raise lib.ReleaseExists(f"name: a release {name!r} is being made now", "name")
            if lib.archive_path(self.root, name).exists():
                raise lib.ReleaseExists(f"name: a release {name!r} exists already; releases are never replaced",
                                        "name")
            job = ReleaseJob(name, total=len(specs))
            job.claim = lib.claim_name(self.root, name)  # ReleaseExists when another process makes it

            def make(job: ReleaseJob) -> None:
                def on_scenario(done: int, _total: int) -> None:
                    job.done = done
                    self.runner.publish(job)

                lib.create_release(store, job.name, specs, self.root, on_scenario=on_scenario,
                                   spec_check=lambda spec: spec, claim=job.claim)  # specs checked before queueing

            # Made, the archive answers for the job from now on, in every process.
            self.runner.start(job, make)
            self.jobs[name] = job
        return job

    def status(self, name: str) -> dict | None:
        """The job's status as this process knows it, or as another process wrote it; None if none."""
        job = self.jobs.get(name)
        return job.to_dict() if job is not None else self.runner.read(name)

    def close(self) -> None:
        self.runner.close()
