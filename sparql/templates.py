"""Query templates: one SPARQL query a file under ``sparql/queries``, bound to validated terms.

A template marks each parameter as ``$name``. Binding replaces it with a term written by
``terms.to_sparql`` (a validated IRI or an escaped literal), a whole number, or for batches a
list that fills a ``VALUES`` block. Nothing else can be pasted into a query, so no request
text ever becomes query syntax.

The leading ``#`` lines of a file say what the query answers; they are its documentation
(shown in the console's examples) and are dropped before binding.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Iterable, Sequence

from pyoxigraph import BlankNode, Literal, NamedNode

from .terms import TermError, to_sparql

_PARAM = re.compile(r"(?<![\w$])\$([A-Za-z_]\w*)")
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class TemplateError(ValueError):
    """A template is unknown, or was given missing, unexpected or ill-typed parameters."""


@dataclass(frozen=True)
class Template:
    name: str
    description: str
    body: str
    params: tuple[str, ...]

    @property
    def form(self) -> str:
        """SELECT, ASK, CONSTRUCT or DESCRIBE: the query form, read from the body."""
        match = re.search(r"\b(SELECT|ASK|CONSTRUCT|DESCRIBE)\b", _strip_prefixes(self.body), re.I)
        return match.group(1).upper() if match else "SELECT"

    def bind(self, params: dict[str, object] | None = None) -> str:
        params = dict(params or {})
        missing = [p for p in self.params if p not in params]
        extra = [p for p in params if p not in self.params]
        if missing:
            raise TemplateError(f"template {self.name}: missing parameter(s) {', '.join(missing)}")
        if extra:
            raise TemplateError(f"template {self.name}: unknown parameter(s) {', '.join(extra)}")
        rendered = {name: _render(self.name, name, value) for name, value in params.items()}
        return _PARAM.sub(lambda m: rendered[m.group(1)], self.body)


def _strip_prefixes(body: str) -> str:
    return re.sub(r"(?im)^\s*(PREFIX|BASE)\b[^\n]*\n", "", body)


def _render(template: str, name: str, value: object) -> str:
    try:
        if isinstance(value, bool):
            raise TemplateError(f"template {template}: parameter {name} cannot be a boolean")
        if isinstance(value, int):
            return str(int(value))
        if isinstance(value, (NamedNode, Literal, BlankNode)):
            return to_sparql(value)
        if isinstance(value, (list, tuple)):
            return _render_rows(template, name, value)
    except TermError as error:
        raise TemplateError(f"template {template}: parameter {name}: {error}") from None
    raise TemplateError(
        f"template {template}: parameter {name} must be an RDF term, a whole number or a list "
        f"of terms, not {type(value).__name__} (validate strings with terms.iri first)")


def _render_rows(template: str, name: str, rows: Sequence) -> str:
    """A VALUES body: ``t1 t2 ...`` for one variable, ``(a b) (c d) ...`` for several."""
    if not rows:
        # An empty VALUES block is legal and matches nothing, which is the honest answer.
        return ""
    if all(isinstance(r, (tuple, list)) for r in rows):
        width = len(rows[0])
        if any(len(r) != width for r in rows):
            raise TemplateError(f"template {template}: rows of {name} differ in length")
        return " ".join("(" + " ".join(_cell(c) for c in r) + ")" for r in rows)
    return " ".join(_cell(c) for c in rows)


def _cell(value: object) -> str:
    if value is None:
        return "UNDEF"
    if isinstance(value, (NamedNode, Literal)):
        return to_sparql(value)
    raise TermError(f"a VALUES cell must be an IRI or a literal, not {value!r}")


def _queries_dir():
    return resources.files("factforge.sparql") / "queries"


@lru_cache(maxsize=None)
def load(name: str) -> Template:
    """The template ``sparql/queries/<name>.rq``."""
    if not _NAME.match(name or ""):
        raise TemplateError(f"no query template named {name!r}")
    path = _queries_dir() / f"{name}.rq"
    if not path.is_file():
        raise TemplateError(f"no query template named {name!r}")
    return parse(name, path.read_text(encoding="utf-8"))


def parse(name: str, text: str) -> Template:
    lines = text.splitlines()
    doc: list[str] = []
    while lines and lines[0].lstrip().startswith("#"):
        doc.append(lines.pop(0).lstrip()[1:].strip())
    body = "\n".join(line for line in lines if not line.lstrip().startswith("#")).strip() + "\n"
    params = tuple(dict.fromkeys(_PARAM.findall(body)))
    return Template(name=name, description=" ".join(d for d in doc if d), body=body, params=params)


def names() -> list[str]:
    return sorted(p.name[:-3] for p in _queries_dir().iterdir() if p.name.endswith(".rq"))


def all_templates() -> Iterable[Template]:
    return [load(n) for n in names()]
