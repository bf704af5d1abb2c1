"""What one running server holds: the store and the services built on it, kept on the app."""
from __future__ import annotations

from dataclasses import dataclass

from flask import current_app

from factforge.sparql.store import Store

from .query_runner import QueryRunner
from .scenarios import ScenarioService


@dataclass
class ServerState:
    store: Store
    runner: QueryRunner
    scenarios: ScenarioService

    def close(self) -> None:
        self.runner.close()
        self.scenarios.close()


def state() -> ServerState:
    return current_app.extensions["factforge"]
