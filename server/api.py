"""The scenario API: the KB and its predicates, scenarios made on request, their jobs and files."""
from __future__ import annotations

import os

from flask import Blueprint, Response, current_app, jsonify, request, send_file, url_for

from factforge.claims.templates import available as claim_languages
from factforge.generators.spec import SpecError
from factforge.generators.writers import RENDERERS
from factforge.sparql import __version__, profiles
from factforge.sparql.messages import shown
from factforge.sparql.terms import TermError, iri

from .errors import ApiError, error_response, log
from .negotiation import choose
from .scenarios import Busy
from .state import state

api = Blueprint("api", __name__, url_prefix="/api")

FUNCTIONALITIES = ("1-1", "1-N", "N-1", "N-N")
SORTS = {"facts": lambda p: (-p["facts"], p["name"]), "name": lambda p: p["name"],
         "subjects": lambda p: (-p["subjects"], p["name"]), "objects": lambda p: (-p["objects"], p["name"])}


def _int_arg(name: str, default: int, low: int, high: int) -> int:
    raw = request.args.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(400, f"{name}: {shown(raw)} is not a whole number", name) from None
    if not low <= value <= high:
        raise ApiError(400, f"{name}: must be between {low} and {high}", name)
    return value


def _bool_arg(name: str, default: bool) -> bool:
    raw = request.args.get(name)
    if raw is None:
        return default
    if raw.lower() in ("1", "true", "yes"):
        return True
    if raw.lower() in ("0", "false", "no"):
        return False
    raise ApiError(400, f"{name}: {shown(raw)} is not true or false", name)


@api.get("/kb")
def kb():
    st = state()
    profile = profiles.kb_profile(st.store)
    return jsonify({"fingerprint": profile["fingerprint"], "triples": profile["triples"],
                    "typed_entities": profile["typed_entities"], "predicates": profile["predicates"],
                    "backend": _public(st.store.describe()), "software": {"name": "factforge", "version": __version__},
                    "limits": {"sparql_timeout_s": st.runner.timeout, "sparql_row_cap": st.runner.row_cap,
                               "sparql_workers": st.runner.workers, "sparql_queue": st.runner.queue_size,
                               "sparql_memory_mb": st.runner.memory_mb,
                               "sparql_max_query_length": st.runner.limits.max_length,
                               "sparql_max_depth": st.runner.limits.max_depth,
                               "max_facts": st.scenarios.max_facts, **st.runner.load()},
                    "claims": {"languages": claim_languages()}})


def _public(backend: dict) -> dict:
    """What a client may know of the backend: not where the store lies on the server's disk."""
    return {key: value for key, value in backend.items() if key != "path"}


@api.get("/predicates")
def predicates():
    items = profiles.kb_profile(state().store)["profiles"]
    text = request.args.get("q", "").lower()
    functionality = request.args.get("functionality")
    if functionality is not None and functionality not in FUNCTIONALITIES:
        raise ApiError(400, f"functionality: {shown(functionality)} is not one of {', '.join(FUNCTIONALITIES)}",
                       "functionality")
    sort = request.args.get("sort", "facts")
    if sort not in SORTS:
        raise ApiError(400, f"sort: {shown(sort)} is not one of {', '.join(SORTS)}", "sort")
    min_facts = _int_arg("min_facts", 0, 0, 2**53)
    schema = _bool_arg("schema", False)
    limit = _int_arg("limit", 50, 1, 1000)
    offset = _int_arg("offset", 0, 0, 2**53)
    chosen = [p for p in items
              if (schema or not p["schema"]) and p["facts"] >= min_facts
              and (functionality is None or p["functionality"] == functionality)
              and (not text or text in p["name"].lower() or text in p["predicate"].lower())]
    chosen.sort(key=SORTS[sort])
    return jsonify({"total": len(chosen), "offset": offset, "limit": limit, "items": chosen[offset:offset + limit]})


@api.get("/predicates/<path:name>")
def predicate(name: str):
    try:
        value = iri(name, field="predicate").value
    except TermError as error:
        raise ApiError(400, str(error), "predicate") from None
    try:
        return jsonify(profiles.predicate_profile(state().store, value))
    except profiles.UnknownPredicate as error:
        raise ApiError(404, str(error), "predicate") from None


# --- scenarios -----------------------------------------------------------------------------------
@api.post("/scenarios")
def create_scenario():
    st = state()
    data = request.get_json(force=True, silent=True)
    if data is None:
        raise ApiError(400, "body: not valid JSON (send a JSON object with the spec's fields)", "body")
    try:
        spec = st.scenarios.parse_spec(data)
    except SpecError as error:
        raise ApiError(422, str(error), error.field) from None
    job = st.scenarios.wait(st.scenarios.submit(spec), current_app.config["SYNC_WAIT"])
    return _job_response(job)


@api.errorhandler(Busy)
def _busy(error: Busy):
    return error_response(error.status, error.message, headers={"Retry-After": str(error.retry_after)})


@api.errorhandler(FileNotFoundError)
def _evicted(error: FileNotFoundError):
    # A finished scenario's file, checked on disk just before, that vanished in between was evicted
    # (server/scenario_disk.py); it is made again on request. Any other missing file is our fault.
    if not str(error.filename or "").startswith(str(state().scenarios.root) + os.sep):
        log.error("missing file", exc_info=error)
        return error_response(500, f"internal error ({type(error).__name__}); the server log has the details")
    return error_response(404, "scenario: its files went while being read (evicted to keep the scenario "
                               "folder under its bound); POST its spec to /api/scenarios to make it again", "id")


def _job_response(job):
    location = url_for("api.scenario", scenario_id=job.id)
    if job.status == "done":
        body = _scenario_body(job.id)
        return jsonify(body), 201, {"Location": location}
    if job.status == "failed":
        error = job.error or {}
        raise ApiError(error.get("status", 500), error.get("error", "generation failed"), error.get("field"))
    status_url = url_for("api.job", job_id=job.id)
    body = {**job.to_dict(), "status_url": status_url, "scenario_url": location}
    return jsonify(body), 202, {"Location": status_url, "Retry-After": "1"}


def _scenario_body(scenario_id: str) -> dict:
    manifest = state().scenarios.manifest(scenario_id)
    base = url_for("api.scenario", scenario_id=scenario_id)
    splits = ["test"] + (["train"] if manifest["counts"]["train"]["true"] + manifest["counts"]["train"]["false"] else [])
    links = {name: {split: f"{base}?format={name}&split={split}" for split in splits} for name in sorted(RENDERERS)}
    body = {"id": scenario_id, "status": "done", "manifest": manifest,
            "links": {"self": base, "answers": f"{base}/answers", "reference": f"{base}/reference",
                      "reference_removed": f"{base}/reference/removed",
                      "manifest": f"{base}/manifest", "data": links,
                      "claims": {"fever": f"{base}?format=fever", **{part: f"{base}/claims/{part}" for part in
                                                                    ("answers", "manifest", "reference")}}}}
    if not state().scenarios.store.whole_index:
        # the plain reference link answers 409 here: R in full is the whole KB read through this server
        body["links"]["reference_whole"] = f"{base}/reference?whole=true"
    return body


@api.get("/scenarios")
def list_scenarios():
    return jsonify({"items": state().scenarios.list()})


@api.get("/jobs/<job_id>")
def job(job_id: str):
    found = state().scenarios.status(job_id)
    if found is None:
        if state().scenarios.ready(job_id):
            return jsonify({**_scenario_body(job_id), "scenario_url": url_for("api.scenario", scenario_id=job_id)})
        raise ApiError(404, f"job: no job {shown(job_id)} (jobs are kept while the server runs)", "job")
    body = {**found.to_dict(), "scenario_url": url_for("api.scenario", scenario_id=job_id)}
    if found.status == "done" and state().scenarios.ready(job_id):
        body.update(_scenario_body(job_id))  # what the 201 would have said, so a poller needs no second POST
    return jsonify(body)


def _folder(scenario_id: str):
    st = state()
    folder = st.scenarios.folder(scenario_id)
    if folder is None:
        pending = st.scenarios.status(scenario_id)
        if pending is not None and pending.status in ("queued", "running"):
            raise ApiError(409, f"scenario {scenario_id} is still being made; see {url_for('api.job', job_id=scenario_id)}",
                           headers={"Retry-After": "1"})
        raise ApiError(404, f"scenario: no scenario {shown(scenario_id)}; POST a spec to /api/scenarios", "id")
    return folder


def scenario_offers() -> list[tuple[str, str]]:
    """(media type, format name) pairs for scenario data; server/fastpath.py negotiates from the same list."""
    offers = [(RENDERERS["json"].media_type, "json"), ("application/json", "json")]
    offers += [(r.media_type, name) for name, r in sorted(RENDERERS.items()) if name != "json"]
    return offers


#: formats made on request rather than written with the scenario (format name → view of the scenario id)
FORMAT_HANDLERS: dict = {}


@api.get("/scenarios/<scenario_id>")
def scenario(scenario_id: str):
    handler = FORMAT_HANDLERS.get(request.args.get("format"))
    if handler is not None:
        return handler(scenario_id)
    folder = _folder(scenario_id)
    name = choose(scenario_offers(), "json")
    split = request.args.get("split", "test")
    if split not in ("test", "train"):
        raise ApiError(400, f"split: {shown(split)} is not test or train", "split")
    manifest = state().scenarios.manifest(scenario_id)
    filename = f"{split}.{RENDERERS[name].extension}"
    if filename not in manifest["files"]:
        raise ApiError(404, f"split: scenario {scenario_id} has no {split} split", "split")
    data = state().scenarios.file_bytes(scenario_id, filename)
    if data is None:
        response = send_file(folder / filename, mimetype=RENDERERS[name].media_type,
                             etag=manifest["files"][filename], conditional=True, max_age=31536000)
    else:
        response = Response(data, mimetype=RENDERERS[name].media_type)
        response.set_etag(manifest["files"][filename])
        response.cache_control.public = True
        response.cache_control.max_age = 31536000
        response.make_conditional(request)
    response.headers["Vary"] = "Accept"
    response.headers["Content-Disposition"] = f'inline; filename="{scenario_id}-{filename}"'
    return response


@api.get("/scenarios/<scenario_id>/answers")
def answers(scenario_id: str):
    folder = _folder(scenario_id)
    digest = state().scenarios.manifest(scenario_id)["files"]["answers.json"]
    return send_file(folder / "answers.json", mimetype="application/json", etag=digest, conditional=True)


@api.get("/scenarios/<scenario_id>/manifest")
def manifest(scenario_id: str):
    folder = _folder(scenario_id)
    return send_file(folder / "manifest.json", mimetype="application/json", conditional=True)


@api.get("/scenarios/<scenario_id>/reference")
def reference(scenario_id: str):
    """R in full. From an endpoint that is its whole KB streamed and sorted here, so only when asked
    for by ``whole``; otherwise 409 pointing at what R lacks of the KB."""
    _folder(scenario_id)
    scenarios = state().scenarios
    if not _bool_arg("whole", scenarios.store.whole_index):
        removed = url_for("api.removed_reference", scenario_id=scenario_id)
        cost = "" if scenarios.store.whole_index else \
            " (this server reads its KB from an endpoint: the whole KB is then streamed and sorted here)"
        raise ApiError(409, f"whole: R is the KB ({scenarios.store.fingerprint()}) without the triples at {removed}: "
                            f"GET those, or add ?whole=true for R in full{cost}", "whole")
    return _n_triples(scenarios.reference(scenario_id), f"{scenario_id}-reference.nt")


@api.get("/scenarios/<scenario_id>/reference/removed")
def removed_reference(scenario_id: str):
    """What R lacks of the KB named by the X-Factforge-KB-Fingerprint header, from any store."""
    _folder(scenario_id)
    scenarios = state().scenarios
    response = _n_triples(scenarios.removed_reference(scenario_id), f"{scenario_id}-reference.removed.nt")
    response.headers["X-Factforge-KB-Fingerprint"] = scenarios.manifest(scenario_id)["kb_fingerprint"]
    return response


def _n_triples(path, filename: str):
    response = send_file(path, mimetype="application/n-triples", conditional=True)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
