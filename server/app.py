"""The Flask app factory: one store, the services on it, one blueprint per area."""
from __future__ import annotations

import atexit
from pathlib import Path

from flask import Flask
from flask.json.provider import DefaultJSONProvider

from factforge.publish.releases import default_releases_dir
from factforge.sparql.store import Store

from . import errors
from .query_runner import QueryLimits, QueryRunner
from .scenario_disk import DEFAULT_MB, release_pins
from .scenarios import ScenarioService
from .state import ServerState

DEFAULTS = {
    "MAX_CONTENT_LENGTH": 1 << 20,   # request bodies: specs, queries, predictions
    "SYNC_WAIT": 1.0,                 # POST /api/scenarios answers 201 if done by then, else 202
    "SPARQL_TIMEOUT": 30.0,
    "SPARQL_ROW_CAP": 100_000,
    "SPARQL_WORKERS": 2,              # queries run at once, each in its own process
    "SPARQL_QUEUE": 2,                # queries waiting for a worker; past it, 503 at once
    "SPARQL_MEMORY_MB": 2048,         # heap of one query process; past it the query fails with 400
    "SERVICE_ALLOW": [],              # endpoints /sparql may call with SERVICE (none: SERVICE refused)
    "MAX_FACTS": 20_000,              # size + train_size of one requested scenario
    "SCENARIO_DIR": None,             # default: <cache>/<fingerprint>/scenarios
    "SCENARIO_DISK_MB": DEFAULT_MB,   # bound on SCENARIO_DIR; least recently used scenarios are evicted
    "GENERATION_QUEUE": 8,            # scenarios made or waiting, all processes together; then 429
    "RELEASES_DIR": None,             # default: $FACTFORGE_RELEASES or <cache root>/releases, as the CLI
    "TOKEN": None,                    # FACTFORGE_TOKEN: needed by every mutating route but POST /api/scenarios
    "JSON_SORT_KEYS": False,
    "FAST_PATH": True,                # finished scenarios' data answered ahead of Flask (server/fastpath.py)
}


class BodyJSONProvider(DefaultJSONProvider):
    """Flask's JSON, where a body nested past the parser's recursion limit is invalid JSON (a 400
    like any other) instead of a RecursionError that no view expects."""

    def loads(self, s, **kwargs):
        try:
            return super().loads(s, **kwargs)
        except RecursionError:
            raise ValueError("JSON nested too deeply") from None


def create_app(store: Store, config: dict | None = None) -> Flask:
    app = Flask(__name__, static_folder=None)
    app.json = BodyJSONProvider(app)
    app.config.update(DEFAULTS)
    app.config.update(config or {})
    app.json.sort_keys = False
    cache = Path(store.cache_dir())
    scenario_dir = Path(app.config["SCENARIO_DIR"] or cache / store.fingerprint() / "scenarios")
    app.config["RELEASES_DIR"] = str(app.config["RELEASES_DIR"] or default_releases_dir())
    st = ServerState(
        store=store,
        runner=QueryRunner(store, timeout=float(app.config["SPARQL_TIMEOUT"]),
                           row_cap=int(app.config["SPARQL_ROW_CAP"]), workers=int(app.config["SPARQL_WORKERS"]),
                           queue_size=int(app.config["SPARQL_QUEUE"]),
                           limits=QueryLimits(service_allow=frozenset(app.config["SERVICE_ALLOW"])),
                           warm=bool(app.config.get("SPARQL_WARM")), memory_mb=int(app.config["SPARQL_MEMORY_MB"])),
        scenarios=ScenarioService(store, scenario_dir, max_facts=int(app.config["MAX_FACTS"]),
                                  disk_limit=int(float(app.config["SCENARIO_DISK_MB"]) * (1 << 20)),
                                  queue=int(app.config["GENERATION_QUEUE"]),
                                  pinned=release_pins(app.config["RELEASES_DIR"])),
    )
    app.extensions["factforge"] = st
    atexit.register(st.close)
    errors.install(app)

    from .api import api
    from .api_claims import claims_api
    from .api_evaluation import evaluation_api
    from .api_releases import releases
    from .console import console
    from .openapi import docs
    from .sparql_endpoint import endpoint

    for blueprint in (api, claims_api, endpoint, console, docs, releases, evaluation_api):
        app.register_blueprint(blueprint)
    if app.config["FAST_PATH"]:
        _install_fast_paths(app, st)
    return app


def _install_fast_paths(app: Flask, st: ServerState) -> None:
    """The two hot routes answered ahead of Flask, byte for byte as Flask answers them."""
    from .api import scenario_offers
    from .fastpath import ScenarioFastPath
    from .scenarios import FILE_CACHE_ITEM, FILE_CACHE_TOTAL
    from .sparql_endpoint import CORS, RESULT_OFFERS
    from .sparql_fastpath import SparqlFastPath

    scenarios = ScenarioFastPath(app.wsgi_app, st.scenarios, scenario_offers(), "json",
                                 max_item=FILE_CACHE_ITEM, max_total=FILE_CACHE_TOTAL)
    sparql = SparqlFastPath(scenarios, st.runner, RESULT_OFFERS, CORS)
    # Wrapping wsgi_app (not the app) keeps `app` the WSGI callable that servers and tests use.
    app.wsgi_app = sparql
    app.extensions["factforge.fastpaths"] = {"scenarios": scenarios, "sparql": sparql}
