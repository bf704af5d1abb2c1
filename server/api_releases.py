"""Frozen releases over HTTP: list, read a manifest, create (with the token), download with an ETag.

Creating a release may take minutes, so it runs on a worker thread of its own; the request waits
at most ``SYNC_WAIT`` seconds and then answers 202 with a status URL. The status is also kept in
``<releases>/.jobs/`` (server/job_files.py), so any worker process of the server can answer it.
"""
from __future__ import annotations

import atexit
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path

from flask import Blueprint, current_app, jsonify, request, send_file, url_for

from factforge.generators.spec import ScenarioSpec
from factforge.sparql.messages import shown
from factforge.sparql.store import Store, StoreError

from . import openapi, releases as lib
from .auth import require_token
from .errors import ApiError, without_folder
from .job_files import JobFiles
from .state import state

releases = Blueprint("releases", __name__)
log = logging.getLogger("factforge.server")

MAX_SCENARIOS = 100  # specs in one release made through the API (config MAX_RELEASE_SCENARIOS)


@dataclass
class ReleaseJob:
    name: str
    total: int
    status: str = "queued"  # queued → running → done | failed
    done: int = 0
    error: dict | None = None
    submitted: float = field(default_factory=time.time)
    future: object = None
    claim: object = None  # the name's claim while this process makes it

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
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="release")
        self.files = JobFiles(self.root / lib.JOBS)
        for name in lib.remove_abandoned(self.root):
            log.warning("removed the unfinished folder of release %s (its maker was killed)", name)
        self.files.remove_finished()  # failures kept an hour for pollers, and orphans of killed makers
        atexit.register(self.close)

    def submit(self, store: Store, name: str, specs: list[ScenarioSpec]) -> ReleaseJob:
        with self._lock:
            running = self.jobs.get(name)
            if running is not None and running.status in ("queued", "running"):
                raise lib.ReleaseExists(f"name: a release {name!r} is being made now", "name")
            if lib.archive_path(self.root, name).exists():
                raise lib.ReleaseExists(f"name: a release {name!r} exists already; releases are never replaced",
                                        "name")
            job = ReleaseJob(name, total=len(specs))
            job.claim = lib.claim_name(self.root, name)  # ReleaseExists when another process makes it
            self._publish(job)
            job.future = self._pool.submit(self._run, job, store, specs)
            self.jobs[name] = job
        return job

    def status(self, name: str) -> dict | None:
        """The job's status as this process knows it, or as another process wrote it; None if none."""
        job = self.jobs.get(name)
        return job.to_dict() if job is not None else self.files.read(name)

    def _publish(self, job: ReleaseJob) -> None:
        try:
            self.files.write(job.name, job.to_dict())
        except OSError:
            log.warning("could not write the status of release %s", job.name)

    def _run(self, job: ReleaseJob, store: Store, specs: list[ScenarioSpec]) -> None:
        job.status = "running"
        self._publish(job)

        def on_scenario(done: int, _total: int) -> None:
            job.done = done
            self._publish(job)

        try:
            lib.create_release(store, job.name, specs, self.root, on_scenario=on_scenario,
                               spec_check=lambda spec: spec, claim=job.claim)  # specs checked before queueing
            job.status = "done"
        except lib.ReleaseExists as error:
            job.status, job.error = "failed", {"status": 409, "error": without_folder(str(error), self.root),
                                               "field": error.field}
        except lib.ReleaseError as error:
            job.status, job.error = "failed", {"status": 422, "error": without_folder(str(error), self.root),
                                               "field": error.field}
        except StoreError as error:
            job.status, job.error = "failed", {"status": 502, "error": f"the store could not answer: {error}"}
        except Exception as error:  # a bug: report it on the status page, keep serving
            log.exception("release %s failed", job.name)
            job.status, job.error = "failed", {"status": 500, "error": f"release failed ({type(error).__name__})"}
        finally:
            self._publish(job)  # before the claim goes: see JobFiles.read
            if job.status == "done":  # the archive answers for the job from now on, in every process
                self.files.remove(job.name, job.claim)
            else:  # a failure stays readable for pollers, until remove_finished
                job.claim.release()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


@releases.record_once
def _setup(setup_state) -> None:
    app = setup_state.app
    app.extensions["factforge.releases"] = ReleaseJobs(Path(app.config["RELEASES_DIR"]))


def _jobs() -> ReleaseJobs:
    return current_app.extensions["factforge.releases"]


def _root() -> Path:
    return Path(current_app.config["RELEASES_DIR"])


def _archive(name: str) -> Path:
    """The archive of a finished release, or 404 (names are checked before they touch the disk)."""
    if not isinstance(name, str) or not lib.NAME_RE.fullmatch(name):
        raise ApiError(404, f"release: no release {shown(name)}", "name")
    path = lib.archive_path(_root(), name)
    if not path.is_file():
        job = _jobs().status(name)
        hint = f" yet (see {url_for('releases.status', name=name)})" if job and job["status"] != "failed" else ""
        raise ApiError(404, f"release: no release {name!r}{hint}", "name")
    return path


def _links(name: str) -> dict:
    return {"self": url_for("releases.release", name=name), "download": url_for("releases.download", name=name)}


@releases.get("/api/releases")
def list_releases():
    items = []
    for item in lib.list_releases(_root()):
        item = {k: v for k, v in item.items() if k != "path"}  # the server's folders are its own business
        if "error" in item:
            item["error"] = without_folder(item["error"], _root())
        if "error" not in item:
            item.update(_links(item["name"]))
        items.append(item)
    return jsonify({"items": items})


@releases.get("/api/releases/<name>")
def release(name: str):
    path = _archive(name)
    try:
        return jsonify(lib.archive_manifest(path))
    except lib.ReleaseError as error:
        reason = without_folder(str(error), _root())
        raise ApiError(500, f"release: the archive of {name!r} is damaged ({reason})") from None


@releases.get("/api/releases/<name>/status")
def status(name: str):
    job = _jobs().status(name) if lib.NAME_RE.fullmatch(name) else None
    if job is None or job["status"] != "done" and lib.archive_path(_root(), name).is_file():
        _archive(name)  # made earlier, or by `factforge release create`: done, or a 404
        return jsonify({"name": name, "status": "done", **_links(name)})
    return jsonify({**job, **_links(name)})


@releases.post("/api/releases")
@require_token
def create():
    data = request.get_json(force=True, silent=True)
    if not isinstance(data, dict):
        raise ApiError(400, 'body: expected a JSON object {"name": ..., "specs": [...]}', "body")
    unknown = sorted(set(data) - {"name", "specs"})
    if unknown:
        raise ApiError(422, f"{unknown[0]}: unknown field (known: name, specs)", unknown[0])
    name, specs = _validated(data)
    try:
        job = _jobs().submit(state().store, name, specs)
    except lib.ReleaseExists as error:
        raise ApiError(409, str(error), error.field) from None
    try:
        job.future.result(timeout=float(current_app.config["SYNC_WAIT"]))
    except FutureTimeout:
        pass
    return _job_response(job)


def _validated(data: dict) -> tuple[str, list[ScenarioSpec]]:
    limit = int(current_app.config.get("MAX_RELEASE_SCENARIOS", MAX_SCENARIOS))
    try:
        name = lib.check_name(data.get("name"))
        if isinstance(data.get("specs"), list) and len(data["specs"]) > limit:
            raise lib.ReleaseError(f"specs: {len(data['specs'])} specs; this server makes at most {limit} per release",
                                   "specs")
        # The server's own rules too: a known predicate, at most MAX_FACTS facts per scenario.
        service = state().scenarios
        specs = lib.parse_specs(data.get("specs"), check=lambda spec: service.parse_spec(spec.to_dict()))
    except lib.ReleaseError as error:
        raise ApiError(422, str(error), error.field) from None
    return name, specs


def _job_response(job: ReleaseJob):
    if job.status == "done":
        manifest = lib.archive_manifest(lib.archive_path(_root(), job.name))
        body = {"name": job.name, "status": "done", "manifest": manifest, **_links(job.name)}
        return jsonify(body), 201, {"Location": url_for("releases.release", name=job.name)}
    if job.status == "failed":
        error = job.error or {}
        raise ApiError(error.get("status", 500), error.get("error", "release failed"), error.get("field"))
    status_url = url_for("releases.status", name=job.name)
    body = {**job.to_dict(), "status_url": status_url, **_links(job.name)}
    return jsonify(body), 202, {"Location": status_url, "Retry-After": "2"}


@releases.get("/releases/<name>.tar.gz")
def download(name: str):
    path = _archive(name)
    return send_file(path, mimetype="application/gzip", as_attachment=True, download_name=f"{name}.tar.gz",
                     etag=lib.archive_sha256(path), conditional=True, max_age=3600)


def _openapi_paths() -> dict:
    # The helpers of openapi.py, so these entries read like the built-in ones.
    name = openapi._path_param("name", "the release name")
    error = openapi._error
    json_response = openapi._json_response
    return {
        "/api/releases": {
            "get": openapi._op("Frozen releases: name, created, KB fingerprint, scenario ids, size, sha256, links", {
                "200": json_response("the list")}),
            "post": openapi._op("Freeze scenarios into a release (token required)", {
                "201": json_response("made; Location names it"),
                "202": json_response("still being made; Location is its status URL"),
                "400": error("body is not a JSON object"), "401": error("no or a wrong token"),
                "409": error("a release of that name exists or is being made"), "413": error("body too large"),
                "422": error("a bad name or spec; `field` names it (specs[1].size)"),
                "502": error("the store could not answer")},
                requestBody={"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["name", "specs"], "additionalProperties": False,
                    "properties": {
                        "name": {"type": "string", "pattern": f"^{lib.NAME_RE.pattern}$"},
                        "specs": {"type": "array", "minItems": 1, "maxItems": MAX_SCENARIOS,
                                  "items": {"$ref": "#/components/schemas/ScenarioSpec"}}}}}}},
                security=[{"token": []}]),
        },
        "/api/releases/{name}": {"get": openapi._op("A release's manifest", {
            "200": json_response("the manifest"), "404": error("no such release")}, parameters=[name])},
        "/api/releases/{name}/status": {"get": openapi._op("Progress of a release being made", {
            "200": json_response("status, progress, error"), "404": error("no such release or job")},
            parameters=[name])},
        "/releases/{name}.tar.gz": {"get": openapi._op("Download a release (ETag = its sha256)", {
            "200": {"description": "the archive", "content": {"application/gzip": {}}},
            "304": {"description": "not modified (If-None-Match)"}, "404": error("no such release")},
            parameters=[name])},
    }


openapi.EXTRA_PATHS.append(_openapi_paths)
