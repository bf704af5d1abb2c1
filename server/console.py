"""The web console: one page (SPARQL editor + scenario form) and the example queries it offers.

Every asset is served by the app itself (the console must work with no internet).
"""
from __future__ import annotations

from flask import Blueprint, jsonify, send_from_directory

from factforge.sparql import templates

console = Blueprint("console", __name__, static_folder="static", static_url_path="/static")


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
