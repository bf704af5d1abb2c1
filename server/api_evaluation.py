"""Scoring a user's predictions on a scenario over HTTP, and the scenario's shortcut audit.

``POST /api/scenarios/<id>/evaluate`` takes fact id → score (JSON, TSV, CSV or JSON Lines) for
the test facts and answers the AUROC, the ROC points, and URLs of the ROC curve as PNG and SVG.
An evaluation is named by the hash of its scores, so posting the same predictions again gives the
same URLs; the pictures are written once.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading

from flask import Blueprint, jsonify, request, send_from_directory, url_for

from factforge.evaluation import evaluate_predictions
from factforge.evaluation.labelled import LabelledError, read_scenario
from factforge.evaluation.predictions import FORMATS, MEDIA_KINDS, PredictionsError, _score, parse_predictions
from factforge.sparql.messages import shown

from . import openapi
from .api import _evicted, _folder
from .errors import ApiError
from .scenario_disk import EVALUATIONS
from .state import state

evaluation_api = Blueprint("evaluation", __name__, url_prefix="/api")
log = logging.getLogger("factforge.server")
evaluation_api.register_error_handler(FileNotFoundError, _evicted)  # a scenario evicted while being read

NAME = re.compile(r"^[\w .:+()-]{1,40}$")
EVALUATION_ID = re.compile(r"^[0-9a-f]{16}$")
EXTENSIONS = {"png": "image/png", "svg": "image/svg+xml", "json": "application/json"}
_PLOT_LOCK = threading.Lock()  # pyplot keeps global state; one figure at a time


def _scores() -> tuple[dict[str, float], str]:
    media = (request.mimetype or "").lower()
    if media in MEDIA_KINDS:
        try:
            text = request.get_data().decode("utf-8")
        except UnicodeDecodeError:
            raise ApiError(400, "body: not UTF-8 text", "body") from None
        return parse_predictions(text, MEDIA_KINDS[media], "body"), request.args.get("name", "predictions")
    if media != "application/json":
        raise ApiError(415, f"Content-Type: {media or 'none'} is not application/json, "
                            f"{', '.join(MEDIA_KINDS)}", "Content-Type")
    data = request.get_json(silent=True)
    if not isinstance(data, dict) or "predictions" not in data:
        raise ApiError(400, 'body: expected {"predictions": {fact id: score, ...}} or a list of {id, score}',
                       "predictions")
    raw = data["predictions"]
    if isinstance(raw, dict):
        pairs = list(raw.items())
    elif isinstance(raw, list) and all(isinstance(item, dict) for item in raw):
        pairs = [(item.get("id"), item.get("score")) for item in raw]
    else:
        raise ApiError(400, "predictions: expected an object of id → score or a list of {id, score}", "predictions")
    scores: dict[str, float] = {}
    for number, (fact_id, value) in enumerate(pairs, 1):
        where = f"predictions[{number}]"
        if not isinstance(fact_id, str) or not fact_id:
            raise ApiError(422, f"{where}: field 'id' must be a non-empty string", "predictions")
        if fact_id in scores:
            raise ApiError(422, f"{where}: field 'id': {shown(fact_id)} is scored twice", "predictions")
        scores[fact_id] = _score(where, value)
    return scores, data.get("name", "predictions")


@evaluation_api.post("/scenarios/<scenario_id>/evaluate")
def evaluate(scenario_id: str):
    folder = _folder(scenario_id)
    try:
        scores, name = _scores()
    except PredictionsError as error:
        raise ApiError(422, str(error), "predictions") from None
    if not isinstance(name, str) or not NAME.match(name):
        raise ApiError(422, "name: 1-40 letters, digits, spaces or . : + ( ) -", "name")
    try:
        records = read_scenario(folder).test
    except LabelledError:  # a scenario folder we wrote ourselves; should not happen
        log.exception("scenario %s: its files are unreadable", scenario_id)  # the message names the folder
        message = f"scenario {scenario_id}: its files are unreadable; the server log has the details"
        raise ApiError(500, message) from None
    result = evaluate_predictions(records, scores)
    if not result["ok"]:
        raise ApiError(422, "predictions: " + "; ".join(result["errors"]), "predictions")
    canonical = json.dumps({"name": name, "scores": sorted(scores.items())}, separators=(",", ":"))
    evaluation_id = hashlib.sha256(canonical.encode()).hexdigest()[:16]
    _write_pictures(scenario_id, evaluation_id, name, records, scores, result)
    links = {ext: url_for("evaluation.evaluation_file", scenario_id=scenario_id, evaluation_id=evaluation_id, ext=ext)
             for ext in EXTENSIONS}
    return jsonify({"scenario": scenario_id, "evaluation": evaluation_id, "name": name, "auroc": result["auroc"],
                    "counts": result["counts"], "roc": result["roc"], "links": links})


def _evaluations_dir(scenario_id: str):
    return state().scenarios.root / EVALUATIONS / scenario_id


def _write_pictures(scenario_id: str, evaluation_id: str, name: str, records, scores, result) -> None:
    from factforge.evaluation.labelled import labels
    from factforge.evaluation.metrics import roc_plot

    out = _evaluations_dir(scenario_id)
    if (out / f"{evaluation_id}.json").is_file():
        return
    out.mkdir(parents=True, exist_ok=True)
    y = labels(records)
    values = [scores[r["id"]] for r in records]
    with _PLOT_LOCK:
        written = roc_plot({name: (y, values)}, out / f".partial-{evaluation_id}.x",
                           title=f"ROC of {name} on {scenario_id}")
        for path in written:
            os.replace(path, out / f"{evaluation_id}{path.suffix}")
    summary = {"scenario": scenario_id, "evaluation": evaluation_id, "name": name, "auroc": result["auroc"],
               "counts": result["counts"], "roc": result["roc"]}
    partial_json = out / f".{evaluation_id}.json.partial"
    partial_json.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    os.replace(partial_json, out / f"{evaluation_id}.json")  # last: its presence means all three exist


@evaluation_api.get("/scenarios/<scenario_id>/evaluations/<evaluation_id>.<ext>")
def evaluation_file(scenario_id: str, evaluation_id: str, ext: str):
    _folder(scenario_id)
    if not EVALUATION_ID.match(evaluation_id) or ext not in EXTENSIONS:
        raise ApiError(404, "evaluation: no such file", "evaluation")
    out = _evaluations_dir(scenario_id)
    if not (out / f"{evaluation_id}.json").is_file():
        raise ApiError(404, f"evaluation: no evaluation {evaluation_id} of {scenario_id}", "evaluation")
    return send_from_directory(out, f"{evaluation_id}.{ext}", mimetype=EXTENSIONS[ext])


@evaluation_api.get("/scenarios/<scenario_id>/audit")
def audit(scenario_id: str):
    _folder(scenario_id)
    report = state().scenarios.manifest(scenario_id).get("audit")
    if report is None:
        raise ApiError(404, f"audit: scenario {scenario_id} was written without an audit", "audit")
    return jsonify(report)


def _openapi_paths() -> dict:
    scenario_id = {"name": "scenario_id", "in": "path", "required": True, "schema": {"type": "string"}}
    error = {"description": "error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    body = {"type": "object", "required": ["predictions"], "properties": {
        "name": {"type": "string", "description": "legend of the ROC curve"},
        "predictions": {"oneOf": [
            {"type": "object", "additionalProperties": {"type": "number"}},
            {"type": "array", "items": {"type": "object", "required": ["id", "score"], "properties": {
                "id": {"type": "string"}, "score": {"type": "number"}}}}]}}}
    return {
        "/api/scenarios/{scenario_id}/evaluate": {"post": {
            "summary": "AUROC of your predictions on the test facts, with ROC pictures",
            "parameters": [scenario_id],
            "requestBody": {"required": True, "content": {
                "application/json": {"schema": body},
                **{f.media_type: {"schema": {"type": "string"}} for f in FORMATS}}},
            "responses": {"200": {"description": "auroc, roc points, links to PNG/SVG/JSON",
                                  "content": {"application/json": {"schema": {"type": "object"}}}},
                          "400": error, "404": error, "409": error, "413": error, "415": error, "422": error}}},
        "/api/scenarios/{scenario_id}/evaluations/{evaluation_id}.{ext}": {"get": {
            "summary": "A stored evaluation: ROC as PNG or SVG, or its JSON",
            "parameters": [scenario_id,
                           {"name": "evaluation_id", "in": "path", "required": True, "schema": {"type": "string"}},
                           {"name": "ext", "in": "path", "required": True,
                            "schema": {"type": "string", "enum": sorted(EXTENSIONS)}}],
            "responses": {"200": {"description": "the file", "content": {m: {} for m in EXTENSIONS.values()}},
                          "404": error, "409": error}}},
        "/api/scenarios/{scenario_id}/audit": {"get": {
            "summary": "The scenario's shortcut audit (also in its manifest)",
            "parameters": [scenario_id],
            "responses": {"200": {"description": "the audit report",
                                  "content": {"application/json": {"schema": {"type": "object"}}}},
                          "404": error, "409": error}}},
    }


openapi.EXTRA_PATHS.append(_openapi_paths)
