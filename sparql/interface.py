"""The store interface every backend implements: read access to a KB by template name, rows of
pyoxigraph terms, and the error a store reports. ``store.open_store`` picks the backend."""
from __future__ import annotations

import os
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Iterator

from pyoxigraph import NamedNode, Triple

from . import templates
from .answer_file import AnswerFile
from .terms import Term

Row = dict[str, Term]


class StoreError(RuntimeError):
    """The store could not answer: unreachable endpoint, bad query, failed load."""


class Store(ABC):
    """Read access to a KB by template; ``EmbeddedStore`` adds loading."""

    kind: str = "abstract"
    # Whether a blank node keeps its id from one query to the next (a local store's do; an
    # endpoint's answers label them afresh), so that a query's blank node can be matched later.
    stable_blank_ids: bool = True
    #: whether a scenario reads the KB's whole adjacency index (built locally once per KB), or
    #: fetches only the neighbourhoods it reads (an endpoint's KB may not fit on this machine)
    whole_index: bool = True
    #: whether a join of two subqueries is evaluated by hash (each side once), as Oxigraph does;
    #: Virtuoso 7.2 runs it as a nested loop, far slower than lookups there (``middle_step_pairs``,
    #: docs/endpoints.md, dialect differences)
    hash_joins_subqueries: bool = True

    # --- by template -----------------------------------------------------------------------
    def select(self, template: str, **params) -> Iterator[Row]:
        return self.select_query(self._bound(template, params, "SELECT"))

    def ask(self, template: str, **params) -> bool:
        return self.ask_query(self._bound(template, params, "ASK"))

    def construct(self, template: str, **params) -> Iterator[Triple]:
        return self.construct_query(self._bound(template, params, "CONSTRUCT"))

    def count(self, template: str, **params) -> int:
        """The single number a counting template (one row, one variable) returns."""
        rows = list(self.select(template, **params))
        if len(rows) != 1 or len(rows[0]) != 1:
            raise StoreError(f"template {template} does not return one number")
        return int(next(iter(rows[0].values())).value)

    @staticmethod
    def _bound(template: str, params: dict, form: str) -> str:
        tpl = templates.load(template)
        if tpl.form != form and not (form == "CONSTRUCT" and tpl.form == "DESCRIBE"):
            raise templates.TemplateError(f"template {template} is a {tpl.form} query, not {form}")
        return tpl.bind(params)

    # --- by query text (backends implement) -------------------------------------------------
    @abstractmethod
    def select_query(self, query: str) -> Iterator[Row]: ...

    @abstractmethod
    def ask_query(self, query: str) -> bool: ...

    @abstractmethod
    def construct_query(self, query: str) -> Iterator[Triple]: ...

    @abstractmethod
    def run_query(self, query: str, result_format: str = "json") -> tuple[bytes, str]:
        """Run user-written query text read-only; return the serialized result and its media type."""

    def answer_file(self, query: str, result_format: str = "json") -> AnswerFile:
        """``run_query``'s answer as a file to copy out in chunks (an endpoint's is never held whole)."""
        body, media = self.run_query(query, result_format)
        return AnswerFile.of(body, media)

    @abstractmethod
    def fingerprint(self) -> str:
        """A stable identity of the KB's content, the key of every cached statistic."""

    @abstractmethod
    def triple_count(self) -> int: ...

    def triples(self) -> Iterator[tuple[Term, NamedNode, Term]]:
        """Every triple of every graph (a triple in two graphs comes twice), predicate by predicate."""
        for predicate in sorted(row["p"].value for row in self.select("predicate_counts")):
            p = NamedNode(predicate)
            for row in self.select("predicate_facts", predicate=p):
                yield row["s"], p, row["o"]

    def cache_dir(self) -> Path:
        """Where statistics of this KB are cached (by fingerprint, below this folder)."""
        return default_cache_root()

    def describe(self) -> dict:
        return {"backend": self.kind, "fingerprint": self.fingerprint(), "triples": self.triple_count()}

    def close(self) -> None:  # pragma: no cover - backends override when they hold resources
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def default_cache_root() -> Path:
    root = os.environ.get("FACTFORGE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "factforge")
    return Path(root)
