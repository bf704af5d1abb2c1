"""A scenario's facts as FEVER claims over HTTP: ``GET /api/scenarios/<id>?format=fever``, and the
answers, manifest and R (``reference.sorted.nt``, where the evidence lines point) of the same set.

The claims knobs are query parameters named as in claims/options.py's table, which the command
line's flags come from too (``lang=en,de``, ``shares=1/3,1/3,1/3``, ``negation=0.2``, ...), and
are checked by it: a bad or unknown one is a 400 naming it. The seed is the scenario's unless
``seed`` is given; the leakage level is the scenario's. A claims set is made on its first request,
one at a time per process under the scenario's claim (which pins it against eviction), into
``<scenario>/claims/<key>/`` (key: a hash of the settings and seed), and read from there after;
sets count toward the scenario folder's bound and are trimmed, least recently used first, before
any scenario is evicted (server/scenario_disk.py);
its bytes are those ``factforge claims`` writes for the same scenario folder and knobs. Provenance
is never in the claims: it is the ``/claims/answers`` route's, as the scenario's is ``/answers``.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import threading
import time
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlencode

from flask import Blueprint, request, send_file, url_for

from factforge.claims.build import make_claims
from factforge.claims.errors import ClaimsError
from factforge.claims.labelling import SharesError
from factforge.claims.names import NamesError
from factforge.claims.options import CLAIM_CONSTRAINTS, claim_options, claim_settings, settings_key
from factforge.claims.reference_dump import DUMP
from factforge.evaluation.labelled import read_scenario
from factforge.generators.spec import CONSTRAINTS, SpecError, check_knob
from factforge.sparql.messages import shown
from factforge.sparql.store import StoreError

from . import api as scenario_api
from . import openapi
from .errors import ApiError
from .scenario_disk import CLAIMS_SETS as CLAIMS
from .scenarios import RETRY_BUSY, Busy
from .state import state

claims_api = Blueprint("claims", __name__, url_prefix="/api")

MEDIA = "application/x-ndjson"
FILES = {"answers": ("answers.json", "application/json"), "manifest": ("manifest.json", "application/json"),
         "reference": (DUMP, "application/n-triples")}
_making = threading.Lock()  # claims sets are CPU-bound Python: one at a time per process
_waiting = [0]
_waiting_lock = threading.Lock()
log = logging.getLogger("factforge.server")


def query(*, data_route: bool) -> tuple[dict, int | None]:
    """The claims settings and seed (None: the scenario's) of this request's query string."""
    extra = {"format", "split"} if data_route else set()
    values, seed = {}, None
    for name in request.args:
        given = request.args.getlist(name)
        if len(given) > 1:
            raise ApiError(400, f"{name}: given {len(given)} times; give it once", name)
        if name in extra:
            continue
        if name == "seed":
            seed = _seed(given[0])
        elif name in CLAIM_CONSTRAINTS:
            values[name] = given[0]
        else:
            known = ", ".join([*sorted(extra), "seed", *CLAIM_CONSTRAINTS])
            raise ApiError(400, f"{name}: unknown query parameter of claims (known: {known})", name)
    if data_route and request.args.get("split", "test") != "test":
        raise ApiError(400, f"split: claims are made of the test split, not {shown(request.args['split'])}", "split")
    try:
        return claim_settings(values), seed
    except SpecError as error:
        raise ApiError(400, str(error), error.field) from None


def _seed(raw: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        value = raw  # refused below, in the spec's words
    try:
        check_knob("seed", value, CONSTRAINTS["seed"])
    except SpecError as error:
        raise ApiError(400, str(error), "seed") from None
    return value


def claims_folder(scenario_id: str, settings: dict, seed: int | None) -> Path:
    """The folder of this claims set, made first if it is not on disk."""
    st = state()
    folder = scenario_api._folder(scenario_id)
    spec = st.scenarios.manifest(scenario_id)["spec"]
    seed = spec["seed"] if seed is None else seed
    key = settings_key(settings, seed)
    target = folder / CLAIMS / key
    if (target / "manifest.json").is_file():
        st.scenarios.disk.touch(scenario_id, key)
        return target
    options = claim_options(settings, seed=seed, leakage=spec["leakage"])
    with _waiting_lock:  # waiting requests hold request threads: bounded like the generation queue
        if st.scenarios.queue is not None and _waiting[0] >= st.scenarios.queue:
            raise Busy(f"{_waiting[0]} claims sets are being made or waiting in this process; ask again in "
                       f"{RETRY_BUSY} s")
        _waiting[0] += 1
    try:
        with _making:
            claim = st.scenarios.claim_waiting(scenario_id)  # one maker in all processes; pins the scenario
            try:
                # made meanwhile by the request we waited for, here or in another process
                if not (target / "manifest.json").is_file():
                    _make(st.store, folder, scenario_id, options, target)
                    st.scenarios.disk.touch(scenario_id, key)
                    st.scenarios.disk.enforce(holding=scenario_id, keep=f"{scenario_id}/{CLAIMS}/{key}")
            finally:
                st.scenarios.job_files.remove(scenario_id, claim)
    finally:
        with _waiting_lock:
            _waiting[0] -= 1
    return target


def _make(store, folder: Path, scenario_id: str, options, target: Path) -> None:
    # The scenario's id stands for its folder in the claims manifest: where the server keeps it is its own.
    source = replace(read_scenario(folder), folder=Path(scenario_id))
    # Made aside and renamed into place: a reader sees a whole set or none, a failed one leaves
    # nothing behind, and a killed maker's half is swept at the next start (scenario_disk).
    staging = folder / f".{CLAIMS}-{target.name}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    started = time.perf_counter()
    try:
        make_claims(store, source, options, staging)
        target.parent.mkdir(exist_ok=True)
        shutil.rmtree(target, ignore_errors=True)  # a half set an older version left in place
        os.rename(staging, target)
    except SharesError as error:
        field = "count" if options.count is not None else "shares"
        raise ApiError(422, f"{field}: {str(error).removeprefix('--shares: ')}", field) from None
    except NamesError as error:
        raise ApiError(422, str(error).replace("--require-labels: ", "require_labels: ", 1), "require_labels") from None
    except ClaimsError as error:
        raise ApiError(422, str(error)) from None
    except StoreError as error:
        raise ApiError(502, f"the store could not answer: {error}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    log.info("claims set %s of %s made in %.1f s", target.name, scenario_id, time.perf_counter() - started)


def _links(scenario_id: str) -> str:
    """``Link`` header: the set's answers, manifest and R, asked with the same knobs."""
    asked = urlencode([(k, v) for k, v in request.args.items() if k not in ("format", "split")])
    suffix = f"?{asked}" if asked else ""
    return ", ".join(f'<{url_for(f"claims.{part}", scenario_id=scenario_id)}{suffix}>; rel="{part}"'
                     for part in FILES)


def fever(scenario_id: str):
    """The claims JSONL of a scenario (the ``format=fever`` of its data route)."""
    settings, seed = query(data_route=True)
    return _serve(scenario_id, settings, seed, "claims.jsonl", MEDIA)


def _serve(scenario_id: str, settings: dict, seed: int | None, name: str, media: str):
    try:
        return _send(scenario_id, claims_folder(scenario_id, settings, seed), name, media)
    except FileNotFoundError:
        # Trimmed between the check and the read to keep the folder under its bound (its scenario
        # stays): made again once; a scenario evicted meanwhile is the error handler's 404.
        return _send(scenario_id, claims_folder(scenario_id, settings, seed), name, media)


def _send(scenario_id: str, folder: Path, name: str, media: str):
    digests = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["files"]
    response = send_file(folder / name, mimetype=media, etag=digests.get(name, True), conditional=True)
    response.headers["Content-Disposition"] = f'inline; filename="{scenario_id}-claims-{name}"'
    response.headers["Link"] = _links(scenario_id)
    return response


scenario_api.FORMAT_HANDLERS["fever"] = fever


def _part(part: str):
    def route(scenario_id: str):
        settings, seed = query(data_route=False)
        return _serve(scenario_id, settings, seed, *FILES[part])

    route.__name__ = part
    claims_api.add_url_rule(f"/scenarios/<scenario_id>/claims/{part}", part, route, methods=["GET"])


for _name in FILES:
    _part(_name)
claims_api.register_error_handler(Busy, scenario_api._busy)
claims_api.register_error_handler(FileNotFoundError, scenario_api._evicted)


def _openapi_paths() -> dict:
    scenario_id = openapi._path_param("scenario_id", "a scenario id (sc-...), from POST /api/scenarios")
    responses = {"400": openapi._error("a bad or unknown claims knob; `field` names it"),
                 "404": openapi._error("no such scenario"), "409": openapi._error("still being made"),
                 "422": openapi._error("the shares cannot be met (says how many claims can be made), or a name "
                                       "is missing under require_labels"),
                 "429": openapi._error("too many claims sets being made; Retry-After")}
    what = {"answers": "How each claim was made (never in the claims)",
            "manifest": "Languages, shares, kinds, seed, KB fingerprint, sha256 of the claims files",
            "reference": "The claims' R as sorted N-Triples: the evidence lines are 0-based lines of it"}
    return {f"/api/scenarios/{{scenario_id}}/claims/{part}": {"get": openapi._op(what[part], {
        "200": {"description": part, "content": {FILES[part][1]: {}}}, **responses},
        parameters=[scenario_id, *openapi.claims_parameters()])} for part in FILES}


openapi.EXTRA_PATHS.append(_openapi_paths)
