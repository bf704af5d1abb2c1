"""Frozen releases over HTTP: list, read a manifest, create (with the token), download with an ETag.

Creating a release may take minutes, so it runs on a worker thread of its own (release_jobs.py);
the request waits at most ``SYNC_WAIT`` seconds and then answers 202 with a status URL.
"""
from __future__ import annotations

from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

from flask import Blueprint, current_app, jsonify, request, send_file, url_for

from factforge.claims.options import CLAIM_CONSTRAINTS
from factforge.publish import releases as lib
from factforge.sparql.messages import shown

from . import openapi
from .auth import require_token
from .errors import ApiError, without_folder
from .release_jobs import ReleaseJob, ReleaseJobs
from .state import state

releases = Blueprint("releases", __name__)

MAX_SCENARIOS = 100  # specs in one release made through the API (config MAX_RELEASE_SCENARIOS)


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


def _validated(data: dict) -> tuple[str, list[dict]]:
    limit = int(current_app.config.get("MAX_RELEASE_SCENARIOS", MAX_SCENARIOS))
    try:
        name = lib.check_name(data.get("name"))
        if isinstance(data.get("specs"), list) and len(data["specs"]) > limit:
            raise lib.ReleaseError(f"specs: {len(data['specs'])} specs; this server makes at most {limit} per release",
                                   "specs")
        # The server's own rules too: a known predicate, at most MAX_FACTS facts per scenario.
        service = state().scenarios
        lib.parse_specs(data.get("specs"), check=lambda spec: service.parse_spec(spec.to_dict()))
    except lib.ReleaseError as error:
        raise ApiError(422, str(error), error.field) from None
    return name, data["specs"]  # as sent, checked: the maker parses them again, claims included


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


def release_spec_schema() -> dict:
    """A release's spec: a scenario spec, and the claims to make of it (the claims knobs, from their table)."""
    schema = openapi.spec_schema()
    knobs = {name: openapi.knob_schema(constraint) for name, constraint in CLAIM_CONSTRAINTS.items()}
    knobs["lang"] = {"oneOf": [knobs["lang"], {"type": "string", "description": "comma-separated"}]}
    claims = {"oneOf": [{"type": "object", "properties": knobs, "additionalProperties": False}, {"type": "boolean",
                                                                                                  "enum": [True]}],
              "description": "also make the scenario's claims (FEVER JSONL, answers, their R) into the release"}
    return schema | {"properties": {**schema["properties"], "claims": claims}}


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
                                  "items": release_spec_schema()}}}}}},
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
