"""The OpenAPI 3 description of every route (``/openapi.json``) and a readable page of it (``/docs``).

The spec's fields, ranges, choices and defaults come from ``ScenarioSpec`` and its constraints
table, so the description cannot drift from what the validator accepts.
"""
from __future__ import annotations

import html
from dataclasses import fields

from flask import Blueprint, Response, jsonify

from factforge.claims.options import CLAIM_CONSTRAINTS
from factforge.generators.spec import CONSTRAINTS, Constraint, ScenarioSpec
from factforge.sparql import __version__
from factforge.sparql.result_formats import FORMATS

docs = Blueprint("docs", __name__)

ERROR = {"$ref": "#/components/schemas/Error"}
JSON_ERROR = {"application/json": {"schema": ERROR}}
SCENARIO_MEDIA = ["application/json", "application/x-ndjson", "text/tab-separated-values", "text/csv",
                  "text/turtle", "application/n-triples", "application/ld+json"]

_PREDICATE = {"type": "string", "description": "a CURIE (dbo:birthPlace) or absolute IRI", "minLength": 1}
_TYPES = {"integer": "integer", "number": "number", "choice": "string", "boolean": "boolean", "choices": "array",
          "text": "string"}


def knob_schema(constraint: Constraint) -> dict:
    """One knob's JSON schema, from the spec's constraints table."""
    schema: dict = {"type": _TYPES[constraint.kind]}
    if constraint.low is not None:
        schema |= {"minimum": constraint.low, "maximum": constraint.high}
    if constraint.default is None:  # no default: the knob's help says what happens without it
        return schema | {"description": constraint.help}
    if constraint.kind == "choice":
        schema["enum"] = list(constraint.allowed())
    if constraint.kind == "choices":
        schema["items"] = {"type": "string", "enum": list(constraint.allowed())}
    else:
        schema["default"] = constraint.default
    return schema | {"description": constraint.help}


def claims_parameters() -> list[dict]:
    """The claims knobs as query parameters (of ``format=fever``), from their constraints table."""
    out = []
    for name, constraint in CLAIM_CONSTRAINTS.items():
        schema = knob_schema(constraint)
        if constraint.kind == "choices":  # given as text, comma-separated, as on the command line
            schema = {"type": "string", "description": f"{constraint.help}, comma-separated: "
                      f"{', '.join(constraint.allowed())}", "default": ",".join(constraint.default)}
        out.append(_query_param(name, schema, f"claims (format=fever): {constraint.help}"))
    seed = {k: v for k, v in knob_schema(CONSTRAINTS["seed"]).items() if k != "default"}
    return out + [_query_param("seed", seed, "claims (format=fever): the seed, by default the scenario's")]


def spec_schema(example_predicate: str | None = None) -> dict:
    props = {name: _PREDICATE if name == "predicate" else knob_schema(CONSTRAINTS[name])
             for name in (f.name for f in fields(ScenarioSpec))}
    schema = {"type": "object", "required": ["predicate"], "properties": props, "additionalProperties": False}
    if example_predicate:
        schema["example"] = {"predicate": example_predicate, "size": 40, "transparency": 0.5, "seed": 1}
    return schema


def _example_predicate() -> str | None:
    """The KB's largest entity-valued predicate, so the example spec works on this server's KB."""
    from flask import has_app_context

    from factforge.sparql import profiles

    from .state import state

    if not has_app_context():
        return None
    items = [p for p in profiles.kb_profile(state().store)["profiles"] if not p["schema"] and p["object_types"]]
    return max(items, key=lambda p: (p["facts"], p["name"]))["name"] if items else None


def _op(summary: str, responses: dict, **extra) -> dict:
    return {"summary": summary, "responses": responses, **extra}


#: operations that links point at, by (path, method)
OPERATION_IDS = {("/api/jobs/{job_id}", "get"): "getJob", ("/api/scenarios/{scenario_id}", "get"): "getScenario",
                 ("/api/scenarios/{scenario_id}/answers", "get"): "getAnswers",
                 ("/api/scenarios/{scenario_id}/manifest", "get"): "getManifest",
                 ("/api/scenarios/{scenario_id}/reference", "get"): "getReference",
                 ("/api/scenarios/{scenario_id}/reference/removed", "get"): "getRemovedReference"}


def _json_response(description: str, schema: dict | None = None) -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema or {"type": "object"}}}}


def _error(description: str) -> dict:
    return {"description": description, "content": JSON_ERROR}


def _path_param(name: str, description: str) -> dict:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string"}, "description": description}


def _query_param(name: str, schema: dict, description: str) -> dict:
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": description}


def _scenario_links() -> dict:
    """OpenAPI links from a made scenario to the routes that read it (clients and fuzzers follow them)."""
    by_id = {"scenario_id": "$response.body#/id"}
    return {name: {"operationId": op, "parameters": by_id} for name, op in [
        ("GetScenario", "getScenario"), ("GetAnswers", "getAnswers"), ("GetManifest", "getManifest"),
        ("GetReference", "getReference"), ("GetRemovedReference", "getRemovedReference")]} | {"GetJob": {"operationId": "getJob", "parameters": {"job_id": "$response.body#/id"}}}


def openapi_document() -> dict:
    scenario_id = _path_param("scenario_id", "a scenario id (sc-...), from POST /api/scenarios")
    sparql_params = [{**_query_param("query", {"type": "string", "minLength": 1}, "the SPARQL query"), "required": True},
                     _query_param("format", {"type": "string", "enum": [f.name for f in FORMATS]},
                                  "a format name instead of Accept")]
    sparql_responses = {
        "200": {"description": "SELECT/ASK results or a graph", "content": {f.media_type: {} for f in FORMATS}},
        "400": _error("syntax error, missing query, query too long or nested too deeply"),
        "403": _error("an update (the endpoint is read-only), or a SERVICE to an endpoint not allowed"),
        "406": _error("Accept cannot be met"), "415": _error("unsupported body type"),
        "422": _error("more rows than the row cap"),
        "503": _error("stopped at the time limit, or the endpoint is busy (then with Retry-After)"),
    }
    paths = {
        "/api/kb": {"get": _op("The KB: fingerprint, counts, backend, limits", {"200": _json_response("the KB")})},
        "/api/predicates": {"get": _op("Predicate profiles, filtered and paged", {
            "200": _json_response("a page of profiles"), "400": _error("a bad filter or page value")},
            parameters=[
                _query_param("q", {"type": "string"}, "substring of the name or IRI"),
                _query_param("functionality", {"type": "string", "enum": ["1-1", "1-N", "N-1", "N-N"]}, ""),
                _query_param("min_facts", {"type": "integer", "minimum": 0, "maximum": 2**53}, ""),
                _query_param("schema", {"type": "boolean"}, "include rdf:/rdfs:/owl: ... predicates"),
                _query_param("sort", {"type": "string", "enum": ["facts", "name", "subjects", "objects"]}, ""),
                _query_param("limit", {"type": "integer", "minimum": 1, "maximum": 1000}, ""),
                _query_param("offset", {"type": "integer", "minimum": 0, "maximum": 2**53}, "")])},
        "/api/predicates/{name}": {"get": _op("One predicate's profile", {
            "200": _json_response("the profile"), "400": _error("not an IRI or CURIE"), "404": _error("no such predicate")},
            parameters=[_path_param("name", "dbo:birthPlace or a percent-encoded IRI")])},
        "/api/scenarios": {
            "post": _op("Make a scenario (or return the cached one with the same id)", {
                "201": {**_json_response("made; Location names it"), "links": _scenario_links()},
                "202": _json_response("still being made; Location is the job's status URL"),
                "400": _error("body is not JSON"), "413": _error("body too large"),
                "422": _error("a spec field is invalid; `field` names it"),
                "429": _error("the generation queue is full; Retry-After says when to ask again")},
                requestBody={"required": True, "content": {"application/json": {"schema": {
                    "$ref": "#/components/schemas/ScenarioSpec"}}}}),
            "get": _op("Scenarios made so far", {"200": _json_response("the list")}),
        },
        "/api/jobs/{job_id}": {"get": _op("Progress of a scenario being made", {
            "200": _json_response("status, step, progress, error"), "404": _error("no such job")},
            parameters=[_path_param("job_id", "the scenario id")])},
        "/api/scenarios/{scenario_id}": {"get": _op("A scenario's facts, in the negotiated format", {
            "200": {"description": "the facts of one split", "content": {m: {} for m in SCENARIO_MEDIA}},
            "400": _error("bad split, or a bad or unknown claims parameter (format=fever)"),
            "422": _error("format=fever: the claims shares cannot be met (says how many can be made)"),
            "429": _error("format=fever: too many claims sets being made; Retry-After"), "404": _error("no such scenario"), "406": _error("format not available"),
            "409": _error("still being made")},
            parameters=[scenario_id,
                        _query_param("format", {"type": "string", "enum": [
                            "json", "jsonl", "tsv", "csv", "turtle", "ntriples", "jsonld", "fever"]},
                            "instead of Accept; fever: the test facts as FEVER claims (JSON Lines), with the claims "
                            "parameters below"),
                        _query_param("split", {"type": "string", "enum": ["test", "train"]}, "default test"),
                        *claims_parameters()])},
        "/api/scenarios/{scenario_id}/answers": {"get": _op("How each false fact was made (never in the data)", {
            "200": _json_response("answers"), "404": _error("no such scenario"), "409": _error("still being made")},
            parameters=[scenario_id])},
        "/api/scenarios/{scenario_id}/manifest": {"get": _op("Spec, seed, KB fingerprint, counts, sha256 of files", {
            "200": _json_response("manifest"), "404": _error("no such scenario"), "409": _error("still being made")},
            parameters=[scenario_id])},
        "/api/scenarios/{scenario_id}/reference": {"get": _op("The reference KB R as N-Triples", {
            "200": {"description": "R", "content": {"application/n-triples": {}}},
            "400": _error("whole is not true or false"), "404": _error("no such scenario"),
            "409": _error("still being made; or the KB is an endpoint's and whole=true was not given"),
            "503": _error("another process is writing it for longer than the wait; Retry-After")},
            parameters=[scenario_id, _query_param("whole", {"type": "boolean"},
                                                  "R in full; default true, false when the KB is an endpoint's "
                                                  "(R in full then streams and sorts the whole KB)")])},
        "/api/scenarios/{scenario_id}/reference/removed": {"get": _op(
            "What R lacks of the KB named by X-Factforge-KB-Fingerprint: the removed triples as sorted N-Triples", {
                "200": {"description": "the removed triples", "content": {"application/n-triples": {}}},
                "404": _error("no such scenario"), "409": _error("still being made"),
                "503": _error("another process is writing it for longer than the wait; Retry-After")},
            parameters=[scenario_id])},
        "/api/examples": {"get": _op("Example queries from sparql/queries", {"200": _json_response("examples")})},
        "/sparql": {
            "get": _op("SPARQL 1.1 query (read-only)", sparql_responses, parameters=sparql_params),
            "post": _op("SPARQL 1.1 query by POST (read-only)", sparql_responses, requestBody={"content": {
                "application/sparql-query": {"schema": {"type": "string"}},
                "application/x-www-form-urlencoded": {"schema": {"type": "object", "required": ["query"],
                                                                 "properties": {"query": {"type": "string"}}}}}}),
        },
        "/openapi.json": {"get": _op("This document", {"200": _json_response("OpenAPI 3")})},
    }
    for path, methods in _extra_paths().items():
        paths.setdefault(path, {}).update(methods)
    for (path, method), operation_id in OPERATION_IDS.items():
        paths[path][method]["operationId"] = operation_id
    return {
        "openapi": "3.0.3",
        "info": {"title": "factforge", "version": __version__,
                 "description": "Labelled true/false fact-checking scenarios from an RDF KB, a read-only SPARQL "
                                "endpoint and frozen releases. Errors are JSON: {ok: false, status, error, field}."},
        "paths": paths,
        "components": {
            "schemas": {
                "ScenarioSpec": spec_schema(_example_predicate()),
                "Error": {"type": "object", "required": ["ok", "status", "error"], "properties": {
                    "ok": {"type": "boolean"}, "status": {"type": "integer"}, "error": {"type": "string"},
                    "field": {"type": "string"}}},
            },
            "securitySchemes": {"token": {"type": "http", "scheme": "bearer",
                                          "description": "the server's FACTFORGE_TOKEN"}},
        },
    }


#: other modules add their routes here (releases, evaluation) as {path: {method: operation}}
EXTRA_PATHS: list = []


def _extra_paths() -> dict:
    out: dict = {}
    for provider in EXTRA_PATHS:
        for path, methods in provider().items():
            out.setdefault(path, {}).update(methods)
    return out


@docs.get("/openapi.json")
def openapi_json():
    return jsonify(openapi_document())


@docs.get("/docs")
def docs_page():
    document = openapi_document()
    rows = []
    for path, methods in document["paths"].items():
        for method, op in methods.items():
            codes = ", ".join(sorted(op["responses"]))
            params = ", ".join(p["name"] for p in op.get("parameters", []))
            rows.append(f"<tr><td><code>{method.upper()}</code></td><td><code>{html.escape(path)}</code></td>"
                        f"<td>{html.escape(op['summary'])}</td><td>{html.escape(params)}</td><td>{codes}</td></tr>")
    spec_rows = "".join(f"<tr><td><code>{html.escape(name)}</code></td><td><code>{html.escape(str(schema))}</code></td></tr>"
                        for name, schema in spec_schema()["properties"].items())
    page = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>factforge API</title>
<link rel="stylesheet" href="/static/console.css"></head><body class="docs">
<h1>factforge API {html.escape(__version__)}</h1>
<p>{html.escape(document['info']['description'])} Machine-readable: <a href="/openapi.json">/openapi.json</a>.
Console: <a href="/">/</a>.</p>
<table><thead><tr><th>method</th><th>path</th><th>what</th><th>parameters</th><th>statuses</th></tr></thead>
<tbody>{''.join(rows)}</tbody></table>
<h2>Scenario spec (POST /api/scenarios)</h2><table><tbody>{spec_rows}</tbody></table></body></html>"""
    return Response(page, mimetype="text/html")
