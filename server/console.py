"""The web console: one page (SPARQL editor + scenario form), the example queries it offers, the
prefix table it abbreviates IRIs with, the answer formats it offers downloads in and the formats it
uploads predictions in. The knobs' bounds it reads from /openapi.json.

Every asset is served by the app itself (the console must work with no internet).
"""
from __future__ import annotations

from flask import Blueprint, jsonify, send_from_directory

from factforge.evaluation import predictions
from factforge.sparql import result_formats, templates, terms

from . import openapi


class ConsoleBlueprint(Blueprint):
    def send_static_file(self, filename: str):
        response = super().send_static_file(filename)
        # The console's scripts are ES modules, which browsers run only when sent as JavaScript; the
        # platform's MIME table may say otherwise (or nothing), so the type does not depend on it.
        if filename.endswith(".js"):
            response.mimetype = "text/javascript"
        return response


console = ConsoleBlueprint("console", __name__, static_folder="static", static_url_path="/static")


@console.get("/")
def page():
    return send_from_directory(console.static_folder, "console.html", max_age=0)


@console.get("/console")
def page_alias():
    return page()


@console.get("/api/examples")
def examples():
    """The templates that run as they are (no parameters), as console examples."""
    items = [{"name": t.name, "description": t.description, "form": t.form, "query": t.body.strip() + "\n"}
             for t in templates.all_templates() if not t.params]
    return jsonify({"items": sorted(items, key=lambda item: item["name"])})


@console.get("/api/prefixes")
def prefixes():
    """sparql/terms.py's prefix table, so the console abbreviates IRIs as the API does; a list, because
    the first namespace that fits wins."""
    return jsonify({"items": [{"prefix": prefix, "namespace": namespace}
                              for prefix, namespace in terms.PREFIXES.items()]})


@console.get("/api/result-formats")
def answer_formats():
    """sparql/result_formats.py's table, so the console asks /sparql for what it serves; ``graph``
    formats answer CONSTRUCT and DESCRIBE, the others SELECT and ASK."""
    return jsonify({"items": [{"name": f.name, "media_type": f.media_type, "aliases": list(f.aliases),
                               "graph": f.graph, "label": f.label, "extension": f.extension}
                              for f in result_formats.FORMATS]})


@console.get("/api/prediction-formats")
def prediction_formats():
    """evaluation/predictions.py's table, so the console sends a predictions file as the server reads it."""
    return jsonify({"items": [{"name": f.name, "media_type": f.media_type, "aliases": list(f.aliases),
                               "extensions": list(f.extensions), "label": f.label} for f in predictions.FORMATS]})


def _items(item: dict) -> dict:
    return {"type": "object", "required": ["items"], "properties": {"items": {"type": "array", "items": item}}}


def _openapi_paths() -> dict:
    strings = {"type": "string"}
    prefix = {"type": "object", "required": ["prefix", "namespace"],
              "properties": {"prefix": strings, "namespace": strings}}
    answer_format = {"type": "object", "required": ["name", "media_type", "aliases", "graph", "label", "extension"],
                     "properties": {"name": strings, "media_type": strings, "aliases": {"type": "array", "items": strings},
                                    "graph": {"type": "boolean"}, "label": strings, "extension": strings}}
    prediction_format = {"type": "object", "required": ["name", "media_type", "aliases", "extensions", "label"],
                         "properties": {"name": strings, "media_type": strings,
                                        "aliases": {"type": "array", "items": strings},
                                        "extensions": {"type": "array", "items": strings}, "label": strings}}
    return {"/api/prefixes": {"get": openapi._op("The prefixes IRIs are abbreviated with, in the order they are tried",
                                                 {"200": openapi._json_response("the prefix table", _items(prefix))})},
            "/api/result-formats": {"get": openapi._op("The formats /sparql answers in: name, media type, label, extension",
                                                       {"200": openapi._json_response("the format table",
                                                                                      _items(answer_format))})},
            "/api/prediction-formats": {"get": openapi._op(
                "The text formats predictions are uploaded in (POST .../evaluate): name, media type, extensions",
                {"200": openapi._json_response("the format table", _items(prediction_format))})}}


openapi.EXTRA_PATHS.append(_openapi_paths)
